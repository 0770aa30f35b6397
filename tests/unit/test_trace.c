// SPDX-License-Identifier: GPL-2.0
/*
 * The trace reader and merged reader over synthesized traces (counts,
 * order, tree = list, losses, missing CPUs), corrupted traces (errors that
 * name the file and offset, never a crash: the ASan build runs these too),
 * and evcat against babeltrace2.
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

static uint64_t rng_state = 77;

static uint64_t rnd(void)
{
	return unit_rnd(&rng_state);
}

static void mktmp(char *dir, size_t len)
{
	unit_mktmp(dir, len, "trace");
}

static void synth(const char *dir, const struct evt_synth_params *p, struct evt_synth_result *r)
{
	char err[512];

	if (evt_synth_write(dir, p, r, err, sizeof(err)))
		ck_abort_msg("synth: %s", err);
}

struct mref {
	uint64_t ts;
	const uint8_t *payload;
	uint32_t stream, desc, len;
};

struct merged {
	struct mref *ev;
	size_t n, cap;
	int rc;			/* 0, or -1 with err */
	char err[EVT_TRACE_ERRLEN];
};

/* Open @dir and merge it all with @kind into @out (the trace stays open in @t). */
static void merge_dir(struct evt_trace *t, const char *dir, enum evt_merge_kind kind,
		      const struct evt_trace_opts *o, struct merged *out)
{
	struct evt_merged mt;
	struct evt_ref refs[97];	/* an odd batch size: batches end anywhere */
	long n;

	memset(out, 0, sizeof(*out));
	if (evt_trace_open(t, dir, o)) {
		out->rc = -1;
		snprintf(out->err, sizeof(out->err), "%s", t->err);
		return;
	}
	ck_assert_int_eq(evt_merged_init(&mt, t, kind), 0);
	while ((n = evt_merged_next(&mt, refs, 97)) > 0) {
		long i;

		ck_assert_int_le(n, 97);
		for (i = 0; i < n; i++) {
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 4096;
				out->ev = realloc(out->ev, out->cap * sizeof(*out->ev));
			}
			out->ev[out->n++] = (struct mref){
				refs[i].ts, refs[i].payload, EVT_REF_STREAM(&refs[i]),
				EVT_REF_DESC(&refs[i]), EVT_REF_LEN(&refs[i]) };
		}
	}
	if (n < 0) {
		out->rc = -1;
		snprintf(out->err, sizeof(out->err), "%s", mt.errmsg);
	}
	evt_merged_free(&mt);
	/* Counting only (evcat --count): the same events, up to the same error. */
	{
		struct evt_trace c;
		uint64_t total = 0;

		ck_assert_int_eq(evt_trace_clone(&c, t), 0);
		ck_assert_int_eq(evt_merged_init(&mt, &c, kind), 0);
		while ((n = evt_merged_count(&mt, 53)) > 0) {
			ck_assert_int_le(n, 53);
			total += (uint64_t)n;
		}
		ck_assert_uint_eq(total, out->n);
		ck_assert_int_eq(n < 0 ? -1 : 0, out->rc);
		if (n < 0)
			ck_assert_str_eq(mt.errmsg, out->err);
		evt_merged_free(&mt);
		evt_trace_close(&c);
	}
}

/* ---- The same merge on threads, slices collected in order ---- */

struct par_ctx {
	struct merged *out;
	int ended;
};

static void *par_begin(void *ctx, unsigned int j, uint64_t lo, uint64_t hi)
{
	(void)ctx;
	(void)j;
	(void)lo;
	(void)hi;
	return calloc(1, sizeof(struct merged));
}

static int par_refs(void *ctx, void *state, const struct evt_ref *r, size_t n)
{
	struct merged *m = state;
	size_t i;

	(void)ctx;
	for (i = 0; i < n; i++) {
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 1024;
			m->ev = realloc(m->ev, m->cap * sizeof(*m->ev));
		}
		m->ev[m->n++] = (struct mref){ r[i].ts, r[i].payload, EVT_REF_STREAM(&r[i]),
					       EVT_REF_DESC(&r[i]), EVT_REF_LEN(&r[i]) };
	}
	return 0;
}

static int par_end(void *ctx, void *state, const char *err)
{
	struct par_ctx *c = ctx;
	struct merged *m = state, *o = c->out;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (o->n == o->cap) {
			o->cap = o->cap ? o->cap * 2 : 4096;
			o->ev = realloc(o->ev, o->cap * sizeof(*o->ev));
		}
		o->ev[o->n++] = m->ev[i];
	}
	c->ended++;
	free(m->ev);
	free(m);
	if (err) {
		o->rc = -1;
		snprintf(o->err, sizeof(o->err), "%s", err);
		return -1;
	}
	return 0;
}

static void par_drop(void *ctx, void *state)
{
	struct merged *m = state;

	(void)ctx;
	free(m->ev);
	free(m);
}

static const struct evt_par_ops par_ops = {
	.begin = par_begin, .refs = par_refs, .end = par_end, .drop = par_drop,
};

/* Like merge_dir, on @threads threads with slices of about @slice bytes. */
static void par_merge_dir(struct evt_trace *t, const char *dir, enum evt_merge_kind kind,
			  unsigned int threads, uint64_t slice, uint64_t from, uint64_t to,
			  struct merged *out)
{
	struct evt_par_opts po = {
		.threads = threads, .kind = kind, .from = from, .to = to, .slice_bytes = slice,
	};
	struct par_ctx c = { .out = out };
	char err[256];
	int rc;

	memset(out, 0, sizeof(*out));
	if (evt_trace_open(t, dir, NULL)) {
		out->rc = -1;
		snprintf(out->err, sizeof(out->err), "%s", t->err);
		return;
	}
	rc = evt_par_run(t, &po, &par_ops, &c, err, sizeof(err));
	ck_assert_msg(rc >= 0, "%s", err);
	ck_assert_int_eq(rc, out->rc ? 1 : 0);
}

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

	mktmp(dir, sizeof(dir));
	small_params(&p, variant);
	synth(dir, &p, &r);
	ck_assert_uint_eq(r.generated, p.events);
	merge_dir(&t1, dir, EVT_MERGE_TREE, NULL, &a);
	ck_assert_msg(a.rc == 0, "%s", a.err);
	merge_dir(&t2, dir, EVT_MERGE_LIST, NULL, &b);
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

	mktmp(dir, sizeof(dir));
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
	synth(dir, &p, &r);
	ck_assert_uint_eq(r.generated, p.events);
	snprintf(sub, sizeof(sub), "%s/kernel/metadata", dir);
	ck_assert_int_eq(stat(sub, &st), 0);
	merge_dir(&t, dir, EVT_MERGE_TREE, NULL, &m);
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

	mktmp(dir, sizeof(dir));
	small_params(&p, variant + 2);
	p.events = 20000;
	synth(dir, &p, &r);
	merge_dir(&t1, dir, variant & 1, NULL, &a);
	ck_assert_msg(a.rc == 0, "%s", a.err);
	for (threads = 1; threads <= 4; threads++) {
		par_merge_dir(&t2, dir, (variant + threads) & 1, threads, 700 * threads, 0, UINT64_MAX, &b);
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
		par_merge_dir(&t2, dir, EVT_MERGE_TREE, 3, 1000, lo, hi, &b);
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
static void pair_count_check(const char *dir, size_t n, int rc, const char *err);

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

	mktmp(dir, sizeof(dir));
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
	synth(dir, &p, &r);
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

			merge_dir(&t, dir, kind, NULL, &a);
			ck_assert_msg(round == 0 ? a.rc == 0 : a.rc == -1, "round %u: %s", round, a.err);
			pair_count_check(dir, a.n, a.rc, a.err);
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

	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 7;
	p.events = 40000;
	p.subbuf_size = 2048;
	p.num_subbuf = 4;
	p.stall_every = 1500;
	p.stall_len = 1000;
	p.idle = idle;
	p.offline = offline;
	synth(dir, &p, &r);
	ck_assert_uint_gt(r.discarded, 0);
	merge_dir(&t, dir, EVT_MERGE_TREE, NULL, &a);
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
	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 3;
	p.events = 30000;
	p.subbuf_size = 2048;
	p.num_subbuf = 4;
	p.stall_every = 2000;
	p.stall_len = 1500;
	p.overwrite = 1;
	synth(dir, &p, &r);
	ck_assert_uint_gt(r.overwritten, 0);
	merge_dir(&t, dir, EVT_MERGE_LIST, NULL, &a);
	ck_assert_msg(a.rc == 0, "%s", a.err);
	ck_assert_uint_eq(a.n, r.written);
	for (i = 0, gaps = 0; i < t.nr_streams; i++)
		gaps += t.streams[i].seq_gaps;
	ck_assert_uint_gt(gaps, 0);
	merge_dir(&t2, dir, EVT_MERGE_TREE, NULL, &b);
	check_same(&a, &b);
	evt_trace_close(&t);
	evt_trace_close(&t2);
	free(a.ev);
	free(b.ev);

	/* Only some CPUs: the others are not opened. */
	{
		uint8_t set[1] = { 0x5 };	/* CPUs 0 and 2 */
		struct evt_trace_opts o = { .cpu_set = set, .cpu_set_bits = 8 };

		merge_dir(&t, dir, EVT_MERGE_TREE, &o, &a);
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

/*
 * evtrace's metadata for the parser tests (malloc'd, *@len bytes): uuid
 * e77ace00-0102-..., clock offset 1700000000 s + 123 ns, a host name with
 * braces and a key in it (the parsers must take it as a string).
 */
static char *test_metadata(unsigned long *len)
{
	const struct evt_meta_params mp = {
		.uuid = { 0xe7, 0x7a, 0xce, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
		.clock_offset_s = 1700000000, .clock_offset_ns = 123,
		.hostname = "h { offset = 9; }", .kernel_release = "6.1", .tracer_version = "1.0",
	};
	char *text;

	*len = evt_meta_render(NULL, 0, &mp);
	text = malloc(*len + 1);
	ck_assert_ptr_nonnull(text);
	evt_meta_render(text, *len + 1, &mp);
	return text;
}

/* @text with the first @from replaced by @to (malloc'd). */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t tl = strlen(text), fl = strlen(from), nl = strlen(to);
	char *out;

	ck_assert_msg(at != NULL, "no \"%s\" in the metadata", from);
	out = malloc(tl - fl + nl + 1);
	ck_assert_ptr_nonnull(out);
	memcpy(out, text, (size_t)(at - text));
	memcpy(out + (at - text), to, nl);
	strcpy(out + (at - text) + nl, at + fl);
	return out;
}

/*
 * One compact word with id 30: a small header of event 30 in a 0.1 trace,
 * a wide header naming the id in the next word in today's.
 */
START_TEST(compact_id_30_by_header_version)
{
	static const struct evt_event_desc ev[] = {
		{ .name = "e30", .channel = EVT_CHAN_COMPACT, .id = 30 },
		{ .name = "e7", .channel = EVT_CHAN_COMPACT, .id = 7 },
		{ .name = "e400", .channel = EVT_CHAN_COMPACT, .id = 400 },
	};
	/* Five words of events; zeros after them for the compiler's bounds. */
	const uint32_t words[8] = { 30 | 100u << 5, 7, 30 | 200u << 5, 400, 7 | 300u << 5 };
	const size_t end = 5 * 4;
	/* Where each decode starts, after which time, under which header, and what it finds. */
	static const struct {
		int today;
		size_t pos;
		uint64_t prev;
		const char *name;
		uint64_t ts;
		size_t next;
	} step[] = {
		{ 0, 0, 0, "e30", 100, 4 },
		{ 1, 0, 0, "e7", 100, 8 },
		{ 1, 8, 100, "e400", 200, 16 },
		{ 1, 16, 200, "e7", 300, 20 },
	};
	struct evt_catalogue *old = malloc(sizeof(*old)), *now = malloc(sizeof(*now));
	struct evt_decode_err e;
	struct evt_decoded d;
	char err[128];
	unsigned int i;
	size_t next;

	ck_assert_ptr_nonnull(old);
	ck_assert_ptr_nonnull(now);
	ck_assert_int_eq(evt_catalogue_init(old, ev, 3, EVT_COMPACT_NO_WIDE, err, sizeof(err)), 0);
	ck_assert_int_eq(evt_catalogue_init(now, ev, 3, EVT_COMPACT_ID_WIDE, err, sizeof(err)), 0);
	ck_assert_int_eq(evt_catalogue_same(old, now), 0);
	/* 0.1: the first word alone is e30; today: e7 with the wide header, then e400, then e7 small. */
	for (i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		const struct evt_catalogue *cat = step[i].today ? now : old;

		ck_assert_int_eq(evt_decode_event(cat, (const uint8_t *)words, step[i].pos, end, EVT_CHAN_COMPACT,
						  step[i].prev, ~0ULL, &d, &next, &e), 0);
		ck_assert_str_eq(cat->events[EVT_DMETA_DESC(d.meta)].name, step[i].name);
		ck_assert_uint_eq(d.ts, step[i].ts);
		ck_assert_uint_eq(next, step[i].next);
	}
	/* A wide header cut after its first word. */
	ck_assert_int_eq(evt_decode_event(now, (const uint8_t *)words, 8, 12, EVT_CHAN_COMPACT,
					  100, ~0ULL, &d, &next, &e), -1);
	ck_assert_int_eq(e.code, EVT_DERR_WIDE_HDR_TRUNCATED);
	free(old);
	free(now);
}
END_TEST

/*
 * The metadata evtrace writes parses; anything it cannot read as this
 * build's events is refused with what is wrong (each of these printed all
 * 43,148 events of a trace with exit 0).
 */
START_TEST(metadata_parsing)
{
	static const struct {
		const char *from, *to, *says;
	} bad[] = {
		{ "offset_s = 1700000000;", "offset_s = banana;", "offset_s" },
		{ "freq = 1000000000;", "freq = 1000;", "freq" },
		{ "tracer_name = \"evtrace\";", "tracer_name = \"lttng-modules\";",
		  "not an evtrace trace (env.tracer_name is \"lttng-modules\")" },
		{ "env {", "vne {", "no env block" },
		{ "byte_order = le;", "byte_order = be;", "little-endian" },
		{ "major = 1;", "major = 2;", "CTF 1.8" },
		{ "minor = 8;", "minor = 9;", "CTF 1.8" },
		{ "clock {", "klock {", "no clock block" },
		{ "uint32_t magic;", "uint16_t magic;", "line 23: field magic of the packet header is not evtrace's (its type differs)" },
		{ "size = 16; align = 16; signed = false; } := uint16_t;",
		  "size = 16; align = 8; signed = false; } := uint16_t;",
		  "field fill_len of event gen_normal: a type" },
		{ "event {", "", "line 107: expected a declaration, found \"name\"" },
		{ "compact = 0 ... 29, wide = 30, extended = 31", "compact = 0 ... 28, wide = 29, extended = 31",
		  "field id of the stream 0 event header is not evtrace's" },
		{ "uint64_t packet_seq_num;", "uint32_t packet_seq_num;",
		  "field packet_seq_num of the stream 0 packet context is not evtrace's" },
		{ "variant <id>", "variant <v>", "stream 0 event header" },
		{ "stream {\n\tid = 1;", "stream {\n\tid = 2;", "line 100: stream 2: evcat reads evtrace's streams 0" },
		{ "name = \"gen_compact\";", "name = \"gen_ping\";", "line 124: two events are named gen_ping" },
		{ "\tid = 1;\n\tstream_id = 0;", "\tid = 0;\n\tstream_id = 0;",
		  "line 112: events gen_compact and gen_compact_wide have one id (0) in stream 0" },
		{ "name = \"gen_compact\";", "name = \"gen\\\"compact\";", "its name is empty" },
		{ "offset = 123;", "offset = 18446744073709551615;", "beyond 2^64 ns" },
		{ "uuid = \"e77ace00", "uuid = \"e77a", "uuid" },
	};
	unsigned long len;
	char *good = test_metadata(&len), err[256];
	struct evt_metadata md;
	unsigned int i, first_event;

	memset(&md, 0, sizeof(md));
	ck_assert_msg(evt_metadata_parse(good, len, &md, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(md.clock_offset_s, 1700000000);
	ck_assert_uint_eq(md.clock_offset_ns, 123);
	ck_assert_int_eq(md.has_uuid, 1);
	ck_assert_uint_eq(md.uuid[0], 0xe7);
	ck_assert_uint_eq(md.uuid[15], 0x0c);
	ck_assert_ptr_eq(md.cat, evt_builtin);
	ck_assert_uint_eq(md.cat->c_wide_id, EVT_COMPACT_ID_WIDE);
	evt_metadata_free(&md);
	{
		/* evtrace 0.1's compact header (no wide kind): read as such. */
		char *t = replaced(good, "compact = 0 ... 29, wide = 30, extended = 31",
				   "compact = 0 ... 30, extended = 31");
		char *u = replaced(t, "\t\tstruct { uint27_clock_monotonic_t timestamp; uint32a1_t id; } wide;\n", "");

		ck_assert_msg(evt_metadata_parse(u, strlen(u), &md, err, sizeof(err)) == 0, "%s", err);
		ck_assert_ptr_ne(md.cat, evt_builtin);
		ck_assert_uint_eq(md.cat->c_wide_id, EVT_COMPACT_NO_WIDE);
		evt_metadata_free(&md);
		/* Half of it: neither this build's header nor 0.1's. */
		ck_assert_int_eq(evt_metadata_parse(t, strlen(t), &md, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, "stream 0 event header is not evtrace's"), "%s", err);
		free(t);
		free(u);
	}
	ck_assert_int_eq(evt_metadata_parse("hello", 5, &md, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "CTF 1.8"));
	ck_assert_int_eq(evt_metadata_parse("\x57\x1d\xd1\x75rest", 8, &md, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "packetized"));
	/*
	 * Cut anywhere but after a whole event block: refused (every 97 bytes
	 * through the header, blocks and the first events, then about 400
	 * cuts over the syscall events).
	 */
	first_event = (unsigned int)(strstr(good, "\nevent {") - good);
	for (i = 10; i < len; i += i < 6000 ? 97 : (unsigned int)len / 400 + 1) {
		int r = evt_metadata_parse(good, i, &md, err, sizeof(err));
		unsigned int j = i;

		while (j > 0 && isspace((unsigned char)good[j - 1]))
			j--;
		ck_assert_msg(r == -1 || (j > first_event && good[j - 1] == ';' && good[j - 2] == '}'),
			      "cut at %u accepted", i);
		evt_metadata_free(&md);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t = replaced(good, bad[i].from, bad[i].to);

		err[0] = 0;
		ck_assert_msg(evt_metadata_parse(t, strlen(t), &md, err, sizeof(err)) == -1 &&
			      strstr(err, bad[i].says), "%s -> %s: %s", bad[i].from, bad[i].to, err);
		free(t);
	}
	/* Written another way, the same layouts: this build's catalogue. */
	{
		char *a = replaced(good, ":= uint64a32_t;", ":= uint64a32_t;\ntypealias integer { align = 32; "
				   "size = 64; } := my_u64_t; /* { another name } */");
		char *b = replaced(a, "uint64a32_t seq;", "my_u64_t\n\t\tseq ;");
		char *c = replaced(b, "trace {", "// a comment\ntrace{");

		ck_assert_msg(evt_metadata_parse(c, strlen(c), &md, err, sizeof(err)) == 0, "%s", err);
		ck_assert_ptr_eq(md.cat, evt_builtin);
		evt_metadata_free(&md);
		free(a);
		free(b);
		free(c);
	}
	/* Other events: a catalogue of the metadata's own. */
	{
		char *a = replaced(good, "name = \"gen_compact\";", "name = \"gen_kompact\";");
		char *b = replaced(a, "uint64a32_t seq;", "uint64a32_hex_t seq;");
		const struct evt_event_desc *d;

		ck_assert_msg(evt_metadata_parse(b, strlen(b), &md, err, sizeof(err)) == 0, "%s", err);
		ck_assert_ptr_ne(md.cat, evt_builtin);
		ck_assert_uint_eq(md.cat->nr_events, evt_nr_events);
		ck_assert_ptr_null(evt_catalogue_find(md.cat, "gen_compact"));
		d = evt_catalogue_find(md.cat, "gen_kompact");
		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(d->channel, EVT_CHAN_COMPACT);
		ck_assert_uint_eq(d->id, EVT_ID_GEN_COMPACT);
		ck_assert_int_eq(d->fields[1].type, EVT_F_X64);
		ck_assert_uint_eq(md.cat->fixed_len[d - md.cat->events], 12);
		evt_metadata_free(&md);
		ck_assert_ptr_null(md.own);
		free(a);
		free(b);
	}
	free(good);
}
END_TEST

/*
 * The TSDL parser reads evtrace's own metadata back into the catalogue it
 * was rendered from (names, channels, ids, fields and their types), the
 * clock, the trace block, the env and the streams; what evtrace does not
 * write is refused with its line.
 */
START_TEST(tsdl_reads_the_catalogue_back)
{
	static const struct {
		const char *from, *to, *says;
	} bad[] = {
		{ "size = 27;", "size = 99;", "integer attribute size = 99" },
		{ "uint32_t magic;", "float_t magic;", "expected a type, found \"float_t\"" },
		{ "stream_id = 0;", "stream_id = 7;", "stream_id 7" },
		{ "stream_id = 0;", "streamid = 0;", "streamid = 0 is not one evtrace writes" },
		{ "name = \"gen_compact\";", "name = \"gen_compact;", "a string that runs past" },
		{ "uint64a32_t seq;", "uint64_t seq;", "field seq of event gen_compact: a type" },
		{ "char_t prev_comm[16];", "char_t prev_comm[15];", "field prev_comm of event sched_switch: an array" },
		{ "uint16_t fill_len;", "uint32_t fill_len;", "a sequence whose length" },
		{ "struct event_header_compact;", "struct event_header_kompact;", "struct event_header_kompact is not declared" },
		{ "clock {", "clock { name = \"m\"; }; clock {", "a second clock" },
		{ "freq = 1000000000;", "freq = 99999999999999999999;", "beyond 2^64" },
		{ "size = 8; align = 8;", "size = 8; align = 3;", "integer attribute align = 3" },
	};
	unsigned long len;
	char *good = test_metadata(&len), err[256];
	struct evt_tsdl m;
	unsigned int i, j, tracer = 0;

	ck_assert_msg(evt_tsdl_parse(good, len, &m, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(m.major, 1);
	ck_assert_uint_eq(m.minor, 8);
	ck_assert_int_eq(m.big_endian, 0);
	ck_assert_int_eq(m.has_uuid, 1);
	ck_assert_uint_eq(m.uuid[0], 0xe7);
	ck_assert_uint_eq(m.packet_header.nr_fields, 4);
	ck_assert_str_eq(m.packet_header.fields[1].name, "uuid");
	ck_assert_int_eq(m.packet_header.fields[1].is_array, 1);
	ck_assert_int_eq(m.has_clock, 1);
	ck_assert_str_eq(m.clock_name, "monotonic");
	ck_assert_uint_eq(m.clock_freq, 1000000000);
	ck_assert_uint_eq(m.clock_offset_s, 1700000000);
	ck_assert_uint_eq(m.clock_offset, 123);
	for (i = 0; i < m.nr_env; i++)
		tracer |= !strcmp(m.env[i].key, "tracer_name") && !strcmp(m.env[i].value, "evtrace");
	ck_assert_uint_eq(tracer, 1);
	ck_assert_uint_eq(m.nr_streams, 2);
	ck_assert_uint_eq(m.streams[1].id, 1);
	ck_assert_uint_eq(m.streams[0].event_header.nr_fields, 2);
	ck_assert_int_eq(m.streams[0].event_header.fields[0].type.kind, EVT_TSDL_ENUM);
	ck_assert_uint_eq(m.streams[0].event_header.fields[0].type.i.size, 5);
	ck_assert_int_eq(m.streams[0].event_header.fields[1].type.kind, EVT_TSDL_VARIANT);
	ck_assert_uint_eq(m.streams[0].packet_context.nr_fields, 7);
	ck_assert_int_eq(m.streams[0].packet_context.fields[0].type.i.clock, 1);
	ck_assert_uint_eq(m.nr_events, evt_nr_events);
	for (i = 0; i < evt_nr_events; i++) {
		const struct evt_event_desc *a = &evt_events[i], *b = &m.events[i];

		ck_assert_str_eq(b->name, a->name);
		ck_assert_uint_eq(b->channel, a->channel);
		ck_assert_uint_eq(b->id, a->id);
		ck_assert_uint_eq(b->nr_fields, a->nr_fields);
		for (j = 0; j < a->nr_fields; j++) {
			ck_assert_str_eq(b->fields[j].name, a->fields[j].name);
			ck_assert_msg(b->fields[j].type == a->fields[j].type, "%s.%s: %d, not %d", a->name,
				      a->fields[j].name, b->fields[j].type, a->fields[j].type);
		}
	}
	evt_tsdl_free(&m);
	ck_assert_int_eq(evt_tsdl_parse("event { /* x", 12, &m, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "line 1: a comment that is not closed"), "%s", err);
	evt_tsdl_free(&m);
	/* Cut anywhere but at a declaration's end: refused, nothing leaks. */
	for (i = 1; i < len; i += i < 6000 ? 61 : (unsigned int)len / 400 + 1) {
		int r = evt_tsdl_parse(good, i, &m, err, sizeof(err));

		ck_assert_msg(r != 0 || good[i - 1] == ';' || good[i - 1] == '\n' || good[i - 1] == '/',
			      "cut at %u accepted", i);
		evt_tsdl_free(&m);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t = replaced(good, bad[i].from, bad[i].to);

		err[0] = 0;
		ck_assert_msg(evt_tsdl_parse(t, strlen(t), &m, err, sizeof(err)) == -1 &&
			      !strncmp(err, "line ", 5) && strstr(err, bad[i].says),
			      "%s -> %s: %s", bad[i].from, bad[i].to, err);
		evt_tsdl_free(&m);
		free(t);
	}
	free(good);
}
END_TEST

/*
 * The metadata is read to its end whatever a read() returns: a pipe that
 * gives 300 KiB in pieces of 1000 bytes (evdrain used to take one 64 KiB
 * read of the metadata device).
 */
START_TEST(metadata_read_any_size)
{
	const size_t total = 300 * 1024, piece = 1000;
	char *want = malloc(total), *text = NULL, err[256];
	size_t len = 0, i;
	int pfd[2];
	pid_t pid;

	ck_assert_ptr_nonnull(want);
	for (i = 0; i < total; i++)
		want[i] = (char)('a' + i % 26);
	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		for (i = 0; i < total; i += piece)
			if (write(pfd[1], want + i, total - i < piece ? total - i : piece) < 0)
				_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(evt_metadata_read(pfd[0], &text, &len, err, sizeof(err)), 0);
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	ck_assert_uint_eq(len, total);
	ck_assert_int_eq(memcmp(text, want, total), 0);
	ck_assert_int_eq(text[len], 0);
	free(text);
	free(want);
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

	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 1;
	p.events = 2000000;		/* 16 bytes each */
	synth(dir, &p, &r);
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
		mktmp(dir, sizeof(dir));
		evt_synth_defaults(&p);
		p.cpus = 1;
		p.events = 1000;
		synth(dir, &p, &r);
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

	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 6;
	p.events = 60000;
	p.normal_pct = 20;
	synth(dir, &p, &r);
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

	mktmp(dir, sizeof(dir));
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

/* Mostly small bytes: short sequences, NULs for strings. */
static void random_payload(uint8_t *buf, size_t n, uint64_t *rs)
{
	size_t j;

	for (j = 0; j < n; j++) {
		*rs = *rs * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[j] = (uint8_t)((*rs >> 40) % 8 ? (*rs >> 48) % 3 : *rs >> 56);
	}
}

/*
 * The decoder's shortcut for variable-sized events (one variable field, the
 * last) says what walking the fields says, on random payloads.
 */
START_TEST(variable_sizes_match_the_walk)
{
	uint8_t buf[512];
	uint64_t rs = 12345;
	unsigned int di, k, nvar = 0;

	for (di = 0; di < evt_nr_events; di++) {
		const struct evt_event_desc *d = &evt_events[di];

		if (evt_builtin->fixed_len[di] >= 0)
			continue;
		nvar++;
		/* The syscall entries with paths: a few layouts, many events. */
		for (k = 0; k < (d->channel == EVT_CHAN_COMPACT && d->id >= EVT_ID_SYS_UNKNOWN ? 300u : 20000u); k++) {
			size_t avail;
			long walk, fast;

			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			avail = (size_t)(rs >> 33) % sizeof(buf);
			random_payload(buf, sizeof(buf), &rs);
			walk = evt_payload_size(d, buf, avail);
			fast = evt_decode_var_size(evt_builtin, di, buf, avail);
			if (fast > (long)avail)
				fast = -1;
			ck_assert_msg(walk == fast, "%s avail %zu: walk %ld, shortcut %ld", d->name, avail,
				      walk, fast);
		}
	}
	ck_assert_uint_gt(nvar, 2);
}
END_TEST

/*
 * The normal channel's fast steps take an event exactly when the general
 * rules decode it, at the same time and step (random headers and payloads
 * of every normal event: lengths right, off by a little, or any).
 */
START_TEST(normal_fast_steps_match_the_rules)
{
	uint8_t pkt[600];
	uint64_t rs = 777;
	unsigned int di, k, taken = 0;

	for (di = 0; di < evt_nr_events; di++) {
		const struct evt_event_desc *d = &evt_events[di];

		if (d->channel != EVT_CHAN_NORMAL || d->id >= EVT_DECODE_SMALL_IDS)
			continue;
		/* The syscall entries: a few layouts, many events. */
		for (k = 0; k < (d->id >= EVT_ID_SYS_BASE ? 300u : 20000u); k++) {
			struct evt_decoded out;
			struct evt_decode_err e;
			uint64_t ts = 0, step = 0, prev = 1000, tend;
			size_t end, next = 0;
			long right;
			uint32_t len;
			int fast, rules;

			random_payload(pkt, sizeof(pkt), &rs);
			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			end = EVT_NORMAL_HDR + (size_t)(rs >> 33) % (sizeof(pkt) - EVT_NORMAL_HDR);
			right = evt_payload_size(d, pkt + EVT_NORMAL_HDR, end - EVT_NORMAL_HDR);
			/* Mostly the right length, else near it, else anything. */
			len = (rs >> 20) % 4 == 0 ? (uint32_t)(rs >> 40) % 520 :
			      (uint32_t)((right < 0 ? 0 : right) + ((rs >> 24) % 4 == 0 ? (rs >> 28) % 3 - 1 : 0));
			len &= 0xffff;
			memcpy(pkt, &(uint32_t){ d->id | len << 16 }, 4);
			memcpy(pkt + 4, &(uint32_t){ (uint32_t)(rs >> 8) % 2000 }, 4);
			tend = (rs >> 12) % 8 ? UINT64_MAX : 1000 + (rs >> 16) % 2000;
			fast = evt_decode_normal_step(evt_builtin, pkt, pkt + end, prev, tend, &ts, &step) ||
			       evt_decode_normal_var_step(evt_builtin, pkt, pkt + end, prev, tend, &ts, &step);
			rules = !evt_decode_event(evt_builtin, pkt, 0, end, EVT_CHAN_NORMAL, prev, tend, &out,
						  &next, &e);
			/* Layouts the steps do not know go by the rules: never taken wrongly. */
			if (evt_builtin->fixed_len[di] >= 0 || evt_builtin->var_type[di])
				ck_assert_msg(fast == rules, "%s len %u end %zu: fast %d, rules %d", d->name,
					      len, end, fast, rules);
			else
				ck_assert_msg(!fast || rules, "%s: taken by the fast step only", d->name);
			if (fast && rules) {
				ck_assert_uint_eq(ts, out.ts);
				ck_assert_uint_eq(step, next);
				taken++;
			}
		}
	}
	ck_assert_uint_gt(taken, 10000);
}
END_TEST

/* Metadata of exactly EVT_METADATA_MAX bytes is read; one byte more is refused. */
START_TEST(metadata_read_limit)
{
	char path[] = "/tmp/evt-meta-XXXXXX", *text = NULL, err[256];
	size_t len = 0;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, EVT_METADATA_MAX), 0);
	ck_assert_int_eq(evt_metadata_read(fd, &text, &len, err, sizeof(err)), 0);
	ck_assert_uint_eq(len, EVT_METADATA_MAX);
	free(text);
	ck_assert_int_eq(ftruncate(fd, EVT_METADATA_MAX + 1), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(evt_metadata_read(fd, &text, &len, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "larger than 64 MiB"));
	close(fd);
}
END_TEST

/* Every decoding error has its own text, with the file and offset in front. */
START_TEST(decode_errors_have_texts)
{
	char seen[EVT_DERR_NOMEM + 1][600], buf[600];
	int c, d;

	for (c = EVT_DERR_NONE + 1; c <= EVT_DERR_NOMEM; c++) {
		struct evt_decode_err e = { .code = (enum evt_derr)c, .off = 7, .a = 1, .b = 2, .desc = 0 };

		evt_decode_format(seen[c], sizeof(seen[c]), "dir/compact_0", 4096, &e);
		ck_assert_msg(!strncmp(seen[c], "dir/compact_0: offset 4096: ", 28), "%s", seen[c]);
		ck_assert_msg(strlen(seen[c]) > 32, "code %d: %s", c, seen[c]);
		for (d = EVT_DERR_NONE + 1; d < c; d++)
			ck_assert_str_ne(seen[c], seen[d]);
		evt_decode_format(buf, sizeof(buf), NULL, 0, &e);
		ck_assert_msg(!strncmp(buf, "offset 7 in packet: ", 20), "%s", buf);
	}
}
END_TEST

/* ---- Corrupted traces ---- */

struct tfile {
	char name[32];
	uint8_t *buf;
	size_t len;
};

struct tcopy {
	struct tfile f[16];
	unsigned int n;
	char *meta;
	size_t meta_len;
};

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* A small trace in memory: the original of every corruption. */
static void make_original(struct tcopy *c, char *dir, size_t dirlen)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	static const char *names[] = { "compact_0", "normal_0", "compact_1", "normal_1" };
	char path[256];
	unsigned int i;

	mktmp(dir, dirlen);
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 2400;
	p.subbuf_size = 1024;
	p.num_subbuf = 4;
	p.mix = 1;
	p.normal_pct = 20;
	p.period_ns = 30000000;		/* extended headers every few events */
	/* Every corruption writes the files again: their index files would only be said stale (test_pindex.c). */
	p.no_index = 1;
	synth(dir, &p, &r);
	memset(c, 0, sizeof(*c));
	for (i = 0; i < 4; i++) {
		snprintf(c->f[i].name, sizeof(c->f[i].name), "%s", names[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		c->f[i].buf = slurp(path, &c->f[i].len);
		ck_assert_uint_gt(c->f[i].len, 4096);
	}
	c->n = 4;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	c->meta = (char *)slurp(path, &c->meta_len);
}

static void free_original(struct tcopy *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		free(c->f[i].buf);
	free(c->meta);
}

/*
 * Counting two whole-trace readers at once (evt_merged_count_pair: the
 * lanes decode as they merge) gives what the merged pass gave: @n events,
 * then the end, or the error @err (rc -1).
 */
static void pair_count_check(const char *dir, size_t n, int rc, const char *err)
{
	struct evt_trace t, c1, c2;
	struct evt_merged m1, m2;
	uint64_t na, nb;

	if (evt_trace_open(&t, dir, NULL)) {
		ck_assert_int_eq(rc, -1);
		return;
	}
	ck_assert_int_eq(evt_trace_clone(&c1, &t), 0);
	ck_assert_int_eq(evt_trace_clone(&c2, &t), 0);
	ck_assert_int_eq(evt_merged_init(&m1, &c1, EVT_MERGE_TREE), 0);
	ck_assert_int_eq(evt_merged_init(&m2, &c2, EVT_MERGE_TREE), 0);
	evt_merged_count_pair(&m1, &m2, &na, &nb);
	ck_assert_uint_eq(na, n);
	ck_assert_uint_eq(nb, n);
	ck_assert_int_eq(m1.err ? -1 : 0, rc);
	ck_assert_int_eq(m2.err ? -1 : 0, rc);
	if (rc) {
		ck_assert_str_eq(m1.errmsg, err);
		ck_assert_str_eq(m2.errmsg, err);
	}
	evt_merged_free(&m1);
	evt_merged_free(&m2);
	evt_trace_close(&c2);
	evt_trace_close(&c1);
	evt_trace_close(&t);
}

/* Write file @which of @c with @buf/@len instead, merge, return rc and the message. */
static int try_corrupt(const char *dir, const struct tcopy *c, unsigned int which,
		       const uint8_t *buf, size_t len, enum evt_merge_kind kind, char *err, size_t errlen,
		       size_t *events)
{
	struct evt_trace t;
	struct merged m;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		char idx[320];

		spit(dir, c->f[i].name, i == which ? buf : c->f[i].buf, i == which ? len : c->f[i].len);
		/* An index a reader saved of the files before: said stale at every round (test_pindex.c has that). */
		snprintf(idx, sizeof(idx), "%s/" EVT_PIDX_DIR "/%s.idx", dir, c->f[i].name);
		unlink(idx);
	}
	merge_dir(&t, dir, kind, NULL, &m);
	if (m.rc == 0)
		evt_trace_close(&t);
	else if (t.streams)
		evt_trace_close(&t);
	snprintf(err, errlen, "%s", m.err);
	if (events)
		*events = m.n;
	pair_count_check(dir, m.n, m.rc, m.err);
	free(m.ev);
	return m.rc;
}

static void expect_error(const char *dir, const struct tcopy *c, unsigned int which,
			 const uint8_t *buf, size_t len, const char *what, size_t off)
{
	char err[EVT_TRACE_ERRLEN], want[128];
	int kind;

	for (kind = 0; kind < 2; kind++) {
		ck_assert_int_eq(try_corrupt(dir, c, which, buf, len, kind, err, sizeof(err), NULL), -1);
		ck_assert_msg(strstr(err, c->f[which].name), "no file name in \"%s\"", err);
		snprintf(want, sizeof(want), "offset %zu:", off);
		ck_assert_msg(strstr(err, want), "expected \"%s\" in \"%s\"", want, err);
		ck_assert_msg(strstr(err, what), "expected \"%s\" in \"%s\"", what, err);
	}
}

/*
 * Long runs of one compact id (the decoder's fast path) with a packet's
 * timestamp_end cut between two of them: every event before the first
 * late one is delivered, and the error names that one.
 */
START_TEST(late_event_in_a_run)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_packet_iter it;
	struct evt_event ev;
	struct evt_trace t;
	struct merged m;
	struct evt_packet_header *h;
	char dir[64], want[64];
	uint8_t *b;
	size_t len, first, k, cut;
	unsigned int n = 0, kind, i;
	static uint64_t ts[4096];
	static size_t off[4096];

	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 1;
	p.events = 3000;
	p.subbuf_size = 4096;
	p.num_subbuf = 4;
	synth(dir, &p, &r);
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/compact_0", dir);
		b = slurp(path, &len);
	}
	ck_assert_uint_gt(len, 3 * 4096);
	/* Events of packet 0, then packet 1's. */
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, b, 4096), 0);
	while (evt_packet_next(&it, &ev) == 1)
		n++;
	first = n;
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, b + 4096, 4096), 0);
	for (n = 0; n < 4096 && evt_packet_next(&it, &ev) == 1; n++) {
		ts[n] = ev.ts;
		off[n] = ev.offset;
	}
	ck_assert_uint_gt(n, 100);
	for (cut = n / 2 + 7; cut + 1 < n && ts[cut + 1] == ts[cut]; cut++)
		;
	ck_assert_uint_lt(cut + 1, n);
	for (k = cut + 1; ts[k] <= ts[cut]; k++)
		;
	h = (struct evt_packet_header *)(b + 4096);
	h->timestamp_end = ts[cut];
	spit(dir, "compact_0", b, len);
	snprintf(want, sizeof(want), "offset %zu:", 4096 + off[k]);
	for (kind = 0; kind < 2; kind++) {
		merge_dir(&t, dir, kind, NULL, &m);
		ck_assert_int_eq(m.rc, -1);
		ck_assert_msg(strstr(m.err, want) && strstr(m.err, "after the packet's timestamp_end"),
			      "expected \"%s\" in \"%s\"", want, m.err);
		ck_assert_uint_eq(m.n, first + k);
		for (i = 0; i < k; i++)
			ck_assert_uint_eq(m.ev[first + i].ts, ts[i]);
		pair_count_check(dir, m.n, m.rc, m.err);
		evt_trace_close(&t);
		free(m.ev);
	}
	free(b);
	unit_rmtree(dir);
}
END_TEST

START_TEST(corrupt_traces_give_errors)
{
	struct tcopy c;
	char dir[64], err[EVT_TRACE_ERRLEN];
	uint8_t *b;
	size_t len, n_ok, n_bad;
	struct evt_packet_header *h;

	make_original(&c, dir, sizeof(dir));
	len = c.f[0].len;
	b = malloc(len + 64);

	/* Intact: no error, and the count of events of reference. */
	ck_assert_int_eq(try_corrupt(dir, &c, 99, NULL, 0, EVT_MERGE_TREE, err, sizeof(err), &n_ok), 0);

	/* Truncated: the last packet is partial. */
	memcpy(b, c.f[0].buf, len);
	expect_error(dir, &c, 0, b, len - 100, "truncated packet", len - 1024);
	/* Truncated inside the packet header. */
	expect_error(dir, &c, 0, b, len - 1024 + 40, "truncated packet header", len - 1024);
	/* The events before the error are all delivered. */
	ck_assert_int_eq(try_corrupt(dir, &c, 0, b, len - 100, EVT_MERGE_TREE, err, sizeof(err), &n_bad), -1);
	ck_assert_uint_gt(n_bad, 0);
	ck_assert_uint_lt(n_bad, n_ok);

	/* Wrong magic in the third packet. */
	memcpy(b, c.f[0].buf, len);
	b[2048] ^= 0x10;
	expect_error(dir, &c, 0, b, len, "bad magic", 2048);

	/* Bad sizes: content beyond the packet, packet size not in bytes, huge, tiny. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + 1024);
	h->content_size = h->packet_size + 8;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_size = 1024 * 8 + 3;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_size = 1ULL << 62;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_size = 16 * 8;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	/* A larger packet that runs past the end of the file. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + len - 1024);
	h->packet_size = 2048 * 8;
	expect_error(dir, &c, 0, b, len, "truncated packet", len - 1024);

	/* A packet of another stream, of another CPU, out of sequence, time going back. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + 1024);
	h->stream_id = 1;
	expect_error(dir, &c, 0, b, len, "packet of stream 1", 1024);
	memcpy(b, c.f[0].buf, len);
	h->cpu_id = 5;
	expect_error(dir, &c, 0, b, len, "cpu_id 5", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_seq_num = 0;
	expect_error(dir, &c, 0, b, len, "packet_seq_num", 1024);
	memcpy(b, c.f[0].buf, len);
	h->events_discarded = 0;
	((struct evt_packet_header *)b)->events_discarded = 5;
	expect_error(dir, &c, 0, b, len, "events_discarded", 1024);
	memcpy(b, c.f[0].buf, len);
	h->timestamp_begin = 1;
	expect_error(dir, &c, 0, b, len, "timestamp_begin", 1024);
	memcpy(b, c.f[0].buf, len);
	h->timestamp_end = h->timestamp_begin - 1;
	expect_error(dir, &c, 0, b, len, "timestamp_end", 1024);
	memcpy(b, c.f[0].buf, len);
	h->uuid[3] ^= 1;
	expect_error(dir, &c, 0, b, len, "uuid", 1024);

	/* An unknown event id, named with its offset. */
	memcpy(b, c.f[0].buf, len);
	b[1024 + EVT_PACKET_HEADER_SIZE] = (uint8_t)((b[1024 + EVT_PACKET_HEADER_SIZE] & ~31) | 29);
	expect_error(dir, &c, 0, b, len, "unknown event id 29", 1024 + EVT_PACKET_HEADER_SIZE);
	/* An event timestamp past the packet's end. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + 1024);
	h->timestamp_end = h->timestamp_begin;
	{
		char e2[EVT_TRACE_ERRLEN];

		ck_assert_int_eq(try_corrupt(dir, &c, 0, b, len, EVT_MERGE_LIST, e2, sizeof(e2), NULL), -1);
		ck_assert_ptr_nonnull(strstr(e2, "after the packet's timestamp_end"));
	}
	/*
	 * timestamp_end between two events in the middle of a packet: the
	 * error names the first event after it (the compact fast path checks
	 * a run's last event and goes back to the first late one).
	 */
	{
		struct evt_packet_iter it;
		struct evt_event ev;
		uint64_t ts[2048];
		size_t off[2048], k, cut;
		unsigned int n = 0;

		memcpy(b, c.f[0].buf, len);
		ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, b + 1024, 1024), 0);
		while (n < 2048 && evt_packet_next(&it, &ev) == 1) {
			ts[n] = ev.ts;
			off[n++] = ev.offset;
		}
		ck_assert_uint_gt(n, 8);
		for (cut = n / 2; cut + 1 < n && ts[cut + 1] == ts[cut]; cut++)
			;
		ck_assert_uint_lt(cut + 1, n);
		h = (struct evt_packet_header *)(b + 1024);
		h->timestamp_end = ts[cut];
		for (k = cut + 1; k < n && ts[k] <= ts[cut]; k++)
			;
		expect_error(dir, &c, 0, b, len, "after the packet's timestamp_end", 1024 + off[k]);
	}
	/* A normal event whose header size disagrees with its fields. */
	memcpy(b, c.f[1].buf, c.f[1].len);
	b[EVT_PACKET_HEADER_SIZE + 2] ^= 1;
	expect_error(dir, &c, 1, b, c.f[1].len, "header says", EVT_PACKET_HEADER_SIZE);

	/* Metadata: missing, not CTF. */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/metadata", dir);
		ck_assert_int_eq(unlink(path), 0);
		ck_assert_int_eq(try_corrupt(dir, &c, 99, NULL, 0, EVT_MERGE_TREE, err, sizeof(err), NULL), -1);
		ck_assert_ptr_nonnull(strstr(err, "metadata"));
		spit(dir, "metadata", "garbage", 7);
		ck_assert_int_eq(try_corrupt(dir, &c, 99, NULL, 0, EVT_MERGE_TREE, err, sizeof(err), NULL), -1);
		ck_assert_ptr_nonnull(strstr(err, "CTF 1.8"));
		spit(dir, "metadata", c.meta, c.meta_len);
	}
	free(b);
	free_original(&c);
	unit_rmtree(dir);
}
END_TEST

/* Random byte flips, truncations and bad sizes: an error or a clean read, never a crash. */
START_TEST(corrupt_random_flips_never_crash)
{
	struct tcopy c;
	char dir[64], err[EVT_TRACE_ERRLEN];
	unsigned int round, errors = 0;
	uint8_t *b;

	size_t most = 0;

	rng_state = 0xabcdef + (uint64_t)_i;
	make_original(&c, dir, sizeof(dir));
	/* As big as the biggest of the files (any of them is copied into it). */
	for (round = 0; round < c.n; round++)
		most = c.f[round].len > most ? c.f[round].len : most;
	b = malloc(most);
	for (round = 0; round < 120; round++) {
		unsigned int which = (unsigned int)(rnd() % c.n), flips = 1 + (unsigned int)(rnd() % 6), i;
		size_t len = c.f[which].len, nseq;
		int rc;

		memcpy(b, c.f[which].buf, len);
		for (i = 0; i < flips && len; i++) {
			size_t pos = rnd() % len;

			switch (rnd() % 4) {
			case 0:		/* anywhere */
				b[pos] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			case 1:		/* in a packet header */
				b[(pos & ~(size_t)1023) | (rnd() % EVT_PACKET_HEADER_SIZE)] = (uint8_t)rnd();
				break;
			case 2:		/* an event header's id/timestamp bits */
				b[(pos & ~(size_t)3) | 0] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			default:	/* cut the file */
				len = pos;
				break;
			}
		}
		rc = try_corrupt(dir, &c, which, b, len, round & 1, err, sizeof(err), &nseq);
		if (rc) {
			errors++;
			ck_assert_msg(strstr(err, "offset "), "no offset in \"%s\"", err);
			ck_assert_msg(strstr(err, c.f[which].name), "no file in \"%s\"", err);
		}
		/* On threads, in slices: the same events before the same error. */
		if (round % 3 == 0) {
			struct evt_trace t;
			struct merged m;

			par_merge_dir(&t, dir, round & 1, 3, 900, 0, UINT64_MAX, &m);
			ck_assert_int_eq(m.rc, rc);
			ck_assert_uint_eq(m.n, nseq);
			if (rc)
				ck_assert_str_eq(m.err, err);
			if (t.dir)
				evt_trace_close(&t);
			free(m.ev);
		}
	}
	/* Most corruptions are caught (flipping a payload byte is not an error). */
	ck_assert_uint_gt(errors, 30);
	free(b);
	free_original(&c);
	unit_rmtree(dir);
}
END_TEST

START_TEST(empty_and_odd_directories)
{
	struct evt_trace t;
	struct merged m;
	char dir[64];

	mktmp(dir, sizeof(dir));
	/* No such directory. */
	merge_dir(&t, "/nonexistent/evt", EVT_MERGE_TREE, NULL, &m);
	ck_assert_int_eq(m.rc, -1);
	ck_assert_ptr_nonnull(strstr(m.err, "/nonexistent/evt"));
	/* Empty streams: no events, no error. Other files are not streams. */
	{
		struct evt_synth_params p;
		struct evt_synth_result r;

		evt_synth_defaults(&p);
		p.cpus = 1;
		p.events = 0;
		synth(dir, &p, &r);
	}
	spit(dir, "held.bin", "xx", 2);
	spit(dir, "notes", "xx", 2);
	merge_dir(&t, dir, EVT_MERGE_TREE, NULL, &m);
	ck_assert_msg(m.rc == 0, "%s", m.err);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_uint_eq(t.nr_streams, 2);
	evt_trace_close(&t);
	free(m.ev);
	/*
	 * What looks like a stream and is not one is refused, never skipped
	 * (its events were left out without a word: 28,831 of 43,148).
	 */
	{
		static const char *const odd[] = { "compact_01", "normal_99999999", "compact_8192",
						   "compact_1.bak", "normal_" };
		char path[128];
		unsigned int i;

		for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			spit(dir, odd[i], "xx", 2);
			ck_assert_int_eq(evt_trace_open(&t, dir, NULL), -1);
			ck_assert_msg(strstr(t.err, odd[i]) && strstr(t.err, "not a stream file name"),
				      "%s", t.err);
			snprintf(path, sizeof(path), "%s/%s", dir, odd[i]);
			ck_assert_int_eq(unlink(path), 0);
		}
		/* No stream at all: an error that says what the directory holds. */
		for (i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, i ? "normal_0" : "compact_0");
			ck_assert_int_eq(unlink(path), 0);
		}
		ck_assert_int_eq(evt_trace_open(&t, dir, NULL), -1);
		ck_assert_msg(strstr(t.err, "no stream files") && strstr(t.err, "held.bin") &&
			      strstr(t.err, "metadata"), "%s", t.err);
	}
	unit_rmtree(dir);
}
END_TEST

/* ---- Formatting ---- */

START_TEST(format_numbers_and_escapes)
{
	static const uint64_t vals[] = {
		0, 1, 9, 10, 99, 100, 999999999, 1000000000, 4294967295ULL, 4294967296ULL,
		9999999999999999999ULL, 10000000000000000000ULL, UINT64_MAX,
		/* put_u64's 64-bit steps (4 digits) meeting its 32-bit ones */
		42949672950000ULL, 42949672959999ULL, 42949672960000ULL, 429496729600001ULL,
	};
	char buf[32], want[32];
	unsigned int i;
	uint64_t v;
	struct evt_fmt f;
	struct evt_out o;
	const struct evt_event_desc *marker = evt_find_event_by_name("marker");
	const struct evt_event_desc *sw = evt_find_event_by_name("sched_switch");
	const struct evt_event_desc *ex = evt_find_event_by_name("exit_syscall");
	uint8_t pl[128];
	int32_t tid = -42;
	int64_t ret = -9000000000LL;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		buf[evt_fmt_u64(buf, vals[i])] = 0;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)vals[i]);
		ck_assert_str_eq(buf, want);
	}
	for (v = 1; v < (1ULL << 62); v = v * 7 + 3) {
		buf[evt_fmt_u64(buf, v)] = 0;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		ck_assert_str_eq(buf, want);
	}
	ck_assert_ptr_nonnull(marker);
	ck_assert_ptr_nonnull(sw);
	ck_assert_ptr_nonnull(ex);
	/* Text and JSON, in memory; realtime = clock + 1700000000 s. */
	ck_assert_int_eq(evt_out_init(&o, -1, 4096), 0);
	ck_assert_int_eq(evt_fmt_init(&f, EVT_FMT_TEXT, 1700000000ULL * 1000000000ULL, evt_events, evt_nr_events), 0);
	memcpy(pl, &tid, 4);
	memcpy(pl + 4, "a\"b\\c\nd\xff", 9);
	pl[13] = 0;
	ck_assert_int_eq(evt_fmt_event(&f, &o, 5, 3, marker, pl, 14, 0), 0);
	memset(pl, 0, sizeof(pl));
	memcpy(pl, "swapper/0", 9);				/* prev_comm */
	memcpy(pl + 16, &tid, 4);
	memcpy(pl + 28, "0123456789abcdef", 16);		/* next_comm: no NUL */
	ck_assert_int_eq(evt_fmt_event(&f, &o, 1000000007, 0, sw, pl, 56, EVT_FMT_LATE), 0);
	memcpy(pl, &tid, 4);
	memcpy(pl + 4, &ret, 8);
	ck_assert_int_eq(evt_fmt_event(&f, &o, 1000000006, 1, ex, pl, 12, 0), 0);
	ck_assert_int_eq(evt_out_room(&o, 1) != NULL, 1);
	o.buf[o.len] = 0;
	ck_assert_str_eq(o.buf,
		"[22:13:20.000000005] (+?.?????????" ") cpu 3 marker: { tid = -42, text = \"a\\\"b\\\\c\\nd\\xff\" }\n"
		"[22:13:21.000000007] (+1.000000002) cpu 0 sched_switch: { prev_comm = \"swapper/0\", "
		"prev_tid = -42, prev_prio = 0, prev_state = R, next_comm = \"0123456789abcdef\", "
		"next_tid = 0, next_prio = 0 } (late)\n"
		"[22:13:21.000000006] (-0.000000001) cpu 1 exit_syscall: { id = -42, ret = -9000000000 }\n");
	evt_fmt_free(&f);
	/* evcat's task column: a name is whatever the thread chose, escaped like every string. */
	{
		char task[EVT_FMT_TASK_MAX + 1];
		size_t n = evt_fmt_task(task, EVT_FMT_TEXT, 7, 7, "a\x1b[2J\n\xc2\x9b");

		task[n] = 0;
		ck_assert_str_eq(task, "a\\x1b[2J\\n\\xc2\\x9b/7");
		n = evt_fmt_task(task, EVT_FMT_JSON, 7, -1, "a\"\x1b\xc2\x9b");
		task[n] = 0;
		ck_assert_str_eq(task, ",\"tid\":7,\"pid\":null,\"comm\":\"a\\\"\\u001b\\u009b\"");
		n = evt_fmt_task(task, EVT_FMT_TEXT, -1, -1, "");
		task[n] = 0;
		ck_assert_str_eq(task, "?/?");
		/* Every byte value alone in a name, against the rule written out here (put_esc's table). */
		for (i = 1; i < 256; i++) {
			const char comm[2] = { (char)i, 0 };
			char exp[16];

			if (i == '\n' || i == '\t')
				snprintf(exp, sizeof(exp), "\\%c/7", i == '\n' ? 'n' : 't');
			else if (i >= 0x20 && i < 0x7f)
				snprintf(exp, sizeof(exp), "%c/7", i);
			else
				snprintf(exp, sizeof(exp), "\\x%02x/7", i);
			n = evt_fmt_task(task, EVT_FMT_TEXT, 7, 7, comm);
			task[n] = 0;
			ck_assert_str_eq(task, exp);
		}
		/* The CPU after the task, three digits at least. */
		n = evt_fmt_cpu(task, 0);
		n += evt_fmt_cpu(task + n, 7);
		n += evt_fmt_cpu(task + n, 123);
		n += evt_fmt_cpu(task + n, 4095);
		task[n] = 0;
		ck_assert_str_eq(task, " [000] [007] [123] [4095]");
	}
	o.len = 0;
	ck_assert_int_eq(evt_fmt_init(&f, EVT_FMT_JSON, 1700000000ULL * 1000000000ULL, evt_events, evt_nr_events), 0);
	memcpy(pl, &tid, 4);
	memcpy(pl + 4, "a\"b\\c\nd\xff", 9);
	pl[13] = 0;
	ck_assert_int_eq(evt_fmt_event(&f, &o, 5, 3, marker, pl, 14, EVT_FMT_LATE), 0);
	ck_assert_int_eq(evt_out_room(&o, 1) != NULL, 1);
	o.buf[o.len] = 0;
	ck_assert_str_eq(o.buf,
		"{\"ts\":5,\"time\":\"2023-11-14T22:13:20.000000005Z\",\"cpu\":3,\"event\":\"marker\","
		"\"fields\":{\"tid\":-42,\"text\":\"a\\\"b\\\\c\\nd\\u00ff\"},\"late\":true}\n");
	/*
	 * UTF-8 in JSON: well-formed sequences as they are (they were each
	 * byte's \u00XX: mojibake), any other byte \u00XX: a cut sequence, a
	 * stray continuation, an overlong form, a surrogate, beyond U+10FFFF.
	 */
	o.len = 0;
	{
		static const char text[] = "\xe2\x82\xac \xc3\xa9 \xf0\x9f\x90\xa7 \xe2\x82x \x80 "
					   "\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82";

		memcpy(pl, &tid, 4);
		memcpy(pl + 4, text, sizeof(text));
		ck_assert_int_eq(evt_fmt_event(&f, &o, 5, 3, marker, pl, 4 + sizeof(text), 0), 0);
	}
	ck_assert_int_eq(evt_out_room(&o, 1) != NULL, 1);
	o.buf[o.len] = 0;
	ck_assert_str_eq(o.buf,
		"{\"ts\":5,\"time\":\"2023-11-14T22:13:20.000000005Z\",\"cpu\":3,\"event\":\"marker\","
		"\"fields\":{\"tid\":-42,\"text\":\"\xe2\x82\xac \xc3\xa9 \xf0\x9f\x90\xa7 \\u00e2\\u0082x "
		"\\u0080 \\u00c0\\u00af \\u00ed\\u00a0\\u0080 \\u00f4\\u0090\\u0080\\u0080 "
		"\\u00e2\\u0082\"}}\n");
	evt_fmt_free(&f);
	evt_out_free(&o);
	/*
	 * A lone string in a document (evdrain's --stats-json directory): the
	 * value evcat's rows give it (a byte outside UTF-8 is U+00XX), ASCII
	 * only, DEL escaped like the controls.
	 */
	{
		char *q = NULL;
		size_t n = 0;
		FILE *mf = open_memstream(&q, &n);

		ck_assert_ptr_nonnull(mf);
		ck_assert_int_eq(evt_json_write(mf, json_pack("{s:o}", "dir", evt_json_str("/tmp/q\"d\\\x01\x7f\xc3\xa9\xff\xc2\x9b")),
						JSON_COMPACT), 0);
		ck_assert_int_eq(fclose(mf), 0);
		ck_assert_str_eq(q, "{\"dir\":\"/tmp/q\\\"d\\\\\\u0001\\u007f\\u00E9\\u00FF\\u009B\"}\n");
		free(q);
	}
}
END_TEST

/* ---- evcat ---- */

static char evcat_path[1024];

static int have_evcat(void)
{
	char self[900];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return 0;
	self[n] = 0;
	/* build/tests/unit(-san) -> build/bin/evcat */
	slash = strrchr(self, '/');
	if (!slash)
		return 0;
	*slash = 0;
	snprintf(evcat_path, sizeof(evcat_path), "%s/../bin/evcat", self);
	return access(evcat_path, X_OK) == 0;
}

/*
 * The evcat tests need build/bin/evcat beside the unit binary (make builds
 * both): without it they fail, never pass without having looked.
 */
static void require_evcat(void)
{
	ck_assert_msg(have_evcat(), "no evcat at %s (the unit tests run from build/tests/, beside build/bin/)",
		      evcat_path);
}

/* Run a shell command; its stdout (malloc'd) and exit status. */
static char *sh(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 16, len = 0, n;
	char *out = malloc(cap);
	int st;

	ck_assert_ptr_nonnull(p);
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap)
			out = realloc(out, cap *= 2);
	}
	out[len] = 0;
	st = pclose(p);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return out;
}

static uint64_t sh_u64(const char *cmd)
{
	int st;
	char *out = sh(cmd, &st);
	uint64_t v = strtoull(out, NULL, 10);

	ck_assert_msg(st == 0, "%s: exit %d: %s", cmd, st, out);
	free(out);
	return v;
}

/*
 * Bad input, plain and under the sanitizers (a leak on an error path made
 * the sanitized evcat exit 1 instead of 2): each case's exit status and a
 * word of its message. Numbers that wrapped (a --from beyond 2^64 ns read
 * every event), names that were skipped and directories that counted 0
 * with exit 0 are errors.
 */
START_TEST(evcat_refuses_bad_input)
{
	static const struct {
		const char *args;	/* after DIR (a good trace) */
		const char *dir;	/* another directory, from @dirs */
		int status;
		const char *says;
	} cases[] = {
		{ "--cpu 3-1", NULL, 2, "goes down" },
		{ "--event nosuch", NULL, 2, "the trace has no event \"nosuch\"\nevcat: its events include:\n  gen_compact\n" },
		{ "--event sched_swtch", NULL, 2, "names with \"sched\" in them:\n  sched_switch\n" },
		{ "--from @36893488147419103232 --count", NULL, 2, "beyond the trace clock" },
		{ "--from @18446744073709551616 --count", NULL, 2, "beyond the trace clock" },
		{ "--to +18446744074 --count", NULL, 2, "beyond the trace clock" },
		{ "--from 99999999999 --count", NULL, 2, "beyond the trace clock" },
		{ "--slice-bytes 0 --count", NULL, 2, "--slice-bytes needs a size from 1" },
		{ "--threads 257 --count", NULL, 2, "--threads needs a whole number from 1 to 256" },
		{ "--cpu 7 --count", NULL, 1, "no stream file of the CPUs asked for (it has CPUs 0-1)" },
		{ "--count", "meta-only", 1, "no stream files" },
		{ "--count", "odd-name", 1, "compact_00: not a stream file name" },
		{ "--count", "ctl-bytes", 1, "line 55: a character TSDL does not use: 0x01" },
		{ "--count", "offset", 1, "beyond 2^64 ns" },
	};
	const char *const bins[] = { "bin/evcat", "tests/bin/evcat-san" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], other[128], cmd[2560], build[900];
	ssize_t n = readlink("/proc/self/exe", build, sizeof(build) - 1);
	unsigned int i, b;
	int ran = 0;

	require_evcat();
	ck_assert_msg(n > 0, "cannot read /proc/self/exe");
	/* BUILD/tests/unit(-san): BUILD is two components up. */
	build[n] = 0;
	*strrchr(build, '/') = 0;
	*strrchr(build, '/') = 0;
	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 2000;
	synth(dir, &p, &r);
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; mkdir meta-only odd-name ctl-bytes offset; cp metadata meta-only/;"
		 "cp metadata compact_0 normal_0 odd-name/; mv odd-name/compact_0 odd-name/compact_00;"
		 "for d in ctl-bytes offset; do cp metadata compact_0 normal_0 $d/; done;"
		 "sed -i 's/offset_s = [0-9]*;/offset_s = 1\x01;/' ctl-bytes/metadata;"
		 "sed -i 's/offset_s = [0-9]*;/offset_s = 18446744073;/; s/offset = [0-9]*;/offset = 709551616;/'"
		 " offset/metadata", dir);
	ck_assert_int_eq(system(cmd), 0);
	for (b = 0; b < 2; b++) {
		char bin[1024];

		snprintf(bin, sizeof(bin), "%.900s/%s", build, bins[b]);
		if (access(bin, X_OK)) {
			ck_assert_msg(b == 1, "no %s", bin);
			continue;
		}
		ran++;
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char *out;
			int st;

			snprintf(other, sizeof(other), "%s/%s", dir, cases[i].dir ? cases[i].dir : "");
			snprintf(cmd, sizeof(cmd), "'%s' '%s' %s 2>&1 >/dev/null", bin, other, cases[i].args);
			out = sh(cmd, &st);
			ck_assert_msg(st == cases[i].status && strstr(out, cases[i].says),
				      "%s: exit %d (want %d): %s", cmd, st, cases[i].status, out);
			ck_assert_msg(!strstr(out, "Sanitizer"), "%s: %s", cmd, out);
			free(out);
		}
	}
	ck_assert_int_ge(ran, 1);
	unit_rmtree(dir);
}
END_TEST

/*
 * Stream files cut while evcat reads them (evcat blocked on a full pipe,
 * then every file truncated): an error naming the file, exit 1 (it was
 * SIGBUS, exit 135, no message), with the threads and with one.
 */
START_TEST(evcat_file_cut_while_read)
{
	/* Small slices: the threads format a slice's lines ahead, a window of them, in memory. */
	const char *const modes[] = { "--threads 2 --slice-bytes 65536", "--threads 1" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], copy[80], cmd[4096];
	unsigned int i;

	require_evcat();
	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 400000;
	synth(dir, &p, &r);
	snprintf(copy, sizeof(copy), "%s/cut", dir);
	for (i = 0; i < 2; i++) {
		char *out;
		int st;

		snprintf(cmd, sizeof(cmd),
			 "set -e; rm -rf '%s'; mkdir '%s'; cp '%s'/metadata '%s'/compact_* '%s'/normal_* '%s'/;"
			 "cd '%s'; { set +e; '%s' . %s 2> err; echo $? > status; } |"
			 " { sleep 1; truncate -s 0 compact_* normal_*; cat > /dev/null; }; cat status err",
			 copy, copy, dir, dir, dir, copy, copy, evcat_path, modes[i]);
		out = sh(cmd, &st);
		ck_assert_msg(st == 0 && !strncmp(out, "1\n", 2) &&
			      strstr(out, "the file was cut while it was read") && strstr(out, "_0: ") ,
			      "%s: %s", modes[i], out);
		free(out);
	}
	unit_rmtree(dir);
}
END_TEST

/* evcat's loss warnings of @dir with @opts, as "STREAM N KIND FROM TO" sorted (KIND events or packets). */
static char *evcat_losses(const char *dir, const char *opts, int *status)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "'%.900s' '%.200s' %.200s 2>&1 >/dev/null | sed -nE 's/^evcat: warning: CPU [0-9]+ \\(([^)]*)\\): "
		 "([0-9]+) (events discarded|packets lost) between \\[([^]]*)\\] and \\[([^]]*)\\]$/\\1 \\2 \\3 \\4 \\5/p' |"
		 " sed -E 's/ events discarded / events /; s/ packets lost / packets /' | LC_ALL=C sort; "
		 "exit $(( $('%.900s' '%.200s' %.200s >/dev/null 2>&1; echo $?) ))", evcat_path, dir, opts, evcat_path, dir,
		 opts);
	return sh(cmd, status);
}

/*
 * Losses are never silent: evcat says each lost range on standard error,
 * as babeltrace2 does (the stream, how many events or packets, from and
 * to), in every output format and on threads or one; --fail-on-loss exits
 * 7 after printing, and a range that holds no loss is not warned about.
 * Before issue 43 evcat printed the events of such a trace and said
 * nothing (exit 0, empty standard error).
 */
START_TEST(evcat_says_losses)
{
	static const char *const formats[] = { "", "--threads 1", "--format json", "--count", "--stats",
					       "--format json --stats --threads 3 --slice-bytes 5000" };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], kdir[80], cmd[2048];
	unsigned int ow, i;

	require_evcat();
	for (ow = 0; ow < 2; ow++) {
		char *want, *got;
		int st;

		mktmp(dir, sizeof(dir));
		evt_synth_defaults(&p);
		p.kernel = 1;
		p.events = 60000;
		p.stall_every = 6000;
		p.overwrite = ow;
		synth(dir, &p, &r);
		snprintf(kdir, sizeof(kdir), "%s/kernel", dir);
		snprintf(cmd, sizeof(cmd), "TZ=UTC babeltrace2 '%s' 2>&1 >/dev/null | sed -nE 's#^WARNING: Tracer discarded "
			 "([0-9]+) (events|packets) between \\[([^]]*)\\] and \\[([^]]*)\\].* within stream \"[^\"]*/"
			 "([^\"/]*)\".*#\\5 \\1 \\2 \\3 \\4#p' | LC_ALL=C sort", kdir);
		want = sh(cmd, &st);
		ck_assert_msg(st == 0 && strchr(want, '\n') && strchr(want, '\n')[1], "babeltrace2 warns: %s", want);
		got = evcat_losses(kdir, "", &st);
		ck_assert_msg(st == 0, "evcat exits %d without --fail-on-loss", st);
		ck_assert_str_eq(got, want);
		free(got);
		/* Every format says them (JSON with whole UTC dates): the streams and counts. */
		for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			char opts[200], *a, *b;

			snprintf(opts, sizeof(opts), "%s --fail-on-loss", formats[i]);
			got = evcat_losses(kdir, opts, &st);
			ck_assert_msg(st == 7, "%s: exit %d, not 7", opts, st);
			snprintf(cmd, sizeof(cmd), "printf '%%s' '%s' | cut -d' ' -f1-3", got);
			a = sh(cmd, &st);
			snprintf(cmd, sizeof(cmd), "printf '%%s' '%s' | cut -d' ' -f1-3", want);
			b = sh(cmd, &st);
			ck_assert_msg(!strcmp(a, b), "%s: evcat warns\n%s, babeltrace2\n%s", opts, a, b);
			free(a);
			free(b);
			free(got);
		}
		/* A range before the first loss: nothing to say, nothing to fail on. */
		got = evcat_losses(kdir, "--to +0.001 --fail-on-loss", &st);
		ck_assert_msg(st == 0 && !*got, "--to +0.001: exit %d, warns %s", st, got);
		free(got);
		free(want);
		unit_rmtree(dir);
	}
}
END_TEST

/*
 * Every line says which task ran, an exit its syscall, a switch its
 * prev_state in letters; the selections by task, event glob and field:
 * all against tests/tools/evcat-ctx-check.py's own computation from the
 * events, byte for byte, on one thread and on several, on a trace with
 * losses. Before issue 43 a line said "cpu N" alone (the check fails on
 * every event) and --event 'sys_*' was refused.
 */
START_TEST(evcat_context_against_reference)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], cmd[2048], *out;
	int st, mix;

	require_evcat();
	for (mix = 0; mix < 2; mix++) {
		mktmp(dir, sizeof(dir));
		evt_synth_defaults(&p);
		/*
		 * A kernel's trace, and every event kind with random fields (tids
		 * negative, names empty, exits of random numbers: what a damaged
		 * trace may say).
		 */
		p.kernel = !mix;
		p.mix = mix;
		p.normal_pct = mix ? 20 : 0;
		p.events = mix ? 20000 : 60000;
		p.stall_every = mix ? 3000 : 8000;
		if (mix) {
			p.stall_len = 2500;
			p.subbuf_size = 4096;
			p.num_subbuf = 4;
		}
		synth(dir, &p, &r);
		ck_assert_uint_gt(r.discarded, 0);
		snprintf(cmd, sizeof(cmd), "python3 tests/tools/evcat-ctx-check.py '%s' '%s%s' 2>&1", evcat_path, dir,
			 mix ? "" : "/kernel");
		out = sh(cmd, &st);
		ck_assert_msg(st == 0, "%s:\n%s", cmd, out);
		free(out);
		unit_rmtree(dir);
	}
}
END_TEST

/*
 * On threads, a slice starts in the middle: before the first switch on
 * each CPU (its task known only from the slices before), inside syscalls
 * (an exit's name from an entry before it), and threads renamed on the
 * way (exec, wakeups and switches naming them). Its lines are resolved on
 * the main thread against what came before; they must be one thread's,
 * byte for byte, text and JSON, at slice sizes from a few events a CPU
 * to thousands. The mixed trace is also damaged (random tids: a task on
 * two CPUs at once, switches whose prev_tid is not the task running):
 * before the fix at 100000 slice bytes on bench-merge's mix trace an exit
 * lost its syscall's name, and smaller slices named another syscall.
 */
START_TEST(evcat_threads_print_what_one_thread_prints)
{
	static const char *const fmts[] = { "", "--format json" };
	static const unsigned int slices[] = { 600, 2500, 9000, 40000 };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], trace[128], cmd[4096], *one, *many;
	unsigned int kind, f, i;
	int st;

	require_evcat();
	for (kind = 0; kind < 2; kind++) {
		mktmp(dir, sizeof(dir));
		evt_synth_defaults(&p);
		p.kernel = !kind;
		p.mix = kind;
		p.cpus = kind ? 8 : 4;
		p.events = kind ? 200000 : 40000;
		synth(dir, &p, &r);
		snprintf(trace, sizeof(trace), "%s%s", dir, kind ? "" : "/kernel");
		for (f = 0; f < 2; f++) {
			snprintf(cmd, sizeof(cmd), "'%s' '%s' %s --threads 1 | md5sum", evcat_path, trace, fmts[f]);
			one = sh(cmd, &st);
			ck_assert_int_eq(st, 0);
			for (i = 0; i < sizeof(slices) / sizeof(slices[0]); i++) {
				snprintf(cmd, sizeof(cmd), "'%s' '%s' %s --threads 3 --slice-bytes %u | md5sum", evcat_path,
					 trace, fmts[f], slices[i]);
				many = sh(cmd, &st);
				ck_assert_int_eq(st, 0);
				ck_assert_msg(!strcmp(one, many), "%s differs from --threads 1 (%s trace)", cmd,
					      kind ? "mixed" : "kernel");
				free(many);
			}
			free(one);
		}
		unit_rmtree(dir);
	}
}
END_TEST

/*
 * babeltrace's CTF test traces (tests/data, none written by evtrace): every
 * one refused with a line that says why, plain and sanitized; 45 of the 62
 * printed nothing with exit status 0, including traces babeltrace2 reads
 * and one with a metadata syntax error.
 */
START_TEST(evcat_refuses_other_ctf_traces)
{
	static const char *const whys[] = {
		"not an evtrace trace", "packetized metadata is not supported", "NUL byte in the metadata",
	};
	const char *const bins[] = { "bin/evcat", "tests/bin/evcat-san" };
	char dir[64], cmd[4096], build[900], *list, *line, *save = NULL;
	ssize_t n = readlink("/proc/self/exe", build, sizeof(build) - 1);
	unsigned int b, i, traces = 0;
	int st;

	ck_assert_msg(have_evcat() && n > 0, "no evcat beside the unit tests");
	build[n] = 0;
	*strrchr(build, '/') = 0;
	*strrchr(build, '/') = 0;
	mktmp(dir, sizeof(dir));
	/* The unit tests run from the top of the tree. */
	snprintf(cmd, sizeof(cmd), "tar -xzf tests/data/babeltrace-ctf-test-traces.tar.gz -C '%s' && "
		 "cd '%s' && find . -name metadata | sort", dir, dir);
	list = sh(cmd, &st);
	ck_assert_msg(st == 0, "cannot unpack tests/data/babeltrace-ctf-test-traces.tar.gz: %s", list);
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		*strrchr(line, '/') = 0;
		traces++;
		for (b = 0; b < 2; b++) {
			char *out;
			int ok = 0;

			snprintf(cmd, sizeof(cmd), "'%.900s/%s' '%s/%s' --count 2>&1", build, bins[b], dir, line);
			out = sh(cmd, &st);
			for (i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
				ok |= strstr(out, whys[i]) != NULL;
			ck_assert_msg(st == 1 && ok && !strstr(out, "Sanitizer") && !strchr(out, '\n')[1],
				      "%s: exit %d: %s", cmd, st, out);
			free(out);
		}
	}
	ck_assert_uint_eq(traces, 62);
	free(list);
	unit_rmtree(dir);
}
END_TEST

/*
 * evcat's text of @dir (with @opts) is babeltrace2's, line for line, once
 * its "HOST name: { cpu_id = N }, { ... }" is put as "cpu N name: { ... }"
 * and evcat's context taken off ("comm/tid [CPU]" as "cpu N", an exit's
 * "syscall = NAME," dropped, prev_state's letters as the number); compared
 * sorted and without the delta, since equal timestamps on different CPUs
 * may come in another order. The context itself is checked against
 * evcat-ctx-check.py.
 */
static void same_text_as_babeltrace2(const char *dir, const char *opts)
{
	char cmd[2048], *a, *b;
	int st;

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-gmt '%s' 2>/dev/null | sed -E "
		 "'s/ [^ ]+ ([a-z_0-9]+): \\{ cpu_id = ([0-9]+) \\}, \\{/ cpu \\2 \\1: {/; "
		 "s/ [^ ]+ ([a-z_0-9]+): \\{ cpu_id = ([0-9]+) \\}$/ cpu \\2 \\1: { }/; "
		 "s/\\(.[0-9?.]+\\) //' | LC_ALL=C sort | md5sum", dir);
	a = sh(cmd, &st);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' %s | sed -E 's/\\(.[0-9?.]+\\) //; "
		 "s/^(\\[[^]]*\\]) [^[]* \\[0*([0-9]+)\\] /\\1 cpu \\2 /; s/^(.* exit_syscall: \\{) syscall = [^ ,]*,/\\1/; "
		 "s/prev_state = R,/prev_state = 0,/; s/prev_state = S,/prev_state = 1,/; "
		 "s/prev_state = D,/prev_state = 2,/; s/prev_state = T,/prev_state = 4,/; "
		 "s/prev_state = t,/prev_state = 8,/; s/prev_state = X,/prev_state = 16,/; "
		 "s/prev_state = Z,/prev_state = 32,/; s/prev_state = P,/prev_state = 64,/; "
		 "s/prev_state = I,/prev_state = 128,/' | LC_ALL=C sort | md5sum",
		 evcat_path, dir, opts);
	b = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(!strcmp(a, b), "evcat's text of %s is not babeltrace2's", dir);
	free(a);
	free(b);
}

/*
 * Decoding follows the trace's metadata, not this build's catalogue: events
 * renamed, ids swapped, fields renamed, a u64 shown in hex, a u64 split
 * into two u32, written the way a later catalogue would. evcat prints what
 * babeltrace2 prints of the same trace, and --event and --stats know the
 * new names (before, evcat printed this build's names and layouts).
 */
START_TEST(evcat_follows_the_metadata)
{
	static const struct {
		const char *from, *to;
	} edits[] = {
		{ "name = \"exit_syscall\";", "name = \"syscall_exit\";" },
		{ "int32_t id;\n\t\tint64a32_t ret;", "int32_t nr;\n\t\tint64a32_t ret;" },
		{ "uint64a32_t seq;", "uint64a32_hex_t seq;" },
		{ "uint64a32_hex_t a;", "uint32_t a_lo;\n\t\tuint32_t a_hi;" },
		{ "name = \"gen_compact\";\n\tid = 0;", "name = \"gen_compact\";\n\tid = 3;" },
		{ "name = \"timer_tick\";\n\tid = 3;", "name = \"timer_tick\";\n\tid = 0;" },
		{ "name = \"gen_normal\";", "name = \"filler\";" },
		{ "uint16_t fill_len;\n\t\tuint8_t fill[fill_len];",
		  "uint16_t bytes_len;\n\t\tuint8_t bytes[bytes_len];" },
	};
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], path[128], cmd[2560], *text, *out;
	uint64_t n_exit, n_tick;
	unsigned int i;
	FILE *f;
	long len;
	int st;

	require_evcat();
	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 6000;
	p.mix = 1;
	p.normal_pct = 20;
	synth(dir, &p, &r);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event exit_syscall --count", evcat_path, dir);
	n_exit = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event gen_compact --count", evcat_path, dir);
	n_tick = sh_u64(cmd);
	ck_assert_uint_gt(n_exit, 0);
	ck_assert_uint_gt(n_tick, 0);

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *t = replaced(text, edits[i].from, edits[i].to);

		free(text);
		text = t;
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(text);

	same_text_as_babeltrace2(dir, "");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -c 'syscall_exit: { nr = -\\?[0-9]*, ret = '",
		 evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n_exit);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event syscall_exit --count", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n_exit);
	/* What this build calls gen_compact (id 0) the metadata calls timer_tick. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event timer_tick --count", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n_tick);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -m1 'gen_compact_wide: {'", evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_msg(strstr(out, ", a_lo = ") && strstr(out, ", a_hi = ") && strstr(out, ", b = 0x"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event filler --format json | grep -m1 -o '\"fields\":{[^}]*}'",
		 evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_msg(strstr(out, "\"bytes\":["), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event gen_compact --format json | grep -m1 -o '\"fields\":{[^}]*}'",
		 evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_msg(strstr(out, "\"seq\":\"0x"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats --format json", evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "\"syscall_exit\":") && !strstr(out, "\"exit_syscall\":"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event exit_syscall --count 2>&1", evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(out, "the trace has no event \"exit_syscall\"") && strstr(out, " syscall_exit"),
		      "%s", out);
	free(out);
	unit_rmtree(dir);
}
END_TEST

/*
 * A trace written by an earlier catalogue (tests/data: evtrace 0.1's module
 * and evdrain, every kind of event) reads as babeltrace2 reads it, with the
 * statistics recorded when it was made, whatever this build's catalogue is.
 */
START_TEST(evcat_reads_old_traces)
{
	static const char *const fixtures[] = { "evdrain-0.1-fixture", "evdrain-0.1-wide-fixture" };
	char dir[64], cmd[4096], *out;
	unsigned int i;
	int st;

	require_evcat();
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char trace[128];

		mktmp(dir, sizeof(dir));
		uint64_t theirs;

		snprintf(cmd, sizeof(cmd), "tar -C '%s' -xJf 'tests/data/%s.tar.xz'", dir, fixtures[i]);
		ck_assert_int_eq(system(cmd), 0);
		snprintf(trace, sizeof(trace), "%s/%s", dir, fixtures[i]);
		snprintf(cmd, sizeof(cmd), "babeltrace2 -c sink.utils.counter '%s' 2>/dev/null | "
			 "awk '/Event messages/ { n = $1 } END { print n }'", trace);
		theirs = sh_u64(cmd);
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --count", evcat_path, trace);
		ck_assert_uint_gt(theirs, 0);
		ck_assert_uint_eq(sh_u64(cmd), theirs);
		same_text_as_babeltrace2(trace, "");
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats | tail -n +2 | diff -u 'tests/data/%s.stats' - 2>&1",
			 evcat_path, trace, fixtures[i]);
		out = sh(cmd, &st);
		ck_assert_msg(st == 0, "%s: evcat --stats differs from tests/data/%s.stats:\n%s", fixtures[i],
			      fixtures[i], out);
		free(out);
		unit_rmtree(dir);
	}
}
END_TEST

START_TEST(evcat_against_babeltrace2)
{
	static uint8_t offline[4] = { 0, 1, 0, 0 };
	struct evt_synth_params p;
	struct evt_synth_result r;
	char dir[64], cmd[8192];
	uint64_t ours, theirs, n;
	char *out, *a, *b;
	int st;

	require_evcat();
	mktmp(dir, sizeof(dir));
	evt_synth_defaults(&p);
	p.cpus = 4;
	p.offline = offline;
	p.events = 30000;
	p.subbuf_size = 4096;
	p.num_subbuf = 4;
	p.mix = 1;
	p.normal_pct = 10;
	p.skew_ns = 2500;
	p.burst_every = 300;
	p.burst_len = 40;
	p.stall_every = 4000;
	p.stall_len = 2500;
	synth(dir, &p, &r);
	ck_assert_uint_gt(r.discarded, 0);

	/* Counts: ours (both merges) = babeltrace2's = what was written. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --count", evcat_path, dir);
	ours = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --count --merge list", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), ours);
	snprintf(cmd, sizeof(cmd), "babeltrace2 -c sink.utils.counter '%s' 2>/dev/null | "
		 "awk '/Event messages/ { n = $1 } END { print n }'", dir);
	theirs = sh_u64(cmd);
	ck_assert_uint_eq(ours, theirs);
	ck_assert_uint_eq(ours, r.written);

	same_text_as_babeltrace2(dir, "");
	/* On threads, in small slices: byte for byte the same output. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 1 | md5sum", evcat_path, dir);
	a = sh(cmd, &st);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 3 --slice-bytes 5000 --merge list | md5sum",
		 evcat_path, dir);
	b = sh(cmd, &st);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 1 --format json --stats | md5sum", evcat_path, dir);
	a = sh(cmd, &st);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --threads 2 --slice-bytes 3000 --format json --stats | md5sum",
		 evcat_path, dir);
	b = sh(cmd, &st);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* ... and the merged output is in time order. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | cut -c2-19 | LC_ALL=C sort -c && echo sorted",
		 evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_str_eq(out, "sorted\n");
	free(out);

	/* Stats: losses equal what the rings counted. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats --format json", evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	{
		char want[128];

		snprintf(want, sizeof(want), "\"events\":%llu,", (unsigned long long)r.written);
		ck_assert_msg(strstr(out, want), "%s", out);
		snprintf(want, sizeof(want), "\"discarded\":%llu,", (unsigned long long)r.discarded);
		ck_assert_msg(strstr(out, want), "%s", out);
		ck_assert_ptr_nonnull(strstr(out, "\"lost_packets\":0,"));
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --stats", evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "losses: "));
	ck_assert_ptr_nonnull(strstr(out, "gen_compact_wide"));
	free(out);

	/* JSON: one object per event line. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --format json | grep -c '^{\"ts\":[0-9]*,\"time\":\"2023-.*Z\",\"cpu\":[0-9]*,\"tid\":[-0-9nul]*,\"pid\":[-0-9nul]*,\"comm\":\\(null\\|\".*\"\\),\"event\":\"[a-z_0-9]*\"\\(,\"syscall\":\"[a-z_0-9]*\",\"syscall_from\":\"[a-z]*\"\\)\\?,\"fields\":{.*}}$'",
		 evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), r.written);

	/* Filters: CPUs, events, a time window (ends included). */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --cpu 0,2-3 --count", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), ours);	/* CPU 1 is offline */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --cpu 2 --count", evcat_path, dir);
	n = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -c ') [^[]* \\[002\\] '", evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event gen_ping --event timer_tick,gen_normal --count",
		 evcat_path, dir);
	n = sh_u64(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' | grep -c ' \\(gen_ping\\|timer_tick\\|gen_normal\\): '",
		 evcat_path, dir);
	ck_assert_uint_eq(sh_u64(cmd), n);
	{
		uint64_t t0 = r.first_ts + 2000000, t1 = r.first_ts + 3000000;

		snprintf(cmd, sizeof(cmd), "'%s' '%s' --from @%llu --to @%llu --format json | "
			 "awk -F'[:,]' '$2 < %llu || $2 > %llu { bad++ } END { print NR + 1000000000 * bad }'",
			 evcat_path, dir, (unsigned long long)t0, (unsigned long long)t1,
			 (unsigned long long)t0, (unsigned long long)t1);
		n = sh_u64(cmd);
		ck_assert_uint_gt(n, 0);
		ck_assert_uint_lt(n, 1000000000);
		/* The same window as UTC times of day and as seconds after the start. */
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --from 22:30:00.002 --to 22:30:00.003 --count",
			 evcat_path, dir);
		ck_assert_uint_eq(sh_u64(cmd), n);
		snprintf(cmd, sizeof(cmd), "'%s' '%s' --from +0.002 --to '2023-11-14 22:30:00.003' --count",
			 evcat_path, dir);
		ck_assert_uint_eq(sh_u64(cmd), n);
	}

	/* Exit codes: usage 2, trace errors 1 with the file and offset. */
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --bogus 2>&1", evcat_path, dir);
	free(sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' 2>&1", evcat_path);
	free(sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --event nosuch 2>&1", evcat_path, dir);
	free(sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' --from yesterday 2>&1", evcat_path, dir);
	free(sh(cmd, &st));
	ck_assert_int_eq(st, 2);
	snprintf(cmd, sizeof(cmd), "'%s' --help", evcat_path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "Exit status"));
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' /nonexistent/trace 2>&1", evcat_path);
	free(sh(cmd, &st));
	ck_assert_int_eq(st, 1);
	snprintf(cmd, sizeof(cmd), "truncate -s -100 '%s/compact_2' && '%s' '%s' 2>&1 >/dev/null",
		 dir, evcat_path, dir);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 1);
	ck_assert_msg(strstr(out, "compact_2: offset ") && strstr(out, "truncated packet"), "%s", out);
	free(out);
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
	tcase_add_test(tr, metadata_parsing);
	tcase_add_test(tr, compact_id_30_by_header_version);
	tcase_add_test(tr, tsdl_reads_the_catalogue_back);
	tcase_add_test(tr, metadata_read_any_size);
	tcase_add_test(tr, metadata_read_limit);
	tcase_add_test(tr, decode_errors_have_texts);
	tcase_add_test(tr, variable_sizes_match_the_walk);
	tcase_add_test(tr, normal_fast_steps_match_the_rules);
	tcase_add_test(tr, fifo_in_a_trace_is_refused);
	tcase_add_test(tr, open_on_threads_is_the_same);
	tcase_add_test(tr, synth_refuses_times_beyond_63_bits);
	tcase_add_test(tr, reading_keeps_memory_bounded);
	tcase_add_test(tr, empty_and_odd_directories);
	tcase_add_test(tr, format_numbers_and_escapes);
	tcase_add_test(tc, corrupt_traces_give_errors);
	tcase_add_test(tc, late_event_in_a_run);
	tcase_add_loop_test(tc, corrupt_random_flips_never_crash, 0, 2);
	tcase_set_timeout(te, 120);
	tcase_add_test(te, evcat_against_babeltrace2);
	tcase_add_test(te, evcat_follows_the_metadata);
	tcase_add_test(te, evcat_reads_old_traces);
	tcase_add_test(te, evcat_refuses_bad_input);
	tcase_add_test(te, evcat_file_cut_while_read);
	tcase_add_test(te, evcat_says_losses);
	tcase_add_test(te, evcat_context_against_reference);
	tcase_add_test(te, evcat_threads_print_what_one_thread_prints);
	tcase_add_test(te, evcat_refuses_other_ctf_traces);
	suite_add_tcase(s, tr);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, te);
	return s;
}
