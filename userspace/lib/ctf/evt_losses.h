/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a trace lost, and when: the loss records of its packet headers as
 * time windows, for every reader that must not take a hole in the trace
 * for the machine (evcat's warnings, the analyses' "spans a loss", the
 * viewer's shading).
 *
 * A packet says two kinds of loss (babeltrace2 reports them the same way):
 *   - events_discarded grew since the stream's previous packet: the
 *     tracer discarded that many events after it read the previous
 *     packet's total (at its close) and before it read this one's (at
 *     this packet's close): the window is [previous end, this end];
 *   - packet_seq_num jumped: whole packets are missing (overwritten, or a
 *     seam between chunks): the window is [previous end, this begin].
 * A stream's first packet has no previous one: a non-zero total there
 * counts what was lost before it (a chunk of a longer session, a
 * snapshot): a record marked "before", with no window (what happened
 * before the trace cannot hide an interval measured inside it), unless
 * the caller knows the packet before it (a seam: struct evt_loss_seam).
 *
 * Windows are the trace clock's (ns). An interval [a, b] of the machine
 * (a syscall, a wait, an interrupt) spans a loss when a window (from, to)
 * has from < b and a < to: the events that would have closed or opened it
 * may be among the lost ones, whatever the CPU (a wakeup on one CPU is a
 * switch's partner on another). Time on a CPU (a thread's slice, an
 * interrupt's) is a sum: only its part inside the windows is unknown
 * (evt_lossmap_overlap()), the rest is as the events say.
 */
#ifndef EVT_LOSSES_H
#define EVT_LOSSES_H

#include <stdint.h>
#include "ctf/evt_trace.h"

/* One packet's loss record. */
struct evt_loss {
	uint64_t from, to;	/* the window (trace clock) */
	uint64_t begin;		/* the reporting packet's timestamp_begin */
	uint32_t stream;	/* index in the trace's streams */
	uint64_t events;	/* events discarded (events_discarded grew by this) */
	uint64_t packets;	/* packets lost (packet_seq_num jumped by this + 1) */
	int before;		/* a first packet's total: lost before the stream's first packet (no window) */
};

/* A stream's packet before the trace's first one (the end of the chunk before). */
struct evt_loss_seam {
	uint32_t cpu, channel;
	uint64_t end;		/* its timestamp_end */
	uint64_t discarded;	/* its events_discarded */
	uint64_t next_seq;	/* its packet_seq_num + 1 */
};

/*
 * Every loss record of @tr's opened streams, from the packet index (the
 * headers it checked are read again), in stream order then time: *@out
 * malloc'd (NULL when there is none), *@n of them. 0, or -1 (no memory).
 */
int evt_trace_losses(const struct evt_trace *tr, struct evt_loss **out, uint32_t *n);
/* The same, each stream's first packet read against its seam in @seams (@nseams of them) when it has one. */
int evt_trace_losses_seamed(const struct evt_trace *tr, const struct evt_loss_seam *seams, uint32_t nseams,
			    struct evt_loss **out, uint32_t *n);

/* The windows of a set of records, merged where they overlap, in time order. */
struct evt_lossmap {
	uint64_t *w;		/* w[2i] from, w[2i + 1] to */
	uint32_t n;
	const void *made_for;	/* who built it (a reader), for callers that build lazily */
};

/* 0, or -1 (no memory: @m is then empty). Records marked "before" have no window. */
int evt_lossmap_build(struct evt_lossmap *m, const struct evt_loss *l, uint32_t n);
/* Windows added (@w[2i] from, @w[2i + 1] to), merged with those there. 0, or -1 (no memory: @m unchanged). */
int evt_lossmap_add(struct evt_lossmap *m, const uint64_t *w, uint32_t n);
/* The same, from @tr's packet index. */
int evt_lossmap_of_trace(struct evt_lossmap *m, const struct evt_trace *tr);
void evt_lossmap_free(struct evt_lossmap *m);
/* 1 when [a, b] spans a loss (see above), else 0. */
int evt_lossmap_spans(const struct evt_lossmap *m, uint64_t a, uint64_t b);
/* How much of [a, b] lies inside the windows (ns). */
uint64_t evt_lossmap_overlap(const struct evt_lossmap *m, uint64_t a, uint64_t b);

#endif /* EVT_LOSSES_H */
