/* SPDX-License-Identifier: GPL-2.0 */
/* The index computation's result (evt_comp_index.c). */
#ifndef EVT_COMP_INDEX_H
#define EVT_COMP_INDEX_H

#include <stdint.h>
#include "engine/evt_engine.h"

struct evt_index_packet {
	uint64_t off;			/* in the stream's file (a run: its mapping) */
	uint64_t begin, end;		/* timestamp_begin, timestamp_end (clock) */
	uint64_t events;		/* events in it */
	uint64_t before;		/* events of the stream before it */
};

struct evt_index_stream {
	unsigned int cpu, channel;
	uint32_t npk;
	struct evt_index_packet *pk;
	uint64_t events;
};

struct evt_index {
	unsigned int nr_streams;	/* the reader's buffer ids */
	struct evt_index_stream *s;
	uint64_t total;
	/* While the pass runs: each stream's packet at hand. */
	uint32_t *cursor;
	int failed;			/* out of memory: not saved */
};

extern const struct evt_computation evt_comp_index;

/*
 * Events in [from, to] (clock values), from the index alone: at least
 * *lo (packets wholly inside), at most *hi (packets that overlap it).
 */
void evt_index_count(const struct evt_index *ix, uint64_t from, uint64_t to, uint64_t *lo, uint64_t *hi);

/*
 * Events before @ts (clock) in the streams of @tr, the reader the index was
 * made from (or a clone of it), those of the CPUs in @cpu_set only when it
 * is given (an EVT_CPUSET_BYTES set, util/evt_cpulist.h): the packets'
 * counts, and the one packet per stream that holds @ts decoded up to it.
 * 0, or -1 when the index is not of @tr's packets or a packet does not
 * decode.
 */
int evt_index_before(const struct evt_index *ix, struct evt_trace *tr, const uint8_t *cpu_set, uint64_t ts,
		     uint64_t *n);

#endif /* EVT_COMP_INDEX_H */
