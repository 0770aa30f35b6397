/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "state" computation's own, shared by its building
 * (evt_comp_state.c) and its queries, saved form and entry in the engine
 * (evt_comp_state_rec.c): not part of the engine's API.
 */
#ifndef EVT_COMP_STATE_INT_H
#define EVT_COMP_STATE_INT_H

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

/* The block of change @i (binary search: the last block starting at or before it). */
static inline uint32_t block_of(const struct evt_state_thread *t, uint32_t i)
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

static inline uint64_t change_ts(const struct evt_state_thread *t, uint32_t i)
{
	return t->blk[block_of(t, i)].base + (t->ch[i] >> STATE_BITS);
}

static inline uint8_t change_state(const struct evt_state_thread *t, uint32_t i)
{
	return (uint8_t)(t->ch[i] & ((1u << STATE_BITS) - 1));
}

/* CPU @cpu's history (made when new), or NULL (no memory). */
struct state_cpu *evt_state_get_cpu(struct evt_state *st, unsigned int cpu);
/* A new thread @tid (the latest of that tid), or NULL (no memory). */
struct evt_state_thread *evt_state_new_thread(struct evt_state *st, int32_t tid);
/* Everything freed but @st itself, left empty. */
void evt_state_clear(struct evt_state *st);

#endif /* EVT_COMP_STATE_INT_H */
