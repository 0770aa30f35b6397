/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "stats" computation's own, shared by its building
 * (evt_comp_stats.c) and its records and saved form
 * (evt_comp_stats_rec.c): not part of the engine's API.
 */
#ifndef EVT_COMP_STATS_INT_H
#define EVT_COMP_STATS_INT_H

#include "engine/evt_comps.h"
#include "engine/evt_comp_util.h"
#include "ctf/evt_losses.h"

#define STATS_MAGIC 0x54535445u		/* "ESTS" */
#define STATS_VERSION 3		/* 3: an entry while a handler is open replaces it */
#define NAME_MAX_LEN 4096		/* of a saved event or syscall name */

struct evt_stats_priv {
	struct evt_kinds kinds;
	/* Per catalogue index: its slot in ev[] and sys[], -1: not looked up. */
	const struct evt_catalogue *map_cat;
	int32_t *ev_slot, *sys_slot;
	uint32_t nmap;
	struct evt_tidmap tmap;
	struct evt_tidmap irq_map;	/* IRQ number -> its index in irqs[] */
	const struct evt_trace *tr;	/* the last event's reader (for the losses) */
	struct evt_stats_observer obs;
	struct evt_lossmap losses;	/* of the readers seen, and the prior ones */
	/* evt_stats_prior_losses(): for the first reader's windows. */
	struct evt_loss_seam *seams;
	uint32_t nseams;
	int seen_reader;
};

void evt_stats_lat_init(struct evt_lat *l);
/* Slots, made when new: an index, or -1 (no memory). */
long evt_stats_event_slot(struct evt_stats *s, const char *name);
long evt_stats_sys_slot(struct evt_stats *s, const char *name);
long evt_stats_thread_idx(struct evt_stats *s, int32_t tid);
long evt_stats_irq_slot(struct evt_stats *s, int32_t irq);
long evt_stats_find_named(const void *arr, size_t elem, uint32_t n, const char *name);
struct evt_stats_cpu *evt_stats_get_cpu(struct evt_stats *s, unsigned int cpu);
/* @t's record of syscall @sys (made when new), or NULL. */
struct evt_stats_tsys *evt_stats_tsys(struct evt_stats_thread *t, uint32_t sys);
/* One more return value @ret (or @c of them). 0 or -1. */
int evt_stats_rets_add(struct evt_stats_rets *r, int64_t ret, uint64_t c);
/* A waker more for @t (@c times). 0 or -1. */
int evt_stats_waker_add(struct evt_stats_thread *t, int32_t waker, uint64_t c);
/* Everything but the private part's allocation, which is kept (zeroed). */
void evt_stats_clear(struct evt_stats *s);
/* The saved form of @r (a struct evt_stats) into @b: 0 or -1. */
int evt_stats_save(const void *r, struct evt_buf *b);
/* @res (a struct evt_stats) given the saved form @p (@n bytes): 0, or -1 (@res unchanged). */
int evt_stats_load(void *res, const uint8_t *p, size_t n);

#endif /* EVT_COMP_STATS_INT_H */
