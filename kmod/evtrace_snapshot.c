// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots and triggers keep what the rings hold for a reader: each ring
 * has two holds (kmod/core: an overwriting writer discards rather than take
 * a lap below the higher one), each released by its own rule only:
 *
 *   SNAPSHOT's  the reader reaches its bound (EVT_IOC_PUT_GET_SUBBUF_BELOW
 *               says ENODATA), the ring device is closed, or
 *               EVT_SNAPSHOT_HOLD_MS pass after the last SNAPSHOT (a
 *               requester that never reads);
 *   trigger's   a reader reaches the trigger's bound (whatever the snapshot
 *               it reads for), or trigger_keep_ms pass with it unread.
 *
 * This unit changes them, and the bookkeeping beside them (when each began,
 * the kept trigger and its bounds), under one lock, never held across a
 * flush: a flush may wait for a CPU that does not answer
 * (evt_flush_ring_hold()), and netlink handlers take the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/bitmap.h>
#include <net/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_flush.h"
#include "evtrace_snapshot.h"

/* A snapshot's holds go after this long, read or not. */
#define EVT_SNAPSHOT_HOLD_MS	10000

/* The holds' bookkeeping and the kept trigger. */
static DEFINE_SPINLOCK(evt_hold_lock);
static struct evt_trigger_kept evt_kept;

static void evt_for_each_ring(void (*fn)(struct evt_cpu_ring *cr))
{
	unsigned int ch;
	int cpu;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
		for_each_possible_cpu(cpu) {
			struct evt_cpu_ring *cr = evt_get_ring(ch, cpu);

			if (cr)
				fn(cr);
		}
}

/* With evt_hold_lock held. */
static void evt_release_locked(struct evt_cpu_ring *cr, enum evt_hold_kind kind)
{
	evt_ring_hold_release(&cr->ring, kind);
	cr->held_since[kind] = 0;
}

static void evt_snapshot_expire_ring(struct evt_cpu_ring *cr)
{
	spin_lock(&evt_hold_lock);
	evt_release_locked(cr, EVT_HOLD_SNAPSHOT);
	spin_unlock(&evt_hold_lock);
}

static void evt_snapshot_expiry_fn(struct work_struct *w)
{
	evt_for_each_ring(evt_snapshot_expire_ring);
}
static DECLARE_DELAYED_WORK(evt_snapshot_expiry, evt_snapshot_expiry_fn);

/* trigger_keep_ms passed: what the kept trigger still holds goes. */
static void evt_trigger_keep_fn(struct work_struct *w)
{
	unsigned int ch, held = 0;
	u64 seq;
	int cpu;

	spin_lock(&evt_hold_lock);
	/* A newer trigger being kept re-arms this when it is ready. */
	if (!evt_kept.ready) {
		spin_unlock(&evt_hold_lock);
		return;
	}
	seq = evt_kept.t.seq;
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
		for_each_possible_cpu(cpu) {
			struct evt_cpu_ring *cr = evt_get_ring(ch, cpu);

			if (cr && evt_ring_held(&cr->ring, EVT_HOLD_TRIGGER)) {
				evt_release_locked(cr, EVT_HOLD_TRIGGER);
				held++;
			}
		}
	if (held)
		evt_kept.expired = true;
	evt_kept.release_ts = 0;
	spin_unlock(&evt_hold_lock);
	if (held)
		pr_warn("trigger %llu: %u rings were still held unread after trigger_keep_ms: released, they record again and may overwrite what it kept\n",
			seq, held);
}
static DECLARE_DELAYED_WORK(evt_trigger_keep, evt_trigger_keep_fn);

/**
 * evt_snapshot_take() - SNAPSHOT of one ring: flush it, hold it below its bound
 * @cr: the ring
 * @res: the bound, and whether its CPU answered (evt_flush_ring_hold())
 *
 * The hold goes when its reader gets to the bound, when the ring is
 * closed, or EVT_SNAPSHOT_HOLD_MS after the last SNAPSHOT. A trigger's
 * hold on the ring is left as it is. Process context.
 */
void evt_snapshot_take(struct evt_cpu_ring *cr, struct evt_flush_result *res)
{
	evt_flush_ring_hold(cr, EVT_HOLD_SNAPSHOT, res);
	spin_lock(&evt_hold_lock);
	if (evt_ring_held(&cr->ring, EVT_HOLD_SNAPSHOT) && !cr->held_since[EVT_HOLD_SNAPSHOT])
		cr->held_since[EVT_HOLD_SNAPSHOT] = evt_clock();
	spin_unlock(&evt_hold_lock);
	mod_delayed_work(system_wq, &evt_snapshot_expiry, msecs_to_jiffies(EVT_SNAPSHOT_HOLD_MS));
}

/**
 * evt_snapshot_trigger_check() - may SNAPSHOT answer with trigger @seq's bounds?
 * @seq: a trigger's number (NOTIFY_TRIGGER's TRIGGER_SEQ)
 * @extack: says why not
 *
 * Return: 0; -ENOENT when they are not kept (another trigger's are, none
 * fired, or trigger_keep_ms released them); -EAGAIN while its rings are
 * still being flushed (its notification is not out yet).
 */
int evt_snapshot_trigger_check(u64 seq, struct netlink_ext_ack *extack)
{
	struct evt_trigger_kept k;

	evt_snapshot_kept(&k);
	if (seq && seq == k.t.seq && k.expired) {
		NL_SET_ERR_MSG(extack, "that trigger's holds went after trigger_keep_ms unread: what it kept may be overwritten");
		return -ENOENT;
	}
	if (seq && seq == k.t.seq && !k.ready) {
		NL_SET_ERR_MSG(extack, "that trigger's rings are still being flushed: ask again when its notification arrives");
		return -EAGAIN;
	}
	if (seq && seq == k.t.seq)
		return 0;
	if (k.t.seq)
		NL_SET_ERR_MSG(extack, "that trigger's bounds are not kept: only the last trigger's are");
	else
		NL_SET_ERR_MSG(extack, "no trigger has fired since the module was loaded");
	return -ENOENT;
}

/**
 * evt_snapshot_trigger_bound() - a ring's bound for the kept trigger
 * @cr: the ring
 * @res: its bound (packet_seq_num), and whether its CPU answered the
 *	trigger's flush (else the events of its open sub-buffer, left out)
 *
 * Return: false when the ring has none (it came after the trigger).
 */
bool evt_snapshot_trigger_bound(struct evt_cpu_ring *cr, struct evt_flush_result *res)
{
	bool has;

	spin_lock(&evt_hold_lock);
	has = cr->trigger_has;
	*res = cr->trigger_res;
	spin_unlock(&evt_hold_lock);
	return has;
}

static void evt_trigger_forget_ring(struct evt_cpu_ring *cr)
{
	cr->trigger_has = false;
}

/* One ring's part of the kept trigger. */
static void evt_trigger_ring_kept(struct evt_cpu_ring *cr, const struct evt_flush_result *res,
				  struct cpumask *unanswered)
{
	if (res->unanswered && unanswered)
		cpumask_set_cpu(cr->cpu, unanswered);
	spin_lock(&evt_hold_lock);
	cr->trigger_res = *res;
	cr->trigger_has = true;
	cr->held_since[EVT_HOLD_TRIGGER] = evt_ring_held(&cr->ring, EVT_HOLD_TRIGGER) ? evt_clock() : 0;
	spin_unlock(&evt_hold_lock);
}

/**
 * evt_snapshot_trigger() - keep the rings for trigger @t (the trigger's work)
 * @t: the trigger
 * @keep_ms: release what is still unread after this long; 0: until read
 * @unanswered: set to the CPUs that did not answer the flush (may be NULL)
 *
 * Flushes every ring and holds each below its bound until a reader gets
 * there (or @keep_ms pass); the bounds are kept for SNAPSHOT with
 * TRIGGER_SEQ, replacing the previous trigger's. No lock is held across a
 * flush. Process context.
 */
void evt_snapshot_trigger(const struct evt_trigger_info *t, unsigned int keep_ms,
			  struct cpumask *unanswered)
{
	unsigned long *pending = bitmap_zalloc(EVT_NR_CHANNELS * nr_cpu_ids, GFP_KERNEL);
	unsigned long deadline = 0;
	struct evt_flush_result res;
	unsigned int ch, pass;
	int cpu;

	if (unanswered)
		cpumask_clear(unanswered);
	/* From here SNAPSHOT with the previous trigger's number is refused. */
	spin_lock(&evt_hold_lock);
	evt_kept = (struct evt_trigger_kept){ .t = *t };
	evt_for_each_ring(evt_trigger_forget_ring);
	spin_unlock(&evt_hold_lock);
	/*
	 * Every ring's flush first, each waited for briefly: a CPU that does
	 * not answer must not push the other rings' bounds seconds past the
	 * report. Then what is still in flight, up to one deadline.
	 */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			deadline = jiffies + msecs_to_jiffies(EVT_FLUSH_ANSWER_MS);
		for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
			for_each_possible_cpu(cpu) {
				struct evt_cpu_ring *cr = evt_get_ring(ch, cpu);

				if (!cr || (pass && !test_bit(ch * nr_cpu_ids + cpu, pending)))
					continue;
				if (pass) {
					evt_flush_ring_hold_finish(cr, EVT_HOLD_TRIGGER, &res, deadline);
				} else if (!evt_flush_ring_hold_start(cr, EVT_HOLD_TRIGGER, &res)) {
					if (pending) {
						__set_bit(ch * nr_cpu_ids + cpu, pending);
						continue;
					}
					/* No memory to note it: waited for now. */
					evt_flush_ring_hold_finish(cr, EVT_HOLD_TRIGGER, &res,
								   jiffies + msecs_to_jiffies(EVT_FLUSH_ANSWER_MS));
				}
				evt_trigger_ring_kept(cr, &res, unanswered);
			}
		if (!pending)
			break;
	}
	bitmap_free(pending);
	evt_test_window(EVT_WINDOW_TRIGGER_KEPT);
	spin_lock(&evt_hold_lock);
	evt_kept.ready = true;
	if (keep_ms)
		evt_kept.release_ts = evt_clock() + (u64)keep_ms * NSEC_PER_MSEC;
	spin_unlock(&evt_hold_lock);
	if (keep_ms)
		mod_delayed_work(system_wq, &evt_trigger_keep, msecs_to_jiffies(keep_ms));
	else
		cancel_delayed_work(&evt_trigger_keep);
}

/**
 * evt_snapshot_reader_reached() - a reader got to @pos (ENODATA at its bound)
 * @cr: the ring
 * @pos: the position it asked for, and found nothing below
 *
 * The holds at or below @pos go: the snapshot's it read for, and a
 * trigger's it read past. A hold raised above @pos (a later snapshot or
 * trigger) stays. From the reader's ioctl (reader_lock held).
 */
void evt_snapshot_reader_reached(struct evt_cpu_ring *cr, unsigned long pos)
{
	unsigned int k;

	spin_lock(&evt_hold_lock);
	for (k = 0; k < EVT_NR_HOLDS; k++)
		if (evt_ring_hold_reached(&cr->ring, k, pos))
			cr->held_since[k] = 0;
	spin_unlock(&evt_hold_lock);
}

/**
 * evt_snapshot_reader_closed() - the ring device was closed
 * @cr: the ring
 *
 * A killed reader must not leave a snapshot's hold behind; a trigger's
 * stays until read (a snapshot refused for another reason must not drop
 * what preceded a kernel report).
 */
void evt_snapshot_reader_closed(struct evt_cpu_ring *cr)
{
	spin_lock(&evt_hold_lock);
	evt_release_locked(cr, EVT_HOLD_SNAPSHOT);
	spin_unlock(&evt_hold_lock);
}

/**
 * evt_snapshot_kept() - the kept trigger (seq 0: none has fired)
 * @k: filled in
 */
void evt_snapshot_kept(struct evt_trigger_kept *k)
{
	spin_lock(&evt_hold_lock);
	*k = evt_kept;
	spin_unlock(&evt_hold_lock);
}

/**
 * evt_snapshot_ring_holds() - a ring's holds, for STATUS
 * @cr: the ring
 * @h: when each began (trace clock), 0 when not held
 */
void evt_snapshot_ring_holds(struct evt_cpu_ring *cr, struct evt_ring_holds *h)
{
	unsigned int k;

	spin_lock(&evt_hold_lock);
	for (k = 0; k < EVT_NR_HOLDS; k++)
		h->since[k] = evt_ring_held(&cr->ring, k) ? cr->held_since[k] : 0;
	spin_unlock(&evt_hold_lock);
}

/**
 * evt_snapshot_exit() - stop the expiry works, after netlink and the triggers
 */
void evt_snapshot_exit(void)
{
	cancel_delayed_work_sync(&evt_snapshot_expiry);
	cancel_delayed_work_sync(&evt_trigger_keep);
}
