/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink control plane (evtrace_nl.c): registered last at
 * load, unregistered first at unload.
 */
#ifndef EVTRACE_NL_H
#define EVTRACE_NL_H

int evt_nl_init(void);
void evt_nl_exit(void);

#endif /* EVTRACE_NL_H */
