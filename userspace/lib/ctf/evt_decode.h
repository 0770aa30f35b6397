/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one decoder of evtrace's CTF packets: every reader (the packet
 * iterator below, the trace reader and its merge, the counting engine, the
 * drainer's --live mode, the fuzz oracle, the test tools) decodes with it.
 *
 *   - Packet header and context: evt_packet_parse().
 *   - A catalogue: the events of a trace (its metadata's) or of this build
 *     (evt_builtin), with the lookup tables every step below reads.
 *   - One event by the general rules: evt_decode_event() (both header kinds,
 *     64-bit timestamps rebuilt with the one-wrap rule, payloads walked from
 *     the catalogue with the layout of <evtrace/events.h>).
 *   - Its fast path: runs of small compact headers of one fixed-size event,
 *     evt_decode_compact_run(), and evt_compact_ts() for one step of a run.
 *   - Errors are a code and the offset they were found at
 *     (struct evt_decode_err); evt_decode_format() is the only place that
 *     turns one into text.
 *
 * Nothing is skipped silently: the first error stops a packet.
 */
#ifndef EVT_DECODE_H
#define EVT_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <evtrace/abi.h>
#include <evtrace/events.h>

/* ---- Errors ---- */

enum evt_derr {
	EVT_DERR_NONE,
	/* The packet header and context (a, b: see evt_decode_format()). */
	EVT_DERR_PKT_SHORT,		/* a: bytes there */
	EVT_DERR_PKT_MAGIC,		/* a: the magic */
	EVT_DERR_PKT_STREAM_ID,		/* a: stream_id */
	EVT_DERR_PKT_SIZES,		/* a: content_size, b: packet_size (bits) */
	EVT_DERR_PKT_TRUNCATED,		/* a: bytes there, b: packet bytes */
	EVT_DERR_PKT_TIME_RANGE,	/* a: timestamp_begin, b: timestamp_end */
	/* Packets of one stream file. */
	EVT_DERR_PKT_WRONG_STREAM,	/* a: stream_id, b: the file's channel */
	EVT_DERR_PKT_WRONG_CPU,		/* a: cpu_id, b: stream_instance_id, cpu: the file's */
	EVT_DERR_PKT_UUID,
	EVT_DERR_PKT_SEQ,		/* a: packet_seq_num, b: the previous packet's */
	EVT_DERR_PKT_DISCARDED_BACK,	/* a: events_discarded, b: the previous packet's */
	EVT_DERR_PKT_TIME_BACK,		/* a: timestamp_begin, b: previous timestamp_end */
	EVT_DERR_PKT_OUT_OF_REACH,	/* a: timestamp_end, b: the reach (ns), c: the base */
	EVT_DERR_PKT_NOT_INDEXED,	/* the header differs from its index file's entry */
	/* Events. */
	EVT_DERR_HDR_TRUNCATED,		/* chan: which header */
	EVT_DERR_EXT_HDR_TRUNCATED,
	EVT_DERR_WIDE_HDR_TRUNCATED,
	EVT_DERR_TS_BACK,		/* a: timestamp, b: the previous one */
	EVT_DERR_TS_LATE,		/* a: timestamp, b: timestamp_end */
	EVT_DERR_UNKNOWN_ID,		/* a: id, chan */
	EVT_DERR_OVERRUN,		/* desc */
	EVT_DERR_LEN_MISMATCH,		/* desc, a: the header's length, b: the fields' */
	EVT_DERR_NOMEM,
};

struct evt_catalogue;

struct evt_decode_err {
	enum evt_derr code;
	size_t off;			/* of the packet, or of the event in its packet */
	uint64_t a, b, c;
	unsigned int chan, cpu;
	int desc;			/* index in cat->events */
	const struct evt_catalogue *cat;
};

/*
 * The message for @e, the only place decoding errors become text.
 * With @file: "FILE: offset OFF: message" (@off: the byte offset in the
 * file); without: "offset OFF in packet: message" (e->off). Returns @buf.
 */
char *evt_decode_format(char *buf, size_t len, const char *file, size_t off,
			const struct evt_decode_err *e);

/* ---- Packets ---- */

struct evt_packet_info {
	struct evt_packet_header h;
	size_t content_bytes;
	size_t packet_bytes;
};

/*
 * Check a packet's header and context; @avail is how many bytes are there.
 * Returns 0, or -1 with @e set (e->off 0).
 */
int evt_packet_check(const void *buf, size_t avail, struct evt_packet_info *pi,
		     struct evt_decode_err *e);
/* The same, the error as text (evt_decode_format() without a file). */
int evt_packet_parse(const void *buf, size_t avail, struct evt_packet_info *pi,
		     char *err, size_t errlen);

/* ---- A catalogue and its lookup tables ---- */

#define EVT_DECODE_SMALL_IDS 2048
/* A catalogue's c_wide_id when the compact header has no wide kind (0.1). */
#define EVT_COMPACT_NO_WIDE 32
/* Events one catalogue may hold: EVT_DMETA keeps an event's index in 12 bits. */
#define EVT_CATALOGUE_MAX 4096

/*
 * The events a trace's metadata declares (or this build's, evt_builtin),
 * with the tables the decoder looks them up in. Built once, read-only
 * after: threads share it. Events are named by their index in events[].
 */
struct evt_catalogue {
	const struct evt_event_desc *events;
	unsigned int nr_events;
	int bad;			/* evt_catalogue_init() refused events[bad] (-1: none or all) */
	/*
	 * The 5-bit id of the wide compact header: EVT_COMPACT_ID_WIDE, or
	 * EVT_COMPACT_NO_WIDE for evtrace 0.1's traces (ids 0-30 small).
	 */
	uint32_t c_wide_id;
	int16_t desc_by_id[EVT_NR_CHANNELS][EVT_DECODE_SMALL_IDS];
	int32_t fixed_len[EVT_CATALOGUE_MAX];	/* payload bytes of a fixed-size event, -1: variable */
	/*
	 * The compact fast path, by the 5-bit id of a small header: header +
	 * payload bytes (0: no fast path), the step to the next event
	 * (aligned), and the EVT_DMETA bits other than the offset.
	 */
	uint32_t c_need[32], c_step[32];
	uint64_t c_meta[32];
	/*
	 * The normal channel, by id: the payload bytes of a fixed-size event,
	 * 0x10000 (no header's length) for a variable or unknown one.
	 */
	uint32_t n_fixed[EVT_DECODE_SMALL_IDS];
	/* And var_type/var_off below, by normal id (0: fixed size, unknown or another layout). */
	uint8_t n_var_type[EVT_DECODE_SMALL_IDS];
	uint16_t n_var_off[EVT_DECODE_SMALL_IDS];
	/*
	 * A variable-sized event whose only variable field is its last one
	 * (a string or a u8 sequence), by index: that field's type + 1 (0:
	 * another layout) and offset.
	 */
	uint8_t var_type[EVT_CATALOGUE_MAX];
	uint16_t var_off[EVT_CATALOGUE_MAX];
};

/* This build's catalogue (evt_events[]), built before main. */
extern const struct evt_catalogue *const evt_builtin;

/*
 * Build @c over the @n events at @ev (kept by reference: they must outlive
 * @c), for traces whose wide compact header has the 5-bit id @compact_wide_id
 * (EVT_COMPACT_NO_WIDE: none). Refused, with @err: more than EVT_CATALOGUE_MAX events, an unknown
 * channel, two events with one (channel, id) or one name, a field type
 * outside enum evt_field_type. 0 or -1.
 */
int evt_catalogue_init(struct evt_catalogue *c, const struct evt_event_desc *ev, unsigned int n,
		       unsigned int compact_wide_id, char *err, size_t errlen);
/* The event named @name, or NULL. */
const struct evt_event_desc *evt_catalogue_find(const struct evt_catalogue *c, const char *name);
/* 1 when @a and @b declare the same events (names, ids, fields) in the same order, same headers. */
int evt_catalogue_same(const struct evt_catalogue *a, const struct evt_catalogue *b);

/* Index in c->events of (channel, id), or -1. */
static inline long evt_decode_desc(const struct evt_catalogue *c, unsigned int chan, uint32_t id)
{
	unsigned int i;

	if (id < EVT_DECODE_SMALL_IDS)
		return c->desc_by_id[chan][id];
	for (i = 0; i < c->nr_events; i++)
		if (c->events[i].channel == chan && c->events[i].id == id)
			return i;
	return -1;
}

/* ---- Events ---- */

/*
 * A decoded event in 16 bytes: its timestamp and, packed in 64 bits, the
 * payload offset within the packet (26 bits: packets are at most 64 MiB),
 * the payload length (26 bits), the event's index in its catalogue (12 bits).
 */
struct evt_decoded {
	uint64_t ts;
	uint64_t meta;
};
#define EVT_DMETA_OFF(m)	((uint32_t)((m) & 0x3ffffff))
#define EVT_DMETA_LEN(m)	((uint32_t)(((m) >> 26) & 0x3ffffff))
#define EVT_DMETA_DESC(m)	((uint32_t)((m) >> 52))
#define EVT_DMETA(off, len, desc) \
	((uint64_t)(off) | ((uint64_t)(len) << 26) | ((uint64_t)(desc) << 52))

static inline uint16_t evt_ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t evt_ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t evt_ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The one-wrap rule: the first time >= @prev whose low @bits bits are @low. */
static inline uint64_t evt_one_wrap(uint64_t prev, uint64_t low, unsigned int bits)
{
	const uint64_t mask = (1ULL << bits) - 1;

	return prev + ((low - prev) & mask);
}

/* The timestamp of a small compact header @w after an event at @prev. */
static inline uint64_t evt_compact_ts(uint64_t prev, uint32_t w)
{
	return evt_one_wrap(prev, w >> EVT_COMPACT_ID_BITS, EVT_COMPACT_TS_BITS);
}

/* Payload length an event of @d takes at @p (at most @avail bytes), or -1. */
long evt_payload_size(const struct evt_event_desc *d, const uint8_t *p, size_t avail);

/*
 * The payload length of an event of variable size, c->events[@di], at @p
 * (at most @avail bytes), or -1; a length beyond @avail is the caller's
 * to refuse. The usual layout (one variable field, the last) without
 * walking the fields.
 */
static inline long evt_decode_var_size(const struct evt_catalogue *c, long di, const uint8_t *p,
					size_t avail)
{
	const size_t off = c->var_off[di];

	if (c->var_type[di] == EVT_F_SEQ_U8 + 1)
		return avail < off + 2 ? -1 : (long)(off + 2 + evt_ld16(p + off));
	if (c->var_type[di] == EVT_F_STRING + 1) {
		const uint8_t *nul = avail > off ? memchr(p + off, 0, avail - off) : NULL;

		return nul ? nul - p + 1 : -1;
	}
	return evt_payload_size(&c->events[di], p, avail);
}

/*
 * One event at @pos of a packet of channel @chan whose content ends at
 * @end, after an event at @prev, by the general rules: sets @out (meta
 * holds the payload's offset in the packet) and *@next (the next event's
 * offset). 0, or -1 with @e (e->off = @pos).
 */
static inline __attribute__((always_inline))
int evt_decode_event(const struct evt_catalogue *c, const uint8_t *pkt, size_t pos, size_t end, unsigned int chan,
		     uint64_t prev, uint64_t tend, struct evt_decoded *out, size_t *next,
		     struct evt_decode_err *e)
{
	const size_t room = end - pos;
	uint32_t id, hdr, hsize = 0;
	uint64_t ts = 0;
	long di, plen;
	int ext;

	/* The event's index in c->events once known (-1 before). */
#define EVT_DFAIL_D(why, x, y, d) do { \
	e->code = (why); e->off = pos; e->a = (x); e->b = (y); e->chan = chan; e->desc = (d); \
	e->cat = c; \
	return -1; \
} while (0)
#define EVT_DFAIL(why, x, y) EVT_DFAIL_D(why, x, y, -1)
	if (chan == EVT_CHAN_COMPACT) {
		uint32_t w;

		if (room < EVT_COMPACT_HDR)
			EVT_DFAIL(EVT_DERR_HDR_TRUNCATED, 0, 0);
		w = evt_ld32(pkt + pos);
		id = w & ((1U << EVT_COMPACT_ID_BITS) - 1);
		ext = id == EVT_COMPACT_ID_EXT;
		hdr = ext ? EVT_COMPACT_EXT_HDR : EVT_COMPACT_HDR;
		if (!ext)
			ts = evt_compact_ts(prev, w);
		if (id == c->c_wide_id) {
			hdr = EVT_COMPACT_WIDE_HDR;
			if (room < hdr)
				EVT_DFAIL(EVT_DERR_WIDE_HDR_TRUNCATED, 0, 0);
			id = evt_ld32(pkt + pos + 4);
		}
	} else {
		if (room < EVT_NORMAL_HDR)
			EVT_DFAIL(EVT_DERR_HDR_TRUNCATED, 0, 0);
		id = evt_ld16(pkt + pos);
		hsize = evt_ld16(pkt + pos + 2);
		ext = id == EVT_NORMAL_ID_EXT;
		hdr = ext ? EVT_NORMAL_EXT_HDR : EVT_NORMAL_HDR;
		if (!ext)
			ts = evt_one_wrap(prev, evt_ld32(pkt + pos + 4), EVT_NORMAL_TS_BITS);
	}
	if (ext) {
		if (room < hdr)
			EVT_DFAIL(EVT_DERR_EXT_HDR_TRUNCATED, 0, 0);
		id = evt_ld32(pkt + pos + 4);
		ts = evt_ld64(pkt + pos + 8);
		if (ts < prev)
			EVT_DFAIL(EVT_DERR_TS_BACK, ts, prev);
	}
	if (ts > tend)
		EVT_DFAIL(EVT_DERR_TS_LATE, ts, tend);
	di = evt_decode_desc(c, chan, id);
	if (di < 0)
		EVT_DFAIL(EVT_DERR_UNKNOWN_ID, id, 0);
	plen = c->fixed_len[di];
	if (plen < 0)
		plen = evt_decode_var_size(c, di, pkt + pos + hdr, room - hdr);
	if (plen < 0 || (size_t)plen > room - hdr)
		EVT_DFAIL_D(EVT_DERR_OVERRUN, 0, 0, (int)di);
	if (chan == EVT_CHAN_NORMAL && (uint32_t)plen != hsize)
		EVT_DFAIL_D(EVT_DERR_LEN_MISMATCH, hsize, (uint64_t)plen, (int)di);
#undef EVT_DFAIL
#undef EVT_DFAIL_D
	out->ts = ts;
	out->meta = EVT_DMETA(pos + hdr, plen, di);
	*next = (pos + hdr + (size_t)plen + EVT_EVENT_ALIGN - 1) & ~(size_t)(EVT_EVENT_ALIGN - 1);
	return 0;
}

/*
 * The fast path: small compact headers of fixed-size events, in runs of
 * one event id. A run's payload size, step and meta bits are constants in
 * registers, and a single comparison per event both ends the run at the
 * packet's end and proves the whole event lies in the packet. Within a
 * run timestamps never go back (the one-wrap rule), so timestamp_end is
 * checked once per run, on its last event; when that one is late, the run
 * is cut back to the first late event, which evt_decode_event() then
 * reports. Returns where it stopped (an event for the general rules, or
 * the end), with every event before it decoded into *@evp onwards.
 */
static inline __attribute__((always_inline))
size_t evt_decode_compact_run(const struct evt_catalogue *c, const uint8_t *pkt, size_t pos, const size_t end,
			      uint64_t *prevp, const uint64_t tend, struct evt_decoded **evp)
{
	const uint32_t idmask = (1U << EVT_COMPACT_ID_BITS) - 1;
	struct evt_decoded *e = *evp;
	uint64_t prev = *prevp;

	while (__builtin_expect(pos + EVT_COMPACT_HDR <= end, 1)) {
		uint32_t w = evt_ld32(pkt + pos);
		const uint32_t id = w & idmask;
		const size_t need = c->c_need[id], step = c->c_step[id];
		/* The run's meta bits; the payload offset is pos + header (an add). */
		const uint64_t meta = c->c_meta[id] + EVT_COMPACT_HDR;
		struct evt_decoded *const first = e;
		const uint64_t prev0 = prev;
		size_t last;

		/* need - 1 wraps for ids without a fast entry: one test for both. */
		if (__builtin_expect(need - 1 >= end - pos, 0))
			break;
		/* An event of this id at pos <= last lies wholly in the packet. */
		last = end - need;
		for (;;) {
			const uint64_t ts = evt_compact_ts(prev, w);

			e->ts = ts;
			e->meta = meta + pos;
			e++;
			prev = ts;
			pos += step;
			if (__builtin_expect(pos > last, 0))
				break;
			w = evt_ld32(pkt + pos);
			if (__builtin_expect((w & idmask) != id, 0))
				break;
		}
		if (__builtin_expect(prev > tend, 0)) {
			/* Back to the run's first late event: the general rules say so. */
			struct evt_decoded *q = first;

			while (q->ts <= tend)
				q++;
			prev = q == first ? prev0 : q[-1].ts;
			pos = EVT_DMETA_OFF(q->meta) - EVT_COMPACT_HDR;
			e = q;
			break;
		}
	}
	*evp = e;
	*prevp = prev;
	return pos;
}

/*
 * One step of the fast path, for a reader that decodes an event at a time
 * (the counting lanes): the event at @p, with at least a header's bytes
 * before @end (the packet's content end), after an event at @prev. When it
 * is a small compact header (evt_decode_compact_step) or a normal header
 * (evt_decode_normal_step) of a fixed-size event, wholly before @end and
 * not after @tend: 1, its time in *@ts and the offset of the next event in
 * *@step. Otherwise 0: evt_decode_event() says what it is.
 */
static inline __attribute__((always_inline))
int evt_decode_compact_step(const struct evt_catalogue *c, const uint8_t *p, const uint8_t *end, uint64_t prev, uint64_t tend,
			    uint64_t *ts, uint64_t *step)
{
	const uint32_t w = evt_ld32(p);
	const size_t s = c->c_step[w & ((1U << EVT_COMPACT_ID_BITS) - 1)];

	*ts = evt_compact_ts(prev, w);
	*step = s;
	/*
	 * The step, padding included, within @end (one table; an event only
	 * its padding crosses @end goes by the general rules); s - 1 wraps
	 * for ids without a fast entry (0): one test for both.
	 */
	return (s - 1 < (size_t)(end - p)) & (*ts <= tend);
}

static inline __attribute__((always_inline))
int evt_decode_normal_step(const struct evt_catalogue *c, const uint8_t *p, const uint8_t *end, uint64_t prev, uint64_t tend,
			   uint64_t *ts, uint64_t *step)
{
	/* The header's payload length must be the event's fixed one. */
	const uint32_t h = evt_ld32(p);
	const uint32_t id = h & 0xffff, len = h >> 16;
	const size_t need = EVT_NORMAL_HDR + (size_t)len;

	*ts = evt_one_wrap(prev, evt_ld32(p + 4), EVT_NORMAL_TS_BITS);
	*step = (need + EVT_EVENT_ALIGN - 1) & ~(size_t)(EVT_EVENT_ALIGN - 1);
	return (id < EVT_DECODE_SMALL_IDS) & (c->n_fixed[id % EVT_DECODE_SMALL_IDS] == len) &
	       (need <= (size_t)(end - p)) & (*ts <= tend);
}

/*
 * The same for a normal header of a variable-size event whose one variable
 * field is its last (a string or a u8 sequence): the header's length must be
 * the one that field gives (for a string, its first NUL is the payload's
 * last byte), as evt_decode_event() would find it.
 */
static inline __attribute__((always_inline))
int evt_decode_normal_var_step(const struct evt_catalogue *c, const uint8_t *p, const uint8_t *end, uint64_t prev, uint64_t tend,
			       uint64_t *ts, uint64_t *step)
{
	const uint32_t h = evt_ld32(p);
	const uint32_t id = (h & 0xffff) % EVT_DECODE_SMALL_IDS, len = h >> 16;
	const unsigned int vt = (h & 0xffff) < EVT_DECODE_SMALL_IDS ? c->n_var_type[id] : 0;
	const size_t need = EVT_NORMAL_HDR + (size_t)len, off = c->n_var_off[id];
	const uint8_t *const pl = p + EVT_NORMAL_HDR;

	if (!vt || need > (size_t)(end - p))
		return 0;
	*ts = evt_one_wrap(prev, evt_ld32(p + 4), EVT_NORMAL_TS_BITS);
	*step = (need + EVT_EVENT_ALIGN - 1) & ~(size_t)(EVT_EVENT_ALIGN - 1);
	if (*ts > tend)
		return 0;
	if (vt == EVT_F_SEQ_U8 + 1)
		return len >= off + 2 && off + 2 + evt_ld16(pl + off) == len;
	return len > off && memchr(pl + off, 0, len - off) == pl + len - 1;
}

/*
 * The fast path of the normal channel, for a reader that decodes a packet
 * at a time: every event the two steps above take, decoded into *@evp
 * onwards (the payload at pos + header, its length from the header).
 * Returns where it stopped (an event for the general rules, or the end).
 */
static inline __attribute__((always_inline))
size_t evt_decode_normal_run(const struct evt_catalogue *c, const uint8_t *pkt, size_t pos, const size_t end,
			     uint64_t *prevp, const uint64_t tend, struct evt_decoded **evp)
{
	struct evt_decoded *e = *evp;
	uint64_t prev = *prevp, ts, step;

	while (pos + EVT_NORMAL_HDR <= end &&
	       (evt_decode_normal_step(c, pkt + pos, pkt + end, prev, tend, &ts, &step) ||
		evt_decode_normal_var_step(c, pkt + pos, pkt + end, prev, tend, &ts, &step))) {
		const uint32_t h = evt_ld32(pkt + pos);

		e->ts = ts;
		e->meta = EVT_DMETA(pos + EVT_NORMAL_HDR, h >> 16,
				    c->desc_by_id[EVT_CHAN_NORMAL][(h & 0xffff) % EVT_DECODE_SMALL_IDS]);
		e++;
		prev = ts;
		pos += step;
	}
	*evp = e;
	*prevp = prev;
	return pos;
}

/* ---- Iterating one packet's events (no index, no file: a buffer) ---- */

struct evt_event {
	unsigned int channel;
	unsigned int id;
	uint64_t ts;
	const struct evt_event_desc *desc;
	unsigned int desc_index;	/* desc's index in its catalogue */
	const uint8_t *payload;
	unsigned int payload_len;
	size_t offset;		/* of the event header within the packet */
};

struct evt_packet_iter {
	const struct evt_catalogue *cat;
	const uint8_t *buf;
	struct evt_packet_info info;
	size_t pos;
	uint64_t prev_ts;
	unsigned int count;
	struct evt_decode_err derr;
	char err[256];		/* derr as text */
};

/* One decoded field value. */
struct evt_field_val {
	const struct evt_field_desc *desc;
	uint64_t u;		/* integers (signed ones sign-extended) */
	const uint8_t *bytes;	/* strings (NUL excluded) and sequences */
	unsigned int len;
};

/*
 * Start iterating a packet's events, decoded by @cat (evt_builtin: this
 * build's): 0, or -1 with it->err.
 */
int evt_packet_iter_init(struct evt_packet_iter *it, const struct evt_catalogue *cat,
			 const void *buf, size_t avail);
/* 1: an event in @ev; 0: end of packet; -1: error in it->err (it->derr). */
int evt_packet_next(struct evt_packet_iter *it, struct evt_event *ev);
/* Field @idx of @ev; 0 or -1. */
int evt_event_field(const struct evt_event *ev, unsigned int idx, struct evt_field_val *v);
/* Field by name; 0 or -1. */
int evt_event_field_by_name(const struct evt_event *ev, const char *name, struct evt_field_val *v);
/* The same in @len bytes of payload of event @d (variable-sized fields walked). */
int evt_payload_field(const struct evt_event_desc *d, const uint8_t *p, size_t len, const char *name,
		      struct evt_field_val *v);

#endif /* EVT_DECODE_H */
