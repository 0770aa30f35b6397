/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stream of an open trace (evt_trace.h) read one packet at a time: a
 * packet made current (checked against its index entry when the index
 * came from a file; a run's file mapped on demand), decoded into the
 * stream's arrays, its events taken in turn; seeking.
 */
#ifndef EVT_STREAM_H
#define EVT_STREAM_H

#include "ctf/evt_trace.h"

/* Position a stream (before reading) at the first packet that may hold @ts or later. */
void evt_stream_seek(struct evt_stream *s, uint64_t ts);

/*
 * Make the stream's next event current (s->ts[s->i]): 1, or 0 at the end of
 * the file, or -1 with s->errmsg set. Decodes the next packet when the
 * current one is used up.
 */
int evt_stream_fill(struct evt_trace *t, struct evt_stream *s);

static inline int evt_stream_has(struct evt_trace *t, struct evt_stream *s)
{
	return s->i < s->n ? 1 : evt_stream_fill(t, s);
}

/* The current event's timestamp (after evt_stream_has() said 1). */
static inline uint64_t evt_stream_ts(const struct evt_stream *s)
{
	return s->ev[s->i].ts;
}

/*
 * Make packet s->ipk current (its header was checked by the index, or is
 * compared with its index file's entry now). 0, or -1 with s->errmsg.
 */
int evt_stream_load_packet(const struct evt_trace *t, struct evt_stream *s);

/*
 * Ask the kernel to start reading packet @k (and @more packets after it)
 * from the disk now, without waiting: a reader about to touch many
 * packets far apart (a sample) has their reads queued together instead
 * of one after the other. Nothing is read into the stream; a run of
 * chunks is left alone.
 */
void evt_stream_prefetch(const struct evt_stream *s, uint32_t k, uint32_t more);
/*
 * How many of packet @k's events are before @ts (clock), in *@n: the
 * packet made current and decoded up to there. 0, or -1 with s->errmsg.
 */
int evt_stream_count_before(const struct evt_trace *t, struct evt_stream *s, uint32_t k, uint64_t ts,
			    uint64_t *n);
/* Is packet @k's first page in memory (1), not or not known (0)? */
int evt_stream_resident(const struct evt_stream *s, uint32_t k);

/*
 * One event at @pos of the stream's packet in hand, by the decoder's
 * general rules. 0, or -1 with s->errmsg naming the file and the offset.
 */
static inline __attribute__((always_inline))
int evt_stream_decode_one(const struct evt_trace *t, struct evt_stream *s, const uint8_t *pkt, size_t pos,
	       const size_t end, const uint64_t tend, const uint64_t prev,
	       struct evt_decoded *d, size_t *nextp)
{
	struct evt_decode_err e;

	if (__builtin_expect(!evt_decode_event(t->md.cat, pkt, pos, end, s->channel, prev, tend, d, nextp, &e),
			     1))
		return 0;
	evt_stream_error(t, s, s->errmsg, sizeof(s->errmsg), s->pkt_off + pos, &e);
	return -1;
}

#endif /* EVT_STREAM_H */
