// SPDX-License-Identifier: GPL-2.0
/* What a trace lost, and when: see evt_losses.h. */
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_losses.h"

static int grow(struct evt_loss **v, uint32_t *cap, uint32_t need)
{
	struct evt_loss *p;
	uint32_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*v, (size_t)c * sizeof(*p));
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

int evt_trace_losses(const struct evt_trace *tr, struct evt_loss **out, uint32_t *n)
{
	return evt_trace_losses_seamed(tr, NULL, 0, out, n);
}

static const struct evt_loss_seam *seam_of(const struct evt_loss_seam *seams, uint32_t n, const struct evt_stream *st)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (seams[i].cpu == st->cpu && seams[i].channel == st->channel)
			return &seams[i];
	return NULL;
}

int evt_trace_losses_seamed(const struct evt_trace *tr, const struct evt_loss_seam *seams, uint32_t nseams,
			    struct evt_loss **out, uint32_t *n)
{
	struct evt_loss *v = NULL;
	uint32_t nv = 0, cap = 0, i, k;

	*out = NULL;
	*n = 0;
	for (i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *st = &tr->streams[i];
		const struct evt_loss_seam *seam = seam_of(seams, nseams, st);
		/* Known: the packet before this stream's first (a seam), or none. */
		int known = seam != NULL;
		uint64_t discarded = seam ? seam->discarded : 0, seq = seam ? seam->next_seq - 1 : 0;
		uint64_t prev_end = seam ? seam->end : 0;

		/* From the packet index's counters: no page of the stream is read. */
		for (k = 0; k < st->npk; k++) {
			const struct evt_pkt *pk = &st->pk[k];
			uint64_t dd, dl;

			/* A first packet's running total counts from the stream's start; its seq does not. */
			dd = pk->discarded > discarded ? pk->discarded - discarded : 0;
			dl = known && pk->seq > seq + 1 ? pk->seq - seq - 1 : 0;
			discarded = pk->discarded;
			seq = pk->seq;
			if (dd || dl) {
				struct evt_loss *l;

				if (grow(&v, &cap, nv + 1)) {
					free(v);
					return -1;
				}
				l = &v[nv++];
				l->stream = i;
				l->begin = pk->begin;
				l->events = dd;
				l->packets = dl;
				l->before = !known;
				l->from = known ? prev_end : pk->begin;
				l->to = dd ? pk->end : pk->begin;
				if (l->to < l->from)
					l->to = l->from;
			}
			prev_end = pk->end;
			known = 1;
		}
	}
	*out = v;
	*n = nv;
	return 0;
}

static int win_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Sort the @n windows of @w and merge them in place; their number after. */
static uint32_t merge(uint64_t *w, uint32_t n)
{
	uint32_t i, k = 0;

	if (!n)
		return 0;
	qsort(w, n, 2 * sizeof(*w), win_cmp);
	/* Merged in place: windows that touch or overlap become one. */
	for (i = 1; i < n; i++) {
		if (w[2 * i] <= w[2 * k + 1]) {
			if (w[2 * i + 1] > w[2 * k + 1])
				w[2 * k + 1] = w[2 * i + 1];
		} else {
			k++;
			w[2 * k] = w[2 * i];
			w[2 * k + 1] = w[2 * i + 1];
		}
	}
	return k + 1;
}

int evt_lossmap_build(struct evt_lossmap *m, const struct evt_loss *l, uint32_t n)
{
	uint32_t i, k = 0;
	uint64_t *w;

	evt_lossmap_free(m);
	if (!n)
		return 0;
	w = malloc((size_t)n * 2 * sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < n; i++) {
		if (l[i].before)
			continue;
		w[2 * k] = l[i].from;
		w[2 * k + 1] = l[i].to;
		k++;
	}
	m->w = w;
	m->n = merge(w, k);
	return 0;
}

int evt_lossmap_add(struct evt_lossmap *m, const uint64_t *add, uint32_t n)
{
	uint64_t *w;

	if (!n)
		return 0;
	w = realloc(m->w, ((size_t)m->n + n) * 2 * sizeof(*w));
	if (!w)
		return -1;
	memcpy(w + 2 * (size_t)m->n, add, (size_t)n * 2 * sizeof(*w));
	m->w = w;
	m->n = merge(w, m->n + n);
	return 0;
}

int evt_lossmap_of_trace(struct evt_lossmap *m, const struct evt_trace *tr)
{
	struct evt_loss *l;
	uint32_t n;
	int rc;

	evt_lossmap_free(m);
	if (evt_trace_losses(tr, &l, &n))
		return -1;
	rc = evt_lossmap_build(m, l, n);
	free(l);
	m->made_for = tr;
	return rc;
}

void evt_lossmap_free(struct evt_lossmap *m)
{
	free(m->w);
	m->w = NULL;
	m->n = 0;
	m->made_for = NULL;
}

/* The first window whose end is after @a (m->n: none). */
static uint32_t first_ending_after(const struct evt_lossmap *m, uint64_t a)
{
	uint32_t lo = 0, hi = m->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->w[2 * mid + 1] > a)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int evt_lossmap_spans(const struct evt_lossmap *m, uint64_t a, uint64_t b)
{
	const uint32_t lo = first_ending_after(m, a);

	/* It spans [a, b] when it starts before b. */
	return lo < m->n && m->w[2 * lo] < b;
}

uint64_t evt_lossmap_overlap(const struct evt_lossmap *m, uint64_t a, uint64_t b)
{
	uint32_t lo = first_ending_after(m, a);
	uint64_t sum = 0;

	for (; lo < m->n && m->w[2 * lo] < b; lo++) {
		const uint64_t f = m->w[2 * lo] > a ? m->w[2 * lo] : a;
		const uint64_t t = m->w[2 * lo + 1] < b ? m->w[2 * lo + 1] : b;

		if (t > f)
			sum += t - f;
	}
	return sum;
}
