/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The portable ring-buffer core: one ring per channel and CPU, a circular
 * list of num_subbuf sub-buffers of subbuf_size bytes, each one a CTF packet.
 *
 * Positions are free-running byte offsets: sub-buffer index =
 * (pos / subbuf_size) % num_subbuf, lap = pos / ring_size. Writers are the
 * owning CPU and whatever interrupts it (softirq, hardirq, NMI; signals in
 * userspace): they reserve with a CPU-local cmpxchg on the write offset,
 * reading the clock inside the loop so that buffer order is timestamp order,
 * write, then commit by adding their length to the sub-buffer's commit
 * count. The committer that brings a sub-buffer's count to a whole lap
 * delivers it: it writes the packet's closing fields and publishes it to
 * the reader. Until it has published it, that sub-buffer is its own: no
 * writer opens a sub-buffer whose previous lap is not published. One reader
 * per ring (another CPU) takes and releases whole sub-buffers.
 */
#ifndef EVT_RING_H
#define EVT_RING_H

#include "evt_port.h"
#include <evtrace/abi.h>
#include <evtrace/limits.h>

/*
 * Positions are free-running unsigned long byte counts: on 32 bits the
 * consumed word would wrap at 2 GiB and the first-lap test at 4 GiB.
 */
#if __SIZEOF_LONG__ != 8
#error "the evtrace ring core needs a 64-bit build: ring positions are unsigned long byte counts"
#endif

enum evt_mode {
	EVT_MODE_DISCARD = 0,	/* full ring: new events are dropped, counted */
	EVT_MODE_OVERWRITE = 1,	/* full ring: the oldest unread packet is overwritten */
};

enum evt_ring_event {
	EVT_RING_HIGH_WATER = 1,	/* unread fill crossed the high-water mark */
	EVT_RING_DISCARDING = 2,	/* first loss since the reader drained below the mark */
};

/*
 * The interleaving hooks' points (EVT_HOOK() below; compiled into
 * the unit tests only): each is a window between two steps of the core
 * where an interrupt (a nested writer or flush), the reader or a remote
 * flusher may run. A new window needs one line here; the unit tests run
 * their nesting cases at every point of this list.
 */
#define EVT_HOOK_POINTS(X)						\
	X(RESERVE_BEFORE_CMPXCHG)	/* fast path: clock read, offset not taken */ \
	X(RESERVE_AFTER_CMPXCHG)	/* fast path: taken, last_ts not stored */ \
	X(COMMIT)			/* counted, commit count not added */ \
	X(SLOW_RETRY_BEFORE_CMPXCHG)	/* slow path, room after all: not taken */ \
	X(SLOW_RETRY_AFTER_CMPXCHG)	/* ... taken, last_ts not stored */ \
	X(SLOW_BEFORE_CMPXCHG)		/* switch decided (and skip), not taken */ \
	X(SLOW_AFTER_CMPXCHG)		/* new sub-buffer taken, not switched */ \
	X(CHECK_BEFORE_TAKE)		/* overwrite: lap chosen, not taken */ \
	X(CHECK_AFTER_TAKE)		/* overwrite: lap taken from the reader */ \
	X(MARK_SKIPPED)			/* held slot's lap: not yet marked */ \
	X(SWITCH_OUT)			/* closing fields set, not committed */ \
	X(SWITCH_IN)			/* new sub-buffer: no header yet */ \
	X(SWITCH_IN_COMMIT)		/* header written, not committed */ \
	X(DELIVER_BEGIN)		/* lap complete, closing fields not written */ \
	X(DELIVER_PUBLISH)		/* closing fields written, not published */ \
	X(DELIVER_END)			/* published */ \
	X(FLUSH_BEFORE_CMPXCHG)		/* flush: offset read, not moved */ \
	X(FLUSH_AFTER_CMPXCHG)		/* flush: moved, not switched out */ \
	X(FLUSH_OPEN_BEFORE_CMPXCHG)	/* flush opening a packet for losses */ \
	X(FLUSH_OPEN_AFTER_CMPXCHG)	/* ... taken, not switched in */ \
	X(GET)				/* reader: lap seen, not claimed */ \
	X(PUT)				/* reader: releasing, not released */ \
	X(HOLD_CHECK)			/* overwrite: reader's word read, holds not yet */ \
	X(HOLD_SET)			/* a hold: its limit read, not raised */ \
	X(HOLD_REACHED)			/* reader at its bound: a hold read, not released */

enum evt_hook_point {
#define EVT_HOOK_ENUM(name) EVT_HOOK_##name,
	EVT_HOOK_POINTS(EVT_HOOK_ENUM)
#undef EVT_HOOK_ENUM
	EVT_HOOK_NR
};

/*
 * Interleaving hooks: named points inside the core's windows (the points
 * are listed above) where a unit test runs what an interrupt, the
 * reader or a remote flusher could run there. Only the unit tests define
 * EVT_TEST_HOOKS (tests/unit/unit.h, and they compile the core themselves:
 * tests/unit/helpers.c); the module and the native benchmark have none.
 */
#ifdef EVT_TEST_HOOKS
struct evt_ring;
extern void (*evt_test_hook)(unsigned int point, struct evt_ring *r);
#define EVT_HOOK(point, r) do { \
	if (evt_test_hook) \
		evt_test_hook(EVT_HOOK_##point, (r)); \
} while (0)
#else
#define EVT_HOOK(point, r)		do { } while (0)
#endif

#define EVT_SB_SKIPPED	1UL	/* flag in evt_subbuf.delivered */

/*
 * The consumed word: the reader's next position (in sub-buffers) above
 * EVT_CONSUMED_POS_SHIFT, EVT_CONSUMED_HOLD_FLIP in bit 13, the slot of the
 * sub-buffer it holds in bits 1-12, EVT_CONSUMED_HELD in bit 0. Writer and
 * reader decide with one cmpxchg on one word, so the writer never judges the
 * held slot from a stale copy. A new hold flips EVT_CONSUMED_HOLD_FLIP: a
 * writer that read the holds before fails its cmpxchg and reads them again.
 */
#define EVT_CONSUMED_HELD	1UL
#define EVT_CONSUMED_SLOT_SHIFT	1
#define EVT_CONSUMED_HOLD_FLIP	(1UL << 13)
#define EVT_CONSUMED_POS_SHIFT	14
/* The slot field holds any sub-buffer index. */
#if (1 << (13 - EVT_CONSUMED_SLOT_SHIFT)) < EVT_NUM_SUBBUF_MAX
#error "the consumed word's slot field is too narrow for EVT_NUM_SUBBUF_MAX"
#endif

/*
 * Holds (evt_ring_hold()): in overwrite mode a writer does not take a lap
 * below a hold's limit from the reader, it discards instead. Two, each
 * released by its own rule (the module's snapshot unit): a SNAPSHOT's (its
 * reader at the bound, the ring closed, or expired) and a trigger's (its
 * reader at the bound, or trigger_keep_ms); the writer honours the higher.
 */
enum evt_hold_kind {
	EVT_HOLD_SNAPSHOT,
	EVT_HOLD_TRIGGER,
	EVT_NR_HOLDS,
};

/*
 * An event header's kind: small (the channel's one word or two), wide (a
 * compact one that names an id beyond the 5 bits), extended (a full
 * timestamp; also the normal channel's escape for ids beyond 16 bits).
 */
enum evt_hdr_kind {
	EVT_HDR_SMALL,
	EVT_HDR_WIDE,
	EVT_HDR_EXT,
};

/*
 * The kind of header an event of @id on channel @chan gets at a timestamp
 * needing a full one (@ext), and its bytes. Probes pass their channel as
 * a constant: both fold into the fast path without a load.
 */
static inline __attribute__((always_inline))
unsigned int evt_hdr_kind(unsigned int chan, unsigned int id, int ext)
{
	if (ext)
		return EVT_HDR_EXT;
	if (chan == EVT_CHAN_COMPACT)
		return id >= EVT_COMPACT_ID_WIDE ? EVT_HDR_WIDE : EVT_HDR_SMALL;
	return id >= EVT_NORMAL_ID_EXT ? EVT_HDR_EXT : EVT_HDR_SMALL;
}

static inline __attribute__((always_inline))
unsigned int evt_hdr_len(unsigned int chan, unsigned int kind)
{
	if (kind == EVT_HDR_SMALL)
		return chan == EVT_CHAN_COMPACT ? EVT_COMPACT_HDR : EVT_NORMAL_HDR;
	if (kind == EVT_HDR_WIDE)
		return EVT_COMPACT_WIDE_HDR;
	return chan == EVT_CHAN_COMPACT ? EVT_COMPACT_EXT_HDR : EVT_NORMAL_EXT_HDR;
}

struct evt_subbuf {
	evt_local_t commit;		/* bytes committed, all laps: subbuf_size per lap */
	evt_local_t events;		/* events committed, all laps (never reset) */
	unsigned long delivered;	/* end position of the last delivered lap | SKIPPED */
	unsigned long events_delivered;	/* events, at the last delivery */
	unsigned long lap_events;	/* events of the last delivered lap */
	unsigned long data_end;		/* content bytes, set at switch-out */
	u64 ts_end;			/* timestamp_end, set at switch-out */
	u64 lost;			/* events_discarded total, set at switch-out */
	unsigned long dirty_end;	/* beyond it the sub-buffer's bytes are zero */
};

struct evt_ring;
typedef void (*evt_notify_fn)(struct evt_ring *ring, enum evt_ring_event why);

struct evt_ring {
	/* Writer side: touched on every event by the owning CPU only. */
	evt_local_t offset;
	u64 last_ts;
	char *mem;
	struct evt_subbuf *sb;
	unsigned long sb_mask;		/* subbuf_size - 1 */
	unsigned long ring_mask;	/* ring_size - 1 */
	unsigned int sb_shift;
	unsigned int ring_shift;
	unsigned int ts_bits;		/* 27 (compact) or 32 (normal) */
	unsigned int max_payload;
	u8 channel;
	u8 mode;
	u8 hw_pending;
	u8 discard_pending;
	u32 cpu;
	unsigned long num_subbuf;
	unsigned long subbuf_size;
	unsigned long ring_size;
	unsigned long hw_bytes;		/* high-water mark in unconsumed bytes */
	/* Positions, 0: none (enum evt_hold_kind). Read at sub-buffer switches only. */
	evt_atomic_t hold[EVT_NR_HOLDS];
	evt_local_t discarded;
	evt_local_t too_big;
	evt_local_t refused;
	evt_local_t overwritten;
	evt_local_t produced;
	evt_local_t skipped;
	evt_local_t filtered;		/* counted by the module: its task filter */
	u64 lost_reported;		/* events_discarded of the last closed packet */
	evt_notify_fn notify;
	void *priv;
	const u8 *uuid;

	/* Reader side, on its own cache line. */
	/* Next position to read, held slot, held flag: see EVT_CONSUMED_HELD. */
	evt_atomic_t consumed __attribute__((aligned(64)));
	unsigned long consumed_count;

	/* Serialises flushes from other CPUs while this ring's CPU is offline. */
	evt_lock_t remote_flush_lock;
};

/* Reservation context: from reserve to commit. */
struct evt_rctx {
	unsigned long pos;	/* where the event header starts (4-byte aligned) */
	unsigned long len;	/* bytes reserved: padding before the header, header, payload */
	u64 ts;
	unsigned int kind;	/* enum evt_hdr_kind */
};

struct evt_ring_params {
	unsigned long subbuf_size;	/* power of two, > packet header */
	unsigned long num_subbuf;	/* power of two, >= 2 */
	enum evt_channel channel;
	enum evt_mode mode;
	unsigned int high_water;	/* percent, 1..100 */
	u32 cpu;
	const u8 *uuid;			/* 16 bytes, kept by reference */
	evt_notify_fn notify;
	void *priv;
};

/* Bytes of memory a ring's data needs (the caller allocates it). */
static inline unsigned long evt_ring_mem_size(const struct evt_ring_params *p)
{
	return p->subbuf_size * p->num_subbuf;
}

int evt_ring_check_params(const struct evt_ring_params *p);
void evt_ring_init(struct evt_ring *r, const struct evt_ring_params *p,
		   char *mem, struct evt_subbuf *sb);
void evt_ring_set_mode(struct evt_ring *r, enum evt_mode mode);
void evt_ring_set_high_water(struct evt_ring *r, unsigned int pct);

int evt_reserve_slow(struct evt_ring *r, unsigned int id, unsigned int payload,
		     struct evt_rctx *c, unsigned long o, u64 ts);
void evt_deliver(struct evt_ring *r, unsigned long sb_pos);
int evt_ring_flush(struct evt_ring *r);
int evt_ring_flush_remote(struct evt_ring *r);

int evt_ring_get(struct evt_ring *r, unsigned long *pos);
int evt_ring_get_below(struct evt_ring *r, unsigned long *pos, unsigned long limit);
void evt_ring_hold(struct evt_ring *r, enum evt_hold_kind kind, unsigned long limit);
int evt_ring_hold_reached(struct evt_ring *r, enum evt_hold_kind kind, unsigned long reached);
void evt_ring_hold_release(struct evt_ring *r, enum evt_hold_kind kind);
unsigned long evt_ring_held(struct evt_ring *r, enum evt_hold_kind kind);
int evt_ring_flush_hold(struct evt_ring *r, int kind, unsigned long *bound);
int evt_ring_flush_remote_hold(struct evt_ring *r, int kind, unsigned long *bound);
void evt_ring_put(struct evt_ring *r, unsigned long pos);
void evt_ring_stats(struct evt_ring *r, struct evt_ring_stats *st);
unsigned int evt_ring_fill_pct(struct evt_ring *r);
int evt_ring_has_data(struct evt_ring *r);

/* The clock as the ring's events see it: never behind its last one. */
EVT_INLINE u64 evt_ring_clock(struct evt_ring *r)
{
	u64 ts = evt_clock(), last = EVT_READ_ONCE(r->last_ts);

	return ts < last ? last : ts;
}

static inline const struct evt_packet_header *
evt_ring_packet(struct evt_ring *r, unsigned long pos)
{
	return (const struct evt_packet_header *)(r->mem + (pos & r->ring_mask));
}

static inline unsigned long evt_align4(unsigned long x)
{
	return (x + EVT_EVENT_ALIGN - 1) & ~(EVT_EVENT_ALIGN - 1);
}

static inline void evt_put_u16(char *p, u16 v) { memcpy(p, &v, 2); }
static inline void evt_put_u32(char *p, u32 v) { memcpy(p, &v, 4); }
static inline void evt_put_u64(char *p, u64 v) { memcpy(p, &v, 8); }

/*
 * Zero the alignment padding before an event header at offset @o (the
 * reservation's start): no stale bytes in a trace. Four bytes from @o are
 * the reservation's own (padding, then the header written over next), so
 * one store does it.
 */
EVT_INLINE void evt_zero_pad(struct evt_ring *r, unsigned long o)
{
	if (evt_unlikely(o & (EVT_EVENT_ALIGN - 1)))
		evt_put_u32(r->mem + (o & r->ring_mask), 0);
}

/**
 * evt_reserve_ch() - reserve room for one event in the current sub-buffer
 * @r: the ring of the current CPU (preemption disabled by the caller)
 * @chan: the ring's channel (a constant in probes: r->channel)
 * @id: event id (ids beyond the small header's take a wide or extended one)
 * @payload: payload bytes
 * @c: filled in for evt_write_header() and evt_commit()
 *
 * Return: 0, or -ENOBUFS (discarded), -E2BIG (too big); both counted.
 */
EVT_INLINE int evt_reserve_ch(struct evt_ring *r, unsigned int chan, unsigned int id,
			      unsigned int payload, struct evt_rctx *c)
{
	unsigned long o, in_sb, end_in_sb;
	unsigned int kind;
	u64 ts, last;

	do {
		o = evt_local_read(&r->offset);
		last = EVT_READ_ONCE(r->last_ts);
		ts = evt_clock();
		/*
		 * Never behind the ring's last event: the clock may step back
		 * (an NMI's reading during a timekeeping update can be ahead of
		 * later ones), and a compact event would decode 2^27 ns late.
		 */
		if (evt_unlikely(ts < last))
			ts = last;
		/* A full timestamp whenever the bits above the field changed. */
		kind = evt_hdr_kind(chan, id, ((ts ^ last) >> r->ts_bits) != 0);
		in_sb = o & r->sb_mask;
		/*
		 * Alignment padding goes before the header, so the offset is
		 * always the exact end of the last event: content_size is exact.
		 */
		end_in_sb = evt_align4(in_sb) + evt_hdr_len(chan, kind) + payload;
		/* Events never end exactly on a boundary: only a switch-out does. */
		if (evt_unlikely(in_sb == 0 || end_in_sb >= r->subbuf_size))
			return evt_reserve_slow(r, id, payload, c, o, ts);
		EVT_HOOK(RESERVE_BEFORE_CMPXCHG, r);
	} while (evt_local_cmpxchg(&r->offset, o, o - in_sb + end_in_sb) != (long)o);
	EVT_HOOK(RESERVE_AFTER_CMPXCHG, r);
	EVT_WRITE_ONCE(r->last_ts, ts);
	evt_zero_pad(r, o);
	c->pos = o - in_sb + evt_align4(in_sb);
	c->len = end_in_sb - in_sb;
	c->ts = ts;
	c->kind = kind;
	return 0;
}

EVT_INLINE int evt_reserve(struct evt_ring *r, unsigned int id,
			   unsigned int payload, struct evt_rctx *c)
{
	return evt_reserve_ch(r, r->channel, id, payload, c);
}

/**
 * evt_write_header_ch() - write the event header of a reservation
 * @r: the ring
 * @chan: its channel (a constant in probes: r->channel)
 * @c: the reservation
 * @id: event id
 * @payload: payload bytes (the normal header records it)
 *
 * Return: where the payload goes.
 */
EVT_INLINE char *evt_write_header_ch(struct evt_ring *r, unsigned int chan, const struct evt_rctx *c,
				     unsigned int id, unsigned int payload)
{
	char *p = r->mem + (c->pos & r->ring_mask);

	if (chan == EVT_CHAN_COMPACT) {
		if (evt_likely(c->kind == EVT_HDR_SMALL)) {
			evt_put_u32(p, id | ((u32)c->ts << EVT_COMPACT_ID_BITS));
			return p + EVT_COMPACT_HDR;
		}
		if (c->kind == EVT_HDR_WIDE) {
			evt_put_u32(p, EVT_COMPACT_ID_WIDE | ((u32)c->ts << EVT_COMPACT_ID_BITS));
			evt_put_u32(p + 4, id);
			return p + EVT_COMPACT_WIDE_HDR;
		}
		evt_put_u32(p, EVT_COMPACT_ID_EXT);
		evt_put_u32(p + 4, id);
		evt_put_u64(p + 8, c->ts);
		return p + EVT_COMPACT_EXT_HDR;
	}
	evt_put_u16(p + 2, (u16)payload);
	if (evt_likely(c->kind == EVT_HDR_SMALL)) {
		evt_put_u16(p, (u16)id);
		evt_put_u32(p + 4, (u32)c->ts);
		return p + EVT_NORMAL_HDR;
	}
	evt_put_u16(p, (u16)EVT_NORMAL_ID_EXT);
	evt_put_u32(p + 4, id);
	evt_put_u64(p + 8, c->ts);
	return p + EVT_NORMAL_EXT_HDR;
}

EVT_INLINE char *evt_write_header(struct evt_ring *r, const struct evt_rctx *c,
				  unsigned int id, unsigned int payload)
{
	return evt_write_header_ch(r, r->channel, c, id, payload);
}

/**
 * evt_commit() - publish a written event
 * @r: the ring
 * @c: the reservation
 */
EVT_INLINE void evt_commit(struct evt_ring *r, const struct evt_rctx *c)
{
	struct evt_subbuf *sb = &r->sb[(c->pos & r->ring_mask) >> r->sb_shift];

	/* c->pos and the padding before it lie in the same sub-buffer. */

	/* Also the ring's recorded count: evt_ring_stats() sums them. */
	evt_local_inc(&sb->events);
	EVT_HOOK(COMMIT, r);
	/* Payload stores before the commit count, for the delivering committer. */
	evt_barrier();
	/*
	 * The count reaches a multiple of subbuf_size only when its lap is
	 * whole: the lap starts at one, every event adds at least a header,
	 * and no event of the next lap commits before this one is delivered.
	 */
	if (evt_unlikely(!((unsigned long)evt_local_add_return(c->len, &sb->commit) & r->sb_mask)))
		evt_deliver(r, c->pos & ~r->sb_mask);
}

/* One call: reserve, copy a contiguous payload, commit (@chan: r->channel). */
EVT_INLINE int evt_record_copy_ch(struct evt_ring *r, unsigned int chan, unsigned int id,
				  const void *payload, unsigned int len)
{
	struct evt_rctx c;
	char *p;
	int ret = evt_reserve_ch(r, chan, id, len, &c);

	if (evt_unlikely(ret))
		return ret;
	p = evt_write_header_ch(r, chan, &c, id, len);
	if (len)
		memcpy(p, payload, len);
	evt_commit(r, &c);
	return 0;
}

EVT_INLINE int evt_record_copy(struct evt_ring *r, unsigned int id,
			       const void *payload, unsigned int len)
{
	return evt_record_copy_ch(r, r->channel, id, payload, len);
}

#endif /* EVT_RING_H */
