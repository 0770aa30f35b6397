// SPDX-License-Identifier: GPL-2.0
/*
 * Real kernel events: probes on the kernel's tracepoints (scheduler,
 * interrupts, softirqs, raw syscalls, user page faults, block requests,
 * CPU idle and frequency), attached while
 * tracing and enabled, and the user marker device /dev/evtrace/marker.
 * Hot fixed-size events go to the compact channel, the rest to normal.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/sched.h>
#include <linux/interrupt.h>
#include <linux/miscdevice.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/binfmts.h>
#include <linux/ptrace.h>
#include <linux/compat.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blktrace_api.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include "evtrace_rings.h"
#include "evtrace_record.h"
#include "evtrace_stacks.h"
#include "evtrace_tp.h"
#include "evtrace_probes.h"

/*
 * Attaching a probe patches kernel text (static keys and static calls, each
 * a breakpoint dance with IPIs to every CPU) and detaching waits for RCU, so
 * probes are attached when first wanted and detached only once they have
 * been unwanted for probe_linger_ms: STOP/START in quick succession and live
 * enable toggles patch nothing. (Under qemu's TCG, text patching while the
 * probed CPUs are busy has wedged guests.) Meanwhile @live gates the probe:
 * it records only while tracing and its event is enabled.
 */
static unsigned int probe_linger_ms = EVT_PROBE_LINGER_MS_DEFAULT;
module_param(probe_linger_ms, uint, 0444);
MODULE_PARM_DESC(probe_linger_ms, "detach a tracepoint probe this many ms after tracing stopped or its event was disabled, 0 to "
		 EVT_STR(EVT_PROBE_LINGER_MS_MAX) " (default " EVT_STR(EVT_PROBE_LINGER_MS_DEFAULT) ")");

static bool probes_at_load = true;
module_param_named(probes, probes_at_load, bool, 0444);
MODULE_PARM_DESC(probes, "enable the kernel tracepoint events and the state dump at load (default on; off leaves only markers and the test sources)");

struct evt_probe {
	struct evt_tp_hook hook;	/* the tracepoint and the probe on it */
	const char *event;	/* catalogue name */
	const struct evt_event_desc *desc;
	u8 attached;			/* u8: see evt_tracing */
	u8 live;
};

/* @data is the struct evt_probe the probe was registered with. */
static __always_inline bool evt_probe_live(void *data)
{
	return READ_ONCE(((struct evt_probe *)data)->live);
}

/*
 * Events about other tasks than the one running (a switch's two tasks, the
 * task woken, migrated, ended) are filtered by those tasks: the record path
 * leaves them to their probes (evt_filter_not_by_current()). The probes run
 * with preemption disabled.
 */
static __always_inline bool evt_filtered_subject(unsigned int channel, struct task_struct *a,
						 struct task_struct *b)
{
	struct evt_cpu_ring *cr;

	if (!static_branch_unlikely(&evt_filter_key) || evt_filter_pass(a) ||
	    (b && evt_filter_pass(b)))
		return false;
	cr = this_cpu_read(evt_cpu_rings[channel]);
	if (cr && READ_ONCE(evt_tracing))
		evt_local_inc(&cr->ring.filtered);
	return true;
}

static void copy_comm(char dst[16], const struct task_struct *t)
{
	memcpy(dst, t->comm, 16);
	dst[15] = '\0';
}

/*
 * Syscall entries are the hottest events: one event per syscall
 * (sys_<name>, its number in the id), its arguments written straight into
 * the reserved slot, each at its C type's width as the generated table
 * says (nr of arguments in bits 0-3, then 2 bits per argument: 0 eight
 * bytes, 1 four, 2 two, 3 a path; from bit 16 one bit per argument that is
 * a path, copied as a string; from bit 24 the payload's size when there is
 * none). A 32-bit task's are 4 bytes each (2 for a u16).
 */
#include "evt_syscall_args.h"
static const u32 evt_sc_args[] = EVT_SYSCALL_ARGS;
static const u32 evt_compat_sc_args[] = EVT_COMPAT_SYSCALL_ARGS;
#define EVT_SC_NR(word)		((word) & 15)
#define EVT_SC_WIDTH(word, i)	(((word) >> (4 + 2 * (i))) & 3)
#define EVT_SC_PATHS(word)	(((word) >> 16) & 0x3f)
#define EVT_SC_SIZE(word)	((word) >> 24)
/* A path's bytes, NUL included; no syscall has more than two. */
#define EVT_SC_PATH_MAX		256
#define EVT_SC_MAX_PATHS	2

/*
 * syscall_get_arguments() fills the whole array: kernels built to zero the
 * stack (INIT_STACK_ALL_ZERO) need not clear it first (a rep stos per call).
 */
#if __has_attribute(__uninitialized__)
#define evt_noinit __attribute__((__uninitialized__))
#else
#define evt_noinit
#endif

/*
 * One argument at offset @off of the payload, @w its width class: 8 or 4
 * bytes 4-byte aligned, 2 bytes 2-byte aligned (the metadata's alignments).
 * Returns the offset after it. The padding bytes are zeroed.
 */
static __always_inline unsigned int evt_sc_put(char *p, unsigned int off, unsigned long v, unsigned int w)
{
	if (w == 2) {
		if (off & 1)
			p[off++] = 0;
		evt_put_u16(p + off, (u16)v);
		return off + 2;
	}
	if (off & 3) {		/* after a u16 or a path */
		unsigned int a = (off + 3) & ~3U;

		for (; off < a; off++)
			p[off] = 0;
	}
	if (w == 1) {
		evt_put_u32(p + off, (u32)v);
		return off + 4;
	}
	evt_put_u64(p + off, v);
	return off + 8;
}

/*
 * A 32-bit task's syscall. On x86 the ia32 flag alone: an x32 number has
 * bit 30 set, beyond the table, so it is recorded as sys_unknown anyway.
 */
#ifdef CONFIG_X86_64
#define evt_compat_syscall()	in_ia32_syscall()
#else
#define evt_compat_syscall()	in_compat_syscall()
#endif

/*
 * A syscall with paths among its arguments (open's filename, ...), out of
 * the hot path: each path copied from the task without faulting (the probe
 * cannot sleep; a path not in memory is recorded as "(fault)"), the other
 * arguments as usual, in the prototype's order, each 4-byte aligned.
 */
static noinline void evt_sys_enter_paths(struct pt_regs *regs, unsigned int word, unsigned int id)
{
	char path[EVT_SC_MAX_PATHS][EVT_SC_PATH_MAX];
	unsigned int i, n = EVT_SC_NR(word), np = 0, len = 0, off = 0;
	unsigned long args[6] evt_noinit;
	unsigned int plen[6];
	struct evt_cpu_ring *cr;
	struct evt_rctx c;
	char *p;

	syscall_get_arguments(current, regs, args);
	for (i = 0; i < n; i++) {
		unsigned int w = EVT_SC_WIDTH(word, i);

		plen[i] = 0;
		if (EVT_SC_PATHS(word) & BIT(i) && np < EVT_SC_MAX_PATHS) {
			/* A 32-bit task's pointer is its register's low half. */
			unsigned long u = evt_compat_syscall() ? (u32)args[i] : args[i];
			long r;

			/* strncpy_from_user_nofault() is not exported: the same, by hand. */
			pagefault_disable();
			r = strncpy_from_user(path[np], (const char __user *)u, EVT_SC_PATH_MAX);
			pagefault_enable();

			if (r < 0)
				r = strscpy(path[np], "(fault)", EVT_SC_PATH_MAX);
			else if (r >= EVT_SC_PATH_MAX)
				r = EVT_SC_PATH_MAX - 1;
			path[np][r] = '\0';
			plen[i] = r + 1;
			len += plen[i];
			np++;
		} else if (w == 2) {
			len = ALIGN(len, 2) + 2;
		} else {
			len = ALIGN(len, 4) + (w ? 4 : 8);
		}
	}
	p = evtrace_begin_inline(EVT_CHAN_COMPACT, id, len, &cr, &c);
	if (!p)
		return;
	for (i = 0, np = 0; i < n; i++) {
		if (plen[i]) {
			memcpy(p + off, path[np++], plen[i]);
			off += plen[i];
		} else {
			off = evt_sc_put(p, off, args[i], EVT_SC_WIDTH(word, i));
		}
	}
	evtrace_end_inline(cr, &c, EVT_CHAN_COMPACT, id);
}


/*
 * One syscall entry, from the table of its ABI (constants at each call:
 * the native path folds into straight code). No argument array on the
 * common path: kernels built to zero the stack (INIT_STACK_ALL_ZERO) would
 * clear it on every syscall.
 */
static __always_inline void evt_sys_enter(struct pt_regs *regs, long id, bool compat, const u32 *table,
					  unsigned long nr, unsigned int base, unsigned int unknown)
{
	struct evt_cpu_ring *cr;
	struct evt_rctx c;
	unsigned int word;
	char *p;

	if (unlikely((unsigned long)id >= nr)) {
		unsigned long args[6] evt_noinit;

		struct evt_pl_sys_unknown *pl;

		/* x32, or a number past the table: the number and every register. */
		pl = (void *)evtrace_begin_inline(EVT_CHAN_OF_SYS_UNKNOWN, unknown, sizeof(*pl), &cr, &c);
		if (!pl)
			return;
		syscall_get_arguments(current, regs, args);
		pl->id = (s32)id;
		pl->arg0 = args[0];
		pl->arg1 = args[1];
		pl->arg2 = args[2];
		pl->arg3 = args[3];
		pl->arg4 = args[4];
		pl->arg5 = args[5];
		evtrace_end_inline(cr, &c, EVT_CHAN_OF_SYS_UNKNOWN, unknown);
		return;
	}
	word = table[id];
	if (unlikely(EVT_SC_PATHS(word))) {
		evt_sys_enter_paths(regs, word, base + id);
		return;
	}
	p = evtrace_begin_inline(EVT_CHAN_COMPACT, base + id, EVT_SC_SIZE(word), &cr, &c);
	if (!p)
		return;
	/* getppid() and friends: no argument to fetch. */
	if (EVT_SC_NR(word)) {
		unsigned int off = 0;
#ifdef CONFIG_X86_64
		/* The registers straight from pt_regs: one load per argument. */
#define EVT_SC_ARG(n, native, ia32) \
		if (EVT_SC_NR(word) > (n)) \
			off = evt_sc_put(p, off, compat ? regs->ia32 : regs->native, EVT_SC_WIDTH(word, n))
		EVT_SC_ARG(0, di, bx);
		EVT_SC_ARG(1, si, cx);
		EVT_SC_ARG(2, dx, dx);
		EVT_SC_ARG(3, r10, si);
		EVT_SC_ARG(4, r8, di);
		EVT_SC_ARG(5, r9, bp);
#undef EVT_SC_ARG
#else
		unsigned long args[6] evt_noinit;
		unsigned int i;

		syscall_get_arguments(current, regs, args);
		for (i = 0; i < EVT_SC_NR(word); i++)
			off = evt_sc_put(p, off, args[i], EVT_SC_WIDTH(word, i));
#endif
	}
	evtrace_end_inline(cr, &c, EVT_CHAN_COMPACT, base + id);
}

/* A 32-bit task's: out of the native path's line. */
static noinline void evt_compat_sys_enter(struct pt_regs *regs, long id)
{
	evt_sys_enter(regs, id, true, evt_compat_sc_args, EVT_NR_COMPAT_SYSCALLS, EVT_ID_COMPAT_SYS_BASE,
		      EVT_ID_COMPAT_SYS_UNKNOWN);
}

static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	if (!evt_probe_live(data))
		return;
	if (unlikely(evt_compat_syscall()))
		evt_compat_sys_enter(regs, id);
	else
		evt_sys_enter(regs, id, false, evt_sc_args, EVT_NR_SYSCALLS, EVT_ID_SYS_BASE, EVT_ID_SYS_UNKNOWN);
}

static void probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct evt_pl_exit_syscall *pl;
	struct evt_cpu_ring *cr;
	struct evt_rctx c;

	if (!evt_probe_live(data))
		return;
	pl = (void *)evtrace_begin_inline(EVT_CHAN_OF_EXIT_SYSCALL, EVT_ID_EXIT_SYSCALL, sizeof(*pl), &cr, &c);
	if (!pl)
		return;
	pl->id = (s32)syscall_get_nr(current, regs);
	pl->ret = ret;
	evtrace_end_inline(cr, &c, EVT_CHAN_OF_EXIT_SYSCALL, EVT_ID_EXIT_SYSCALL);
}

/* Handler names are bounded: the event must fit a small stack buffer. */
#define EVT_IRQ_NAME_MAX 64

static void probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	struct { struct evt_pl_irq_entry h; char name[EVT_IRQ_NAME_MAX]; } pl;
	unsigned int n;

	if (!evt_probe_live(data))
		return;
	pl.h.irq = irq;
	n = evt_pl_string(pl.name, action ? action->name : NULL, sizeof(pl.name));
	EVT_RECORD(IRQ_ENTRY, &pl.h, sizeof(pl.h) + n);
}

static void probe_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct evt_pl_irq_exit pl = { .irq = irq, .ret = ret };

	if (!evt_probe_live(data))
		return;
	EVT_RECORD_FIXED(IRQ_EXIT, &pl);
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	struct evt_pl_softirq pl = { .vec = vec };

	if (!evt_probe_live(data))
		return;
	EVT_RECORD_FIXED(SOFTIRQ_ENTRY, &pl);
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	struct evt_pl_softirq pl = { .vec = vec };

	if (!evt_probe_live(data))
		return;
	EVT_RECORD_FIXED(SOFTIRQ_EXIT, &pl);
}

static void probe_softirq_raise(void *data, unsigned int vec)
{
	struct evt_pl_softirq pl = { .vec = vec };

	if (!evt_probe_live(data))
		return;
	EVT_RECORD_FIXED(SOFTIRQ_RAISE, &pl);
}

/*
 * prev_state as lttng-modules and the kernel's own tracepoint report it
 * (stable across kernels: one bit per ps letter, 1 S, 2 D, 4 T, 8 t, 16 X,
 * 32 Z, 64 P, 128 I), except that a preempted task reports 0, running: it
 * was not going to sleep, whatever stale bits its state holds, and that is
 * what Trace Compass reads as "waiting for a CPU".
 */
static u32 evt_switch_state(bool preempt, unsigned int prev_state, const struct task_struct *prev)
{
	unsigned int idx;

	if (preempt)
		return 0;
	idx = __task_state_index(prev_state, prev->exit_state);
	return idx ? 1U << (idx - 1) : 0;
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	struct evt_pl_sched_switch pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_OF_SCHED_SWITCH, prev, next))
		return;
	copy_comm(pl.prev_comm, prev);
	pl.prev_tid = prev->pid;
	pl.prev_prio = prev->prio;
	pl.prev_state = evt_switch_state(preempt, prev_state, prev);
	copy_comm(pl.next_comm, next);
	pl.next_tid = next->pid;
	pl.next_prio = next->prio;
	EVT_RECORD_FIXED(SCHED_SWITCH, &pl);
}

/* sched_wakeup, sched_wakeup_new, sched_waking: the probe's event says which. */
static_assert(EVT_CHAN_OF_SCHED_WAKEUP == EVT_CHAN_OF_SCHED_WAKEUP_NEW &&
	      EVT_CHAN_OF_SCHED_WAKEUP == EVT_CHAN_OF_SCHED_WAKING &&
	      __same_type(evt_pl_of_SCHED_WAKEUP, evt_pl_of_SCHED_WAKEUP_NEW) &&
	      __same_type(evt_pl_of_SCHED_WAKEUP, evt_pl_of_SCHED_WAKING));
static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	evt_pl_of_SCHED_WAKEUP pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_OF_SCHED_WAKEUP, p, NULL))
		return;
	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	pl.target_cpu = task_cpu(p);
	evtrace_record_inline(EVT_CHAN_OF_SCHED_WAKEUP, ((struct evt_probe *)data)->desc->id, &pl, sizeof(pl));
}

static void probe_sched_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	struct evt_pl_sched_migrate pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_OF_SCHED_MIGRATE, p, NULL))
		return;
	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	pl.orig_cpu = task_cpu(p);
	pl.dest_cpu = dest_cpu;
	EVT_RECORD_FIXED(SCHED_MIGRATE, &pl);
}

static void probe_sched_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct evt_pl_sched_fork pl;

	if (!evt_probe_live(data))
		return;
	copy_comm(pl.parent_comm, parent);
	pl.parent_tid = parent->pid;
	pl.parent_pid = parent->tgid;
	copy_comm(pl.child_comm, child);
	pl.child_tid = child->pid;
	pl.child_pid = child->tgid;
	EVT_RECORD_FIXED(SCHED_FORK, &pl);
}

/* Filenames are bounded: the event must fit a small stack buffer. */
#define EVT_EXEC_NAME_MAX 128

static void probe_sched_exec(void *data, struct task_struct *p, pid_t old_pid,
			     struct linux_binprm *bprm)
{
	struct { struct evt_pl_sched_exec h; char name[EVT_EXEC_NAME_MAX]; } pl;
	unsigned int n;

	if (!evt_probe_live(data))
		return;
	pl.h.tid = p->pid;
	pl.h.old_tid = old_pid;
	n = evt_pl_string(pl.name, bprm->filename, sizeof(pl.name));
	EVT_RECORD(SCHED_EXEC, &pl.h, sizeof(pl.h) + n);
}

/* sched_process_exit, sched_process_free: the probe's event says which. */
static_assert(EVT_CHAN_OF_SCHED_EXIT == EVT_CHAN_OF_SCHED_FREE &&
	      __same_type(evt_pl_of_SCHED_EXIT, evt_pl_of_SCHED_FREE));
static void probe_sched_task(void *data, struct task_struct *p)
{
	evt_pl_of_SCHED_EXIT pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_OF_SCHED_EXIT, p, NULL))
		return;
	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	evtrace_record_inline(EVT_CHAN_OF_SCHED_EXIT, ((struct evt_probe *)data)->desc->id, &pl, sizeof(pl));
}

static void probe_page_fault_user(void *data, unsigned long address, struct pt_regs *regs,
				  unsigned long error_code)
{
	struct evt_pl_page_fault pl = {
		.address = address, .ip = instruction_pointer(regs), .error_code = error_code,
	};

	if (!evt_probe_live(data))
		return;
	EVT_RECORD_FIXED(PAGE_FAULT_USER, &pl);
}

/*
 * Block requests and bios, in lttng-modules' layout (block.h there, kernels
 * 5.17 on): the disk's dev_t, the sector, LTTng's rwbs bits, which its
 * analyses read (an even rwbs is a read).
 */
enum {
	EVT_RWBS_WRITE = 1, EVT_RWBS_DISCARD = 2, EVT_RWBS_READ = 4, EVT_RWBS_RAHEAD = 8,
	EVT_RWBS_SYNC = 32, EVT_RWBS_META = 64, EVT_RWBS_SECURE = 128, EVT_RWBS_FLUSH = 256,
	EVT_RWBS_FUA = 512, EVT_RWBS_PREFLUSH = 1024,
};

static u32 evt_rwbs(blk_opf_t opf)
{
	u32 r;

	switch (opf & REQ_OP_MASK) {
	case REQ_OP_WRITE: r = EVT_RWBS_WRITE; break;
	case REQ_OP_DISCARD: r = EVT_RWBS_DISCARD; break;
	case REQ_OP_SECURE_ERASE: r = EVT_RWBS_DISCARD | EVT_RWBS_SECURE; break;
	case REQ_OP_FLUSH: r = EVT_RWBS_FLUSH; break;
	case REQ_OP_READ: r = EVT_RWBS_READ; break;
	default: r = 0;
	}
	return r | (opf & REQ_RAHEAD ? EVT_RWBS_RAHEAD : 0) | (opf & REQ_SYNC ? EVT_RWBS_SYNC : 0) |
	       (opf & REQ_META ? EVT_RWBS_META : 0) | (opf & REQ_PREFLUSH ? EVT_RWBS_PREFLUSH : 0) |
	       (opf & REQ_FUA ? EVT_RWBS_FUA : 0);
}

static __always_inline u32 evt_rq_dev(struct request *rq)
{
	return rq->q->disk ? (u32)disk_devt(rq->q->disk) : 0;
}

/* block_rq_insert, block_rq_issue: the probe's event says which. */
static_assert(EVT_CHAN_OF_BLOCK_RQ_INSERT == EVT_CHAN_OF_BLOCK_RQ_ISSUE &&
	      __same_type(evt_pl_of_BLOCK_RQ_INSERT, evt_pl_of_BLOCK_RQ_ISSUE));
static void probe_block_rq(void *data, struct request *rq)
{
	evt_pl_of_BLOCK_RQ_ISSUE pl;

	if (!evt_probe_live(data))
		return;
	pl.dev = evt_rq_dev(rq);
	pl.sector = blk_rq_trace_sector(rq);
	pl.nr_sector = blk_rq_trace_nr_sectors(rq);
	pl.bytes = blk_rq_bytes(rq);
	pl.tid = current->pid;
	pl.rwbs = evt_rwbs(rq->cmd_flags);
	copy_comm(pl.comm, current);
	evtrace_record_inline(EVT_CHAN_OF_BLOCK_RQ_ISSUE, ((struct evt_probe *)data)->desc->id, &pl, sizeof(pl));
}

static void probe_block_rq_complete(void *data, struct request *rq, blk_status_t error,
				    unsigned int nr_bytes)
{
	struct evt_pl_block_rq_complete pl;

	if (!evt_probe_live(data))
		return;
	pl.dev = evt_rq_dev(rq);
	pl.sector = blk_rq_pos(rq);
	pl.nr_sector = nr_bytes >> 9;
	pl.error = blk_status_to_errno(error);
	pl.rwbs = evt_rwbs(rq->cmd_flags);
	EVT_RECORD_FIXED(BLOCK_RQ_COMPLETE, &pl);
}

static void probe_block_bio_remap(void *data, struct bio *bio, dev_t dev, sector_t from)
{
	struct evt_pl_block_bio_remap pl;

	if (!evt_probe_live(data))
		return;
	pl.dev = bio_dev(bio);
	pl.sector = bio->bi_iter.bi_sector;
	pl.nr_sector = bio_sectors(bio);
	pl.rwbs = evt_rwbs(bio->bi_opf);
	pl.old_dev = dev;
	pl.old_sector = from;
	EVT_RECORD_FIXED(BLOCK_BIO_REMAP, &pl);
}

static void probe_block_bio_backmerge(void *data, struct bio *bio)
{
	struct evt_pl_block_bio pl;

	if (!evt_probe_live(data))
		return;
	pl.dev = bio_dev(bio);
	pl.sector = bio->bi_iter.bi_sector;
	pl.nr_sector = bio_sectors(bio);
	pl.rwbs = evt_rwbs(bio->bi_opf);
	pl.tid = current->pid;
	copy_comm(pl.comm, current);
	EVT_RECORD_FIXED(BLOCK_BIO_BACKMERGE, &pl);
}

/*
 * power_cpu_idle, power_cpu_frequency (lttng-modules' names for the
 * kernel's cpu_idle and cpu_frequency): the probe's event says which.
 */
static_assert(EVT_CHAN_OF_POWER_CPU_IDLE == EVT_CHAN_OF_POWER_CPU_FREQUENCY &&
	      __same_type(evt_pl_of_POWER_CPU_IDLE, evt_pl_of_POWER_CPU_FREQUENCY));
static void probe_power_cpu(void *data, unsigned int state, unsigned int cpu_id)
{
	struct evt_pl_power_cpu pl = { .state = state, .cpu_id = cpu_id };

	if (!evt_probe_live(data))
		return;
	evtrace_record_inline(EVT_CHAN_OF_POWER_CPU_IDLE, ((struct evt_probe *)data)->desc->id, &pl, sizeof(pl));
}

/* A probe on tracepoint @tp_name that records catalogue event @ev. */
#define EVT_PROBE(tp_name, ev, fn) \
	{ .hook = { .name = (tp_name), .probe = (fn) }, .event = (ev) }
/* Each probe's event gives its enable switch: sys_unknown's is "sys_*". */
static struct evt_probe evt_probes[] = {
	EVT_PROBE("sys_enter", "sys_unknown", probe_sys_enter),
	EVT_PROBE("sys_exit", "exit_syscall", probe_sys_exit),
	EVT_PROBE("irq_handler_entry", "irq_handler_entry", probe_irq_entry),
	EVT_PROBE("irq_handler_exit", "irq_handler_exit", probe_irq_exit),
	EVT_PROBE("softirq_entry", "softirq_entry", probe_softirq_entry),
	EVT_PROBE("softirq_exit", "softirq_exit", probe_softirq_exit),
	EVT_PROBE("softirq_raise", "softirq_raise", probe_softirq_raise),
	EVT_PROBE("sched_switch", "sched_switch", probe_sched_switch),
	EVT_PROBE("sched_wakeup", "sched_wakeup", probe_sched_wakeup),
	EVT_PROBE("sched_wakeup_new", "sched_wakeup_new", probe_sched_wakeup),
	EVT_PROBE("sched_waking", "sched_waking", probe_sched_wakeup),
	EVT_PROBE("sched_migrate_task", "sched_migrate_task", probe_sched_migrate),
	EVT_PROBE("sched_process_fork", "sched_process_fork", probe_sched_fork),
	EVT_PROBE("sched_process_exec", "sched_process_exec", probe_sched_exec),
	EVT_PROBE("sched_process_exit", "sched_process_exit", probe_sched_task),
	EVT_PROBE("sched_process_free", "sched_process_free", probe_sched_task),
	EVT_PROBE("page_fault_user", "page_fault_user", probe_page_fault_user),
	EVT_PROBE("block_rq_insert", "block_rq_insert", probe_block_rq),
	EVT_PROBE("block_rq_issue", "block_rq_issue", probe_block_rq),
	EVT_PROBE("block_rq_complete", "block_rq_complete", probe_block_rq_complete),
	EVT_PROBE("block_bio_remap", "block_bio_remap", probe_block_bio_remap),
	EVT_PROBE("block_bio_backmerge", "block_bio_backmerge", probe_block_bio_backmerge),
	EVT_PROBE("cpu_idle", "power_cpu_idle", probe_power_cpu),
	EVT_PROBE("cpu_frequency", "power_cpu_frequency", probe_power_cpu),
};

static DEFINE_MUTEX(evt_probe_lock);

static void evt_probe_reap_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(evt_probe_reap_work, evt_probe_reap_fn);

/* Detach every probe that is attached but not live; wait until none runs. */
static void evt_probes_detach_idle_locked(void)
{
	bool detached = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++) {
		struct evt_probe *p = &evt_probes[i];

		if (p->attached && !READ_ONCE(p->live)) {
			evt_tp_detach(&p->hook, p);
			WRITE_ONCE(p->attached, false);
			detached = true;
		}
	}
	if (detached)
		tracepoint_synchronize_unregister();
}

static void evt_probe_reap_fn(struct work_struct *w)
{
	mutex_lock(&evt_probe_lock);
	evt_probes_detach_idle_locked();
	mutex_unlock(&evt_probe_lock);
	evt_stacks_exit();
}

/**
 * evt_probes_sync() - make the probes match the tracing state and the
 * per-event enable flags
 * @tracing: record with the enabled probes (true) or with none (false)
 *
 * Wanted probes are attached and live on return. Unwanted ones stop recording
 * at once (the caller waits for a grace period if it needs them quiet) and
 * are detached probe_linger_ms after the last call that left them idle.
 */
void evt_probes_sync(bool tracing)
{
	bool idle = false;
	unsigned int i;

	mutex_lock(&evt_probe_lock);
	for (i = 0; i < ARRAY_SIZE(evt_probes); i++) {
		struct evt_probe *p = &evt_probes[i];
		bool want = tracing && p->hook.tp && p->desc && evt_event_enabled(p->desc);

		if (want && !p->attached) {
			/* Live before attached: no window where it is in but silent. */
			WRITE_ONCE(p->live, true);
			if (evt_tp_attach(&p->hook, p)) {
				WRITE_ONCE(p->live, false);
				pr_warn("cannot attach to tracepoint %s\n", p->hook.name);
				continue;
			}
			WRITE_ONCE(p->attached, true);
		}
		WRITE_ONCE(p->live, want);
		if (p->attached && !want)
			idle = true;
	}
	if (idle)
		mod_delayed_work(system_wq, &evt_probe_reap_work,
				 msecs_to_jiffies(probe_linger_ms));
	mutex_unlock(&evt_probe_lock);
}

/**
 * evt_probes_attached() - how many probes are attached to tracepoints now
 *
 * Return: their number, for the stats file.
 */
unsigned int evt_probes_attached(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++)
		n += READ_ONCE(evt_probes[i].attached);
	return n;
}

/* Markers: write() records the bytes written as one string event. */
static ssize_t evt_marker_write(struct file *file, const char __user *ubuf, size_t count,
				loff_t *ppos)
{
	static const struct evt_event_desc *marker;
	struct { struct evt_pl_marker h; char text[EVT_MARKER_MAX + 1]; } *pl;
	size_t len;
	int ret;

	if (count > EVT_MARKER_MAX)
		return -EINVAL;
	if (!marker)
		marker = evt_find_event_by_name("marker");
	if (!evt_event_enabled(marker) || !READ_ONCE(evt_tracing))
		return count;
	pl = kmalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return -ENOMEM;
	if (copy_from_user(pl->text, ubuf, count)) {
		kfree(pl);
		return -EFAULT;
	}
	pl->text[count] = '\0';
	/* A NUL inside ends the string: what the reader sees is what is stored. */
	len = strnlen(pl->text, count);
	/* echo's newline is not part of the text. */
	if (len && pl->text[len - 1] == '\n')
		pl->text[--len] = '\0';
	pl->h.tid = current->pid;
	ret = EVT_RECORD(MARKER, &pl->h, sizeof(pl->h) + len + 1);
	kfree(pl);
	if (ret == -E2BIG)
		return -EINVAL;
	return count;
}

static const struct file_operations evt_marker_fops = {
	.owner = THIS_MODULE,
	.write = evt_marker_write,
	.llseek = noop_llseek,
};

static struct miscdevice evt_marker_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "evtrace_marker",
	.nodename = "evtrace/marker",
	.mode = 0200,		/* root only by default */
	.fops = &evt_marker_fops,
};

/**
 * evt_probes_init() - find the probes' tracepoints and events, the stacks and
 * the marker device
 *
 * Nothing is attached yet: evt_probes_sync() attaches what tracing wants. A
 * tracepoint this kernel lacks leaves its event unavailable (logged).
 *
 * Return: 0 or a negative errno (a bad parameter, the marker's registration).
 */
int evt_probes_init(void)
{
	struct evt_tp_hook *hooks[ARRAY_SIZE(evt_probes)];
	unsigned int i;
	int ret;

	if (probe_linger_ms > EVT_PROBE_LINGER_MS_MAX) {
		pr_err("probe_linger_ms=%u is invalid: it must be from 0 to "
		       EVT_STR(EVT_PROBE_LINGER_MS_MAX) "\n", probe_linger_ms);
		return -EINVAL;
	}

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++) {
		evt_probes[i].desc = evt_find_event_by_name(evt_probes[i].event);
		hooks[i] = &evt_probes[i].hook;
	}
	evt_tp_find(hooks, ARRAY_SIZE(evt_probes));
	for (i = 0; i < ARRAY_SIZE(evt_probes); i++) {
		if (!evt_probes[i].hook.tp)
			pr_info("this kernel has no tracepoint %s: event %s unavailable\n",
				evt_probes[i].hook.name, evt_probes[i].event);
		if (!probes_at_load)
			evt_set_switch(evt_event_switch(evt_probes[i].desc - evt_events), false);
	}
	/* The state dump is kernel state too: off with the probes. */
	if (!probes_at_load) {
		static const char *const dump_events[] = {
			"lttng_statedump_start", "lttng_statedump_process_state",
			"lttng_statedump_interrupt", "lttng_statedump_file_descriptor",
			"lttng_statedump_block_device", "lttng_statedump_end",
		};

		for (i = 0; i < ARRAY_SIZE(dump_events); i++)
			evt_set_switch(evt_event_switch(evt_find_event_by_name(dump_events[i]) -
							evt_events), false);
	}
	ret = evt_stacks_init();
	if (ret)
		return ret;
	ret = misc_register(&evt_marker_dev);
	if (ret)
		evt_stacks_exit();
	return ret;
}

/**
 * evt_probes_exit() - detach every probe and remove the marker device
 *
 * After tracing has stopped: nothing may be rescheduled past this point.
 */
void evt_probes_exit(void)
{
	unsigned int i;

	misc_deregister(&evt_marker_dev);
	mutex_lock(&evt_probe_lock);
	for (i = 0; i < ARRAY_SIZE(evt_probes); i++)
		WRITE_ONCE(evt_probes[i].live, false);
	mutex_unlock(&evt_probe_lock);
	cancel_delayed_work_sync(&evt_probe_reap_work);
	mutex_lock(&evt_probe_lock);
	evt_probes_detach_idle_locked();
	mutex_unlock(&evt_probe_lock);
}
