/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evstat's deeper text sections: latency percentiles and errno breakdowns,
 * the worst latencies, where each CPU's time went, threads' wakeups and
 * migrations, syscalls per process or thread, histograms as bars.
 */
#ifndef EVS_DEEP_H
#define EVS_DEEP_H

#include "report/evt_report.h"

static inline double evs_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static inline double evs_avg_us(const struct evt_lat *l)
{
	return l->count ? (double)l->total_ns / (double)l->count / 1000.0 : 0.0;
}

/* Indexes 0 .. n - 1 ordered by @keys, most first (ties: the lower index); NULL: no memory. */
uint32_t *evs_order(const uint64_t *keys, uint32_t n);

enum evs_by { EVS_BY_NONE, EVS_BY_PROCESS, EVS_BY_THREAD };

/* Each prints its section to stdout, at most @top rows a table (0: all). 0, or -1 (no memory). */
int evs_print_percentiles(const struct evt_report *r, unsigned long top);
void evs_print_irq_percentiles(const struct evt_report *r);
void evs_print_worst(const struct evt_report *r, unsigned long top);
void evs_print_cpus(const struct evt_report *r);
int evs_print_wakeups(const struct evt_report *r, unsigned long top);
int evs_print_by(const struct evt_report *r, enum evs_by by, unsigned long top);
/*
 * --hist @spec: "syscall=NAME" (sys_NAME too), "irq=N", "softirq=NAME"
 * (or its vector), "sched". 0; 1 when @spec names nothing there is (said
 * on stderr); -1 when @spec is no histogram at all.
 */
int evs_hist_valid(const char *spec);
int evs_print_hist(const struct evt_report *r, const char *spec);

#endif /* EVS_DEEP_H */
