// SPDX-License-Identifier: GPL-2.0
/*
 * The state dump: at START, what a viewer needs to know about the machine
 * before the first event, in lttng-modules' events and codes (Trace Compass
 * and the LTTng analyses read them): every thread with its process, parent,
 * name and state, every interrupt handler's name, every process's open
 * files and every block device, between lttng_statedump_start and
 * lttng_statedump_end.
 *
 * It runs from a work item, not in START's netlink call, and never holds
 * the machine: threads are found by pid number (find_ge_pid(), as /proc
 * lists them) in batches of EVT_DUMP_BATCH under rcu_read_lock() alone, with
 * a reschedule point between batches, so it can resume after any thread
 * came or went. Its events go to the normal ring of the CPU it runs on;
 * when that ring is past half full it waits for the drainer (up to
 * EVT_DUMP_WAIT_MS in all) rather than lose the dump in discard mode.
 *
 * STOP waits for a dump asked for before it (evt_statedump_finish()): a
 * session of a few milliseconds, or the last chunk of a rotation, has its
 * dump like any other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/delay.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/blkdev.h>
#include "evtrace_rings.h"
#include "evtrace_record.h"
#include "evtrace_statedump.h"

#define EVT_DUMP_BATCH		64
#define EVT_DUMP_WAIT_MS	2000
#define EVT_DUMP_PATH_MAX	256

/* lttng-modules' codes (lttng-statedump-impl.c), which the viewers know. */
enum { EVT_DUMP_USER_THREAD = 0, EVT_DUMP_KERNEL_THREAD = 1 };
enum { EVT_DUMP_MODE_UNKNOWN = 5 };
enum { EVT_DUMP_SUBMODE_NONE = 0 };
enum {
	EVT_DUMP_UNNAMED = 0,
	EVT_DUMP_WAIT_CPU = 2,
	EVT_DUMP_ZOMBIE = 4,
	EVT_DUMP_WAIT = 5,
	EVT_DUMP_DEAD = 7,
};

static void evt_statedump_fn(struct work_struct *w);
static DECLARE_WORK(evt_statedump_work, evt_statedump_fn);
static unsigned int waited_ms;

static bool dump_enabled_(unsigned int channel, unsigned int id)
{
	const struct evt_event_desc *d = evt_find_event(channel, id);

	return d && evt_event_enabled(d);
}
#define dump_enabled(ev) dump_enabled_(EVT_CHAN_OF_##ev, EVT_ID_##ev)

/* Wait while this CPU's normal ring is past half full (discard mode only). */
static void dump_pace(void)
{
	struct evt_cpu_ring *cr;
	unsigned int fill;

	while (waited_ms < EVT_DUMP_WAIT_MS && READ_ONCE(evt_tracing)) {
		preempt_disable();
		cr = this_cpu_read(evt_cpu_rings[EVT_CHAN_OF_STATEDUMP_PROCESS]);
		fill = cr && cr->ring.mode == EVT_MODE_DISCARD ? evt_ring_fill_pct(&cr->ring) : 0;
		preempt_enable();
		if (fill < 50)
			return;
		msleep(2);
		waited_ms += 2;
	}
}

static u32 dump_status(struct task_struct *p)
{
	unsigned int state = READ_ONCE(p->__state);
	int exit_state = READ_ONCE(p->exit_state);

	if (exit_state == EXIT_ZOMBIE)
		return EVT_DUMP_ZOMBIE;
	if (exit_state == EXIT_DEAD)
		return EVT_DUMP_DEAD;
	/* Running or runnable: the viewer learns which at its next switch. */
	if (state == TASK_RUNNING)
		return EVT_DUMP_WAIT_CPU;
	if (state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE))
		return EVT_DUMP_WAIT;
	return EVT_DUMP_UNNAMED;
}

/* Under rcu_read_lock(). */
static void dump_thread(struct task_struct *p, void *unused)
{
	struct evt_pl_statedump_process pl;

	pl.tid = p->pid;
	pl.pid = p->tgid;
	pl.ppid = rcu_dereference(p->real_parent)->tgid;
	/* Another thread may rename itself meanwhile: either name will do. */
	data_race(memcpy(pl.name, p->comm, sizeof(pl.name)));
	pl.name[15] = '\0';
	pl.type = READ_ONCE(p->flags) & PF_KTHREAD ? EVT_DUMP_KERNEL_THREAD : EVT_DUMP_USER_THREAD;
	pl.mode = EVT_DUMP_MODE_UNKNOWN;
	pl.submode = EVT_DUMP_SUBMODE_NONE;
	pl.status = dump_status(p);
	pl.cpu = task_cpu(p);
	EVT_RECORD_FIXED(STATEDUMP_PROCESS, &pl);
}

/*
 * Call @fn for the task of every pid of @type (PIDTYPE_PID: every thread;
 * PIDTYPE_TGID: every thread group leader) under rcu_read_lock(), in
 * batches with a pause between them, while tracing lasts.
 */
static void dump_each_task(enum pid_type type, void (*fn)(struct task_struct *p, void *arg), void *arg)
{
	unsigned int n;
	int nr = 1;

	/* pid 0 is each CPU's idle task: not in the pid table. */
	while (READ_ONCE(evt_tracing)) {
		rcu_read_lock();
		for (n = 0; n < EVT_DUMP_BATCH; n++) {
			struct pid *pid = find_ge_pid(nr, &init_pid_ns);
			struct task_struct *p;

			if (!pid) {
				rcu_read_unlock();
				return;
			}
			nr = pid_nr(pid) + 1;
			p = pid_task(pid, type);
			if (p)
				fn(p, arg);
		}
		rcu_read_unlock();
		cond_resched();
		dump_pace();
	}
}

/* What the file walk of one process needs (iterate_fd()'s callback). */
struct dump_fd_ctx {
	struct files_struct *files;
	char *page;		/* PAGE_SIZE bytes for d_path() */
	s32 pid;
	unsigned int n;
};

/* Under files->file_lock (a spinlock): nothing here sleeps. */
static int dump_one_fd(const void *arg, struct file *file, unsigned int fd)
{
	struct dump_fd_ctx *ctx = (struct dump_fd_ctx *)arg;
	/* The payload first in the page, d_path()'s buffer after it. */
	struct { struct evt_pl_statedump_fd h; char name[EVT_DUMP_PATH_MAX]; } *pl = (void *)ctx->page;
	const char *path = d_path(&file->f_path, ctx->page + sizeof(*pl), PAGE_SIZE - sizeof(*pl));
	unsigned int n;

	if (IS_ERR(path))
		path = "UNKNOWN";
	n = evt_pl_string(pl->name, path, sizeof(pl->name));
	pl->h.pid = ctx->pid;
	pl->h.fd = fd;
	pl->h.flags = file->f_flags |
		      (test_bit(fd, files_fdtable(ctx->files)->close_on_exec) ? O_CLOEXEC : 0);
	pl->h.fmode = (__force u32)file->f_mode;
	EVT_RECORD(STATEDUMP_FD, &pl->h, sizeof(pl->h) + n);
	ctx->n++;
	return 0;
}

/*
 * Every open file of every process (its thread group leader), as
 * lttng-modules' state dump lists them (the LTTng analyses name files by
 * it): the path (at most EVT_DUMP_PATH_MAX - 1 bytes), the flags with
 * O_CLOEXEC, f_mode.
 */
static void dump_task_files(struct task_struct *p, void *arg)
{
	struct dump_fd_ctx *ctx = arg;

	/* task_lock keeps p->files (exit clears it under the lock). */
	task_lock(p);
	if (p->files) {
		ctx->files = p->files;
		ctx->pid = p->tgid;
		iterate_fd(p->files, 0, dump_one_fd, ctx);
	}
	task_unlock(p);
}

static void dump_files(void)
{
	struct dump_fd_ctx ctx;

	static_assert(sizeof(struct evt_pl_statedump_fd) + EVT_DUMP_PATH_MAX + 1024 <= PAGE_SIZE);
	ctx.page = (char *)__get_free_page(GFP_KERNEL);
	if (!ctx.page)
		return;
	dump_each_task(PIDTYPE_TGID, dump_task_files, &ctx);
	free_page((unsigned long)ctx.page);
}

/*
 * Every block device and partition the kernel has (the block device
 * pseudo-filesystem's inodes: block_class is not exported), with its name
 * as /proc/partitions gives it.
 */
static void dump_block_devices(void)
{
	struct { struct evt_pl_statedump_blockdev h; char name[BDEVNAME_SIZE + 16]; } pl;
	struct inode *inode;

	spin_lock(&blockdev_superblock->s_inode_list_lock);
	list_for_each_entry(inode, &blockdev_superblock->s_inodes, i_sb_list) {
		struct block_device *bdev;
		int n;

		spin_lock(&inode->i_lock);
		if (inode->i_state & (I_FREEING | I_WILL_FREE | I_NEW)) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		bdev = I_BDEV(inode);
		if (bdev->bd_dev && bdev->bd_disk) {
			n = snprintf(pl.name, sizeof(pl.name), "%pg", bdev);
			pl.h.dev = bdev->bd_dev;
			EVT_RECORD(STATEDUMP_BLOCKDEV, &pl.h,
				   sizeof(pl.h) + min_t(int, n, sizeof(pl.name) - 1) + 1);
		}
		spin_unlock(&inode->i_lock);
	}
	spin_unlock(&blockdev_superblock->s_inode_list_lock);
}

/* One event per handler: irq, chip name, handler name. */
static void dump_interrupts(void)
{
	struct { struct evt_pl_statedump_interrupt h; char names[96]; } pl;
	unsigned int irq;

	for (irq = 0; irq < nr_irqs && READ_ONCE(evt_tracing); irq++) {
		struct irq_data *data;
		struct irqaction *action;
		struct irq_desc *desc;
		unsigned long flags;

		rcu_read_lock();	/* a sparse irq's desc is freed after a grace period */
		data = irq_get_irq_data(irq);
		if (!data) {
			rcu_read_unlock();
			continue;
		}
		desc = irq_data_to_desc(data);
		raw_spin_lock_irqsave(&desc->lock, flags);
		for (action = desc->action; action; action = action->next) {
			const char *chip = data->chip && data->chip->name ? data->chip->name : "unnamed_irq_chip";
			unsigned int a, b;

			/* name (the chip's, at most 31 bytes), then action. */
			a = evt_pl_string(pl.names, chip, 32);
			b = evt_pl_string(pl.names + a, action->name, sizeof(pl.names) - a);
			pl.h.irq = irq;
			EVT_RECORD(STATEDUMP_INTERRUPT, &pl.h, sizeof(pl.h) + a + b);
		}
		raw_spin_unlock_irqrestore(&desc->lock, flags);
		rcu_read_unlock();
		if (!(irq % EVT_DUMP_BATCH))
			cond_resched();
	}
}

static void evt_statedump_fn(struct work_struct *w)
{
	evt_test_window(EVT_WINDOW_STATEDUMP);
	waited_ms = 0;
	if (dump_enabled(STATEDUMP_START))
		evtrace_record_inline(EVT_CHAN_OF_STATEDUMP_START, EVT_ID_STATEDUMP_START, NULL, 0);
	if (dump_enabled(STATEDUMP_PROCESS))
		dump_each_task(PIDTYPE_PID, dump_thread, NULL);
	if (dump_enabled(STATEDUMP_INTERRUPT))
		dump_interrupts();
	if (dump_enabled(STATEDUMP_FD))
		dump_files();
	if (dump_enabled(STATEDUMP_BLOCKDEV))
		dump_block_devices();
	if (dump_enabled(STATEDUMP_END))
		evtrace_record_inline(EVT_CHAN_OF_STATEDUMP_END, EVT_ID_STATEDUMP_END, NULL, 0);
}

/**
 * evt_statedump_start() - queue a state dump (the rings' tracing_started, and STATEDUMP)
 *
 * Any process context: the dump runs soon after, from a work item, while
 * tracing.
 */
void evt_statedump_start(void)
{
	queue_work(system_unbound_wq, &evt_statedump_work);
}

/**
 * evt_statedump_finish() - STOP's wait for the state dump asked for before it
 *
 * Called while tracing is still on, before evt_stop_tracing(): a dump queued
 * or running (START's, or STATEDUMP's that a rotating evdrain sends after
 * each cut) is recorded whole. Cancelled instead, a session stopped a few
 * milliseconds after START, or the chunk a rotation opened just before STOP,
 * would have no dump, and the LTTng analyses read a chunk alone.
 *
 * Bounded: flush_work() waits for the last queueing only (one run, and one
 * more if a request came while it ran), each the walk of the machine's
 * threads, IRQs and files plus at most EVT_DUMP_WAIT_MS of pacing. The dump
 * takes only RCU, spinlocks (task_lock() among them) and a page, never
 * genl_mutex, which STOP's netlink call holds (lockdep checks it: flush_work()
 * takes the work's map under it), and no grace period or IPI. The
 * caller keeps new requests out meanwhile (genl_mutex serialises START,
 * STATEDUMP and STOP); a request after this returns is cancelled by
 * evt_statedump_stop().
 */
void evt_statedump_finish(void)
{
	flush_work(&evt_statedump_work);
}

/**
 * evt_statedump_stop() - cancel a state dump (the rings' tracing_stopped)
 *
 * At STOP (after evt_statedump_finish()) and at unload: no dump runs once
 * this returns. Unload cancels rather than waits: nothing could read what
 * the dump would record (an open device file holds the module), and the
 * netlink family is gone already, so nothing queues it again.
 */
void evt_statedump_stop(void)
{
	cancel_work_sync(&evt_statedump_work);
}
