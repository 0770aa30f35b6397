/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index over an array: a hash of each element's key to its index, so
 * that finding an element by its key costs a few probes however long the
 * array grows (the computations' devices, processes, files, requests in
 * flight, interrupts: a linear scan made their passes quadratic in them).
 * The array stays the caller's, and so does the key: the map keeps each
 * element's 64-bit hash and index, and asks the caller whether an element
 * is the one sought. Keys may repeat; a search returns the lowest index
 * among the elements that match, as a scan from the array's start would.
 */
#ifndef EVT_IDXMAP_H
#define EVT_IDXMAP_H

#include <stddef.h>
#include <stdint.h>

struct evt_idxmap {
	struct evt_idxslot { uint64_t hash; uint32_t idx; } *v;	/* idx UINT32_MAX: empty */
	uint32_t cap, n;
};

/* Is the array's element @idx the one sought (@ctx: what the caller compares)? */
typedef int (*evt_idxmap_eq)(const void *ctx, uint32_t idx);

/* The lowest index whose hash is @hash and which @eq accepts, or -1. */
long evt_idxmap_find(const struct evt_idxmap *m, uint64_t hash, evt_idxmap_eq eq, const void *ctx);
/* Index element @idx under @hash. 0 or -1 (no memory: the map is unchanged). */
int evt_idxmap_add(struct evt_idxmap *m, uint64_t hash, uint32_t idx);
/* Forget element @idx, indexed under @hash. */
void evt_idxmap_del(struct evt_idxmap *m, uint64_t hash, uint32_t idx);
/* Element @from (under @hash) is now at @to: the array moved it. */
void evt_idxmap_move(struct evt_idxmap *m, uint64_t hash, uint32_t from, uint32_t to);
void evt_idxmap_free(struct evt_idxmap *m);

/* Hashes of keys: integers (mixed: devices and sectors are not random) and bytes. */
static inline uint64_t evt_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t evt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return evt_hash_u64(h);
}

#endif /* EVT_IDXMAP_H */
