// SPDX-License-Identifier: GPL-2.0
/*
 * The synthesizer's kernel mode: a simulated machine's events, laid out as
 * the module writes them (see evt_synth.h), recorded through the
 * synthesizer's writer (evt_synth_writer.h). One job, the simulated
 * machine, at about 900 lines: its tasks, scheduler and event emitters share
 * one private state that splitting would only export.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/evt_io.h"
#include "synth/evt_synth_kernel.h"
#include "synth/evt_synth_writer.h"
#include <evtrace/events.h>
#include <evtrace/event-layout.h>
#include <evtrace/limits.h>

/* prev_state as the module reports it (evt_switch_state()): one bit per ps letter. */
#define KS_RUNNING	0	/* preempted, or the idle task */
#define KS_SLEEP	1	/* S */
#define KS_DISK		2	/* D */
#define KS_ZOMBIE	32	/* Z: a process's last thread, until its parent reaps it */
#define KS_IDLE		128	/* I: a kworker waiting for work */

/* The state dump's codes (kmod/evtrace_statedump.c, lttng-modules'). */
#define KD_USER_THREAD	0
#define KD_KERNEL_THREAD 1
#define KD_MODE_UNKNOWN	5
#define KD_WAIT_CPU	2
#define KD_WAIT		5

#define KPRIO		120	/* task->prio of a nice-0 task, the idle task's too */
#define KMAX_GAP	32	/* the longest mean gap, in periods (idle) */

enum { KT_RUNNABLE, KT_BLOCKED, KT_DEAD };
enum { KR_ZERO, KR_COUNT, KR_FD, KR_SMALL, KR_ADDR, KR_PID };

struct ksc_spec {
	const char *name;
	unsigned int weight;
	char block;		/* 0: never; 'S', 'D': block_pct of them do; 'A': always (S) */
	char wakes;		/* may wake a blocked thread (futex, write to a pipe) */
	int err;		/* -errno it fails with */
	int ret;		/* KR_*: what success returns */
};

/* Common syscalls, by name: a kernel's catalogue may lack some (then unused). */
static const struct ksc_spec ksc_specs[] = {
	{ "sys_read", 20, 'D', 0, -11, KR_COUNT },
	{ "sys_write", 14, 0, 1, -32, KR_COUNT },
	{ "sys_openat", 6, 0, 0, -2, KR_FD },
	{ "sys_close", 6, 0, 0, -9, KR_ZERO },
	{ "sys_futex", 12, 'S', 1, -11, KR_ZERO },
	{ "sys_epoll_wait", 8, 'S', 0, -4, KR_SMALL },
	{ "sys_poll", 4, 'S', 0, -4, KR_SMALL },
	{ "sys_recvfrom", 6, 'S', 0, -11, KR_COUNT },
	{ "sys_sendto", 5, 0, 1, -111, KR_COUNT },
	{ "sys_clock_nanosleep", 3, 'A', 0, -4, KR_ZERO },
	{ "sys_nanosleep", 2, 'A', 0, -4, KR_ZERO },
	{ "sys_mmap", 4, 0, 0, -12, KR_ADDR },
	{ "sys_fstat", 5, 0, 0, -9, KR_ZERO },
	{ "sys_ioctl", 4, 0, 0, -25, KR_ZERO },
	{ "sys_getpid", 3, 0, 0, 0, KR_PID },
};
#define KSC_MAX (sizeof(ksc_specs) / sizeof(ksc_specs[0]))

struct ksc {
	const struct ksc_spec *s;
	const struct evt_event_desc *d;
	int32_t nr;
	unsigned int cum;	/* cumulative weight */
};

/* Hard IRQs: number, handler name, chip, the softirq they raise (-1: none). */
static const struct kirq {
	int32_t irq;
	const char *name, *chip;
	int vec;
	unsigned int weight;
} kirqs[] = {
	{ 24, "nvme0q1", "IR-PCI-MSIX-0000:01:00.0", 4, 6 },	/* BLOCK */
	{ 25, "eth0-rx-0", "IR-PCI-MSIX-0000:02:00.0", 3, 8 },	/* NET_RX */
	{ 26, "eth0-tx-0", "IR-PCI-MSIX-0000:02:00.0", 2, 3 },	/* NET_TX */
	{ 1, "i8042", "IR-IO-APIC", -1, 1 },
	{ 16, "xhci_hcd", "IR-IO-APIC", 6, 1 },		/* TASKLET */
	{ 9, "acpi", "IR-IO-APIC", -1, 1 },
};
#define KIRQ_N (sizeof(kirqs) / sizeof(kirqs[0]))
#define KIRQ_WSUM 20
#define KSOFTIRQ_TIMER 1
#define KSOFTIRQ_RCU 9

struct kthr {
	int32_t tid, pid, ppid, prio;
	char comm[16];
	uint8_t state;		/* KT_* */
	uint8_t kthread;
	uint8_t exec_pending;	/* a forked child: execs first */
	int8_t sc;		/* ksc[] of the syscall it is in (switched out inside it), -1 */
	uint64_t left;		/* a forked child: steps before it exits (0: never) */
};

struct kcpu {
	struct kthr *t;
	unsigned int nt, cap, live;
	int cur;		/* running thread, -1: idle (swapper/N) */
	int fast;		/* its frequency: the higher of its two */
	unsigned int cpu_nr;
	unsigned int rr;	/* where pick_next looks first */
};

struct ksim {
	const struct evt_synth_params *p;
	struct evt_synth_result *res;
	struct evt_synth_ring *rings;
	uint64_t rs, now, e, n, stall_len;
	unsigned int stall_left, cpu;
	unsigned long ev_per_packet;
	int done, err;
	struct kcpu *c;
	char swapper[16];
	struct ksc sc[KSC_MAX];
	unsigned int nsc, sc_wsum;
	const struct evt_event_desc *clone, *execve, *exit_group;
	int32_t *next_tid;
	unsigned int *next_job;
	unsigned int next_flush[2];	/* p->flush_at[] passed so far on this CPU, per ring */
};

static uint64_t kgap(struct ksim *k, uint64_t mean)
{
	return mean > 1 ? 1 + evt_synth_rnd(&k->rs) % (2 * mean - 1) : 1;
}

/*
 * Record one event @gap ns after the last one. Past the CPU's budget it
 * does nothing and the run of this CPU ends (k->done): the steps need not
 * check after each event.
 */
static void kemit(struct ksim *k, unsigned int ch, unsigned int id, const void *pl, uint32_t len,
		  uint64_t gap)
{
	struct evt_synth_result *res = k->res;

	if (k->done)
		return;
	if (k->e >= k->n) {
		k->done = 1;
		return;
	}
	if (k->e)
		k->now += gap;
	if (evt_synth_flush_cuts(k->p, k->rings, k->cpu, k->now, k->next_flush, res)) {
		k->err = errno ? errno : EIO;
		k->done = 1;
		return;
	}
	evt_synth_now = k->now;
	res->generated++;
	if (k->now < res->first_ts)
		res->first_ts = k->now;
	if (k->now > res->last_ts)
		res->last_ts = k->now;
#define IS(ev) (ch == EVT_CHAN_OF_##ev && id == EVT_ID_##ev)
	if (ch == EVT_CHAN_COMPACT && id >= EVT_ID_SYS_BASE)
		res->syscalls++;
	else if (IS(EXIT_SYSCALL))
		res->syscall_exits++;
	else if (IS(SCHED_SWITCH))
		res->switches++;
	else if (IS(IRQ_ENTRY))
		res->irqs++;
	else if (IS(SOFTIRQ_ENTRY))
		res->softirqs++;
	else if (IS(SCHED_WAKEUP) || IS(SCHED_WAKEUP_NEW))
		res->wakeups++;
	else if (IS(SCHED_FORK))
		res->forks++;
	else if (IS(STATEDUMP_PROCESS))
		res->dumped++;
#undef IS
	evt_record_copy(&k->rings[ch].r, id, pl, len);
	if (k->p->stall_every && k->e % k->p->stall_every == k->p->stall_every - 1)
		k->stall_left = (unsigned int)k->stall_len;
	if (k->stall_left) {
		k->stall_left--;
	} else if ((k->e & 15) == 15 || k->ev_per_packet < 32) {
		if (evt_synth_drain(&k->rings[0], res) || evt_synth_drain(&k->rings[1], res)) {
			k->err = errno ? errno : EIO;
			k->done = 1;
		}
	}
	k->e++;
}

/*
 * Record event EVT_ID_<ev> from @pl, its class's payload struct
 * (<evtrace/event-layout.h>), @len bytes: a payload of another class does
 * not compile.
 */
#define KEMIT(k, ev, pl, len, gap) do {						\
	_Static_assert(__builtin_types_compatible_p(__typeof__(*(pl)), evt_pl_of_##ev), \
		       "payload of another class");				\
	kemit(k, EVT_CHAN_OF_##ev, EVT_ID_##ev, pl, len, gap);			\
} while (0)
#define KEMIT_FIXED(k, ev, pl, gap) KEMIT(k, ev, pl, (uint32_t)sizeof(*(pl)), gap)

/* A string into a payload's variable part: the bytes taken, NUL included. */
static uint32_t kput_str(char *dst, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(dst, s, n);
	return (uint32_t)n;
}

static const char *kcomm(const struct ksim *k, int t)
{
	return t < 0 ? k->swapper : k->c->t[t].comm;
}

static int32_t ktid(const struct ksim *k, int t)
{
	return t < 0 ? 0 : k->c->t[t].tid;
}

static int32_t kprio(const struct ksim *k, int t)
{
	return t < 0 ? KPRIO : k->c->t[t].prio;
}

/* softirq_entry, _exit, _raise: @id says which (one class). */
static void ksoftirq(struct ksim *k, unsigned int id, uint32_t vec, uint64_t gap)
{
	struct evt_pl_softirq pl = { .vec = vec };

	kemit(k, EVT_CHAN_OF_SOFTIRQ_ENTRY, id, &pl, sizeof(pl), gap);
}

/*
 * The CPU's idle state (power_cpu_idle: 1 while idle, 4294967295 when it
 * leaves it) and, now and then when it wakes, a new frequency (two of them
 * per CPU, alternately).
 */
static void kpower(struct ksim *k, int idle)
{
	struct evt_pl_power_cpu pl = { .state = idle ? 1 : 4294967295u, .cpu_id = k->cpu };

	KEMIT_FIXED(k, POWER_CPU_IDLE, &pl, kgap(k, k->p->period_ns / 4));
	if (!idle && evt_synth_rnd(&k->rs) % 8 == 0) {
		k->c->fast = !k->c->fast;
		pl.state = (k->c->fast ? 2400000 : 1200000) + 100000 * (k->cpu % 4);
		KEMIT_FIXED(k, POWER_CPU_FREQUENCY, &pl, kgap(k, k->p->period_ns / 4));
	}
}

/* sched_switch from the current thread (or idle) to @next, with @state for prev. */
static void kswitch(struct ksim *k, uint32_t state, int next)
{
	struct evt_pl_sched_switch pl;
	int prev = k->c->cur;

	if (prev < 0 && next >= 0)
		kpower(k, 0);

	memcpy(pl.prev_comm, kcomm(k, prev), 16);
	pl.prev_tid = ktid(k, prev);
	pl.prev_prio = kprio(k, prev);
	pl.prev_state = state;
	memcpy(pl.next_comm, kcomm(k, next), 16);
	pl.next_tid = ktid(k, next);
	pl.next_prio = kprio(k, next);
	KEMIT_FIXED(k, SCHED_SWITCH, &pl, kgap(k, k->p->period_ns / 2));
	k->c->cur = next;
	if (prev >= 0 && next < 0)
		kpower(k, 1);
}

/* sched_wakeup, sched_wakeup_new, sched_waking: comm, tid, prio, target_cpu. */
static void kwake_ev(struct ksim *k, unsigned int id, int t)
{
	evt_pl_of_SCHED_WAKEUP pl;

	memcpy(pl.comm, kcomm(k, t), 16);
	pl.tid = ktid(k, t);
	pl.prio = kprio(k, t);
	pl.target_cpu = (int32_t)k->cpu;
	kemit(k, EVT_CHAN_OF_SCHED_WAKEUP, id, &pl, sizeof(pl), kgap(k, k->p->period_ns / 4));
}

/* Wake a blocked thread of this CPU, if any (-1: none). */
static int kwake_one(struct ksim *k)
{
	struct kcpu *c = k->c;
	unsigned int i, start, n = c->nt;

	if (!n)
		return -1;
	start = (unsigned int)(evt_synth_rnd(&k->rs) % n);
	for (i = 0; i < n; i++) {
		unsigned int t = (start + i) % n;

		if (c->t[t].state == KT_BLOCKED) {
			kwake_ev(k, EVT_ID_SCHED_WAKING, (int)t);
			kwake_ev(k, EVT_ID_SCHED_WAKEUP, (int)t);
			c->t[t].state = KT_RUNNABLE;
			return (int)t;
		}
	}
	return -1;
}

/* The next runnable thread but the current one, round robin; -1: idle. */
static int kpick(struct ksim *k)
{
	struct kcpu *c = k->c;
	unsigned int i;

	for (i = 0; i < c->nt; i++) {
		unsigned int t = (c->rr + i) % c->nt;

		if ((int)t != c->cur && c->t[t].state == KT_RUNNABLE) {
			c->rr = t + 1;
			return (int)t;
		}
	}
	return -1;
}

/*
 * A hard IRQ, and the softirq it raises (which may wake a thread): the
 * woken thread, or -1.
 */
static int kirq(struct ksim *k)
{
	const struct kirq *q = kirqs;
	unsigned int w = (unsigned int)(evt_synth_rnd(&k->rs) % KIRQ_WSUM);
	struct { struct evt_pl_irq_entry h; char name[64]; } en;
	struct evt_pl_irq_exit ex;
	int woke = -1;

	while (w >= q->weight) {
		w -= q->weight;
		q++;
	}
	en.h.irq = q->irq;
	KEMIT(k, IRQ_ENTRY, &en.h, (uint32_t)sizeof(en.h) + kput_str(en.name, q->name),
	      kgap(k, k->p->period_ns / 2));
	if (q->vec >= 0)
		ksoftirq(k, EVT_ID_SOFTIRQ_RAISE, (uint32_t)q->vec, kgap(k, k->p->period_ns / 4));
	ex.irq = q->irq;
	ex.ret = 1;	/* IRQ_HANDLED */
	KEMIT_FIXED(k, IRQ_EXIT, &ex, kgap(k, k->p->period_ns / 2));
	if (q->vec >= 0) {
		ksoftirq(k, EVT_ID_SOFTIRQ_ENTRY, (uint32_t)q->vec, kgap(k, k->p->period_ns / 4));
		if (evt_synth_rnd(&k->rs) % 100 < 70)
			woke = kwake_one(k);
		ksoftirq(k, EVT_ID_SOFTIRQ_EXIT, (uint32_t)q->vec, kgap(k, k->p->period_ns / 2));
	}
	return woke;
}

/* The timer: a tick's softirq, which may wake a sleeper (-1: none woken). */
static int ktimer(struct ksim *k, int wake)
{
	int woke = -1;

	ksoftirq(k, EVT_ID_SOFTIRQ_RAISE, KSOFTIRQ_TIMER, kgap(k, k->p->period_ns / 4));
	ksoftirq(k, EVT_ID_SOFTIRQ_ENTRY, KSOFTIRQ_TIMER, kgap(k, k->p->period_ns / 4));
	if (wake)
		woke = kwake_one(k);
	ksoftirq(k, EVT_ID_SOFTIRQ_EXIT, KSOFTIRQ_TIMER, kgap(k, k->p->period_ns / 4));
	return woke;
}

/*
 * An integer field of type @t at the next offset its alignment allows
 * from @off (the catalogue's layout): the offset after it.
 */
static size_t kput_int(uint8_t *b, size_t off, enum evt_field_type t, int64_t v)
{
	size_t a = evt_field_align(t), n = evt_field_size(t);

	while (off % a)
		b[off++] = 0;
	memcpy(b + off, &v, n);	/* little endian: the low bytes */
	return off + n;
}

/*
 * A syscall's entry event with plausible arguments, laid out by its fields
 * (paths as strings, as the module copies them).
 */
static void ksys_enter(struct ksim *k, const struct evt_event_desc *d, int32_t fd)
{
	uint8_t b[6 * 8 + 2 * 64];
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < d->nr_fields && i < 6; i++) {
		const char *n = d->fields[i].name;
		int64_t v;

		if (d->fields[i].type == EVT_F_STRING) {
			off += (size_t)snprintf((char *)b + off, 64, "/srv/evsynth/file-%u",
						(unsigned int)(evt_synth_rnd(&k->rs) % 1000)) + 1;
			continue;
		}
		if (!strcmp(n, "fd") || !strcmp(n, "epfd") || !strcmp(n, "dfd"))
			v = fd;
		else if (d->fields[i].type == EVT_F_X64)
			v = (int64_t)(0x7ffc00000000ULL + ((evt_synth_rnd(&k->rs) & 0xffffff) << 4));
		else if (d->fields[i].type == EVT_F_X32)
			v = (int64_t)(0xff800000U + ((evt_synth_rnd(&k->rs) & 0x3ffff) << 4));
		else if (!strcmp(n, "count") || !strcmp(n, "len") || !strcmp(n, "size"))
			v = 4096;
		else
			v = (int64_t)(evt_synth_rnd(&k->rs) % 8);
		off = kput_int(b, off, d->fields[i].type, v);
	}
	kemit(k, EVT_CHAN_COMPACT, d->id, b, (uint32_t)off, kgap(k, k->p->period_ns));
}

static void ksys_exit(struct ksim *k, int32_t nr, int64_t ret, uint64_t gap)
{
	struct evt_pl_exit_syscall pl = { .id = nr, .ret = ret };

	KEMIT_FIXED(k, EXIT_SYSCALL, &pl, gap);
}

static int64_t ksc_ret(struct ksim *k, const struct ksc *s, const struct kthr *t)
{
	uint64_t r = evt_synth_rnd(&k->rs);

	if (s->s->err && r % 100 < k->p->error_pct)
		return s->s->err;
	switch (s->s->ret) {
	case KR_COUNT: return (int64_t)(1 + (r >> 8) % 4096);
	case KR_FD: return 3 + (int64_t)((r >> 8) % 60);
	case KR_SMALL: return 1 + (int64_t)((r >> 8) % 8);
	case KR_ADDR: return (int64_t)(0x7f0000000000ULL + (((r >> 8) & 0xffffff) << 12));
	case KR_PID: return t->pid;
	default: return 0;
	}
}

/* A thread of this CPU (a slot of a dead one, or a new one): its index. */
static int knew_thread(struct ksim *k)
{
	struct kcpu *c = k->c;
	unsigned int i;

	for (i = 0; i < c->nt; i++)
		if (c->t[i].state == KT_DEAD)
			break;
	if (i == c->nt) {
		if (c->nt == c->cap) {
			struct kthr *t = realloc(c->t, (c->cap * 2 + 8) * sizeof(*t));

			if (!t)
				return -1;
			c->t = t;
			c->cap = c->cap * 2 + 8;
		}
		c->nt++;
	}
	memset(&c->t[i], 0, sizeof(c->t[i]));
	c->t[i].sc = -1;
	c->live++;
	return (int)i;
}

/* The current thread forks a one-thread process, which will exec then exit. */
static void kfork(struct ksim *k)
{
	struct kcpu *c = k->c;
	int ch = knew_thread(k);
	struct kthr *t, *par;
	struct evt_pl_sched_fork pl;

	if (ch < 0)
		return;
	par = &c->t[c->cur];
	t = &c->t[ch];
	t->tid = t->pid = (*k->next_tid)++;
	t->ppid = par->pid;
	t->prio = KPRIO;
	memcpy(t->comm, par->comm, 16);
	t->state = KT_RUNNABLE;
	t->exec_pending = 1;
	t->left = 20 + evt_synth_rnd(&k->rs) % 400;
	if (k->clone)
		ksys_enter(k, k->clone, 0);
	memcpy(pl.parent_comm, par->comm, 16);
	pl.parent_tid = par->tid;
	pl.parent_pid = par->pid;
	memcpy(pl.child_comm, t->comm, 16);
	pl.child_tid = t->tid;
	pl.child_pid = t->pid;
	KEMIT_FIXED(k, SCHED_FORK, &pl, kgap(k, k->p->period_ns * 4));
	kwake_ev(k, EVT_ID_SCHED_WAKEUP_NEW, ch);
	if (k->clone)
		ksys_exit(k, (int32_t)(k->clone->id - EVT_ID_SYS_BASE), t->tid, kgap(k, k->p->period_ns));
}

/* The current thread, a forked child, runs its program. */
static void kexec(struct ksim *k)
{
	struct kthr *t = &k->c->t[k->c->cur];
	struct { struct evt_pl_sched_exec h; char name[64]; } pl;
	int n;

	if (k->execve)
		ksys_enter(k, k->execve, 0);
	pl.h.tid = t->tid;
	pl.h.old_tid = t->tid;
	n = snprintf(pl.name, sizeof(pl.name), "/usr/libexec/evsynth/job-%u", (*k->next_job)++ % 100000);
	memset(t->comm, 0, 16);
	memcpy(t->comm, pl.name + 21, (size_t)n - 21 < 15 ? (size_t)n - 21 : 15);
	KEMIT(k, SCHED_EXEC, &pl.h, (uint32_t)(sizeof(pl.h) + n + 1), kgap(k, k->p->period_ns * 8));
	if (k->execve)
		ksys_exit(k, (int32_t)(k->execve->id - EVT_ID_SYS_BASE), 0, kgap(k, k->p->period_ns));
	t->exec_pending = 0;
}

/* The current thread, a forked child, exits: a zombie, then freed (RCU). */
static void kexit(struct ksim *k)
{
	struct kcpu *c = k->c;
	int self = c->cur, next;
	struct kthr *t = &c->t[self];
	evt_pl_of_SCHED_EXIT pl;

	if (k->exit_group)
		ksys_enter(k, k->exit_group, 0);
	memcpy(pl.comm, t->comm, 16);
	pl.tid = t->tid;
	pl.prio = t->prio;
	KEMIT_FIXED(k, SCHED_EXIT, &pl, kgap(k, k->p->period_ns * 2));
	t->state = KT_DEAD;
	next = kpick(k);
	kswitch(k, KS_ZOMBIE, next);
	ksoftirq(k, EVT_ID_SOFTIRQ_RAISE, KSOFTIRQ_RCU, kgap(k, k->p->period_ns * 4));
	ksoftirq(k, EVT_ID_SOFTIRQ_ENTRY, KSOFTIRQ_RCU, kgap(k, k->p->period_ns / 2));
	KEMIT_FIXED(k, SCHED_FREE, &pl, kgap(k, k->p->period_ns / 2));
	ksoftirq(k, EVT_ID_SOFTIRQ_EXIT, KSOFTIRQ_RCU, kgap(k, k->p->period_ns / 2));
	c->live--;
}

/* Preempt the current thread for @woken (a thread woken just now), half the time. */
static int kpreempt(struct ksim *k, int woken)
{
	if (woken < 0 || woken == k->c->cur || evt_synth_rnd(&k->rs) % 2)
		return 0;
	kswitch(k, KS_RUNNING, woken);
	return 1;
}

/* The current thread makes a syscall. */
static void ksyscall(struct ksim *k)
{
	struct kcpu *c = k->c;
	int self = c->cur, woke;
	struct kthr *t = &c->t[self];
	unsigned int w = (unsigned int)(evt_synth_rnd(&k->rs) % k->sc_wsum), i = 0;
	const struct ksc *s;
	uint64_t r;

	while (k->sc[i].cum <= w)
		i++;
	s = &k->sc[i];
	ksys_enter(k, s->d, 3 + (int32_t)(evt_synth_rnd(&k->rs) % 16));
	r = evt_synth_rnd(&k->rs);
	if (s->s->wakes && r % 4 == 0) {
		woke = kwake_one(k);
		if (woke >= 0 && !s->s->block && kpreempt(k, woke)) {
			t->sc = (int8_t)i;	/* exits when it runs again */
			return;
		}
	}
	if (s->s->block == 'A' || (s->s->block && (r >> 8) % 100 < k->p->block_pct)) {
		t->sc = (int8_t)i;
		t->state = KT_BLOCKED;
		kswitch(k, s->s->block == 'D' ? KS_DISK : KS_SLEEP, kpick(k));
		return;
	}
	if ((r >> 16) % 100 < k->p->irq_pct) {
		/* Interrupted inside the syscall: the exit may come after a preemption. */
		woke = kirq(k);
		if (kpreempt(k, woke)) {
			t->sc = (int8_t)i;
			return;
		}
	}
	ksys_exit(k, s->nr, ksc_ret(k, s, t), kgap(k, k->p->period_ns));
}

/* One step of this CPU: what its current thread (or idle) does next. */
static void kstep(struct ksim *k)
{
	struct kcpu *c = k->c;
	const struct evt_synth_params *p = k->p;
	struct kthr *t;
	unsigned int r;
	int next;

	if (c->cur < 0) {
		next = kpick(k);
		if (next < 0) {
			/* Idle until an interrupt or the timer wakes someone. */
			k->now += kgap(k, p->period_ns * (KMAX_GAP / 2));
			next = evt_synth_rnd(&k->rs) % 3 ? kirq(k) : ktimer(k, 1);
		}
		if (next >= 0)
			kswitch(k, KS_RUNNING, next);
		return;
	}
	t = &c->t[c->cur];
	if (t->sc >= 0) {
		/* Back from a blocking (or preempted) syscall: its exit. */
		const struct ksc *s = &k->sc[t->sc];

		t->sc = -1;
		ksys_exit(k, s->nr, ksc_ret(k, s, t), kgap(k, p->period_ns));
		return;
	}
	if (t->exec_pending) {
		kexec(k);
		return;
	}
	if (t->left && !--t->left) {
		kexit(k);
		return;
	}
	if (t->kthread) {
		/* A kworker: a little work, then waits for more. */
		k->now += kgap(k, p->period_ns * 2);
		kswitch(k, KS_IDLE, kpick(k));
		t->state = KT_BLOCKED;
		return;
	}
	if (p->fork_every && !t->left && evt_synth_rnd(&k->rs) % p->fork_every == 0 &&
	    c->live < 64) {
		kfork(k);
		return;
	}
	r = (unsigned int)(evt_synth_rnd(&k->rs) % 100);
	if (r < p->syscall_pct) {
		ksyscall(k);
	} else if (r < p->syscall_pct + p->irq_pct) {
		kpreempt(k, kirq(k));
	} else {
		/* User code runs, then the tick: its time slice may be over. */
		k->now += kgap(k, p->period_ns * 4);
		next = kpick(k);
		if (next >= 0 && r % 2)
			kswitch(k, KS_RUNNING, next);
		else
			kpreempt(k, ktimer(k, r % 4 == 0));
	}
}

/* The state dump, as the module writes it: every thread, every handler. */
static void kstatedump(struct ksim *k, struct kcpu *cpus, unsigned int ncpu)
{
	static const struct kthr sys[] = {
		{ .tid = 1, .pid = 1, .ppid = 0, .comm = "systemd", .state = KT_BLOCKED },
		{ .tid = 2, .pid = 2, .ppid = 0, .comm = "kthreadd", .kthread = 1, .state = KT_BLOCKED },
	};
	unsigned int i, j;
	struct evt_pl_statedump_process pp;
	struct { struct evt_pl_statedump_interrupt h; char names[96]; } pi;

	KEMIT(k, STATEDUMP_START, (struct evt_pl_statedump_bound *)NULL, 0, 1);
	for (i = 0; i <= ncpu; i++) {
		unsigned int n = i < ncpu ? cpus[i].nt : 2;

		for (j = 0; j < n; j++) {
			const struct kthr *t = i < ncpu ? &cpus[i].t[j] : &sys[j];

			pp.tid = t->tid;
			pp.pid = t->pid;
			pp.ppid = t->ppid;
			memcpy(pp.name, t->comm, 16);
			pp.type = t->kthread ? KD_KERNEL_THREAD : KD_USER_THREAD;
			pp.mode = KD_MODE_UNKNOWN;
			pp.submode = 0;
			pp.status = t->state == KT_RUNNABLE ? KD_WAIT_CPU : KD_WAIT;
			pp.cpu = i < ncpu ? cpus[i].cpu_nr : 0;
			KEMIT_FIXED(k, STATEDUMP_PROCESS, &pp, kgap(k, k->p->period_ns));
		}
	}
	for (i = 0; i < KIRQ_N; i++) {
		uint32_t a;

		pi.h.irq = (uint32_t)kirqs[i].irq;
		a = kput_str(pi.names, kirqs[i].chip);
		a += kput_str(pi.names + a, kirqs[i].name);
		KEMIT(k, STATEDUMP_INTERRUPT, &pi.h, (uint32_t)sizeof(pi.h) + a, kgap(k, k->p->period_ns));
	}
	KEMIT(k, STATEDUMP_END, (struct evt_pl_statedump_bound *)NULL, 0, kgap(k, k->p->period_ns));
}

/* The syscalls of ksc_specs[] this build's catalogue has. 0, or -1 with @err. */
static int ksc_init(struct ksim *k, char *err, size_t errlen)
{
	unsigned int i;

	k->nsc = k->sc_wsum = 0;
	for (i = 0; i < KSC_MAX; i++) {
		const struct evt_event_desc *d = evt_find_event_by_name(ksc_specs[i].name);

		if (!d || d->channel != EVT_CHAN_COMPACT || d->id < EVT_ID_SYS_BASE ||
		    d->id >= EVT_ID_COMPAT_SYS_BASE || d->nr_fields > 6)
			continue;
		k->sc_wsum += ksc_specs[i].weight;
		k->sc[k->nsc++] = (struct ksc){ &ksc_specs[i], d, (int32_t)(d->id - EVT_ID_SYS_BASE),
						k->sc_wsum };
	}
	if (!k->nsc) {
		evt_errf(err, errlen, "the catalogue has none of the syscalls the kernel mode uses");
		return -1;
	}
	k->clone = evt_find_event_by_name("sys_clone");
	k->execve = evt_find_event_by_name("sys_execve");
	k->exit_group = evt_find_event_by_name("sys_exit_group");
	return 0;
}

/* The machine's threads at the start, spread over the active CPUs. */
static int kpopulate(struct ksim *k, struct kcpu *cpus, unsigned int ncpu)
{
	unsigned int users = k->p->threads ? k->p->threads : 6 * ncpu, i, proc = 0, left = 0;
	int32_t pid = 0;

	for (i = 0; i < ncpu; i++) {
		k->c = &cpus[i];
		if (knew_thread(k) < 0)
			return -1;
		cpus[i].t[0] = (struct kthr){ .tid = (*k->next_tid)++, .ppid = 2, .prio = KPRIO,
					      .state = KT_BLOCKED, .kthread = 1, .sc = -1 };
		cpus[i].t[0].pid = cpus[i].t[0].tid;
		snprintf(cpus[i].t[0].comm, 16, "kworker/%u:1", cpus[i].cpu_nr % 10000);
	}
	*k->next_tid = 1000;
	for (i = 0; i < users; i++) {
		struct kthr *t;
		int x;

		if (!left) {
			uint64_t r = evt_synth_rnd(&k->rs);

			/* Most processes have one thread, some two to four. */
			left = r % 10 < 6 ? 1 : 2 + (unsigned int)((r >> 8) % 3);
			pid = *k->next_tid;
			proc++;
		}
		left--;
		k->c = &cpus[i % ncpu];
		x = knew_thread(k);
		if (x < 0)
			return -1;
		t = &k->c->t[x];
		t->tid = (*k->next_tid)++;
		t->pid = pid;
		t->ppid = 1;
		t->prio = KPRIO;
		t->state = evt_synth_rnd(&k->rs) % 2 ? KT_RUNNABLE : KT_BLOCKED;
		snprintf(t->comm, 16, "worker-%u", proc % 100000000);
	}
	return 0;
}

static int ksim_write(const char *dir, const struct evt_synth_params *p,
		      struct evt_synth_result *res, char *err, size_t errlen)
{
	u64 (*saved)(void) = evt_clock_fn;
	uint8_t uuid[16];
	struct ksim k;
	struct kcpu *cpus;
	unsigned int cpu, active = 0, i, ai = 0;
	uint64_t per, extra;
	int32_t next_tid = 3;
	unsigned int next_job = 1;
	char tdir[4096];
	int ret = 0;

	memset(&k, 0, sizeof(k));
	k.p = p;
	k.res = res;
	k.rs = p->seed * 0x9E3779B97F4A7C15ULL + 0x1234567;
	k.next_tid = &next_tid;
	k.next_job = &next_job;
	k.ev_per_packet = p->subbuf_size / 16;
	k.stall_len = p->stall_len ? p->stall_len : 2 * p->num_subbuf * (p->subbuf_size / 16 + 1);
	if (ksc_init(&k, err, errlen))
		return -1;
	/* LTTng's layout: the analyses look for a directory named kernel. */
	if ((size_t)snprintf(tdir, sizeof(tdir), "%s/kernel", dir) >= sizeof(tdir)) {
		evt_errf(err, errlen, "%s: name too long", dir);
		return -1;
	}
	if ((mkdir(dir, 0755) && errno != EEXIST) || (mkdir(tdir, 0755) && errno != EEXIST)) {
		evt_errf(err, errlen, "%s: %s", tdir, strerror(errno));
		return -1;
	}
	evt_synth_uuid(uuid, &k.rs);
	if (evt_synth_write_metadata(tdir, p, uuid, p->tracer_version ? p->tracer_version : "0.0.0", "evsynth",
			   err, errlen))
		return -1;
	for (cpu = 0; cpu < p->cpus; cpu++)
		if (!(p->offline && p->offline[cpu]) && !(p->idle && p->idle[cpu]))
			active++;
	cpus = calloc(active ? active : 1, sizeof(*cpus));
	if (!cpus) {
		evt_errf(err, errlen, "out of memory");
		return -1;
	}
	for (cpu = 0; cpu < p->cpus; cpu++)
		if (!(p->offline && p->offline[cpu]) && !(p->idle && p->idle[cpu]))
			cpus[ai++].cpu_nr = cpu;
	for (i = 0; i < active; i++)
		cpus[i].cur = -1;
	if (active && kpopulate(&k, cpus, active)) {
		evt_errf(err, errlen, "out of memory");
		ret = -1;
		goto out;
	}
	per = active ? p->events / active : 0;
	extra = active ? p->events % active : 0;

	evt_clock_fn = evt_synth_clock;
	for (cpu = 0, ai = 0; cpu < p->cpus && !ret; cpu++) {
		struct evt_synth_ring rings[2];
		int64_t start;
		int on = !(p->idle && p->idle[cpu]);

		if (p->offline && p->offline[cpu])
			continue;
		if (evt_synth_cpu_open(rings, tdir, cpu, p, uuid, res, err, errlen)) {
			ret = -1;
			break;
		}
		start = (int64_t)p->start_ns + (int64_t)cpu * p->skew_ns;
		k.rings = rings;
		k.cpu = cpu;
		k.now = start > 0 ? (uint64_t)start : 1;
		k.e = 0;
		k.n = on ? per + (extra ? 1 : 0) : 0;
		if (k.n && extra)
			extra--;
		k.done = 0;
		k.stall_left = 0;
		k.next_flush[0] = k.next_flush[1] = 0;
		snprintf(k.swapper, sizeof(k.swapper), "swapper/%u", cpu % 10000);
		if (on) {
			if (!ai)
				kstatedump(&k, cpus, active);
			k.c = &cpus[ai++];
			while (!k.done)
				kstep(&k);
		}
		if (k.err) {
			evt_errf(err, errlen, "%s: write: %s", tdir, strerror(k.err));
			ret = -1;
		}
		evt_synth_now = k.now;
		if (evt_synth_ring_close(&rings[0], res) | evt_synth_ring_close(&rings[1], res)) {
			if (!ret)
				evt_errf(err, errlen, "%s: write: %s", tdir, strerror(errno));
			ret = -1;
		}
	}
	evt_clock_fn = saved;
out:
	for (i = 0; i < active; i++)
		free(cpus[i].t);
	free(cpus);
	if (res->first_ts == UINT64_MAX)
		res->first_ts = 0;
	return ret;
}

int evt_synth_kernel_write(const char *dir, const struct evt_synth_params *p,
			   struct evt_synth_result *res, char *err, size_t errlen)
{
	/* An idle CPU's gaps are the longest: up to KMAX_GAP periods. */
	struct evt_synth_params q = *p;

	if (p->period_ns > INT64_MAX / KMAX_GAP || p->syscall_pct + p->irq_pct > 100) {
		evt_errf(err, errlen, p->syscall_pct + p->irq_pct > 100 ?
			 "syscall and irq shares add up to more than 100%%" :
			 "period too long");
		return -1;
	}
	q.period_ns = p->period_ns * KMAX_GAP;
	if (evt_synth_last_time_fits(&q, err, errlen))
		return -1;
	return ksim_write(dir, p, res, err, errlen);
}
