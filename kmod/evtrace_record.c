// SPDX-License-Identifier: GPL-2.0
/*
 * The recording API exported to other modules: evtrace_record(), the
 * fast path of evtrace_record.h behind a checked channel.
 */
#include <linux/module.h>
#include "evtrace_record.h"

/**
 * evtrace_record() - record one event on the current CPU
 * @channel: EVT_CHAN_COMPACT or EVT_CHAN_NORMAL
 * @id: event id within the channel (see <evtrace/events.h>)
 * @payload: payload bytes, laid out as the catalogue says
 * @len: payload length
 *
 * Lockless and per-CPU; never sleeps; callable from any context, NMI
 * included. Losses are counted in the ring's statistics.
 *
 * Return: 0 when recorded; -ENODATA when not tracing; -ENOBUFS (ring
 * full), -E2BIG (too big), -EBUSY (nested too deep) or -ENOMEM (this CPU
 * has no ring: its allocation failed when it came online), each counted.
 */
int evtrace_record(unsigned int channel, unsigned int id, const void *payload,
		   unsigned int len)
{
	if (unlikely(channel >= EVT_NR_CHANNELS))
		return -EINVAL;
	return evtrace_record_inline(channel, id, payload, len);
}
EXPORT_SYMBOL_GPL(evtrace_record);
