/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task filter (evtrace_filter.c): its test on the recording fast path,
 * and the control plane's TRACK, UNTRACK and STATUS parts.
 */
#ifndef EVTRACE_FILTER_H
#define EVTRACE_FILTER_H

#include <linux/types.h>
#include <linux/sched.h>
#include <linux/jump_label.h>
#include "core/evt_ring.h"
#include <evtrace/events.h>

struct dentry;
struct nlattr;
struct netlink_ext_ack;
struct sk_buff;

/*
 * The task filter (evtrace_filter.c): one static branch while none is set.
 * An event is filtered by the task running, except the state dump (never
 * filtered: it describes every task, whoever records it) and events about
 * other tasks, which their probes filter by those tasks (evt_probes.c).
 * @id is a constant at most call sites, so that test folds.
 */
DECLARE_STATIC_KEY_FALSE(evt_filter_key);
bool evt_filter_pass(struct task_struct *t);

static __always_inline bool evt_filter_not_by_current(unsigned int channel, unsigned int id)
{
	/* Each event's "by" in <evtrace/event-defs.h>: CURRENT, SUBJECT or NONE. */
#define EVT_BY_CURRENT_IS_FALSE_CURRENT 0
#define EVT_BY_CURRENT_IS_FALSE_SUBJECT 1
#define EVT_BY_CURRENT_IS_FALSE_NONE 1
#define EVT_NOT_BY_CURRENT(ev, cls, ch, ID, num, by)				\
	if (EVT_BY_CURRENT_IS_FALSE_##by && channel == EVT_CHAN_##ch && id == EVT_ID_##ID) \
		return true;
	EVT_EVENTS(EVT_NOT_BY_CURRENT)
#undef EVT_NOT_BY_CURRENT
	return false;
}

static __always_inline bool evt_filtered_out(struct evt_ring *r, unsigned int channel,
					     unsigned int id)
{
	if (!static_branch_unlikely(&evt_filter_key))
		return false;
	if (evt_filter_not_by_current(channel, id) || evt_filter_pass(current))
		return false;
	evt_local_inc(&r->filtered);
	return true;
}

void evt_filter_init(struct dentry *dir);
void evt_filter_exit(void);
int evt_filter_track(struct nlattr **a, struct netlink_ext_ack *extack);
int evt_filter_untrack(struct nlattr **a, struct netlink_ext_ack *extack);
int evt_filter_put_status(struct sk_buff *skb, bool names);
bool evt_filter_active(void);

#endif /* EVTRACE_FILTER_H */
