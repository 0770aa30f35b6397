// SPDX-License-Identifier: GPL-2.0
/*
 * The merged reader: the streams' events in one time order; see evt_merged.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_merged.h"
#include "ctf/evt_stream.h"

int evt_merged_init(struct evt_merged *mt, struct evt_trace *t, enum evt_merge_kind kind)
{
	unsigned int i;

	memset(mt, 0, sizeof(*mt));
	mt->t = t;
	mt->to = UINT64_MAX;
	mt->done = -1;		/* not started */
	mt->cur = calloc(t->nr_streams ? t->nr_streams : 1, sizeof(*mt->cur));
	mt->next = calloc(t->nr_streams ? t->nr_streams : 1, sizeof(*mt->next));
	if (!mt->cur || !mt->next)
		goto fail;
	/* A stream without packets (and no error) delivers nothing: no leaf. */
	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].npk || t->streams[i].tail_err)
			mt->cur[mt->nsrc++].sid = i;
	if (evt_merge_init(&mt->m, kind, mt->nsrc))
		goto fail;
	return 0;
fail:
	evt_merged_free(mt);
	return -1;
}

void evt_merged_free(struct evt_merged *mt)
{
	evt_merge_free(&mt->m);
	free(mt->cur);
	free(mt->next);
	mt->cur = NULL;
	mt->next = NULL;
}

void evt_merged_set_range(struct evt_merged *mt, uint64_t from, uint64_t to)
{
	unsigned int i;

	mt->from = from;
	mt->to = to;
	/* Whole packets that end before @from are not even decoded. */
	if (from)
		for (i = 0; i < mt->t->nr_streams; i++)
			evt_stream_seek(&mt->t->streams[i], from);
}

void evt_merged_set_events(struct evt_merged *mt, uint8_t *mask)
{
	mt->event_mask = mask;
}

/* The packet of @s in hand ends beyond the merge keys' reach: say so in @buf. */
void evt_merged_out_of_reach(const struct evt_merged *mt, const struct evt_stream *s, char *buf, size_t len)
{
	struct evt_decode_err e = {
		.code = EVT_DERR_PKT_OUT_OF_REACH, .a = s->pi.h.timestamp_end,
		.b = mt->m.max_rel, .c = mt->base, .desc = -1,
	};

	evt_stream_error(mt->t, s, buf, len, s->pkt_off, &e);
}

/* Point the cursor at the stream's current event: 0, or -1 out of key range. */
static int cur_load(struct evt_merged *mt, struct evt_merge_cursor *c, struct evt_stream *s, uint32_t src)
{
	const struct evt_merge *m = &mt->m;

	/* Every event of the packet is <= timestamp_end: one check for all. */
	if (s->pi.h.timestamp_end - mt->base > m->max_rel) {
		evt_merged_out_of_reach(mt, s, mt->errmsg, sizeof(mt->errmsg));
		return -1;
	}
	c->p = s->ev + s->i;
	c->end = s->ev + s->n;
	mt->next[src] = evt_mkey(m, c->p[1].ts - mt->base, src);
	c->pkt = s->map + s->pkt_off;
	return 0;
}

int evt_merged_start(struct evt_merged *mt)
{
	struct evt_trace *t = mt->t;
	unsigned int k = mt->nsrc, i;
	uint64_t *ts = calloc(k ? k : 1, sizeof(*ts));
	unsigned char *has = calloc(k ? k : 1, 1);
	int ret = 0;

	if (!ts || !has) {
		snprintf(mt->errmsg, sizeof(mt->errmsg), "out of memory");
		ret = -1;
		goto out;
	}
	/* The same base for every reader of the trace (threads): the same keys. */
	mt->base = t->base;
	for (i = 0; i < k; i++) {
		struct evt_stream *s = &t->streams[mt->cur[i].sid];
		int r = evt_stream_has(t, s);

		if (r < 0) {
			/* An error before the stream's first event: nothing precedes it. */
			snprintf(mt->errmsg, sizeof(mt->errmsg), "%s", s->errmsg);
			ret = -1;
			goto out;
		}
		has[i] = (unsigned char)r;
	}
	for (i = 0; i < k; i++) {
		struct evt_stream *s = &t->streams[mt->cur[i].sid];

		if (!has[i])
			continue;
		if (cur_load(mt, &mt->cur[i], s, i)) {
			ret = -1;
			goto out;
		}
		ts[i] = evt_stream_ts(s) - mt->base;
	}
	evt_merge_build(&mt->m, ts, has);
out:
	free(ts);
	free(has);
	return ret;
}

/* A stream's packet is used up: the next one, and the stream's new key. */
static evt_mkey_t __attribute__((noinline))
merged_refill(struct evt_merged *mt, struct evt_merge_cursor *c, uint32_t src)
{
	struct evt_stream *s = &mt->t->streams[c->sid];
	int r;

	s->i = s->n;
	r = evt_stream_fill(mt->t, s);
	if (r > 0) {
		if (cur_load(mt, c, s, src)) {
			mt->err = 1;
			return EVT_MKEY_NONE;
		}
		return evt_mkey(&mt->m, c->p->ts - mt->base, src);
	}
	if (r < 0) {
		mt->err = 1;
		snprintf(mt->errmsg, sizeof(mt->errmsg), "%s", s->errmsg);
	}
	return EVT_MKEY_NONE;
}

/*
 * The per-event loop, specialised per merge kind, for filtering, for
 * giving references or only counting, with the merge state in locals (the
 * build uses -fno-strict-aliasing: any store through a pointer would
 * otherwise reload it). Its critical path is top -> the source's
 * precomputed next key -> the replay: no load of the stream state sits
 * between two replays.
 */
static inline __attribute__((always_inline))
long merged_next(struct evt_merged *mt, struct evt_ref *out, size_t max,
		 const int kind, const int filt, const int depth, const int refs)
{
	struct evt_merge *m = &mt->m;
	struct evt_merge_cursor *const cur = mt->cur;
	evt_mkey_t *const nextk = mt->next;
	const uint8_t *const mask = mt->event_mask;
	const uint64_t base = mt->base;
	const uint64_t from = mt->from > base ? mt->from - base : 0;
	const uint64_t to = mt->to - base;	/* the caller checked to >= base */
	/* A tree of known depth: its keys' shift is the depth, a constant. */
	const unsigned int shift = kind == EVT_MERGE_TREE && depth >= 0 ? (unsigned int)depth : m->shift;
	const uint64_t src_mask = ((uint64_t)1 << shift) - 1;
	evt_mkey_t *const node = m->node;
	const uint32_t p = m->p;
	uint32_t head = m->head;
	evt_mkey_t cache = m->cache;
	evt_mkey_t top = kind == EVT_MERGE_TREE ? node[0] :
			 head == EVT_MERGE_NONE ? EVT_MKEY_NONE : node[head];
	size_t n = 0;

	while (n < max) {
		const uint32_t src = (uint32_t)(top & src_mask);
		const uint64_t rel = top >> shift;
		struct evt_merge_cursor *c;
		const struct evt_decoded *ep;
		evt_mkey_t key;

		if (top == EVT_MKEY_NONE || (filt && rel > to)) {
			mt->done = 1;
			break;
		}
		c = &cur[src];
		ep = c->p;
		if (refs) {
			const uint64_t m64 = ep->meta;
			struct evt_ref *o = &out[n];

			o->ts = rel + base;
			o->payload = c->pkt + EVT_DMETA_OFF(m64);
			o->info = (m64 & ~(uint64_t)0x3ffffff) | c->sid;
		}
		if (filt) {
			unsigned int keep = rel >= from;

			if (mask)
				keep &= mask[EVT_DMETA_DESC(ep->meta)];
			n += keep;
		} else {
			n++;
		}
		if (__builtin_expect(ep + 1 < c->end, 1)) {
			key = nextk[src];
			c->p = ep + 1;
			nextk[src] = ((ep[2].ts - base) << shift) | src;
		} else {
			key = merged_refill(mt, c, src);
			/* An error is final: the events before it are out, stop. */
			if (mt->err)
				break;
		}
		if (kind == EVT_MERGE_TREE && depth >= 0) {
			/* The tree's depth known here: the replay fully unrolled. */
			uint32_t nd = ((1U << depth) + src) >> 1;
			int d;

#pragma GCC unroll 8
			for (d = 0; d < depth; d++, nd >>= 1) {
				evt_mkey_t t = node[nd];

				node[nd] = t < key ? key : t;
				key = t < key ? t : key;
			}
			top = key;
		} else if (kind == EVT_MERGE_TREE) {
			top = evt_merge_tree_replay(node, p, src, key);
		} else if (key <= cache) {
			/* The cache hit: the head stays the head. */
			if (key == EVT_MKEY_NONE)
				head = EVT_MERGE_NONE;
			else
				node[head] = key;
			top = key;
		} else {
			m->head = head;
			m->cache = cache;
			evt_merge_list_replace(m, key);
			head = m->head;
			cache = m->cache;
			top = node[head];
		}
	}
	if (kind == EVT_MERGE_TREE) {
		node[0] = top;
	} else {
		m->head = head;
		m->cache = cache;
	}
	return (long)n;
}

/* One specialised loop per merge kind, filtering, and tree depth up to 5 (32 streams). */
#define TREE_DEPTHS(filt, refs) \
	switch (mt->m.shift) { \
	case 0: return merged_next(mt, out, max, EVT_MERGE_TREE, filt, 0, refs); \
	case 1: return merged_next(mt, out, max, EVT_MERGE_TREE, filt, 1, refs); \
	case 2: return merged_next(mt, out, max, EVT_MERGE_TREE, filt, 2, refs); \
	case 3: return merged_next(mt, out, max, EVT_MERGE_TREE, filt, 3, refs); \
	case 4: return merged_next(mt, out, max, EVT_MERGE_TREE, filt, 4, refs); \
	case 5: return merged_next(mt, out, max, EVT_MERGE_TREE, filt, 5, refs); \
	default: return merged_next(mt, out, max, EVT_MERGE_TREE, filt, -1, refs); \
	}

/* @refs (a constant): write references to @out, or only count. */
static inline __attribute__((always_inline))
long merged_dispatch_kind(struct evt_merged *mt, struct evt_ref *out, size_t max, int filt,
			  const int refs)
{
	if (mt->m.kind == EVT_MERGE_LIST)
		return filt ? merged_next(mt, out, max, EVT_MERGE_LIST, 1, -1, refs) :
			      merged_next(mt, out, max, EVT_MERGE_LIST, 0, -1, refs);
	if (filt) {
		TREE_DEPTHS(1, refs)
	}
	TREE_DEPTHS(0, refs)
}

static long merged_dispatch(struct evt_merged *mt, struct evt_ref *out, size_t max, int filt)
{
	return merged_dispatch_kind(mt, out, max, filt, 1);
}

/* Counting: no references written. */
static long merged_dispatch_count(struct evt_merged *mt, size_t max, int filt)
{
	return merged_dispatch_kind(mt, NULL, max, filt, 0);
}

static long merged_batch(struct evt_merged *mt, struct evt_ref *out, size_t max)
{
	long n;

	if (mt->done < 0) {
		if (evt_merged_start(mt)) {
			mt->err = 1;
			mt->done = 1;
			return -1;
		}
		mt->done = 0;
	}
	for (;;) {
		int filt;

		if (mt->err)
			return -1;
		if (mt->done)
			return 0;
		if (mt->to < mt->base) {
			mt->done = 1;
			return 0;
		}
		filt = !(mt->from == 0 && mt->to == UINT64_MAX && !mt->event_mask);
		n = out ? merged_dispatch(mt, out, max, filt) : merged_dispatch_count(mt, max, filt);
		if (n > 0)
			return n;
		/* A whole batch filtered out: go on. */
	}
}

long evt_merged_next(struct evt_merged *mt, struct evt_ref *out, size_t max)
{
	return merged_batch(mt, out, max);
}

long evt_merged_count(struct evt_merged *mt, size_t max)
{
	return merged_batch(mt, NULL, max);
}
