/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The merged reader on several threads: the trace's time range is cut into
 * slices at packet starts (from the packet index, about slice_bytes of
 * content each); worker threads each merge whole slices, every one with its
 * own k-way merge (evt_merged) over its own cursors on the shared mappings;
 * the calling thread takes the slices' results in time order.
 *
 * The result is the sequential merge's, event for event: a slice is
 * [lo, hi] in time, each stream sought to the first packet that can hold lo
 * (packets decode on their own: the one-wrap timestamps restart at each
 * packet's timestamp_begin), events before lo merged but not given. A
 * decode error is met by the slice whose merge reaches it, after the same
 * events as sequentially: the caller stops there.
 */
#ifndef EVT_PAR_H
#define EVT_PAR_H

#include "ctf/evt_merged.h"

struct evt_par_ops {
	/* Worker thread: a new slice's state, the slice [@lo, @hi] (NULL: no memory, the run stops). */
	void *(*begin)(void *ctx, unsigned int slice, uint64_t lo, uint64_t hi);
	/* Worker thread: the slice's next events, in merge order. 0, or -1 to stop. */
	int (*refs)(void *ctx, void *state, const struct evt_ref *r, size_t n);
	/*
	 * Calling thread, slices in order: the slice is complete; @err is the
	 * decode error the merge stopped at, or NULL. Frees @state. 0 to go
	 * on, -1 to stop.
	 */
	int (*end)(void *ctx, void *state, const char *err);
	/* Calling thread: free a state that will not be ended (stopping). */
	void (*drop)(void *ctx, void *state);
	/*
	 * Worker thread, with evt_par_opts.count_only instead of refs(): the
	 * slice's next @n events were merged and counted (evt_merged_count).
	 * 0, or -1 to stop.
	 */
	int (*count)(void *ctx, void *state, uint64_t n);
};

/*
 * Packet content per slice by default; counting without a slice size:
 * the trace's content over EVT_PAR_COUNT_SLICES slices a thread, when
 * that is more.
 */
#define EVT_PAR_SLICE_BYTES	(2ULL << 20)
#define EVT_PAR_COUNT_SLICES	8

struct evt_par_opts {
	unsigned int threads;		/* workers, >= 1 */
	enum evt_merge_kind kind;
	uint64_t from, to;		/* inclusive time range (clock values) */
	uint8_t *event_mask;		/* as evt_merged_set_events(), NULL: all */
	uint64_t slice_bytes;		/* packet content per slice (0: EVT_PAR_SLICE_BYTES; counting: see below) */
	int count_only;			/* ops->count(), no references */
};

/*
 * Run it: 0 when every slice was ended, 1 when end() stopped it (an error
 * it reported, or its own), -1 on a setup failure (@err).
 */
int evt_par_run(struct evt_trace *t, const struct evt_par_opts *o, const struct evt_par_ops *ops,
		void *ctx, char *err, size_t errlen);

/* How many slices a run with @o would cut (for callers choosing a path). */
unsigned int evt_par_slices(const struct evt_trace *t, const struct evt_par_opts *o);

#endif /* EVT_PAR_H */
