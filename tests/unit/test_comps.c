// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's built-in computations (state, stats) on hand-made event
 * sequences: their hooks called directly with payloads laid out from the
 * builtin catalogue, exact numbers checked, and their saved forms.
 * One file over 900 lines: one subject, every case built on the event
 * builders and checks at its top (the "comps" suite's one case).
 */
#include "unit.h"
#include <stdio.h>
#include <string.h>
#include "engine/evt_comp_marks.h"
#include "engine/evt_comps.h"
#include "engine/evt_curtask.h"
#include "ctf/evt_trace.h"

static struct evt_trace fake_tr;

/* Where events go: the state and stats results of a test (either may be NULL). */
static struct evt_state *g_st;
static struct evt_stats *g_ss;
static struct evt_marks *g_mk;
static struct evt_curtask *g_ct;

static void targets(struct evt_state *st, struct evt_stats *ss)
{
	memset(&fake_tr, 0, sizeof(fake_tr));
	fake_tr.md.cat = evt_builtin;
	g_st = st;
	g_ss = ss;
	g_mk = NULL;
	g_ct = NULL;
}

void tev_init(struct tev *e, const char *name)
{
	unsigned int i, off = 0;

	e->d = evt_catalogue_find(evt_builtin, name);
	ck_assert_msg(e->d != NULL, "no event %s", name);
	memset(e->pl, 0, sizeof(e->pl));
	/* The fixed part's length; a string field's bytes add to it (tev_str). */
	for (i = 0; i < e->d->nr_fields; i++) {
		unsigned int a = evt_field_align(e->d->fields[i].type);

		off = (off + a - 1) & ~(a - 1);
		off += evt_field_size(e->d->fields[i].type);
	}
	e->len = off;
}

void tev_int(struct tev *e, const char *field, int64_t v)
{
	enum evt_field_type t;
	int off = evt_field_offset(e->d, field, &t);

	ck_assert_msg(off >= 0, "%s has no %s", e->d->name, field);
	memcpy(e->pl + off, &v, evt_field_size(t));	/* little-endian host */
}

void tev_str(struct tev *e, const char *field, const char *s)
{
	enum evt_field_type t;
	int off = evt_field_offset(e->d, field, &t);

	ck_assert_msg(off >= 0, "%s has no %s", e->d->name, field);
	if (t == EVT_F_COMM) {
		strncpy((char *)e->pl + off, s, 16);
	} else {
		strcpy((char *)e->pl + off, s);
		e->len = (uint32_t)(off + strlen(s) + 1);
	}
}

static void tev_send(const struct tev *e, unsigned int cpu, uint64_t ts)
{
	struct evt_engine_event ev = {
		.tr = &fake_tr, .ts = ts, .rt = ts, .desc = e->d,
		.idx = (unsigned int)(e->d - evt_builtin->events), .cpu = cpu, .stream = cpu,
		.payload = e->pl, .len = e->len,
	};

	if (g_st)
		ck_assert_int_eq(evt_state_event_hook(g_st, &ev), 0);
	if (g_ss)
		ck_assert_int_eq(evt_stats_event_hook(g_ss, &ev), 0);
	if (g_mk)
		ck_assert_int_eq(evt_marks_event_hook(g_mk, &ev), 0);
	if (g_ct)
		ck_assert_int_eq(evt_curtask_event(g_ct, &ev), 0);
}

/* ---- The events ---- */

static void ev_plain(const char *name, unsigned int cpu, uint64_t ts)
{
	struct tev e;

	tev_init(&e, name);
	tev_send(&e, cpu, ts);
}

static void ev_switch(unsigned int cpu, uint64_t ts, int32_t prev, uint32_t prev_state, int32_t next)
{
	struct tev e;
	char comm[16];

	tev_init(&e, "sched_switch");
	snprintf(comm, sizeof(comm), "t%d", prev);
	tev_str(&e, "prev_comm", prev ? comm : "swapper/0");
	tev_int(&e, "prev_tid", prev);
	tev_int(&e, "prev_state", prev_state);
	snprintf(comm, sizeof(comm), "t%d", next);
	tev_str(&e, "next_comm", next ? comm : "swapper/0");
	tev_int(&e, "next_tid", next);
	tev_send(&e, cpu, ts);
}

static void ev_sys(unsigned int cpu, uint64_t ts, const char *name)
{
	ev_plain(name, cpu, ts);
}

static void ev_exit(unsigned int cpu, uint64_t ts, int64_t ret)
{
	struct tev e;

	tev_init(&e, "exit_syscall");
	tev_int(&e, "id", 0);
	tev_int(&e, "ret", ret);
	tev_send(&e, cpu, ts);
}

static void ev_irq(unsigned int cpu, uint64_t ts, int32_t irq, const char *name)
{
	struct tev e;

	tev_init(&e, name ? "irq_handler_entry" : "irq_handler_exit");
	tev_int(&e, "irq", irq);
	if (name)
		tev_str(&e, "name", name);
	tev_send(&e, cpu, ts);
}

static void ev_softirq(const char *name, unsigned int cpu, uint64_t ts, uint32_t vec)
{
	struct tev e;

	tev_init(&e, name);
	tev_int(&e, "vec", vec);
	tev_send(&e, cpu, ts);
}

static void ev_wakeup(const char *name, unsigned int cpu, uint64_t ts, int32_t tid)
{
	struct tev e;

	tev_init(&e, name);
	tev_str(&e, "comm", "w");
	tev_int(&e, "tid", tid);
	if (evt_field_offset(e.d, "target_cpu", NULL) >= 0)
		tev_int(&e, "target_cpu", 0);
	tev_send(&e, cpu, ts);
}

static void ev_dump(uint64_t ts, int32_t tid, int32_t pid, int32_t ppid, const char *name, int32_t status)
{
	struct tev e;

	tev_init(&e, "lttng_statedump_process_state");
	tev_int(&e, "tid", tid);
	tev_int(&e, "pid", pid);
	tev_int(&e, "ppid", ppid);
	tev_str(&e, "name", name);
	tev_int(&e, "status", status);
	tev_send(&e, 0, ts);
}

static void ev_fork(uint64_t ts, int32_t ptid, int32_t ppid, int32_t ctid, int32_t cpid, const char *comm)
{
	struct tev e;

	tev_init(&e, "sched_process_fork");
	tev_str(&e, "parent_comm", "p");
	tev_int(&e, "parent_tid", ptid);
	tev_int(&e, "parent_pid", ppid);
	tev_str(&e, "child_comm", comm);
	tev_int(&e, "child_tid", ctid);
	tev_int(&e, "child_pid", cpid);
	tev_send(&e, 0, ts);
}

static void ev_exec(uint64_t ts, int32_t tid, const char *file)
{
	struct tev e;

	tev_init(&e, "sched_process_exec");
	tev_int(&e, "tid", tid);
	tev_int(&e, "old_tid", tid);
	tev_str(&e, "filename", file);
	tev_send(&e, 0, ts);
}

/* ---- Checks ---- */

static void check_lat(const struct evt_lat *l, uint64_t count, uint64_t total, uint64_t min, uint64_t max)
{
	ck_assert_uint_eq(l->count, count);
	ck_assert_uint_eq(l->total_ns, total);
	ck_assert_uint_eq(l->min_ns, min);
	ck_assert_uint_eq(l->max_ns, max);
}

/* @t's change points (of the state result g_st) are exactly these (ts, state) pairs. */
static void check_states(const struct evt_state_thread *t, size_t n, const uint64_t *ts, const uint8_t *st)
{
	struct evt_state_interval iv;
	size_t i;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->nch, n);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(evt_state_thread_interval(g_st, t, i, &iv), 0);
		ck_assert_msg(iv.begin == ts[i] && iv.state == st[i], "tid %d change %zu: %llu %s, not %llu %s",
			      t->tid, i, (unsigned long long)iv.begin, evt_tstate_name(iv.state),
			      (unsigned long long)ts[i], evt_tstate_name(st[i]));
		ck_assert_uint_eq(evt_state_thread_at(t, ts[i]), st[i]);
		if (i + 1 < n)
			ck_assert_uint_eq(iv.end, ts[i + 1]);
	}
	ck_assert_int_eq(evt_state_thread_interval(g_st, t, n, &iv), -1);
}

enum { U = EVT_TSTATE_USER, SC = EVT_TSTATE_SYSCALL, IRQ = EVT_TSTATE_IRQ, SI = EVT_TSTATE_SOFTIRQ,
       RN = EVT_TSTATE_RUNNABLE, BL = EVT_TSTATE_BLOCKED };

START_TEST(stats_syscalls)
{
	struct evt_stats *ss = evt_stats_new();
	const struct evt_stats_syscall *rd, *wr, *cl;
	const struct evt_stats_thread *t;

	ck_assert_ptr_nonnull(ss);
	targets(NULL, ss);
	ev_plain("timer_tick", 0, 500);			/* before CPU 0's first switch: tid -1 */
	ev_switch(0, 1000, 0, 0, 100);
	ev_switch(1, 1000, 0, 0, 200);
	ev_sys(0, 2000, "sys_read");			/* 100 */
	ev_sys(1, 2100, "sys_write");			/* 200 */
	ev_exit(1, 2300, 5);				/* 200's write: 200 ns */
	ev_exit(0, 2500, 10);				/* 100's read: 500 ns */
	ev_sys(0, 3000, "sys_read");
	ev_exit(0, 4000, -11);				/* 1000 ns, an error */
	ev_sys(0, 5000, "sys_close");
	ev_exit(0, 5100, 0);
	ev_exit(0, 6000, 0);				/* no entry: unmatched */

	rd = evt_stats_syscall(ss, "sys_read");
	wr = evt_stats_syscall(ss, "sys_write");
	cl = evt_stats_syscall(ss, "sys_close");
	ck_assert_ptr_nonnull(rd);
	ck_assert_ptr_nonnull(wr);
	ck_assert_ptr_nonnull(cl);
	ck_assert_uint_eq(rd->count, 2);
	ck_assert_uint_eq(rd->errors, 1);
	check_lat(&rd->lat, 2, 1500, 500, 1000);
	ck_assert_uint_eq(rd->hist[9], 1);		/* 500 in [256, 512) */
	ck_assert_uint_eq(rd->hist[10], 1);		/* 1000 in [512, 1024) */
	check_lat(&wr->lat, 1, 200, 200, 200);
	ck_assert_uint_eq(wr->errors, 0);
	check_lat(&cl->lat, 1, 100, 100, 100);
	ck_assert_uint_eq(ss->sys_unmatched, 1);
	ck_assert_ptr_null(evt_stats_syscall(ss, "sys_open"));
	ck_assert_uint_eq(evt_stats_hist_bucket(0), 0);
	ck_assert_uint_eq(evt_stats_hist_bucket(1), 1);
	ck_assert_uint_eq(evt_stats_hist_bucket(UINT64_MAX), 63);

	/* Counts: 12 events, by name, CPU and thread. */
	ck_assert_uint_eq(ss->events, 12);
	ck_assert_uint_eq(ss->first_ts, 500);
	ck_assert_uint_eq(ss->last_ts, 6000);
	ck_assert_uint_eq(evt_stats_event(ss, "exit_syscall")->count, 5);
	ck_assert_uint_eq(evt_stats_event(ss, "sched_switch")->count, 2);
	ck_assert_uint_eq(evt_stats_event(ss, "sys_read")->count, 2);
	ck_assert_uint_eq(evt_stats_event(ss, "timer_tick")->count, 1);
	ck_assert_ptr_null(evt_stats_event(ss, "sched_wakeup"));
	ck_assert_uint_eq(ss->nr_cpus, 2);
	ck_assert_uint_eq(ss->cpus[0].events, 9);
	ck_assert_uint_eq(ss->cpus[1].events, 3);
	/* Before the switches: the tick and both switches themselves. */
	t = evt_stats_thread(ss, -1);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->events, 3);
	ck_assert_uint_eq(evt_stats_thread(ss, 100)->events, 7);
	ck_assert_uint_eq(evt_stats_thread(ss, 200)->events, 2);
	evt_stats_free(ss);
}
END_TEST

START_TEST(irq_in_syscall)
{
	struct evt_stats *ss = evt_stats_new();
	struct evt_state *st = evt_state_new();
	const struct evt_stats_irq *q;
	static const uint64_t ts[] = { 1000, 2000, 2100, 2150, 2500 };
	static const uint8_t s[] = { U, SC, IRQ, SC, U };

	targets(st, ss);
	ev_switch(0, 1000, 0, 0, 100);
	ev_sys(0, 2000, "sys_read");
	ev_irq(0, 2100, 19, "eth0");
	ev_irq(0, 2150, 19, NULL);
	ev_exit(0, 2500, 3);
	ev_irq(0, 3000, 19, "eth0");
	ev_irq(0, 3080, 19, NULL);
	ev_irq(0, 3100, 7, NULL);			/* an exit with no entry: no duration */

	q = evt_stats_irq(ss, 19);
	ck_assert_ptr_nonnull(q);
	ck_assert_str_eq(q->name, "eth0");
	ck_assert_uint_eq(q->count, 2);
	check_lat(&q->dur, 2, 130, 50, 80);
	ck_assert_uint_eq(evt_stats_irq(ss, 7)->count, 0);
	ck_assert_uint_eq(evt_stats_irq(ss, 7)->dur.count, 0);
	/* The syscall's latency includes the interrupt. */
	check_lat(&evt_stats_syscall(ss, "sys_read")->lat, 1, 500, 500, 500);

	check_states(evt_state_thread(st, 100), 7, (const uint64_t[]){ ts[0], ts[1], ts[2], ts[3], ts[4], 3000, 3080 },
		     (const uint8_t[]){ s[0], s[1], s[2], s[3], s[4], IRQ, U });
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st, 100), 2120), EVT_TSTATE_IRQ);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st, 100), 2149), EVT_TSTATE_IRQ);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st, 100), 2150), EVT_TSTATE_SYSCALL);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st, 100), 999), EVT_TSTATE_UNKNOWN);
	evt_state_free(st);
	evt_stats_free(ss);
}
END_TEST

START_TEST(softirq)
{
	struct evt_stats *ss = evt_stats_new();
	struct evt_state *st = evt_state_new();

	targets(st, ss);
	ev_switch(0, 1000, 0, 0, 100);
	ev_softirq("softirq_raise", 0, 1100, 3);
	ev_softirq("softirq_raise", 0, 1150, 3);
	ev_softirq("softirq_entry", 0, 1200, 3);
	ev_irq(0, 1300, 5, "timer");			/* an interrupt inside the softirq */
	ev_irq(0, 1310, 5, NULL);
	ev_softirq("softirq_exit", 0, 1500, 3);
	ev_softirq("softirq_entry", 0, 2000, 9);
	ev_softirq("softirq_exit", 0, 2010, 9);
	ev_softirq("softirq_exit", 1, 2020, 9);		/* entered before: nothing */
	ev_softirq("softirq_raise", 0, 2030, 99);	/* no such vector: ignored */

	ck_assert_uint_eq(ss->softirq[3].raises, 2);
	ck_assert_uint_eq(ss->softirq[3].count, 1);
	check_lat(&ss->softirq[3].dur, 1, 300, 300, 300);
	ck_assert_uint_eq(ss->softirq[9].count, 1);
	check_lat(&ss->softirq[9].dur, 1, 10, 10, 10);
	check_lat(&evt_stats_irq(ss, 5)->dur, 1, 10, 10, 10);
	check_states(evt_state_thread(st, 100), 7,
		     (const uint64_t[]){ 1000, 1200, 1300, 1310, 1500, 2000, 2010 },
		     (const uint8_t[]){ U, SI, IRQ, SI, U, SI, U });
	evt_state_free(st);
	evt_stats_free(ss);
}
END_TEST

/*
 * Exits the tracer lost (seen on a VM: 20 of 5628 softirq exits): an
 * entry while a handler is open replaces it, so the next handlers are
 * measured and the CPU's time after them is the task's again. Before, the
 * stale entries nested: past four, an exit matched none (a TIMER softirq
 * and its time went missing, lttng-irqstats counted it), and the task time
 * until the next switch was charged as softirq.
 */
START_TEST(lost_handler_exits)
{
	struct evt_stats *ss = evt_stats_new();

	targets(NULL, ss);
	ev_switch(0, 1000, 0, 0, 100);
	for (int i = 0; i < 5; i++)
		ev_softirq("softirq_entry", 0, 2000 + 100 * (uint64_t)i, 7);	/* their exits lost */
	ev_softirq("softirq_entry", 0, 3000, 1);
	ev_softirq("softirq_exit", 0, 3050, 1);
	ev_irq(0, 4000, 5, "timer");
	ev_irq(0, 4100, 6, "eth0");			/* irq 5's exit lost */
	ev_irq(0, 4120, 6, NULL);
	ev_switch(0, 6000, 100, 0, 0);
	evt_stats_close(ss);

	ck_assert_uint_eq(ss->softirq[7].count, 5);
	ck_assert_uint_eq(ss->softirq[7].dur.count, 0);
	check_lat(&ss->softirq[1].dur, 1, 50, 50, 50);
	check_lat(&evt_stats_irq(ss, 6)->dur, 1, 20, 20, 20);
	ck_assert_uint_eq(evt_stats_irq(ss, 5)->dur.count, 0);
	/* 2000 .. 3050 softirq, 4000 .. 4120 IRQ, the rest of 1000 .. 6000 the task's. */
	ck_assert_uint_eq(ss->cpus[0].softirq_ns, 1050);
	ck_assert_uint_eq(ss->cpus[0].irq_ns, 120);
	ck_assert_uint_eq(ss->cpus[0].busy_ns, 5000 - 1050 - 120);
	evt_stats_free(ss);
}
END_TEST

/*
 * The same lost exits, for the thread states evview draws: a handler's
 * entry while one of its kind is open replaces it, so the thread is in user
 * space again after the next exit (before, five stale softirq entries kept
 * it in "softirq", and a stale IRQ in "irq", until its next switch).
 */
START_TEST(lost_handler_exits_state)
{
	struct evt_state *st = evt_state_new();
	const struct evt_state_thread *t;

	targets(st, NULL);
	ev_switch(0, 1000, 0, 0, 100);
	for (int i = 0; i < 5; i++)
		ev_softirq("softirq_entry", 0, 2000 + 100 * (uint64_t)i, 7);	/* their exits lost */
	ev_softirq("softirq_entry", 0, 3000, 1);
	ev_irq(0, 3010, 5, "timer");			/* inside the softirq, its exit lost */
	ev_softirq("softirq_exit", 0, 3050, 1);
	ev_irq(0, 4000, 5, "timer");
	ev_irq(0, 4100, 6, "eth0");			/* irq 5's exit lost */
	ev_irq(0, 4120, 6, NULL);
	ev_irq(0, 4200, 9, NULL);			/* an exit with no entry: nothing */
	ev_switch(0, 6000, 100, 0, 0);
	evt_comp_state.finish(st, NULL);

	t = evt_state_thread(st, 100);
	ck_assert_int_eq(evt_state_thread_at(t, 2500), EVT_TSTATE_SOFTIRQ);
	ck_assert_int_eq(evt_state_thread_at(t, 3020), EVT_TSTATE_IRQ);
	ck_assert_int_eq(evt_state_thread_at(t, 3500), EVT_TSTATE_USER);
	ck_assert_int_eq(evt_state_thread_at(t, 4110), EVT_TSTATE_IRQ);
	ck_assert_int_eq(evt_state_thread_at(t, 4150), EVT_TSTATE_USER);
	ck_assert_int_eq(evt_state_thread_at(t, 5000), EVT_TSTATE_USER);
	evt_state_free(st);
}
END_TEST

START_TEST(sched_latency)
{
	struct evt_stats *ss = evt_stats_new();

	targets(NULL, ss);
	ev_switch(0, 1000, 0, 0, 100);
	ev_switch(1, 1000, 0, 0, 200);
	ev_wakeup("sched_wakeup", 0, 1500, 200);	/* running: no wait */
	ev_wakeup("sched_wakeup", 0, 10000, 300);
	ev_wakeup("sched_wakeup", 0, 10100, 300);	/* again: the first counts */
	ev_switch(0, 10400, 100, 0, 300);		/* 400 */
	ev_wakeup("sched_wakeup_new", 0, 11000, 301);
	ev_wakeup("sched_waking", 0, 11050, 302);	/* its wait starts there (as the LTTng analyses count it) */
	ev_wakeup("sched_wakeup", 0, 11060, 302);	/* not again */
	ev_switch(1, 11100, 200, 1, 301);		/* 100 */
	ev_switch(1, 11200, 301, 1, 302);		/* 150 */
	ev_switch(1, 11300, 302, 1, 200);		/* 200 was never woken */

	check_lat(&ss->sched_lat, 3, 650, 100, 400);
	ck_assert_uint_eq(ss->sched_hist[7], 1);	/* 100 in [64, 128) */
	ck_assert_uint_eq(ss->sched_hist[8], 1);	/* 150 in [128, 256) */
	ck_assert_uint_eq(ss->sched_hist[9], 1);	/* 400 in [256, 512) */
	/* Per thread, with who woke it: CPU 0 ran 100 when 300 was woken, 300 when 301 and 302 were. */
	check_lat(&evt_stats_thread(ss, 300)->wake, 1, 400, 400, 400);
	ck_assert_uint_eq(evt_stats_thread(ss, 300)->nwakers, 1);
	ck_assert_int_eq(evt_stats_thread(ss, 300)->wakers[0].tid, 100);
	ck_assert_int_eq(evt_stats_thread(ss, 302)->wakers[0].tid, 300);
	evt_stats_close(ss);
	ck_assert_uint_eq(ss->worst[EVT_WORST_SCHED].n, 3);
	ck_assert_int_eq(ss->worst[EVT_WORST_SCHED].v[0].tid, 300);
	ck_assert_uint_eq(ss->worst[EVT_WORST_SCHED].v[0].end - ss->worst[EVT_WORST_SCHED].v[0].begin, 400);
	ck_assert_int_eq(ss->worst[EVT_WORST_SCHED].v[0].waker, 100);
	ck_assert_int_eq(ss->worst[EVT_WORST_SCHED].v[1].tid, 302);
	ck_assert_int_eq(ss->worst[EVT_WORST_SCHED].v[2].tid, 301);
	/* Percentiles: nearest rank (p50 of three: the second). */
	ck_assert_uint_eq(evt_lathist_pct(&ss->sched_pct, 500), 150);
	ck_assert_uint_eq(evt_lathist_pct(&ss->sched_pct, 999), 400);
	evt_stats_free(ss);
}
END_TEST

START_TEST(cpu_time)
{
	struct evt_state *st = evt_state_new();
	const struct evt_state_thread *top[8];
	struct evt_state_interval iv;

	targets(st, NULL);
	ev_switch(0, 100, 0, 0, 1);
	ev_switch(0, 300, 1, 0, 2);			/* 1 preempted: runnable */
	ev_switch(0, 600, 2, 1, 1);			/* 2 asleep: blocked */
	ev_switch(0, 750, 1, 2, 0);			/* 1 blocked (D) */
	ev_plain("timer_tick", 0, 1000);
	evt_comp_state.finish(st, NULL);
	evt_comp_state.finish(st, NULL);		/* twice counts once */

	ck_assert_uint_eq(evt_state_thread(st, 1)->cpu_ns, 350);
	ck_assert_uint_eq(evt_state_thread(st, 2)->cpu_ns, 300);
	ck_assert_uint_eq(evt_state_thread(st, 0)->cpu_ns, 250);
	ck_assert_str_eq(evt_state_thread(st, 1)->comm, "t1");
	check_states(evt_state_thread(st, 1), 4, (const uint64_t[]){ 100, 300, 600, 750 },
		     (const uint8_t[]){ U, RN, U, BL });
	check_states(evt_state_thread(st, 2), 2, (const uint64_t[]){ 300, 600 }, (const uint8_t[]){ U, BL });
	ck_assert_uint_eq(evt_state_thread(st, 0)->nch, 0);

	ck_assert_uint_eq(evt_state_top_threads(st, top, 8), 2);
	ck_assert_int_eq(top[0]->tid, 1);
	ck_assert_int_eq(top[1]->tid, 2);
	ck_assert_uint_eq(evt_state_top_threads(st, top, 1), 1);
	ck_assert_int_eq(top[0]->tid, 1);

	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 50), -1);
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 100), 1);
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 299), 1);
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 300), 2);
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 999), 0);
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 1001), -1);
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 1, 500), -1);
	ck_assert_uint_eq(evt_state_cpu_nr_intervals(st, 0), 4);
	ck_assert_int_eq(evt_state_cpu_interval(st, 0, 3, &iv), 0);
	ck_assert_uint_eq(iv.begin, 750);
	ck_assert_uint_eq(iv.end, 1000);
	ck_assert_int_eq(iv.tid, 0);
	ck_assert_int_eq(evt_state_cpu_interval(st, 0, 4, &iv), -1);
	ck_assert_int_eq(evt_state_thread_interval(st, evt_state_thread(st, 1), 3, &iv), 0);
	ck_assert_uint_eq(iv.begin, 750);
	ck_assert_uint_eq(iv.end, 1000);
	ck_assert_int_eq(iv.state, BL);
	evt_state_free(st);
}
END_TEST

/* ---- The current-task tracker ---- */

struct slices {
	struct evt_slice v[32];
	unsigned int n;
};

static void keep_slice(void *data, const struct evt_slice *s)
{
	struct slices *k = data;

	ck_assert_uint_lt(k->n, 32);
	k->v[k->n++] = *s;
}

static void check_slice(const struct evt_slice *s, unsigned int cpu, int32_t tid, uint64_t b, uint64_t e,
			int64_t end_state)
{
	ck_assert_msg(s->cpu == cpu && s->tid == tid && s->begin == b && s->end == e && s->end_state == end_state,
		      "slice cpu %u tid %d [%llu, %llu) %lld, not cpu %u tid %d [%llu, %llu) %lld", s->cpu, s->tid,
		      (unsigned long long)s->begin, (unsigned long long)s->end, (long long)s->end_state, cpu, tid,
		      (unsigned long long)b, (unsigned long long)e, (long long)end_state);
}

static void check_task(const struct evt_curtask *c, unsigned int cpu, int32_t tid, int32_t pid, const char *comm)
{
	struct evt_task t;

	evt_curtask_on_cpu(c, cpu, &t);
	ck_assert_msg(t.tid == tid && t.pid == pid && !strcmp(t.comm, comm),
		      "cpu %u: %d %d \"%s\", not %d %d \"%s\"", cpu, t.tid, t.pid, t.comm, tid, pid, comm);
}

/*
 * Who runs where, from the switches; names and pids from the state dump,
 * fork, exec and the switches; the first switch's prev counted from the
 * first event (as the state computation counts it); CPU time as its; a
 * saved tracker goes on as the original; freed threads are not saved.
 */
START_TEST(curtask_follows_the_scheduler)
{
	struct evt_curtask *c = evt_curtask_new(), *d = evt_curtask_new();
	struct evt_state *st = evt_state_new();
	struct slices k = { .n = 0 }, k2 = { .n = 0 };
	struct evt_buf b = { 0 };
	struct evt_rbuf r;
	struct evt_task t;
	struct tev e;

	targets(st, NULL);
	g_ct = c;
	evt_curtask_on_slice(c, keep_slice, &k);
	ev_plain("timer_tick", 0, 100);
	check_task(c, 0, -1, -1, "");
	ev_dump(150, 5, 4, 1, "worker", 5);
	ev_switch(0, 200, 5, 1, 7);		/* 5 ran since 100 */
	check_slice(&k.v[0], 0, 5, 100, 200, 1);
	check_task(c, 0, 7, -1, "t7");
	ev_fork(250, 7, 7, 9, 9, "child");
	ev_switch(1, 300, 0, 0, 9);		/* CPU 1 idle since 100 */
	check_slice(&k.v[1], 1, 0, 100, 300, 0);
	check_task(c, 1, 9, 9, "t9");		/* the switch's name is the latest */
	ev_exec(350, 9, "/usr/bin/a-very-long-program-name");
	check_task(c, 1, 9, 9, "a-very-long-pro");
	ck_assert_int_eq(evt_curtask_thread(c, 5, &t), 0);
	ck_assert_int_eq(t.pid, 4);
	ck_assert_str_eq(t.comm, "t5");
	ck_assert_int_eq(evt_curtask_thread(c, 42, &t), -1);
	ck_assert_int_eq(t.pid, -1);

	/* A control byte and a byte that is no UTF-8 in a name: kept as they are (writers escape them). */
	tev_init(&e, "sched_switch");
	tev_str(&e, "prev_comm", "child");
	tev_int(&e, "prev_tid", 9);
	tev_int(&e, "prev_state", 0);
	tev_str(&e, "next_comm", "\x1b[2J\xff");
	tev_int(&e, "next_tid", 11);
	tev_send(&e, 1, 400);
	check_task(c, 1, 11, -1, "\x1b[2J\xff");
	check_slice(&k.v[2], 1, 9, 300, 400, 0);

	/* Saved mid-way, loaded into another: the two go on alike. */
	ev_plain("sched_process_free", 0, 450);	/* (tid 0 in the payload: ignored) */
	tev_init(&e, "sched_process_free");
	tev_str(&e, "comm", "t5");
	tev_int(&e, "tid", 5);
	tev_send(&e, 0, 460);
	ck_assert_int_eq(evt_curtask_save(c, &b), 0);
	r = (struct evt_rbuf){ b.p, b.n, 0 };
	ck_assert_int_eq(evt_curtask_load(d, &r), 0);
	ck_assert_uint_eq(r.off, r.n);
	ck_assert_int_eq(evt_curtask_thread(d, 5, &t), -1);	/* freed: not saved */
	check_task(d, 0, 7, -1, "t7");
	check_task(d, 1, 11, -1, "\x1b[2J\xff");
	ck_assert_uint_eq(evt_curtask_first_ts(d), 100);
	evt_curtask_on_slice(d, keep_slice, &k2);
	g_ct = d;
	ev_switch(0, 500, 7, 0, 0);
	check_slice(&k2.v[0], 0, 7, 200, 500, 0);
	/* Cut: each CPU's slice ends there and goes on. */
	evt_curtask_cut(d, 600);
	ck_assert_uint_eq(k2.n, 3);
	check_slice(&k2.v[1], 0, 0, 500, 600, -1);
	check_slice(&k2.v[2], 1, 11, 400, 600, -1);
	ev_switch(1, 700, 11, 64, 0);
	check_slice(&k2.v[3], 1, 11, 600, 700, 64);

	/* CPU time as the state computation counts it (state saw c's events up to 460, then d's). */
	evt_state_close(st);
	ck_assert_uint_eq(evt_state_thread(st, 7)->cpu_ns, 500 - 200);
	ck_assert_uint_eq(evt_state_thread(st, 9)->cpu_ns, 400 - 300);
	ck_assert_uint_eq(evt_state_thread(st, 11)->cpu_ns, 700 - 400);
	ck_assert_uint_eq(evt_state_thread(st, 5)->cpu_ns, 200 - 100);

	/* A damaged saved form is refused whole. */
	for (size_t cut = 0; cut < b.n; cut += 7) {
		r = (struct evt_rbuf){ b.p, cut, 0 };
		ck_assert_int_eq(evt_curtask_load(d, &r), -1);
		check_task(d, 0, -1, -1, "");
	}
	b.p[0] ^= 1;
	r = (struct evt_rbuf){ b.p, b.n, 0 };
	ck_assert_int_eq(evt_curtask_load(d, &r), -1);
	evt_buf_free(&b);
	evt_curtask_free(c);
	evt_curtask_free(d);
	evt_state_free(st);
}
END_TEST

/*
 * The stats computation's observer sees every pair its latencies count,
 * and a carried in-flight state pairs what the chunk before entered.
 */
struct pairs {
	unsigned int sys, sched;
	uint64_t sys_ns, sched_ns;
};

static void obs_sys(void *data, const struct evt_engine_event *ev, int32_t tid, const char *name, uint64_t entry,
		    int64_t ret)
{
	struct pairs *p = data;

	(void)tid;
	(void)name;
	(void)ret;
	p->sys++;
	p->sys_ns += ev->ts - entry;
}

static void obs_sched(void *data, const struct evt_engine_event *ev, int32_t tid, uint64_t wakeup)
{
	struct pairs *p = data;

	(void)tid;
	p->sched++;
	p->sched_ns += ev->ts - wakeup;
}

START_TEST(stats_observer_and_seeds)
{
	struct evt_stats *s = evt_stats_new(), *s2 = evt_stats_new();
	struct pairs p = { 0 }, p2 = { 0 };
	const struct evt_stats_observer o = { obs_sys, obs_sched, &p }, o2 = { obs_sys, obs_sched, &p2 };

	targets(NULL, s);
	evt_stats_set_observer(s, &o);
	ev_switch(0, 100, 0, 0, 1);
	ev_sys(0, 110, "sys_read");
	ev_exit(0, 150, 3);
	ev_sys(0, 200, "sys_openat");
	ev_wakeup("sched_wakeup", 0, 210, 2);
	ck_assert_uint_eq(p.sys, 1);
	ck_assert_uint_eq(p.sys_ns, 40);
	/* The chunk ends: tid 1 in sys_openat since 200, tid 2 woken at 210, CPU 0 runs 1. */
	ck_assert_int_eq(s->threads[evt_stats_thread(s, 1) - s->threads].sys >= 0, 1);
	ck_assert_int_eq(evt_stats_seed_cpu(s2, 0, 1), 0);
	ck_assert_int_eq(evt_stats_seed_syscall(s2, 1, "sys_openat", 200), 0);
	ck_assert_int_eq(evt_stats_seed_wakeup(s2, 2, 210), 0);
	targets(NULL, s2);
	evt_stats_set_observer(s2, &o2);
	ev_exit(0, 260, -2);
	ev_switch(0, 300, 1, 1, 2);
	ck_assert_uint_eq(p2.sys, 1);
	ck_assert_uint_eq(p2.sys_ns, 60);
	ck_assert_uint_eq(p2.sched, 1);
	ck_assert_uint_eq(p2.sched_ns, 90);
	/* The entry was counted in the chunk before; its pair and error here. */
	ck_assert_uint_eq(evt_stats_syscall(s2, "sys_openat")->count, 0);
	ck_assert_uint_eq(evt_stats_syscall(s2, "sys_openat")->errors, 1);
	check_lat(&evt_stats_syscall(s2, "sys_openat")->lat, 1, 60, 60, 60);
	check_lat(&s2->sched_lat, 1, 90, 90, 90);
	ck_assert_uint_eq(s2->sys_unmatched, 0);
	ck_assert_int_eq(evt_stats_seed_wakeup(s2, 0, 1), -1);
	ck_assert_int_eq(evt_stats_seed_syscall(s2, -1, "sys_read", 1), -1);
	evt_stats_free(s);
	evt_stats_free(s2);
}
END_TEST

/* Changes far apart take new blocks of the compact history. */
START_TEST(long_gaps)
{
	struct evt_state *st = evt_state_new();
	const uint64_t T = 100 + (1ULL << 30);
	const struct evt_state_thread *t;

	targets(st, NULL);
	ev_switch(0, 100, 0, 0, 1);
	ev_irq(0, T, 5, "x");				/* a new block ... */
	ev_irq(0, T, 5, NULL);				/* ... undone at the same time */
	ev_sys(0, T + 10, "sys_read");
	ev_exit(0, T + 20, 0);
	ev_switch(0, T + 30, 1, 1, 0);
	ev_plain("timer_tick", 0, T + (3ULL << 30));
	evt_comp_state.finish(st, NULL);

	t = evt_state_thread(st, 1);
	check_states(t, 4, (const uint64_t[]){ 100, T + 10, T + 20, T + 30 }, (const uint8_t[]){ U, SC, U, BL });
	ck_assert_uint_eq(t->nblk, 2);
	ck_assert_uint_eq(t->cpu_ns, T + 30 - 100);
	ck_assert_int_eq(evt_state_thread_at(t, 99), EVT_TSTATE_UNKNOWN);
	ck_assert_int_eq(evt_state_thread_at(t, T + 5), EVT_TSTATE_USER);
	ck_assert_int_eq(evt_state_thread_at(t, T + 15), EVT_TSTATE_SYSCALL);
	ck_assert_int_eq(evt_state_thread_at(t, T + (2ULL << 30)), EVT_TSTATE_BLOCKED);
	evt_state_free(st);
}
END_TEST

START_TEST(statedump_seeding)
{
	struct evt_state *st = evt_state_new();
	const struct evt_state_thread *t;

	targets(st, NULL);
	ev_plain("lttng_statedump_start", 0, 40);
	ev_dump(50, 500, 500, 1, "sshd", 5);		/* LTTNG_WAIT: blocked */
	ev_dump(51, 501, 500, 1, "sshd-w", 2);		/* LTTNG_WAIT_CPU: runnable */
	ev_dump(52, 502, 502, 1, "zomb", 4);		/* LTTNG_ZOMBIE */
	ev_plain("lttng_statedump_end", 0, 60);
	t = evt_state_thread(st, 500);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->pid, 500);
	ck_assert_int_eq(t->ppid, 1);
	ck_assert_str_eq(t->comm, "sshd");
	ck_assert_int_eq(evt_state_thread_at(t, 55), EVT_TSTATE_BLOCKED);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st, 501), 55), EVT_TSTATE_RUNNABLE);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st, 502), 55), EVT_TSTATE_EXITED);

	ev_switch(0, 100, 0, 0, 501);
	check_states(evt_state_thread(st, 501), 2, (const uint64_t[]){ 51, 100 }, (const uint8_t[]){ RN, U });
	ck_assert_str_eq(evt_state_thread(st, 501)->comm, "t501");	/* the switch's comm is newer */
	ck_assert_int_eq(evt_state_thread(st, 501)->pid, 500);

	/* A new process (its parent: the forker's process), a new thread (the process's parent). */
	ev_fork(200, 500, 500, 600, 600, "sshd");
	ev_fork(210, 500, 500, 601, 500, "sshd-t");
	ev_exec(300, 600, "/usr/bin/a-very-long-program-name");
	t = evt_state_thread(st, 600);
	ck_assert_int_eq(t->pid, 600);
	ck_assert_int_eq(t->ppid, 500);
	ck_assert_str_eq(t->comm, "a-very-long-pro");
	ck_assert_int_eq(evt_state_thread_at(t, 250), EVT_TSTATE_RUNNABLE);
	t = evt_state_thread(st, 601);
	ck_assert_int_eq(t->pid, 500);
	ck_assert_int_eq(t->ppid, 1);

	/* A freed tid taken again is a new thread; the old one keeps its history. */
	ev_wakeup("sched_process_exit", 0, 400, 600);
	ev_wakeup("sched_process_free", 0, 410, 600);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st, 600), 420), EVT_TSTATE_EXITED);
	ev_fork(500, 501, 500, 600, 600, "new");
	ck_assert_str_eq(evt_state_thread(st, 600)->comm, "new");
	ck_assert_uint_eq(evt_state_nr_threads(st), 6 + 1);	/* 500 501 502 0 600 601 600 */
	evt_state_free(st);
}
END_TEST

START_TEST(window_seeded)
{
	struct evt_stats *ss = evt_stats_new();
	struct evt_state *st = evt_state_new();

	targets(st, ss);
	/* A window that starts inside 100's syscall and 100's interrupt. */
	ck_assert_int_eq(evt_state_seed_cpu(st, 0, 100), 0);
	ck_assert_int_eq(evt_stats_seed_cpu(ss, 0, 100), 0);
	ev_irq(0, 5000, 3, NULL);
	ev_exit(0, 5100, 0);
	ev_sys(0, 5200, "sys_write");
	ev_exit(0, 5300, 0);
	ev_switch(0, 5400, 100, 1, 0);
	evt_comp_state.finish(st, NULL);

	ck_assert_uint_eq(ss->sys_unmatched, 1);
	check_lat(&evt_stats_syscall(ss, "sys_write")->lat, 1, 100, 100, 100);
	ck_assert_uint_eq(evt_stats_thread(ss, 100)->events, 5);
	ck_assert_ptr_null(evt_stats_thread(ss, -1));
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 5000), 100);
	ck_assert_int_eq(evt_state_cpu_tid_at(st, 0, 4999), -1);
	ck_assert_uint_eq(evt_state_thread(st, 100)->cpu_ns, 400);
	check_states(evt_state_thread(st, 100), 4, (const uint64_t[]){ 5000, 5200, 5300, 5400 },
		     (const uint8_t[]){ U, SC, U, BL });
	evt_state_free(st);
	evt_stats_free(ss);
}
END_TEST

/* A packet header of @size bytes at @p. */
static void put_packet(uint8_t *p, size_t size, uint64_t begin, uint64_t seq, uint64_t discarded)
{
	struct evt_packet_header h;

	memset(&h, 0, sizeof(h));
	h.magic = EVT_CTF_MAGIC;
	h.stream_id = EVT_CHAN_COMPACT;
	h.timestamp_begin = begin;
	h.timestamp_end = begin + 10;
	h.content_size = EVT_PACKET_HEADER_SIZE * 8;
	h.packet_size = size * 8;
	h.packet_seq_num = seq;
	h.events_discarded = discarded;
	memcpy(p, &h, sizeof(h));
}

START_TEST(losses)
{
	static uint8_t map[4 * 256];
	struct evt_stats *ss = evt_stats_new();
	struct evt_stream streams[2];
	struct evt_pkt pk[4];
	unsigned int i;

	memset(streams, 0, sizeof(streams));
	put_packet(map, 256, 100, 0, 3);		/* lost before the first packet: 3 events */
	put_packet(map + 256, 256, 200, 1, 3);
	put_packet(map + 512, 256, 300, 2, 8);		/* +5 events */
	put_packet(map + 768, 256, 400, 5, 8);		/* 2 packets lost */
	for (i = 0; i < 4; i++) {
		static const uint64_t seq[4] = { 0, 1, 2, 5 }, discarded[4] = { 3, 3, 8, 8 };

		/* The index keeps each packet's counters (read_losses reads no page of the stream). */
		pk[i] = (struct evt_pkt){ .off = i * 256, .begin = 100 + 100 * i, .end = 110 + 100 * i,
					  .content = EVT_PACKET_HEADER_SIZE, .bytes = 256, .seq = seq[i],
					  .discarded = discarded[i] };
	}
	streams[0] = (struct evt_stream){ .id = 0, .cpu = 0, .channel = 0, .map = map, .size = sizeof(map),
					  .pk = pk, .npk = 4, .discarded = 8, .seq_gaps = 2 };
	streams[1] = (struct evt_stream){ .id = 1, .cpu = 1, .channel = 0 };
	memset(&fake_tr, 0, sizeof(fake_tr));
	fake_tr.md.cat = evt_builtin;
	fake_tr.streams = streams;
	fake_tr.nr_streams = 2;

	ck_assert_int_eq(evt_stats_read_losses(ss, &fake_tr), 0);
	ck_assert_uint_eq(ss->nr_streams, 2);
	ck_assert_uint_eq(ss->streams[0].discarded, 8);
	ck_assert_uint_eq(ss->streams[0].lost_packets, 2);
	ck_assert_uint_eq(ss->streams[1].discarded, 0);
	ck_assert_uint_eq(ss->streams[1].cpu, 1);
	ck_assert_uint_eq(ss->nr_losses, 3);
	ck_assert_uint_eq(ss->losses[0].ts, 100);
	ck_assert_uint_eq(ss->losses[0].discarded, 3);
	ck_assert_uint_eq(ss->losses[0].lost_packets, 0);
	ck_assert_uint_eq(ss->losses[1].ts, 300);
	ck_assert_uint_eq(ss->losses[1].discarded, 5);
	ck_assert_uint_eq(ss->losses[2].ts, 400);
	ck_assert_uint_eq(ss->losses[2].discarded, 0);
	ck_assert_uint_eq(ss->losses[2].lost_packets, 2);
	ck_assert_uint_eq(ss->losses[2].stream, 0);
	/* Read again: replaced, not added. */
	ck_assert_int_eq(evt_stats_read_losses(ss, &fake_tr), 0);
	ck_assert_uint_eq(ss->nr_losses, 3);
	/* Their windows: before the first packet (none), [previous end, end], [previous end, begin]. */
	ck_assert_uint_eq(ss->losses[1].from, 210);
	ck_assert_uint_eq(ss->losses[1].to, 310);
	ck_assert_uint_eq(ss->losses[2].from, 310);
	ck_assert_uint_eq(ss->losses[2].to, 400);
	{
		struct evt_lossmap m = { 0 };
		struct evt_loss *l;
		uint32_t n;
		const struct evt_loss_seam seam = { 0, 0, 50, 1, 1 };
		const uint64_t more[] = { 500, 600, 590, 700 };

		ck_assert_int_eq(evt_trace_losses(&fake_tr, &l, &n), 0);
		ck_assert_uint_eq(n, 3);
		ck_assert_int_eq(l[0].before, 1);
		ck_assert_int_eq(evt_lossmap_build(&m, l, n), 0);
		free(l);
		/* [210, 310] and [310, 400] touch: one window. */
		ck_assert_uint_eq(m.n, 1);
		ck_assert_uint_eq(m.w[0], 210);
		ck_assert_uint_eq(m.w[1], 400);
		ck_assert_int_eq(evt_lossmap_spans(&m, 100, 211), 1);
		ck_assert_int_eq(evt_lossmap_spans(&m, 100, 210), 0);	/* ends where the window starts */
		ck_assert_int_eq(evt_lossmap_spans(&m, 400, 500), 0);
		ck_assert_int_eq(evt_lossmap_spans(&m, 300, 300), 1);
		ck_assert_uint_eq(evt_lossmap_overlap(&m, 0, 1000), 190);
		ck_assert_uint_eq(evt_lossmap_overlap(&m, 300, 350), 50);
		/* Windows added merge with those there. */
		ck_assert_int_eq(evt_lossmap_add(&m, more, 2), 0);
		ck_assert_uint_eq(m.n, 2);
		ck_assert_uint_eq(m.w[2], 500);
		ck_assert_uint_eq(m.w[3], 700);
		ck_assert_uint_eq(evt_lossmap_overlap(&m, 0, 1000), 390);
		evt_lossmap_free(&m);
		/* With the packet before the first one known (a seam), its total is a loss after it. */
		ck_assert_int_eq(evt_trace_losses_seamed(&fake_tr, &seam, 1, &l, &n), 0);
		ck_assert_uint_eq(n, 3);
		ck_assert_int_eq(l[0].before, 0);
		ck_assert_uint_eq(l[0].events, 2);
		ck_assert_uint_eq(l[0].from, 50);
		ck_assert_uint_eq(l[0].to, 110);
		free(l);
	}
	evt_stats_free(ss);
}
END_TEST

/*
 * A loss window: latencies and durations that span it are counted apart,
 * CPU time inside it too; those beside it are measurements.
 */
START_TEST(losses_are_no_measurements)
{
	static uint8_t map[2 * 256];
	struct evt_stats *ss = evt_stats_new();
	struct evt_state *st = evt_state_new();
	struct evt_stream streams[1];
	struct evt_pkt pk[2];
	const struct evt_stats_syscall *y;

	targets(st, ss);
	/* CPU 0's stream: packets [100, 1000] and [2000, 3000], 7 events lost between: window [1000, 3000]. */
	put_packet(map, 256, 100, 0, 0);
	put_packet(map + 256, 256, 2000, 1, 7);
	pk[0] = (struct evt_pkt){ .off = 0, .begin = 100, .end = 1000, .content = EVT_PACKET_HEADER_SIZE,
				 .bytes = 256, .seq = 0, .discarded = 0 };
	pk[1] = (struct evt_pkt){ .off = 256, .begin = 2000, .end = 3000, .content = EVT_PACKET_HEADER_SIZE,
				 .bytes = 256, .seq = 1, .discarded = 7 };
	streams[0] = (struct evt_stream){ .id = 0, .cpu = 0, .channel = 0, .map = map, .size = sizeof(map),
					  .pk = pk, .npk = 2, .discarded = 7 };
	fake_tr.streams = streams;
	fake_tr.nr_streams = 1;
	ev_switch(0, 100, 0, 0, 10);
	ev_sys(0, 200, "sys_read");
	ev_exit(0, 300, 5);			/* 100: measured */
	ev_irq(1, 500, 9, "timer");
	ev_irq(1, 600, 9, NULL);		/* 100: measured */
	ev_wakeup("sched_wakeup", 1, 700, 20);
	ev_switch(1, 800, 0, 0, 20);		/* 100: measured */
	ev_switch(1, 850, 20, 1, 0);
	ev_sys(0, 900, "sys_read");
	ev_irq(1, 950, 9, "timer");
	ev_wakeup("sched_wakeup", 1, 990, 20);
	ev_irq(1, 1050, 9, NULL);		/* spans */
	ev_exit(0, 2100, -11);			/* spans the window */
	ev_switch(1, 2500, 0, 0, 20);		/* spans */
	ev_switch(0, 2600, 10, 1, 0);
	evt_comp_state.finish(st, NULL);
	evt_comp_stats.finish(ss, NULL);

	y = evt_stats_syscall(ss, "sys_read");
	check_lat(&y->lat, 1, 100, 100, 100);
	ck_assert_uint_eq(y->lat.spans_loss, 1);
	ck_assert_uint_eq(y->count, 2);
	/* The return value of a pair that spans a loss is no syscall's either. */
	ck_assert_uint_eq(y->errors, 0);
	ck_assert_uint_eq(y->rets.success, 1);
	ck_assert_uint_eq(y->rets.n, 0);
	check_lat(&evt_stats_irq(ss, 9)->dur, 1, 100, 100, 100);
	ck_assert_uint_eq(evt_stats_irq(ss, 9)->dur.spans_loss, 1);
	check_lat(&ss->sched_lat, 1, 100, 100, 100);
	ck_assert_uint_eq(ss->sched_lat.spans_loss, 1);
	ck_assert_uint_eq(evt_stats_thread(ss, 20)->wake.spans_loss, 1);
	/* The worst of each kind is a measurement. */
	ck_assert_uint_eq(ss->worst[EVT_WORST_SYSCALL].n, 1);
	ck_assert_uint_eq(ss->worst[EVT_WORST_SYSCALL].v[0].begin, 200);
	/* CPU time: tid 10 ran [100, 2600], 2000 of it in the window [1000, 3000]. */
	ck_assert_uint_eq(evt_state_thread(st, 10)->cpu_ns, 900);
	ck_assert_uint_eq(evt_state_thread(st, 10)->cpu_lossy_ns, 1600);
	/* CPU 0's time: busy to 1000, then in the window to 2600, the last event. */
	ck_assert_uint_eq(ss->cpus[0].busy_ns, 900);
	ck_assert_uint_eq(ss->cpus[0].lossy_ns, 1600);
	ck_assert_uint_eq(ss->cpus[0].idle_ns, 0);
	/*
	 * CPU 1, from the first event (100): idle to 800 but its IRQ [500,
	 * 600], 20 busy to 850, idle to 1000 but the IRQ from 950, the window
	 * to the last event (2600).
	 */
	ck_assert_uint_eq(ss->cpus[1].irq_ns, 100 + 50);
	ck_assert_uint_eq(ss->cpus[1].busy_ns, 50);
	ck_assert_uint_eq(ss->cpus[1].idle_ns, 700 - 100 + 150 - 50);
	ck_assert_uint_eq(ss->cpus[1].lossy_ns, 1600);
	evt_state_free(st);
	evt_stats_free(ss);
}
END_TEST

/* A bit of everything, for the saved forms. */
static void scenario(struct evt_state *st, struct evt_stats *ss)
{
	targets(st, ss);
	ev_dump(10, 500, 500, 1, "sshd", 5);
	ev_switch(0, 100, 0, 0, 1);
	ev_switch(1, 100, 0, 0, 500);
	ev_sys(0, 150, "sys_read");
	ev_irq(0, 160, 19, "eth0");
	ev_irq(0, 170, 19, NULL);
	ev_exit(0, 200, -2);
	ev_softirq("softirq_raise", 1, 210, 3);
	ev_softirq("softirq_entry", 1, 220, 3);
	ev_softirq("softirq_exit", 1, 260, 3);
	ev_wakeup("sched_wakeup", 1, 270, 2);
	ev_switch(0, 300, 1, 0, 2);
	ev_sys(1, 310, "compat_sys_read");
	ev_exit(1, 330, 4);
	ev_switch(1, 400, 500, 1, 0);
	ev_exit(0, 450, 0);
	ev_plain("timer_tick", 0, 500);
	evt_comp_state.finish(st, NULL);
	evt_comp_stats.finish(ss, NULL);
}

static void save(const struct evt_computation *c, const void *r, struct evt_buf *b)
{
	memset(b, 0, sizeof(*b));
	ck_assert_int_eq(c->save(r, b), 0);
	ck_assert_uint_gt(b->n, 0);
}

/* Load @p[0..n) into a fresh result: its return; a loaded one is saved again into @again. */
static int load(const struct evt_computation *c, const uint8_t *p, size_t n, struct evt_buf *again)
{
	void *r = c->create(NULL);
	int ret;

	ck_assert_ptr_nonnull(r);
	ret = c->load(r, p, n);
	if (!ret && again)
		save(c, r, again);
	c->destroy(r);
	return ret;
}

static void check_reload(const struct evt_computation *c, const void *r)
{
	struct evt_buf a, b;
	uint8_t *bad;
	size_t i;

	save(c, r, &a);
	/* Equal: the loaded result saves to the same bytes. */
	ck_assert_int_eq(load(c, a.p, a.n, &b), 0);
	ck_assert_uint_eq(a.n, b.n);
	ck_assert(!memcmp(a.p, b.p, a.n));
	evt_buf_free(&b);
	/* Every truncation is refused, and one byte more too. */
	for (i = 0; i < a.n; i++)
		ck_assert_msg(load(c, a.p, i, NULL) == -1, "%s: %zu of %zu bytes loaded", c->name, i, a.n);
	bad = malloc(a.n + 1);
	ck_assert_ptr_nonnull(bad);
	memcpy(bad, a.p, a.n);
	bad[a.n] = 0;
	ck_assert_int_eq(load(c, bad, a.n + 1, NULL), -1);
	/* The magic, then a count made huge (the CPUs' count, after 24 bytes). */
	bad[0] ^= 1;
	ck_assert_int_eq(load(c, bad, a.n, NULL), -1);
	bad[0] ^= 1;
	if (c == &evt_comp_state) {
		memset(bad + 24, 0xff, 4);
		ck_assert_int_eq(load(c, bad, a.n, NULL), -1);
		memcpy(bad, a.p, a.n);
	}
	/* Any byte flipped: loaded or refused, never a crash (ASan watches). */
	for (i = 0; i < a.n; i++) {
		unsigned int bit;

		for (bit = 0; bit < 8; bit += 3) {
			bad[i] ^= (uint8_t)(1u << bit);
			load(c, bad, a.n, NULL);
			bad[i] ^= (uint8_t)(1u << bit);
		}
		bad[i] ^= 0xff;
		load(c, bad, a.n, NULL);
		bad[i] ^= 0xff;
	}
	free(bad);
	evt_buf_free(&a);
}

START_TEST(saved_forms)
{
	struct evt_state *st = evt_state_new();
	struct evt_stats *ss = evt_stats_new();
	struct evt_state *st2 = evt_state_new();
	struct evt_stats *ss2 = evt_stats_new();
	struct evt_buf b;

	scenario(st, ss);
	/* A history of two blocks too (long_gaps'). */
	targets(st, NULL);
	ev_sys(0, 1ULL << 31, "sys_read");
	ev_exit(0, (1ULL << 31) + 5, 0);
	evt_comp_state.finish(st, NULL);
	ck_assert_uint_eq(evt_state_thread(st, 2)->nblk, 2);
	check_reload(&evt_comp_state, st);
	check_reload(&evt_comp_stats, ss);

	/* And the loaded results answer as the built ones. */
	save(&evt_comp_state, st, &b);
	ck_assert_int_eq(evt_comp_state.load(st2, b.p, b.n), 0);
	evt_buf_free(&b);
	ck_assert_uint_eq(evt_state_thread(st2, 1)->cpu_ns, evt_state_thread(st, 1)->cpu_ns);
	ck_assert_uint_eq(evt_state_thread(st2, 1)->cpu_ns, 200);
	ck_assert_int_eq(evt_state_cpu_tid_at(st2, 0, 350), 2);
	ck_assert_int_eq(evt_state_cpu_tid_at(st2, 1, 450), 0);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st2, 1), 165), EVT_TSTATE_IRQ);
	ck_assert_int_eq(evt_state_thread_at(evt_state_thread(st2, 500), 50), EVT_TSTATE_BLOCKED);
	ck_assert_str_eq(evt_state_thread(st2, 500)->comm, "t500");
	ck_assert_uint_eq(evt_state_nr_threads(st2), evt_state_nr_threads(st));

	save(&evt_comp_stats, ss, &b);
	ck_assert_int_eq(evt_comp_stats.load(ss2, b.p, b.n), 0);
	evt_buf_free(&b);
	ck_assert_uint_eq(ss2->events, 17);
	check_lat(&evt_stats_syscall(ss2, "sys_read")->lat, 1, 50, 50, 50);
	ck_assert_uint_eq(evt_stats_syscall(ss2, "sys_read")->errors, 1);
	check_lat(&evt_stats_syscall(ss2, "compat_sys_read")->lat, 1, 20, 20, 20);
	ck_assert_uint_eq(ss2->sys_unmatched, 1);
	ck_assert_str_eq(evt_stats_irq(ss2, 19)->name, "eth0");
	check_lat(&ss2->softirq[3].dur, 1, 40, 40, 40);
	check_lat(&ss2->sched_lat, 1, 30, 30, 30);
	ck_assert_uint_eq(evt_stats_thread(ss2, 500)->events, 7);
	ck_assert_uint_eq(evt_stats_event(ss2, "sched_switch")->count, 4);
	/* A corrupt form leaves the result as it was. */
	ck_assert_int_eq(evt_comp_stats.load(ss2, (const uint8_t *)"nonsense", 8), -1);
	ck_assert_uint_eq(ss2->events, 17);

	evt_state_free(st);
	evt_stats_free(ss);
	evt_state_free(st2);
	evt_stats_free(ss2);
}
END_TEST

/* marks: per CPU the first event, the first switch's prev_tid, IRQ and softirq entry times. */
START_TEST(marks)
{
	struct evt_marks *mk = evt_comp_marks.create(NULL);
	const struct evt_marks_cpu *c0, *c1;

	ck_assert_ptr_nonnull(mk);
	targets(NULL, NULL);
	g_mk = mk;
	ev_dump(10, 500, 500, 1, "sshd", 5);
	ev_plain("timer_tick", 0, 50);
	ev_switch(0, 100, 7, 0, 1);
	ev_switch(1, 100, 0, 0, 500);
	ev_irq(0, 160, 19, "eth0");
	ev_irq(0, 170, 19, NULL);
	ev_softirq("softirq_raise", 1, 210, 3);
	ev_softirq("softirq_entry", 1, 220, 3);
	ev_softirq("softirq_exit", 1, 260, 3);
	ev_switch(0, 300, 1, 0, 2);
	ev_irq(0, 305, 19, "eth0");
	g_mk = NULL;
	ck_assert(evt_marks_complete(mk));
	ck_assert_uint_eq(evt_marks_nr_cpus(mk), 2);
	c0 = evt_marks_cpu(mk, 0);
	c1 = evt_marks_cpu(mk, 1);
	ck_assert_ptr_nonnull(c0);
	ck_assert_ptr_nonnull(c1);
	ck_assert_ptr_null(evt_marks_cpu(mk, 2));
	/* The state dump's CPU is 0 here: its first event. */
	ck_assert_uint_eq(c0->first, 10);
	ck_assert_uint_eq(c1->first, 100);
	ck_assert(c0->switched && c1->switched);
	ck_assert_uint_eq(c0->first_switch, 100);
	ck_assert_int_eq(c0->first_prev, 7);
	ck_assert_int_eq(c1->first_prev, 0);
	/* Entries in [a, b): raises and exits (ev_irq without a name) are not entries. */
	ck_assert_uint_eq(evt_marks_count(mk, 0, EVT_MARK_IRQ, 0, 1000), 2);
	ck_assert_uint_eq(evt_marks_count(mk, 0, EVT_MARK_IRQ, 160, 170), 1);
	ck_assert_uint_eq(evt_marks_count(mk, 0, EVT_MARK_IRQ, 161, 305), 0);
	ck_assert_uint_eq(evt_marks_count(mk, 0, EVT_MARK_IRQ, 161, 306), 1);
	ck_assert_uint_eq(evt_marks_count(mk, 0, EVT_MARK_IRQ, 160, 160), 0);
	ck_assert_uint_eq(evt_marks_count(mk, 1, EVT_MARK_IRQ, 0, 1000), 0);
	ck_assert_uint_eq(evt_marks_count(mk, 1, EVT_MARK_SOFTIRQ, 0, 1000), 1);
	ck_assert_uint_eq(evt_marks_count(mk, 1, EVT_MARK_SOFTIRQ, 221, 1000), 0);
	ck_assert_uint_eq(evt_marks_count(mk, 9, EVT_MARK_SOFTIRQ, 0, 1000), 0);
	check_reload(&evt_comp_marks, mk);
	evt_comp_marks.destroy(mk);
}
END_TEST

START_TEST(hooks_in_ctx)
{
	struct evt_state *st = evt_comp_state.create(NULL);
	struct evt_stats *ss = evt_comp_stats.create(NULL);
	struct evt_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ck_assert_int_eq(evt_comp_state.hook_adder(&ctx, st), 0);
	ck_assert_int_eq(evt_comp_stats.hook_adder(&ctx, ss), 0);
	ck_assert_uint_eq(ctx.event.n, 2);
	evt_comp_stats.hook_remover(&ctx, ss);
	evt_comp_state.hook_remover(&ctx, st);
	ck_assert_uint_eq(ctx.event.n, 0);
	evt_hooks_free(&ctx.event);
	ck_assert_str_eq(evt_comp_state.name, "state");
	ck_assert_str_eq(evt_comp_stats.name, "stats");
	evt_comp_state.destroy(st);
	evt_comp_stats.destroy(ss);
}
END_TEST

Suite *comps_suite(void)
{
	Suite *s = suite_create("comps");
	TCase *tc = tcase_create("comps");

	tcase_add_test(tc, stats_syscalls);
	tcase_add_test(tc, irq_in_syscall);
	tcase_add_test(tc, softirq);
	tcase_add_test(tc, sched_latency);
	tcase_add_test(tc, lost_handler_exits);
	tcase_add_test(tc, lost_handler_exits_state);
	tcase_add_test(tc, losses_are_no_measurements);
	tcase_add_test(tc, cpu_time);
	tcase_add_test(tc, long_gaps);
	tcase_add_test(tc, statedump_seeding);
	tcase_add_test(tc, window_seeded);
	tcase_add_test(tc, losses);
	tcase_add_test(tc, saved_forms);
	tcase_add_test(tc, marks);
	tcase_add_test(tc, hooks_in_ctx);
	tcase_add_test(tc, curtask_follows_the_scheduler);
	tcase_add_test(tc, stats_observer_and_seeds);
	comps_idxmap_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}
