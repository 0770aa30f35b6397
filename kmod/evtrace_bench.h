/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel benchmark (evtrace_bench.c).
 */
#ifndef EVTRACE_BENCH_H
#define EVTRACE_BENCH_H

struct dentry;

int evt_bench_init(struct dentry *dir);
void evt_bench_exit(void);

#endif /* EVTRACE_BENCH_H */
