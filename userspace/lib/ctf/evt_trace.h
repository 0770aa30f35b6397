/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an evtrace trace directory: DIR/metadata plus one stream file per
 * channel and CPU (compact_<cpu>, normal_<cpu>), each a sequence of whole
 * CTF packets.
 *
 * Files are mapped, packets decoded in place, one packet at a time, into
 * per-stream arrays (timestamp, payload offset and length, event): no
 * allocation per event, no copy of payloads. Decoding is strict and follows
 * evt_decode's rules (one-wrap timestamps, payloads walked from the shared
 * catalogue) plus what a whole file adds (stream_id and CPU constant,
 * packet_seq_num increasing, events_discarded a running total, time never
 * going back across packets, no trailing partial packet). The first error
 * names the file and the byte offset in it; events before it are still
 * delivered, nothing after it is.
 *
 * Streams are addressed by buffer ids 0..nr_streams-1 in (cpu, channel)
 * order (seed 004): a missing or offline CPU leaves no hole.
 *
 * evt_mtrace merges the streams into one time-ordered sequence with either
 * k-way merge of evt_merge.h, in batches of event references.
 */
#ifndef EVT_TRACE_H
#define EVT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "evt_decode.h"
#include "evt_merge.h"
#include "evt_metadata.h"

#define EVT_TRACE_ERRLEN 640

/*
 * What a decoded event keeps besides its timestamp, packed in 64 bits:
 * payload offset within the packet (26 bits: packets are at most 64 MiB),
 * payload length (26 bits), index in evt_events[] (12 bits).
 */
#define EVT_DMETA_OFF(m)	((uint32_t)((m) & 0x3ffffff))
#define EVT_DMETA_LEN(m)	((uint32_t)(((m) >> 26) & 0x3ffffff))
#define EVT_DMETA_DESC(m)	((uint32_t)((m) >> 52))
#define EVT_DMETA(off, len, desc) \
	((uint64_t)(off) | ((uint64_t)(len) << 26) | ((uint64_t)(desc) << 52))

/* A decoded event: its timestamp and its EVT_DMETA. */
struct evt_dev {
	uint64_t ts;
	uint64_t meta;
};

/* A packet of the index: where it is and its time range. */
struct evt_pkt {
	uint64_t off;
	uint64_t begin, end;		/* timestamp_begin, timestamp_end */
	uint64_t content;		/* content bytes */
};

struct evt_stream {
	unsigned int id;	/* buffer id */
	unsigned int channel;
	unsigned int cpu;
	char name[32];		/* file name in the directory */
	const uint8_t *map;
	size_t size;
	int shared;		/* a clone: map and index belong to the original */

	/*
	 * The packet index, built at open from the headers alone: every
	 * packet-level rule (header, sizes, stream, CPU, uuid, sequence,
	 * running discard total, time never going back) checked once. A bad
	 * header ends the index; its error (tail_errmsg) is raised when the
	 * reader gets there, after the events before it.
	 */
	struct evt_pkt *pk;
	uint32_t npk;
	int tail_err;
	char tail_errmsg[EVT_TRACE_ERRLEN];

	/*
	 * The packet being delivered (index ipk - 1), decoded: ev[0..n), two
	 * slack entries after them for the merge's look-ahead.
	 */
	uint32_t ipk;		/* next packet to decode */
	size_t pkt_off;
	struct evt_packet_info pi;
	struct evt_dev *ev;
	uint32_t n, i, cap;
	int err;		/* an error follows the decoded events */
	int eof;
	uint64_t events;	/* decoded so far */

	/* Whole-file accounting, from the index. */
	uint64_t packets;
	uint64_t discarded;		/* events_discarded of the last packet */
	uint64_t seq_first;		/* packet_seq_num of the first packet */
	uint64_t seq_gaps;		/* packets missing between packets */
	uint64_t first_ts;		/* timestamp_begin of the first packet */
	uint64_t end_ts;		/* timestamp_end of the last packet */
	uint64_t min_end, max_end;	/* of the packets' timestamp_end */
	char errmsg[EVT_TRACE_ERRLEN];
};

struct evt_trace_opts {
	/* CPUs to open: bitmap of cpu_set_bits bits; NULL: all. */
	const uint8_t *cpu_set;
	unsigned int cpu_set_bits;
};

struct evt_trace {
	char *dir;
	unsigned int nr_streams;
	struct evt_stream *streams;
	struct evt_metadata md;
	uint64_t base;			/* earliest timestamp_begin: merge keys are relative to it */
	char err[EVT_TRACE_ERRLEN];
};

/* 0, or -1 with t->err set (t is then closed already). */
int evt_trace_open(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o);
void evt_trace_close(struct evt_trace *t);
/*
 * A second reader of the same open trace (for another thread): shares the
 * mappings and the index, has its own cursors. Close it before @src.
 * 0 or -1 (no memory).
 */
int evt_trace_clone(struct evt_trace *dst, const struct evt_trace *src);
/* Position a stream (before reading) at the first packet that may hold @ts or later. */
void evt_stream_seek(struct evt_stream *s, uint64_t ts);

/* Realtime = clock value + this (nanoseconds). */
static inline uint64_t evt_trace_offset_ns(const struct evt_trace *t)
{
	return evt_metadata_offset_ns(&t->md);
}

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
 * One event of the merged sequence, 24 bytes: timestamp, payload (in the
 * mapped file: valid until the trace is closed) and, packed, payload
 * length, event (index in evt_events[]) and buffer id.
 */
struct evt_ref {
	uint64_t ts;
	const uint8_t *payload;
	uint64_t info;
};
#define EVT_REF_LEN(r)		EVT_DMETA_LEN((r)->info)
#define EVT_REF_DESC(r)		EVT_DMETA_DESC((r)->info)
#define EVT_REF_STREAM(r)	EVT_DMETA_OFF((r)->info)

/*
 * A stream's cursor in the merge: the head (32 bytes: an index is a shift).
 * The key of the event after the head is kept apart, in evt_mtrace.next[]:
 * the merge's critical path loads it by the source alone.
 */
struct evt_mcur {
	const struct evt_dev *p;	/* the head event */
	const struct evt_dev *end;	/* ev + n */
	const uint8_t *pkt;		/* the packet */
	uint64_t sid;			/* the stream's buffer id */
};

/*
 * The merge's sources are the streams that can deliver anything (a packet,
 * or an error): empty files take no leaf, so the tree is no deeper than
 * the streams that hold events need. Sources keep the streams' order, so
 * ties still go by buffer id.
 */
struct evt_mtrace {
	struct evt_trace *t;
	struct evt_merge m;
	struct evt_mcur *cur;		/* per source */
	evt_mkey_t *next;		/* per source: key of cur.p[1] when cur.p + 1 < cur.end */
	uint32_t nsrc;
	uint64_t base;			/* keys hold ts - base */
	uint64_t from, to;		/* inclusive time range (clock values) */
	uint8_t *event_mask;		/* per evt_events[] index, NULL: all */
	int done;
	int err;
	char errmsg[EVT_TRACE_ERRLEN];
};

/* 0, or -1 (no memory). Loads every stream's first packet lazily. */
int evt_mtrace_init(struct evt_mtrace *mt, struct evt_trace *t, enum evt_merge_kind kind);
void evt_mtrace_free(struct evt_mtrace *mt);
/*
 * Only events in [from, to] (clock values). Before the first batch: the
 * streams are sought to the first packet that can hold @from (packets
 * wholly before it are skipped undecoded).
 */
void evt_mtrace_set_range(struct evt_mtrace *mt, uint64_t from, uint64_t to);
/* Only events whose mask[evt_events index] is set (kept by reference). */
void evt_mtrace_set_events(struct evt_mtrace *mt, uint8_t *mask);
/*
 * Up to @max next events in (ts, buffer id, file order) order: the number
 * given, 0 at the end, -1 on a decode error (mt->errmsg names the file and
 * offset; the events before it were all returned). Payload pointers stay
 * valid until the trace is closed (the files are mapped).
 */
long evt_mtrace_next(struct evt_mtrace *mt, struct evt_ref *out, size_t max);
/*
 * The same merge, every event decoded and taken in order, but only counted:
 * the number of the next (up to @max) events evt_mtrace_next() would give,
 * 0 at the end, -1 on the same decode error after the same events.
 */
long evt_mtrace_count(struct evt_mtrace *mt, size_t max);
/*
 * Two merged readers (of two clones of a trace: two time slices) counted
 * to their ends at once, their steps interleaved so that the two merges'
 * dependency chains overlap. Each ends as evt_mtrace_count() would leave
 * it: @na, @nb events counted, then done, or mt->err with mt->errmsg
 * after the same events.
 */
void evt_mtrace_count_pair(struct evt_mtrace *a, struct evt_mtrace *b, uint64_t *na, uint64_t *nb);

#endif /* EVT_TRACE_H */
