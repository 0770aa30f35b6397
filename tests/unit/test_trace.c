// SPDX-License-Identifier: GPL-2.0
/*
 * The trace reader and merged reader over synthesized traces (counts,
 * order, tree = list, losses, missing CPUs, threads, counting, memory).
 * The suite "trace" gathers its other cases from test_metadata.c (the
 * metadata, the decoder, formatting), test_corrupt.c (corrupted traces)
 * and test_evcat.c (evcat against babeltrace2).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "unit.h"
#include "fastcheck.h"
#include "json/evt_json.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_tsdl.h"
#include "ctf/evt_par.h"
#include "synth/evt_synth.h"
#include "format/evt_format.h"

/* Merged order: (ts, buffer id) non-decreasing, file order within a stream. */
static void check_order(const struct evt_trace *t, const struct merged *m)
{
	const uint8_t **lastp = calloc(t->nr_streams + 1, sizeof(*lastp));
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct mref *e = &m->ev[i];

		ck_assert_uint_lt(e->stream, t->nr_streams);
		if (i) {
			const struct mref *p = &m->ev[i - 1];

			ck_assert_msg(p->ts < e->ts || (p->ts == e->ts && p->stream <= e->stream),
				      "merge order broken at %zu", i);
		}
		/* Payload pointers grow within a stream file. */
		ck_assert(!lastp[e->stream] || e->payload > lastp[e->stream]);
		lastp[e->stream] = e->payload;
	}
	free(lastp);
}

/* The same events, decoded independently by evt_decode's iterator, per stream. */
static void check_against_decoder(const struct evt_trace *t, const struct merged *m)
{
	unsigned int s;

	for (s = 0; s < t->nr_streams; s++) {
		const struct evt_stream *st = &t->streams[s];
		size_t off = 0, k = 0;

		while (off < st->size) {
			struct evt_packet_iter it;
			struct evt_event ev;
			int rc;

			ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, st->map + off, st->size - off), 0);
			while ((rc = evt_packet_next(&it, &ev)) == 1) {
				/* Find this stream's k-th event in the merged output. */
				while (k < m->n && m->ev[k].stream != s)
					k++;
				ck_assert_uint_lt(k, m->n);
				ck_assert_uint_eq(m->ev[k].ts, ev.ts);
				ck_assert(m->ev[k].payload == ev.payload);
				ck_assert_uint_eq(m->ev[k].len, ev.payload_len);
				ck_assert_str_eq(evt_events[m->ev[k].desc].name, ev.desc->name);
				k++;
			}
			ck_assert_int_eq(rc, 0);
			off += it.info.packet_bytes;
		}
		while (k < m->n)
			ck_assert_uint_ne(m->ev[k++].stream, s);
	}
}

static void check_same(const struct merged *a, const struct merged *b)
{
	size_t i;

	ck_assert_uint_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		ck_assert_uint_eq(a->ev[i].ts, b->ev[i].ts);
		ck_assert_uint_eq(a->ev[i].stream, b->ev[i].stream);
		ck_assert_uint_eq(a->ev[i].len, b->ev[i].len);
		/* Two opens map the files at different addresses: compare offsets via content. */
		ck_assert_int_eq(memcmp(a->ev[i].payload, b->ev[i].payload, a->ev[i].len), 0);
	}
}

static void small_params(struct evt_synth_params *p, unsigned int variant)
{
	evt_synth_defaults(p);
	p->cpus = 2 + variant % 5;
	p->events = 3000 + 1000 * variant;
	p->seed = 100 + variant;
	p->subbuf_size = variant % 2 ? 4096 : 2048;
	p->num_subbuf = 4;
	p->period_ns = variant % 3 ? 700 : 50000000;	/* wraps the 27-bit field often */
	p->skew_ns = (int64_t)(variant * 997) - 3000;
	p->burst_every = variant % 2 ? 200 : 0;
	p->burst_len = 60;
	p->mix = variant % 2;
	p->normal_pct = variant % 3 ? 15 : 0;
}

START_TEST(read_synth_traces)
{
	unsigned int variant = (unsigned int)_i;
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t1, t2;
	struct merged a, b;
	char dir[64];

	unit_mktmp(dir, sizeof(dir), "trace");
	small_params(&p, variant);
	unit_synth(dir, &p, &r);
	ck_assert_uint_eq(r.generated, p.events);
	unit_merge_dir(&t1, dir, EVT_MERGE_TREE, NULL, &a);
	ck_assert_msg(a.rc == 0, "%s", a.err);
	unit_merge_dir(&t2, dir, EVT_MERGE_LIST, NULL, &b);
	ck_assert_msg(b.rc == 0, "%s", b.err);
	ck_assert_uint_eq(a.n, r.written);
	ck_assert_uint_eq(t1.nr_streams, 2 * p.cpus);
	check_order(&t1, &a);
	check_same(&a, &b);
	check_against_decoder(&t1, &a);
	ck_assert_uint_eq(t1.md.clock_offset_s, p.clock_offset_s);
	ck_assert_uint_eq(t1.md.clock_offset_ns, p.clock_offset_ns);
	evt_trace_close(&t1);
	evt_trace_close(&t2);
	free(a.ev);
	free(b.ev);
	unit_rmtree(dir);
}
END_TEST

/*
 * evsynth --kernel: decodes whole, in DIR/kernel/, and its kernel is
 * consistent per CPU: each exit_syscall closes the entry of the thread
 * running there, each switch's prev_tid is the previous switch's
 * next_tid, prev_state takes the module's values; the counts by kind are
 * the result's. With losses (variant 1): still decodes, counts written.
 */
START_TEST(synth_kernel_is_consistent)
{
	static int32_t open_nr[1 << 16];
	const int lossy = _i == 1;
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t;
	struct merged m;
	int32_t cur[8];
	uint64_t sw = 0, ent = 0, ex = 0, irq = 0, soft = 0, wake = 0, fork = 0, dump = 0;
	char dir[64], sub[128];
	struct stat st;
	size_t i;

	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.kernel = 1;
	p.cpus = lossy ? 4 : 3;
	p.events = 60000;
	p.seed = 42 + (uint64_t)_i;
	p.fork_every = 300;
	p.threads = 13;
	if (lossy) {
		static const uint8_t idle[4] = { 0, 0, 1, 0 };

		p.idle = idle;
		p.subbuf_size = 4096;
		p.num_subbuf = 4;
		p.stall_every = 5000;
	}
	unit_synth(dir, &p, &r);
	ck_assert_uint_eq(r.generated, p.events);
	snprintf(sub, sizeof(sub), "%s/kernel/metadata", dir);
	ck_assert_int_eq(stat(sub, &st), 0);
	unit_merge_dir(&t, dir, EVT_MERGE_TREE, NULL, &m);
	ck_assert_msg(m.rc == 0, "%s", m.err);
	ck_assert_uint_eq(m.n, r.written);
	check_order(&t, &m);
	if (lossy) {
		ck_assert_uint_gt(r.discarded, 0);
		goto out;
	}
	ck_assert_uint_eq(r.written, r.generated);
	for (i = 0; i < 8; i++)
		cur[i] = -1;
	for (i = 0; i < sizeof(open_nr) / sizeof(open_nr[0]); i++)
		open_nr[i] = -1;
	for (i = 0; i < m.n; i++) {
		const struct evt_event_desc *d = &t.md.cat->events[m.ev[i].desc];
		unsigned int cpu = t.streams[m.ev[i].stream].cpu;
		const uint8_t *pl = m.ev[i].payload;
		int32_t a, b;
		uint32_t state;

		ck_assert_uint_lt(cpu, 8);
		if (!strncmp(d->name, "sys_", 4)) {
			ck_assert_msg(cur[cpu] > 0, "%s on CPU %u: no thread running", d->name, cpu);
			ck_assert_int_eq(open_nr[cur[cpu]], -1);
			open_nr[cur[cpu]] = (int32_t)(d->id - EVT_ID_SYS_BASE);
			ent++;
		} else if (!strcmp(d->name, "exit_syscall")) {
			memcpy(&a, pl, 4);
			ck_assert_msg(cur[cpu] > 0, "exit_syscall on CPU %u: no thread running", cpu);
			ck_assert_msg(open_nr[cur[cpu]] == a, "event %zu: exit_syscall %d of tid %d "
				      "after entry %d", i, a, cur[cpu], open_nr[cur[cpu]]);
			open_nr[cur[cpu]] = -1;
			ex++;
		} else if (!strcmp(d->name, "sched_switch")) {
			memcpy(&a, pl + 16, 4);
			memcpy(&state, pl + 24, 4);
			memcpy(&b, pl + 44, 4);
			if (cur[cpu] >= 0)
				ck_assert_msg(a == cur[cpu], "event %zu: CPU %u switches from %d, "
					      "%d was running", i, cpu, a, cur[cpu]);
			ck_assert_msg(state == 0 || state == 1 || state == 2 || state == 32 ||
				      state == 128, "prev_state %u", state);
			ck_assert_int_lt(b, 1 << 16);
			cur[cpu] = b;
			sw++;
		} else if (!strcmp(d->name, "irq_handler_entry")) {
			irq++;
		} else if (!strcmp(d->name, "softirq_entry")) {
			soft++;
		} else if (!strcmp(d->name, "sched_wakeup") || !strcmp(d->name, "sched_wakeup_new")) {
			memcpy(&a, pl + 24, 4);
			ck_assert_int_eq(a, (int32_t)cpu);
			wake++;
		} else if (!strcmp(d->name, "sched_process_fork")) {
			fork++;
		} else if (!strcmp(d->name, "lttng_statedump_process_state")) {
			dump++;
		}
	}
	ck_assert_uint_eq(sw, r.switches);
	ck_assert_uint_eq(ent, r.syscalls);
	ck_assert_uint_eq(ex, r.syscall_exits);
	ck_assert_uint_eq(irq, r.irqs);
	ck_assert_uint_eq(soft, r.softirqs);
	ck_assert_uint_eq(wake, r.wakeups);
	ck_assert_uint_eq(fork, r.forks);
	ck_assert_uint_eq(dump, r.dumped);
	/* 13 user threads, a kworker per CPU, systemd and kthreadd. */
	ck_assert_uint_eq(dump, 13 + 3 + 2);
	ck_assert_uint_gt(sw, 1000);
	ck_assert_uint_gt(ent, 10000);
	ck_assert_uint_gt(irq, 100);
	ck_assert_uint_gt(fork, 0);
out:
	evt_trace_close(&t);
	free(m.ev);
	unit_rmtree(dir);
}
END_TEST

/* Time slices on threads: the sequential merge's events, in the same order, ranges too. */
START_TEST(parallel_equals_sequential)
{
	unsigned int variant = (unsigned int)_i;
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t1, t2;
	struct merged a, b;
	char dir[64];
	unsigned int threads;

	unit_mktmp(dir, sizeof(dir), "trace");
	small_params(&p, variant + 2);
	p.events = 20000;
	unit_synth(dir, &p, &r);
	unit_merge_dir(&t1, dir, variant & 1, NULL, &a);
	ck_assert_msg(a.rc == 0, "%s", a.err);
	for (threads = 1; threads <= 4; threads++) {
		unit_par_merge_dir(&t2, dir, (variant + threads) & 1, threads, 700 * threads, 0, UINT64_MAX, &b);
		ck_assert_msg(b.rc == 0, "%s", b.err);
		check_same(&a, &b);
		evt_trace_close(&t2);
		free(b.ev);
	}
	/* A range: the sequential merge's events within it. */
	{
		uint64_t lo = a.ev[a.n / 3].ts, hi = a.ev[2 * a.n / 3].ts;
		struct evt_merged mt;
		struct evt_ref refs[64];
		struct evt_trace t3;
		size_t k = 0, first = 0;
		long n;

		while (a.ev[first].ts < lo)
			first++;
		unit_par_merge_dir(&t2, dir, EVT_MERGE_TREE, 3, 1000, lo, hi, &b);
		ck_assert_msg(b.rc == 0, "%s", b.err);
		ck_assert_uint_gt(b.n, 0);
		for (k = 0; k < b.n; k++) {
			ck_assert_uint_eq(b.ev[k].ts, a.ev[first + k].ts);
			ck_assert_uint_eq(b.ev[k].stream, a.ev[first + k].stream);
		}
		ck_assert(first + k == a.n || a.ev[first + k].ts > hi);
		/* The sequential reader with the same range (it seeks too). */
		ck_assert_int_eq(evt_trace_open(&t3, dir, NULL), 0);
		ck_assert_int_eq(evt_merged_init(&mt, &t3, EVT_MERGE_LIST), 0);
		evt_merged_set_range(&mt, lo, hi);
		k = 0;
		while ((n = evt_merged_next(&mt, refs, 64)) > 0) {
			long i;

			for (i = 0; i < n; i++, k++) {
				ck_assert_uint_lt(k, b.n);
				ck_assert_uint_eq(refs[i].ts, b.ev[k].ts);
				ck_assert_uint_eq(EVT_REF_STREAM(&refs[i]), b.ev[k].stream);
			}
		}
		ck_assert_int_eq(n, 0);
		ck_assert_uint_eq(k, b.n);
		evt_merged_free(&mt);
		evt_trace_close(&t3);
		evt_trace_close(&t2);
		free(b.ev);
	}
	evt_trace_close(&t1);
	free(a.ev);
	unit_rmtree(dir);
}
END_TEST

/* ---- Counting (evcat --count): the merge without references ---- */

struct cnt_ctx {
	uint64_t total;
	int rc;
	char err[EVT_TRACE_ERRLEN];
};

static void *cnt_begin(void *ctx, unsigned int j, uint64_t lo, uint64_t hi)
{
	(void)ctx;
	(void)j;
	(void)lo;
	(void)hi;
	return calloc(1, sizeof(uint64_t));
}

static int cnt_refs(void *ctx, void *state, const struct evt_ref *r, size_t n)
{
	(void)ctx;
	(void)state;
	(void)r;
	(void)n;
	ck_abort_msg("references handed out in a count-only run");
	return -1;
}

static int cnt_count(void *ctx, void *state, uint64_t n)
{
	(void)ctx;
	*(uint64_t *)state += n;
	return 0;
}

static int cnt_end(void *ctx, void *state, const char *err)
{
	struct cnt_ctx *c = ctx;

	c->total += *(uint64_t *)state;
	free(state);
	if (err) {
		c->rc = -1;
		snprintf(c->err, sizeof(c->err), "%s", err);
		return -1;
	}
	return 0;
}

static void cnt_drop(void *ctx, void *state)
{
	(void)ctx;
	free(state);
}

static const struct evt_par_ops cnt_ops = {
	.begin = cnt_begin, .refs = cnt_refs, .end = cnt_end, .drop = cnt_drop, .count = cnt_count,
};

/* Events of @m in [lo, hi] whose event index has @mask set (NULL: all). */
static uint64_t expect_count(const struct merged *m, uint64_t lo, uint64_t hi, const uint8_t *mask)
{
	uint64_t k = 0;
	size_t i;

	for (i = 0; i < m->n; i++)
		k += m->ev[i].ts >= lo && m->ev[i].ts <= hi && (!mask || mask[m->ev[i].desc]);
	return k;
}

/*
 * evt_merged_count and evt_par's count_only against the references: with
 * idle (empty) and missing CPUs, ranges, event masks, both merges, threads,
 * and on a corrupted trace up to the same error.
 */

START_TEST(count_equals_references)
{
	static uint8_t idle[6] = { 0, 0, 1, 0, 1, 0 }, offline[6] = { 0, 0, 0, 1, 0, 0 };
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t, c;
	struct merged a;
	uint8_t *mask = calloc(evt_nr_events, 1);
	char dir[64], path[128];
	unsigned int kind, threads, round;

	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 6;
	p.idle = idle;
	p.offline = offline;
	p.events = 40000;
	p.subbuf_size = 2048;
	p.num_subbuf = 4;
	p.mix = 1;
	p.normal_pct = 20;
	p.burst_every = 150;
	p.burst_len = 40;
	unit_synth(dir, &p, &r);
	ck_assert_ptr_nonnull(mask);
	mask[evt_find_event_by_name("gen_ping") - evt_events] = 1;
	mask[evt_find_event_by_name("gen_normal") - evt_events] = 1;
	for (round = 0; round < 2; round++) {
		if (round == 1) {
			/* A bad magic in the middle of compact_5: an error after some events. */
			FILE *f;
			long off;

			snprintf(path, sizeof(path), "%s/compact_5", dir);
			f = fopen(path, "r+b");
			ck_assert_ptr_nonnull(f);
			fseek(f, 0, SEEK_END);
			off = ftell(f) / 2048 / 2 * 2048;
			ck_assert_int_gt(off, 0);
			fseek(f, off, SEEK_SET);
			fputc(0x5a, f);
			fclose(f);
		}
		for (kind = 0; kind < 2; kind++) {
			uint64_t lo, hi, want, total = 0;
			struct evt_merged mt;
			long n;

			unit_merge_dir(&t, dir, kind, NULL, &a);
			ck_assert_msg(round == 0 ? a.rc == 0 : a.rc == -1, "round %u: %s", round, a.err);
			unit_pair_count_check(dir, a.n, a.rc, a.err);
			ck_assert_uint_gt(a.n, 1000);
			lo = a.ev[a.n / 4].ts;
			hi = a.ev[a.n / 2].ts;
			/* A range and an event mask. */
			ck_assert_int_eq(evt_trace_clone(&c, &t), 0);
			ck_assert_int_eq(evt_merged_init(&mt, &c, kind), 0);
			evt_merged_set_range(&mt, lo, hi);
			evt_merged_set_events(&mt, mask);
			while ((n = evt_merged_count(&mt, 1U << 20)) > 0)
				total += (uint64_t)n;
			ck_assert_int_eq(n, 0);
			want = expect_count(&a, lo, hi, mask);
			ck_assert_uint_gt(want, 0);
			ck_assert_uint_eq(total, want);
			evt_merged_free(&mt);
			evt_trace_close(&c);
			/* Pairs counted at once, with ranges of every kind. */
			{
				const uint64_t first_ts = a.ev[0].ts, last_ts = a.ev[a.n - 1].ts;
				const uint64_t rg[][2] = {
					{ 0, UINT64_MAX }, { lo, hi }, { hi, lo }, { 0, first_ts - 1 },
					{ last_ts + 1, UINT64_MAX }, { first_ts, first_ts }, { lo, UINT64_MAX },
					{ 0, hi }, { a.ev[a.n / 3].ts, a.ev[a.n / 3].ts + 5000 },
				};
				const size_t nr = sizeof(rg) / sizeof(rg[0]);
				size_t x;

				for (x = 0; x < nr; x++) {
					const size_t y = (x * 5 + 3) % nr;
					struct evt_trace c2;
					struct evt_merged m2;
					uint64_t na, nb;

					ck_assert_int_eq(evt_trace_clone(&c, &t), 0);
					ck_assert_int_eq(evt_trace_clone(&c2, &t), 0);
					ck_assert_int_eq(evt_merged_init(&mt, &c, kind), 0);
					ck_assert_int_eq(evt_merged_init(&m2, &c2, kind), 0);
					evt_merged_set_range(&mt, rg[x][0], rg[x][1]);
					evt_merged_set_range(&m2, rg[y][0], rg[y][1]);
					evt_merged_count_pair(&mt, &m2, &na, &nb);
					ck_assert_uint_eq(na, expect_count(&a, rg[x][0], rg[x][1], NULL));
					ck_assert_uint_eq(nb, expect_count(&a, rg[y][0], rg[y][1], NULL));
					evt_merged_free(&mt);
					evt_merged_free(&m2);
					evt_trace_close(&c2);
					evt_trace_close(&c);
				}
			}
			/* On threads: slices counted, the same total, the same error. */
			for (threads = 1; threads <= 3; threads++) {
				struct evt_par_opts po = {
					.threads = threads, .kind = kind, .from = 0, .to = UINT64_MAX,
					.slice_bytes = 3000 * threads, .count_only = 1,
				};
				struct cnt_ctx cc = { 0 };
				char err[256];
				int rc;

				rc = evt_par_run(&t, &po, &cnt_ops, &cc, err, sizeof(err));
				ck_assert_msg(rc >= 0, "%s", err);
				ck_assert_int_eq(rc, a.rc ? 1 : 0);
				ck_assert_uint_eq(cc.total, a.n);
				if (a.rc)
					ck_assert_str_eq(cc.err, a.err);
				/* A range (the tree counts slices in pairs), then with a mask too. */
				po.from = lo;
				po.to = hi;
				memset(&cc, 0, sizeof(cc));
				rc = evt_par_run(&t, &po, &cnt_ops, &cc, err, sizeof(err));
				ck_assert_int_eq(rc, 0);
				ck_assert_uint_eq(cc.total, expect_count(&a, lo, hi, NULL));
				po.event_mask = mask;
				memset(&cc, 0, sizeof(cc));
				rc = evt_par_run(&t, &po, &cnt_ops, &cc, err, sizeof(err));
				ck_assert_int_eq(rc, 0);
				ck_assert_uint_eq(cc.total, want);
			}
			evt_trace_close(&t);
			free(a.ev);
		}
	}
	free(mask);
	unit_rmtree(dir);
}
END_TEST

/* Losses: events_discarded totals, packet_seq_num gaps; offline CPUs leave no id holes. */
START_TEST(read_losses_and_missing_cpus)
{
	static uint8_t idle[8] = { 0, 0, 1, 0, 0, 0, 0, 0 }, offline[8] = { 0, 1, 0, 0, 0, 1, 0, 0 };
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t, t2;
	struct merged a, b;
	uint64_t disc = 0, gaps = 0, cnt[8] = { 0 };
	char dir[64];
	unsigned int i;
	size_t k;

	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 7;
	p.events = 40000;
	p.subbuf_size = 2048;
	p.num_subbuf = 4;
	p.stall_every = 1500;
	p.stall_len = 1000;
	p.idle = idle;
	p.offline = offline;
	unit_synth(dir, &p, &r);
	ck_assert_uint_gt(r.discarded, 0);
	unit_merge_dir(&t, dir, EVT_MERGE_TREE, NULL, &a);
	ck_assert_msg(a.rc == 0, "%s", a.err);
	ck_assert_uint_eq(a.n, r.written);
	/* CPUs 0 2 3 4 6, two channels each: buffer ids 0..9, no holes. */
	ck_assert_uint_eq(t.nr_streams, 10);
	for (i = 0; i < t.nr_streams; i++) {
		static const unsigned int cpus[] = { 0, 2, 3, 4, 6 };

		ck_assert_uint_eq(t.streams[i].id, i);
		ck_assert_uint_eq(t.streams[i].cpu, cpus[i / 2]);
		ck_assert_uint_eq(t.streams[i].channel, i % 2);
		disc += t.streams[i].discarded;
		gaps += t.streams[i].seq_gaps;
	}
	ck_assert_uint_eq(disc, r.discarded);
	ck_assert_uint_eq(gaps, 0);
	for (k = 0; k < a.n; k++)
		cnt[t.streams[a.ev[k].stream].cpu]++;
	ck_assert_uint_eq(cnt[2], 0);	/* idle */
	ck_assert_uint_gt(cnt[6], 0);
	check_order(&t, &a);
	evt_trace_close(&t);
	free(a.ev);
	unit_rmtree(dir);

	/* Overwrite mode: whole packets lost, seen as sequence gaps. */
	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 3;
	p.events = 30000;
	p.subbuf_size = 2048;
	p.num_subbuf = 4;
	p.stall_every = 2000;
	p.stall_len = 1500;
	p.overwrite = 1;
	unit_synth(dir, &p, &r);
	ck_assert_uint_gt(r.overwritten, 0);
	unit_merge_dir(&t, dir, EVT_MERGE_LIST, NULL, &a);
	ck_assert_msg(a.rc == 0, "%s", a.err);
	ck_assert_uint_eq(a.n, r.written);
	for (i = 0, gaps = 0; i < t.nr_streams; i++)
		gaps += t.streams[i].seq_gaps;
	ck_assert_uint_gt(gaps, 0);
	unit_merge_dir(&t2, dir, EVT_MERGE_TREE, NULL, &b);
	check_same(&a, &b);
	evt_trace_close(&t);
	evt_trace_close(&t2);
	free(a.ev);
	free(b.ev);

	/* Only some CPUs: the others are not opened. */
	{
		uint8_t set[1] = { 0x5 };	/* CPUs 0 and 2 */
		struct evt_trace_opts o = { .cpu_set = set, .cpu_set_bits = 8 };

		unit_merge_dir(&t, dir, EVT_MERGE_TREE, &o, &a);
		ck_assert_msg(a.rc == 0, "%s", a.err);
		ck_assert_uint_eq(t.nr_streams, 4);
		ck_assert_uint_eq(t.streams[2].cpu, 2);
		for (k = 0; k < a.n; k++)
			ck_assert_uint_ne(t.streams[a.ev[k].stream].cpu, 1);
		evt_trace_close(&t);
		free(a.ev);
	}
	unit_rmtree(dir);
}
END_TEST


static long resident_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld %ld", &pages, &rss), 2);
	fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * Reading a trace keeps only a bounded part of it resident: a 32 MB stream
 * read to its end (index and merge) leaves the reader less than 8 MB larger
 * (it used to keep every page it had read mapped: the whole file).
 */
START_TEST(reading_keeps_memory_bounded)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_merged mt;
	struct evt_trace t;
	char dir[64];
	uint64_t n = 0;
	long before, k;

	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 1;
	p.events = 2000000;		/* 16 bytes each */
	unit_synth(dir, &p, &r);
	ck_assert_uint_eq(r.written, p.events);
	/*
	 * From after the open: parsing the metadata (its catalogue, some 900
	 * events) costs the same whatever the trace's size, and more under
	 * ASan, whose quarantine keeps what the parser freed.
	 */
	ck_assert_int_eq(evt_trace_open(&t, dir, NULL), 0);
	ck_assert_int_eq(evt_merged_init(&mt, &t, EVT_MERGE_TREE), 0);
	before = resident_kib();
	while ((k = evt_merged_count(&mt, 1U << 16)) > 0)
		n += (uint64_t)k;
	ck_assert_int_eq(k, 0);
	ck_assert_uint_eq(n, r.written);
	ck_assert_msg(resident_kib() - before < 8 * 1024, "resident %ld KiB more after reading %llu events",
		      resident_kib() - before, (unsigned long long)n);
	evt_merged_free(&mt);
	evt_trace_close(&t);
	unit_rmtree(dir);
}
END_TEST

/* A FIFO in the place of a trace file is refused, not waited on (it used to hang the open). */
START_TEST(fifo_in_a_trace_is_refused)
{
	static const char *const names[] = { "metadata", "compact_0" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t;
	char dir[64], path[128];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		unit_mktmp(dir, sizeof(dir), "trace");
		evt_synth_defaults(&p);
		p.cpus = 1;
		p.events = 1000;
		unit_synth(dir, &p, &r);
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ck_assert_int_eq(unlink(path), 0);
		ck_assert_int_eq(mkfifo(path, 0600), 0);
		ck_assert_int_eq(evt_trace_open(&t, dir, NULL), -1);
		ck_assert_msg(strstr(t.err, "not a regular file") && strstr(t.err, names[i]), "%s", t.err);
		unit_rmtree(dir);
	}
}
END_TEST

/*
 * Streams opened on threads: the same index as one thread, and of two
 * streams that cannot be opened, the first in order is the one reported.
 */
START_TEST(open_on_threads_is_the_same)
{
	struct evt_trace_opts o = { .threads = 4 };
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t1, t4;
	char dir[64], path[128];
	unsigned int i, round;

	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 6;
	p.events = 60000;
	p.normal_pct = 20;
	unit_synth(dir, &p, &r);
	ck_assert_int_eq(evt_trace_open(&t1, dir, NULL), 0);
	ck_assert_int_eq(evt_trace_open(&t4, dir, &o), 0);
	ck_assert_uint_eq(t1.nr_streams, 12);
	ck_assert_uint_eq(t4.nr_streams, t1.nr_streams);
	ck_assert_uint_eq(t4.base, t1.base);
	for (i = 0; i < t1.nr_streams; i++) {
		const struct evt_stream *a = &t1.streams[i], *b = &t4.streams[i];

		ck_assert_str_eq(b->name, a->name);
		ck_assert_uint_eq(b->npk, a->npk);
		ck_assert_uint_gt(a->npk, 1);
		ck_assert_mem_eq(b->pk, a->pk, a->npk * sizeof(*a->pk));
		ck_assert_uint_eq(b->max_end, a->max_end);
	}
	evt_trace_close(&t1);
	evt_trace_close(&t4);
	/* compact_2 and normal_4 as FIFOs: compact_2 comes first (streams sort by CPU, then channel). */
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "normal_4" : "compact_2");
		ck_assert_int_eq(unlink(path), 0);
		ck_assert_int_eq(mkfifo(path, 0600), 0);
	}
	for (round = 0; round < 20; round++) {
		ck_assert_int_eq(evt_trace_open(&t4, dir, &o), -1);
		ck_assert_msg(strstr(t4.err, "compact_2: not a regular file"), "%s", t4.err);
	}
	unit_rmtree(dir);
}
END_TEST

/* A run whose times would pass 2^63 ns is refused (it started at 1: the start wrapped). */
START_TEST(synth_refuses_times_beyond_63_bits)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], err[256];

	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 1;
	p.events = 10;
	p.start_ns = 18446744073000000000ULL;
	ck_assert_int_eq(evt_synth_write(dir, &p, &r, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "beyond 2^63 ns"), "%s", err);
	p.start_ns = 9223372036854770000ULL;	/* 10 events at up to 2 us: past 2^63 - 1 */
	ck_assert_int_eq(evt_synth_write(dir, &p, &r, err, sizeof(err)), -1);
	p.start_ns = 9223372036000000000ULL;
	ck_assert_msg(evt_synth_write(dir, &p, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(r.first_ts, p.start_ns);
	unit_rmtree(dir);
}
END_TEST

Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tr = tcase_create("read");
	TCase *tc = tcase_create("corrupt");
	TCase *te = tcase_create("evcat");

	tcase_add_loop_test(tr, read_synth_traces, 0, 6);
	tcase_add_loop_test(tr, synth_kernel_is_consistent, 0, 2);
	tcase_add_test(tr, read_losses_and_missing_cpus);
	tcase_add_test(tr, count_equals_references);
	tcase_add_loop_test(tr, parallel_equals_sequential, 0, 4);
	tcase_add_test(tr, fifo_in_a_trace_is_refused);
	tcase_add_test(tr, open_on_threads_is_the_same);
	tcase_add_test(tr, synth_refuses_times_beyond_63_bits);
	tcase_add_test(tr, reading_keeps_memory_bounded);
	trace_metadata_tests(tr);
	trace_corrupt_tests(tr, tc);
	trace_evcat_tests(te);
	suite_add_tcase(s, tr);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, te);
	return s;
}
