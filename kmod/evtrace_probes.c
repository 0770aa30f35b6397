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
#include <asm/syscall.h>
#include "evtrace.h"

static void copy_comm(char dst[16], const struct task_struct *t)
{
	memcpy(dst, t->comm, 16);
	dst[15] = '\0';
}

static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct { s32 nr; u32 a[12]; } pl = { .nr = id };
	unsigned long args[6];

	syscall_get_arguments(current, regs, args);
	memcpy(pl.a, args, sizeof(args));
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SYS_ENTER, &pl, sizeof(pl));
}

static void probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct { s32 nr; u32 ret[2]; } pl = { .nr = syscall_get_nr(current, regs) };

	memcpy(pl.ret, &ret, 8);
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SYS_EXIT, &pl, sizeof(pl));
}

static void probe_irq_entry(void *data, int irq, struct irqaction *action)
{
	s32 pl = irq;

	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_IRQ_ENTRY, &pl, sizeof(pl));
}

static void probe_irq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	s32 pl[2] = { irq, ret };

	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_IRQ_EXIT, pl, sizeof(pl));
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SOFTIRQ_ENTRY, &vec, sizeof(vec));
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SOFTIRQ_EXIT, &vec, sizeof(vec));
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

	copy_comm(pl.prev_comm, prev);
	pl.prev_tid = prev->pid;
	pl.prev_prio = prev->prio;
	pl.prev_state = prev_state;
	copy_comm(pl.next_comm, next);
	pl.next_tid = next->pid;
	pl.next_prio = next->prio;
	evtrace_record_inline(EVT_CHAN_COMPACT, EVT_ID_SCHED_SWITCH, &pl, sizeof(pl));
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	struct { char comm[16]; s32 tid, prio, target_cpu; } pl;

	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	pl.target_cpu = task_cpu(p);
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_SCHED_WAKEUP, &pl, sizeof(pl));
}

static void probe_sched_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct { char pcomm[16]; s32 ptid; char ccomm[16]; s32 ctid; } pl;

	copy_comm(pl.pcomm, parent);
	pl.ptid = parent->pid;
	copy_comm(pl.ccomm, child);
	pl.ctid = child->pid;
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_SCHED_FORK, &pl, sizeof(pl));
}

/* Filenames are bounded: the event must fit a small stack buffer. */
#define EVT_EXEC_NAME_MAX 128

static void probe_sched_exec(void *data, struct task_struct *p, pid_t old_pid,
			     struct linux_binprm *bprm)
{
	struct { s32 tid, old_tid; char name[EVT_EXEC_NAME_MAX]; } pl;
	size_t n;

	pl.tid = p->pid;
	pl.old_tid = old_pid;
	n = strscpy(pl.name, bprm->filename, sizeof(pl.name));
	if ((ssize_t)n < 0)
		n = sizeof(pl.name) - 1;
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_SCHED_EXEC, &pl, 8 + n + 1);
}

static void probe_sched_exit(void *data, struct task_struct *p)
{
	struct { char comm[16]; s32 tid, prio; } pl;

	copy_comm(pl.comm, p);
	pl.tid = p->pid;
	pl.prio = p->prio;
	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_SCHED_EXIT, &pl, sizeof(pl));
}

static void probe_page_fault_user(void *data, unsigned long address, struct pt_regs *regs,
				  unsigned long error_code)
{
	u32 pl[6] = {
		(u32)address, (u32)((u64)address >> 32),
		(u32)instruction_pointer(regs), (u32)((u64)instruction_pointer(regs) >> 32),
		(u32)error_code, (u32)((u64)error_code >> 32),
	};

	evtrace_record_inline(EVT_CHAN_NORMAL, EVT_ID_PAGE_FAULT_USER, pl, sizeof(pl));
}

struct evt_probe {
	const char *tp_name;
	const char *event;	/* catalogue name */
	void *probe;
	struct tracepoint *tp;
	const struct evt_event_desc *desc;
	bool attached;
};

static struct evt_probe evt_probes[] = {
	{ "sys_enter", "sys_enter", probe_sys_enter },
	{ "sys_exit", "sys_exit", probe_sys_exit },
	{ "irq_handler_entry", "irq_handler_entry", probe_irq_entry },
	{ "irq_handler_exit", "irq_handler_exit", probe_irq_exit },
	{ "softirq_entry", "softirq_entry", probe_softirq_entry },
	{ "softirq_exit", "softirq_exit", probe_softirq_exit },
	{ "sched_switch", "sched_switch", probe_sched_switch },
	{ "sched_wakeup", "sched_wakeup", probe_sched_wakeup },
	{ "sched_process_fork", "sched_process_fork", probe_sched_fork },
	{ "sched_process_exec", "sched_process_exec", probe_sched_exec },
	{ "sched_process_exit", "sched_process_exit", probe_sched_exit },
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

/* Attach what is enabled, detach what is not: while tracing only. */
static void evt_probes_sync_locked(bool tracing)
{
	bool detached = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++) {
		struct evt_probe *p = &evt_probes[i];
		bool want = tracing && p->tp && p->desc && evt_event_enabled(p->desc);

		if (want && !p->attached) {
			if (tracepoint_probe_register(p->tp, p->probe, NULL))
				pr_warn("cannot attach to tracepoint %s\n", p->tp_name);
			else
				p->attached = true;
		} else if (!want && p->attached) {
			tracepoint_probe_unregister(p->tp, p->probe, NULL);
			p->attached = false;
			detached = true;
		}
	}
	/* No probe may still run (or be about to) once we return. */
	if (detached)
		tracepoint_synchronize_unregister();
}

/**
 * evt_probes_sync() - make the attached probes match the tracing state and the
 * per-event enable flags
 * @tracing: attach enabled probes (true) or detach all (false)
 */
void evt_probes_sync(bool tracing)
{
	mutex_lock(&evt_probe_lock);
	evt_probes_sync_locked(tracing);
	mutex_unlock(&evt_probe_lock);
}

/* Is the catalogue event backed by a tracepoint this kernel has? */
bool evt_probe_available(const struct evt_event_desc *d)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++)
		if (evt_probes[i].desc == d)
			return evt_probes[i].tp != NULL;
	return true;
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

	for (i = 0; i < ARRAY_SIZE(evt_probes); i++)
		evt_probes[i].desc = evt_find_event_by_name(evt_probes[i].event);
	for_each_kernel_tracepoint(evt_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(evt_probes); i++)
		if (!evt_probes[i].tp)
			pr_info("this kernel has no tracepoint %s: event %s unavailable\n",
				evt_probes[i].tp_name, evt_probes[i].event);
	return misc_register(&evt_marker_dev);
}

void evt_probes_exit(void)
{
	misc_deregister(&evt_marker_dev);
	evt_probes_sync(false);
}
