// SPDX-License-Identifier: GPL-2.0
/*
 * See evt_idxmap.h. Open addressing with linear probing, at most half
 * full; a deletion shifts the slots after it back (no tombstones, so a
 * map whose elements come and go, as requests in flight do, keeps its
 * probes short).
 */
#include <stdlib.h>
#include "engine/evt_idxmap.h"

#define EMPTY UINT32_MAX

long evt_idxmap_find(const struct evt_idxmap *m, uint64_t hash, evt_idxmap_eq eq, const void *ctx)
{
	const uint32_t mask = m->cap - 1;
	long best = -1;
	uint32_t i;

	if (!m->cap)
		return -1;
	/* Every element under this hash lies in the run of slots from its home. */
	for (i = (uint32_t)hash & mask; m->v[i].idx != EMPTY; i = (i + 1) & mask)
		if (m->v[i].hash == hash && (best < 0 || m->v[i].idx < (uint32_t)best) && eq(ctx, m->v[i].idx))
			best = m->v[i].idx;
	return best;
}

static void put(struct evt_idxslot *v, uint32_t cap, uint64_t hash, uint32_t idx)
{
	uint32_t i;

	for (i = (uint32_t)hash & (cap - 1); v[i].idx != EMPTY; i = (i + 1) & (cap - 1))
		;
	v[i].hash = hash;
	v[i].idx = idx;
}

int evt_idxmap_add(struct evt_idxmap *m, uint64_t hash, uint32_t idx)
{
	if ((uint64_t)(m->n + 1) * 2 > m->cap) {
		uint32_t cap = m->cap ? m->cap * 2 : 64, i;
		struct evt_idxslot *v;

		if (!cap || !(v = malloc((size_t)cap * sizeof(*v))))
			return -1;
		for (i = 0; i < cap; i++)
			v[i].idx = EMPTY;
		for (i = 0; i < m->cap; i++)
			if (m->v[i].idx != EMPTY)
				put(v, cap, m->v[i].hash, m->v[i].idx);
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	put(m->v, m->cap, hash, idx);
	m->n++;
	return 0;
}

/* The slot holding (@hash, @idx), or UINT32_MAX. */
static uint32_t slot_of(const struct evt_idxmap *m, uint64_t hash, uint32_t idx)
{
	const uint32_t mask = m->cap - 1;
	uint32_t i;

	if (!m->cap)
		return EMPTY;
	for (i = (uint32_t)hash & mask; m->v[i].idx != EMPTY; i = (i + 1) & mask)
		if (m->v[i].idx == idx && m->v[i].hash == hash)
			return i;
	return EMPTY;
}

void evt_idxmap_del(struct evt_idxmap *m, uint64_t hash, uint32_t idx)
{
	const uint32_t mask = m->cap - 1;
	uint32_t i = slot_of(m, hash, idx), j, home;

	if (i == EMPTY)
		return;
	m->n--;
	/* Shift back every later slot of the run that may sit at i (its home not after i). */
	for (j = (i + 1) & mask; m->v[j].idx != EMPTY; j = (j + 1) & mask) {
		home = (uint32_t)m->v[j].hash & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->v[i] = m->v[j];
			i = j;
		}
	}
	m->v[i].idx = EMPTY;
}

void evt_idxmap_move(struct evt_idxmap *m, uint64_t hash, uint32_t from, uint32_t to)
{
	uint32_t i = slot_of(m, hash, from);

	if (i != EMPTY)
		m->v[i].idx = to;
}

void evt_idxmap_free(struct evt_idxmap *m)
{
	free(m->v);
	m->v = NULL;
	m->cap = m->n = 0;
}
