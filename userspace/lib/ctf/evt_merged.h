/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The merged reader: a trace's streams merged into one time-ordered
 * sequence with either k-way merge of evt_merge.h, in batches of event
 * references (evt_merged_next()) or only counted (evt_merged_count(), and
 * evt_merged_count_pair() in evt_count.c: two time slices at once).
 */
#ifndef EVT_MERGED_H
#define EVT_MERGED_H

#include "ctf/evt_merge.h"
#include "ctf/evt_trace.h"

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
 * The key of the event after the head is kept apart, in evt_merged.next[]:
 * the merge's critical path loads it by the source alone.
 */
struct evt_merge_cursor {
	const struct evt_decoded *p;	/* the head event */
	const struct evt_decoded *end;	/* ev + n */
	const uint8_t *pkt;		/* the packet */
	uint64_t sid;			/* the stream's buffer id */
};

/*
 * The merge's sources are the streams that can deliver anything (a packet,
 * or an error): empty files take no leaf, so the tree is no deeper than
 * the streams that hold events need. Sources keep the streams' order, so
 * ties still go by buffer id.
 */
struct evt_merged {
	struct evt_trace *t;
	struct evt_merge m;
	struct evt_merge_cursor *cur;		/* per source */
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
int evt_merged_init(struct evt_merged *mt, struct evt_trace *t, enum evt_merge_kind kind);
void evt_merged_free(struct evt_merged *mt);
/*
 * Only events in [from, to] (clock values). Before the first batch: the
 * streams are sought to the first packet that can hold @from (packets
 * wholly before it are skipped undecoded).
 */
void evt_merged_set_range(struct evt_merged *mt, uint64_t from, uint64_t to);
/* Only events whose mask[evt_events index] is set (kept by reference). */
void evt_merged_set_events(struct evt_merged *mt, uint8_t *mask);
/*
 * Up to @max next events in (ts, buffer id, file order) order: the number
 * given, 0 at the end, -1 on a decode error (mt->errmsg names the file and
 * offset; the events before it were all returned). Payload pointers stay
 * valid until the trace is closed (the files are mapped).
 */
long evt_merged_next(struct evt_merged *mt, struct evt_ref *out, size_t max);
/*
 * The same merge, every event decoded and taken in order, but only counted:
 * the number of the next (up to @max) events evt_merged_next() would give,
 * 0 at the end, -1 on the same decode error after the same events.
 */
long evt_merged_count(struct evt_merged *mt, size_t max);
/*
 * Two merged readers (of two clones of a trace: two time slices) counted
 * to their ends at once, their steps interleaved so that the two merges'
 * dependency chains overlap. Each ends as evt_merged_count() would leave
 * it: @na, @nb events counted, then done, or mt->err with mt->errmsg
 * after the same events.
 */
void evt_merged_count_pair(struct evt_merged *a, struct evt_merged *b, uint64_t *na, uint64_t *nb);

/*
 * For evt_count.c: start @mt (its sources' first events, the tree): 0 or
 * -1 with mt->errmsg; and the error of a packet of @s beyond the merge
 * keys' reach, into @buf.
 */
int evt_merged_start(struct evt_merged *mt);
void evt_merged_out_of_reach(const struct evt_merged *mt, const struct evt_stream *s, char *buf,
			     size_t len);

#endif /* EVT_MERGED_H */
