/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state dump (evtrace_statedump.c): at START (the rings' listener), at
 * STATEDUMP, and waited for at STOP.
 */
#ifndef EVTRACE_STATEDUMP_H
#define EVTRACE_STATEDUMP_H

void evt_statedump_start(void);
void evt_statedump_finish(void);
void evt_statedump_stop(void);

#endif /* EVTRACE_STATEDUMP_H */
