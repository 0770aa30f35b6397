// SPDX-License-Identifier: GPL-2.0
/*
 * Chunks (issue 19): their names and the rotation options' units, and a
 * run of chunks read as one trace: a synthesized trace cut per stream at
 * packet boundaries into chunks, as a rotating evdrain writes them, reads
 * back event for event as the whole; --from/--to's chunk selection; a
 * lost packet at a seam; another session's metadata; an error that names
 * the chunk's file; evview serving a run (tests/tools/evview-check.py).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "chunk/evt_chunk.h"
#include "util/evt_cli.h"
#include "format/evt_timearg.h"
#include "util/evt_units.h"
#include "ctf/evt_merged.h"
#include "synth/evt_synth.h"
#include "ctf/evt_trace.h"

START_TEST(chunk_names)
{
	static const struct { uint64_t b, e, seq; const char *name; } ok[] = {
		{ 0, 0, 0, "19700101T000000.000000Z-19700101T000000.000000Z-0" },
		{ 1795727700123456789ULL, 1795727710654321000ULL, 17,
		  "20261126T211500.123456Z-20261126T211510.654321Z-17" },
		{ 4102444799999999000ULL, 4102444799999999000ULL, 18446744073709551615ULL,
		  "20991231T235959.999999Z-20991231T235959.999999Z-18446744073709551615" },
	};
	static const char *const bad[] = {
		"", "20261127T151500.123456Z-20261127T151510.654321Z-",
		"20261127T151500.123456Z-20261127T151510.654321Z-017",
		"20261127T151500.123456Z-20261127T151510.654321Z-1x",
		"20261127T151510.123456Z-20261127T151500.654321Z-1",	/* ends before it begins */
		"20261327T151500.123456Z-20261327T151510.654321Z-1",	/* month 13 */
		"20261127 151500.123456Z-20261127T151510.654321Z-1",
		"20261127T151500.123456-20261127T151510.654321Z-1",
		".inprogress-3", "kernel", "metadata",
	};
	char name[EVT_CHUNK_NAME_MAX];
	uint64_t b, e, seq;
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(evt_chunk_name(name, sizeof(name), ok[i].b, ok[i].e, ok[i].seq), 0);
		ck_assert_str_eq(name, ok[i].name);
		ck_assert_int_eq(evt_chunk_parse(name, &b, &e, &seq), 0);
		/* Microseconds are kept. */
		ck_assert_uint_eq(b, ok[i].b / 1000 * 1000);
		ck_assert_uint_eq(e, ok[i].e / 1000 * 1000);
		ck_assert_uint_eq(seq, ok[i].seq);
	}
	ck_assert_int_eq(evt_chunk_name(name, 20, 0, 0, 0), -1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(evt_chunk_parse(bad[i], &b, &e, &seq) == -1, "accepted \"%s\"", bad[i]);
	ck_assert_int_eq(evt_chunk_parse_hidden(".inprogress-42", EVT_CHUNK_TMP_PREFIX, &seq), 0);
	ck_assert_uint_eq(seq, 42);
	ck_assert_int_eq(evt_chunk_parse_hidden(".inprogress-042", EVT_CHUNK_TMP_PREFIX, &seq), -1);
	ck_assert_int_eq(evt_chunk_parse_hidden(".deleting-7", EVT_CHUNK_TMP_PREFIX, &seq), -1);
	ck_assert_int_eq(evt_chunk_parse_hidden(".deleting-7", EVT_CHUNK_DEL_PREFIX, &seq), 0);
}
END_TEST

START_TEST(rotation_units)
{
	static const struct { const char *s; uint64_t v; } sizes[] = {
		{ "1", 1 }, { "4096B", 4096 }, { "64K", 64 << 10 }, { "64KiB", 64 << 10 },
		{ "64M", 64ULL << 20 }, { "2G", 2ULL << 30 }, { "2GiB", 2ULL << 30 }, { "1T", 1ULL << 40 },
		{ "0", 0 }, { "4194304T", 1ULL << 62 }, { "1.5M", 3ULL << 19 }, { "0.5K", 512 },
	}, durations[] = {
		{ "10", 10000 }, { "100ms", 100 }, { "30s", 30000 }, { "5m", 300000 }, { "2h", 7200000 },
		{ "1d", 86400000 }, { "366d", 366ULL * 86400000 }, { "1.5s", 1500 }, { "2000us", 2 },
		{ "0.25", 250 }, { "3000000ns", 3 },
	};
	static const char *const bad_sizes[] = { "", "M", "-1", "64m", "64 M", "4194305T", "1e3",
						 "99999999999999999999", "1.", ".5K", "0.3B", "1.0000001K" };
	static const char *const bad_durations[] = { "", "s", "-1", "10 s", "367d", "1w", "10S", "1.5ms",
						     "1us", "5 ", "+1s", "1.s" };
	uint64_t v;
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ck_assert_msg(evt_parse_size(sizes[i].s, &v) == 0, "refused size \"%s\"", sizes[i].s);
		ck_assert_uint_eq(v, sizes[i].v);
	}
	for (i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++)
		ck_assert_msg(evt_parse_size(bad_sizes[i], &v) == -1, "accepted size \"%s\"", bad_sizes[i]);
	for (i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		ck_assert_msg(evt_parse_duration_ms(durations[i].s, &v) == 0, "refused \"%s\"", durations[i].s);
		ck_assert_uint_eq(v, durations[i].v);
	}
	for (i = 0; i < sizeof(bad_durations) / sizeof(bad_durations[0]); i++)
		ck_assert_msg(evt_parse_duration_ms(bad_durations[i], &v) == -1, "accepted \"%s\"",
			      bad_durations[i]);
}
END_TEST

/* The one grammar with each option's own bare unit (evdrain -d, evctl --period-us, evdrain --keep-mb). */
START_TEST(units_bare_and_whole)
{
	uint64_t v;

	ck_assert_int_eq(evt_parse_duration("10", EVT_NS_PER_S, 1, &v), 0);
	ck_assert_uint_eq(v, 10 * EVT_NS_PER_S);
	ck_assert_int_eq(evt_parse_duration("0.5", EVT_NS_PER_S, 1, &v), 0);
	ck_assert_uint_eq(v, EVT_NS_PER_S / 2);
	ck_assert_int_eq(evt_parse_duration("10s", EVT_NS_PER_S, 1, &v), 0);
	ck_assert_uint_eq(v, 10 * EVT_NS_PER_S);
	ck_assert_int_eq(evt_parse_duration("150", EVT_NS_PER_US, EVT_NS_PER_US, &v), 0);
	ck_assert_uint_eq(v, 150);
	ck_assert_int_eq(evt_parse_duration("1ms", EVT_NS_PER_US, EVT_NS_PER_US, &v), 0);
	ck_assert_uint_eq(v, 1000);
	ck_assert_int_eq(evt_parse_duration("1500ns", EVT_NS_PER_US, EVT_NS_PER_US, &v), -1);
	ck_assert_int_eq(evt_parse_duration("1.5us", 1, 1, &v), 0);
	ck_assert_uint_eq(v, 1500);
	ck_assert_int_eq(evt_parse_duration("1.0000000001s", 1, 1, &v), -1);
	/* 2^63 ns is 106751.99 days. */
	ck_assert_int_eq(evt_parse_duration("106751d", 1, 1, &v), 0);
	ck_assert_int_eq(evt_parse_duration("106752d", 1, 1, &v), -1);
	ck_assert_int_eq(evt_parse_size_in("5", 1ULL << 20, 1ULL << 20, &v), 0);
	ck_assert_uint_eq(v, 5);
	ck_assert_int_eq(evt_parse_size_in("2G", 1ULL << 20, 1ULL << 20, &v), 0);
	ck_assert_uint_eq(v, 2048);
	ck_assert_int_eq(evt_parse_size_in("512K", 1ULL << 20, 1ULL << 20, &v), -1);
}
END_TEST

/* "Not loaded" names modprobe when the module is installed, else insmod with the build's module. */
START_TEST(module_load_hint)
{
	char dir[64], path[160], exe[200], buf[400];
	FILE *f;

	unit_mktmp(dir, sizeof(dir), "loadcmd");
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("kernel/fs/ext4/ext4.ko.xz: kernel/fs/jbd2/jbd2.ko.xz\nupdates/dkms/evtrace.ko.xz:\n", f);
	fclose(f);
	ck_assert_str_eq(evt_module_load_cmd_at(path, NULL, buf, sizeof(buf)), "modprobe evtrace");
	/* Not installed: the evtrace.ko at the top of the build tree the program runs from. */
	snprintf(path, sizeof(path), "%s/build/bin", dir);
	ck_assert_int_eq(system((snprintf(buf, sizeof(buf), "mkdir -p '%s' && touch '%s/evtrace.ko'", path, dir), buf)), 0);
	snprintf(exe, sizeof(exe), "%s/evdrain", path);
	snprintf(path, sizeof(path), "insmod %s/evtrace.ko", dir);
	ck_assert_str_eq(evt_module_load_cmd_at("/nonexistent/modules.dep", exe, buf, sizeof(buf)), path);
	ck_assert_str_eq(evt_module_load_cmd_at("/nonexistent/modules.dep", "/usr/sbin/evdrain", buf, sizeof(buf)),
			 "insmod evtrace.ko (from the build)");
	unit_rmtree(dir);
}
END_TEST

/* --from/--to: a duration with a unit is after the first event, as +SECONDS is. */
START_TEST(timearg_units)
{
	const uint64_t first = 5000000000ULL;
	uint64_t v;

	ck_assert_int_eq(evt_parse_time("10ms", 0, first, &v), 0);
	ck_assert_uint_eq(v, first + 10000000);
	ck_assert_int_eq(evt_parse_time("+1.5s", 0, first, &v), 0);
	ck_assert_uint_eq(v, first + 1500000000);
	ck_assert_int_eq(evt_parse_time("+0.01", 0, first, &v), 0);
	ck_assert_uint_eq(v, first + 10000000);
	ck_assert_int_eq(evt_parse_time("+2m", 0, first, &v), 0);
	ck_assert_uint_eq(v, first + 120000000000ULL);
	/* A bare number stays seconds since the Epoch. */
	ck_assert_int_eq(evt_parse_time("7", 0, first, &v), 0);
	ck_assert_uint_eq(v, 7000000000ULL);
	ck_assert_int_eq(evt_parse_time("10xs", 0, first, &v), -1);
	ck_assert_int_eq(evt_parse_time("+18446744074", 0, first, &v), -2);
}
END_TEST
/* ---- A run of chunks ---- */

struct ev {
	uint64_t ts;
	uint32_t stream, desc, len;
	uint64_t sum;		/* of the payload's bytes */
};

struct evs {
	struct ev *v;
	size_t n, cap;
};

/* Open @dir (with @o), merge it all into @out; the trace stays open in @t. 0, or -1 with t->err or @err. */
static int read_all(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o, struct evs *out,
		    char *err, size_t errlen)
{
	struct evt_merged mt;
	struct evt_ref refs[61];
	long n;

	memset(out, 0, sizeof(*out));
	if (evt_trace_open(t, dir, o)) {
		snprintf(err, errlen, "%s", t->err);
		return -1;
	}
	ck_assert_int_eq(evt_merged_init(&mt, t, EVT_MERGE_TREE), 0);
	while ((n = evt_merged_next(&mt, refs, 61)) > 0) {
		long i;

		for (i = 0; i < n; i++) {
			struct ev e = { refs[i].ts, EVT_REF_STREAM(&refs[i]), EVT_REF_DESC(&refs[i]),
					EVT_REF_LEN(&refs[i]), 0 };
			uint32_t k;

			for (k = 0; k < e.len; k++)
				e.sum = e.sum * 31 + refs[i].payload[k];
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 4096;
				out->v = realloc(out->v, out->cap * sizeof(*out->v));
				ck_assert_ptr_nonnull(out->v);
			}
			out->v[out->n++] = e;
		}
	}
	if (n < 0)
		snprintf(err, errlen, "%s", mt.errmsg);
	evt_merged_free(&mt);
	return n < 0 ? -1 : 0;
}

/* Cut the trace at @whole into @nchunks chunks under @run (evt_chunk_split()), their names into @names. */
static void cut_into_chunks(const char *whole, const char *run, unsigned int nchunks, int drop_seam,
			    char names[][EVT_CHUNK_NAME_MAX])
{
	struct evt_chunk_split_opts o = { .nchunks = nchunks, .host = "unit", .lose_seam_packet = drop_seam };
	char err[1024];

	if (evt_chunk_split(whole, run, &o, names, err, sizeof(err)))
		ck_abort_msg("evt_chunk_split: %s", err);
}

/* evview on a run of chunks: the same checks as on a whole trace, and its chunks listed. */
START_TEST(evview_serves_a_run)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], whole_dir[128], run_dir[128], names[3][EVT_CHUNK_NAME_MAX], synth_err[512], cmd[1024];

	snprintf(dir, sizeof(dir), "/tmp/evt-chunk-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(whole_dir, sizeof(whole_dir), "%s/whole", dir);
	snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
	evt_synth_defaults(&p);
	p.kernel = 1;
	p.cpus = 3;
	p.events = 60000;
	p.subbuf_size = 4096;
	if (evt_synth_write(whole_dir, &p, &r, synth_err, sizeof(synth_err)))
		ck_abort_msg("synth: %s", synth_err);
	cut_into_chunks(whole_dir, run_dir, 3, 0, names);
	snprintf(cmd, sizeof(cmd), "python3 tests/tools/evview-check.py build/bin/evview build/bin/evcat '%s' "
		 "--chunks 3 > '%s/check.log' 2>&1", run_dir, dir);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "cat '%s/check.log'", dir);
		ck_assert_int_eq(system(cmd), 0);
		ck_abort_msg("evview-check.py failed on the run %s", run_dir);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static void same_events(const struct evs *a, const struct evs *b)
{
	size_t i;

	ck_assert_uint_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct ev *x = &a->v[i], *y = &b->v[i];

		ck_assert_msg(x->ts == y->ts && x->stream == y->stream && x->desc == y->desc &&
			      x->len == y->len && x->sum == y->sum, "event %zu differs", i);
	}
}

START_TEST(run_reads_as_one_trace)
{
	/* 16 KiB packets (page multiples) and 1 KiB ones (files end inside a page). */
	const unsigned int subbuf = _i ? 1024 : 16384;
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace whole_t, run_t;
	struct evt_trace_opts o = { 0 };
	struct evs whole, run;
	char dir[64], whole_dir[128], run_dir[128], run2[128], err[1024], synth_err[512];
	char names[3][EVT_CHUNK_NAME_MAX], names2[3][EVT_CHUNK_NAME_MAX], path[1024], *first;
	uint64_t b, e, seq, lost = 0;
	unsigned int i, j;
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/evt-chunk-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(whole_dir, sizeof(whole_dir), "%s/whole", dir);
	snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
	snprintf(run2, sizeof(run2), "%s/run2", dir);
	evt_synth_defaults(&p);
	p.cpus = 3;
	p.events = 60000;
	p.subbuf_size = subbuf;
	p.normal_pct = 30;
	p.mix = 1;
	p.stall_every = 9000;
	if (evt_synth_write(whole_dir, &p, &r, synth_err, sizeof(synth_err)))
		ck_abort_msg("synth: %s", synth_err);
	cut_into_chunks(whole_dir, run_dir, 3, 0, names);

	ck_assert_int_eq(read_all(&whole_t, whole_dir, NULL, &whole, err, sizeof(err)), 0);
	if (read_all(&run_t, run_dir, NULL, &run, err, sizeof(err)))
		ck_abort_msg("run: %s", err);
	ck_assert_uint_gt(whole.n, 40000);
	same_events(&whole, &run);
	ck_assert_uint_eq(run_t.nr_chunks, 3);
	ck_assert_uint_eq(run_t.run_chunks, 3);
	ck_assert_uint_eq(whole_t.nr_chunks, 0);
	ck_assert_uint_eq(run_t.nr_streams, whole_t.nr_streams);
	for (i = 0; i < run_t.nr_streams; i++) {
		ck_assert_uint_eq(run_t.streams[i].packets, whole_t.streams[i].packets);
		ck_assert_uint_eq(run_t.streams[i].seq_gaps, whole_t.streams[i].seq_gaps);
		ck_assert_uint_eq(run_t.streams[i].discarded, whole_t.streams[i].discarded);
		ck_assert_uint_eq(run_t.streams[i].nsegs, 3);
		for (j = 0; j < run_t.streams[i].nsegs; j++)
			lost += run_t.streams[i].segs[j].seam_lost;
		ck_assert_str_eq(run_t.chunks[i % 3].name, names[i % 3]);
	}
	ck_assert_uint_eq(lost, 0);
	free(run.v);
	evt_trace_close(&run_t);

	/* The first chunk, for evcat's --from/--to. */
	first = evt_trace_run_first(run_dir);
	ck_assert_ptr_nonnull(first);
	snprintf(path, sizeof(path), "%s/%s/kernel", run_dir, names[0]);
	ck_assert_str_eq(first, path);
	free(first);
	ck_assert_ptr_null(evt_trace_run_first(whole_dir));

	/* --from/--to: only the chunks whose times overlap are opened. */
	/* Chunks overlap in time a little (each stream is cut at its own packet): between 0's end and 2's begin. */
	ck_assert_int_eq(evt_chunk_parse(names[0], &b, &e, &seq), 0);
	o.from_rt = e + 2000;
	ck_assert_int_eq(evt_chunk_parse(names[2], &b, &e, &seq), 0);
	o.to_rt = b - 1;
	ck_assert_uint_lt(o.from_rt, o.to_rt);
	ck_assert_int_eq(evt_trace_open(&run_t, run_dir, &o), 0);
	ck_assert_uint_eq(run_t.nr_chunks, 1);
	ck_assert_str_eq(run_t.chunks[0].name, names[1]);
	evt_trace_close(&run_t);
	o.from_rt = 1;
	o.to_rt = 2;
	ck_assert_int_eq(evt_trace_open(&run_t, run_dir, &o), -1);
	ck_assert_msg(strstr(run_t.err, "none of its 3 chunks overlaps"), "%s", run_t.err);

	/* A packet lost at a seam: counted there, and in the stream's gaps. */
	cut_into_chunks(whole_dir, run2, 3, 1, names2);
	ck_assert_int_eq(evt_trace_open(&run_t, run2, NULL), 0);
	ck_assert_uint_eq(run_t.streams[0].segs[1].seam_lost, 1);
	ck_assert_uint_eq(run_t.streams[0].seq_gaps, whole_t.streams[0].seq_gaps + 1);
	evt_trace_close(&run_t);

	/* Another session's metadata in a chunk: refused, naming it. */
	snprintf(path, sizeof(path), "%s/%s/kernel/metadata", run2, names2[2]);
	f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	fputs("/* another session */\n", f);
	fclose(f);
	ck_assert_int_eq(evt_trace_open(&run_t, run2, NULL), -1);
	ck_assert_msg(strstr(run_t.err, names2[2]) && strstr(run_t.err, "more than one tracing session") &&
		      strstr(run_t.err, "(--to 20"), "%s", run_t.err);

	/* A corrupt packet in the second chunk: the error names that chunk's file and the offset in it. */
	snprintf(path, sizeof(path), "%s/%s/kernel/%s", run_dir, names[1], whole_t.streams[1].name);
	{
		int fd = open(path, O_RDWR);
		struct stat st;

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(fstat(fd, &st), 0);
		ck_assert_int_ge(st.st_size, (off_t)(2 * subbuf));
		ck_assert_int_eq(pwrite(fd, "XXXX", 4, (off_t)subbuf), 4);
		close(fd);
	}
	ck_assert_int_eq(read_all(&run_t, run_dir, NULL, &run, err, sizeof(err)), -1);
	snprintf(path, sizeof(path), "%s/%s/kernel/%s: offset %u:", run_dir, names[1], whole_t.streams[1].name,
		 subbuf);
	ck_assert_msg(strstr(err, path), "the error \"%s\" does not name \"%s\"", err, path);
	free(run.v);
	evt_trace_close(&run_t);
	free(whole.v);
	evt_trace_close(&whole_t);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/* Stack bytes that are not zero, where evt_synth_write()'s rings come next. */
static __attribute__((noinline)) void poison_stack(void)
{
	volatile unsigned char junk[1 << 16];

	memset((void *)junk, 0xa5, sizeof(junk));
	(void)junk[0];
}

/*
 * A ring geometry refused by the ring core (not a power of two, within
 * the module's bounds): an error, and only the ring that was opened is
 * closed again (the other one's stack bytes were freed as pointers).
 */
START_TEST(synth_bad_geometry_closes_what_it_opened)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[] = "/tmp/evt-synth-geom-XXXXXX", err[256], cmd[64];
	unsigned int kernel;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (kernel = 0; kernel < 2; kernel++) {
		evt_synth_defaults(&p);
		p.cpus = 1;
		p.events = 10;
		p.subbuf_size = 3000;
		p.kernel = (int)kernel;
		poison_stack();
		ck_assert_int_eq(evt_synth_write(dir, &p, &r, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, "bad ring geometry"), "%s", err);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *chunk_suite(void)
{
	Suite *s = suite_create("chunk");
	TCase *tc = tcase_create("chunk");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, chunk_names);
	tcase_add_test(tc, synth_bad_geometry_closes_what_it_opened);
	tcase_add_test(tc, rotation_units);
	tcase_add_test(tc, units_bare_and_whole);
	tcase_add_test(tc, timearg_units);
	tcase_add_test(tc, module_load_hint);
	tcase_add_loop_test(tc, run_reads_as_one_trace, 0, 2);
	tcase_add_test(tc, evview_serves_a_run);
	suite_add_tcase(s, tc);
	return s;
}
