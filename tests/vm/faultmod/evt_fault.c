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
 * the tracepoint). And, for the triggers
 * (tests/vm/t-trigger.sh), the kernel in trouble: oops_locked, an oops
 * inside a spin_lock_irqsave() section while another CPU spins on that lock
 * with interrupts off, for good (until this module is unloaded: the spinner
 * gives up then). It waits for "go" (echo 1 > .../parameters/go): loading
 * this module (its memory made read-only, its init freed after a grace
 * period) waits for every CPU, so the oops must come after it. Test-only:
 * not part of evtrace.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/delay.h>
#include <linux/string.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/completion.h>
#include <linux/irqflags.h>
#include <asm/mmu.h>
#include <trace/events/power.h>

static char *fault = "none";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "none, warn, kasan, lockdep, leak, race, power or oops_locked");

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

/* oops_locked: the lock the dead task keeps, the CPU that spins on it. */
static DEFINE_SPINLOCK(evt_fault_spin);
static struct task_struct *evt_fault_spinner, *evt_fault_holder;
static atomic_t evt_fault_spinning = ATOMIC_INIT(0);
static DECLARE_COMPLETION(evt_fault_go);
static bool evt_fault_unloading;

static int evt_fault_go_set(const char *val, const struct kernel_param *kp)
{
	complete(&evt_fault_go);
	return 0;
}

static const struct kernel_param_ops evt_fault_go_ops = {
	.set = evt_fault_go_set,
};
module_param_cb(go, &evt_fault_go_ops, NULL, 0200);
MODULE_PARM_DESC(go, "oops_locked: oops now");

static int evt_fault_spin_fn(void *unused)
{
	unsigned long flags;

	/*
	 * No user address space left loaded here: the other CPUs' TLB
	 * shootdowns for it would wait for this one for good.
	 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	leave_mm();
#else
	leave_mm(smp_processor_id());
#endif
	local_irq_save(flags);
	atomic_set(&evt_fault_spinning, 1);
	/* spin_lock_irqsave(), with a way out: rmmod. */
	while (!spin_trylock(&evt_fault_spin)) {
		if (kthread_should_stop())
			break;
		cpu_relax();
	}
	local_irq_restore(flags);
	pr_info("evt_fault: the spinner on CPU %d gives up\n", raw_smp_processor_id());
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int evt_fault_hold_fn(void *unused)
{
	unsigned long flags;

	/* Interruptible: a long wait is no hung task (nothing signals a kthread). */
	while (wait_for_completion_interruptible(&evt_fault_go))
		;
	if (READ_ONCE(evt_fault_unloading))
		return 0;
	spin_lock_irqsave(&evt_fault_spin, flags);
	wake_up_process(evt_fault_spinner);
	while (!atomic_read(&evt_fault_spinning))
		cpu_relax();
	/* Dies here, the lock held, interrupts off: the spinner never gets it. */
	BUG();
	spin_unlock_irqrestore(&evt_fault_spin, flags);
	return 0;
}

/* A holder on the first online CPU, the spinner on the next one. */
static int evt_fault_oops_locked(void)
{
	unsigned int a = cpumask_first(cpu_online_mask), b = cpumask_next(a, cpu_online_mask);

	if (b >= nr_cpu_ids) {
		pr_err("evt_fault: oops_locked needs two online CPUs\n");
		return -ENODEV;
	}
	evt_fault_spinner = kthread_create(evt_fault_spin_fn, NULL, "evt_fault_spin");
	if (IS_ERR(evt_fault_spinner))
		return PTR_ERR(evt_fault_spinner);
	get_task_struct(evt_fault_spinner);
	kthread_bind(evt_fault_spinner, b);
	evt_fault_holder = kthread_create(evt_fault_hold_fn, NULL, "evt_fault_hold");
	if (IS_ERR(evt_fault_holder)) {
		kthread_stop(evt_fault_spinner);
		put_task_struct(evt_fault_spinner);
		evt_fault_spinner = NULL;
		return PTR_ERR(evt_fault_holder);
	}
	/* Kept: at unload, its exit (an oops included) is waited for. */
	get_task_struct(evt_fault_holder);
	kthread_bind(evt_fault_holder, a);
	wake_up_process(evt_fault_holder);
	pr_info("evt_fault: at go, an oops on CPU %u holding a lock CPU %u spins on\n", a, b);
	return 0;
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
	} else if (!strcmp(fault, "race")) {
		int err = evt_fault_race();

		if (err)
			return err;
	} else if (!strcmp(fault, "power")) {
		int err = misc_register(&evt_fault_dev);

		if (err)
			return err;
		evt_fault_dev_used = true;
	} else if (!strcmp(fault, "oops_locked")) {
		int err = evt_fault_oops_locked();

		if (err)
			return err;
	} else if (strcmp(fault, "none")) {
		pr_err("evt_fault: fault=%s: want none, warn, kasan, lockdep, leak, race, power or oops_locked\n",
		       fault);
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
	if (evt_fault_spinner) {
		/* Never told to go: the holder returns, the spinner never ran. */
		WRITE_ONCE(evt_fault_unloading, true);
		complete(&evt_fault_go);
		kthread_stop(evt_fault_holder);
		put_task_struct(evt_fault_holder);
		kthread_stop(evt_fault_spinner);
		put_task_struct(evt_fault_spinner);
	}
}

module_init(evt_fault_init);
module_exit(evt_fault_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("evtrace test: provokes the kernel reports the VM harness must catch");
