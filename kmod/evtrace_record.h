/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording fast path, inlined into the module's own event sources
 * (the probes, the state dump, the generators): the rings' tracing flag and
 * per-CPU rings, the task filter and the kernel stacks, in that order.
 */
#ifndef EVTRACE_RECORD_H
#define EVTRACE_RECORD_H

#include <linux/string.h>
#include <linux/build_bug.h>
#include "evtrace_rings.h"
#include "evtrace_filter.h"
#include "evtrace_stacks.h"

/* The same for other modules (evtrace_record.c), the channel checked. */
int evtrace_record(unsigned int channel, unsigned int id, const void *payload,
		   unsigned int len);

/* evt_record_copy() with the test build's window before the commit. */
static __always_inline int evt_record_copy_windowed(struct evt_ring *r, unsigned int chan, unsigned int id,
						    const void *payload, unsigned int len)
{
#ifdef EVT_TEST_WINDOWS
	struct evt_rctx c;
	int ret = evt_reserve_ch(r, chan, id, len, &c);

	if (unlikely(ret))
		return ret;
	memcpy(evt_write_header_ch(r, chan, &c, id, len), payload, len);
	evt_test_window(EVT_WINDOW_BEFORE_COMMIT);
	evt_commit(r, &c);
	return 0;
#else
	return evt_record_copy_ch(r, chan, id, payload, len);
#endif
}

static __always_inline int evt_no_ring(unsigned int channel)
{
	this_cpu_inc(evt_noring_refused[channel]);
	return -ENOMEM;
}

/**
 * evtrace_record_inline() - the fast path, for callers inside the module
 * @channel: EVT_CHAN_COMPACT or EVT_CHAN_NORMAL
 * @id: event id within the channel
 * @payload: bytes to copy
 * @len: their number
 *
 * Return: 0, -ENODATA when not tracing, -ESRCH when the task filter left
 * the event out (counted as filtered), or a counted loss (-ENOBUFS,
 * -E2BIG, -EBUSY for nesting too deep or an NMI where cmpxchg is not
 * NMI-safe, -ENOMEM when this CPU has no ring).
 */
static __always_inline int evtrace_record_inline(unsigned int channel, unsigned int id,
						 const void *payload, unsigned int len)
{
	struct evt_cpu_ring *cr;
	int ret;

	/*
	 * The tracing flag is read with preemption off: STOP clears it, then
	 * waits a grace period, so a writer that saw it set has committed by
	 * the time STOP flushes.
	 */
	preempt_disable_notrace();
	if (unlikely(!READ_ONCE(evt_tracing))) {
		ret = -ENODATA;
		goto out;
	}
	evt_test_window(EVT_WINDOW_AFTER_TRACING_CHECK);
	cr = this_cpu_read(evt_cpu_rings[channel]);
	if (unlikely(!cr)) {
		ret = evt_no_ring(channel);
	} else if (evt_filtered_out(&cr->ring, channel, id)) {
		ret = -ESRCH;
	} else if (unlikely(this_cpu_inc_return(evt_nesting) > EVT_MAX_NESTING ||
			    evt_nmi_refused())) {
		evt_local_inc(&cr->ring.refused);
		ret = -EBUSY;
		this_cpu_dec(evt_nesting);
	} else {
		ret = evt_record_copy_windowed(&cr->ring, channel, id, payload, len);
		if (evt_stack_wanted(channel, id) && !ret)
			evt_record_stack(&cr->ring, id);
		this_cpu_dec(evt_nesting);
	}
out:
	preempt_enable_notrace();
	return ret;
}

/**
 * evtrace_begin_inline() - reserve one event and write its header, for probes
 * that fill their payload in place (no staging copy)
 * @channel: EVT_CHAN_COMPACT or EVT_CHAN_NORMAL
 * @id: event id within the channel
 * @len: payload bytes the caller will write
 * @crp: set to the ring, for evtrace_end_inline()
 * @c: the reservation, for evtrace_end_inline()
 *
 * On success preemption stays disabled and the nesting level raised until
 * evtrace_end_inline(), which the caller must reach without sleeping.
 *
 * Return: where the @len payload bytes go, or NULL (not tracing, filtered
 * out, or a counted loss); after NULL there is nothing to end.
 */
static __always_inline char *evtrace_begin_inline(unsigned int channel, unsigned int id,
						  unsigned int len, struct evt_cpu_ring **crp,
						  struct evt_rctx *c)
{
	struct evt_cpu_ring *cr;

	preempt_disable_notrace();
	/* Under disabled preemption: see evtrace_record_inline(). */
	if (unlikely(!READ_ONCE(evt_tracing)))
		goto out;
	cr = this_cpu_read(evt_cpu_rings[channel]);
	if (unlikely(!cr)) {
		evt_no_ring(channel);
		goto out;
	}
	if (evt_filtered_out(&cr->ring, channel, id))
		goto out;
	if (unlikely(this_cpu_inc_return(evt_nesting) > EVT_MAX_NESTING ||
		     evt_nmi_refused())) {
		evt_local_inc(&cr->ring.refused);
		goto out_nesting;
	}
	if (unlikely(evt_reserve_ch(&cr->ring, channel, id, len, c)))
		goto out_nesting;
	*crp = cr;
	return evt_write_header_ch(&cr->ring, channel, c, id, len);
out_nesting:
	this_cpu_dec(evt_nesting);
out:
	preempt_enable_notrace();
	return NULL;
}

/**
 * evtrace_end_inline() - publish an event begun with evtrace_begin_inline()
 * @cr: the ring it returned
 * @c: the reservation it filled in
 * @channel: the event's channel, as given to evtrace_begin_inline()
 * @id: its id, likewise
 */
static __always_inline void evtrace_end_inline(struct evt_cpu_ring *cr, struct evt_rctx *c,
					       unsigned int channel, unsigned int id)
{
	evt_commit(&cr->ring, c);
	if (evt_stack_wanted(channel, id))
		evt_record_stack(&cr->ring, id);
	this_cpu_dec(evt_nesting);
	preempt_enable_notrace();
}

/*
 * Record event EVT_ID_<ev> from @pl, a pointer to its class's payload struct
 * (<evtrace/event-layout.h>): the channel and the id come from the event's
 * one definition, and a payload of another class does not compile.
 * EVT_RECORD_FIXED() records the fixed part alone, EVT_RECORD() @len bytes
 * (the fixed part and what the probe wrote into pl->var).
 */
#define EVT_RECORD(ev, pl, len) ({						\
	BUILD_BUG_ON(!__same_type(*(pl), evt_pl_of_##ev));			\
	evtrace_record_inline(EVT_CHAN_OF_##ev, EVT_ID_##ev, (pl), (len));	\
})
#define EVT_RECORD_FIXED(ev, pl) EVT_RECORD(ev, pl, sizeof(*(pl)))

/*
 * Copy string @s into a payload's variable part at @dst, at most @max
 * bytes with its NUL (truncated, still NUL-terminated): the bytes taken.
 */
static __always_inline unsigned int evt_pl_string(char *dst, const char *s, unsigned int max)
{
	ssize_t n = strscpy(dst, s ? s : "", max);

	return n < 0 ? max : (unsigned int)n + 1;
}

#endif /* EVTRACE_RECORD_H */
