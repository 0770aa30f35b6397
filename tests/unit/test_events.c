// SPDX-License-Identifier: GPL-2.0
/*
 * The one definition of every event (<evtrace/event-defs.h>) against what is
 * derived from it: the catalogue the metadata is rendered from, the packed
 * payload structs the probes and the synthesizer fill, the table of docs/events.md.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "unit.h"
#include "engine/evt_engine.h"
#include <evtrace/events.h>
#include <evtrace/event-layout.h>

struct pl_field {
	const char *name;
	unsigned int off, size;
};

/* Per class: its fixed fields as the packed struct lays them out. */
#define PL_ROW(T, f) out[n++] = (struct pl_field){ #f, (unsigned int)offsetof(pl_t, f), \
						 (unsigned int)sizeof(((pl_t *)0)->f) };
#define PL_VAR(T, f) (*nvar)++;
#define PL_CLASS(cls, doc)							\
	static __attribute__((unused)) unsigned int				\
	pl_fields_##cls(struct pl_field *out, unsigned int *nvar)		\
	{									\
		typedef struct evt_pl_##cls pl_t;				\
		unsigned int n = 0;						\
										\
		(void)out;							\
		(void)sizeof(pl_t);						\
		*nvar = 0;							\
		EVT_FIELDS_##cls(PL_ROW, PL_VAR)				\
		return n;							\
	}
EVT_CLASSES(PL_CLASS)

static const struct {
	const char *name, *cls;
	unsigned int (*fields)(struct pl_field *out, unsigned int *nvar);
	unsigned int size, chan, id;
} defined[] = {
#define PL_EVENT(ev, cls, ch, ID, num, by)					\
	{ #ev, #cls, pl_fields_##cls, (unsigned int)sizeof(struct evt_pl_##cls),	\
	  EVT_CHAN_OF_##ID, EVT_ID_##ID },
	EVT_EVENTS(PL_EVENT)
	EVT_SYSCALL_UNKNOWN_EVENTS(PL_EVENT)
};

/*
 * Every defined event is in the catalogue with its channel and id, and each
 * field of its payload struct is where the decoder (evt_field_offset(): the
 * metadata's layout) looks for it, with the size its type has there.
 */
START_TEST(payload_structs_match_the_catalogue)
{
	unsigned int i, j;

	for (i = 0; i < sizeof(defined) / sizeof(defined[0]); i++) {
		const struct evt_event_desc *d = evt_find_event_by_name(defined[i].name);
		struct pl_field f[16];
		unsigned int nvar, n = defined[i].fields(f, &nvar), end = 0;

		ck_assert_msg(d, "%s is not in the catalogue", defined[i].name);
		ck_assert_uint_eq(d->channel, defined[i].chan);
		ck_assert_uint_eq(d->id, defined[i].id);
		ck_assert_msg(d->nr_fields == n + nvar, "%s: %u fields in the catalogue, %u defined",
			      d->name, d->nr_fields, n + nvar);
		for (j = 0; j < n; j++) {
			enum evt_field_type t;
			int off = evt_field_offset(d, f[j].name, &t);

			ck_assert_str_eq(d->fields[j].name, f[j].name);
			ck_assert_msg(off == (int)f[j].off && evt_field_size(t) == f[j].size,
				      "%s.%s: the payload struct has it at %u (%u bytes), the metadata at %d (%u bytes)",
				      d->name, f[j].name, f[j].off, f[j].size, off, evt_field_size(t));
			end = f[j].off + f[j].size;
		}
		ck_assert_msg(defined[i].size == end, "%s: the payload struct's fixed part is %u bytes, its fields end at %u",
			      d->name, defined[i].size, end);
	}
}
END_TEST

/*
 * docs/events.md's table is the one evcatalogue (built beside this program, in
 * bin/) makes from the definitions. Run from the top of the tree, as every
 * unit test that reads tests/data.
 */
START_TEST(events_doc_lists_the_catalogue)
{
	char self[4096], cmd[8192], out[8192];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t len;
	FILE *p;
	int st;

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "'%s/bin/evcatalogue' --check docs/events.md 2>&1", self);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	len = fread(out, 1, sizeof(out) - 1, p);
	out[len] = '\0';
	st = pclose(p);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
}
END_TEST

Suite *events_suite(void)
{
	Suite *s = suite_create("events");
	TCase *tc = tcase_create("events");

	tcase_add_test(tc, payload_structs_match_the_catalogue);
	tcase_add_test(tc, events_doc_lists_the_catalogue);
	suite_add_tcase(s, tc);
	return s;
}
