// SPDX-License-Identifier: GPL-2.0
/*
 * The index computation: per stream, per packet, where it is (offset in
 * the stream's file, or the run's mapping), its time range and how many
 * events it holds, with the events before it: time <-> position without
 * decoding. Ad hoc requests seek by time through the reader's packet index
 * (built from the headers when the trace opens); this adds what headers
 * do not say, the event counts, and keeps them with the trace.
 */
#include <stdlib.h>
#include <string.h>
#include "engine/evt_comp_index.h"
#include "engine/evt_engine_priv.h"
#include "ctf/evt_stream.h"
#include "util/evt_cpulist.h"

#define INDEX_MAX_PACKETS (1U << 31)

static void *index_create(struct evt_etrace *t)
{
	(void)t;
	return calloc(1, sizeof(struct evt_index));
}

static void index_destroy(void *r)
{
	struct evt_index *ix = r;
	unsigned int i;

	for (i = 0; i < ix->nr_streams; i++)
		free(ix->s[i].pk);
	free(ix->s);
	free(ix->cursor);
	free(ix);
}

/* The packets of the trace being read, from its reader's index. */
static int index_setup(struct evt_index *ix, const struct evt_trace *tr)
{
	unsigned int i;

	ix->s = calloc(tr->nr_streams ? tr->nr_streams : 1, sizeof(*ix->s));
	ix->cursor = calloc(tr->nr_streams ? tr->nr_streams : 1, sizeof(*ix->cursor));
	if (!ix->s || !ix->cursor)
		return -1;
	ix->nr_streams = tr->nr_streams;
	for (i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *s = &tr->streams[i];
		struct evt_index_stream *is = &ix->s[i];

		is->cpu = s->cpu;
		is->channel = s->channel;
		is->npk = s->npk;
		is->pk = calloc(s->npk ? s->npk : 1, sizeof(*is->pk));
		if (!is->pk)
			return -1;
		for (uint32_t k = 0; k < s->npk; k++) {
			is->pk[k].off = s->pk[k].off;
			is->pk[k].begin = s->pk[k].begin;
			is->pk[k].end = s->pk[k].end;
		}
	}
	return 0;
}

static int index_event(void *data, void *call)
{
	struct evt_index *ix = data;
	const struct evt_engine_event *ev = call;
	const struct evt_stream *s;
	struct evt_index_stream *is;
	uint64_t off;
	uint32_t k;

	if (!ix->s && !ix->failed && index_setup(ix, ev->tr))
		ix->failed = 1;
	if (ix->failed || ev->stream >= ix->nr_streams)
		return 0;
	s = &ev->tr->streams[ev->stream];
	is = &ix->s[ev->stream];
	/* The packet the payload lies in: a stream's events come in file order. */
	off = (uint64_t)(ev->payload - s->map);
	k = ix->cursor[ev->stream];
	while (k + 1 < is->npk && is->pk[k + 1].off <= off)
		k++;
	ix->cursor[ev->stream] = k;
	if (k < is->npk)
		is->pk[k].events++;
	return 0;
}

static int index_adder(struct evt_ctx *ctx, void *r)
{
	return evt_hooks_add(&ctx->event, index_event, r);
}

static void index_remover(struct evt_ctx *ctx, void *r)
{
	evt_hooks_remove(&ctx->event, index_event, r);
}

static void index_totals(struct evt_index *ix)
{
	unsigned int i;

	ix->total = 0;
	for (i = 0; i < ix->nr_streams; i++) {
		struct evt_index_stream *is = &ix->s[i];

		is->events = 0;
		for (uint32_t k = 0; k < is->npk; k++) {
			is->pk[k].before = is->events;
			is->events += is->pk[k].events;
		}
		ix->total += is->events;
	}
}

static void index_finish(void *r, const struct evt_where *w)
{
	struct evt_index *ix = r;

	/* A trace with no event at all never called the hook: its packets still count. */
	if (!ix->s && !ix->failed && w->trace && evt_etrace_reader(w->trace) &&
	    index_setup(ix, evt_etrace_reader(w->trace)))
		ix->failed = 1;
	free(ix->cursor);
	ix->cursor = NULL;
	index_totals(ix);
}

/* The first packet of @is that ends at or after @ts (is->npk: none). */
static uint32_t first_ending(const struct evt_index_stream *is, uint64_t ts)
{
	uint32_t a = 0, b = is->npk;

	while (a < b) {
		const uint32_t m = a + (b - a) / 2;

		if (is->pk[m].end < ts)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

int evt_index_before(const struct evt_index *ix, struct evt_trace *tr, const uint8_t *cpu_set, uint64_t ts,
		     uint64_t *n)
{
	unsigned int i;

	*n = 0;
	if (ix->failed || ix->nr_streams != tr->nr_streams)
		return -1;
	for (i = 0; i < ix->nr_streams; i++) {
		const struct evt_index_stream *is = &ix->s[i];
		struct evt_stream *st = &tr->streams[i];
		uint32_t a;
		uint64_t part;

		if (is->npk != st->npk)
			return -1;
		if (cpu_set && !evt_cpuset_has(cpu_set, st->cpu))
			continue;
		/* The packets before it are all before @ts. */
		a = first_ending(is, ts);
		if (a == is->npk) {
			*n += is->events;
			continue;
		}
		*n += is->pk[a].before;
		if (is->pk[a].begin < ts) {
			if (evt_stream_count_before(tr, st, a, ts, &part))
				return -1;
			*n += part;
		}
	}
	return 0;
}

static int index_save(const void *r, struct evt_buf *b)
{
	const struct evt_index *ix = r;
	unsigned int i;

	if (ix->failed)
		return -1;
	evt_buf_u64(b, ix->nr_streams);
	for (i = 0; i < ix->nr_streams; i++) {
		const struct evt_index_stream *is = &ix->s[i];

		evt_buf_u64(b, is->cpu);
		evt_buf_u64(b, is->channel);
		evt_buf_u64(b, is->npk);
		for (uint32_t k = 0; k < is->npk; k++) {
			evt_buf_u64(b, is->pk[k].off);
			evt_buf_u64(b, is->pk[k].begin);
			evt_buf_u64(b, is->pk[k].end);
			evt_buf_u64(b, is->pk[k].events);
		}
	}
	return b->oom ? -1 : 0;
}

static int index_load(void *r, const uint8_t *p, size_t n)
{
	struct evt_index *ix = r;
	struct evt_rbuf rb = { .p = p, .n = n };
	uint64_t ns, v[3];
	unsigned int i;

	if (evt_rbuf_u64(&rb, &ns) || ns > (n - rb.off) / 24)
		return -1;
	ix->s = calloc(ns ? ns : 1, sizeof(*ix->s));
	if (!ix->s)
		return -1;
	ix->nr_streams = (unsigned int)ns;
	for (i = 0; i < ix->nr_streams; i++) {
		struct evt_index_stream *is = &ix->s[i];

		if (evt_rbuf_u64(&rb, &v[0]) || evt_rbuf_u64(&rb, &v[1]) || evt_rbuf_u64(&rb, &v[2]) ||
		    v[0] > UINT32_MAX || v[1] >= EVT_NR_CHANNELS || v[2] > INDEX_MAX_PACKETS ||
		    v[2] > (n - rb.off) / 32)
			return -1;
		is->cpu = (unsigned int)v[0];
		is->channel = (unsigned int)v[1];
		is->npk = (uint32_t)v[2];
		is->pk = calloc(is->npk ? is->npk : 1, sizeof(*is->pk));
		if (!is->pk)
			return -1;
		for (uint32_t k = 0; k < is->npk; k++) {
			struct evt_index_packet *pk = &is->pk[k];

			if (evt_rbuf_u64(&rb, &pk->off) || evt_rbuf_u64(&rb, &pk->begin) ||
			    evt_rbuf_u64(&rb, &pk->end) || evt_rbuf_u64(&rb, &pk->events) ||
			    pk->begin > pk->end || (k && (pk->off <= is->pk[k - 1].off ||
							  pk->begin < is->pk[k - 1].end)))
				return -1;
		}
	}
	if (rb.off != n)
		return -1;
	index_totals(ix);
	return 0;
}

const struct evt_computation evt_comp_index = {
	.name = "index", .version = 1,
	.create = index_create, .destroy = index_destroy,
	.hook_adder = index_adder, .hook_remover = index_remover, .finish = index_finish,
	.save = index_save, .load = index_load,
};

void evt_index_count(const struct evt_index *ix, uint64_t from, uint64_t to, uint64_t *lo, uint64_t *hi)
{
	unsigned int i;

	*lo = *hi = 0;
	for (i = 0; i < ix->nr_streams; i++) {
		const struct evt_index_stream *is = &ix->s[i];
		uint32_t k;

		for (k = first_ending(is, from); k < is->npk && is->pk[k].begin <= to; k++) {
			*hi += is->pk[k].events;
			if (is->pk[k].begin >= from && is->pk[k].end <= to)
				*lo += is->pk[k].events;
		}
	}
}
