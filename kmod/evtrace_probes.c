// SPDX-License-Identifier: GPL-2.0
/*
 * Real kernel events: probes on the kernel's tracepoints (scheduler,
 * interrupts, softirqs, raw syscalls, user page faults), attached while
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
#include <asm/syscall.h>
#include "evtrace.h"

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
	const char *tp_name;
	const char *event;	/* catalogue name */
	void *probe;
	struct tracepoint *tp;
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
 * the reserved slot, each as 8 bytes, widened from its C type's width as
 * the generated table says (nr of arguments in bits 0-3, then 2 bits per
 * argument: 0 as is, 1 from s32, 2 from u32, 3 from u16).
 */
#include "evt_syscall_args.h"
static const u16 evt_sc_args[] = EVT_SYSCALL_ARGS;
static const u16 evt_compat_sc_args[] = EVT_COMPAT_SYSCALL_ARGS;

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
 * Without a branch per argument: the sign-extended and the masked value
 * are both computed, a conditional move picks one.
 */
static __always_inline u64 evt_sc_widen(unsigned long v, unsigned int kind)
{
	static const u64 mask[4] = { ~0ULL, ~0ULL, 0xffffffffULL, 0xffffULL };
	u64 sx = (u64)(s64)(s32)v, masked = v & mask[kind];

	return kind == 1 ? sx : masked;
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

#define EVT_SYS_UNKNOWN_LEN	(4 + 6 * 8)
#define EVT_EXIT_SYSCALL_LEN	(4 + 8)

/*
 * One syscall entry, from the table of its ABI (constants at each call:
 * the native path folds into straight code). No argument array on the
 * common path: kernels built to zero the stack (INIT_STACK_ALL_ZERO) would
 * clear it on every syscall.
 */
static __always_inline void evt_sys_enter(struct pt_regs *regs, long id, bool compat, const u16 *table,
					  unsigned long nr, unsigned int base, unsigned int unknown)
{
	struct evt_cpu_ring *cr;
	struct evt_rctx c;
	unsigned int word;
	char *p;

	if (unlikely((unsigned long)id >= nr)) {
		unsigned long args[6] evt_noinit;

		/* x32, or a number past the table: the number and every register. */
		p = evtrace_begin_inline(EVT_CHAN_COMPACT, unknown, EVT_SYS_UNKNOWN_LEN, &cr, &c);
		if (!p)
			return;
		syscall_get_arguments(current, regs, args);
		evt_put_u32(p, (u32)id);
		memcpy(p + 4, args, sizeof(args));
		evtrace_end_inline(cr, &c);
		return;
	}
	word = table[id];
	p = evtrace_begin_inline(EVT_CHAN_COMPACT, base + id, (word & 15) * 8, &cr, &c);
	if (!p)
		return;
	/* getppid() and friends: no argument to fetch. */
	if (word & 15) {
#ifdef CONFIG_X86_64
		/* The registers straight from pt_regs: one load per argument. */
#define EVT_SC_ARG(n, native, ia32) \
		evt_put_u64(p + 8 * (n), evt_sc_widen(compat ? regs->ia32 : regs->native, (word >> (4 + 2 * (n))) & 3))
		switch (word & 15) {
		default: EVT_SC_ARG(5, r9, bp); fallthrough;
		case 5: EVT_SC_ARG(4, r8, di); fallthrough;
		case 4: EVT_SC_ARG(3, r10, si); fallthrough;
		case 3: EVT_SC_ARG(2, dx, dx); fallthrough;
		case 2: EVT_SC_ARG(1, si, cx); fallthrough;
		case 1: EVT_SC_ARG(0, di, bx);
		}
#undef EVT_SC_ARG
#else
		unsigned long args[6] evt_noinit;
		unsigned int i;

		syscall_get_arguments(current, regs, args);
		for (i = 0; i < (word & 15); i++)
			evt_put_u64(p + 8 * i, evt_sc_widen(args[i], (word >> (4 + 2 * i)) & 3));
#endif
	}
	evtrace_end_inline(cr, &c);
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
	struct evt_cpu_ring *cr;
	struct evt_rctx c;
	char *p;

	if (!evt_probe_live(data))
		return;
	p = evtrace_begin_inline(EVT_CHAN_COMPACT, EVT_ID_EXIT_SYSCALL, EVT_EXIT_SYSCALL_LEN, &cr, &c);
	if (!p)
		return;
	evt_put_u32(p, (u32)syscall_get_nr(current, regs));
	evt_put_u64(p + 4, (u64)ret);
	evtrace_end_inline(cr, &c);
}

/* Handler names are bounded: the event must fit a small stack buffer. */
#define EVT_IRQ_NAME_MAX 64

static void probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	struct { s32 irq; char name[EVT_IRQ_NAME_MAX]; } pl;
	ssize_t n;

	if (!evt_probe_live(data))
		return;
	pl.irq = irq;
	n = strscpy(pl.name, action && action->name ? action->name : "", sizeof(pl.name));
	if (n < 0)
		n = sizeof(pl.name) - 1;
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_IRQ_ENTRY, &pl, 4 + n + 1);
}

static void probe_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	s32 pl[2] = { irq, ret };

	if (!evt_probe_live(data))
		return;
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_IRQ_EXIT, pl, sizeof(pl));
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	if (!evt_probe_live(data))
		return;
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SOFTIRQ_ENTRY, &vec, sizeof(vec));
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	if (!evt_probe_live(data))
		return;
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SOFTIRQ_EXIT, &vec, sizeof(vec));
}

static void probe_softirq_raise(void *data, unsigned int vec)
{
	if (!evt_probe_live(data))
		return;
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SOFTIRQ_RAISE, &vec, sizeof(vec));
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
	struct {
		char prev_comm[16];
		s32 prev_tid, prev_prio;
		u32 prev_state;
		char next_comm[16];
		s32 next_tid, next_prio;
	} pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_COMPACT, prev, next))
		return;
	copy_comm(pl.prev_comm, prev);
	pl.prev_tid = prev->pid;
	pl.prev_prio = prev->prio;
	pl.prev_state = evt_switch_state(preempt, prev_state, prev);
	copy_comm(pl.next_comm, next);
	pl.next_tid = next->pid;
	pl.next_prio = next->prio;
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SCHED_SWITCH, &pl, sizeof(pl));
}

/* sched_wakeup, sched_wakeup_new, sched_waking: the probe's event says which. */
static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	struct { char comm[16]; s32 tid, prio, target_cpu; } pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_NORMAL, p, NULL))
		return;
	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	pl.target_cpu = task_cpu(p);
	evtrace_record_inline(EVT_CHAN_NORMAL, ((struct evt_probe *)data)->desc->id, &pl, sizeof(pl));
}

static void probe_sched_migrate(void *data, struct task_struct *p, int dest_cpu)
{
	struct { char comm[16]; s32 tid, prio, orig_cpu, dest_cpu; } pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_NORMAL, p, NULL))
		return;
	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	pl.orig_cpu = task_cpu(p);
	pl.dest_cpu = dest_cpu;
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_SCHED_MIGRATE, &pl, sizeof(pl));
}

static void probe_sched_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct { char pcomm[16]; s32 ptid, ppid; char ccomm[16]; s32 ctid, cpid; } pl;

	if (!evt_probe_live(data))
		return;
	copy_comm(pl.pcomm, parent);
	pl.ptid = parent->pid;
	pl.ppid = parent->tgid;
	copy_comm(pl.ccomm, child);
	pl.ctid = child->pid;
	pl.cpid = child->tgid;
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_SCHED_FORK, &pl, sizeof(pl));
}

/* Filenames are bounded: the event must fit a small stack buffer. */
#define EVT_EXEC_NAME_MAX 128

static void probe_sched_exec(void *data, struct task_struct *p, pid_t old_pid,
			     struct linux_binprm *bprm)
{
	struct { s32 tid, old_tid; char name[EVT_EXEC_NAME_MAX]; } pl;
	size_t n;

	if (!evt_probe_live(data))
		return;
	pl.tid = p->pid;
	pl.old_tid = old_pid;
	n = strscpy(pl.name, bprm->filename, sizeof(pl.name));
	if ((ssize_t)n < 0)
		n = sizeof(pl.name) - 1;
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_SCHED_EXEC, &pl, 8 + n + 1);
}

/* sched_process_exit, sched_process_free: the probe's event says which. */
static void probe_sched_task(void *data, struct task_struct *p)
{
	struct { char comm[16]; s32 tid, prio; } pl;

	if (!evt_probe_live(data) || evt_filtered_subject(EVT_CHAN_NORMAL, p, NULL))
		return;
	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	evtrace_record_inline(EVT_CHAN_NORMAL, ((struct evt_probe *)data)->desc->id, &pl, sizeof(pl));
}

static void probe_page_fault_user(void *data, unsigned long address, struct pt_regs *regs,
				  unsigned long error_code)
{
	u32 pl[6];

	if (!evt_probe_live(data))
		return;
	pl[0] = (u32)address;
	pl[1] = (u32)((u64)address >> 32);
	pl[2] = (u32)instruction_pointer(regs);
	pl[3] = (u32)((u64)instruction_pointer(regs) >> 32);
	pl[4] = (u32)error_code;
	pl[5] = (u32)((u64)error_code >> 32);
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_PAGE_FAULT_USER, pl, sizeof(pl));
}

/* Each probe's event gives its enable switch: sys_unknown's is "sys_*". */
static struct evt_probe evt_probes[] = {
	{ "sys_enter", "sys_unknown", probe_sys_enter },
	{ "sys_exit", "exit_syscall", probe_sys_exit },
	{ "irq_handler_entry", "irq_handler_entry", probe_irq_entry },
	{ "irq_handler_exit", "irq_handler_exit", probe_irq_exit },
	{ "softirq_entry", "softirq_entry", probe_softirq_entry },
	{ "softirq_exit", "softirq_exit", probe_softirq_exit },
	{ "softirq_raise", "softirq_raise", probe_softirq_raise },
	{ "sched_switch", "sched_switch", probe_sched_switch },
	{ "sched_wakeup", "sched_wakeup", probe_sched_wakeup },
	{ "sched_wakeup_new", "sched_wakeup_new", probe_sched_wakeup },
	{ "sched_waking", "sched_waking", probe_sched_wakeup },
	{ "sched_migrate_task", "sched_migrate_task", probe_sched_migrate },
	{ "sched_process_fork", "sched_process_fork", probe_sched_fork },
	{ "sched_process_exec", "sched_process_exec", probe_sched_exec },
	{ "sched_process_exit", "sched_process_exit", probe_sched_task },
	{ "sched_process_free", "sched_process_free", probe_sched_task },
	{ "page_fault_user", "page_fault_user", probe_page_fault_user },
};

static DEFINE_MUTEX(evt_probe_lock);

static void evt_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++)
		if (!strcmp(tp->name, evt_probes[i].tp_name))
			evt_probes[i].tp = tp;
}

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
			tracepoint_probe_unregister(p->tp, p->probe, p);
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
		bool want = tracing && p->tp && p->desc && evt_event_enabled(p->desc);

		if (want && !p->attached) {
			/* Live before attached: no window where it is in but silent. */
			WRITE_ONCE(p->live, true);
			if (tracepoint_probe_register(p->tp, p->probe, p)) {
				WRITE_ONCE(p->live, false);
				pr_warn("cannot attach to tracepoint %s\n", p->tp_name);
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

/* How many probes are attached to tracepoints now (for the stats file). */
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
	struct { s32 tid; char text[EVT_MARKER_MAX + 1]; } *pl;
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
	pl->tid = current->pid;
	ret = evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_MARKER, pl, 4 + len + 1);
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

int evt_probes_init(void)
{
	unsigned int i;

	if (probe_linger_ms > EVT_PROBE_LINGER_MS_MAX) {
		pr_err("probe_linger_ms=%u is invalid: it must be from 0 to "
		       EVT_STR(EVT_PROBE_LINGER_MS_MAX) "\n", probe_linger_ms);
		return -EINVAL;
	}

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++)
		evt_probes[i].desc = evt_find_event_by_name(evt_probes[i].event);
	for_each_kernel_tracepoint(evt_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(evt_probes); i++) {
		if (!evt_probes[i].tp)
			pr_info("this kernel has no tracepoint %s: event %s unavailable\n",
				evt_probes[i].tp_name, evt_probes[i].event);
		if (!probes_at_load)
			evt_set_switch(evt_event_switch(evt_probes[i].desc - evt_events), false);
	}
	/* The state dump is kernel state too: off with the probes. */
	if (!probes_at_load) {
		static const unsigned int dump_ids[] = {
			EVT_ID_STATEDUMP_START, EVT_ID_STATEDUMP_PROCESS,
			EVT_ID_STATEDUMP_INTERRUPT, EVT_ID_STATEDUMP_END,
		};

		for (i = 0; i < ARRAY_SIZE(dump_ids); i++)
			evt_set_switch(evt_event_switch(evt_find_event(EVT_CHAN_NORMAL, dump_ids[i]) -
							evt_events), false);
	}
	return misc_register(&evt_marker_dev);
}

/* After tracing has stopped: nothing may be rescheduled past this point. */
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
