/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watermark reorderer (after Aqua Security's Tracee, "Ordering
 * Events"; docs/references.md):
 * turns events that arrive per source (CPU buffer), mostly but not fully in
 * time order, into one time-ordered stream while they are being recorded.
 *
 *   push    an event as it arrives, from source s. Each source keeps a queue
 *           sorted by timestamp; an event older than the queue's tail (a
 *           syscall record, a nested record, a buffer that was empty when
 *           scanned) is inserted at its chronological place.
 *   tick    W(k) = min over sources of the newest timestamp seen from each
 *           (an idle source contributes its quiescent timestamp; a finished
 *           source none). The flush bound becomes W(k - d): d ticks of delay
 *           (default 2) cover the longest time an event can take to arrive.
 *   pull    emitted events one by one, in (ts, source, arrival) order, while
 *           the oldest queued one is <= the flush bound.
 *
 * An event pushed with a timestamp <= the newest already emitted is late:
 * it is counted, flagged EVT_REORDER_LATE, and emitted at the next pull
 * (it is older than every queued event), never dropped. An event that
 * arrives out of order but before its flush is not late: it is put in its
 * place (the seed's T7).
 *
 * Live use (evdrain --live): one source per ring buffer; sources that are not
 * (yet) buffers are marked done. Per drained sub-buffer, push its events to
 * the buffer's source; on a timer, give each buffer's quiescent timestamp,
 * tick, then pull until it says 0; a buffer that appears is added, one that
 * goes away is done; at the end, evt_reorder_finish() and pull the rest.
 */
#ifndef EVT_REORDER_H
#define EVT_REORDER_H

#include <stdint.h>
#include "ctf/evt_decode.h"
#include "ctf/evt_merge.h"

#define EVT_REORDER_LATE	1U

struct evt_reorder_item {
	uint64_t ts;
	uint64_t user;		/* the caller's, as pushed */
	uint64_t seq;		/* arrival number: order among equal timestamps */
	uint8_t *data;		/* payload copy (push_event), or NULL */
	void *chunk;
	uint32_t len;
	uint32_t cpu;
	uint16_t desc;		/* the event's index in its catalogue (push_event) */
	uint16_t flags;
	uint32_t src;
};

struct evt_reorder_queue {
	struct evt_reorder_item *q;
	uint32_t head, tail, cap;	/* items q[head..tail) in (ts, seq) order */
	uint64_t newest;		/* max timestamp seen, or quiescent */
	uint8_t known;			/* newest is set */
	uint8_t done;			/* holds nothing back any more */
};

struct evt_reorder_stats {
	uint64_t pushed;
	uint64_t emitted;
	uint64_t late;		/* pushed with ts <= the newest emitted */
	uint64_t inserted;	/* arrived out of order before their flush */
	uint64_t queued;	/* now */
	uint64_t max_queued;
	uint64_t ticks;
};

struct evt_reorder {
	uint32_t nr;
	uint32_t delay;			/* d, in ticks */
	struct evt_reorder_queue *src;
	struct evt_merge m;
	uint64_t base;			/* merge keys hold ts - base */
	int dirty;			/* rebuild the merge before pulling */
	/* W of the last d + 1 ticks */
	uint64_t *w;
	uint8_t *w_valid;
	uint64_t k;			/* ticks done */
	uint64_t bound;			/* emit ts <= bound */
	int bound_valid;
	int finished;			/* emit everything */
	uint64_t last_emitted;
	int emitted_any;
	uint64_t seq;
	/* payload arena */
	void *cur_chunk;
	void *release;			/* chunk of the item pulled last */
	struct evt_reorder_stats st;
};

/* 0, or -1 (no memory / bad arguments). */
int evt_reorder_init(struct evt_reorder *r, uint32_t nr_sources, uint32_t delay_ticks,
		     enum evt_merge_kind kind);
void evt_reorder_free(struct evt_reorder *r);

/* An event of source @src with timestamp @ts and the caller's @user value. 0 or -1. */
int evt_reorder_push(struct evt_reorder *r, uint32_t src, uint64_t ts, uint64_t user);
/* A decoded event; its payload is copied. 0 or -1. */
int evt_reorder_push_event(struct evt_reorder *r, uint32_t src, uint32_t cpu,
			   const struct evt_event *ev);
/* Source @src will deliver nothing older than @ts (an idle CPU). */
void evt_reorder_quiescent(struct evt_reorder *r, uint32_t src, uint64_t ts);
/*
 * Source @src has ended (or never existed: a caller sized for more sources
 * than it has marks the others done): it no longer holds the watermark back.
 * Every source starts active, and one never heard of (no event, no
 * quiescent time) holds the watermark back: nothing is emitted until it
 * speaks or is marked done.
 */
void evt_reorder_source_done(struct evt_reorder *r, uint32_t src);
/*
 * Source @src takes part (again): a buffer that appeared (CPU hotplug). It
 * holds the watermark back until its first event or quiescent time, unless
 * it had some before.
 */
void evt_reorder_source_add(struct evt_reorder *r, uint32_t src);
/* One tick: W(k) computed, the flush bound moves to W(k - d). */
void evt_reorder_tick(struct evt_reorder *r);
/* No more input: everything queued may be emitted. */
void evt_reorder_finish(struct evt_reorder *r);
/*
 * The next emitted event: 1 (in @out; its data stays valid until the next
 * pull or free), 0 when nothing more may be emitted now.
 */
int evt_reorder_pull(struct evt_reorder *r, struct evt_reorder_item *out);
/* The current flush bound: 0 when there is none yet, else 1 and *@bound. */
int evt_reorder_bound(const struct evt_reorder *r, uint64_t *bound);

#endif /* EVT_REORDER_H */
