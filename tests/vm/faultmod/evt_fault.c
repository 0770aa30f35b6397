// SPDX-License-Identifier: GPL-2.0
/*
 * A scratch module that provokes, on purpose, each kind of kernel report the
 * VM harness must turn into a failed run (tests/vm/t-harness.sh): a WARNING,
 * a KASAN out-of-bounds write, a lockdep inconsistent-lock-state report and a
 * kmemleak leak. Test-only: it is not part of evtrace.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/delay.h>
#include <linux/string.h>

static char *fault = "none";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "none, warn, kasan, lockdep or leak");

static DEFINE_RAW_SPINLOCK(evt_fault_lock);
static struct hrtimer evt_fault_timer;
static bool evt_fault_timer_used;
static void *evt_fault_kept;
static volatile int evt_fault_index = 16;

static enum hrtimer_restart evt_fault_timer_fn(struct hrtimer *t)
{
	/* The same lock in hard interrupt context ... */
	raw_spin_lock(&evt_fault_lock);
	raw_spin_unlock(&evt_fault_lock);
	return HRTIMER_NORESTART;
}

static int __init evt_fault_init(void)
{
	if (!strcmp(fault, "warn")) {
		WARN(1, "evt_fault: a warning the harness must catch\n");
	} else if (!strcmp(fault, "kasan")) {
		char *p = kmalloc(16, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		/* One byte past the object, through an index the compiler cannot see. */
		p[evt_fault_index] = 1;
		kfree(p);
	} else if (!strcmp(fault, "lockdep")) {
		/* ... as with interrupts on in process context: inconsistent lock state. */
		raw_spin_lock(&evt_fault_lock);
		raw_spin_unlock(&evt_fault_lock);
		hrtimer_init(&evt_fault_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		evt_fault_timer.function = evt_fault_timer_fn;
		evt_fault_timer_used = true;
		hrtimer_start(&evt_fault_timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
		msleep(100);
	} else if (!strcmp(fault, "leak")) {
		/* Kept, then forgotten: nothing refers to it any more. */
		evt_fault_kept = kmalloc(128, GFP_KERNEL);
		if (evt_fault_kept)
			memset(evt_fault_kept, 0x5a, 128);
		WRITE_ONCE(evt_fault_kept, NULL);
	} else if (strcmp(fault, "none")) {
		pr_err("evt_fault: fault=%s: want none, warn, kasan, lockdep or leak\n", fault);
		return -EINVAL;
	}
	pr_info("evt_fault: loaded, fault=%s\n", fault);
	return 0;
}

static void __exit evt_fault_exit(void)
{
	if (evt_fault_timer_used)
		hrtimer_cancel(&evt_fault_timer);
}

module_init(evt_fault_init);
module_exit(evt_fault_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("evtrace test: provokes the kernel reports the VM harness must catch");
