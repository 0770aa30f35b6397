// SPDX-License-Identifier: GPL-2.0
/* A latency distribution for percentiles: see evt_lathist.h. */
#include <stdlib.h>
#include <string.h>
#include "engine/evt_comp_util.h"
#include "engine/evt_lathist.h"

#define SUB (1u << EVT_LATHIST_SUB_BITS)

uint32_t evt_lathist_bucket(uint64_t v)
{
	unsigned int e;

	if (v < SUB)
		return (uint32_t)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return (e - EVT_LATHIST_SUB_BITS + 1) * SUB + (uint32_t)((v >> (e - EVT_LATHIST_SUB_BITS)) - SUB);
}

void evt_lathist_range(uint32_t b, uint64_t *lo, uint64_t *hi)
{
	unsigned int shift;

	if (b < SUB) {
		*lo = *hi = b;
		return;
	}
	shift = b / SUB - 1;
	*lo = (uint64_t)(SUB + b % SUB) << shift;
	*hi = *lo + ((1ULL << shift) - 1);
}

void evt_lathist_init(struct evt_lathist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void evt_lathist_free(struct evt_lathist *h)
{
	free(h->idx);
	free(h->n);
	evt_lathist_init(h);
}

/* The position of bucket @b in @h (where it is, or where it goes). */
static uint32_t find(const struct evt_lathist *h, uint32_t b)
{
	uint32_t lo = 0, hi = h->len;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (h->idx[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* @c values into bucket @b. */
static int add_n(struct evt_lathist *h, uint32_t b, uint64_t c)
{
	uint32_t i = find(h, b), cap;

	if (i == h->len || h->idx[i] != b) {
		if (h->len == h->cap) {
			uint32_t *ni;
			uint64_t *nn;

			cap = h->cap ? 2 * h->cap : 4;
			ni = realloc(h->idx, cap * sizeof(*ni));
			if (!ni)
				return -1;
			h->idx = ni;
			nn = realloc(h->n, cap * sizeof(*nn));
			if (!nn)
				return -1;
			h->n = nn;
			h->cap = cap;
		}
		memmove(h->idx + i + 1, h->idx + i, (h->len - i) * sizeof(*h->idx));
		memmove(h->n + i + 1, h->n + i, (h->len - i) * sizeof(*h->n));
		h->idx[i] = b;
		h->n[i] = 0;
		h->len++;
	}
	h->n[i] += c;
	return 0;
}

int evt_lathist_add(struct evt_lathist *h, uint64_t v)
{
	if (add_n(h, evt_lathist_bucket(v), 1))
		return -1;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

int evt_lathist_merge(struct evt_lathist *dst, const struct evt_lathist *src)
{
	uint32_t i;

	for (i = 0; i < src->len; i++)
		if (add_n(dst, src->idx[i], src->n[i]))
			return -1;
	dst->count += src->count;
	if (src->count && src->min < dst->min)
		dst->min = src->min;
	if (src->count && src->max > dst->max)
		dst->max = src->max;
	return 0;
}

uint64_t evt_lathist_pct(const struct evt_lathist *h, unsigned int permille)
{
	uint64_t rank, seen = 0, lo, hi;
	uint32_t i;

	if (!h->count)
		return 0;
	/* ceil(permille * count / 1000), at least 1: in 128 bits, no overflow. */
	rank = (uint64_t)(((unsigned __int128)permille * h->count + 999) / 1000);
	if (!rank)
		rank = 1;
	for (i = 0; i < h->len; i++) {
		seen += h->n[i];
		if (seen >= rank)
			break;
	}
	if (i == h->len)
		return h->max;
	evt_lathist_range(h->idx[i], &lo, &hi);
	if (hi > h->max)
		hi = h->max;
	return hi < h->min ? h->min : hi;
}

int evt_lathist_save(const struct evt_lathist *h, struct evt_buf *b)
{
	uint32_t i;
	int err = evt_put_u64(b, h->count) | evt_put_u64(b, h->min) | evt_put_u64(b, h->max) |
		  evt_put_u32(b, h->len);

	for (i = 0; i < h->len; i++)
		err |= evt_put_u32(b, h->idx[i]) | evt_put_u64(b, h->n[i]);
	return err ? -1 : 0;
}

int evt_lathist_load(struct evt_lathist *h, struct evt_rbuf *r)
{
	uint64_t count, min, max, sum = 0;
	uint32_t len, i;

	if (evt_get_u64(r, &count) || evt_get_u64(r, &min) || evt_get_u64(r, &max) ||
	    evt_get_count(r, &len, 12, EVT_LATHIST_BUCKETS) || (count ? min > max : min != UINT64_MAX || max))
		return -1;
	for (i = 0; i < len; i++) {
		uint32_t b;
		uint64_t c;

		if (evt_get_u32(r, &b) || evt_get_u64(r, &c) || b >= EVT_LATHIST_BUCKETS || !c ||
		    (h->len && b <= h->idx[h->len - 1]) || __builtin_add_overflow(sum, c, &sum) || add_n(h, b, c))
			return -1;
	}
	if (sum != count)
		return -1;
	h->count = count;
	h->min = min;
	h->max = max;
	return 0;
}
