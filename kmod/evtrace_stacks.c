// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel call stacks on chosen events (issue 45). An event whose stack is on
 * (evctl enable --stack, or the stacks= parameter at load) is followed in its
 * ring by a kernel_stack event: the event's id and the return addresses
 * stack_trace_save() found, innermost first, at most stack_depth, the frames
 * of evtrace itself left out. It is recorded by the same writer right after
 * the event's commit, while that writer still holds its CPU and its nesting
 * level: an interrupt that comes between records its own events and stacks
 * whole, so a reader pairs a stack with the last event of that id before it
 * in the stream that has none yet (nesting is last in, first out).
 *
 * Only compact-channel events with a small id can have stacks (every kernel
 * tracepoint event but the syscall entries): one bit each in evt_stack_on.
 * The fast path pays one patched jump (evt_stack_key) while no stack is on.
 * stack_trace_save() walks with the kernel's unwinder, which may run in any
 * context a probe runs in, NMI included; the addresses go to a per-CPU
 * buffer per nesting level, not the (interrupt or NMI) stack.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include "evtrace_rings.h"
#include "evtrace_stacks.h"

static unsigned int stack_depth = EVT_STACK_DEPTH_DEFAULT;
module_param(stack_depth, uint, 0444);
MODULE_PARM_DESC(stack_depth, "return addresses a kernel stack keeps at most, 1 to " EVT_STR(EVT_STACK_DEPTH_MAX)
		 " (default " EVT_STR(EVT_STACK_DEPTH_DEFAULT) ")");

static char *stacks_at_load = "";
module_param_named(stacks, stacks_at_load, charp, 0444);
MODULE_PARM_DESC(stacks, "events recorded with their kernel stack from load on, comma-separated (compact-channel "
		 "events: sched_switch, block_rq_issue, ...; default none)");

DEFINE_STATIC_KEY_FALSE(evt_stack_key);
unsigned long evt_stack_on;
static DEFINE_MUTEX(evt_stack_lock);

/* [nesting level][frame]: a writer at level L uses row L - 1. */
struct evt_stack_buf {
	unsigned long ip[EVT_MAX_NESTING][EVT_STACK_DEPTH_MAX + EVT_STACK_SKIP_MAX];
};
static DEFINE_PER_CPU(struct evt_stack_buf, evt_stack_bufs);

/**
 * evt_stack_allowed() - whether @d may have stacks
 * @d: an event of the catalogue
 *
 * Return: true for compact-channel events with a small id, but
 * kernel_stack itself and the syscall entries.
 */
bool evt_stack_allowed(const struct evt_event_desc *d)
{
	return d->channel == EVT_CHAN_COMPACT && d->id < EVT_COMPACT_ID_WIDE && d->id != EVT_ID_KERNEL_STACK;
}

/**
 * evt_stack_of() - whether @d is recorded with its stack now
 * @d: an event of the catalogue
 *
 * Return: true when it is.
 */
bool evt_stack_of(const struct evt_event_desc *d)
{
	return evt_stack_allowed(d) && test_bit(d->id, &evt_stack_on);
}

/**
 * evt_set_stack() - record @d with its kernel stack, or without
 * @d: an event of the catalogue
 * @on: with (true) or without
 *
 * Return: 0, or -EINVAL when @d cannot have stacks.
 */
int evt_set_stack(const struct evt_event_desc *d, bool on)
{
	if (!evt_stack_allowed(d))
		return on ? -EINVAL : 0;
	mutex_lock(&evt_stack_lock);
	if (on)
		set_bit(d->id, &evt_stack_on);
	else
		clear_bit(d->id, &evt_stack_on);
	/* The key follows the set: the writers' test of a bit is behind it. */
	if (READ_ONCE(evt_stack_on) && !static_key_enabled(&evt_stack_key))
		static_branch_enable(&evt_stack_key);
	else if (!READ_ONCE(evt_stack_on) && static_key_enabled(&evt_stack_key))
		static_branch_disable(&evt_stack_key);
	mutex_unlock(&evt_stack_lock);
	return 0;
}

/**
 * evt_record_stack() - record the stack of the event just committed
 * @r: the ring the event went to (the current CPU's compact one)
 * @id: its id
 *
 * Called by the writer of the event, after its commit, with preemption off
 * and its nesting level still held (evtrace_record_inline(),
 * evtrace_end_inline()). A stack that does not fit is counted as the ring's
 * losses count any event.
 */
void evt_record_stack(struct evt_ring *r, unsigned int id)
{
	unsigned int level = this_cpu_read(evt_nesting), depth = READ_ONCE(stack_depth), n, first = 0;
	unsigned long *ip;
	struct evt_pl_kernel_stack *pl;
	struct evt_rctx c;

	if (level < 1 || level > EVT_MAX_NESTING)
		return;
	ip = this_cpu_ptr(&evt_stack_bufs)->ip[level - 1];
	n = stack_trace_save(ip, depth + EVT_STACK_SKIP_MAX, 0);
	/* evtrace's own frames (this function, the probe) first: left out. */
	while (first < n && first < EVT_STACK_SKIP_MAX && within_module(ip[first], THIS_MODULE))
		first++;
	n -= first;
	if (n > depth)
		n = depth;
	if (evt_reserve_ch(r, EVT_CHAN_OF_KERNEL_STACK, EVT_ID_KERNEL_STACK, sizeof(*pl) + 4 + 8 * n, &c))
		return;
	pl = (void *)evt_write_header_ch(r, EVT_CHAN_OF_KERNEL_STACK, &c, EVT_ID_KERNEL_STACK, sizeof(*pl) + 4 + 8 * n);
	pl->event_id = id;
	evt_put_u32(pl->var, n);
	memcpy(pl->var + 4, ip + first, 8 * n);
	evt_commit(r, &c);
}

/**
 * evt_stacks_init() - check the parameters, turn the stacks= events' on
 *
 * Return: 0, or -EINVAL with the kernel log naming the parameter.
 */
int evt_stacks_init(void)
{
	char *list, *p, *name;
	int ret = 0;

	if (!stack_depth || stack_depth > EVT_STACK_DEPTH_MAX) {
		pr_err("stack_depth=%u is invalid: it must be from 1 to " EVT_STR(EVT_STACK_DEPTH_MAX) "\n",
		       stack_depth);
		return -EINVAL;
	}
	if (!stacks_at_load || !*stacks_at_load)
		return 0;
	list = kstrdup(stacks_at_load, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	for (p = list; (name = strsep(&p, ",")) && !ret;) {
		const struct evt_event_desc *d;

		if (!*name)
			continue;
		d = evt_find_event_by_name(name);
		if (!d || !evt_stack_allowed(d)) {
			pr_err("stacks=%s is invalid: %s %s\n", stacks_at_load, name,
			       d ? "cannot have stacks (compact-channel events only)" : "is no event");
			ret = -EINVAL;
			break;
		}
		evt_set_stack(d, true);
	}
	kfree(list);
	if (ret)
		evt_stacks_exit();
	return ret;
}

/**
 * evt_stacks_exit() - turn every event's stack off
 *
 * After tracing stopped: no writer looks at the set any more.
 */
void evt_stacks_exit(void)
{
	mutex_lock(&evt_stack_lock);
	WRITE_ONCE(evt_stack_on, 0);
	if (static_key_enabled(&evt_stack_key))
		static_branch_disable(&evt_stack_key);
	mutex_unlock(&evt_stack_lock);
}
