// SPDX-License-Identifier: GPL-2.0
/*
 * The watermark reorderer: see evt_reorder.h.
 */
#include <stdlib.h>
#include <string.h>
#include "consumer/evt_reorder.h"

/* Payload copies live in chunks freed when their last item is emitted. */
struct chunk {
	size_t size, used;
	uint64_t live;
	uint8_t data[];
};
#define CHUNK_SIZE (256u << 10)

static void chunk_put(struct evt_reorder *r, struct chunk *c)
{
	if (c && --c->live == 0 && c != r->cur_chunk)
		free(c);
}

static uint8_t *arena_copy(struct evt_reorder *r, const void *p, uint32_t len, void **chunkp)
{
	struct chunk *c = r->cur_chunk;
	uint8_t *d;

	if (!c || c->size - c->used < len) {
		size_t sz = len > CHUNK_SIZE ? len : CHUNK_SIZE;
		struct chunk *n = malloc(sizeof(*n) + sz);

		if (!n)
			return NULL;
		n->size = sz;
		n->used = 0;
		n->live = 0;
		if (c && c->live == 0)
			free(c);
		r->cur_chunk = c = n;
	}
	d = c->data + c->used;
	if (len)
		memcpy(d, p, len);
	/* Keep copies 8-byte aligned. */
	c->used += (len + 7) & ~7u;
	if (c->used > c->size)
		c->used = c->size;
	c->live++;
	*chunkp = c;
	return d;
}

int evt_reorder_init(struct evt_reorder *r, uint32_t nr_sources, uint32_t delay_ticks,
		     enum evt_merge_kind kind)
{
	memset(r, 0, sizeof(*r));
	if (!nr_sources || delay_ticks > 1000000)
		return -1;
	r->nr = nr_sources;
	r->delay = delay_ticks;
	r->src = calloc(nr_sources, sizeof(*r->src));
	r->w = calloc((size_t)delay_ticks + 1, sizeof(*r->w));
	r->w_valid = calloc((size_t)delay_ticks + 1, 1);
	if (!r->src || !r->w || !r->w_valid || evt_merge_init(&r->m, kind, nr_sources)) {
		evt_reorder_free(r);
		return -1;
	}
	r->dirty = 1;
	return 0;
}

void evt_reorder_free(struct evt_reorder *r)
{
	uint32_t i, j;

	for (i = 0; r->src && i < r->nr; i++) {
		struct evt_reorder_queue *q = &r->src[i];

		for (j = q->head; j < q->tail; j++)
			chunk_put(r, q->q[j].chunk);
		free(q->q);
	}
	chunk_put(r, r->release);
	r->release = NULL;
	/* The current chunk is freed by nobody else. */
	free(r->cur_chunk);
	free(r->src);
	free(r->w);
	free(r->w_valid);
	evt_merge_free(&r->m);
	memset(r, 0, sizeof(*r));
}

/* Room for one more item at the tail. */
static int queue_room(struct evt_reorder_queue *q)
{
	if (q->tail < q->cap)
		return 0;
	if (q->head > q->cap / 2) {
		memmove(q->q, q->q + q->head, (q->tail - q->head) * sizeof(*q->q));
		q->tail -= q->head;
		q->head = 0;
		return 0;
	}
	{
		uint32_t cap = q->cap ? q->cap * 2 : 64;
		struct evt_reorder_item *n;

		if (cap <= q->cap)
			return -1;
		n = realloc(q->q, cap * sizeof(*n));
		if (!n)
			return -1;
		q->q = n;
		q->cap = cap;
	}
	return 0;
}

static int push_item(struct evt_reorder *r, struct evt_reorder_item *it)
{
	struct evt_reorder_queue *q;
	uint32_t pos;

	if (it->src >= r->nr)
		return -1;
	q = &r->src[it->src];
	if (queue_room(q))
		return -1;
	it->seq = r->seq++;
	it->flags = 0;
	if (r->emitted_any && it->ts <= r->last_emitted) {
		it->flags |= EVT_REORDER_LATE;
		r->st.late++;
	}
	if (q->tail == q->head || q->q[q->tail - 1].ts <= it->ts) {
		pos = q->tail;
	} else {
		/* Out of order: after the last item with ts <= it->ts. */
		uint32_t lo = q->head, hi = q->tail - 1;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (q->q[mid].ts <= it->ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		pos = lo;
		memmove(q->q + pos + 1, q->q + pos, (q->tail - pos) * sizeof(*q->q));
		if (!(it->flags & EVT_REORDER_LATE))
			r->st.inserted++;
	}
	q->q[pos] = *it;
	q->tail++;
	if (pos == q->head)
		r->dirty = 1;	/* a new head: the merge must see it */
	if (!q->known || it->ts > q->newest)
		q->newest = it->ts;
	q->known = 1;
	r->st.pushed++;
	if (++r->st.queued > r->st.max_queued)
		r->st.max_queued = r->st.queued;
	return 0;
}

int evt_reorder_push(struct evt_reorder *r, uint32_t src, uint64_t ts, uint64_t user)
{
	struct evt_reorder_item it = { .ts = ts, .user = user, .src = src };

	return push_item(r, &it);
}

int evt_reorder_push_event(struct evt_reorder *r, uint32_t src, uint32_t cpu,
			   const struct evt_event *ev)
{
	struct evt_reorder_item it = { .ts = ev->ts, .src = src, .cpu = cpu, .len = ev->payload_len };

	if (src >= r->nr || !ev->desc)
		return -1;
	it.desc = (uint16_t)ev->desc_index;
	it.data = arena_copy(r, ev->payload, ev->payload_len, &it.chunk);
	if (!it.data)
		return -1;
	if (push_item(r, &it)) {
		chunk_put(r, it.chunk);
		return -1;
	}
	return 0;
}

void evt_reorder_quiescent(struct evt_reorder *r, uint32_t src, uint64_t ts)
{
	struct evt_reorder_queue *q;

	if (src >= r->nr)
		return;
	q = &r->src[src];
	if (!q->known || ts > q->newest)
		q->newest = ts;
	q->known = 1;
}

void evt_reorder_source_done(struct evt_reorder *r, uint32_t src)
{
	if (src < r->nr)
		r->src[src].done = 1;
}

void evt_reorder_source_add(struct evt_reorder *r, uint32_t src)
{
	if (src < r->nr)
		r->src[src].done = 0;
}

void evt_reorder_tick(struct evt_reorder *r)
{
	uint64_t w = UINT64_MAX;
	int valid = 1;
	uint32_t i, slot;

	for (i = 0; i < r->nr; i++) {
		const struct evt_reorder_queue *q = &r->src[i];

		if (q->done)
			continue;
		if (!q->known) {
			/* A source never heard of may still deliver anything. */
			valid = 0;
			break;
		}
		if (q->newest < w)
			w = q->newest;
	}
	r->k++;
	r->st.ticks++;
	slot = (uint32_t)(r->k % ((uint64_t)r->delay + 1));
	r->w[slot] = w;
	r->w_valid[slot] = (uint8_t)valid;
	if (r->k > r->delay) {
		/* W(k - d) sits in the slot that W(k + 1) will reuse. */
		uint32_t old = (uint32_t)((r->k - r->delay) % ((uint64_t)r->delay + 1));

		if (r->w_valid[old] && (!r->bound_valid || r->w[old] > r->bound)) {
			r->bound = r->w[old];
			r->bound_valid = 1;
		}
	}
}

void evt_reorder_finish(struct evt_reorder *r)
{
	r->finished = 1;
}

int evt_reorder_bound(const struct evt_reorder *r, uint64_t *bound)
{
	if (r->finished) {
		*bound = UINT64_MAX;
		return 1;
	}
	*bound = r->bound;
	return r->bound_valid;
}

/*
 * A head's key: its time after the base. Heads more than max_rel apart
 * (a year and more) share the largest key and are ordered by source.
 */
static uint64_t rel_ts(const struct evt_reorder *r, uint64_t ts)
{
	uint64_t rel = ts - r->base;

	return rel > r->m.max_rel ? r->m.max_rel : rel;
}

static void rebuild(struct evt_reorder *r)
{
	uint64_t ts[64], *tsp = ts;
	unsigned char has[64], *hasp = has;
	uint32_t i;

	if (r->nr > 64) {
		tsp = malloc(r->nr * sizeof(*tsp));
		hasp = malloc(r->nr);
		if (!tsp || !hasp) {
			/* Keep dirty; the caller pulls nothing this time. */
			free(tsp == ts ? NULL : tsp);
			free(hasp == has ? NULL : hasp);
			return;
		}
	}
	/* Keys are relative to the oldest head: rebased at every rebuild. */
	r->base = UINT64_MAX;
	for (i = 0; i < r->nr; i++) {
		const struct evt_reorder_queue *q = &r->src[i];

		hasp[i] = q->head < q->tail;
		if (hasp[i] && q->q[q->head].ts < r->base)
			r->base = q->q[q->head].ts;
	}
	for (i = 0; i < r->nr; i++)
		tsp[i] = hasp[i] ? rel_ts(r, r->src[i].q[r->src[i].head].ts) : 0;
	evt_merge_build(&r->m, tsp, hasp);
	r->dirty = 0;
	if (tsp != ts) {
		free(tsp);
		free(hasp);
	}
}

int evt_reorder_pull(struct evt_reorder *r, struct evt_reorder_item *out)
{
	struct evt_reorder_queue *q;
	evt_mkey_t top;
	uint32_t s;

	chunk_put(r, r->release);
	r->release = NULL;
	if (!r->finished && !r->bound_valid)
		return 0;
	if (r->dirty) {
		rebuild(r);
		if (r->dirty)
			return 0;
	}
	top = evt_merge_top(&r->m);
	if (top == EVT_MKEY_NONE)
		return 0;
	s = evt_mkey_src(&r->m, top);
	q = &r->src[s];
	if (!r->finished && q->q[q->head].ts > r->bound)
		return 0;
	*out = q->q[q->head++];
	if (q->head == q->tail)
		q->head = q->tail = 0;
	/* A queue is sorted: its next head is not before the base. */
	evt_merge_replace(&r->m, q->head < q->tail ?
			  evt_mkey(&r->m, rel_ts(r, q->q[q->head].ts), s) : EVT_MKEY_NONE);
	r->release = out->chunk;
	r->st.queued--;
	r->st.emitted++;
	if (!r->emitted_any || out->ts > r->last_emitted)
		r->last_emitted = out->ts;
	r->emitted_any = 1;
	return 1;
}
