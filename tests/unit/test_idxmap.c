// SPDX-License-Identifier: GPL-2.0
/*
 * evt_idxmap (the computations' index of devices, processes, files,
 * requests in flight, remaps): random additions and removals against a
 * plain array searched from its start, with a good hash and with one
 * that sends every key to a few homes (long runs, wrapping round the
 * table's end, repeated keys).
 */
#include "unit.h"
#include <stdlib.h>
#include "engine/evt_idxmap.h"

struct ref {
	uint32_t *key;
	uint32_t n;
	int bad_hash;
};

static uint64_t hash_of(const struct ref *r, uint32_t key)
{
	/* bad: five homes at the table's end, whatever its size (runs wrap to slot 0) */
	return r->bad_hash ? UINT64_MAX - key % 5 : evt_hash_u64(key);
}

struct probe { const struct ref *r; uint32_t key; };

static int key_eq(const void *ctx, uint32_t i)
{
	const struct probe *p = ctx;

	return p->r->key[i] == p->key;
}

static long ref_find(const struct ref *r, uint32_t key)
{
	uint32_t i;

	for (i = 0; i < r->n; i++)
		if (r->key[i] == key)
			return i;
	return -1;
}

static void check_key(const struct evt_idxmap *m, const struct ref *r, uint32_t k)
{
	const struct probe p = { r, k };

	ck_assert_int_eq(evt_idxmap_find(m, hash_of(r, k), key_eq, &p), ref_find(r, k));
}

/* Every key (few keys), or every key present and some absent. */
static void check_all(const struct evt_idxmap *m, const struct ref *r, uint32_t keys)
{
	uint32_t k;

	if (keys <= 1000) {
		for (k = 0; k < keys; k++)
			check_key(m, r, k);
	} else {
		for (k = 0; k < r->n; k++)
			check_key(m, r, r->key[k]);
		for (k = 0; k < 100; k++)
			check_key(m, r, keys + k);
	}
	ck_assert_uint_eq(m->n, r->n);
}

static void run(int bad_hash, uint32_t keys, unsigned int steps)
{
	struct evt_idxmap m = { 0 };
	struct ref r = { calloc(steps, sizeof(uint32_t)), 0, bad_hash };
	unsigned int s, seed = 12345u + (unsigned int)bad_hash;

	ck_assert_ptr_nonnull(r.key);
	for (s = 0; s < steps; s++) {
		seed = seed * 1103515245u + 12345u;
		if (r.n && (seed >> 16) % 3 == 0) {
			/* Remove one, the last moved into its place (as rq_del, rm_del). */
			uint32_t i = (seed >> 8) % r.n, last = r.n - 1;

			evt_idxmap_del(&m, hash_of(&r, r.key[i]), i);
			if (i != last) {
				evt_idxmap_move(&m, hash_of(&r, r.key[last]), last, i);
				r.key[i] = r.key[last];
			}
			r.n--;
		} else {
			r.key[r.n] = (seed >> 4) % keys;
			ck_assert_int_eq(evt_idxmap_add(&m, hash_of(&r, r.key[r.n]), r.n), 0);
			r.n++;
		}
		if (s % 97 == 0)
			check_all(&m, &r, keys);
	}
	check_all(&m, &r, keys);
	/* Emptied one by one from the front: every search then finds nothing. */
	while (r.n) {
		uint32_t last = r.n - 1;

		evt_idxmap_del(&m, hash_of(&r, r.key[0]), 0);
		if (last) {
			evt_idxmap_move(&m, hash_of(&r, r.key[last]), last, 0);
			r.key[0] = r.key[last];
		}
		r.n--;
		if (r.n % 50 == 0)
			check_all(&m, &r, keys);
	}
	check_all(&m, &r, keys);
	evt_idxmap_free(&m);
	free(r.key);
}

START_TEST(idxmap_matches_a_scan)
{
	run(0, 50, 20000);		/* repeated keys, a good hash */
	run(0, 100000, 4000);		/* mostly distinct */
	run(1, 300, 6000);		/* five homes: long runs that wrap */
}
END_TEST

void comps_idxmap_tests(TCase *tc)
{
	tcase_add_test(tc, idxmap_matches_a_scan);
}
