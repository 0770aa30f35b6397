// SPDX-License-Identifier: GPL-2.0
/*
 * Test sources: a generator (one pinned kernel thread per CPU recording
 * events that carry (cpu, seq)) and a per-CPU hrtimer recording from hard
 * interrupt context. Started and stopped over netlink (GENERATE, TIMER and
 * their STOPs, evctl generate and evctl timer); the read-only debugfs file
 * "generate" shows their counts per CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/hrtimer.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_record.h"
#include "evtrace_gen.h"

struct evt_gen_cpu {
	struct task_struct *task;
	u64 generated[EVT_NR_CHANNELS];	/* events offered to the tracer */
	u8 done;			/* u8: see evt_tracing */
};

struct evt_timer_cpu {
	struct hrtimer timer;
	u64 seq;
	u64 generated;
};

static struct evt_gen_cpu *gen_cpus;
static DEFINE_PER_CPU(struct evt_timer_cpu, evt_timers);
static DEFINE_MUTEX(gen_lock);
static ktime_t timer_period;

static struct evt_gen_params gen_cfg;

static const struct evt_event_desc *ev_compact, *ev_wide, *ev_normal, *ev_tick;

static int evt_gen_compact(u32 cpu, u64 seq, bool mix)
{
	if (mix && (seq & 3) == 3) {
		struct evt_pl_gen_compact_wide pl = {
			.cpu = cpu, .seq = seq, .a = seq * 2654435761ULL, .b = ~seq,
		};

		if (!evt_event_enabled(ev_wide))
			return -ENODATA;
		return EVT_RECORD_FIXED(GEN_COMPACT_WIDE, &pl);
	} else {
		struct evt_pl_gen_compact pl = { .cpu = cpu, .seq = seq };

		if (!evt_event_enabled(ev_compact))
			return -ENODATA;
		return EVT_RECORD_FIXED(GEN_COMPACT, &pl);
	}
}

static int evt_gen_normal(u32 cpu, u64 seq, bool mix)
{
	/* The sequence (u16 length, the bytes) is the variable part. */
	struct { struct evt_pl_gen_normal h; u16 len; u8 fill[63]; } __packed pl;
	u16 fill = mix ? seq % 64 : 16;

	if (!evt_event_enabled(ev_normal))
		return -ENODATA;
	pl.h.cpu = cpu;
	pl.h.seq = seq;
	pl.len = fill;
	memset(pl.fill, (int)(seq & 0xff), fill);
	return EVT_RECORD(GEN_NORMAL, &pl.h, sizeof(pl.h) + 2 + fill);
}

/* How far behind its schedule a rate-limited generator may fall and catch up. */
#define EVT_GEN_MAX_LAG_NS	(20 * NSEC_PER_MSEC)

static int evt_gen_thread(void *arg)
{
	int cpu = (long)arg;
	struct evt_gen_cpu *g = &gen_cpus[cpu];
	u64 seq, start = ktime_get_ns();

	for (seq = 0; seq < gen_cfg.events && !kthread_should_stop(); seq++) {
		if ((gen_cfg.channels & EVT_GEN_CHANNEL_COMPACT) &&
		    evt_gen_compact(cpu, seq, gen_cfg.mix) != -ENODATA)
			WRITE_ONCE(g->generated[EVT_CHAN_COMPACT], g->generated[EVT_CHAN_COMPACT] + 1);
		if ((gen_cfg.channels & EVT_GEN_CHANNEL_NORMAL) &&
		    evt_gen_normal(cpu, seq, gen_cfg.mix) != -ENODATA)
			WRITE_ONCE(g->generated[EVT_CHAN_NORMAL], g->generated[EVT_CHAN_NORMAL] + 1);
		if (gen_cfg.rate) {
			/* Sleep whenever ahead of the schedule seq / rate. */
			u64 due = start + div_u64((seq + 1) * NSEC_PER_SEC, gen_cfg.rate);
			u64 now = ktime_get_ns();
			s64 ahead = (s64)(due - now);

			if (ahead > 200 * NSEC_PER_USEC) {
				/* Interruptible: kthread_stop() ends the wait. */
				ktime_t to = ns_to_ktime(ahead);

				set_current_state(TASK_INTERRUPTIBLE);
				if (!kthread_should_stop())
					schedule_hrtimeout_range(&to, 100 * NSEC_PER_USEC,
								 HRTIMER_MODE_REL);
				__set_current_state(TASK_RUNNING);
			}
			/*
			 * Far behind (the CPU was busy with hotplug, or starved):
			 * resume at the rate instead of catching up flat out; a
			 * rate is a ceiling, a burst would only overflow rings.
			 */
			else if (ahead < -(s64)EVT_GEN_MAX_LAG_NS)
				start += (u64)(-ahead);
		}
		/* Also at a rate it cannot reach: never hog the CPU. */
		if ((seq & 255) == 255)
			cond_resched();
	}
	WRITE_ONCE(g->done, true);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void evt_gen_stop_locked(void)
{
	int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (gen_cpus[cpu].task) {
			kthread_stop(gen_cpus[cpu].task);
			put_task_struct(gen_cpus[cpu].task);
			gen_cpus[cpu].task = NULL;
		}
	}
}

/*
 * The old threads are stopped before the new settings are published: they
 * read gen_cfg on every event, and one that ran flat out would read a new
 * low rate as a schedule minutes ahead.
 */
static int evt_gen_start_locked(const struct evt_gen_params *cfg, const struct cpumask *cpus)
{
	int cpu;

	evt_gen_stop_locked();
	gen_cfg = *cfg;
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		struct task_struct *t;

		/* Counts run on across runs, like the rings' statistics. */
		gen_cpus[cpu].done = false;
		t = kthread_create_on_node(evt_gen_thread, (void *)(long)cpu, cpu_to_node(cpu),
					   "evtrace_gen/%d", cpu);
		if (IS_ERR(t)) {
			evt_gen_stop_locked();
			return PTR_ERR(t);
		}
		kthread_bind(t, cpu);
		get_task_struct(t);
		gen_cpus[cpu].task = t;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (gen_cpus[cpu].task)
			wake_up_process(gen_cpus[cpu].task);
	return 0;
}

static enum hrtimer_restart evt_timer_fn(struct hrtimer *t)
{
	struct evt_timer_cpu *tc = container_of(t, struct evt_timer_cpu, timer);
	u32 cpu = smp_processor_id();
	struct evt_pl_gen_compact pl = { .cpu = cpu, .seq = tc->seq };

	if (evt_event_enabled(ev_tick) && EVT_RECORD_FIXED(TIMER_TICK, &pl) != -ENODATA)
		tc->generated++;
	tc->seq++;
	hrtimer_forward_now(t, timer_period);
	return HRTIMER_RESTART;
}

static void evt_timer_start_local(void *unused)
{
	struct evt_timer_cpu *tc = this_cpu_ptr(&evt_timers);

	hrtimer_start(&tc->timer, timer_period, HRTIMER_MODE_REL_PINNED_HARD);
}

static void evt_timers_stop_locked(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct evt_timer_cpu *tc = per_cpu_ptr(&evt_timers, cpu);

		hrtimer_cancel(&tc->timer);
	}
}

/**
 * evt_gen_start() - (re)start the generator threads
 * @p: what to generate
 * @cpus: on which CPUs (those of them online)
 *
 * Return: 0 or a negative errno.
 */
int evt_gen_start(const struct evt_gen_params *p, const struct cpumask *cpus)
{
	int ret;

	mutex_lock(&gen_lock);
	ret = evt_gen_start_locked(p, cpus);
	mutex_unlock(&gen_lock);
	return ret;
}

/**
 * evt_gen_stop() - stop the generator threads and wait for them to end
 */
void evt_gen_stop(void)
{
	mutex_lock(&gen_lock);
	evt_gen_stop_locked();
	mutex_unlock(&gen_lock);
}

/**
 * evt_gen_info() - what the generator and the hrtimer did on one CPU
 * @cpu: a possible CPU
 * @g: filled in
 */
void evt_gen_info(int cpu, struct evt_gen_info *g)
{
	g->running = gen_cpus[cpu].task != NULL;
	g->done = READ_ONCE(gen_cpus[cpu].done);
	g->generated[EVT_CHAN_COMPACT] = READ_ONCE(gen_cpus[cpu].generated[EVT_CHAN_COMPACT]);
	g->generated[EVT_CHAN_NORMAL] = READ_ONCE(gen_cpus[cpu].generated[EVT_CHAN_NORMAL]);
	g->timer = READ_ONCE(per_cpu_ptr(&evt_timers, cpu)->generated);
}

/**
 * evt_gen_stats_show() - the debugfs file "generate": a line per CPU
 * @m: the file
 */
void evt_gen_stats_show(struct seq_file *m)
{
	int cpu;

	seq_puts(m, "cpu running done compact normal timer\n");
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct evt_gen_cpu *g = &gen_cpus[cpu];
		struct evt_timer_cpu *tc = per_cpu_ptr(&evt_timers, cpu);

		if (!cpu_possible(cpu))
			continue;
		seq_printf(m, "%d %d %d %llu %llu %llu\n", cpu, g->task != NULL, READ_ONCE(g->done),
			   READ_ONCE(g->generated[EVT_CHAN_COMPACT]),
			   READ_ONCE(g->generated[EVT_CHAN_NORMAL]), READ_ONCE(tc->generated));
	}
}

static int evt_gen_show(struct seq_file *m, void *v)
{
	evt_gen_stats_show(m);
	return 0;
}

static int evt_gen_open(struct inode *inode, struct file *file)
{
	return single_open(file, evt_gen_show, NULL);
}

static const struct file_operations evt_gen_fops = {
	.owner = THIS_MODULE,
	.open = evt_gen_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * evt_timer_start() - (re)start the hrtimer source on every CPU
 * @period_us: microseconds between two events of a CPU, within
 *	EVT_TIMER_PERIOD_US_MIN..MAX (the netlink policy checks)
 */
void evt_timer_start(unsigned int period_us)
{
	mutex_lock(&gen_lock);
	evt_timers_stop_locked();
	timer_period = ns_to_ktime((u64)period_us * NSEC_PER_USEC);
	on_each_cpu(evt_timer_start_local, NULL, 1);
	mutex_unlock(&gen_lock);
}

/**
 * evt_timer_stop() - stop the hrtimer source on every CPU
 */
void evt_timer_stop(void)
{
	mutex_lock(&gen_lock);
	evt_timers_stop_locked();
	mutex_unlock(&gen_lock);
}

/**
 * evt_gen_init() - the generators' state, the hrtimers and the file "generate"
 * @dir: the module's debugfs directory
 *
 * Return: 0 or -ENOMEM.
 */
int evt_gen_init(struct dentry *dir)
{
	int cpu;

	ev_compact = evt_find_event(EVT_CHAN_OF_GEN_COMPACT, EVT_ID_GEN_COMPACT);
	ev_wide = evt_find_event(EVT_CHAN_OF_GEN_COMPACT_WIDE, EVT_ID_GEN_COMPACT_WIDE);
	ev_normal = evt_find_event(EVT_CHAN_OF_GEN_NORMAL, EVT_ID_GEN_NORMAL);
	ev_tick = evt_find_event(EVT_CHAN_OF_TIMER_TICK, EVT_ID_TIMER_TICK);
	gen_cpus = kcalloc(nr_cpu_ids, sizeof(*gen_cpus), GFP_KERNEL);
	if (!gen_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct evt_timer_cpu *tc = per_cpu_ptr(&evt_timers, cpu);

		hrtimer_init(&tc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		tc->timer.function = evt_timer_fn;
	}
	debugfs_create_file("generate", 0444, dir, NULL, &evt_gen_fops);
	return 0;
}

/**
 * evt_gen_exit() - stop the generators and the hrtimers, free their state
 */
void evt_gen_exit(void)
{
	if (!gen_cpus)
		return;
	mutex_lock(&gen_lock);
	evt_gen_stop_locked();
	evt_timers_stop_locked();
	mutex_unlock(&gen_lock);
	kfree(gen_cpus);
	gen_cpus = NULL;
}
