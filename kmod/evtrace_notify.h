/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notifications to the drainers (evtrace_notify.c) on the netlink family's
 * group "notify": queued and rate-limited for rings, sent at once for a
 * trigger.
 */
#ifndef EVTRACE_NOTIFY_H
#define EVTRACE_NOTIFY_H

struct genl_family;
struct evt_cpu_ring;
struct evt_trigger_info;
struct cpumask;

void evt_notify_start(const struct genl_family *family);
void evt_notify_stop(void);
void evt_notify_exit(void);
void evt_notify_ring(struct evt_cpu_ring *cr, unsigned int reason);
void evt_notify_no_ring(unsigned int channel, unsigned int cpu);
int evt_notify_trigger(const struct evt_trigger_info *t, const struct cpumask *unanswered);

#endif /* EVTRACE_NOTIFY_H */
