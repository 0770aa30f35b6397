/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A time window cut into pixel columns, per CPU: who ran, how busy, the
 * interrupts and losses in each column (evview's /api/window and
 * /api/thread). Three ways to fill one, each to the same rule: from the
 * events (evt_window_event as an engine event hook), from the ready state
 * and marks results (evt_window_summary), or from a sample of each
 * stream (evt_window_sample).
 *
 * The rule (tests/tools/evview-check.py computes it the same way from
 * evcat's JSON): [from, to] is cut into cols columns, column k covering
 * [from + floor(k * n / cols), from + floor((k + 1) * n / cols)) with
 * n = to - from + 1. A CPU runs a thread from one sched_switch's
 * next_tid to the next switch (to + 1 at the end). At from the thread is
 * the ready state result's; without one (or where it does not know: before
 * the CPU's first event) it is unknown until the CPU's first switch, whose
 * prev_tid then runs from the CPU's first event of the window (the state
 * computation's rule). A CPU is flagged incomplete when the state result
 * is not ready and some of its time is unknown: the same window asked
 * again once it is ready may say more. A column's tid is the thread other than idle (tid 0) that
 * ran longest in it (ties: the smaller tid), busy the time a thread
 * other than idle ran over the column's length; irq and softirq count
 * irq_handler_entry and softirq_entry events; lost counts the packets
 * whose headers say events or packets were lost just before them.
 *
 * A window whose range holds more than EVT_WINDOW_READ_BYTES of packets is not
 * read event by event (that is seconds on a multi-GB trace). Once the
 * state and marks results are ready it is summed from them ("summary"):
 * the same rule as reading the events, column for column, with the
 * busy time from running totals kept every SUM_BLOCK intervals and the
 * interrupt counts by binary search in the marks; only a column that
 * holds more than SUM_EXACT intervals has its thread estimated, as the
 * one running at most of SUM_POINTS evenly spaced times (such columns
 * are flagged estimated). Before
 * they are ready it is sampled ("sample", flagged incomplete): per
 * stream and column, SAMPLE_EVENTS events from the first packet that
 * starts in the column (or from where the column starts in the packet
 * that holds it), scaled to the column.
 */
#ifndef EVT_VIEW_H
#define EVT_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include "engine/evt_comp_marks.h"
#include "engine/evt_comps.h"
#include "engine/evt_engine.h"
#include "ctf/evt_trace.h"

/* A window wider than this many bytes of packets is summed or sampled, not read event by event. */
#define EVT_WINDOW_READ_BYTES (16ULL << 20)

struct evt_window_tid {
	int32_t tid;
	uint64_t ns;
};

struct evt_window_cpu {
	int32_t cur;			/* -1: unknown */
	uint64_t since;			/* when cur started (clock) */
	uint64_t first;			/* its first event in the window */
	int seen, switched, incomplete;
	uint32_t col;			/* the column being summed */
	struct evt_window_tid *acc;	/* its threads' times */
	uint32_t nacc, cap;
	int32_t *tid;			/* per column: the result */
	uint64_t *busy;
	uint32_t *irq, *soft, *lost;
	uint8_t *estimated;		/* per column, a summary's: its thread estimated (NULL: none) */
};

struct evt_window_kind;
struct evt_window_comm;

struct evt_window {
	uint64_t from, to;		/* clock */
	uint64_t n;			/* to - from + 1 */
	uint32_t cols;
	unsigned int nr_cpus;		/* CPUs with a stream: w->cpu[slot] */
	const unsigned int *cpu_of;	/* slot -> CPU */
	const int32_t *slot_of;		/* CPU -> slot, -1: no stream */
	unsigned int nr_slot_of;
	struct evt_window_cpu *cpu;
	struct evt_window_kind *kinds;
	unsigned int nr_kinds;
	struct evt_window_comm *comms;	/* tid -> the last next_comm seen (open addressing) */
	uint32_t comm_cap, nr_comms;
	int state_ready;		/* CPUs seeded from the state result */
	int oom;
};

/* The CPUs a window covers: those with a stream, in slots. */
struct evt_window_cpus {
	unsigned int nr_cpus;
	const unsigned int *cpu_of;	/* slot -> CPU */
	const int32_t *slot_of;		/* CPU -> slot, -1: no stream */
	unsigned int nr_slot_of;
};

/* Column k's first clock time, the one past its last, and the column that holds @ts. */
uint64_t evt_window_col_start(const struct evt_window *w, uint64_t k);
uint64_t evt_window_col_end(const struct evt_window *w, uint32_t k);
uint32_t evt_window_col_of(const struct evt_window *w, uint64_t ts);

/*
 * [from, to] (clock) in @cols columns over @cpus (kept, not copied), each
 * CPU's thread at from seeded from @ready (NULL: unknown), the packets'
 * losses from @losses (NULL: none) counted. 0, or -1 (no memory: free it).
 */
int evt_window_init(struct evt_window *w, const struct evt_window_cpus *cpus, const struct evt_state *ready,
		    const struct evt_stats *losses, uint64_t from, uint64_t to, uint32_t cols);
/* An engine event hook (@data: the window): one event of the range read. */
int evt_window_event(void *data, void *call);
/* After the last event read: close every CPU's columns. */
void evt_window_end(struct evt_window *w);
void evt_window_free(struct evt_window *w);
/* The last next_comm seen for @tid in the events read, or NULL. */
const char *evt_window_comm(const struct evt_window *w, int32_t tid);

/* Packet bytes of [from, to] (clock), over every stream: what reading its events costs. */
uint64_t evt_window_range_bytes(const struct evt_trace *tr, uint64_t from, uint64_t to);

/* Running totals of the state's intervals, built per CPU on first use and kept across windows. */
struct evt_window_summary;
void evt_window_summary_free(struct evt_window_summary *sm);
/*
 * Fill an initialised window from the ready state @st and complete marks
 * @m, the totals kept in *@sm (allocated when NULL, for the same CPUs):
 * 0, or -1 when a CPU cannot be summed to the reading rule (read the
 * events instead). Estimated columns are flagged in cpu[].estimated.
 */
int evt_window_summary(struct evt_window *w, struct evt_window_summary **sm, const struct evt_state *st,
		       const struct evt_marks *m);
/*
 * Fill an initialised window from a sample of each stream of @tr (a
 * reader of its own: its streams' positions move). Every CPU is flagged
 * incomplete. 0; 1 when a stream could not be decoded (@err says where:
 * the rest is filled).
 */
int evt_window_sample(struct evt_window *w, struct evt_trace *tr, char *err, size_t errlen);

/* The last interval of @cpu in @st that begins at or before @ts, or -1. */
long evt_window_iv_find(const struct evt_state *st, unsigned int cpu, uint64_t ts);

/*
 * A thread's lane over a window's columns (only w->from, to, n and cols
 * are read): ns[k][state] the time @t spent in each state in column k,
 * added to. 0, or -1 when the state result could not be read.
 */
int evt_window_thread_lane(const struct evt_state *st, const struct evt_state_thread *t, struct evt_window *w,
			   uint64_t (*ns)[EVT_TSTATE_COUNT]);

#endif /* EVT_VIEW_H */
