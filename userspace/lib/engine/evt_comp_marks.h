/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The marks computation (evt_comp_marks.c): per CPU, the time of its first
 * event and the times of its interrupt and softirq entries, so that a
 * viewer counts them in any range with two binary searches instead of
 * reading the events again.
 */
#ifndef EVT_COMP_MARKS_H
#define EVT_COMP_MARKS_H

#include <stdint.h>
#include "engine/evt_engine.h"

enum evt_mark_kind { EVT_MARK_IRQ, EVT_MARK_SOFTIRQ, EVT_MARK_KINDS };

struct evt_marks_cpu {
	uint64_t first;			/* its first event's time (clock); valid when seen */
	int seen;
	/*
	 * Its first sched_switch (when switched): the state computation
	 * counts prev_tid running from the trace's first event before it.
	 */
	int switched;
	uint64_t first_switch;
	int32_t first_prev;
	uint64_t *t[EVT_MARK_KINDS];	/* entry times, in order */
	size_t n[EVT_MARK_KINDS], cap[EVT_MARK_KINDS];
};

struct evt_marks;

extern const struct evt_computation evt_comp_marks;

/* The hook the computation adds (ctx->event), for callers that drive it themselves. */
int evt_marks_event_hook(void *marks, void *call_data);

/* Whether the result holds every mark (0: memory ran out while it was built). */
int evt_marks_complete(const struct evt_marks *m);
unsigned int evt_marks_nr_cpus(const struct evt_marks *m);
/* @cpu's record, or NULL when it had no event. */
const struct evt_marks_cpu *evt_marks_cpu(const struct evt_marks *m, unsigned int cpu);
/* Entries of @kind on @cpu at clock values in [a, b). */
size_t evt_marks_count(const struct evt_marks *m, unsigned int cpu, enum evt_mark_kind kind, uint64_t a,
		       uint64_t b);

#endif /* EVT_COMP_MARKS_H */
