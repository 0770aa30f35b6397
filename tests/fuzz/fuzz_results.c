// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: saved results with a valid header and checksum and a
 * hostile payload, loaded the way a program loads them (issue 41: a results
 * file is written by whoever can write beside the trace, or shipped inside
 * it). The template trace (evsynth's, made once) and the key are
 * real; the input is:
 *
 *   byte 0        the computation: % 4 of stats, state, index, marks
 *   the rest      its payload, as its save() would write it
 *
 * The target writes TRACE/.evtrace-results/NAME.res (magic, the
 * computation's version, name, the trace's UUID and key, the payload
 * length, the payload, its CRC-32), opens the trace in a fresh engine and
 * asks for the result. Checked with FZ_ASSERT: the payload is loaded or
 * refused with a warning, never a crash (ASan and UBSan watch); a loaded
 * stats result's totals add up and it prints as valid JSON (jansson
 * reads it back) with no raw control byte; a loaded state result answers
 * its queries; a loaded result saves again and loads from what it saved.
 * The seeds (tests/fuzz/corpus/results/) are the results evview saved of
 * a kernel trace (scripts/fuzz-corpus): a payload does not depend on the
 * trace it is loaded beside.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <jansson.h>
#include <zlib.h>
#include "fuzz_common.h"
#include "engine/evt_comp_index.h"
#include "engine/evt_comp_marks.h"
#include "engine/evt_comps.h"
#include "engine/evt_engine_priv.h"
#include "report/evt_report.h"
#include "synth/evt_synth.h"

static const struct evt_computation *const fr_comps[4] = {
	&evt_comp_stats, &evt_comp_state, &evt_comp_index, &evt_comp_marks,
};
static char fr_dir[256];
static uint8_t fr_uuid[16];
static uint64_t fr_key[2];

static void fr_atexit(void)
{
	char cmd[400];

	if (fr_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fr_dir);
		if (system(cmd))
			fprintf(stderr, "fuzz_results: could not remove %s\n", fr_dir);
	}
}

static void fr_quiet(void *data, const char *msg)
{
	(void)data;
	if (getenv("FZ_VERBOSE"))
		fprintf(stderr, "warning: %s\n", msg);
}

static struct evt_engine *fr_engine(void)
{
	struct evt_engine *e = evt_engine_new(&(struct evt_engine_opts){ .warn = fr_quiet });

	FZ_ASSERT(e && !evt_engine_register_builtin(e) && !evt_engine_register(e, &evt_comp_marks));
	return e;
}

/* The template trace (once), its UUID and key. */
static void fr_setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_engine *e;
	struct evt_etrace *t;
	char err[512];

	if (fr_dir[0])
		return;
	snprintf(fr_dir, sizeof(fr_dir), "%s/evt-fuzzres-XXXXXX", base);
	FZ_ASSERT(mkdtemp(fr_dir));
	atexit(fr_atexit);
	/* A small catalogue: the key's metadata is parsed for every input (a kernel one is 10x the time). */
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 3000;
	FZ_ASSERT(evt_synth_write(fr_dir, &p, &r, err, sizeof(err)) == 0);
	e = fr_engine();
	t = evt_etrace_get(e, fr_dir, err, sizeof(err));
	FZ_ASSERT(t);
	memcpy(fr_uuid, t->uuid, sizeof(fr_uuid));
	memcpy(fr_key, t->key, sizeof(fr_key));
	evt_etrace_put(t);
	evt_engine_free(e);
}

/* NAME.res beside the template: the header a real save writes, @payload, the CRC. */
static void fr_write(const struct evt_computation *c, const uint8_t *payload, size_t n)
{
	char path[512];
	uint32_t version = c->version, nlen = (uint32_t)strlen(c->name), crc;
	uint64_t plen = n;
	struct evt_buf b = { 0 };
	int fd;

	evt_buf_put(&b, "EVTRES01", 8);
	evt_buf_put(&b, &version, 4);
	evt_buf_put(&b, &nlen, 4);
	evt_buf_put(&b, c->name, nlen);
	evt_buf_put(&b, fr_uuid, 16);
	evt_buf_put(&b, fr_key, 16);
	evt_buf_put(&b, &plen, 8);
	evt_buf_put(&b, payload, n);
	crc = (uint32_t)crc32_z(0, b.p, b.n);
	evt_buf_put(&b, &crc, 4);
	FZ_ASSERT(!b.oom);
	snprintf(path, sizeof(path), "%s/.evtrace-results", fr_dir);
	mkdir(path, 0700);
	/* This computation's file alone: another one's would load with it. */
	for (unsigned int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/.evtrace-results/%s.res", fr_dir, fr_comps[i]->name);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/.evtrace-results/%s.res", fr_dir, c->name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FZ_ASSERT(fd >= 0);
	FZ_ASSERT(write(fd, b.p, b.n) == (ssize_t)b.n);
	close(fd);
	evt_buf_free(&b);
}

/* No byte a terminal acts on, raw: C0 but newline, DEL, C1 as UTF-8. */
static void fr_no_raw_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)s[i];

		FZ_ASSERT((c >= 0x20 || c == '\n') && c != 0x7f);
		FZ_ASSERT(!(c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
			    (unsigned char)s[i + 1] <= 0x9f));
	}
}

static void fr_stats(const struct evt_stats *st, const struct evt_state *state)
{
	struct evt_report rep = { .path = fr_dir, .st = st, .state = state };
	uint64_t sum = 0;
	char *text = NULL;
	size_t len = 0;
	json_error_t jerr;
	FILE *f;
	json_t *j;

	for (uint32_t i = 0; i < st->nr_cpus; i++)
		sum += st->cpus[i].events;
	FZ_ASSERT(sum == st->events);
	f = open_memstream(&text, &len);
	FZ_ASSERT(f);
	FZ_ASSERT(evt_report_json(f, &rep) == 0);
	fclose(f);
	fr_no_raw_control(text, len);
	/* Counts are u64: JSON has no bound, jansson's integers have (read as reals here). */
	j = json_loadb(text, len, JSON_DECODE_INT_AS_REAL, &jerr);
	if (!j && getenv("FZ_VERBOSE"))
		fprintf(stderr, "not JSON: %s at %d: %.*s\n", jerr.text, jerr.position,
			80, text + (jerr.position > 40 ? jerr.position - 40 : 0));
	FZ_ASSERT(j && json_number_value(json_object_get(j, "events")) == (double)st->events);
	json_decref(j);
	free(text);
}

static void fr_state(const struct evt_state *st)
{
	const struct evt_state_thread *top[8];
	size_t n = evt_state_top_threads(st, top, 8), i;
	uint64_t a, z;

	FZ_ASSERT(n <= 8 && n <= evt_state_nr_threads(st));
	evt_state_span(st, &a, &z);
	for (unsigned int c = 0; c < evt_state_nr_cpus(st) && c < 64; c++) {
		evt_state_cpu_tid_at(st, c, a);
		evt_state_cpu_tid_at(st, c, a + (z - a) / 2);
	}
	for (i = 0; i < evt_state_nr_threads(st) && i < 64; i++) {
		const struct evt_state_thread *t = evt_state_thread_nth(st, i);

		FZ_ASSERT(t && memchr(t->comm, 0, sizeof(t->comm)));
		evt_state_thread_at(t, a + (z - a) / 3);
	}
}

int fz_results_one(const uint8_t *data, size_t size)
{
	const struct evt_computation *c;
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_engine_stats es;
	char err[512];
	void *res;

	if (size < 1)
		return 0;
	fr_setup();
	c = fr_comps[data[0] % 4];
	fr_write(c, data + 1, size - 1);
	e = fr_engine();
	t = evt_etrace_get(e, fr_dir, err, sizeof(err));
	FZ_ASSERT(t);
	FZ_ASSERT(evt_comp_want(t, c->name, NULL, NULL, NULL) >= 0);
	evt_engine_get_stats(e, &es);
	res = evt_comp_result(t, c->name);
	/* Loaded, or refused with a warning: nothing in between. */
	FZ_ASSERT(res ? es.results_loaded == 1 : es.results_rejected == 1);
	if (res) {
		struct evt_buf again = { 0 };
		void *r2 = c->create(t);

		if (c == &evt_comp_stats) {
			struct evt_state *none = evt_state_new();

			FZ_ASSERT(none);
			fr_stats(res, evt_comp_result(t, "state") ? evt_comp_result(t, "state") : none);
			evt_state_free(none);
		}
		else if (c == &evt_comp_state)
			fr_state(res);
		/* What it saves loads again. */
		FZ_ASSERT(r2 && c->save(res, &again) == 0 && !again.oom);
		FZ_ASSERT(c->load(r2, again.p, again.n) == 0);
		c->destroy(r2);
		evt_buf_free(&again);
	}
	evt_etrace_put(t);
	evt_engine_free(e);
	return 0;
}

FZ_TARGET(fz_results_one)
