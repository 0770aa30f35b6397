/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Triggers on kernel reports (evtrace_trigger.c).
 */
#ifndef EVTRACE_TRIGGER_H
#define EVTRACE_TRIGGER_H

struct dentry;

int evt_trigger_init(struct dentry *dir);
void evt_trigger_exit(void);

#endif /* EVTRACE_TRIGGER_H */
