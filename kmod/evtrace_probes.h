/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracepoint probes and the marker device (evtrace_probes.c).
 */
#ifndef EVTRACE_PROBES_H
#define EVTRACE_PROBES_H

#include <linux/types.h>

int evt_probes_init(void);
void evt_probes_exit(void);
void evt_probes_sync(bool tracing);
unsigned int evt_probes_attached(void);

#endif /* EVTRACE_PROBES_H */
