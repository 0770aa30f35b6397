/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flushing a ring from another CPU (evtrace_flush.c), never waiting for
 * good; and the periodic flush timer.
 */
#ifndef EVTRACE_FLUSH_H
#define EVTRACE_FLUSH_H

#include <linux/types.h>

struct evt_cpu_ring;
struct evt_flush_result;
struct evt_quiescent;

/* How long a flush waits for the ring's CPU to answer. */
#define EVT_FLUSH_ANSWER_MS	2000
int evt_flush_ring(struct evt_cpu_ring *cr);
void evt_flush_all(void);
void evt_flush_ring_hold(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res);
bool evt_flush_ring_hold_start(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res);
void evt_flush_ring_hold_finish(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res,
				unsigned long deadline);
void evt_ring_quiescent(struct evt_cpu_ring *cr, struct evt_quiescent *q);
void evt_flush_wait_writers(void);
void evt_set_flush_ms(unsigned int ms);
void evt_flush_timer_start(void);
void evt_flush_timer_stop(void);

#endif /* EVTRACE_FLUSH_H */
