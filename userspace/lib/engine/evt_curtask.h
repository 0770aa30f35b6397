/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task running on each CPU, worked out while a trace is read: what a
 * reader that prints or exports events one at a time needs to say which
 * thread (tid, pid, comm) an event happened in. The events carry no tid:
 * a CPU's task is the next_tid of its last sched_switch, and a thread's
 * pid and name come from the state dump (lttng_statedump_process_state),
 * sched_process_fork, sched_process_exec and the names sched_switch and
 * the wakeups carry.
 *
 * Feed it every event in trace order (evt_curtask_event() is an
 * evt_hook_fn) and ask, before feeding an event, who runs on its CPU. Its
 * CPU time accounting follows the "state" computation's (evt_comps.h), so
 * that slices summed per thread, those that span no loss (evt_losses.h),
 * are evstat's CPU times: a CPU whose task
 * is not known yet gets, at its first sched_switch, the switch's prev_tid
 * as running since the first event the tracker saw; a slice ends at the
 * CPU's next switch, and the task of the CPU as the tracker has it (not
 * the switch's prev_tid, when an event was lost) is the one that ran.
 *
 * Before the first switch of a CPU its task is unknown (tid -1), unless
 * the caller seeds it: evt_curtask_look_ahead() takes each CPU's first
 * sched_switch from the trace itself (its prev_tid ran until then), and a
 * saved tracker (evt_curtask_save(), _load()) carries a chunk's end into
 * the next chunk.
 */
#ifndef EVT_CURTASK_H
#define EVT_CURTASK_H

#include <stddef.h>
#include <stdint.h>
#include "engine/evt_engine.h"

/* A thread as the tracker knows it. */
struct evt_task {
	int32_t tid;		/* -1: unknown (and so pid and comm) */
	int32_t pid;		/* -1: unknown */
	char comm[16];		/* "": unknown */
};

/* One thread's time on one CPU: [begin, end) in trace clock ns. */
struct evt_slice {
	unsigned int cpu;
	int32_t tid;		/* 0: the idle task */
	uint64_t begin, end;
	/*
	 * The switch's prev_state that ended it (0: preempted, else the
	 * module's state bits), or -1: cut by evt_curtask_cut() (it goes on
	 * in the next slice of the same CPU, which begins at @end).
	 */
	int64_t end_state;
};

typedef void (*evt_slice_fn)(void *data, const struct evt_slice *s);

struct evt_curtask;

/* NULL: no memory. */
struct evt_curtask *evt_curtask_new(void);
void evt_curtask_free(struct evt_curtask *c);

/* Slices are told to @fn as they end (may be NULL: none). */
void evt_curtask_on_slice(struct evt_curtask *c, evt_slice_fn fn, void *data);

/*
 * Told of each thread the tracker learns of and of each change of what it
 * knows of one (pid, comm), with what it knows now (may be NULL: none).
 */
typedef void (*evt_thread_fn)(void *data, const struct evt_task *t);
void evt_curtask_on_thread(struct evt_curtask *c, evt_thread_fn fn, void *data);

/* The tid on @cpu now (-1: unknown), without its identity. */
int32_t evt_curtask_cur(const struct evt_curtask *c, unsigned int cpu);
/* What @c knows of the threads, as @fn's calls would have told it: each thread once. */
void evt_curtask_threads(const struct evt_curtask *c, evt_thread_fn fn, void *data);
/* @cpu runs @tid (the caller knows it from elsewhere: a time window's start). 0 or -1. */
int evt_curtask_set_cur(struct evt_curtask *c, unsigned int cpu, int32_t tid);
/* What another tracker learned of @t->tid: its pid (when >= 0) and name (when not ""). 0 or -1. */
int evt_curtask_set_thread(struct evt_curtask *c, const struct evt_task *t);

/* The next event (trace order). An evt_hook_fn: @c the tracker, @call_data a struct evt_engine_event. */
int evt_curtask_event(void *c, void *call_data);

/* The task on @cpu now (before the next event is fed): 0 with *@out, or -1 (unknown: out->tid -1). */
int evt_curtask_on_cpu(const struct evt_curtask *c, unsigned int cpu, struct evt_task *out);
/*
 * The task @ev (the next event, not fed yet) happened in: a sched_switch's
 * prev_tid (the event says so, even when a lost switch left the tracker
 * believing another ran), else the task on its CPU. 0, or -1 (unknown:
 * out->tid -1).
 */
int evt_curtask_event_task(struct evt_curtask *c, const struct evt_engine_event *ev, struct evt_task *out);
/* @tid's identity as last known: 0, or -1 when never seen (out: @tid, pid -1, ""). */
int evt_curtask_thread(const struct evt_curtask *c, int32_t tid, struct evt_task *out);

/*
 * For every CPU whose task is unknown: the prev_tid (and prev_comm) of its
 * first sched_switch in @tr ran there since @since (trace clock; the
 * first event's time as the state computation counts it). Reads each
 * stream that holds sched_switch up to its first one, on a clone of @tr
 * (@tr's own cursors do not move). 0, or -1 (no memory).
 */
int evt_curtask_look_ahead(struct evt_curtask *c, const struct evt_trace *tr, uint64_t since);
/* The same, reading at most @max_packets packets of each stream (0: all). */
int evt_curtask_look_ahead_n(struct evt_curtask *c, const struct evt_trace *tr, uint64_t since,
			     uint32_t max_packets);

/*
 * Every CPU's running slice is told as ending at @ts (end_state -1) and
 * goes on from @ts (a chunk's end). Nothing changes for a CPU whose task is
 * unknown.
 */
void evt_curtask_cut(struct evt_curtask *c, uint64_t ts);

/* The first event's time (trace clock) the tracker saw or was loaded with; 0: none. */
uint64_t evt_curtask_first_ts(const struct evt_curtask *c);

/*
 * The saved form (little-endian, evt_buf): the CPUs' tasks and since
 * when, and the threads not freed. 0 or -1 (no memory). _load() into a
 * new tracker: 0, or -1 when the bytes are not a saved tracker (the
 * tracker is then as new). @r is read from its offset on.
 */
int evt_curtask_save(const struct evt_curtask *c, struct evt_buf *b);
int evt_curtask_load(struct evt_curtask *c, struct evt_rbuf *r);

#endif /* EVT_CURTASK_H */
