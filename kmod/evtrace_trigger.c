// SPDX-License-Identifier: GPL-2.0
/*
 * Triggers: keep what the rings hold when the kernel reports a bug, for a
 * drainer to save (evdrain --snapshots) or anyone later (evctl snapshot).
 *
 * Hooks: the error_report_end tracepoint covers KFENCE, KASAN and, since
 * 5.17, every WARN (__warn() fires it with ERROR_DETECTOR_WARN once the
 * report is printed); an oops goes through the die notifier chain
 * (DIE_OOPS), which has no tracepoint. No kprobe is needed, and both hooks
 * exist on every kernel this module builds for. They may run in any
 * context, NMI included for die: the hook only claims the one trigger slot
 * (a cmpxchg: a storm of reports fires one trigger per interval), records an
 * evtrace_trigger event and queues an irq_work; a work item then flushes
 * every ring, holds each at its bound (as SNAPSHOT does, but until read:
 * an overwriting writer discards rather than take what preceded the
 * report), keeps the bounds for SNAPSHOT with TRIGGER_SEQ (the snapshot
 * unit, evtrace_snapshot.c, owns the holds) and multicasts NOTIFY_TRIGGER.
 * With nobody listening the hold keeps the rings' content in memory until a
 * reader takes it, or trigger_keep_ms pass.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/tracepoint.h>
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/netlink.h>
#include <linux/cpumask.h>
#include <trace/events/error_report.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_record.h"
#include "evtrace_snapshot.h"
#include "evtrace_notify.h"
#include "evtrace_tp.h"
#include "evtrace_trigger.h"

static const char *const evt_trigger_names[EVT_NR_TRIGGERS] = {
	[EVT_TRIGGER_KFENCE] = "kfence",
	[EVT_TRIGGER_KASAN] = "kasan",
	[EVT_TRIGGER_WARN] = "warn",
	[EVT_TRIGGER_OOPS] = "oops",
};

#define EVT_TRIGGER_INTERVAL_MIN	100
#define EVT_TRIGGER_INTERVAL_MAX	3600000
#define EVT_TRIGGER_INTERVAL_DEFAULT	10000
/*
 * An unread trigger's hold goes after this long: long enough for a person
 * the kernel log tells to save it by hand, short enough that a report
 * nobody reads (any WARN an unprivileged user can reach) does not stop an
 * overwriting flight recorder for good.
 */
#define EVT_TRIGGER_KEEP_MAX		86400000
#define EVT_TRIGGER_KEEP_DEFAULT	600000

/* Off unless asked: a trigger's hold turns an overwriting ring into a discarding one until read. */
static unsigned int evt_trigger_mask;
static unsigned int evt_trigger_interval_ms = EVT_TRIGGER_INTERVAL_DEFAULT;
static unsigned int evt_trigger_keep_ms = EVT_TRIGGER_KEEP_DEFAULT;

/*
 * The hooks are attached only while a trigger is on: attaching patches
 * kernel text on every CPU, which a module loaded on every machine with
 * triggers off should not do. The parameter may be written (sysfs) before
 * init has run and while exit runs: evt_trigger_hooks_lock orders both.
 */
static DEFINE_MUTEX(evt_trigger_hooks_lock);
static bool evt_trigger_live;		/* between init and exit */
static bool evt_trigger_hooked;
static int evt_trigger_hooks_sync(void);

static int evt_trigger_mask_set(const char *val, const struct kernel_param *kp)
{
	char buf[64], *list, *name;
	unsigned int mask = 0, old, i;
	int ret;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		goto bad;
	/* strim() returns the text without its leading blanks: " none" is none. */
	list = strim(buf);
	if (!strcmp(list, "none") || !*list)
		goto set;
	if (!strcmp(list, "all")) {
		mask = BIT(EVT_NR_TRIGGERS) - 1;
		goto set;
	}
	while ((name = strsep(&list, ","))) {
		name = strim(name);
		for (i = 0; i < EVT_NR_TRIGGERS; i++)
			if (!strcmp(name, evt_trigger_names[i]))
				break;
		if (i == EVT_NR_TRIGGERS)
			goto bad;
		mask |= BIT(i);
	}
set:
	mutex_lock(&evt_trigger_hooks_lock);
	old = evt_trigger_mask;
	WRITE_ONCE(evt_trigger_mask, mask);
	ret = evt_trigger_live ? evt_trigger_hooks_sync() : 0;
	if (ret)
		WRITE_ONCE(evt_trigger_mask, old);
	mutex_unlock(&evt_trigger_hooks_lock);
	return ret;
bad:
	/* A value written through sysfs ends in a newline: one log line all the same. */
	pr_err("triggers=%.*s is invalid: it must be none, all, or a comma-separated list of kasan, kfence, warn and oops\n",
	       (int)strcspn(val, "\n"), val);
	return -EINVAL;
}

static int evt_trigger_mask_get(char *buf, const struct kernel_param *kp)
{
	unsigned int mask = READ_ONCE(evt_trigger_mask), i;
	int n = 0;

	for (i = 0; i < EVT_NR_TRIGGERS; i++)
		if (mask & BIT(i))
			n += sysfs_emit_at(buf, n, "%s%s", n ? "," : "", evt_trigger_names[i]);
	return n + sysfs_emit_at(buf, n, "%s\n", n ? "" : "none");
}

static const struct kernel_param_ops evt_trigger_mask_ops = {
	.set = evt_trigger_mask_set,
	.get = evt_trigger_mask_get,
};
module_param_cb(triggers, &evt_trigger_mask_ops, NULL, 0644);
MODULE_PARM_DESC(triggers, "kernel reports that keep the rings for a snapshot: none (default), all, "
		 "or a list of kasan, kfence, warn, oops");

/*
 * A millisecond parameter from @min to @max (@zero: what 0 means, when it
 * may be 0); out of range, a log line names it and its range.
 */
static int evt_ms_param_set(const char *val, const struct kernel_param *kp, unsigned int min,
			    unsigned int max, const char *zero)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms) || ms < min || ms > max) {
		/* A value written through sysfs ends in a newline: one log line all the same. */
		pr_err("%s=%.*s is invalid: it must be from %u%s to %u\n", kp->name,
		       (int)strcspn(val, "\n"), val, min, zero, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return 0;
}

static int evt_trigger_interval_set(const char *val, const struct kernel_param *kp)
{
	return evt_ms_param_set(val, kp, EVT_TRIGGER_INTERVAL_MIN, EVT_TRIGGER_INTERVAL_MAX, "");
}

static const struct kernel_param_ops evt_trigger_interval_ops = {
	.set = evt_trigger_interval_set,
	.get = param_get_uint,
};
module_param_cb(trigger_interval_ms, &evt_trigger_interval_ops, &evt_trigger_interval_ms, 0644);
MODULE_PARM_DESC(trigger_interval_ms, "no trigger within this many ms of the last one, "
		 EVT_STR(EVT_TRIGGER_INTERVAL_MIN) " to " EVT_STR(EVT_TRIGGER_INTERVAL_MAX)
		 " (default " EVT_STR(EVT_TRIGGER_INTERVAL_DEFAULT) ")");

static int evt_trigger_keep_set(const char *val, const struct kernel_param *kp)
{
	return evt_ms_param_set(val, kp, 0, EVT_TRIGGER_KEEP_MAX, " (until read)");
}

static const struct kernel_param_ops evt_trigger_keep_ops = {
	.set = evt_trigger_keep_set,
	.get = param_get_uint,
};
module_param_cb(trigger_keep_ms, &evt_trigger_keep_ops, &evt_trigger_keep_ms, 0644);
MODULE_PARM_DESC(trigger_keep_ms, "a trigger's hold on the rings goes after this many ms unread, 0 = until read, at most "
		 EVT_STR(EVT_TRIGGER_KEEP_MAX) " (default " EVT_STR(EVT_TRIGGER_KEEP_DEFAULT) ")");

/* 1 from the hook that claims it until its work has run: one trigger at a time. */
static atomic_t evt_trigger_busy = ATOMIC_INIT(0);
static u64 evt_trigger_last_ts;			/* written by the claimer only */
static struct evt_trigger_info evt_trigger_now;	/* likewise, read by the work */
static atomic64_t evt_trigger_seq = ATOMIC64_INIT(0);
static atomic64_t evt_trigger_fired[EVT_NR_TRIGGERS];
static atomic64_t evt_trigger_suppressed = ATOMIC64_INIT(0);

static struct irq_work evt_trigger_iw;
static struct work_struct evt_trigger_work;

static void evt_trigger_fire(u32 reason, unsigned long id)
{
	struct evt_pl_trigger pl;
	bool online = cpu_online(raw_smp_processor_id());
	u64 now;

	if (!(READ_ONCE(evt_trigger_mask) & BIT(reason)) || !READ_ONCE(evt_tracing))
		return;
	/*
	 * A CPU going offline is out of cpu_online_mask before its last
	 * irq_work_run() (smpcfd_dying_cpu()): an irq_work queued there after
	 * it would never run, the slot stay claimed for good and
	 * irq_work_sync() at unload spin. Below the work is queued at once
	 * instead (irq_work_queue_on() is not exported): not from an NMI,
	 * where the report is let go.
	 */
	if (unlikely(!online && in_nmi())) {
		atomic64_inc(&evt_trigger_suppressed);
		return;
	}
	if (atomic_cmpxchg(&evt_trigger_busy, 0, 1)) {
		atomic64_inc(&evt_trigger_suppressed);
		return;
	}
	now = evt_clock();
	if (evt_trigger_last_ts &&
	    now - evt_trigger_last_ts < (u64)READ_ONCE(evt_trigger_interval_ms) * NSEC_PER_MSEC) {
		atomic_set_release(&evt_trigger_busy, 0);
		atomic64_inc(&evt_trigger_suppressed);
		return;
	}
	evt_trigger_last_ts = now;
	atomic64_inc(&evt_trigger_fired[reason]);
	pl.reason = reason;
	pl.id = id;
	pl.seq = atomic64_inc_return(&evt_trigger_seq);
	EVT_RECORD_FIXED(TRIGGER, &pl);
	evt_trigger_now = (struct evt_trigger_info){ .seq = pl.seq, .ts = now, .id = id, .reason = reason };
	if (likely(online))
		irq_work_queue(&evt_trigger_iw);
	else
		queue_work(system_unbound_wq, &evt_trigger_work);
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

#ifdef EVT_TEST_WINDOWS
/* Test builds only: a trigger as a report of that kind would fire it, without the report. */
static int evt_trigger_test_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;

	for (i = 0; i < EVT_NR_TRIGGERS; i++)
		if (sysfs_streq(val, evt_trigger_names[i])) {
			evt_trigger_fire(i, 0);
			return 0;
		}
	return -EINVAL;
}

static const struct kernel_param_ops evt_trigger_test_ops = {
	.set = evt_trigger_test_set,
};
module_param_cb(test_trigger, &evt_trigger_test_ops, NULL, 0200);
MODULE_PARM_DESC(test_trigger, "test builds only: fire a trigger of this kind (kasan, kfence, warn, oops) as its report would");
#endif

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

#ifdef EVT_TEST_WINDOWS
#include <linux/kprobes.h>
/*
 * Test builds only: test_trigger_dying=1 runs the die notifier's hook once
 * on a CPU on its way down, past its last irq_work_run() (a kprobe on
 * sched_cpu_dying()), as an oops there would run it.
 */
static atomic_t evt_test_dying_armed = ATOMIC_INIT(0);

static int evt_test_dying_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct die_args args = { .regs = regs, .str = "test_trigger_dying" };

	if (!cpu_online(raw_smp_processor_id()) && atomic_xchg(&evt_test_dying_armed, 0))
		evt_trigger_die(NULL, DIE_OOPS, &args);
	return 0;
}

static struct kprobe evt_test_dying_kp = {
	.symbol_name = "sched_cpu_dying",
	.pre_handler = evt_test_dying_pre,
};
static bool evt_test_dying_registered;

static int evt_test_dying_set(const char *val, const struct kernel_param *kp)
{
	int ret = 0;

	mutex_lock(&evt_trigger_hooks_lock);
	if (!evt_test_dying_registered && evt_trigger_live) {
		ret = register_kprobe(&evt_test_dying_kp);
		evt_test_dying_registered = !ret;
	}
	mutex_unlock(&evt_trigger_hooks_lock);
	if (!ret)
		atomic_set(&evt_test_dying_armed, 1);
	return ret;
}

static const struct kernel_param_ops evt_test_dying_ops = {
	.set = evt_test_dying_set,
};
module_param_cb(test_trigger_dying, &evt_test_dying_ops, NULL, 0200);
MODULE_PARM_DESC(test_trigger_dying, "test builds only: the next CPU going offline runs the oops hook past its last irq_work_run()");

static void evt_test_dying_exit(void)
{
	if (evt_test_dying_registered)
		unregister_kprobe(&evt_test_dying_kp);
	evt_test_dying_registered = false;
}
#else
static void evt_test_dying_exit(void) { }
#endif

static void evt_trigger_iw_fn(struct irq_work *w)
{
	queue_work(system_unbound_wq, &evt_trigger_work);
}

static void evt_trigger_work_fn(struct work_struct *w)
{
	struct evt_trigger_info t = evt_trigger_now;
	unsigned int keep_ms = READ_ONCE(evt_trigger_keep_ms);
	cpumask_var_t unanswered;
	bool mask = zalloc_cpumask_var(&unanswered, GFP_KERNEL);
	int ret;

	/* No lock held across the flush: netlink never waits for this work. */
	evt_snapshot_trigger(&t, keep_ms, mask ? unanswered : NULL);
	/* The next report may claim the slot: evt_trigger_now was copied. */
	atomic_set_release(&evt_trigger_busy, 0);
	if (mask && !cpumask_empty(unanswered))
		pr_warn("trigger %llu: CPUs %*pbl did not answer the flush (spinning with interrupts off?): their rings are kept as they were, the events of each open sub-buffer left out\n",
			t.seq, cpumask_pr_args(unanswered));
	ret = evt_notify_trigger(&t, mask ? unanswered : NULL);
	if (ret == -ESRCH && keep_ms)
		pr_info("trigger %llu (%s) kept the rings: nobody listens; evctl snapshot --trigger %llu saves them (they record again after trigger_keep_ms=%u unread)\n",
			t.seq, evt_trigger_names[t.reason], t.seq, keep_ms);
	else if (ret == -ESRCH)
		pr_info("trigger %llu (%s) kept the rings: nobody listens; evctl snapshot --trigger %llu saves them (held until read: trigger_keep_ms=0)\n",
			t.seq, evt_trigger_names[t.reason], t.seq);
	if (mask)
		free_cpumask_var(unanswered);
}

static int evt_trigger_show(struct seq_file *m, void *v)
{
	struct evt_trigger_kept k;
	unsigned int i;

	evt_snapshot_kept(&k);
	seq_puts(m, "triggers ");
	for (i = 0; i < EVT_NR_TRIGGERS; i++)
		if (READ_ONCE(evt_trigger_mask) & BIT(i))
			seq_printf(m, "%s ", evt_trigger_names[i]);
	seq_printf(m, "interval_ms %u keep_ms %u\n", READ_ONCE(evt_trigger_interval_ms),
		   READ_ONCE(evt_trigger_keep_ms));
	for (i = 0; i < EVT_NR_TRIGGERS; i++)
		seq_printf(m, "fired %s %lld\n", evt_trigger_names[i], atomic64_read(&evt_trigger_fired[i]));
	seq_printf(m, "suppressed %lld\n", atomic64_read(&evt_trigger_suppressed));
	if (k.t.seq)
		seq_printf(m, "kept %llu %s ts %llu%s\n", k.t.seq, evt_trigger_names[k.t.reason], k.t.ts,
			   k.expired ? " expired" : k.ready ? "" : " flushing");
	else
		seq_puts(m, "kept none\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(evt_trigger);

static struct evt_tp_hook evt_trigger_report_hook = {
	.name = "error_report_end", .probe = evt_trigger_error_report,
};

/* Attach or detach the hooks as the mask says; evt_trigger_hooks_lock held. */
static int evt_trigger_hooks_sync(void)
{
	bool want = READ_ONCE(evt_trigger_mask);
	int ret;

	if (want == evt_trigger_hooked)
		return 0;
	if (want) {
		if (evt_trigger_report_hook.tp) {
			ret = evt_tp_attach(&evt_trigger_report_hook, NULL);
			if (ret)
				return ret;
		}
		ret = register_die_notifier(&evt_trigger_die_nb);
		if (ret) {
			evt_tp_detach(&evt_trigger_report_hook, NULL);
			tracepoint_synchronize_unregister();
			return ret;
		}
	} else {
		unregister_die_notifier(&evt_trigger_die_nb);
		evt_tp_detach(&evt_trigger_report_hook, NULL);
		/* Also a grace period for the die notifier's RCU-protected chain walk. */
		tracepoint_synchronize_unregister();
	}
	evt_trigger_hooked = want;
	return 0;
}

/**
 * evt_trigger_init() - find the report hooks, attach them if a trigger is on
 * @dir: the module's debugfs directory, for the file triggers
 *
 * Return: 0 or a negative errno.
 */
int evt_trigger_init(struct dentry *dir)
{
	static struct evt_tp_hook *const hooks[] = { &evt_trigger_report_hook };
	int ret;

	init_irq_work(&evt_trigger_iw, evt_trigger_iw_fn);
	INIT_WORK(&evt_trigger_work, evt_trigger_work_fn);
	evt_tp_find(hooks, ARRAY_SIZE(hooks));
	mutex_lock(&evt_trigger_hooks_lock);
	ret = evt_trigger_hooks_sync();
	evt_trigger_live = !ret;
	mutex_unlock(&evt_trigger_hooks_lock);
	if (ret)
		return ret;
	debugfs_create_file("triggers", 0444, dir, NULL, &evt_trigger_fops);
	return 0;
}

/**
 * evt_trigger_exit() - detach the hooks, then wait for what they started
 */
void evt_trigger_exit(void)
{
	mutex_lock(&evt_trigger_hooks_lock);
	evt_trigger_live = false;
	WRITE_ONCE(evt_trigger_mask, 0);
	evt_trigger_hooks_sync();
	evt_test_dying_exit();
	mutex_unlock(&evt_trigger_hooks_lock);
	irq_work_sync(&evt_trigger_iw);
	cancel_work_sync(&evt_trigger_work);
}
