/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test sources (evtrace_gen.c): the generator threads and the hrtimer.
 */
#ifndef EVTRACE_GEN_H
#define EVTRACE_GEN_H

#include <linux/types.h>
#include <evtrace/events.h>

struct dentry;
struct seq_file;
struct cpumask;
struct evt_gen_params;

struct evt_gen_info {
	bool running;
	u8 done;			/* u8: see evt_tracing */
	u64 generated[EVT_NR_CHANNELS];
	u64 timer;
};

int evt_gen_init(struct dentry *dir);
void evt_gen_exit(void);
void evt_gen_stats_show(struct seq_file *m);
int evt_gen_start(const struct evt_gen_params *p, const struct cpumask *cpus);
void evt_gen_stop(void);
void evt_timer_start(unsigned int period_us);
void evt_timer_stop(void);
void evt_gen_info(int cpu, struct evt_gen_info *g);

#endif /* EVTRACE_GEN_H */
