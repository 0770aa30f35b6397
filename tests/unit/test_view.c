// SPDX-License-Identifier: GPL-2.0
/*
 * The window algorithms (lib/view) without a server: the column rule; a
 * window read from hand-made events, exact numbers checked; and on a
 * synthesized kernel trace, the three ways to fill a window held against
 * each other: the summary (from the state and marks results) must give
 * what reading the events gives, column for column, and the sample must
 * too wherever it reads a column whole.
 */
#include "unit.h"
#include <stdio.h>
#include <string.h>
#include "engine/evt_comp_marks.h"
#include "engine/evt_comps.h"
#include "ctf/evt_merged.h"
#include "synth/evt_synth.h"
#include "ctf/evt_trace.h"
#include "view/evt_view.h"

/* ---- Hand-made events ---- */

static struct evt_trace fake_tr;

struct sinks {
	struct evt_window *w;
	struct evt_state *st;
	struct evt_marks *mk;
};

static void send(const struct sinks *k, const struct tev *e, unsigned int cpu, uint64_t ts)
{
	struct evt_engine_event ev = {
		.tr = &fake_tr, .ts = ts, .rt = ts, .desc = e->d,
		.idx = (unsigned int)(e->d - evt_builtin->events), .cpu = cpu, .stream = cpu,
		.payload = e->pl, .len = e->len,
	};

	if (k->w)
		ck_assert_int_eq(evt_window_event(k->w, &ev), 0);
	if (k->st)
		ck_assert_int_eq(evt_state_event_hook(k->st, &ev), 0);
	if (k->mk)
		ck_assert_int_eq(evt_marks_event_hook(k->mk, &ev), 0);
}

static void ev_switch(const struct sinks *k, unsigned int cpu, uint64_t ts, int32_t prev, int32_t next)
{
	struct tev e;
	char comm[16];

	tev_init(&e, "sched_switch");
	snprintf(comm, sizeof(comm), "t%d", prev);
	tev_str(&e, "prev_comm", prev ? comm : "swapper/0");
	tev_int(&e, "prev_tid", prev);
	tev_int(&e, "prev_state", 1);
	snprintf(comm, sizeof(comm), "t%d", next);
	tev_str(&e, "next_comm", next ? comm : "swapper/0");
	tev_int(&e, "next_tid", next);
	send(k, &e, cpu, ts);
}

static void ev_irq(const struct sinks *k, unsigned int cpu, uint64_t ts)
{
	struct tev e;

	tev_init(&e, "irq_handler_entry");
	tev_int(&e, "irq", 19);
	tev_str(&e, "name", "eth0");
	send(k, &e, cpu, ts);
}

static void ev_softirq(const struct sinks *k, unsigned int cpu, uint64_t ts)
{
	struct tev e;

	tev_init(&e, "softirq_entry");
	tev_int(&e, "vec", 3);
	send(k, &e, cpu, ts);
}

/* CPU 0: idle, then 7 from 50, 8 from 250, idle from 420; IRQs and softirqs. CPU 1: nothing. */
static void scenario(const struct sinks *k)
{
	ev_switch(k, 0, 50, 0, 7);
	ev_irq(k, 0, 130);
	ev_softirq(k, 0, 130);
	ev_switch(k, 0, 250, 7, 8);
	ev_softirq(k, 0, 260);
	ev_switch(k, 0, 420, 8, 0);
}

/* The scenario's state result, in @st (a new one), as the engine would finish it. */
static void scenario_state(struct evt_state *st)
{
	struct sinks k = { .st = st };

	memset(&fake_tr, 0, sizeof(fake_tr));
	fake_tr.md.cat = evt_builtin;
	ck_assert_ptr_nonnull(st);
	scenario(&k);
	evt_comp_state.finish(st, NULL);
}

static const unsigned int two_cpus[] = { 0, 1 };
static const int32_t two_slots[] = { 0, 1 };
static const struct evt_window_cpus cpus01 = { 2, two_cpus, two_slots, 2 };

static void check_cpu(const struct evt_window *w, unsigned int slot, const int32_t *tid, const uint64_t *busy,
		      const uint32_t *irq, const uint32_t *soft)
{
	const struct evt_window_cpu *c = &w->cpu[slot];

	for (uint32_t k = 0; k < w->cols; k++) {
		ck_assert_msg(c->tid[k] == tid[k], "slot %u column %u: tid %d, not %d", slot, k, c->tid[k], tid[k]);
		ck_assert_msg(c->busy[k] == busy[k], "slot %u column %u: busy %llu, not %llu", slot, k,
			      (unsigned long long)c->busy[k], (unsigned long long)busy[k]);
		ck_assert_uint_eq(c->irq[k], irq[k]);
		ck_assert_uint_eq(c->soft[k], soft[k]);
		ck_assert_uint_eq(c->lost[k], 0);
	}
}

/* Every clock value in exactly one column; the columns tile [from, to], to the last nanosecond. */
START_TEST(column_rule)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (int r = 0; r < 3000; r++) {
		struct evt_window w = { 0 };
		uint64_t len = r == 0 ? (1ULL << 61) : 1 + unit_rnd(&seed) % 5000;

		w.from = r == 0 ? (1ULL << 62) : unit_rnd(&seed) % 1000000;
		w.to = w.from + len - 1;
		w.n = len;
		w.cols = 1 + (uint32_t)(unit_rnd(&seed) % 4096);
		ck_assert_uint_eq(evt_window_col_start(&w, 0), w.from);
		ck_assert_uint_eq(evt_window_col_end(&w, w.cols - 1), w.to + 1);
		for (uint32_t k = 0; k + 1 < w.cols; k++)
			ck_assert_uint_eq(evt_window_col_end(&w, k), evt_window_col_start(&w, k + 1));
		for (int i = 0; i < 20; i++) {
			uint64_t ts = i == 0 ? w.from : i == 1 ? w.to : w.from + unit_rnd(&seed) % len;
			uint32_t k = evt_window_col_of(&w, ts);

			ck_assert_uint_lt(k, w.cols);
			ck_assert_uint_le(evt_window_col_start(&w, k), ts);
			ck_assert_uint_gt(evt_window_col_end(&w, k), ts);
		}
	}
}
END_TEST

/* Without a state result: who ran is unknown until the first switch, and the CPU says so. */
START_TEST(events_unseeded)
{
	static const int32_t tid0[10] = { 7, 7, 7, 8, 8, -1, -1, -1, -1, -1 };
	static const uint64_t busy0[10] = { 50, 100, 100, 100, 20 };
	static const uint32_t irq0[10] = { 0, 1 }, soft0[10] = { 0, 1, 1 };
	static const int32_t none[10] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	static const uint64_t zero64[10];
	static const uint32_t zero32[10];
	struct evt_window w;
	struct sinks k = { .w = &w };

	memset(&fake_tr, 0, sizeof(fake_tr));
	fake_tr.md.cat = evt_builtin;
	ck_assert_int_eq(evt_window_init(&w, &cpus01, NULL, NULL, 0, 999, 10), 0);
	scenario(&k);
	evt_window_end(&w);
	ck_assert(!w.oom);
	check_cpu(&w, 0, tid0, busy0, irq0, soft0);
	check_cpu(&w, 1, none, zero64, zero32, zero32);
	/* CPU 0's time before its first event is nobody's known; CPU 1's is all unknown. */
	ck_assert_int_eq(w.cpu[0].incomplete, 1);
	ck_assert_int_eq(w.cpu[1].incomplete, 1);
	ck_assert_str_eq(evt_window_comm(&w, 7), "t7");
	ck_assert_str_eq(evt_window_comm(&w, 8), "t8");
	ck_assert_ptr_null(evt_window_comm(&w, 9));
	evt_window_free(&w);
}
END_TEST

/*
 * A window from the middle: seeded from the state result, thread 8 runs
 * from the window's start; unseeded, the first switch's prev_tid runs
 * only from the CPU's first event in the window.
 */
START_TEST(events_seeded_from_state)
{
	static const int32_t seeded[7] = { 8, 8, -1, -1, -1, -1, -1 };
	static const uint64_t seeded_busy[7] = { 100, 20 };
	static const int32_t none[7] = { -1, -1, -1, -1, -1, -1, -1 };
	static const uint64_t zero64[7];
	static const uint32_t zero32[7];
	struct evt_state *st = evt_state_new();
	struct evt_window w;
	struct sinks k;

	scenario_state(st);

	k = (struct sinks){ .w = &w };
	ck_assert_int_eq(evt_window_init(&w, &cpus01, st, NULL, 300, 999, 7), 0);
	scenario(&k);
	evt_window_end(&w);
	check_cpu(&w, 0, seeded, seeded_busy, zero32, zero32);
	ck_assert_int_eq(w.cpu[0].incomplete, 0);
	ck_assert_int_eq(w.cpu[1].incomplete, 0);	/* the state is ready: it knows nobody ran */
	evt_window_free(&w);

	ck_assert_int_eq(evt_window_init(&w, &cpus01, NULL, NULL, 300, 999, 7), 0);
	scenario(&k);
	evt_window_end(&w);
	check_cpu(&w, 0, none, zero64, zero32, zero32);
	ck_assert_int_eq(w.cpu[0].incomplete, 1);
	evt_window_free(&w);
	evt_state_free(st);
}
END_TEST

/*
 * CPUs numbered sparsely (a lone compact_8191 is one CPU): a CPU's
 * interrupts land in its own slot, not in the slot its number would be.
 */
START_TEST(events_sparse_cpus)
{
	static const unsigned int cpu_of[2] = { 0, 5 };
	static const int32_t slot_of[6] = { 0, -1, -1, -1, -1, 1 };
	static const struct evt_window_cpus sparse = { 2, cpu_of, slot_of, 6 };
	struct evt_window w;
	struct sinks k = { .w = &w };

	memset(&fake_tr, 0, sizeof(fake_tr));
	fake_tr.md.cat = evt_builtin;
	ck_assert_int_eq(evt_window_init(&w, &sparse, NULL, NULL, 0, 999, 10), 0);
	ev_irq(&k, 5, 130);
	ev_softirq(&k, 5, 260);
	ev_irq(&k, 0, 730);
	evt_window_end(&w);
	for (uint32_t c = 0; c < 10; c++) {
		ck_assert_uint_eq(w.cpu[1].irq[c], c == 1);
		ck_assert_uint_eq(w.cpu[1].soft[c], c == 2);
		ck_assert_uint_eq(w.cpu[0].irq[c], c == 7);
		ck_assert_uint_eq(w.cpu[0].soft[c], 0);
	}
	evt_window_free(&w);
}
END_TEST

/* A thread's lane: its running time per column is what the window charged it. */
START_TEST(thread_lane)
{
	struct evt_state *st = evt_state_new();
	struct evt_window w = { .from = 0, .to = 999, .n = 1000, .cols = 10 };
	uint64_t ns[10][EVT_TSTATE_COUNT] = { { 0 } };
	static const uint64_t ran7[10] = { 50, 100, 50 };
	const struct evt_state_thread *t;

	scenario_state(st);
	t = evt_state_thread(st, 7);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(evt_window_thread_lane(st, t, &w, ns), 0);
	for (int c = 0; c < 10; c++) {
		uint64_t running = ns[c][EVT_TSTATE_USER] + ns[c][EVT_TSTATE_SYSCALL] + ns[c][EVT_TSTATE_IRQ] +
				   ns[c][EVT_TSTATE_SOFTIRQ];

		ck_assert_msg(running == ran7[c], "column %d: thread 7 ran %llu ns, not %llu", c,
			      (unsigned long long)running, (unsigned long long)ran7[c]);
	}
	ck_assert_int_eq(evt_window_iv_find(st, 0, 49), -1);
	ck_assert_int_ge(evt_window_iv_find(st, 0, 50), 0);
	evt_state_free(st);
}
END_TEST

/* ---- A synthesized kernel trace ---- */

struct strace {
	char dir[64];
	struct evt_trace tr;
	struct evt_state *st;
	struct evt_marks *mk;
	unsigned int nr_cpus, cpu_of[8];
	int32_t slot_of[8];
	uint64_t first, last;
};

/* Every event of the trace, in order, to @k; per stream, the events of each column of @w (when @per_col). */
static void read_all(struct strace *s, const struct sinks *k, const struct evt_window *w, uint32_t *per_col)
{
	struct evt_merged m;
	struct evt_ref refs[512];
	struct evt_trace own;	/* a reader's position is its own: each pass from the start */
	long n;

	ck_assert_int_eq(evt_trace_clone(&own, &s->tr), 0);
	ck_assert_int_eq(evt_merged_init(&m, &own, EVT_MERGE_TREE), 0);
	while ((n = evt_merged_next(&m, refs, 512)) > 0)
		for (long i = 0; i < n; i++) {
			unsigned int si = EVT_REF_STREAM(&refs[i]);
			unsigned int idx = EVT_REF_DESC(&refs[i]);
			struct evt_engine_event ev = {
				.tr = &own, .ts = refs[i].ts, .rt = refs[i].ts, .desc = &s->tr.md.cat->events[idx],
				.idx = idx, .cpu = s->tr.streams[si].cpu, .stream = si,
				.channel = s->tr.streams[si].channel, .payload = refs[i].payload,
				.len = EVT_REF_LEN(&refs[i]),
			};

			if (k->w)
				ck_assert_int_eq(evt_window_event(k->w, &ev), 0);
			if (k->st)
				ck_assert_int_eq(evt_state_event_hook(k->st, &ev), 0);
			if (k->mk)
				ck_assert_int_eq(evt_marks_event_hook(k->mk, &ev), 0);
			if (per_col && ev.ts >= w->from && ev.ts <= w->to)
				per_col[(size_t)si * w->cols + evt_window_col_of(w, ev.ts)]++;
			if (!s->first)
				s->first = ev.ts;
			s->last = ev.ts;
		}
	ck_assert_int_eq(n, 0);
	evt_merged_free(&m);
	evt_trace_close(&own);
}

static void strace_open(struct strace *s)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char err[512], kdir[128];
	struct sinks k;

	memset(s, 0, sizeof(*s));
	unit_mktmp(s->dir, sizeof(s->dir), "view");
	evt_synth_defaults(&p);
	p.kernel = 1;
	p.cpus = 3;
	p.events = 30000;
	p.subbuf_size = 4096;
	if (evt_synth_write(s->dir, &p, &r, err, sizeof(err)))
		ck_abort_msg("synth: %s", err);
	ck_assert_uint_gt(r.switches, 100);
	snprintf(kdir, sizeof(kdir), "%s/kernel", s->dir);
	ck_assert_int_eq(evt_trace_open(&s->tr, kdir, NULL), 0);
	for (unsigned int i = 0; i < 8; i++)
		s->slot_of[i] = -1;
	for (unsigned int i = 0; i < s->tr.nr_streams; i++) {
		unsigned int cpu = s->tr.streams[i].cpu;

		ck_assert_uint_lt(cpu, 8);
		if (s->slot_of[cpu] < 0)
			s->slot_of[cpu] = 0;
	}
	for (unsigned int cpu = 0; cpu < 8; cpu++)
		if (s->slot_of[cpu] >= 0) {
			s->slot_of[cpu] = (int32_t)s->nr_cpus;
			s->cpu_of[s->nr_cpus++] = cpu;
		}
	s->st = evt_state_new();
	s->mk = evt_comp_marks.create(NULL);
	ck_assert_ptr_nonnull(s->st);
	ck_assert_ptr_nonnull(s->mk);
	k = (struct sinks){ .st = s->st, .mk = s->mk };
	read_all(s, &k, NULL, NULL);
	evt_comp_state.finish(s->st, NULL);
	ck_assert(evt_marks_complete(s->mk));
}

static void strace_close(struct strace *s)
{
	evt_state_free(s->st);
	evt_comp_marks.destroy(s->mk);
	evt_trace_close(&s->tr);
	unit_rmtree(s->dir);
}

/*
 * The summary is the reading rule from the results: the same threads,
 * busy times and interrupt counts in every column (a column whose thread
 * is estimated, for holding too many intervals, keeps the rest exact).
 */
START_TEST(summary_is_reading)
{
	static const uint32_t cols[] = { 1, 7, 333, 2000 };
	struct strace s;
	struct evt_window_summary *sm = NULL;

	strace_open(&s);
	for (unsigned int c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		for (int part = 0; part < 2; part++) {
			const struct evt_window_cpus cpus = { s.nr_cpus, s.cpu_of, s.slot_of, 8 };
			uint64_t span = s.last - s.first;
			uint64_t from = part ? s.first + span / 3 : s.first, to = part ? s.first + span / 2 : s.last;
			struct evt_window read, sum;
			struct sinks k = { .w = &read };
			unsigned int exact = 0;

			ck_assert_int_eq(evt_window_init(&read, &cpus, s.st, NULL, from, to, cols[c]), 0);
			read_all(&s, &k, NULL, NULL);
			evt_window_end(&read);
			ck_assert_int_eq(evt_window_init(&sum, &cpus, s.st, NULL, from, to, cols[c]), 0);
			ck_assert_int_eq(evt_window_summary(&sum, &sm, s.st, s.mk), 0);
			ck_assert(!read.oom && !sum.oom);
			for (unsigned int i = 0; i < s.nr_cpus; i++)
				for (uint32_t col = 0; col < cols[c]; col++) {
					const struct evt_window_cpu *a = &read.cpu[i], *b = &sum.cpu[i];

					ck_assert_msg(a->busy[col] == b->busy[col],
						      "cols %u part %d cpu %u column %u: busy %llu read, %llu summed",
						      cols[c], part, s.cpu_of[i], col, (unsigned long long)a->busy[col],
						      (unsigned long long)b->busy[col]);
					ck_assert_uint_eq(a->irq[col], b->irq[col]);
					ck_assert_uint_eq(a->soft[col], b->soft[col]);
					if (b->estimated[col])
						continue;
					exact++;
					ck_assert_msg(a->tid[col] == b->tid[col],
						      "cols %u part %d cpu %u column %u: tid %d read, %d summed", cols[c],
						      part, s.cpu_of[i], col, a->tid[col], b->tid[col]);
				}
			/* The wide columns are estimated; the narrow ones never. */
			if (cols[c] >= 333)
				ck_assert_uint_eq(exact, s.nr_cpus * cols[c]);
			evt_window_free(&read);
			evt_window_free(&sum);
		}
	evt_window_summary_free(sm);
	strace_close(&s);
}
END_TEST

/*
 * The sample, where a stream's column holds fewer events than it samples
 * and the CPU's thread is known (after its first switch), reads the column
 * whole: the same thread and busy time as reading every event. Every CPU
 * is flagged incomplete, and the bytes a range costs are its packets'.
 */
START_TEST(sample_reads_small_columns_whole)
{
	const uint32_t cols = 3000;
	struct strace s;
	struct evt_window read, smp;
	struct evt_trace own;
	uint32_t *per_col;
	uint64_t total = 0;
	unsigned int compared = 0, eligible = 0;
	char err[EVT_TRACE_ERRLEN] = "";

	strace_open(&s);
	{
		const struct evt_window_cpus cpus = { s.nr_cpus, s.cpu_of, s.slot_of, 8 };
		struct sinks k = { .w = &read };

		per_col = calloc((size_t)s.tr.nr_streams * cols, sizeof(*per_col));
		ck_assert_ptr_nonnull(per_col);
		ck_assert_int_eq(evt_window_init(&read, &cpus, NULL, NULL, s.first, s.last, cols), 0);
		read_all(&s, &k, &read, per_col);
		evt_window_end(&read);
		ck_assert_int_eq(evt_window_init(&smp, &cpus, NULL, NULL, s.first, s.last, cols), 0);
	}
	ck_assert_int_eq(evt_trace_clone(&own, &s.tr), 0);
	ck_assert_int_eq(evt_window_sample(&smp, &own, err, sizeof(err)), 0);
	for (unsigned int i = 0; i < s.nr_cpus; i++) {
		const struct evt_marks_cpu *mc = evt_marks_cpu(s.mk, s.cpu_of[i]);
		uint32_t after;

		ck_assert_int_eq(smp.cpu[i].incomplete, 1);
		if (!mc || !mc->switched || mc->first_switch > s.last)
			continue;
		after = evt_window_col_of(&read, mc->first_switch) + 1;
		for (uint32_t col = after; col < cols; col++) {
			unsigned int most = 0, any = 0;

			for (unsigned int si = 0; si < s.tr.nr_streams; si++)
				if (s.tr.streams[si].cpu == s.cpu_of[i]) {
					unsigned int v = per_col[(size_t)si * cols + col];

					any += v;
					if (v > most)
						most = v;
				}
			if (!any)
				continue;	/* perhaps between packets: the sample skips it */
			eligible++;
			if (most >= 256)
				continue;
			compared++;
			ck_assert_msg(read.cpu[i].tid[col] == smp.cpu[i].tid[col],
				      "cpu %u column %u: tid %d read, %d sampled", s.cpu_of[i], col,
				      read.cpu[i].tid[col], smp.cpu[i].tid[col]);
			ck_assert_msg(read.cpu[i].busy[col] == smp.cpu[i].busy[col],
				      "cpu %u column %u: busy %llu read, %llu sampled", s.cpu_of[i], col,
				      (unsigned long long)read.cpu[i].busy[col],
				      (unsigned long long)smp.cpu[i].busy[col]);
		}
	}
	ck_assert_uint_gt(compared, eligible * 9 / 10);
	for (unsigned int i = 0; i < s.tr.nr_streams; i++)
		for (uint32_t p = 0; p < s.tr.streams[i].npk; p++)
			total += s.tr.streams[i].pk[p].content;
	ck_assert_uint_eq(evt_window_range_bytes(&s.tr, 0, UINT64_MAX), total);
	evt_trace_close(&own);
	evt_window_free(&read);
	evt_window_free(&smp);
	free(per_col);
	strace_close(&s);
}
END_TEST

Suite *view_suite(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("windows");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, column_rule);
	tcase_add_test(tc, events_unseeded);
	tcase_add_test(tc, events_seeded_from_state);
	tcase_add_test(tc, events_sparse_cpus);
	tcase_add_test(tc, thread_lane);
	tcase_add_test(tc, summary_is_reading);
	tcase_add_test(tc, sample_reads_small_columns_whole);
	suite_add_tcase(s, tc);
	return s;
}
