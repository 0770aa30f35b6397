// SPDX-License-Identifier: GPL-2.0
/*
 * A stream read one packet at a time (evt_stream.h): the packet made
 * current (an index file's packet checked against its header now, a run's
 * file mapped on demand by evt_trace_maps.c), decoded into the stream's
 * arrays, the pages behind it given back; seeking.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "ctf/evt_stream.h"
#include "ctf/evt_trace_priv.h"

/*
 * Pages this far behind the packet being read are given back, in pieces of
 * at least EVT_RELEASE_STEP: the reader's resident memory stays bounded on a
 * trace of any size (without it, every page read stays mapped until the
 * trace is closed: a 1 GB trace took 0.9 GB of RSS). A reference into a
 * page given back still reads right: the page faults in again from the file.
 */
#define EVT_RELEASE_LAG		(256UL << 10)
#define EVT_RELEASE_STEP	(2UL << 20)

static void release_behind(struct evt_stream *s, size_t off)
{
	if (off >= s->released + EVT_RELEASE_LAG + EVT_RELEASE_STEP) {
		const size_t upto = (off - EVT_RELEASE_LAG) & ~(size_t)(EVT_RELEASE_STEP - 1);

		/* Read-only and unmodified: dropping the pages loses nothing. */
		madvise((void *)(uintptr_t)(s->map + s->released), upto - s->released, MADV_DONTNEED);
		s->released = upto;
	}
}

/*
 * An index file's packet, read now: its header checked as the walk would
 * have, and against the entry. 0, or -1 with s->errmsg.
 */
static int check_packet(const struct evt_trace *t, struct evt_stream *s, const struct evt_pkt *k, size_t avail)
{
	const struct evt_pidx_pkt p = {
		.off = k->off, .packet_bytes = EVT_PKT_BYTES(k), .content_bytes = k->content,
		.begin = k->begin, .end = k->end, .seq = k->seq, .discarded = k->discarded,
	};
	struct evt_packet_info pi;
	struct evt_decode_err e;
	enum evt_derr code;
	uint64_t a, b;

	if (evt_packet_check(s->map + k->off, avail, &pi, &e)) {
		evt_stream_error(t, s, s->errmsg, sizeof(s->errmsg), (size_t)k->off, &e);
		return -1;
	}
	code = evt_trace_stream_rules(s, &pi.h, &a, &b);
	if (code) {
		evt_trace_fail_at(t, s, s->errmsg, sizeof(s->errmsg), (size_t)k->off, code, a, b);
		return -1;
	}
	if (!evt_pidx_matches(&p, &pi.h, &s->ident)) {
		evt_trace_fail_at(t, s, s->errmsg, sizeof(s->errmsg), (size_t)k->off, EVT_DERR_PKT_NOT_INDEXED, 0, 0);
		return -1;
	}
	return 0;
}

int evt_stream_load_packet(const struct evt_trace *t, struct evt_stream *s)
{
	const struct evt_pkt *k = &s->pk[s->ipk];
	size_t avail = s->size - (size_t)k->off;

	if (s->segs) {
		const unsigned int g = evt_trace_run_seg_of(s, k->off);

		if (evt_trace_run_hold(t, s, g))
			return -1;
		avail = (size_t)(s->segs[g].off + s->segs[g].size - k->off);
	}
	if ((k->bytes & EVT_PKT_UNCHECKED) && check_packet(t, s, k, avail))
		return -1;
	s->ipk++;
	memcpy(&s->pi.h, s->map + k->off, sizeof(s->pi.h));
	s->pi.content_bytes = (size_t)k->content;
	s->pi.packet_bytes = EVT_PKT_BYTES(k);
	s->pkt_off = (size_t)k->off;
	release_behind(s, s->pkt_off);
	return 0;
}

void evt_stream_prefetch(const struct evt_stream *s, uint32_t k, uint32_t more)
{
	const size_t page = 4096;
	size_t from, to;

	/* A run's files are mapped and unmapped under its lock, by whoever reads them: left alone. */
	if (k >= s->npk || !s->map || s->segs)
		return;
	if (more > s->npk - 1 - k)
		more = s->npk - 1 - k;
	from = (size_t)s->pk[k].off;
	to = (size_t)s->pk[k + more].off + EVT_PKT_BYTES(&s->pk[k + more]);
	if (to > s->size)
		to = s->size;
	from &= ~(page - 1);
	if (to > from)
		madvise((void *)(uintptr_t)(s->map + from), to - from, MADV_WILLNEED);
}

int evt_stream_count_before(const struct evt_trace *t, struct evt_stream *s, uint32_t k, uint64_t ts,
			    uint64_t *n)
{
	const struct evt_pkt *p;
	const uint8_t *pkt;
	struct evt_decoded e;
	size_t pos, next;
	uint64_t prev;

	*n = 0;
	if (k >= s->npk)
		return -1;
	s->ipk = k;
	if (evt_stream_load_packet(t, s))
		return -1;
	p = &s->pk[k];
	pkt = s->map + p->off;
	prev = p->begin;
	/* A stream's time never goes back: the first event at or after @ts ends the count. */
	for (pos = EVT_PACKET_HEADER_SIZE; pos < (size_t)p->content; pos = next) {
		if (evt_stream_decode_one(t, s, pkt, pos, (size_t)p->content, p->end, prev, &e, &next))
			return -1;
		if (e.ts >= ts)
			break;
		prev = e.ts;
		(*n)++;
	}
	return 0;
}

int evt_stream_resident(const struct evt_stream *s, uint32_t k)
{
	unsigned char v = 0;

	if (k >= s->npk || !s->map || s->segs)
		return 0;
	return !mincore((void *)(uintptr_t)(s->map + ((size_t)s->pk[k].off & ~(size_t)4095)), 1, &v) && (v & 1);
}

void evt_stream_seek(struct evt_stream *s, uint64_t ts)
{
	uint32_t lo = 0, hi = s->npk;

	/* Packet ends never go back: the first one ending at or after ts. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->pk[mid].end < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	s->ipk = lo;
	s->n = s->i = 0;
	s->err = s->eof = 0;
}

/* Room for @need events (+ two look-ahead slots) in ev[]. */
static int grow(struct evt_stream *s, uint32_t need)
{
	struct evt_decoded *ev;

	if (need + 2 <= s->cap)
		return 0;
	ev = malloc(((size_t)need + 2) * sizeof(*ev));
	if (!ev)
		return -1;
	free(s->ev);
	s->ev = ev;
	s->cap = need + 2;
	return 0;
}

/*
 * Decode the current packet's events into s->ev[]: the rules of
 * evt_packet_next(), with a fast path for small compact headers of
 * fixed-size events. Returns 0, or -1 (s->n events decoded before the error).
 */
static int decode_packet(struct evt_trace *t, struct evt_stream *s)
{
	const uint8_t *pkt = s->map + s->pkt_off;
	const size_t end = s->pi.content_bytes;
	const uint64_t tend = s->pi.h.timestamp_end;
	const unsigned int chan = s->channel;
	const struct evt_catalogue *const cat = t->md.cat;
	size_t pos = EVT_PACKET_HEADER_SIZE;
	uint64_t prev = s->pi.h.timestamp_begin;
	struct evt_decoded *ev;
	uint32_t n = 0;
	int ret = 0;

	s->n = s->i = 0;
	if (grow(s, (uint32_t)((end - EVT_PACKET_HEADER_SIZE) / EVT_EVENT_ALIGN + 1))) {
		struct evt_decode_err e = { .code = EVT_DERR_NOMEM, .desc = -1 };

		evt_stream_error(t, s, s->errmsg, sizeof(s->errmsg), s->pkt_off, &e);
		return -1;
	}
	ev = s->ev;
	while (pos < end) {
		size_t next;

		struct evt_decoded *e = ev + n;

		pos = chan == EVT_CHAN_COMPACT ? evt_decode_compact_run(cat, pkt, pos, end, &prev, tend, &e) :
		      evt_decode_normal_run(cat, pkt, pos, end, &prev, tend, &e);
		n = (uint32_t)(e - ev);
		if (pos >= end)
			break;
		/* The general rules, for one event. */
		if (evt_stream_decode_one(t, s, pkt, pos, end, tend, prev, &ev[n], &next)) {
			ret = -1;
			break;
		}
		prev = ev[n].ts;
		n++;
		pos = next;
	}
	/* The merge's look-ahead reads two slots past the end. */
	memset(ev + n, 0, 2 * sizeof(*ev));
	s->n = n;
	s->events += n;
	return ret;
}

int evt_stream_fill(struct evt_trace *t, struct evt_stream *s)
{
	while (s->i >= s->n) {
		if (s->err)
			return -1;
		if (s->eof)
			return 0;
		s->n = s->i = 0;
		if (s->ipk >= s->npk) {
			if (s->tail_err) {
				memcpy(s->errmsg, s->tail_errmsg, sizeof(s->errmsg));
				s->err = 1;
				return -1;
			}
			s->eof = 1;
			return 0;
		}
		if (evt_stream_load_packet(t, s) || decode_packet(t, s))
			s->err = 1;
	}
	return 1;
}
