// SPDX-License-Identifier: GPL-2.0
/*
 * The portable ring-buffer core: sub-buffer switches, delivery, the reader's
 * side and accounting. See evt_ring.h for the model.
 */
#include "evt_ring.h"

#ifdef EVT_TEST_HOOKS
void (*evt_test_hook)(unsigned int point, struct evt_ring *r);
#endif

static unsigned int evt_ilog2(unsigned long v)
{
	unsigned int s = 0;

	while ((1UL << s) < v)
		s++;
	return s;
}

static int evt_is_pow2(unsigned long v)
{
	return v && !(v & (v - 1));
}

/**
 * evt_ring_check_params() - validate ring geometry
 * @p: parameters
 *
 * Return: 0 or -EINVAL.
 */
int evt_ring_check_params(const struct evt_ring_params *p)
{
	if (!evt_is_pow2(p->subbuf_size) || p->subbuf_size < EVT_SUBBUF_SIZE_MIN ||
	    p->subbuf_size > EVT_SUBBUF_SIZE_MAX)
		return -EINVAL;
	if (!evt_is_pow2(p->num_subbuf) || p->num_subbuf < EVT_NUM_SUBBUF_MIN ||
	    p->num_subbuf > EVT_NUM_SUBBUF_MAX)
		return -EINVAL;
	if (p->high_water < EVT_HIGH_WATER_MIN || p->high_water > EVT_HIGH_WATER_MAX)
		return -EINVAL;
	if (p->channel != EVT_CHAN_COMPACT && p->channel != EVT_CHAN_NORMAL)
		return -EINVAL;
	return 0;
}

void evt_ring_set_high_water(struct evt_ring *r, unsigned int pct)
{
	r->hw_bytes = r->ring_size / 100 * pct + (r->ring_size % 100) * pct / 100;
}

void evt_ring_set_mode(struct evt_ring *r, enum evt_mode mode)
{
	r->mode = (u8)mode;
}

/**
 * evt_ring_init() - set up a ring over caller-provided memory
 * @r: the ring
 * @p: parameters (checked with evt_ring_check_params())
 * @mem: evt_ring_mem_size(p) bytes
 * @sb: p->num_subbuf sub-buffer records
 */
void evt_ring_init(struct evt_ring *r, const struct evt_ring_params *p,
		   char *mem, struct evt_subbuf *sb)
{
	unsigned long i;

	memset(r, 0, sizeof(*r));
	evt_lock_init(&r->remote_flush_lock);
	r->mem = mem;
	r->sb = sb;
	r->subbuf_size = p->subbuf_size;
	r->num_subbuf = p->num_subbuf;
	r->ring_size = p->subbuf_size * p->num_subbuf;
	r->sb_mask = p->subbuf_size - 1;
	r->ring_mask = r->ring_size - 1;
	r->sb_shift = evt_ilog2(p->subbuf_size);
	r->ring_shift = evt_ilog2(r->ring_size);
	r->channel = (u8)p->channel;
	r->mode = (u8)p->mode;
	r->cpu = p->cpu;
	r->uuid = p->uuid;
	r->notify = p->notify;
	r->priv = p->priv;
	evt_ring_set_high_water(r, p->high_water);
	r->ts_bits = p->channel == EVT_CHAN_COMPACT ? EVT_COMPACT_TS_BITS : EVT_NORMAL_TS_BITS;
	/* Room for the packet header, an extended header, and no exact fill. */
	r->max_payload = (unsigned int)(r->subbuf_size - EVT_PACKET_HEADER_SIZE -
					evt_hdr_len(r->channel, EVT_HDR_EXT) - EVT_EVENT_ALIGN);
	if (p->channel == EVT_CHAN_NORMAL && r->max_payload > EVT_NORMAL_MAX_PAYLOAD)
		r->max_payload = EVT_NORMAL_MAX_PAYLOAD;
	for (i = 0; i < r->num_subbuf; i++) {
		evt_local_set(&sb[i].commit, 0);
		evt_local_set(&sb[i].events, 0);
		sb[i].delivered = 0;
		sb[i].events_delivered = 0;
		sb[i].lap_events = 0;
		/* Whatever the memory held: the first switch-out zeroes its tail. */
		sb[i].dirty_end = r->subbuf_size;
	}
}

/* The reader's next position in a consumed word. */
static unsigned long evt_cons_pos(const struct evt_ring *r, unsigned long v)
{
	return (v >> EVT_CONSUMED_POS_SHIFT) << r->sb_shift;
}

/* A consumed word: next position @pos, nothing held. */
static unsigned long evt_cons_word(const struct evt_ring *r, unsigned long pos)
{
	return (pos >> r->sb_shift) << EVT_CONSUMED_POS_SHIFT;
}

static unsigned long evt_cons_held_slot(unsigned long v)
{
	return (v >> EVT_CONSUMED_SLOT_SHIFT) & (EVT_NUM_SUBBUF_MAX - 1UL);
}

static u64 evt_lost_total(struct evt_ring *r)
{
	return (u64)evt_local_read(&r->discarded) + (u64)evt_local_read(&r->too_big) +
	       (u64)evt_local_read(&r->refused);
}

/* Add committed bytes to a sub-buffer; deliver it when its lap is whole. */
static void evt_commit_bytes(struct evt_ring *r, unsigned long sb_pos, unsigned long bytes)
{
	struct evt_subbuf *sb = &r->sb[(sb_pos >> r->sb_shift) & (r->num_subbuf - 1)];
	unsigned long full = ((sb_pos >> r->ring_shift) + 1) << r->sb_shift;

	evt_barrier();
	if ((unsigned long)evt_local_add_return((long)bytes, &sb->commit) == full)
		evt_deliver(r, sb_pos);
}

/**
 * evt_deliver() - close a fully committed sub-buffer and hand it to the reader
 * @r: the ring
 * @sb_pos: position of the sub-buffer's start
 *
 * Called exactly once per lap, by whichever committer completed it. Until
 * it publishes the lap (the store of sb->delivered), nobody reopens the
 * sub-buffer (evt_switch_in_check()): it has the sub-buffer to itself.
 */
void evt_deliver(struct evt_ring *r, unsigned long sb_pos)
{
	struct evt_subbuf *sb = &r->sb[(sb_pos >> r->sb_shift) & (r->num_subbuf - 1)];
	struct evt_packet_header *h = (struct evt_packet_header *)(r->mem + (sb_pos & r->ring_mask));
	unsigned long events;

	EVT_HOOK(DELIVER_BEGIN, r);
	h->timestamp_end = sb->ts_end;
	h->content_size = (u64)sb->data_end * 8;
	h->events_discarded = sb->lost;
	/*
	 * The lap's own count, for overwrite accounting: each of its events
	 * was counted before its commit, and none of the next lap can be yet,
	 * as nobody opens it before the publication below.
	 */
	events = (unsigned long)evt_local_read(&sb->events);
	sb->lap_events = events - sb->events_delivered;
	sb->events_delivered = events;
	evt_local_inc(&r->produced);
	EVT_HOOK(DELIVER_PUBLISH, r);
	/* The packet's bytes (and the lap's count) before its publication. */
	evt_smp_wmb();
	EVT_WRITE_ONCE(sb->delivered, sb_pos + r->subbuf_size);
	EVT_HOOK(DELIVER_END, r);
}

/*
 * Close the open sub-buffer at write offset @o (already moved past it).
 * @lost is the loss total read before the offset moved: any packet after
 * this one is closed later and reads a total at least as large, so
 * events_discarded never goes back from one packet to the next (read
 * here, an interrupt's losses after it closed the next packet would).
 */
static void evt_switch_out(struct evt_ring *r, unsigned long o, u64 ts, u64 lost)
{
	unsigned long sb_pos = o & ~r->sb_mask;
	unsigned long in_sb = o & r->sb_mask;
	struct evt_subbuf *sb = &r->sb[(sb_pos >> r->sb_shift) & (r->num_subbuf - 1)];

	/*
	 * Readers get the whole sub-buffer: what an older lap left after this
	 * lap's content is zeroed (each byte written is zeroed at most once).
	 * No writer can reserve there any more, and the lap is not delivered
	 * before this switch-out commits.
	 */
	if (in_sb < sb->dirty_end)
		memset(r->mem + (sb_pos & r->ring_mask) + in_sb, 0, sb->dirty_end - in_sb);
	sb->dirty_end = in_sb;
	sb->data_end = in_sb;
	sb->ts_end = ts;
	sb->lost = lost;
	/* What a flush has to carry, if a later packet did not already. */
	if (lost > EVT_READ_ONCE(r->lost_reported))
		EVT_WRITE_ONCE(r->lost_reported, lost);
	EVT_HOOK(SWITCH_OUT, r);
	evt_commit_bytes(r, sb_pos, r->subbuf_size - in_sb);
}

/* Open the sub-buffer at @sb_pos: packet header, then commit it. */
static void evt_switch_in(struct evt_ring *r, unsigned long sb_pos, u64 ts)
{
	struct evt_packet_header *h = (struct evt_packet_header *)(r->mem + (sb_pos & r->ring_mask));

	EVT_HOOK(SWITCH_IN, r);
	h->magic = EVT_CTF_MAGIC;
	if (r->uuid)
		memcpy(h->uuid, r->uuid, 16);
	else
		memset(h->uuid, 0, 16);
	h->stream_id = r->channel;
	h->stream_instance_id = r->cpu;
	h->timestamp_begin = ts;
	h->timestamp_end = ts;
	h->content_size = 0;
	h->packet_size = (u64)r->subbuf_size * 8;
	/* Positions count sub-buffers: a lost packet is a sequence gap. */
	h->packet_seq_num = sb_pos >> r->sb_shift;
	h->events_discarded = 0;
	h->cpu_id = r->cpu;
	EVT_HOOK(SWITCH_IN_COMMIT, r);
	evt_commit_bytes(r, sb_pos, EVT_PACKET_HEADER_SIZE);
}

/* The higher of the holds: the writer honours the stricter. */
static unsigned long evt_hold_max(struct evt_ring *r)
{
	unsigned long a = (unsigned long)evt_atomic_read(&r->hold[EVT_HOLD_SNAPSHOT]);
	unsigned long b = (unsigned long)evt_atomic_read(&r->hold[EVT_HOLD_TRIGGER]);

	return a > b ? a : b;
}

/*
 * May the writer open the sub-buffer at *@sb_pos? Its previous lap, at
 * old = pos - ring_size, must be delivered, and read already or, in
 * overwrite mode, taken from the reader: the reader's next position moves
 * past it with one cmpxchg on the consumed word, which is where the reader
 * claims a sub-buffer too, so exactly one of them wins and the loss is
 * counted once.
 * The sub-buffer the reader holds is skipped instead, as the QNX System
 * Analysis Toolkit's "Kernel buffer management" chapter has it (see
 * docs/references.md): skip the drainer's buffer, overwrite the next one;
 * its slot is in the same word, so the decision and the cmpxchg see one
 * state of the reader.
 * Returns 0 (and *@skip_pos) or -ENOBUFS.
 */
static int evt_switch_in_check(struct evt_ring *r, unsigned long *sb_pos,
			       unsigned long *skip_pos)
{
	unsigned long start = *sb_pos, pos = start, idx, old, v, lost;

	*skip_pos = 0;
	for (;;) {
		idx = (pos >> r->sb_shift) & (r->num_subbuf - 1);
		/*
		 * Its previous lap must be delivered, not merely whole: between
		 * the commit count saying whole and the store of delivered, the
		 * deliverer writes the closing fields and the lap's count; had
		 * an interrupt reopened the sub-buffer meanwhile, they would
		 * land on its new lap and delivered would move back (the reader
		 * stuck before a complete packet, events neither read nor
		 * counted). lttng-modules closes the same window with a second
		 * commit-count cmpxchg at delivery; here the deliverer's own
		 * last store is the sign, and no count overshoots a lap.
		 */
		if (pos >= r->ring_size &&
		    (EVT_READ_ONCE(r->sb[idx].delivered) & ~EVT_SB_SKIPPED) !=
		    pos - r->ring_size + r->subbuf_size)
			return -ENOBUFS;
		v = (unsigned long)evt_atomic_read(&r->consumed);
		/*
		 * Never into the slot the reader holds, even when its next
		 * position has moved past it: a writer interrupted after it took
		 * the lap beyond (or an interrupt's flush) comes back here.
		 */
		if ((v & EVT_CONSUMED_HELD) && evt_cons_held_slot(v) == idx) {
			if (*skip_pos) {
				/*
				 * The reader released the sub-buffer skipped
				 * and took the next one meanwhile: start over.
				 */
				*skip_pos = 0;
				pos = start;
				continue;
			}
			/* Any lap of the sub-buffer the reader holds is skipped. */
			*skip_pos = pos;
			pos += r->subbuf_size;
			continue;
		}
		if (pos < r->ring_size || evt_cons_pos(r, v) > pos - r->ring_size)
			break;
		old = pos - r->ring_size;
		if (r->mode != EVT_MODE_OVERWRITE)
			return -ENOBUFS;
		EVT_HOOK(HOLD_CHECK, r);
		/*
		 * A snapshot reads up to its hold: what it will read is not
		 * taken. The holds after the word: a hold raised since flipped
		 * it (evt_ring_hold()), and the cmpxchg below fails.
		 */
		evt_smp_rmb();
		if (old < evt_hold_max(r))
			return -ENOBUFS;
		/*
		 * The lap's count, read before the lap is taken: once it is,
		 * an interrupt may open and deliver the next lap; before, doing
		 * so moves consumed first, and the cmpxchg below fails.
		 */
		lost = EVT_READ_ONCE(r->sb[idx].lap_events);
		EVT_HOOK(CHECK_BEFORE_TAKE, r);
		if ((unsigned long)evt_atomic_cmpxchg(&r->consumed, (long)v,
				(long)(evt_cons_word(r, old + r->subbuf_size) |
				       (v & ~(~0UL << EVT_CONSUMED_POS_SHIFT)))) != v)
			continue;
		/* Taken from the reader: its events are lost, counted here once. */
		evt_local_add_return((long)lost, &r->overwritten);
		EVT_HOOK(CHECK_AFTER_TAKE, r);
		break;
	}
	*sb_pos = pos;
	return 0;
}

/*
 * Account a skipped lap as whole without delivering it: the reader still
 * holds the previous lap's packet there.
 */
static void evt_mark_skipped(struct evt_ring *r, unsigned long skip_pos)
{
	struct evt_subbuf *sb = &r->sb[(skip_pos >> r->sb_shift) & (r->num_subbuf - 1)];

	EVT_HOOK(MARK_SKIPPED, r);
	evt_local_inc(&r->skipped);
	/* The lap holds no event: taking it later from the reader loses none. */
	sb->lap_events = 0;
	evt_local_add_return((long)r->subbuf_size, &sb->commit);
	EVT_WRITE_ONCE(sb->delivered, (skip_pos + r->subbuf_size) | EVT_SB_SKIPPED);
}

static void evt_check_high_water(struct evt_ring *r, unsigned long end)
{
	unsigned long c = evt_cons_pos(r, (unsigned long)evt_atomic_read(&r->consumed));

	if (end - c >= r->hw_bytes && !EVT_READ_ONCE(r->hw_pending)) {
		EVT_WRITE_ONCE(r->hw_pending, 1);
		if (r->notify)
			r->notify(r, EVT_RING_HIGH_WATER);
	}
}

/**
 * evt_reserve_slow() - reservation that needs a sub-buffer switch
 * @r: the ring
 * @id: event id
 * @payload: payload bytes
 * @c: reservation context
 * @o: the write offset the fast path read
 * @ts: the clock it read after that
 *
 * Return: 0, -ENOBUFS (discarded) or -E2BIG (too big); both counted.
 */
int evt_reserve_slow(struct evt_ring *r, unsigned int id, unsigned int payload,
		     struct evt_rctx *c, unsigned long o, u64 ts)
{
	unsigned long in_sb, new_sb, skip_pos, end_in_sb;
	unsigned int kind;
	int first = 1;
	u64 lost;

	if (payload > r->max_payload) {
		evt_local_inc(&r->too_big);
		return -E2BIG;
	}
	for (;; first = 0) {
		/* The first try uses what the fast path read: one clock read. */
		if (!first) {
			o = (unsigned long)evt_local_read(&r->offset);
			ts = evt_ring_clock(r);
		}
		in_sb = o & r->sb_mask;
		kind = evt_hdr_kind(r->channel, id, ((ts ^ EVT_READ_ONCE(r->last_ts)) >> r->ts_bits) != 0);
		end_in_sb = evt_align4(in_sb) + evt_hdr_len(r->channel, kind) + payload;
		if (in_sb != 0 && end_in_sb < r->subbuf_size) {
			/* Another writer switched for us meanwhile. */
			EVT_HOOK(SLOW_RETRY_BEFORE_CMPXCHG, r);
			if (evt_local_cmpxchg(&r->offset, (long)o, (long)(o - in_sb + end_in_sb)) != (long)o)
				continue;
			EVT_HOOK(SLOW_RETRY_AFTER_CMPXCHG, r);
			EVT_WRITE_ONCE(r->last_ts, ts);
			evt_zero_pad(r, o);
			c->pos = o - in_sb + evt_align4(in_sb);
			c->len = end_in_sb - in_sb;
			break;
		}
		new_sb = in_sb ? (o | r->sb_mask) + 1 : o;
		if (evt_switch_in_check(r, &new_sb, &skip_pos)) {
			/* Judged on a stale offset (an interrupt switched): look again. */
			if ((unsigned long)evt_local_read(&r->offset) != o)
				continue;
			evt_local_inc(&r->discarded);
			if (!EVT_READ_ONCE(r->discard_pending)) {
				EVT_WRITE_ONCE(r->discard_pending, 1);
				if (r->notify)
					r->notify(r, EVT_RING_DISCARDING);
			}
			return -ENOBUFS;
		}
		/* First event of a packet: timestamp_begin is its reference. */
		kind = evt_hdr_kind(r->channel, id, 0);
		end_in_sb = EVT_PACKET_HEADER_SIZE + evt_hdr_len(r->channel, kind) + payload;
		lost = evt_lost_total(r);
		EVT_HOOK(SLOW_BEFORE_CMPXCHG, r);
		if (evt_local_cmpxchg(&r->offset, (long)o, (long)(new_sb + end_in_sb)) != (long)o)
			continue;
		EVT_HOOK(SLOW_AFTER_CMPXCHG, r);
		EVT_WRITE_ONCE(r->last_ts, ts);
		if (in_sb)
			evt_switch_out(r, o, ts, lost);
		if (skip_pos)
			evt_mark_skipped(r, skip_pos);
		evt_switch_in(r, new_sb, ts);
		evt_check_high_water(r, new_sb);
		c->pos = new_sb + EVT_PACKET_HEADER_SIZE;
		c->len = end_in_sb - EVT_PACKET_HEADER_SIZE;
		break;
	}
	c->ts = ts;
	c->kind = kind;
	return 0;
}

/**
 * evt_ring_flush() - close the open sub-buffer if it holds events
 * @r: the ring, on its own CPU (preemption or interrupts disabled); with
 *     that CPU offline, only through evt_ring_flush_remote()
 *
 * Losses not yet reported in a packet (events discarded after the last
 * switch-out) are carried by a packet too, an empty one if need be and if
 * there is room, so that readers see every loss.
 *
 * Return: 1 when a sub-buffer was closed, else 0.
 */
int evt_ring_flush(struct evt_ring *r)
{
	unsigned long o, in_sb, new_sb, skip_pos;
	int unreported;
	u64 ts, lost;

	for (;;) {
		o = (unsigned long)evt_local_read(&r->offset);
		ts = evt_ring_clock(r);
		in_sb = o & r->sb_mask;
		lost = evt_lost_total(r);
		unreported = lost != EVT_READ_ONCE(r->lost_reported);
		if (in_sb == 0) {
			if (!unreported)
				return 0;
			/* Open a packet to carry the losses; closed on the next pass. */
			new_sb = o;
			if (evt_switch_in_check(r, &new_sb, &skip_pos))
				return 0;
			EVT_HOOK(FLUSH_OPEN_BEFORE_CMPXCHG, r);
			if (evt_local_cmpxchg(&r->offset, (long)o,
					      (long)(new_sb + EVT_PACKET_HEADER_SIZE)) != (long)o)
				continue;
			EVT_HOOK(FLUSH_OPEN_AFTER_CMPXCHG, r);
			EVT_WRITE_ONCE(r->last_ts, ts);
			if (skip_pos)
				evt_mark_skipped(r, skip_pos);
			evt_switch_in(r, new_sb, ts);
			continue;
		}
		if (in_sb <= EVT_PACKET_HEADER_SIZE && !unreported)
			return 0;
		EVT_HOOK(FLUSH_BEFORE_CMPXCHG, r);
		if (evt_local_cmpxchg(&r->offset, (long)o, (long)((o | r->sb_mask) + 1)) == (long)o)
			break;
	}
	EVT_HOOK(FLUSH_AFTER_CMPXCHG, r);
	/* Later events, and the next packet, begin no earlier than this one ends. */
	EVT_WRITE_ONCE(r->last_ts, ts);
	evt_switch_out(r, o, ts, lost);
	return 1;
}

/**
 * evt_ring_flush_remote() - evt_ring_flush() for a ring whose CPU is offline
 * @r: the ring
 *
 * With its CPU offline, any CPU may flush a ring, several at once (they
 * share cpus_read_lock()). The ring's CPU-local operations are atomic only
 * against their own CPU: two flushers could both close one sub-buffer (its
 * commit count passes the lap: never delivered, the ring wedged) or lose
 * a counter update. Every flush of a ring whose CPU is offline must come
 * here: they are serialised. The caller keeps the CPU offline meanwhile
 * (cpus_read_lock()); the owning CPU's own flushes need no lock.
 *
 * Context: process context; spins with preemption disabled.
 * Return: as evt_ring_flush().
 */
int evt_ring_flush_remote(struct evt_ring *r)
{
	int ret;

	evt_lock(&r->remote_flush_lock);
	ret = evt_ring_flush(r);
	evt_unlock(&r->remote_flush_lock);
	return ret;
}

/**
 * evt_ring_get_below() - take the oldest delivered sub-buffer that begins
 * before a bound
 * @r: the ring
 * @pos: its position, for evt_ring_packet() and evt_ring_put()
 * @limit: a position; a sub-buffer at or past it is not taken
 *
 * A snapshot reads up to the write position a flush left (its bound), so
 * that a reader never chases a writer that keeps producing: the reader's
 * next position only grows (it reads, or an overwriting writer moves it),
 * and stops at @limit.
 *
 * Return: 0, -ENODATA when the reader's next position reached @limit,
 * -EAGAIN when the sub-buffer there is not complete, -EBUSY when one is
 * held already.
 */
int evt_ring_get_below(struct evt_ring *r, unsigned long *pos, unsigned long limit)
{
	unsigned long v, c, d, idx;

	for (;;) {
		v = (unsigned long)evt_atomic_read(&r->consumed);
		if (v & EVT_CONSUMED_HELD)
			return -EBUSY;
		c = evt_cons_pos(r, v);
		if (c >= limit)
			return -ENODATA;
		idx = (c >> r->sb_shift) & (r->num_subbuf - 1);
		d = EVT_READ_ONCE(r->sb[idx].delivered);
		evt_smp_rmb();
		if (d == ((c + r->subbuf_size) | EVT_SB_SKIPPED)) {
			/* The writer skipped this lap while we held the previous one. */
			evt_atomic_cmpxchg(&r->consumed, (long)v,
					   (long)evt_cons_word(r, c + r->subbuf_size));
			continue;
		}
		d &= ~EVT_SB_SKIPPED;
		if (d < c + r->subbuf_size)
			return -EAGAIN;
		if (d > c + r->subbuf_size) {
			/*
			 * A later lap is there. Had the writer overwritten the lap
			 * at c it would have moved consumed first; unmoved, the lap
			 * at c was a skip that a later skip replaced: step over it.
			 */
			evt_atomic_cmpxchg(&r->consumed, (long)v,
					   (long)evt_cons_word(r, c + r->subbuf_size));
			continue;
		}
		/* The claim: from here the writer skips this sub-buffer. */
		EVT_HOOK(GET, r);
		if ((unsigned long)evt_atomic_cmpxchg(&r->consumed, (long)v,
				(long)(v | (idx << EVT_CONSUMED_SLOT_SHIFT) | EVT_CONSUMED_HELD)) != v)
			continue;
		*pos = c;
		return 0;
	}
}

/**
 * evt_ring_hold() - keep the packets below a position for a reader
 * @r: the ring
 * @kind: whose hold (enum evt_hold_kind)
 * @limit: a position (a snapshot's bound); a hold of @kind already at or
 *	above it stays as it is
 *
 * Until released, an overwriting writer that would take a lap below the
 * highest hold from the reader discards its event instead (counted as
 * discarded), so a snapshot reads every packet the flush before it closed,
 * however fast the writer goes. Any context; lock-free.
 */
void evt_ring_hold(struct evt_ring *r, enum evt_hold_kind kind, unsigned long limit)
{
	unsigned long cur, v;

	for (;;) {
		cur = (unsigned long)evt_atomic_read(&r->hold[kind]);
		if (cur >= limit)
			return;
		EVT_HOOK(HOLD_SET, r);
		if ((unsigned long)evt_atomic_cmpxchg(&r->hold[kind], (long)cur, (long)limit) == cur)
			break;
	}
	/* A writer that read the holds before this one fails its cmpxchg on the word. */
	do
		v = (unsigned long)evt_atomic_read(&r->consumed);
	while ((unsigned long)evt_atomic_cmpxchg(&r->consumed, (long)v,
						 (long)(v ^ EVT_CONSUMED_HOLD_FLIP)) != v);
}

/**
 * evt_ring_hold_reached() - a reader got to @reached: release a hold it covers
 * @r: the ring
 * @kind: whose hold
 * @reached: the reader's position (its bound, where it found nothing more)
 *
 * A hold above @reached (raised since, by a later snapshot or trigger)
 * stays. Lock-free.
 *
 * Return: 1 when a hold of @kind was released.
 */
int evt_ring_hold_reached(struct evt_ring *r, enum evt_hold_kind kind, unsigned long reached)
{
	unsigned long cur;

	for (;;) {
		cur = (unsigned long)evt_atomic_read(&r->hold[kind]);
		if (!cur || cur > reached)
			return 0;
		EVT_HOOK(HOLD_REACHED, r);
		if ((unsigned long)evt_atomic_cmpxchg(&r->hold[kind], (long)cur, 0) == cur)
			return 1;
	}
}

/**
 * evt_ring_hold_release() - release a hold whatever it is (its owner's rule)
 * @r: the ring
 * @kind: whose hold
 */
void evt_ring_hold_release(struct evt_ring *r, enum evt_hold_kind kind)
{
	evt_atomic_set(&r->hold[kind], 0);
}

/**
 * evt_ring_held() - the position a hold keeps the ring below
 * @r: the ring
 * @kind: whose hold
 *
 * Return: the position, 0 when not held.
 */
unsigned long evt_ring_held(struct evt_ring *r, enum evt_hold_kind kind)
{
	return (unsigned long)evt_atomic_read(&r->hold[kind]);
}

/**
 * evt_ring_flush_hold() - close the open sub-buffer, hold the ring below it
 * @r: the ring, on its own CPU (that CPU offline: evt_ring_flush_remote_hold())
 * @kind: the hold to raise to the bound (enum evt_hold_kind), or -1: none
 * @bound: set to the packet_seq_num of the sub-buffer open now: every packet
 *	below it is closed
 *
 * On the ring's own CPU, so that a writer it interrupted, which may have
 * read the holds already, finds the word flipped and reads them again.
 *
 * Return: as evt_ring_flush().
 */
int evt_ring_flush_hold(struct evt_ring *r, int kind, unsigned long *bound)
{
	int flushed = evt_ring_flush(r);

	*bound = (unsigned long)evt_local_read(&r->offset) >> r->sb_shift;
	if (kind >= 0 && kind < EVT_NR_HOLDS)
		evt_ring_hold(r, (enum evt_hold_kind)kind, *bound << r->sb_shift);
	return flushed;
}

/**
 * evt_ring_flush_remote_hold() - evt_ring_flush_hold() for a ring whose CPU is offline
 * @r: the ring
 * @kind: as evt_ring_flush_hold()
 * @bound: as evt_ring_flush_hold()
 *
 * Context: as evt_ring_flush_remote().
 * Return: as evt_ring_flush().
 */
int evt_ring_flush_remote_hold(struct evt_ring *r, int kind, unsigned long *bound)
{
	int ret;

	evt_lock(&r->remote_flush_lock);
	ret = evt_ring_flush_hold(r, kind, bound);
	evt_unlock(&r->remote_flush_lock);
	return ret;
}

/**
 * evt_ring_get() - take the oldest delivered sub-buffer for reading
 * @r: the ring
 * @pos: its position, for evt_ring_packet() and evt_ring_put()
 *
 * Return: 0, -EAGAIN when none is complete, -EBUSY when one is held already.
 */
int evt_ring_get(struct evt_ring *r, unsigned long *pos)
{
	return evt_ring_get_below(r, pos, ~0UL);
}

/**
 * evt_ring_put() - release the sub-buffer taken by evt_ring_get()
 * @r: the ring
 * @pos: its position
 */
void evt_ring_put(struct evt_ring *r, unsigned long pos)
{
	unsigned long v, c;

	/* The cmpxchg orders our reads of the packet before its reuse. */
	for (;;) {
		v = (unsigned long)evt_atomic_read(&r->consumed);
		c = evt_cons_pos(r, v);
		if (c < pos + r->subbuf_size)
			c = pos + r->subbuf_size;
		EVT_HOOK(PUT, r);
		if ((unsigned long)evt_atomic_cmpxchg(&r->consumed, (long)v,
						      (long)evt_cons_word(r, c)) == v)
			break;
	}
	r->consumed_count++;
	/*
	 * Re-arm the notifications only once the reader has brought the fill
	 * (closed sub-buffers, as evt_check_high_water() counts it) below the
	 * high-water mark: a reader catching up from above it was
	 * told already, and a notification per sub-buffer switch meanwhile
	 * (irq_work, a work item, a netlink message, often on the reader's own
	 * CPU) only slows it down when it is furthest behind.
	 */
	if (((unsigned long)evt_local_read(&r->offset) & ~r->sb_mask) - c < r->hw_bytes) {
		EVT_WRITE_ONCE(r->hw_pending, 0);
		EVT_WRITE_ONCE(r->discard_pending, 0);
	}
}

unsigned int evt_ring_fill_pct(struct evt_ring *r)
{
	unsigned long o = (unsigned long)evt_local_read(&r->offset);
	unsigned long c = evt_cons_pos(r, (unsigned long)evt_atomic_read(&r->consumed));
	unsigned long used = o > c ? o - c : 0;

	if (used > r->ring_size)
		used = r->ring_size;
	return (unsigned int)(used * 100 / r->ring_size);
}

/* Is a delivered sub-buffer waiting for the reader? */
int evt_ring_has_data(struct evt_ring *r)
{
	unsigned long c = evt_cons_pos(r, (unsigned long)evt_atomic_read(&r->consumed));
	unsigned long idx = (c >> r->sb_shift) & (r->num_subbuf - 1);

	return (EVT_READ_ONCE(r->sb[idx].delivered) & ~EVT_SB_SKIPPED) >= c + r->subbuf_size;
}

void evt_ring_stats(struct evt_ring *r, struct evt_ring_stats *st)
{
	unsigned long i;

	memset(st, 0, sizeof(*st));
	/* Counted per sub-buffer, off the writer's shared cache line. */
	for (i = 0; i < r->num_subbuf; i++)
		st->recorded += (u64)evt_local_read(&r->sb[i].events);
	st->discarded = (u64)evt_local_read(&r->discarded);
	st->overwritten = (u64)evt_local_read(&r->overwritten);
	st->too_big = (u64)evt_local_read(&r->too_big);
	st->refused = (u64)evt_local_read(&r->refused);
	st->produced = (u64)evt_local_read(&r->produced);
	st->skipped = (u64)evt_local_read(&r->skipped);
	st->filtered = (u64)evt_local_read(&r->filtered);
	st->consumed = EVT_READ_ONCE(r->consumed_count);
	st->fill_pct = evt_ring_fill_pct(r);
}
