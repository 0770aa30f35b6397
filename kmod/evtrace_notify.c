// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications to the drainers, on the generic netlink family's multicast
 * group "notify" (the family is evtrace_nl.c's; it hands it over once
 * registered).
 *
 * Notifications are raised anywhere (probe path through irq_work, hotplug,
 * commands) as bits on a ring and sent from a work item, rate-limited: a
 * dropped notification costs the drainer latency, never trace data (its
 * fallback timer still finds the sub-buffers). A trigger's notification is
 * sent at once, outside the limit: the triggers have their own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_snapshot.h"
#include "evtrace_notify.h"

/* The family, from evt_notify_start() on. */
static const struct genl_family *evt_notify_family;
static void evt_notify_work_fn(struct work_struct *w);
static DECLARE_WORK(evt_notify_work, evt_notify_work_fn);
static u8 evt_notify_ready;		/* u8: see evt_tracing */
static unsigned long evt_stopped_pending;
/* (channel, CPU) pairs that came online without a ring, to announce. */
static DECLARE_BITMAP(evt_noring_pending, EVT_NR_CHANNELS * NR_CPUS);

/* At most this many notifications per second; the excess is counted. */
#define EVT_NOTIFY_PER_SEC 1000
static unsigned long evt_notify_window;
static unsigned int evt_notify_in_window;
static u64 evt_notify_dropped;

/**
 * evt_notify_ring() - queue a notification about a ring
 * @cr: the ring (NULL for a global one: STOPPED)
 * @reason: enum evt_notify
 *
 * Callable from any context except NMI; the probe path goes through irq_work.
 */
void evt_notify_ring(struct evt_cpu_ring *cr, unsigned int reason)
{
	if (!READ_ONCE(evt_notify_ready))
		return;
	if (cr)
		set_bit(reason, &cr->notify_pending);
	else
		set_bit(reason, &evt_stopped_pending);
	queue_work(system_unbound_wq, &evt_notify_work);
}

static bool evt_notify_budget(void)
{
	if (time_after(jiffies, evt_notify_window + HZ)) {
		evt_notify_window = jiffies;
		evt_notify_in_window = 0;
	}
	if (evt_notify_in_window >= EVT_NOTIFY_PER_SEC) {
		evt_notify_dropped++;
		return false;
	}
	evt_notify_in_window++;
	return true;
}

/**
 * evt_notify_no_ring() - announce a CPU online without its ring
 * @channel: the ring's channel
 * @cpu: the CPU
 *
 * Process context (CPU hotplug).
 */
void evt_notify_no_ring(unsigned int channel, unsigned int cpu)
{
	if (!READ_ONCE(evt_notify_ready))
		return;
	set_bit(channel * NR_CPUS + cpu, evt_noring_pending);
	queue_work(system_unbound_wq, &evt_notify_work);
}

/* One notification: @channel, @cpu and @fill are left out when negative. */
static void evt_send_notify_msg(unsigned int reason, int channel, int cpu, int fill)
{
	struct sk_buff *skb;
	void *hdr;

	if (!evt_notify_budget())
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, evt_notify_family, 0, EVT_CMD_NOTIFY);
	if (!hdr || nla_put_u8(skb, EVT_A_NOTIFY_REASON, reason) ||
	    (channel >= 0 && nla_put_u8(skb, EVT_A_CHANNEL, channel)) ||
	    (cpu >= 0 && nla_put_u32(skb, EVT_A_CPU, cpu)) ||
	    (fill >= 0 && nla_put_u32(skb, EVT_A_FILL, fill))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	/* No listener or a full socket: only latency is lost. */
	genlmsg_multicast(evt_notify_family, skb, 0, 0, GFP_KERNEL);
}

static void evt_send_notify(struct evt_cpu_ring *cr, unsigned int reason)
{
	if (cr)
		evt_send_notify_msg(reason, cr->channel, cr->cpu, evt_ring_fill_pct(&cr->ring));
	else
		evt_send_notify_msg(reason, -1, -1, -1);
}

static void evt_notify_work_fn(struct work_struct *w)
{
	unsigned int ch, reason;
	int cpu;

	/* Queued before the family went away: nothing to send it with. */
	if (!smp_load_acquire(&evt_notify_ready))
		return;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct evt_cpu_ring *cr = evt_get_ring(ch, cpu);
			unsigned long pending;

			if (!cr || !READ_ONCE(cr->notify_pending))
				continue;
			pending = xchg(&cr->notify_pending, 0);
			for (reason = 1; reason < __EVT_NOTIFY_MAX; reason++)
				if (pending & BIT(reason))
					evt_send_notify(cr, reason);
		}
	}
	if (test_and_clear_bit(EVT_NOTIFY_STOPPED, &evt_stopped_pending))
		evt_send_notify(NULL, EVT_NOTIFY_STOPPED);
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
		for_each_possible_cpu(cpu)
			if (test_and_clear_bit(ch * NR_CPUS + cpu, evt_noring_pending))
				evt_send_notify_msg(EVT_NOTIFY_NO_RING, ch, cpu, -1);
}

/*
 * Held while a trigger's notification is sent, and while the family goes
 * away: none is multicast on a family being unregistered.
 */
static DEFINE_MUTEX(evt_notify_trigger_lock);

/**
 * evt_notify_trigger() - announce a trigger to the drainers, now
 * @t: the trigger
 * @unanswered: the CPUs that did not answer its flush (NULL: none known)
 *
 * Process context. Not rate-limited: the triggers have their own limit.
 *
 * Return: 0, -ESRCH when nobody listens, or another negative errno.
 */
int evt_notify_trigger(const struct evt_trigger_info *t, const struct cpumask *unanswered)
{
	char *cpus = NULL;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	/* "1,3-5": as long as it takes (every CPU of a large machine stuck). */
	if (unanswered && !cpumask_empty(unanswered)) {
		cpus = kasprintf(GFP_KERNEL, "%*pbl", cpumask_pr_args(unanswered));
		if (!cpus)
			return -ENOMEM;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE + (cpus ? nla_total_size(strlen(cpus) + 1) : 0), GFP_KERNEL);
	ret = -ENOMEM;
	if (!msg)
		goto out;
	/* The family is there from evt_notify_start(), which takes the lock too. */
	mutex_lock(&evt_notify_trigger_lock);
	if (!READ_ONCE(evt_notify_ready)) {
		nlmsg_free(msg);
		ret = -ENODEV;
		goto out_unlock;
	}
	hdr = genlmsg_put(msg, 0, 0, evt_notify_family, 0, EVT_CMD_NOTIFY);
	if (!hdr || nla_put_u8(msg, EVT_A_NOTIFY_REASON, EVT_NOTIFY_TRIGGER) ||
	    nla_put_u8(msg, EVT_A_TRIGGER_REASON, t->reason) ||
	    nla_put_u64_64bit(msg, EVT_A_TRIGGER_SEQ, t->seq, EVT_A_PAD) ||
	    nla_put_u64_64bit(msg, EVT_A_TRIGGER_TS, t->ts, EVT_A_PAD) ||
	    (cpus && nla_put_string(msg, EVT_A_UNANSWERED_CPUS, cpus))) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out_unlock;
	}
	genlmsg_end(msg, hdr);
	evt_test_window(EVT_WINDOW_NOTIFY_TRIGGER);
	/* Test builds: what the lock is for, checked. */
	if (IS_ENABLED(EVT_TEST_WINDOWS))
		WARN_ON_ONCE(!READ_ONCE(evt_notify_ready));
	ret = genlmsg_multicast(evt_notify_family, msg, 0, 0, GFP_KERNEL);
out_unlock:
	mutex_unlock(&evt_notify_trigger_lock);
out:
	kfree(cpus);
	return ret;
}

/**
 * evt_notify_start() - send notifications from now on
 * @family: the registered family whose group "notify" carries them
 */
void evt_notify_start(const struct genl_family *family)
{
	mutex_lock(&evt_notify_trigger_lock);
	evt_notify_family = family;
	evt_notify_window = jiffies;
	/* Release: the work that reads the flag set sends with the family. */
	smp_store_release(&evt_notify_ready, true);
	mutex_unlock(&evt_notify_trigger_lock);
}

/**
 * evt_notify_stop() - send none any more, before the family goes away
 *
 * A trigger's notification being sent finishes first and none starts
 * after; a notification being sent by the work finishes too.
 */
void evt_notify_stop(void)
{
	mutex_lock(&evt_notify_trigger_lock);
	WRITE_ONCE(evt_notify_ready, false);
	mutex_unlock(&evt_notify_trigger_lock);
	cancel_work_sync(&evt_notify_work);
}

/**
 * evt_notify_exit() - let a queued notification work item end
 *
 * Last in module exit, once nothing can call evt_notify_ring() any more.
 */
void evt_notify_exit(void)
{
	cancel_work_sync(&evt_notify_work);
}
