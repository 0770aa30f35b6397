// SPDX-License-Identifier: GPL-2.0
/*
 * Flushing rings from another CPU: the flush IPI with a bounded wait, the
 * offline CPUs' rings, quiescent bounds, the periodic flush (flush_ms), and
 * STOP's wait for the writers. It calls the rings (evtrace_rings.c), never
 * the other way round.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <linux/rcupdate.h>
#include <linux/completion.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_flush.h"

/*
 * Flushing another CPU's ring is an IPI to that CPU. A CPU spinning with
 * interrupts off (after an oops that left a lock held, say) never answers:
 * waiting for it would hang whoever asked, netlink included, for good. So
 * the IPI is sent without waiting (one request in flight per ring, in the
 * ring), the answer is waited for EVT_FLUSH_ANSWER_MS at most, and a ring
 * whose CPU did not answer is read as it is: its closed packets, the open
 * sub-buffer left out (and counted). A CPU that did not answer is waited
 * for briefly only, until it answers again; a request still queued there is
 * not sent again. A request given up on holds a module reference until it
 * runs (its callback is module text, its descriptor in the ring): rmmod is
 * refused until that CPU answers. A request answered in time takes none, so
 * that a flush in flight never makes rmmod fail.
 */
#define EVT_FLUSH_AGAIN_MS	10

/*
 * The hold a request asks for, taken by exactly one side: the IPI when it
 * runs, or the requester giving up (then a late IPI holds nothing: a hold
 * above the bound the requester reported would never be read up to).
 */
#define EVT_FLUSH_TAKEN		(-2)

/* Since when (jiffies, 0: it answers) a CPU has not answered a flush. */
static DEFINE_PER_CPU(unsigned long, evt_cpu_unanswered);

struct evt_flush_call {
	struct evt_cpu_ring *cr;
	int hold;			/* enum evt_hold_kind to take, or -1 */
	struct evt_quiescent q;
	struct evt_flush_result res;
};

/* The flush IPI, on the ring's CPU. */
static void evt_flush_ipi(void *arg)
{
	struct evt_cpu_ring *cr = arg;
	u64 req = READ_ONCE(cr->flush_req);
	int hold = xchg(&cr->flush_hold, EVT_FLUSH_TAKEN);

	cr->flush_flushed = evt_ring_flush_hold(&cr->ring, hold == EVT_FLUSH_TAKEN ? -1 : hold,
						&cr->flush_bound);
	/*
	 * With no writer in flight here, nothing older than now can still
	 * come. With writers interrupted, each may hold a reservation of any
	 * age not yet committed (an outer one older than what nested ones
	 * recorded since): no new bound; the caller keeps its last one.
	 */
	cr->flush_ts = this_cpu_read(evt_nesting) == 0 ? evt_clock() : 0;
	WRITE_ONCE(*this_cpu_ptr(&evt_cpu_unanswered), 0);
	/* The answer, then the wakeup: a waiter woken early looks again. */
	smp_store_release(&cr->flush_done, req);
	complete(&cr->flush_answered);
	/*
	 * Last: given up on, the request held the module; it may go once this
	 * returns (free_module() waits for sections with interrupts off).
	 */
	if (atomic_xchg(&cr->flush_abandoned, 0))
		module_put(THIS_MODULE);
}

/* cpus_read_lock(), or false after EVT_FLUSH_ANSWER_MS (hotplug stuck: an oops in a callback). */
static bool evt_cpus_read_lock_bounded(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(EVT_FLUSH_ANSWER_MS);

	while (!cpus_read_trylock()) {
		if (time_after(jiffies, end))
			return false;
		msleep(1);
	}
	return true;
}

/* The ring as it is: its closed packets below the open sub-buffer, and what that holds. */
static void evt_flush_as_is(struct evt_flush_call *fc)
{
	struct evt_ring *r = &fc->cr->ring;
	unsigned long o = (unsigned long)evt_local_read(&r->offset);
	struct evt_subbuf *sb = &r->sb[(o >> r->sb_shift) & (r->num_subbuf - 1)];

	fc->res.unanswered = true;
	fc->res.bound = o >> r->sb_shift;
	fc->res.left_out = (o & r->sb_mask) ?
			   (u64)evt_local_read(&sb->events) - READ_ONCE(sb->events_delivered) : 0;
	if (fc->hold >= 0)
		evt_ring_hold(r, fc->hold, (unsigned long)fc->res.bound << r->sb_shift);
	atomic64_inc(&fc->cr->flush_unanswered);
}

/* Flush @fc->cr from the CPU running this: its own, or an offline one's. */
static bool evt_flush_offline(struct evt_flush_call *fc)
{
	unsigned long bound;

	if (!evt_cpus_read_lock_bounded())
		return false;
	if (cpu_online(fc->cr->cpu)) {
		/* Back online meanwhile: the IPI's turn again. */
		cpus_read_unlock();
		return false;
	}
	/*
	 * Nothing runs there, but other CPUs may flush this ring at the same
	 * time: its CPU-local operations are not atomic across CPUs, so remote
	 * flushes of one ring are serialised.
	 */
	fc->res.flushed = evt_ring_flush_remote_hold(&fc->cr->ring, fc->hold, &bound);
	fc->res.bound = bound;
	fc->q.timestamp = evt_clock();
	fc->q.flags |= EVT_QUIESCENT_OFFLINE;
	cpus_read_unlock();
	return true;
}

/* Send the flush IPI; false when it was not sent (in flight already, or *@offline). */
static bool evt_flush_send(struct evt_flush_call *fc, bool *offline)
{
	struct evt_cpu_ring *cr = fc->cr;
	u64 req;

	if (READ_ONCE(cr->flush_done) != cr->flush_req)
		return false;	/* the last request is still queued there */
	req = cr->flush_req + 1;
	/* Nothing in flight: the callback is not queued, its descriptor free. */
	INIT_CSD(&cr->flush_csd, evt_flush_ipi, cr);
	WRITE_ONCE(cr->flush_hold, fc->hold);
	WRITE_ONCE(cr->flush_req, req);
	reinit_completion(&cr->flush_answered);
	if (smp_call_function_single_async(cr->cpu, &cr->flush_csd)) {
		/* Offline (-ENXIO): nothing was queued. */
		WRITE_ONCE(cr->flush_req, req - 1);
		*offline = true;
		return false;
	}
	return true;
}

/*
 * Give up on the request in flight: it holds the module until it runs (the
 * IPI drops the reference). Exactly one side drops it, whichever order they
 * come in: each looks at the other's mark after setting its own.
 */
static void evt_flush_abandon(struct evt_cpu_ring *cr, u64 req)
{
	__module_get(THIS_MODULE);
	atomic_set(&cr->flush_abandoned, 1);
	smp_mb();	/* the mark, then the answer: against the IPI's answer, then xchg */
	if (smp_load_acquire(&cr->flush_done) == req && atomic_xchg(&cr->flush_abandoned, 0))
		module_put(THIS_MODULE);
}

/*
 * Wait for the answer to the request in flight until @deadline (jiffies).
 * Not answered by then: when @final, the request is given up on (left to
 * run when it may, holding nothing) and the CPU marked as not answering;
 * else it stays in flight, to be waited for again. False when it did not
 * answer.
 */
static bool evt_flush_wait(struct evt_flush_call *fc, unsigned long deadline, bool final)
{
	struct evt_cpu_ring *cr = fc->cr;
	u64 req = cr->flush_req;
	bool started = false;
	long wait;

	while (smp_load_acquire(&cr->flush_done) != req) {
		wait = (long)(deadline - jiffies);
		if (wait <= 0 && final && !started &&
		    xchg(&cr->flush_hold, EVT_FLUSH_TAKEN) == EVT_FLUSH_TAKEN) {
			/* It started just now: its answer is a moment away. */
			started = true;
			deadline = jiffies + msecs_to_jiffies(EVT_FLUSH_ANSWER_MS);
			continue;
		}
		if (wait <= 0) {
			if (!final)
				return false;
			if (!READ_ONCE(per_cpu(evt_cpu_unanswered, cr->cpu)))
				WRITE_ONCE(per_cpu(evt_cpu_unanswered, cr->cpu), jiffies | 1);
			evt_flush_abandon(cr, req);
			return false;
		}
		wait_for_completion_timeout(&cr->flush_answered, wait);
	}
	fc->res.flushed = cr->flush_flushed;
	fc->res.bound = cr->flush_bound;
	fc->q.timestamp = cr->flush_ts;
	return true;
}

/* How long a CPU may take to answer: briefly once it did not. */
static unsigned long evt_flush_deadline(int cpu)
{
	return jiffies + msecs_to_jiffies(READ_ONCE(per_cpu(evt_cpu_unanswered, cpu)) ?
					  EVT_FLUSH_AGAIN_MS : EVT_FLUSH_ANSWER_MS);
}

/* The flush, its answer or the ring as it is; flush_lock held. */
static void evt_flush_locked(struct evt_flush_call *fc)
{
	struct evt_cpu_ring *cr = fc->cr;
	bool offline = !cpu_online(cr->cpu), done = false;

	if (!offline && evt_flush_send(fc, &offline))
		done = evt_flush_wait(fc, evt_flush_deadline(cr->cpu), true);
	if (!done && offline) {
		done = evt_flush_offline(fc);
		/* Back online meanwhile: the IPI's turn again. */
		if (!done && cpu_online(cr->cpu) && evt_flush_send(fc, &offline))
			done = evt_flush_wait(fc, evt_flush_deadline(cr->cpu), true);
	}
	if (!done)
		evt_flush_as_is(fc);
}

static void evt_flush_notify(struct evt_flush_call *fc)
{
	if (fc->res.flushed) {
		wake_up_interruptible(&fc->cr->wq);
		evt_ring_notify(fc->cr, EVT_NOTIFY_FLUSHED);
	}
}

static void evt_flush_call(struct evt_flush_call *fc)
{
	mutex_lock(&fc->cr->flush_lock);
	evt_flush_locked(fc);
	mutex_unlock(&fc->cr->flush_lock);
	evt_flush_notify(fc);
}

/**
 * evt_flush_ring() - close a ring's partial sub-buffer, from any CPU
 * @cr: the ring
 *
 * Return: 1 when a sub-buffer was closed, else 0 (also when its CPU did not
 * answer in time: see evt_flush_ring_hold()). Process context.
 */
int evt_flush_ring(struct evt_cpu_ring *cr)
{
	struct evt_flush_call fc = { .cr = cr, .hold = -1 };

	evt_flush_call(&fc);
	return fc.res.flushed;
}

/**
 * evt_flush_ring_hold() - flush a ring and hold what the flush closed
 * @cr: the ring
 * @hold: the hold to take at the bound (enum evt_hold_kind), or -1
 * @res: what the flush found
 *
 * The bound is the packet_seq_num of the sub-buffer open after the flush:
 * every packet below it is closed, and with @hold kept from an overwriting
 * writer until the hold's owner releases it (evtrace_snapshot.c). The
 * flush and the hold run on the ring's CPU. A CPU that does not answer
 * within EVT_FLUSH_ANSWER_MS (spinning with interrupts off) leaves its ring
 * as it is: the bound is its open sub-buffer, whose events are left out
 * (@res->left_out), and the ring is held below it all the same. Never
 * waits longer than that: no caller hangs on a CPU that is gone.
 * Process context.
 */
void evt_flush_ring_hold(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res)
{
	struct evt_flush_call fc = { .cr = cr, .hold = hold };

	evt_flush_call(&fc);
	*res = fc.res;
}

/* A first look at an answer: long enough for a CPU that runs. */
#define EVT_FLUSH_QUICK_MS	20

/**
 * evt_flush_ring_hold_start() - evt_flush_ring_hold(), for many rings at once
 * @cr: the ring
 * @hold: as evt_flush_ring_hold()
 * @res: filled in when this returns true
 *
 * Waits EVT_FLUSH_QUICK_MS at most, so that a CPU that does not answer
 * delays the other rings' flushes (and their bounds) by that much only.
 *
 * Return: true when @res is final; false when the request is in flight:
 * evt_flush_ring_hold_finish() then waits for it.
 */
bool evt_flush_ring_hold_start(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res)
{
	struct evt_flush_call fc = { .cr = cr, .hold = hold };
	bool offline = !cpu_online(cr->cpu), sent;

	mutex_lock(&cr->flush_lock);
	sent = !offline && evt_flush_send(&fc, &offline);
	if (sent && !evt_flush_wait(&fc, jiffies + msecs_to_jiffies(EVT_FLUSH_QUICK_MS), false)) {
		mutex_unlock(&cr->flush_lock);
		return false;
	}
	if (!sent)
		evt_flush_locked(&fc);
	mutex_unlock(&cr->flush_lock);
	evt_flush_notify(&fc);
	*res = fc.res;
	return true;
}

/**
 * evt_flush_ring_hold_finish() - wait for a flush evt_flush_ring_hold_start() left in flight
 * @cr: the ring
 * @hold: as given to evt_flush_ring_hold_start()
 * @res: filled in
 * @deadline: jiffies: at most until then (the ring as it is after)
 */
void evt_flush_ring_hold_finish(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res,
				unsigned long deadline)
{
	struct evt_flush_call fc = { .cr = cr, .hold = hold };

	mutex_lock(&cr->flush_lock);
	if (!evt_flush_wait(&fc, deadline, true))
		evt_flush_as_is(&fc);
	mutex_unlock(&cr->flush_lock);
	evt_flush_notify(&fc);
	*res = fc.res;
}

/**
 * evt_ring_quiescent() - flush, and tell a time before which no new event comes
 * @cr: the ring
 * @q: filled in
 */
void evt_ring_quiescent(struct evt_cpu_ring *cr, struct evt_quiescent *q)
{
	struct evt_flush_call fc = { .cr = cr, .hold = -1 };

	evt_flush_call(&fc);
	if (!evt_ring_has_data(&cr->ring))
		fc.q.flags |= EVT_QUIESCENT_EMPTY;
	/* The reader's ioctls are serialised (reader_lock): one bound per ring. */
	if (fc.q.timestamp)
		cr->quiescent_ts = fc.q.timestamp;
	else
		fc.q.timestamp = cr->quiescent_ts;
	*q = fc.q;
}

/* Does the open sub-buffer hold events? A racy peek, good enough for a timer. */
static bool evt_ring_open_has_events(struct evt_cpu_ring *cr)
{
	unsigned long in_sb = (unsigned long)evt_local_read(&cr->ring.offset) & cr->ring.sb_mask;

	return in_sb > EVT_PACKET_HEADER_SIZE;
}

static void evt_flush_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(evt_flush_work, evt_flush_work_fn);

/* Every flush_ms: the rings whose open sub-buffer holds events. */
static void evt_flush_work_fn(struct work_struct *w)
{
	unsigned int ch;
	int cpu;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct evt_cpu_ring *cr = evt_get_ring(ch, cpu);

			if (cr && evt_ring_open_has_events(cr))
				evt_flush_ring(cr);
		}
	}
	if (evt.flush_ms)
		schedule_delayed_work(&evt_flush_work, msecs_to_jiffies(evt.flush_ms));
}

/* Has an online CPU left a flush unanswered (and not answered one since)? */
static bool evt_cpu_not_answering(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (READ_ONCE(per_cpu(evt_cpu_unanswered, cpu)))
			return true;
	return false;
}

/*
 * A grace period, unless a CPU does not answer: one spinning with
 * interrupts off holds every grace period up for good, while a writer
 * merely slow (a long interrupt, a loaded host) must be waited for. Every
 * EVT_FLUSH_ANSWER_MS without one, the CPUs are asked (a flush of every
 * ring): a CPU that does not answer ends the wait.
 */
static bool evt_sync_rcu_bounded(void)
{
	unsigned long cookie = start_poll_synchronize_rcu();
	unsigned long end = jiffies + msecs_to_jiffies(EVT_FLUSH_ANSWER_MS);

	while (!poll_state_synchronize_rcu(cookie)) {
		if (time_after(jiffies, end)) {
			if (!evt_cpu_not_answering())
				evt_flush_all();
			if (evt_cpu_not_answering())
				return false;
			end = jiffies + msecs_to_jiffies(EVT_FLUSH_ANSWER_MS);
		}
		schedule_timeout_uninterruptible(1);
	}
	return true;
}

/**
 * evt_flush_all() - close every ring's partial sub-buffer
 */
void evt_flush_all(void)
{
	unsigned int ch;
	int cpu;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (evt_get_ring(ch, cpu))
				evt_flush_ring(evt_get_ring(ch, cpu));
}

/**
 * evt_flush_wait_writers() - STOP's wait for the writers, after evt_stop_tracing(false)
 *
 * A grace period, unless a CPU does not answer (see evt_sync_rcu_bounded()).
 */
void evt_flush_wait_writers(void)
{
	if (!evt_sync_rcu_bounded())
		pr_warn("STOP: a CPU does not answer (spinning with interrupts off?): STOP did not wait for a grace period, an event it was writing may close later\n");
}

/**
 * evt_set_flush_ms() - the periodic flush's period (CONFIG), 0: off
 * @ms: milliseconds
 */
void evt_set_flush_ms(unsigned int ms)
{
	evt.flush_ms = ms;
	if (ms)
		mod_delayed_work(system_wq, &evt_flush_work, msecs_to_jiffies(ms));
	else
		cancel_delayed_work(&evt_flush_work);
}

/**
 * evt_flush_timer_start() - start the periodic flush (once the rings are up)
 */
void evt_flush_timer_start(void)
{
	if (evt.flush_ms)
		schedule_delayed_work(&evt_flush_work, msecs_to_jiffies(evt.flush_ms));
}

/**
 * evt_flush_timer_stop() - stop it for good (module exit, before hotplug goes)
 *
 * Nothing flushes any more once this returns: netlink, the triggers and the
 * timer are gone. A request still in flight was not given up on (that would
 * hold the module), and its CPU is running it: it is waited for, as the
 * ring it writes to is freed next.
 */
void evt_flush_timer_stop(void)
{
	unsigned int ch;
	int cpu;

	cancel_delayed_work_sync(&evt_flush_work);
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
		for_each_possible_cpu(cpu) {
			struct evt_cpu_ring *cr = evt_get_ring(ch, cpu);

			while (cr && smp_load_acquire(&cr->flush_done) != READ_ONCE(cr->flush_req))
				msleep(1);
		}
}
