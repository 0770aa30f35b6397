/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "power" computation (evt_comp_power.c): per CPU (the events' cpu_id
 * field, as lttng-modules records it), its idle states and frequencies over
 * time, from power_cpu_idle and power_cpu_frequency.
 *
 * A CPU is in idle state S from a power_cpu_idle with state S until one
 * with state 4294967295 (the kernel's PWR_EVENT_EXIT: it runs), or another
 * state; it runs at F kHz from a power_cpu_frequency of F until the next.
 * Before a CPU's first event of a kind, that state is unknown (not
 * counted); the last one lasts until the trace's last event.
 */
#ifndef EVT_COMP_POWER_H
#define EVT_COMP_POWER_H

#include <stddef.h>
#include <stdint.h>
#include "engine/evt_engine.h"

#define EVT_POWER_RUNNING 4294967295u	/* the kernel's PWR_EVENT_EXIT */
#define EVT_POWER_UNKNOWN 4294967294u	/* no event said yet */

struct evt_power_change {
	uint64_t ts;			/* clock */
	uint32_t value;			/* idle: a state or EVT_POWER_RUNNING; frequency: kHz */
};

/* Time spent at one value (an idle state, a frequency). */
struct evt_power_time {
	uint32_t value;
	uint64_t ns;
};

struct evt_power_cpu {
	uint32_t cpu;
	struct evt_power_change *idle, *freq;	/* in time order */
	uint32_t nr_idle, cap_idle, nr_freq, cap_freq;
	struct evt_power_time *idle_ns, *freq_ns;	/* ascending by value */
	uint32_t nr_idle_ns, nr_freq_ns;
};

struct evt_power {
	struct evt_power_cpu *cpus;	/* ascending by cpu */
	uint32_t nr_cpus, cap_cpus;
	uint64_t end;			/* the trace's last event (clock): where the last states end */
	int failed;			/* out of memory: not saved */
};

extern const struct evt_computation evt_comp_power;

/* The CPU's record, or NULL. */
const struct evt_power_cpu *evt_power_cpu(const struct evt_power *p, uint32_t cpu);
/* The value of @changes (@n of them) at @ts: EVT_POWER_UNKNOWN before the first. */
uint32_t evt_power_at(const struct evt_power_change *changes, uint32_t n, uint64_t ts);
/*
 * The value @changes held longest within [from, to) (ties: the smaller) and
 * the time-weighted mean of those values that are not EVT_POWER_RUNNING
 * (for frequencies): EVT_POWER_UNKNOWN when none held there.
 */
uint32_t evt_power_mostly(const struct evt_power_change *changes, uint32_t n, uint64_t end, uint64_t from,
			  uint64_t to, double *mean);

#endif /* EVT_COMP_POWER_H */
