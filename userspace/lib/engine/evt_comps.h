/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The built-in computations of the analysis engine (the "state" and
 * "statistics" precomputations of Desnoyers, "Linux Trace Toolkit Requests
 * Servicing Schedulers", 2004; docs/references.md), their results and queries.
 *
 * Both keep to what they see: they assume nothing about where the reading
 * starts, so the same hooks serve an ad hoc request over a time window. A
 * CPU's running thread is unknown until its first sched_switch, unless the
 * caller seeds it (evt_state_seed_cpu(), evt_stats_seed_cpu(): the engine
 * does from a ready "state" result). Times are the trace clock's (ns).
 *
 * Results are built by hooks and then read: a result being filled must
 * not be queried from another thread.
 */
#ifndef EVT_COMPS_H
#define EVT_COMPS_H

#include <stddef.h>
#include <stdint.h>
#include "engine/evt_engine.h"
#include "format/evt_errno.h"
#include "engine/evt_lathist.h"
#include "ctf/evt_losses.h"

extern const struct evt_computation evt_comp_state, evt_comp_stats;

/* ==== state ==== */

/* A thread's state (a running thread is in one of the first four). */
enum evt_tstate {
	EVT_TSTATE_UNKNOWN,		/* before anything told */
	EVT_TSTATE_USER,		/* running in user mode */
	EVT_TSTATE_SYSCALL,		/* running, in a system call */
	EVT_TSTATE_IRQ,			/* its CPU serves an interrupt */
	EVT_TSTATE_SOFTIRQ,		/* its CPU runs a softirq */
	EVT_TSTATE_RUNNABLE,		/* preempted or woken, waiting for a CPU */
	EVT_TSTATE_BLOCKED,		/* switched out asleep */
	EVT_TSTATE_EXITED,		/* switched out dead, or freed */
	EVT_TSTATE_COUNT
};
const char *evt_tstate_name(enum evt_tstate s);

/*
 * [begin, end) of one thread on a CPU (tid 0: idle; -1: unknown, after a
 * lost switch), or of one state of a thread.
 */
struct evt_state_interval {
	uint64_t begin, end;
	int32_t tid;
	uint8_t state;			/* enum evt_tstate (thread intervals) */
};

/* A run of a thread's changes that share one base time (evt_state_thread). */
struct evt_state_block {
	uint64_t base;			/* the time of its first change */
	uint32_t first;			/* the index of its first change */
};

/*
 * A thread: its latest identity, its CPU time, and its states as nch
 * change points (read with evt_state_thread_interval() and
 * evt_state_thread_at()), each a state from its time to the next change
 * (the last to the result's end). tid 0 (every CPU's idle task) has none.
 */
struct evt_state_thread {
	int32_t tid, pid, ppid;		/* pid, ppid: -1 unknown */
	char comm[16];
	/*
	 * Time running (any running state), but what of it lies in a loss
	 * window (evt_losses.h): that is cpu_lossy_ns, not a measurement of
	 * the machine (a lost switch may have ended the slice there).
	 */
	uint64_t cpu_ns;
	uint64_t cpu_lossy_ns;
	uint32_t nch;			/* changes */
	/*
	 * The changes, 4 bytes each: (time - its block's base) << 3 | state,
	 * a block starting wherever the time is 2^29 ns or more past the
	 * current one's base.
	 */
	uint32_t *ch;
	struct evt_state_block *blk;
	uint32_t cap_ch, nblk, cap_blk;
	/* While the result is built. */
	uint64_t last_ch;		/* the last change's time */
	uint8_t state;			/* the current one */
	uint8_t in_syscall;
	uint8_t exited;			/* sched_process_exit seen */
	uint8_t freed;			/* sched_process_free seen: a new thread may take the tid */
	int32_t cpu;			/* where it runs now, -1 (tid 0: always -1) */
};

struct evt_state;

/* A result of its own (what create() makes for a trace). NULL: no memory. */
struct evt_state *evt_state_new(void);
void evt_state_free(struct evt_state *st);
/* The hook the computation adds (ctx->event), for callers that drive it themselves. */
int evt_state_event_hook(void *state, void *call_data);
/*
 * @tid runs on @cpu from the first event this result sees (a window's
 * start): the caller knows it from elsewhere (a ready state result). 0 or -1.
 */
int evt_state_seed_cpu(struct evt_state *st, unsigned int cpu, int32_t tid);
/* Close what is open at the last event seen (finish() does). */
void evt_state_close(struct evt_state *st);

/* First and last event times seen (0, 0: none). */
void evt_state_span(const struct evt_state *st, uint64_t *first, uint64_t *last);
/* CPUs: 0 .. nr - 1 (some may have no interval). */
unsigned int evt_state_nr_cpus(const struct evt_state *st);
size_t evt_state_cpu_nr_intervals(const struct evt_state *st, unsigned int cpu);
/* Interval @i of @cpu (in time order): 0, or -1 when there is none. */
int evt_state_cpu_interval(const struct evt_state *st, unsigned int cpu, size_t i,
			   struct evt_state_interval *iv);
/* The thread running on @cpu at @ts (binary search), or -1 when unknown. */
int32_t evt_state_cpu_tid_at(const struct evt_state *st, unsigned int cpu, uint64_t ts);

/* The latest thread with @tid (a tid reused after a free names the new one), or NULL. */
const struct evt_state_thread *evt_state_thread(const struct evt_state *st, int32_t tid);
/* Every thread ever seen, in order of first sight: 0 .. nr - 1. */
size_t evt_state_nr_threads(const struct evt_state *st);
const struct evt_state_thread *evt_state_thread_nth(const struct evt_state *st, size_t i);
/* @t's state at @ts (binary search). */
enum evt_tstate evt_state_thread_at(const struct evt_state_thread *t, uint64_t ts);
/* Interval @i of @t's states (the last ends at the result's end): 0 or -1. */
int evt_state_thread_interval(const struct evt_state *st, const struct evt_state_thread *t, size_t i,
			      struct evt_state_interval *iv);
/*
 * The threads that ran most, most first (tid 0 left out): up to @max of
 * them into @out; how many. Ties: smaller tid first.
 */
size_t evt_state_top_threads(const struct evt_state *st, const struct evt_state_thread **out, size_t max);

/* ==== stats ==== */

/*
 * A latency or duration: the intervals that span no loss (evt_losses.h)
 * are the measurements; those that do are only counted, in spans_loss.
 */
struct evt_lat {
	uint64_t count, total_ns, min_ns, max_ns;	/* min_ns: UINT64_MAX while count is 0 */
	uint64_t spans_loss;
};

struct evt_stats_event {
	char *name;
	uint64_t count;
};

/*
 * The return values of a syscall's matched exits: how many succeeded (ret
 * >= 0), and the count of each failure (ret < 0: -errno, errno names by
 * evt_errno_name()), in order of first sight.
 */
struct evt_stats_ret {
	int64_t ret;
	uint64_t count;
};
struct evt_stats_rets {
	uint64_t success;
	struct evt_stats_ret *v;
	uint32_t n, cap;
};

#define EVT_STATS_NEST 4
struct evt_stats_cpu {
	uint64_t events;
	/*
	 * Where its time went, from the first event to the last (the
	 * result's span): a thread's slice is its time between two switches
	 * (before the CPU's first switch, the thread that switch took off it),
	 * less the hard IRQs and softirqs in it; time inside a loss window
	 * goes to lossy_ns instead of its kind. The rest is unknown (no switch
	 * on the CPU at all).
	 */
	uint64_t busy_ns, idle_ns, irq_ns, softirq_ns, lossy_ns;
	/*
	 * lttng-cputop's per-CPU usage: the time a thread other than the
	 * idle task was on it, interrupts included, and all the time before
	 * its first switch whoever ran (the analyses count it so).
	 */
	uint64_t task_ns;
	/* While the result is built. */
	int32_t cur;			/* its thread, -1: unknown */
	uint32_t cur_th;		/* its index in threads */
	/*
	 * The hard IRQ and the softirq entered and not left: (index or vec,
	 * entry time); depth at most 1 (handlers do not nest: an entry while
	 * one is open replaces it, its exit was lost).
	 */
	unsigned int irq_depth, soft_depth;
	struct { uint32_t i; uint64_t ts; } irq[EVT_STATS_NEST], soft[EVT_STATS_NEST];
	uint64_t since;			/* the slice's begin */
	uint64_t mode_since;		/* the current mode's (task, softirq, IRQ) */
	uint64_t slice_task_ns;		/* task-mode time in the slice so far */
	uint8_t switched;		/* a switch was seen (or the CPU seeded) */
};

/* A thread's calls of one syscall (index in evt_stats.sys). */
struct evt_stats_tsys {
	uint32_t sys;
	uint64_t count;			/* entries */
	struct evt_lat lat;
	struct evt_lathist pct;
	struct evt_stats_rets rets;
};

/* Who woke a thread, and how often (its wakeups that ended in a switch-in). */
/*
 * @src's calls added to @dst's (a process's, from its threads'): @dst
 * made by evt_stats_tsys_init(). 0 or -1 (no memory).
 */
void evt_stats_tsys_init(struct evt_stats_tsys *y, uint32_t sys);
int evt_stats_tsys_merge(struct evt_stats_tsys *dst, const struct evt_stats_tsys *src);
/* What @y holds (not @y). */
void evt_stats_tsys_release(struct evt_stats_tsys *y);

struct evt_stats_waker {
	int32_t tid;			/* -1: an interrupt on an idle CPU, or unknown */
	uint64_t count;
};

#define EVT_STATS_PRIOS 8
/* Events while a thread ran on the event's CPU (tid -1: CPUs whose thread was unknown). */
struct evt_stats_thread {
	int32_t tid;
	uint64_t events;
	char comm[16];			/* as the switches and wakeups last named it */
	int32_t prio;			/* the last priority seen (the kernel's prio), -1 */
	int32_t prios[EVT_STATS_PRIOS];	/* the distinct ones, first seen first */
	uint32_t nprios;
	uint64_t migrations;		/* sched_migrate_task events that moved it */
	uint64_t cpu_changes;		/* switched in on another CPU than the last */
	struct evt_stats_tsys *tsys;	/* its syscalls, in order of first call */
	uint32_t ntsys, cap_tsys;
	struct evt_lat wake;		/* its wakeup latency: woken -> switched in */
	struct evt_lathist wake_pct;
	struct evt_stats_waker *wakers;	/* in order of first sight */
	uint32_t nwakers, cap_wakers;
	/* While the result is built. */
	int32_t sys;			/* the syscall entered (index in syscalls), -1 */
	uint64_t sys_ts;
	uint32_t sys_cpu;
	uint32_t sys_tsys;		/* its index in tsys */
	uint64_t wakeup_ts;		/* a wakeup waiting for its switch (wakeup_pending) */
	int32_t waker;			/* who woke it then */
	uint8_t wakeup_pending;
	uint8_t running;
	int32_t last_cpu;		/* where it last ran, -1 */
};

struct evt_stats_syscall {
	char *name;
	uint64_t count;			/* entries */
	uint64_t errors;		/* matched exits with ret < 0 (of those that span no loss) */
	struct evt_lat lat;		/* entry -> exit of the same thread */
	uint64_t hist[64];		/* evt_stats_hist_bucket() of the latency */
	struct evt_lathist pct;
	struct evt_stats_rets rets;	/* of the calls lat counts */
};

struct evt_stats_irq {
	int32_t irq;
	char name[32];
	uint64_t count;			/* entries */
	struct evt_lat dur;		/* entry -> exit on one CPU */
	uint64_t hist[64];
	struct evt_lathist pct;
};

#define EVT_STATS_SOFTIRQS 32
struct evt_stats_softirq {
	uint64_t count, raises;
	struct evt_lat dur;
	uint64_t hist[64];
	struct evt_lathist pct;
};

struct evt_stats_stream {
	uint32_t id, cpu, channel;
	uint64_t discarded;		/* events the tracer dropped */
	uint64_t lost_packets;		/* packet_seq_num gaps */
};

/* A packet whose header says events or packets were lost just before it (evt_losses.h). */
struct evt_stats_loss {
	uint64_t ts;			/* its timestamp_begin */
	uint64_t from, to;		/* the window the loss lies in */
	uint32_t stream;
	uint64_t discarded;		/* events_discarded grew by this */
	uint64_t lost_packets;		/* packet_seq_num jumped by this + 1 */
};

/* The worst latencies of a kind, each with where and whom. */
enum evt_worst_kind {
	EVT_WORST_SYSCALL,		/* what: the syscall's index in evt_stats.sys */
	EVT_WORST_IRQ,			/* what: the irq */
	EVT_WORST_SOFTIRQ,		/* what: the vector */
	EVT_WORST_SCHED,		/* wakeup -> switch-in; waker, prio */
	EVT_WORST_KINDS
};
const char *evt_worst_kind_name(enum evt_worst_kind k);
#define EVT_STATS_WORST 100
struct evt_stats_worst {
	uint64_t begin, end;		/* entry and exit, or wakeup and switch-in */
	uint32_t cpu;			/* where it began (a syscall's entry), ran (an interrupt), was switched in */
	int32_t tid;			/* the thread (an interrupt's: the one it interrupted) */
	char comm[16];
	int32_t what;
	int64_t ret;			/* a syscall's return value */
	int32_t waker;			/* scheduling: who woke it, -1 */
	char waker_comm[16];
	int32_t prio;			/* scheduling: the woken thread's priority, -1 */
};
/* Worst first (longest; of two as long, the earlier). */
struct evt_stats_worstlist {
	struct evt_stats_worst v[EVT_STATS_WORST];
	uint32_t n;
	uint8_t sorted;			/* a heap while the result is built */
};

struct evt_stats {
	uint64_t events;
	uint64_t first_ts, last_ts;		/* 0, 0: no event */
	struct evt_stats_event *ev;		/* per event name, in order of first sight */
	uint32_t nr_ev, cap_ev;
	struct evt_stats_cpu *cpus;		/* [nr_cpus] */
	uint32_t nr_cpus, cap_cpus;
	struct evt_stats_thread *threads;	/* in order of first sight */
	uint32_t nr_threads, cap_threads;
	struct evt_stats_syscall *sys;
	uint32_t nr_sys, cap_sys;
	uint64_t sys_unmatched;			/* exits with no entry seen */
	struct evt_stats_irq *irqs;
	uint32_t nr_irqs, cap_irqs;
	struct evt_stats_softirq softirq[EVT_STATS_SOFTIRQS];
	struct evt_lat sched_lat;		/* wakeup -> switched in */
	uint64_t sched_hist[64];
	struct evt_lathist sched_pct;
	struct evt_stats_worstlist worst[EVT_WORST_KINDS];
	struct evt_stats_stream *streams;
	uint32_t nr_streams;
	struct evt_stats_loss *losses;		/* in stream order, then time */
	uint32_t nr_losses;
	struct evt_stats_priv *priv;		/* the computation's own */
};

/* 0 for 0, else b with latency in [2^(b-1), 2^b), at most 63. */
unsigned int evt_stats_hist_bucket(uint64_t ns);

struct evt_stats *evt_stats_new(void);
void evt_stats_free(struct evt_stats *s);
int evt_stats_event_hook(void *stats, void *call_data);
/* @tid runs on @cpu from the next event (a window's start). 0 or -1. */
int evt_stats_seed_cpu(struct evt_stats *s, unsigned int cpu, int32_t tid);
/*
 * What the computation has in flight at a chunk's end, carried into the
 * next chunk's result (an exporter's seam): @tid is in syscall @name
 * entered at @entry_ts (its entry was counted in the chunk before), or was
 * woken at @ts and waits for a CPU. Seed the CPUs (evt_stats_seed_cpu())
 * first. The in-flight state itself is read from the public fields
 * (cpus[].cur, threads[].sys, sys_ts, wakeup_pending, wakeup_ts). 0 or -1.
 */
int evt_stats_seed_syscall(struct evt_stats *s, int32_t tid, const char *name, uint64_t entry_ts);
int evt_stats_seed_wakeup(struct evt_stats *s, int32_t tid, uint64_t ts);

/*
 * Told of each pairing as the computation makes it, so that a caller can
 * keep one row per pair (every pair the latencies count, and no other:
 * none whose interval spans a loss):
 * a syscall's exit matched to its thread's entry (@ev the exit), a woken
 * thread switched in (@ev the sched_switch). Either may be NULL.
 */
struct evt_stats_observer {
	void (*syscall)(void *data, const struct evt_engine_event *ev, int32_t tid, const char *name,
			uint64_t entry_ts, int64_t ret);
	void (*sched_latency)(void *data, const struct evt_engine_event *ev, int32_t tid, uint64_t wakeup_ts);
	void *data;
};
/* @o is copied; NULL: nobody is told. */
void evt_stats_set_observer(struct evt_stats *s, const struct evt_stats_observer *o);

/*
 * A chunk's seam (an exporter's): each stream's last packet in the chunk
 * before (the windows of this chunk's first packets start at its end,
 * evt_losses.h), and the earlier windows an interval still open may span
 * (@w[2i] from, @w[2i + 1] to). Before the first event. 0 or -1.
 */
int evt_stats_prior_losses(struct evt_stats *s, const struct evt_loss_seam *seams, uint32_t nseams,
			   const uint64_t *w, uint32_t nw);
/*
 * The reader the next events come from: its loss windows join those known
 * now (the hook does so at its first event), for a caller that asks
 * evt_stats_loss_overlap() before feeding the event.
 */
void evt_stats_use_reader(struct evt_stats *s, const struct evt_trace *tr);
/* How much of [a, b] lies in the loss windows known so far (evt_losses.h). */
uint64_t evt_stats_loss_overlap(const struct evt_stats *s, uint64_t a, uint64_t b);
/* The loss windows known so far that end after @since: *@w (w[2i] from, w[2i + 1] to), how many. */
uint32_t evt_stats_windows_after(const struct evt_stats *s, uint64_t since, const uint64_t **w);
/* Close what is open at the last event seen, sort the worst latencies (finish() does). */
void evt_stats_close(struct evt_stats *s);
/* Read the streams' losses from @tr's packet index (finish() does). 0 or -1 (no memory). */
int evt_stats_read_losses(struct evt_stats *s, const struct evt_trace *tr);

/* Lookups (NULL: never seen). */
const struct evt_stats_event *evt_stats_event(const struct evt_stats *s, const char *name);
const struct evt_stats_syscall *evt_stats_syscall(const struct evt_stats *s, const char *name);
const struct evt_stats_thread *evt_stats_thread(const struct evt_stats *s, int32_t tid);
const struct evt_stats_irq *evt_stats_irq(const struct evt_stats *s, int32_t irq);

#endif /* EVT_COMPS_H */
