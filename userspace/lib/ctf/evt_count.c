// SPDX-License-Identifier: GPL-2.0
/*
 * Counting two merged readers at once (evt_merged_count_pair()): the merge
 * of evt_merged.c, decoding with the decoder's fast path as it merges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_merged.h"
#include "ctf/evt_stream.h"

/*
 * Two merges counted in turn (evt_merged_count_pair). A merge step is a
 * chain of dependent operations (the top, the source's next key, a
 * compare-and-move per tree level, the new top) that leaves most of the
 * CPU idle; two independent chains, stepped one after the other in the
 * same loop, overlap. The rules are merged_next()'s for a tree of known
 * depth, counting, without an event mask, the time range as keys.
 *
 * A lane decodes as it merges: each source reads the packet in place, one
 * event ahead of its head (the event whose key replays the tree when the
 * head is taken). The event after that is decoded in the step itself, off
 * the chain: for a small compact or a normal header of a fixed-size event,
 * or a normal one whose variable field is the last, it is the decoder's
 * fast step (evt_decode_compact_step(), evt_decode_normal_step(),
 * evt_decode_normal_var_step(): a load, the one-wrap rule, a table and the
 * compares in the packet and not after timestamp_end); anything else goes
 * by the general rules (evt_stream_decode_one(), the same code and messages
 * as the reader's), as do packet changes. An error is kept with the source
 * until the event before it is taken: then the lane stops, with the same
 * events counted.
 *
 * A lane's keys hold the source times 64 (its state's offset) below the
 * time: ((ts - base) << (depth + 6)) | (source << 6). Lanes run when
 * every packet's timestamp_end is within that reach (2^55 ns from the
 * trace's start with 8 sources), which the merge's own keys then are too.
 */
#define LANE_MAX_DEPTH 5
#define LANE_SRC_SHIFT 6
#define LANE_PREFETCH_AHEAD 256

enum { SRC_OK, SRC_EOF, SRC_ERR };

/* A source's decoding state (64 bytes: an index is a shift). */
struct count_source {
	const uint8_t *next;		/* header of the event after the one after the head */
	const uint8_t *end;		/* compact: the packet's content end (normal: the packet) */
	uint64_t prev;			/* its timestamp */
	uint64_t tend;			/* the packet's timestamp_end */
	evt_mkey_t nk;			/* its key; EVT_MKEY_NONE: end or error (state) */
	uint64_t kb;			/* key = (ts << shift) - kb: (base << shift) - source */
	uint64_t unused;		/* (the state stays 64 bytes) */
	const uint8_t *nend;		/* normal: the same (compact: the packet) */
};

/* What only the general rules need. */
struct count_source_cold {
	const uint8_t *pkt;		/* the packet */
	size_t end;			/* the packet's content bytes */
	struct evt_stream *s;
	int state;
};

struct count_lane {
	/* First: the sources, then the tree (one base register for both). */
	struct count_source f[1 << LANE_MAX_DEPTH];
	evt_mkey_t node[1 << LANE_MAX_DEPTH];	/* the tree's losers at 1..P-1 */
	struct count_source_cold fc[1 << LANE_MAX_DEPTH];
	struct evt_merged *mt;
	const struct evt_catalogue *cat;	/* the trace's events */
	evt_mkey_t fromk, tok;		/* in range: fromk <= top <= tok */
	evt_mkey_t top;
	uint64_t n;
} __attribute__((aligned(64)));

/*
 * The source's next event by the general rules: the one at @f->next, in
 * this packet or the stream's next ones. Sets its timestamp, key and the
 * position after it, or the end or an error (kept in s->errmsg).
 */
static void __attribute__((noinline))
count_source_next(struct count_lane *L, uint32_t src)
{
	struct evt_merged *mt = L->mt;
	struct evt_trace *t = mt->t;
	struct count_source *f = &L->f[src];
	struct count_source_cold *fc = &L->fc[src];
	struct evt_stream *s = fc->s;
	size_t off = (size_t)(f->next - fc->pkt);
	int fresh = 0;

	for (;;) {
		struct evt_decoded d;
		size_t next;

		if (off < fc->end) {
			if (evt_stream_decode_one(t, s, fc->pkt, off, fc->end, f->tend, f->prev, &d, &next))
				break;
			/* A packet's first event: the packet is within the keys' reach. */
			if (fresh && s->pi.h.timestamp_end - mt->base > mt->m.max_rel) {
				evt_merged_out_of_reach(mt, s, s->errmsg, sizeof(s->errmsg));
				break;
			}
			f->next = fc->pkt + next;
			f->prev = d.ts;
			f->nk = (d.ts << (mt->m.shift + LANE_SRC_SHIFT)) - f->kb;
			/* Where the fast paths may read headers: one per channel. */
			f->end = s->channel == EVT_CHAN_COMPACT ? fc->pkt + fc->end : fc->pkt;
			f->nend = s->channel == EVT_CHAN_NORMAL ? fc->pkt + fc->end : fc->pkt;
			return;
		}
		/* The packet is used up: the next one (its header checked by the index). */
		if (s->ipk >= s->npk) {
			if (s->tail_err) {
				memcpy(s->errmsg, s->tail_errmsg, sizeof(s->errmsg));
				break;
			}
			f->nk = EVT_MKEY_NONE;
			fc->state = SRC_EOF;
			return;
		}
		if (evt_stream_load_packet(t, s))
			break;
		fc->pkt = s->map + s->pkt_off;
		fc->end = s->pi.content_bytes;
		f->tend = s->pi.h.timestamp_end;
		f->prev = s->pi.h.timestamp_begin;
		off = EVT_PACKET_HEADER_SIZE;
		fresh = 1;
	}
	f->nk = EVT_MKEY_NONE;
	fc->state = SRC_ERR;
}

/*
 * Take the top event: its source's next key replays the tree, and the
 * source decodes the event after that. The lane's per-step values are the
 * caller's locals (registers). 0, or 1 on a decode error (mt->err).
 */
static inline __attribute__((always_inline))
int lane_adv(struct count_lane *const L, evt_mkey_t *topp, const int depth)
{
	const size_t P = (size_t)1 << depth;
	/* The source's state at the key's low bits (size_t: constants fold). */
	const size_t soff = (size_t)(*topp & ((P - 1) << LANE_SRC_SHIFT));
	const size_t src = soff >> LANE_SRC_SHIFT;
	struct count_source *const f = (struct count_source *)((char *)L->f + soff);
	const struct evt_catalogue *const cat = L->cat;
	evt_mkey_t key = f->nk;
	const uint8_t *const np = f->next;
	uint64_t ts, step;
	int d;

	/*
	 * The source's stream a few cache lines ahead: the address of its
	 * next event comes from this one's header, so without the hint its
	 * cache misses would come one after another.
	 */
	__builtin_prefetch(np + LANE_PREFETCH_AHEAD);
	/* The decoder's fast path, for the channel whose header fits before its end. */
	if (__builtin_expect(np + EVT_COMPACT_HDR <= f->end, 1) ?
	    __builtin_expect(evt_decode_compact_step(cat, np, f->end, f->prev, f->tend, &ts, &step), 1) :
	    np + EVT_NORMAL_HDR <= f->nend &&
	    (evt_decode_normal_step(cat, np, f->nend, f->prev, f->tend, &ts, &step) ||
	     evt_decode_normal_var_step(cat, np, f->nend, f->prev, f->tend, &ts, &step))) {
		f->next = np + step;
		f->prev = ts;
		f->nk = (ts << (depth + LANE_SRC_SHIFT)) - f->kb;
	} else if (key == EVT_MKEY_NONE) {
		if (L->fc[src].state == SRC_ERR) {
			struct evt_merged *mt = L->mt;

			mt->err = 1;
			memcpy(mt->errmsg, L->fc[src].s->errmsg, sizeof(mt->errmsg));
			return 1;
		}
	} else {
		count_source_next(L, (uint32_t)src);
	}
	/* Level d's node on the source's path: P >> d + src >> d. */
#pragma GCC unroll 8
	for (d = 1; d <= depth; d++) {
		evt_mkey_t *const q = &L->node[(P >> d) + (soff >> (LANE_SRC_SHIFT + d))];
		const evt_mkey_t t = *q;

		*q = t < key ? key : t;
		key = t < key ? t : key;
	}
	*topp = key;
	return 0;
}

/* Events before the lane's range: merged, not counted. 0, or 1 when it stopped. */
static inline __attribute__((always_inline))
int lane_skip(struct count_lane *L, const int depth)
{
	evt_mkey_t top = L->top;
	int ret = 0;

	while (top < L->fromk)
		if (lane_adv(L, &top, depth)) {
			ret = 1;
			break;
		}
	L->top = top;
	return ret;
}

/* One lane to its end (the range's last key, the merge's end or an error), @k counted so far. */
static inline __attribute__((always_inline))
void lane_rest(struct count_lane *const a, evt_mkey_t ta, uint64_t k, const int depth)
{
	const evt_mkey_t ea = a->tok;

	for (;;) {
		if (ta > ea) {
			a->mt->done = 1;
			break;
		}
		k++;
		if (lane_adv(a, &ta, depth))
			break;
	}
	a->top = ta;
	a->n = k;
}

static inline __attribute__((always_inline))
void count_two_lanes(struct count_lane *const a, struct count_lane *const b, const int depth)
{
	/* EVT_MKEY_NONE (no source left) is above any tok. */
	const evt_mkey_t ea = a->tok, eb = b->tok;
	evt_mkey_t ta, tb;
	uint64_t k = 0;		/* events each lane counted */

	/* A lane stopped before its range: the other one alone. */
	if (lane_skip(a, depth)) {
		if (!lane_skip(b, depth))
			lane_rest(b, b->top, 0, depth);
		return;
	}
	if (lane_skip(b, depth)) {
		lane_rest(a, a->top, 0, depth);
		return;
	}
	ta = a->top;
	tb = b->top;
	for (;;) {
		if (__builtin_expect(ta > ea, 0)) {
			a->mt->done = 1;
			a->top = ta;
			a->n = k;
			lane_rest(b, tb, k, depth);
			return;
		}
		if (lane_adv(a, &ta, depth)) {
			a->top = ta;
			a->n = k + 1;
			lane_rest(b, tb, k, depth);
			return;
		}
		if (__builtin_expect(tb > eb, 0)) {
			b->mt->done = 1;
			b->top = tb;
			b->n = k;
			lane_rest(a, ta, k + 1, depth);
			return;
		}
		if (lane_adv(b, &tb, depth)) {
			b->top = tb;
			b->n = k + 1;
			lane_rest(a, ta, k + 1, depth);
			return;
		}
		k++;
	}
}

/* The largest time (minus the base) a lane's key holds. */
static uint64_t lane_max_rel(const struct evt_merged *mt)
{
	return ((uint64_t)1 << (64 - mt->m.shift - LANE_SRC_SHIFT)) - 2;
}

/* A merge key as a lane's key, and back. */
static evt_mkey_t lane_key(const struct evt_merged *mt, evt_mkey_t k)
{
	if (k == EVT_MKEY_NONE)
		return k;
	return ((k >> mt->m.shift) << (mt->m.shift + LANE_SRC_SHIFT)) |
	       ((k & mt->m.src_mask) << LANE_SRC_SHIFT);
}

static evt_mkey_t merge_key(const struct evt_merged *mt, evt_mkey_t k)
{
	if (k == EVT_MKEY_NONE)
		return k;
	return ((k >> (mt->m.shift + LANE_SRC_SHIFT)) << mt->m.shift) |
	       ((k >> LANE_SRC_SHIFT) & mt->m.src_mask);
}

/* Every packet a lane may read is within its keys' reach. */
static int lane_reach(const struct evt_merged *mt)
{
	const uint64_t max = lane_max_rel(mt);
	uint32_t i;

	for (i = 0; i < mt->nsrc; i++) {
		const struct evt_stream *s = &mt->t->streams[mt->cur[i].sid];

		if (s->npk && (s->min_end < mt->base || s->max_end - mt->base > max))
			return 0;
	}
	return 1;
}

/* The lane's sources from the merge's cursors: each decodes the event after its head. */
static void lane_init(struct count_lane *L, struct evt_merged *mt)
{
	const uint32_t P = mt->m.p, shift = mt->m.shift;
	const uint64_t from = mt->from > mt->base ? mt->from - mt->base : 0;
	const uint64_t to = mt->to - mt->base;
	uint32_t i;

	memset(L, 0, sizeof(*L));
	L->mt = mt;
	L->cat = mt->t->md.cat;
	for (i = 1; i < P; i++)
		L->node[i] = lane_key(mt, mt->m.node[i]);
	for (i = 0; i < mt->nsrc; i++) {
		struct count_source *f = &L->f[i];
		struct count_source_cold *fc = &L->fc[i];
		const struct evt_merge_cursor *c = &mt->cur[i];
		struct evt_stream *s = &mt->t->streams[c->sid];

		fc->s = s;
		f->nk = EVT_MKEY_NONE;
		fc->state = SRC_EOF;
		f->kb = (mt->base << (shift + LANE_SRC_SHIFT)) - ((uint64_t)i << LANE_SRC_SHIFT);
		if (s->eof)
			continue;	/* no head: the tree holds no key of it */
		/* The head, decoded in s->ev[]: the lane reads on after it. */
		fc->state = SRC_OK;
		fc->pkt = s->map + s->pkt_off;
		fc->end = s->pi.content_bytes;
		f->tend = s->pi.h.timestamp_end;
		f->prev = c->p->ts;
		f->next = fc->pkt + ((EVT_DMETA_OFF(c->p->meta) + EVT_DMETA_LEN(c->p->meta) +
				     EVT_EVENT_ALIGN - 1) & ~(size_t)(EVT_EVENT_ALIGN - 1));
		f->end = fc->pkt;
		f->nend = fc->pkt;
		count_source_next(L, i);
	}
	/* A from beyond the keys' reach: nothing is in range (to >= from is too). */
	L->fromk = from > lane_max_rel(mt) ? EVT_MKEY_NONE : from << (shift + LANE_SRC_SHIFT);
	/* The last key in range; to beyond the keys' reach: every key is. */
	L->tok = to > lane_max_rel(mt) ? EVT_MKEY_NONE - 1 :
		 (to << (shift + LANE_SRC_SHIFT)) | (((uint64_t)1 << (shift + LANE_SRC_SHIFT)) - 1);
	L->top = lane_key(mt, mt->m.node[0]);
	L->n = 0;
}

/* The lane ran its merge to the end (done, or mt->err): the tree as it left it. */
static void lane_done(struct count_lane *L)
{
	struct evt_merged *mt = L->mt;
	uint32_t i;

	for (i = 1; i < mt->m.p; i++)
		mt->m.node[i] = merge_key(mt, L->node[i]);
	mt->m.node[0] = merge_key(mt, L->top);
	if (!mt->err)
		mt->done = 1;
}

/* Started, not at its end, no error, something in range: a lane can run it. */
static int lane_ready(struct evt_merged *mt)
{
	if (mt->done < 0) {
		if (evt_merged_start(mt)) {
			mt->err = 1;
			mt->done = 1;
			return 0;
		}
		mt->done = 0;
	}
	return !mt->err && !mt->done && mt->to >= mt->base && mt->from <= mt->to && !mt->event_mask &&
	       mt->m.kind == EVT_MERGE_TREE && mt->m.shift <= LANE_MAX_DEPTH && lane_reach(mt);
}

void evt_merged_count_pair(struct evt_merged *a, struct evt_merged *b, uint64_t *na, uint64_t *nb)
{
	long n;

	*na = *nb = 0;
	if (lane_ready(a) && lane_ready(b) && a->m.shift == b->m.shift && a->base == b->base) {
		struct count_lane *la = aligned_alloc(64, 2 * sizeof(*la)), *lb = la + 1;

		if (la) {
			lane_init(la, a);
			lane_init(lb, b);
			switch (a->m.shift) {
			case 0: count_two_lanes(la, lb, 0); break;
			case 1: count_two_lanes(la, lb, 1); break;
			case 2: count_two_lanes(la, lb, 2); break;
			case 3: count_two_lanes(la, lb, 3); break;
			case 4: count_two_lanes(la, lb, 4); break;
			default: count_two_lanes(la, lb, 5); break;
			}
			lane_done(la);
			lane_done(lb);
			*na = la->n;
			*nb = lb->n;
			free(la);
		}
	}
	/* Whichever is not at its end: on its own. */
	while ((n = evt_merged_count(a, 1U << 20)) > 0)
		*na += (uint64_t)n;
	while ((n = evt_merged_count(b, 1U << 20)) > 0)
		*nb += (uint64_t)n;
}

