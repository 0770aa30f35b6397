/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader and metadata devices (evtrace_dev.c): one reader device per
 * ring, added and removed as the rings' listener is told.
 */
#ifndef EVTRACE_DEV_H
#define EVTRACE_DEV_H

struct evt_cpu_ring;

int evt_dev_init(void);
void evt_dev_exit(void);
int evt_dev_add_ring(struct evt_cpu_ring *cr);
void evt_dev_remove_ring(struct evt_cpu_ring *cr);

#endif /* EVTRACE_DEV_H */
