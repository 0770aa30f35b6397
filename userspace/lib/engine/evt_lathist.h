/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A latency distribution for percentiles: log-linear buckets (as
 * HdrHistogram's), exact below 128 ns, then 128 buckets in every power of
 * two, so that a bucket is at most 1/128 (0.8 %) of its values wide.
 * Only the buckets in use are kept (sorted), so that one per thread and
 * syscall costs what that thread's calls spread over.
 *
 * A percentile p is the value of rank ceil(p / 100 * count) (1-based,
 * "nearest rank"): reported as the highest value of that rank's bucket,
 * no more than the largest value recorded and no less than the smallest
 * (so p100 is the maximum, and a bucket of one value is exact).
 */
#ifndef EVT_LATHIST_H
#define EVT_LATHIST_H

#include <stddef.h>
#include <stdint.h>

#define EVT_LATHIST_SUB_BITS 7
#define EVT_LATHIST_BUCKETS ((64 - EVT_LATHIST_SUB_BITS + 1) << EVT_LATHIST_SUB_BITS)

struct evt_lathist {
	uint32_t *idx;		/* buckets in use, ascending */
	uint64_t *n;		/* their counts */
	uint32_t len, cap;
	uint64_t count, min, max;	/* min: UINT64_MAX while empty */
};

/* The bucket of @v, and the values a bucket holds: [lo, hi]. */
uint32_t evt_lathist_bucket(uint64_t v);
void evt_lathist_range(uint32_t b, uint64_t *lo, uint64_t *hi);

void evt_lathist_init(struct evt_lathist *h);
void evt_lathist_free(struct evt_lathist *h);
/* One value more; 0, or -1 (no memory: not counted). */
int evt_lathist_add(struct evt_lathist *h, uint64_t v);
/* @src's values added to @dst. 0 or -1. */
int evt_lathist_merge(struct evt_lathist *dst, const struct evt_lathist *src);
/* The percentile @permille / 10 (e.g. 999: p99.9); 0 when empty. */
uint64_t evt_lathist_pct(const struct evt_lathist *h, unsigned int permille);

struct evt_buf;
struct evt_rbuf;
/* The saved form: count, min, max, len, then (u32 bucket, u64 count) each. 0 or -1. */
int evt_lathist_save(const struct evt_lathist *h, struct evt_buf *b);
/* Into an empty @h: 0, or -1 when the bytes are not a distribution (buckets ascending, counts summing up). */
int evt_lathist_load(struct evt_lathist *h, struct evt_rbuf *r);

#endif /* EVT_LATHIST_H */
