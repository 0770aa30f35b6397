// SPDX-License-Identifier: GPL-2.0
/*
 * A scratch module that provokes, on purpose, each kind of kernel report the
 * VM harness must turn into a failed run (tests/vm/t-harness.sh): a WARNING,
 * a KASAN out-of-bounds write, a lockdep inconsistent-lock-state report, a
 * kmemleak leak and a KCSAN data race. And, with fault=power, a device
 * /dev/evt_fault whose write of a number N (kHz) fires the kernel's
 * cpu_frequency tracepoint for every online CPU with N (the VM has no
 * cpufreq driver): the power events' test, and a known call path for the
 * kernel stacks' test (write -> evt_fault_write -> evt_fault_freq ->
 * the tracepoint). Test-only: it is not part of evtrace.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/delay.h>
#include <linux/string.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <trace/events/power.h>

static char *fault = "none";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "none, warn, kasan, lockdep, leak, race or power");

static DEFINE_RAW_SPINLOCK(evt_fault_lock);
static struct hrtimer evt_fault_timer;
static bool evt_fault_timer_used;
static void *evt_fault_kept;
static volatile int evt_fault_index = 16;
/* Incremented by two threads at once, without a lock or a marked access. */
static unsigned long evt_fault_racy;

static enum hrtimer_restart evt_fault_timer_fn(struct hrtimer *t)
{
	/* The same lock in hard interrupt context ... */
	raw_spin_lock(&evt_fault_lock);
	raw_spin_unlock(&evt_fault_lock);
	return HRTIMER_NORESTART;
}

static int evt_fault_racer(void *unused)
{
	unsigned long n = 0;

	while (!kthread_should_stop()) {
		/* A plain read and a plain write, every time (barrier(): never
		 * kept in a register): KCSAN watches one access in a few
		 * thousand, and the other thread writes into the window. */
		evt_fault_racy++;
		barrier();
		if (!(++n % 1024))
			cond_resched();
	}
	return 0;
}

/* Two threads on two CPUs (or one, given one), racing for a second. */
static int evt_fault_race(void)
{
	struct task_struct *t[2];
	unsigned int cpu = cpumask_first(cpu_online_mask);
	int i;

	for (i = 0; i < 2; i++) {
		t[i] = kthread_create(evt_fault_racer, NULL, "evt_fault_race/%d", i);
		if (IS_ERR(t[i])) {
			if (i)
				kthread_stop(t[0]);
			return PTR_ERR(t[i]);
		}
		kthread_bind(t[i], cpu);
		if (cpumask_next(cpu, cpu_online_mask) < nr_cpu_ids)
			cpu = cpumask_next(cpu, cpu_online_mask);
	}
	wake_up_process(t[0]);
	wake_up_process(t[1]);
	msleep(1000);
	kthread_stop(t[0]);
	kthread_stop(t[1]);
	return 0;
}

/* Out of line: the stacks' test looks for these two frames. */
static noinline void evt_fault_freq(unsigned int khz)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		trace_cpu_frequency(khz, cpu);
	barrier();
}

static noinline ssize_t evt_fault_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	unsigned int khz;
	int err = kstrtouint_from_user(ubuf, n, 10, &khz);

	if (err)
		return err;
	evt_fault_freq(khz);
	return n;
}

static const struct file_operations evt_fault_fops = {
	.owner = THIS_MODULE,
	.write = evt_fault_write,
	.llseek = noop_llseek,
};

static struct miscdevice evt_fault_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "evt_fault",
	.fops = &evt_fault_fops,
	.mode = 0200,
};
static bool evt_fault_dev_used;

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
	} else if (!strcmp(fault, "race")) {
		int err = evt_fault_race();

		if (err)
			return err;
	} else if (!strcmp(fault, "power")) {
		int err = misc_register(&evt_fault_dev);

		if (err)
			return err;
		evt_fault_dev_used = true;
	} else if (strcmp(fault, "none")) {
		pr_err("evt_fault: fault=%s: want none, warn, kasan, lockdep, leak, race or power\n", fault);
		return -EINVAL;
	}
	pr_info("evt_fault: loaded, fault=%s\n", fault);
	return 0;
}

static void __exit evt_fault_exit(void)
{
	if (evt_fault_timer_used)
		hrtimer_cancel(&evt_fault_timer);
	if (evt_fault_dev_used)
		misc_deregister(&evt_fault_dev);
}

module_init(evt_fault_init);
module_exit(evt_fault_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("evtrace test: provokes the kernel reports the VM harness must catch");
