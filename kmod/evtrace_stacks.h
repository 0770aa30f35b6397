/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel stacks after events (evtrace_stacks.c): the fast path's test and
 * the recording, and the per-event switches.
 */
#ifndef EVTRACE_STACKS_H
#define EVTRACE_STACKS_H

#include <linux/types.h>
#include <linux/jump_label.h>
#include <linux/bitops.h>
#include "core/evt_ring.h"
#include <evtrace/events.h>

/*
 * Kernel stacks (evtrace_stacks.c): whether event @id of @channel is to be
 * followed by its kernel_stack (one patched jump while no stack is on; @id
 * and @channel are constants at most call sites), and the recording.
 */
DECLARE_STATIC_KEY_FALSE(evt_stack_key);
extern unsigned long evt_stack_on;
void evt_record_stack(struct evt_ring *r, unsigned int id);

static __always_inline bool evt_stack_wanted(unsigned int channel, unsigned int id)
{
	return static_branch_unlikely(&evt_stack_key) && channel == EVT_CHAN_COMPACT &&
	       id < EVT_COMPACT_ID_WIDE && test_bit(id, &evt_stack_on);
}

int evt_stacks_init(void);
void evt_stacks_exit(void);
bool evt_stack_allowed(const struct evt_event_desc *d);
bool evt_stack_of(const struct evt_event_desc *d);
int evt_set_stack(const struct evt_event_desc *d, bool on);

#endif /* EVTRACE_STACKS_H */
