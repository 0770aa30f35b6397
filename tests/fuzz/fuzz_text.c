// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: names from a trace (any bytes: a comm set with
 * prctl(PR_SET_NAME), an IRQ's name, a file name) through every text
 * writer the programs use (issue 41):
 *
 *   byte 0        the room given to evt_fmt_esc (1 + byte 0)
 *   the rest      the name (cut at its first NUL, as a C string is)
 *
 * Checked with FZ_ASSERT: evt_fmt_esc (evstat's and evview's tables, every
 * program's messages) and evt_fputs_esc write no byte a terminal acts on
 * (C0 but none, DEL, C1 raw or as UTF-8, a bidirectional override), only
 * well-formed UTF-8, never past the room given, cut only at a whole
 * character, and the same again when escaped twice; evt_errf's messages
 * likewise; evt_json_str through evt_json_write (every JSON document) is valid JSON, as safe, and
 * gives the name back when it was well-formed UTF-8; evcat's text line of
 * an event whose string field is the name holds no raw control byte; evctl's
 * status table with the name as an event, a comm and a cgroup neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "fuzz_common.h"
#include "format/evt_format.h"
#include "util/evt_io.h"
#include "json/evt_json.h"

/* evctl's status table: in the unit build, which links evctl's command line (not in libFuzzer's). */
#ifdef FZ_NO_MAIN
#define FZ_WITH_EVCTL 1
#include "evctl_cli.h"
#endif

/* No byte a terminal acts on, and well-formed UTF-8. */
static void ft_shown(const char *s, size_t n)
{
	const unsigned char *b = (const unsigned char *)s;

	for (size_t i = 0; i < n; i++) {
		unsigned int u = 1;

		FZ_ASSERT((b[i] >= 0x20 || b[i] == '\n') && b[i] != 0x7f);
		if (b[i] >= 0x80) {
			FZ_ASSERT(b[i] >= 0xc2 && b[i] <= 0xf4);
			u = b[i] < 0xe0 ? 2 : b[i] < 0xf0 ? 3 : 4;
			FZ_ASSERT(i + u <= n);
			for (unsigned int k = 1; k < u; k++)
				FZ_ASSERT((b[i + k] & 0xc0) == 0x80);
			FZ_ASSERT(!(b[i] == 0xc2 && b[i + 1] <= 0x9f));
			FZ_ASSERT(!(b[i] == 0xe2 && b[i + 1] == 0x80 && b[i + 2] >= 0xaa && b[i + 2] <= 0xae));
			FZ_ASSERT(!(b[i] == 0xe2 && b[i + 1] == 0x81 && b[i + 2] >= 0xa6 && b[i + 2] <= 0xa9));
		}
		i += u - 1;
	}
}

static int ft_utf8(const char *s)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	json_t *j;
	int ok;

	FZ_ASSERT(f);
	FZ_ASSERT(evt_json_write(f, json_pack("[o]", evt_json_str(s)), 0) == 0);
	FZ_ASSERT(fclose(f) == 0);
	ft_shown(out, n);	/* JSON on a terminal (evstat --json) is text too */
	j = json_loads(out, 0, NULL);
	FZ_ASSERT(j && json_is_array(j) && json_is_string(json_array_get(j, 0)));
	ok = !strcmp(json_string_value(json_array_get(j, 0)), s);
	json_decref(j);
	free(out);
	return ok;
}

int fz_text_one(const uint8_t *data, size_t size)
{
	char *name, *full, *twice, *text = NULL;
	size_t room, len, tlen = 0;
	char msg[300];
	FILE *f;

	if (size < 1)
		return 0;
	room = 1 + data[0];
	name = malloc(size);
	FZ_ASSERT(name);
	memcpy(name, data + 1, size - 1);
	name[size - 1] = 0;
	len = strlen(name);

	/* Cut to the room given, at a whole character; the whole name fits 4 bytes a byte. */
	full = malloc(4 * len + 1);
	twice = malloc(4 * (4 * len + 1) + 1);
	FZ_ASSERT(full && twice);
	FZ_ASSERT(evt_fmt_esc(full, 4 * len + 1, name) == full);
	ft_shown(full, strlen(full));
	FZ_ASSERT(!strcmp(evt_fmt_esc(twice, 4 * (4 * len + 1) + 1, full), full));
	{
		char *cut = malloc(room);

		FZ_ASSERT(cut);
		evt_fmt_esc(cut, room, name);
		FZ_ASSERT(strlen(cut) < room && !strncmp(cut, full, strlen(cut)));
		ft_shown(cut, strlen(cut));
		free(cut);
	}
	f = open_memstream(&text, &tlen);
	FZ_ASSERT(f && evt_fputs_esc(f, name) == 0);
	fclose(f);
	FZ_ASSERT(tlen == strlen(full) && !memcmp(text, full, tlen));
	free(text);
	evt_errf(msg, sizeof(msg), "%s/compact_0: %s", "dir", name);
	ft_shown(msg, strlen(msg));

	/* JSON: valid, and the name itself back when it was UTF-8 (the escape says nothing else). */
	{
		json_t *valid = json_string(name);	/* NULL: not UTF-8 */

		FZ_ASSERT(ft_utf8(name) || !valid);
		json_decref(valid);
	}

	/* evcat's text line of an event with the name in a string field. */
	{
		static const struct evt_field_desc fields[] = { { .name = "name", .type = EVT_F_STRING } };
		const struct evt_event_desc d = { .name = "fuzz_text", .fields = fields, .nr_fields = 1 };
		struct evt_fmt fm;
		struct evt_out o;

		FZ_ASSERT(evt_out_init(&o, -1, 256) == 0);
		FZ_ASSERT(evt_fmt_init(&fm, EVT_FMT_TEXT, 0, &d, 1) == 0);
		FZ_ASSERT(evt_fmt_event(&fm, &o, 1000, 0, &d, (const uint8_t *)name, (uint32_t)len + 1, 0) == 0);
		ft_shown(o.buf, o.len);
		evt_fmt_free(&fm);
		evt_out_free(&o);
	}
#ifdef FZ_WITH_EVCTL
	{
		static struct evt_status st;

		memset(&st, 0, sizeof(st));
		st.mode = -1;
		st.high_water = st.flush_ms = -1;
		st.events = calloc(1, sizeof(*st.events));
		FZ_ASSERT(st.events);
		snprintf(st.events[0].name, sizeof(st.events[0].name), "%s", name);
		st.nr_events = 1;
		st.filter.set = 1;
		snprintf(st.filter.comms[0], sizeof(st.filter.comms[0]), "%s", name);
		snprintf(st.filter.cgroups[0], sizeof(st.filter.cgroups[0]), "%s", name);
		st.filter.nr_comms = st.filter.nr_cgroups = 1;
		f = open_memstream(&text, &tlen);
		FZ_ASSERT(f);
		evt_status_print_text(f, &st);
		fclose(f);
		ft_shown(text, tlen);
		free(text);
		free(st.events);
	}
#endif
	free(twice);
	free(full);
	free(name);
	return 0;
}

FZ_TARGET(fz_text_one)
