// SPDX-License-Identifier: GPL-2.0
/*
 * Triggers (issue 23, work in progress: not built yet): snapshot the rings
 * when the kernel reports a bug.
 *
 * Hooks: the error_report_end tracepoint covers KFENCE, KASAN and, since
 * 5.17, every WARN (__warn() fires it with ERROR_DETECTOR_WARN after the
 * report is printed); an oops goes through the die notifier chain (DIE_OOPS),
 * which has no tracepoint. Both may run in any context, NMI included for
 * die: the hook only checks the rate limit (one cmpxchg), records an
 * evtrace_trigger event in the rings and queues an irq_work; a work item
 * then flushes every ring, keeps each ring's bound (as SNAPSHOT does) for
 * the drainer, and multicasts NOTIFY_SNAPSHOT. With nobody listening the
 * rings are kept: tracing stops, so that what preceded the report stays in
 * memory until evctl snapshot or evdrain --snapshots reads it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/tracepoint.h>
#include <linux/atomic.h>
#include <trace/events/error_report.h>
#include "evtrace.h"

/* WIP: a module parameter and a netlink command will set these. */
static unsigned int evt_trigger_mask = BIT(EVT_NR_TRIGGERS) - 1;
static unsigned int evt_trigger_interval_ms = 10000;
static atomic64_t evt_trigger_last = ATOMIC64_INIT(0);
static atomic64_t evt_trigger_seq = ATOMIC64_INIT(0);
static atomic_t evt_trigger_suppressed = ATOMIC_INIT(0);

struct evt_trigger_pending {
	u64 seq;
	u64 ts;
	u64 id;
	u32 reason;
};

static struct evt_trigger_pending evt_trigger_now;	/* written by the hook that won the cmpxchg */
static struct irq_work evt_trigger_iw;
static struct work_struct evt_trigger_work;
static struct tracepoint *evt_tp_error_report;

static void evt_trigger_fire(u32 reason, unsigned long id)
{
	struct { u32 reason; u32 pad; u64 id; u64 seq; } pl;
	u64 now = ktime_get_mono_fast_ns(), last;

	if (!(READ_ONCE(evt_trigger_mask) & BIT(reason)) || !READ_ONCE(evt_tracing))
		return;
	last = atomic64_read(&evt_trigger_last);
	if ((last && now - last < (u64)READ_ONCE(evt_trigger_interval_ms) * NSEC_PER_MSEC) ||
	    atomic64_cmpxchg(&evt_trigger_last, last, now) != last) {
		atomic_inc(&evt_trigger_suppressed);
		return;
	}
	pl.reason = reason;
	pl.pad = 0;
	pl.id = id;
	pl.seq = atomic64_inc_return(&evt_trigger_seq);
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_TRIGGER, &pl, sizeof(pl));
	evt_trigger_now = (struct evt_trigger_pending){ pl.seq, now, id, reason };
	irq_work_queue(&evt_trigger_iw);
}

static void evt_trigger_error_report(void *data, enum error_detector det, unsigned long id)
{
	static const u32 reasons[] = {
		[ERROR_DETECTOR_KFENCE] = EVT_TRIGGER_KFENCE,
		[ERROR_DETECTOR_KASAN] = EVT_TRIGGER_KASAN,
		[ERROR_DETECTOR_WARN] = EVT_TRIGGER_WARN,
	};

	if ((unsigned int)det < ARRAY_SIZE(reasons))
		evt_trigger_fire(reasons[det], id);
}

static int evt_trigger_die(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;

	if (val == DIE_OOPS)
		evt_trigger_fire(EVT_TRIGGER_OOPS, args ? (unsigned long)args->err : 0);
	return NOTIFY_DONE;
}

static struct notifier_block evt_trigger_die_nb = {
	.notifier_call = evt_trigger_die,
};

static void evt_trigger_iw_fn(struct irq_work *w)
{
	queue_work(system_unbound_wq, &evt_trigger_work);
}

static void evt_trigger_work_fn(struct work_struct *w)
{
	/* TODO: a second trigger may rewrite it meanwhile (the rate limit makes it rare): a seqcount. */
	struct evt_trigger_pending p = evt_trigger_now;

	/* TODO: hold every ring at its bound for evdrain --snapshots; nobody listening: stop. */
	evt_flush_all();
	evt_nl_notify_trigger(p.reason, p.seq, p.ts);
}

static void evt_trigger_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "error_report_end"))
		evt_tp_error_report = tp;
}

int evt_trigger_init(void)
{
	int ret;

	init_irq_work(&evt_trigger_iw, evt_trigger_iw_fn);
	INIT_WORK(&evt_trigger_work, evt_trigger_work_fn);
	for_each_kernel_tracepoint(evt_trigger_find_tp, NULL);
	if (evt_tp_error_report) {
		ret = tracepoint_probe_register(evt_tp_error_report, evt_trigger_error_report, NULL);
		if (ret)
			return ret;
	}
	return register_die_notifier(&evt_trigger_die_nb);
}

void evt_trigger_exit(void)
{
	unregister_die_notifier(&evt_trigger_die_nb);
	if (evt_tp_error_report) {
		tracepoint_probe_unregister(evt_tp_error_report, evt_trigger_error_report, NULL);
		tracepoint_synchronize_unregister();
	}
	irq_work_sync(&evt_trigger_iw);
	cancel_work_sync(&evt_trigger_work);
}
