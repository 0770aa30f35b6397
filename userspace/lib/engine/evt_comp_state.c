// SPDX-License-Identifier: GPL-2.0
/*
 * The "state" computation: which thread runs on each CPU over time, and
 * each thread's states (running in user mode, in a syscall, under an
 * interrupt or a softirq, runnable, blocked, exited) over time, with its
 * identity (pid, ppid, comm) and CPU time.
 *
 * Histories are change points in growable arrays, an interval running to
 * the next change point or to the result's end: no allocation per
 * interval, and a query is a binary search. A CPU's: begin time and tid,
 * 12 bytes a switch. A thread's, nearly one per event (syscall entries
 * and exits, interrupts, switches): 4 bytes a change, its time relative
 * to a block base (29 bits) and its state (3 bits), a new block (16 bytes)
 * when the time is too far from the current one's base; arrays are
 * trimmed to size when the result is closed.
 *
 * The state dump (lttng_statedump_process_state) seeds threads before
 * they are first scheduled; its status codes are lttng-modules'
 * (lttng-statedump-impl.c, enum lttng_process_status).
 *
 * This file builds the result from the events; the queries, the saved
 * form and the computation's entry in the engine are evt_comp_state_rec.c.
 */
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "engine/evt_comp_state_int.h"

/* lttng-modules' enum lttng_process_status. */
enum {
	LTTNG_UNNAMED = 0, LTTNG_WAIT_FORK = 1, LTTNG_WAIT_CPU = 2, LTTNG_EXIT = 3,
	LTTNG_ZOMBIE = 4, LTTNG_WAIT = 5, LTTNG_RUN = 6, LTTNG_DEAD = 7,
};

static const char *const tstate_names[EVT_TSTATE_COUNT] = {
	[EVT_TSTATE_UNKNOWN] = "unknown", [EVT_TSTATE_USER] = "user",
	[EVT_TSTATE_SYSCALL] = "syscall", [EVT_TSTATE_IRQ] = "irq",
	[EVT_TSTATE_SOFTIRQ] = "softirq", [EVT_TSTATE_RUNNABLE] = "runnable",
	[EVT_TSTATE_BLOCKED] = "blocked", [EVT_TSTATE_EXITED] = "exited",
};

const char *evt_tstate_name(enum evt_tstate s)
{
	return (unsigned int)s < EVT_TSTATE_COUNT ? tstate_names[s] : "?";
}

struct evt_state *evt_state_new(void)
{
	return calloc(1, sizeof(struct evt_state));
}

void evt_state_clear(struct evt_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nr_cpus; i++) {
		free(st->cpus[i].begin);
		free(st->cpus[i].tid);
	}
	free(st->cpus);
	for (i = 0; i < st->nr_th; i++) {
		free(st->th[i].ch);
		free(st->th[i].blk);
	}
	free(st->th);
	evt_tidmap_free(&st->map);
	evt_kinds_free(&st->kinds);
	evt_lossmap_free(&st->losses);
	memset(st, 0, sizeof(*st));
}

void evt_state_free(struct evt_state *st)
{
	if (!st)
		return;
	evt_state_clear(st);
	free(st);
}

/* ---- Building ---- */

struct state_cpu *evt_state_get_cpu(struct evt_state *st, unsigned int cpu)
{
	if (cpu >= EVT_MAX_CPUS)
		return NULL;
	if (cpu >= st->nr_cpus) {
		uint32_t i;

		if (evt_grow(&st->cpus, &st->cap_cpus, cpu + 1, sizeof(*st->cpus)))
			return NULL;
		for (i = st->nr_cpus; i <= cpu; i++) {
			memset(&st->cpus[i], 0, sizeof(st->cpus[i]));
			st->cpus[i].cur = -1;
			st->cpus[i].seed = -1;
		}
		st->nr_cpus = cpu + 1;
	}
	return &st->cpus[cpu];
}

struct evt_state_thread *evt_state_new_thread(struct evt_state *st, int32_t tid)
{
	struct evt_state_thread *t;

	if (evt_grow(&st->th, &st->cap_th, (size_t)st->nr_th + 1, sizeof(*st->th)) ||
	    evt_tidmap_set(&st->map, tid, st->nr_th))
		return NULL;
	t = &st->th[st->nr_th++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = t->ppid = -1;
	t->cpu = -1;
	if (!tid)
		strcpy(t->comm, "swapper");
	return t;
}

/* The thread @tid (made when new), its comm updated from @comm when given. Valid until the next. */
static struct evt_state_thread *get_thread(struct evt_state *st, int32_t tid, const char *comm)
{
	long i = evt_tidmap_get(&st->map, tid);
	struct evt_state_thread *t = i >= 0 ? &st->th[i] : evt_state_new_thread(st, tid);

	if (t && comm && comm[0] && tid)
		memcpy(t->comm, comm, sizeof(t->comm));
	return t;
}

/* Append a change at @ts (not before the last one). 0, or -1 (no memory: the change is missed). */
static int append_change(struct evt_state_thread *t, uint64_t ts, uint8_t s)
{
	if (!t->nblk || ts - t->blk[t->nblk - 1].base >= DELTA_LIMIT) {
		if (evt_grow(&t->blk, &t->cap_blk, (size_t)t->nblk + 1, sizeof(*t->blk)))
			return -1;
		if (evt_grow(&t->ch, &t->cap_ch, (size_t)t->nch + 1, sizeof(*t->ch)))
			return -1;
		t->blk[t->nblk].base = ts;
		t->blk[t->nblk].first = t->nch;
		t->nblk++;
	} else if (evt_grow(&t->ch, &t->cap_ch, (size_t)t->nch + 1, sizeof(*t->ch))) {
		return -1;
	}
	t->ch[t->nch++] = (uint32_t)(ts - t->blk[t->nblk - 1].base) << STATE_BITS | s;
	t->last_ch = ts;
	return 0;
}

static void drop_last_change(struct evt_state_thread *t)
{
	t->nch--;
	if (t->blk[t->nblk - 1].first == t->nch)
		t->nblk--;
	t->last_ch = t->nch ? change_ts(t, t->nch - 1) : 0;
}

static void set_state(struct evt_state_thread *t, uint64_t ts, uint8_t s)
{
	if (t->state == s && (t->nch || s == EVT_TSTATE_UNKNOWN))
		return;
	t->state = s;
	/* tid 0 is every CPU's idle task at once: no one history. */
	if (!t->tid)
		return;
	/* Times never go back in a history (binary searches rely on it). */
	if (t->nch && ts < t->last_ch)
		ts = t->last_ch;
	if (t->nch && t->last_ch == ts) {
		/* Two changes at one time: the later wins, and may undo the one before. */
		if (t->nch >= 2 && change_state(t, t->nch - 2) == s)
			drop_last_change(t);
		else
			t->ch[t->nch - 1] = (t->ch[t->nch - 1] & ~((1u << STATE_BITS) - 1)) | s;
		return;
	}
	if (t->nch && change_state(t, t->nch - 1) == s)
		return;
	/* No memory: the history misses a change, the rest goes on. */
	append_change(t, ts, s);
}

static uint8_t running_state(const struct evt_state_thread *t, const struct state_cpu *c)
{
	if (c->depth)
		return c->depth <= IRQ_STACK ? c->stack[c->depth - 1] : EVT_TSTATE_IRQ;
	return t->in_syscall ? EVT_TSTATE_SYSCALL : EVT_TSTATE_USER;
}

static struct evt_state_thread *thread_of(struct evt_state *st, int32_t tid)
{
	long i = tid >= 0 ? evt_tidmap_get(&st->map, tid) : -1;

	return i >= 0 ? &st->th[i] : NULL;
}

/* @t ran [a, b): what of it lies in a loss window is unknown (cpu_lossy_ns), the rest is measured. */
static void add_cpu_time(const struct evt_state *st, struct evt_state_thread *t, uint64_t a, uint64_t b)
{
	uint64_t lossy;

	if (b <= a)
		return;
	lossy = evt_lossmap_overlap(&st->losses, a, b);
	t->cpu_lossy_ns += lossy;
	t->cpu_ns += b - a - lossy;
}

/*
 * The thread running on @c (CPU @cpu) stops at @ts: its CPU time is the
 * CPU's to count (tid 0 runs on every idle CPU at once).
 */
static void cpu_stop(struct evt_state *st, struct state_cpu *c, unsigned int cpu, uint64_t ts)
{
	struct evt_state_thread *t = thread_of(st, c->cur);

	if (!t)
		return;
	add_cpu_time(st, t, c->since, ts);
	if (t->cpu == (int32_t)cpu)
		t->cpu = -1;
}

static int cpu_append(struct state_cpu *c, uint64_t ts, int32_t tid)
{
	c->cur = tid;
	c->since = ts;
	if (c->n && ts < c->begin[c->n - 1])
		ts = c->begin[c->n - 1];
	/* Two switches at one time: the later one's thread holds the (empty) interval. */
	if (c->n && c->begin[c->n - 1] == ts) {
		c->tid[c->n - 1] = tid;
		return 0;
	}
	if (evt_grow(&c->begin, &c->cap_begin, (size_t)c->n + 1, sizeof(*c->begin)) ||
	    evt_grow(&c->tid, &c->cap_tid, (size_t)c->n + 1, sizeof(*c->tid)))
		return -1;
	c->begin[c->n] = ts;
	c->tid[c->n] = tid;
	c->n++;
	return 0;
}

/* @tid runs on CPU @cpu from @ts (what ran there before was stopped). */
static int start_running(struct evt_state *st, struct state_cpu *c, unsigned int cpu, int32_t tid,
			 const char *comm, uint64_t ts)
{
	struct evt_state_thread *t = get_thread(st, tid, comm);

	if (!t)
		return -1;
	/*
	 * Still running elsewhere for us: a migration whose switch-in is
	 * stamped before the old CPU's switch-out (each CPU has its own
	 * clock). Each CPU keeps its own account, as lttng-cputop does: the
	 * old CPU's switch-out ends its interval there.
	 */
	t->cpu = tid ? (int32_t)cpu : -1;
	set_state(t, ts, running_state(t, c));
	return cpu_append(c, ts, tid);
}

static struct evt_state_thread *cur_thread(struct evt_state *st, const struct state_cpu *c)
{
	return c->cur > 0 ? thread_of(st, c->cur) : NULL;
}

static void on_switch(struct evt_state *st, struct state_cpu *c, const struct evt_engine_event *ev,
		      const struct evt_kind_entry *ke)
{
	const int32_t prev = (int32_t)evt_kf_int(ev, ke, EVT_KF_PREV_TID);
	const int32_t next = (int32_t)evt_kf_int(ev, ke, EVT_KF_NEXT_TID);
	const uint64_t prev_state = (uint64_t)evt_kf_int(ev, ke, EVT_KF_PREV_STATE);
	char prev_comm[16], next_comm[16];
	struct evt_state_thread *t;

	if (prev < 0 || next < 0)
		return;
	evt_kf_str(ev, ke, EVT_KF_PREV_COMM, prev_comm, sizeof(prev_comm));
	evt_kf_str(ev, ke, EVT_KF_NEXT_COMM, next_comm, sizeof(next_comm));
	/* Another thread than prev was running for us: its end was lost. */
	if (c->cur > 0 && c->cur != prev && (t = cur_thread(st, c)) && t->cpu == (int32_t)ev->cpu)
		set_state(t, ev->ts, EVT_TSTATE_UNKNOWN);
	/*
	 * The CPU's first switch: prev has run there since the first event
	 * (as lttng-cputop counts a thread running when its period starts).
	 */
	if (c->cur < 0 && !c->n && prev > 0) {
		struct evt_state_thread *p = get_thread(st, prev, prev_comm);

		if (p && !cpu_append(c, st->first_ts, prev) && p->cpu < 0)
			p->cpu = (int32_t)ev->cpu;
	}
	cpu_stop(st, c, ev->cpu, ev->ts);
	t = get_thread(st, prev, prev_comm);
	if (!t)
		return;
	if (t->cpu < 0) {
		/* prev_state 0: preempted (TASK_RUNNING), it still wants the CPU. */
		set_state(t, ev->ts, !prev_state ? EVT_TSTATE_RUNNABLE :
				     t->exited ? EVT_TSTATE_EXITED : EVT_TSTATE_BLOCKED);
	}
	/* A switch is never inside an interrupt: one left open lost its exit. */
	c->depth = 0;
	start_running(st, c, ev->cpu, next, next_comm, ev->ts);
}

/* The level of the CPU's open softirq, or -1. */
static int open_softirq(const struct state_cpu *c)
{
	unsigned int j;

	for (j = 0; j < c->depth && j < IRQ_STACK; j++)
		if (c->stack[j] == EVT_TSTATE_SOFTIRQ)
			return (int)j;
	return -1;
}

/*
 * An IRQ or softirq entry (@kind, @entry) or exit. Handlers of one kind do
 * not nest on a CPU (an IRQ may interrupt a softirq, not another IRQ; a
 * softirq never another softirq): an entry while one of its kind is open
 * means that one's exit was lost, and it is replaced, so the thread's state
 * comes back to it at the next exit instead of staying IRQ until a switch.
 */
static void on_interrupt(struct evt_state *st, struct state_cpu *c, const struct evt_engine_event *ev,
			 uint8_t kind, int entry)
{
	const int soft = open_softirq(c);
	const int irq_on_top = c->depth && c->depth <= IRQ_STACK && c->stack[c->depth - 1] == EVT_TSTATE_IRQ;
	struct evt_state_thread *t;

	if (entry) {
		if (kind == EVT_TSTATE_IRQ && irq_on_top)
			c->depth--;
		else if (kind == EVT_TSTATE_SOFTIRQ && soft >= 0)
			c->depth = (unsigned int)soft;
		if (c->depth < IRQ_STACK)
			c->stack[c->depth] = kind;
		c->depth++;
	} else if (kind == EVT_TSTATE_IRQ && irq_on_top) {
		c->depth--;
	} else if (kind == EVT_TSTATE_SOFTIRQ && soft >= 0) {
		/* An IRQ still open above it lost its exit too. */
		c->depth = (unsigned int)soft;
	} else {
		/* An exit whose entry came before the window (or was lost): nothing to restore. */
		return;
	}
	t = cur_thread(st, c);
	if (t)
		set_state(t, ev->ts, running_state(t, c));
}

static void on_syscall(struct evt_state *st, struct state_cpu *c, const struct evt_engine_event *ev,
		       int entry)
{
	struct evt_state_thread *t = cur_thread(st, c);

	if (!t)
		return;
	t->in_syscall = (uint8_t)entry;
	set_state(t, ev->ts, running_state(t, c));
}

static void on_wakeup(struct evt_state *st, const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	const int32_t tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_W_TID);
	char comm[16];
	struct evt_state_thread *t;

	if (tid <= 0)
		return;
	evt_kf_str(ev, ke, EVT_KF_W_COMM, comm, sizeof(comm));
	t = get_thread(st, tid, comm);
	/* A running thread may be "woken" before it switches out: it never slept. */
	if (t && t->cpu < 0)
		set_state(t, ev->ts, EVT_TSTATE_RUNNABLE);
}

static void on_fork(struct evt_state *st, const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	const int32_t ptid = (int32_t)evt_kf_int(ev, ke, EVT_KF_F_PARENT_TID);
	const int32_t ppid = (int32_t)evt_kf_int(ev, ke, EVT_KF_F_PARENT_PID);
	const int32_t ctid = (int32_t)evt_kf_int(ev, ke, EVT_KF_F_CHILD_TID);
	const int32_t cpid = (int32_t)evt_kf_int(ev, ke, EVT_KF_F_CHILD_PID);
	int32_t parent_ppid = -1;
	char comm[16];
	struct evt_state_thread *t;
	long i;

	if (ctid <= 0)
		return;
	evt_kf_str(ev, ke, EVT_KF_F_CHILD_COMM, comm, sizeof(comm));
	i = ptid > 0 ? evt_tidmap_get(&st->map, ptid) : -1;
	if (i >= 0)
		parent_ppid = st->th[i].ppid;
	i = evt_tidmap_get(&st->map, ctid);
	/* A tid the trace saw die is a new thread now. */
	t = i >= 0 && !st->th[i].freed && !st->th[i].exited ? &st->th[i] : evt_state_new_thread(st, ctid);
	if (!t)
		return;
	if (comm[0])
		memcpy(t->comm, comm, sizeof(t->comm));
	t->pid = cpid;
	/* A new thread of the parent's process has the process's parent. */
	t->ppid = cpid == ppid ? parent_ppid : ppid;
	if (t->cpu < 0)
		set_state(t, ev->ts, EVT_TSTATE_RUNNABLE);
}

static void on_exec(struct evt_state *st, const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	struct evt_state_thread *t;
	char comm[16];
	int32_t tid;

	if (evt_kf_exec_comm(ev, ke, &tid, comm) || !(t = get_thread(st, tid, NULL)))
		return;
	memcpy(t->comm, comm, sizeof(t->comm));
}

static void on_exit_free(struct evt_state *st, const struct evt_engine_event *ev,
			 const struct evt_kind_entry *ke, int freed)
{
	const int32_t tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_W_TID);
	struct evt_state_thread *t;
	long i;

	if (tid <= 0 || (i = evt_tidmap_get(&st->map, tid)) < 0)
		return;
	t = &st->th[i];
	t->exited = 1;
	if (freed) {
		t->freed = 1;
		if (t->cpu < 0)
			set_state(t, ev->ts, EVT_TSTATE_EXITED);
	}
}

static void on_statedump(struct evt_state *st, const struct evt_engine_event *ev,
			 const struct evt_kind_entry *ke)
{
	const int32_t tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_SD_TID);
	const int64_t status = evt_kf_int(ev, ke, EVT_KF_SD_STATUS);
	char comm[16];
	struct evt_state_thread *t;

	if (tid < 0)
		return;
	evt_kf_str(ev, ke, EVT_KF_SD_NAME, comm, sizeof(comm));
	t = get_thread(st, tid, comm);
	if (!t)
		return;
	t->pid = (int32_t)evt_kf_int(ev, ke, EVT_KF_SD_PID);
	t->ppid = (int32_t)evt_kf_int(ev, ke, EVT_KF_SD_PPID);
	/* A thread the trace has seen already knows better than the dump. */
	if (t->cpu >= 0 || t->nch)
		return;
	switch (status) {
	case LTTNG_WAIT_FORK: case LTTNG_WAIT_CPU:
		set_state(t, ev->ts, EVT_TSTATE_RUNNABLE);
		break;
	case LTTNG_WAIT:
		set_state(t, ev->ts, EVT_TSTATE_BLOCKED);
		break;
	case LTTNG_EXIT: case LTTNG_ZOMBIE: case LTTNG_DEAD:
		t->exited = 1;
		set_state(t, ev->ts, EVT_TSTATE_EXITED);
		break;
	default:
		/* LTTNG_RUN: on a CPU we learn of at its switch; unnamed: nothing known. */
		break;
	}
}

/* The CPUs seeded before any event start running at the first one. */
static void start_seeds(struct evt_state *st, uint64_t ts)
{
	uint32_t i;

	for (i = 0; i < st->nr_cpus; i++) {
		struct state_cpu *c = &st->cpus[i];

		if (c->seed >= 0 && c->cur < 0)
			start_running(st, c, i, c->seed, NULL, ts);
		c->seed = -1;
	}
	st->seeds = 0;
}

int evt_state_event_hook(void *data, void *call_data)
{
	struct evt_state *st = data;
	const struct evt_engine_event *ev = call_data;
	const struct evt_kind_entry *ke;
	struct state_cpu *c;

	if (!st->seen) {
		st->seen = 1;
		st->first_ts = ev->ts;
	}
	/* No memory for the windows: every slice counts, as before losses were known. */
	if (st->losses.made_for != ev->tr)
		evt_lossmap_of_trace(&st->losses, ev->tr);
	if (st->seeds)
		start_seeds(st, ev->ts);
	st->last_ts = ev->ts;
	ke = evt_kind_of(&st->kinds, ev);
	if (!ke || ke->kind == EVT_K_OTHER)
		return 0;
	c = evt_state_get_cpu(st, ev->cpu);
	if (!c)
		return 0;
	switch (ke->kind) {
	case EVT_K_SWITCH:
		on_switch(st, c, ev, ke);
		break;
	case EVT_K_SYS_ENTRY:
	case EVT_K_SYS_EXIT:
		on_syscall(st, c, ev, ke->kind == EVT_K_SYS_ENTRY);
		break;
	case EVT_K_IRQ_ENTRY:
	case EVT_K_IRQ_EXIT:
		on_interrupt(st, c, ev, EVT_TSTATE_IRQ, ke->kind == EVT_K_IRQ_ENTRY);
		break;
	case EVT_K_SOFTIRQ_ENTRY:
	case EVT_K_SOFTIRQ_EXIT:
		on_interrupt(st, c, ev, EVT_TSTATE_SOFTIRQ, ke->kind == EVT_K_SOFTIRQ_ENTRY);
		break;
	case EVT_K_WAKEUP:
	case EVT_K_WAKING:
		on_wakeup(st, ev, ke);
		break;
	case EVT_K_FORK:
		on_fork(st, ev, ke);
		break;
	case EVT_K_EXEC:
		on_exec(st, ev, ke);
		break;
	case EVT_K_EXIT:
	case EVT_K_FREE:
		on_exit_free(st, ev, ke, ke->kind == EVT_K_FREE);
		break;
	case EVT_K_SD_PROCESS:
		on_statedump(st, ev, ke);
		break;
	default:
		break;
	}
	return 0;
}

int evt_state_seed_cpu(struct evt_state *st, unsigned int cpu, int32_t tid)
{
	struct state_cpu *c = evt_state_get_cpu(st, cpu);

	if (!c || tid < 0)
		return -1;
	if (st->seen) {
		cpu_stop(st, c, cpu, st->last_ts);
		return start_running(st, c, cpu, tid, NULL, st->last_ts);
	}
	c->seed = tid;
	st->seeds = 1;
	return 0;
}

void evt_state_close(struct evt_state *st)
{
	uint32_t i;

	/* What runs is counted up to the end; since moves, so closing twice counts once. */
	for (i = 0; i < st->nr_cpus; i++) {
		struct state_cpu *c = &st->cpus[i];
		struct evt_state_thread *t = thread_of(st, c->cur);

		if (t && st->last_ts > c->since) {
			add_cpu_time(st, t, c->since, st->last_ts);
			c->since = st->last_ts;
		}
	}
	/* The histories are complete: give back the arrays' slack. */
	for (i = 0; i < st->nr_th; i++) {
		struct evt_state_thread *t = &st->th[i];
		void *p;

		if (t->nch < t->cap_ch && (p = realloc(t->ch, (t->nch ? t->nch : 1) * sizeof(*t->ch)))) {
			t->ch = p;
			t->cap_ch = t->nch ? t->nch : 1;
		}
		if (t->nblk < t->cap_blk && (p = realloc(t->blk, (t->nblk ? t->nblk : 1) * sizeof(*t->blk)))) {
			t->blk = p;
			t->cap_blk = t->nblk ? t->nblk : 1;
		}
	}
	for (i = 0; i < st->nr_cpus; i++) {
		struct state_cpu *c = &st->cpus[i];
		void *p;

		if (c->n < c->cap_begin && (p = realloc(c->begin, (c->n ? c->n : 1) * sizeof(*c->begin)))) {
			c->begin = p;
			c->cap_begin = c->n ? c->n : 1;
		}
		if (c->n < c->cap_tid && (p = realloc(c->tid, (c->n ? c->n : 1) * sizeof(*c->tid)))) {
			c->tid = p;
			c->cap_tid = c->n ? c->n : 1;
		}
	}
}
