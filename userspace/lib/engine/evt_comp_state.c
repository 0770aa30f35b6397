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
 */
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "engine/evt_comps.h"
#include "engine/evt_comp_util.h"
#include "ctf/evt_losses.h"

#define STATE_MAGIC 0x41545345u		/* "ESTA" */
#define STATE_VERSION 3
/* A thread's change: (time - block base) << STATE_BITS | state. */
#define STATE_BITS 3
#define DELTA_LIMIT (1u << (32 - STATE_BITS))
_Static_assert(EVT_TSTATE_COUNT <= 1u << STATE_BITS, "a state fits STATE_BITS");
/* Interrupt nesting kept per CPU (deeper ones still count, as IRQ). */
#define IRQ_STACK 8

/* lttng-modules' enum lttng_process_status. */
enum {
	LTTNG_UNNAMED = 0, LTTNG_WAIT_FORK = 1, LTTNG_WAIT_CPU = 2, LTTNG_EXIT = 3,
	LTTNG_ZOMBIE = 4, LTTNG_WAIT = 5, LTTNG_RUN = 6, LTTNG_DEAD = 7,
};

struct state_cpu {
	uint64_t *begin;		/* change points: begin[i], tid[i] */
	int32_t *tid;
	uint32_t n, cap_begin, cap_tid;
	int32_t cur;			/* running now, -1: unknown */
	uint64_t since;			/* since when */
	int32_t seed;			/* evt_state_seed_cpu() before any event, -1 */
	unsigned int depth;		/* interrupts nested now */
	uint8_t stack[IRQ_STACK];	/* EVT_TSTATE_IRQ / _SOFTIRQ */
};

struct evt_state {
	uint64_t first_ts, last_ts;
	int seen;			/* an event was seen */
	int seeds;			/* CPUs seeded before the first event */
	struct state_cpu *cpus;
	uint32_t nr_cpus, cap_cpus;
	struct evt_state_thread *th;
	uint32_t nr_th, cap_th;
	struct evt_tidmap map;		/* tid -> its latest thread */
	struct evt_kinds kinds;
	struct evt_lossmap losses;	/* of the reader the events come from */
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

static void state_clear(struct evt_state *st)
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
	state_clear(st);
	free(st);
}

/* ---- Building ---- */

static struct state_cpu *get_cpu(struct evt_state *st, unsigned int cpu)
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

static struct evt_state_thread *new_thread(struct evt_state *st, int32_t tid)
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
	struct evt_state_thread *t = i >= 0 ? &st->th[i] : new_thread(st, tid);

	if (t && comm && comm[0] && tid)
		memcpy(t->comm, comm, sizeof(t->comm));
	return t;
}

/* The block of change @i (binary search: the last block starting at or before it). */
static uint32_t block_of(const struct evt_state_thread *t, uint32_t i)
{
	uint32_t lo = 0, hi = t->nblk;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->blk[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t change_ts(const struct evt_state_thread *t, uint32_t i)
{
	return t->blk[block_of(t, i)].base + (t->ch[i] >> STATE_BITS);
}

static uint8_t change_state(const struct evt_state_thread *t, uint32_t i)
{
	return (uint8_t)(t->ch[i] & ((1u << STATE_BITS) - 1));
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
	t = i >= 0 && !st->th[i].freed && !st->th[i].exited ? &st->th[i] : new_thread(st, ctid);
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
	c = get_cpu(st, ev->cpu);
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
	struct state_cpu *c = get_cpu(st, cpu);

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

/* ---- Queries ---- */

void evt_state_span(const struct evt_state *st, uint64_t *first, uint64_t *last)
{
	*first = st->first_ts;
	*last = st->last_ts;
}

unsigned int evt_state_nr_cpus(const struct evt_state *st)
{
	return st->nr_cpus;
}

size_t evt_state_cpu_nr_intervals(const struct evt_state *st, unsigned int cpu)
{
	return cpu < st->nr_cpus ? st->cpus[cpu].n : 0;
}

int evt_state_cpu_interval(const struct evt_state *st, unsigned int cpu, size_t i,
			   struct evt_state_interval *iv)
{
	const struct state_cpu *c;

	if (cpu >= st->nr_cpus || i >= st->cpus[cpu].n)
		return -1;
	c = &st->cpus[cpu];
	iv->begin = c->begin[i];
	iv->end = i + 1 < c->n ? c->begin[i + 1] : st->last_ts;
	iv->tid = c->tid[i];
	iv->state = EVT_TSTATE_UNKNOWN;
	return 0;
}

/* The last of @n sorted times that is <= @ts, or -1. */
static long last_at_or_before(const uint64_t *v, uint32_t n, uint64_t ts)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

int32_t evt_state_cpu_tid_at(const struct evt_state *st, unsigned int cpu, uint64_t ts)
{
	long i;

	if (cpu >= st->nr_cpus || ts > st->last_ts)
		return -1;
	i = last_at_or_before(st->cpus[cpu].begin, st->cpus[cpu].n, ts);
	return i < 0 ? -1 : st->cpus[cpu].tid[i];
}

const struct evt_state_thread *evt_state_thread(const struct evt_state *st, int32_t tid)
{
	long i = evt_tidmap_get(&st->map, tid);

	return i < 0 ? NULL : &st->th[i];
}

size_t evt_state_nr_threads(const struct evt_state *st)
{
	return st->nr_th;
}

const struct evt_state_thread *evt_state_thread_nth(const struct evt_state *st, size_t i)
{
	return i < st->nr_th ? &st->th[i] : NULL;
}

enum evt_tstate evt_state_thread_at(const struct evt_state_thread *t, uint64_t ts)
{
	uint32_t lo = 0, hi = t->nblk, end;
	uint64_t d;

	/* The last block based at or before @ts, then its last change at or before it. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->blk[mid].base <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return EVT_TSTATE_UNKNOWN;
	d = ts - t->blk[lo - 1].base;
	end = lo < t->nblk ? t->blk[lo].first : t->nch;
	hi = end;
	lo = t->blk[lo - 1].first;
	if (d >= DELTA_LIMIT)
		return (enum evt_tstate)change_state(t, end - 1);
	/* The block's first change has delta 0 <= d: the answer is in [lo, end). */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((t->ch[mid] >> STATE_BITS) <= d)
			lo = mid;
		else
			hi = mid;
	}
	return (enum evt_tstate)change_state(t, lo);
}

int evt_state_thread_interval(const struct evt_state *st, const struct evt_state_thread *t, size_t i,
			      struct evt_state_interval *iv)
{
	if (i >= t->nch)
		return -1;
	iv->begin = change_ts(t, (uint32_t)i);
	iv->end = i + 1 < t->nch ? change_ts(t, (uint32_t)i + 1) : st->last_ts;
	iv->tid = t->tid;
	iv->state = change_state(t, (uint32_t)i);
	return 0;
}

static int by_cpu_time(const void *a, const void *b)
{
	const struct evt_state_thread *x = *(const struct evt_state_thread *const *)a;
	const struct evt_state_thread *y = *(const struct evt_state_thread *const *)b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

size_t evt_state_top_threads(const struct evt_state *st, const struct evt_state_thread **out, size_t max)
{
	const struct evt_state_thread **all;
	size_t n = 0, i;

	if (!max || !st->nr_th)
		return 0;
	all = malloc(st->nr_th * sizeof(*all));
	if (!all)
		return 0;
	for (i = 0; i < st->nr_th; i++)
		if (st->th[i].tid)
			all[n++] = &st->th[i];
	qsort(all, n, sizeof(*all), by_cpu_time);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*all));
	free(all);
	return n;
}

/* ---- The computation ---- */

static void *state_create(struct evt_etrace *t)
{
	(void)t;
	return evt_state_new();
}

static void state_destroy(void *r)
{
	evt_state_free(r);
}

static int state_add(struct evt_ctx *ctx, void *r)
{
	return evt_hooks_add(&ctx->event, evt_state_event_hook, r);
}

static void state_remove(struct evt_ctx *ctx, void *r)
{
	evt_hooks_remove(&ctx->event, evt_state_event_hook, r);
}

static void state_finish(void *r, const struct evt_where *w)
{
	(void)w;
	evt_state_close(r);
}

/*
 * The saved form (little-endian): magic, version, first and last times;
 * the CPUs, each its change points (u64 begin, s32 tid); the threads in
 * order of first sight, each tid, pid, ppid, comm[16], cpu_ns, cpu_lossy_ns and its
 * history as it is in memory: its blocks (u64 base, u32 first change)
 * and its changes (u32 each).
 */
static int state_save(const void *r, struct evt_buf *b)
{
	const struct evt_state *st = r;
	uint32_t i, j;
	int err = 0;

	err |= evt_put_u32(b, STATE_MAGIC) | evt_put_u32(b, STATE_VERSION);
	err |= evt_put_u64(b, st->first_ts) | evt_put_u64(b, st->last_ts);
	err |= evt_put_u32(b, st->nr_cpus);
	for (i = 0; i < st->nr_cpus && !err; i++) {
		const struct state_cpu *c = &st->cpus[i];

		err |= evt_put_u32(b, c->n);
		for (j = 0; j < c->n; j++)
			err |= evt_put_u64(b, c->begin[j]) | evt_put_s32(b, c->tid[j]);
	}
	err |= evt_put_u32(b, st->nr_th);
	for (i = 0; i < st->nr_th && !err; i++) {
		const struct evt_state_thread *t = &st->th[i];

		err |= evt_put_s32(b, t->tid) | evt_put_s32(b, t->pid) | evt_put_s32(b, t->ppid);
		err |= evt_buf_put(b, t->comm, sizeof(t->comm));
		err |= evt_put_u64(b, t->cpu_ns) | evt_put_u64(b, t->cpu_lossy_ns) | evt_put_u32(b, t->nblk);
		for (j = 0; j < t->nblk; j++)
			err |= evt_put_u64(b, t->blk[j].base) | evt_put_u32(b, t->blk[j].first);
		err |= evt_put_u32(b, t->nch);
		for (j = 0; j < t->nch; j++)
			err |= evt_put_u32(b, t->ch[j]);
	}
	return err || b->oom ? -1 : 0;
}

/*
 * A thread's history as saved: its blocks, then its changes, checked so
 * that the queries' binary searches hold: blocks start at 0 and go up,
 * their bases go up past the block before's last change, and within a
 * block the first change is at its base and times go up.
 */
static int load_history(struct evt_state_thread *t, struct evt_rbuf *r)
{
	uint32_t nblk, n, b, i;

	if (evt_get_count(r, &nblk, 12, UINT32_MAX) ||
	    (nblk && evt_grow(&t->blk, &t->cap_blk, nblk, sizeof(*t->blk))))
		return -1;
	for (b = 0; b < nblk; b++)
		if (evt_get_u64(r, &t->blk[b].base) || evt_get_u32(r, &t->blk[b].first) ||
		    t->blk[b].base > UINT64_MAX - DELTA_LIMIT ||
		    (b ? t->blk[b].first <= t->blk[b - 1].first : t->blk[b].first != 0))
			return -1;
	if (evt_get_count(r, &n, 4, UINT32_MAX) || (n && evt_grow(&t->ch, &t->cap_ch, n, sizeof(*t->ch))) ||
	    (!n != !nblk) || (n && (!t->tid || t->blk[nblk - 1].first >= n)))
		return -1;
	for (i = 0; i < n; i++) {
		if (evt_get_u32(r, &t->ch[i]) || (t->ch[i] & ((1u << STATE_BITS) - 1)) >= EVT_TSTATE_COUNT)
			return -1;
	}
	for (b = 0, i = 0; b < nblk; b++) {
		const uint32_t end = b + 1 < nblk ? t->blk[b + 1].first : n;

		if (t->ch[i] >> STATE_BITS ||
		    (b && t->blk[b].base <= t->blk[b - 1].base + (t->ch[i - 1] >> STATE_BITS)))
			return -1;
		for (i++; i < end; i++)
			if (t->ch[i] >> STATE_BITS <= t->ch[i - 1] >> STATE_BITS)
				return -1;
	}
	t->nblk = nblk;
	t->nch = n;
	t->last_ch = n ? change_ts(t, n - 1) : 0;
	return 0;
}

static int load_into(struct evt_state *st, struct evt_rbuf *r)
{
	uint32_t magic, version, ncpu, nth, i, j;

	if (evt_get_u32(r, &magic) || magic != STATE_MAGIC || evt_get_u32(r, &version) ||
	    version != STATE_VERSION || evt_get_u64(r, &st->first_ts) || evt_get_u64(r, &st->last_ts) ||
	    st->first_ts > st->last_ts)
		return -1;
	if (evt_get_count(r, &ncpu, 4, EVT_MAX_CPUS))
		return -1;
	if (ncpu && !get_cpu(st, ncpu - 1))
		return -1;
	for (i = 0; i < ncpu; i++) {
		struct state_cpu *c = &st->cpus[i];
		uint32_t n;

		if (evt_get_count(r, &n, 12, UINT32_MAX))
			return -1;
		if (evt_grow(&c->begin, &c->cap_begin, n, sizeof(*c->begin)) ||
		    evt_grow(&c->tid, &c->cap_tid, n, sizeof(*c->tid)))
			return -1;
		for (j = 0; j < n; j++) {
			if (evt_get_u64(r, &c->begin[j]) || evt_get_s32(r, &c->tid[j]) || c->tid[j] < -1 ||
			    (j && c->begin[j] <= c->begin[j - 1]) || c->begin[j] < st->first_ts ||
			    c->begin[j] > st->last_ts)
				return -1;
		}
		c->n = n;
	}
	/* tid, pid, ppid, comm, cpu_ns, cpu_lossy_ns, nblk, nch: 52 bytes at least. */
	if (evt_get_count(r, &nth, 52, UINT32_MAX - 1))
		return -1;
	for (i = 0; i < nth; i++) {
		struct evt_state_thread *t;
		int32_t tid;
		uint32_t n;

		if (evt_get_s32(r, &tid) || tid < 0 || !(t = new_thread(st, tid)))
			return -1;
		if (evt_get_s32(r, &t->pid) || evt_get_s32(r, &t->ppid) ||
		    evt_rbuf_get(r, t->comm, sizeof(t->comm)) || !memchr(t->comm, 0, sizeof(t->comm)) ||
		    evt_get_u64(r, &t->cpu_ns) || evt_get_u64(r, &t->cpu_lossy_ns) || load_history(t, r))
			return -1;
		n = t->nch;
		t->state = n ? change_state(t, n - 1) : EVT_TSTATE_UNKNOWN;
	}
	return r->off == r->n ? 0 : -1;
}

static int state_load(void *res, const uint8_t *p, size_t n)
{
	struct evt_state *st = res, tmp;
	struct evt_rbuf r = { p, n, 0 };

	memset(&tmp, 0, sizeof(tmp));
	if (load_into(&tmp, &r)) {
		state_clear(&tmp);
		return -1;
	}
	state_clear(st);
	*st = tmp;
	st->seen = st->nr_cpus || st->nr_th || st->last_ts;
	return 0;
}

static int32_t state_running_tid(const void *r, unsigned int cpu, uint64_t ts)
{
	int32_t tid = evt_state_cpu_tid_at(r, cpu, ts);

	return tid < 0 ? -2 : tid;
}

const struct evt_computation evt_comp_state = {
	.name = "state",
	.version = STATE_VERSION,
	.create = state_create,
	.destroy = state_destroy,
	.hook_adder = state_add,
	.hook_remover = state_remove,
	.finish = state_finish,
	.save = state_save,
	.load = state_load,
	.running_tid = state_running_tid,
};
