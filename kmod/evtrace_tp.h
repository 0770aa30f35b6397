/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks on the kernel's tracepoints (evtrace_tp.c), for every unit that
 * attaches to one: the probes, the task filter and the triggers. A hook
 * names its tracepoint and probe; evt_tp_find() looks the tracepoint up
 * once, at load, and a kernel without it leaves @tp NULL.
 */
#ifndef EVTRACE_TP_H
#define EVTRACE_TP_H

#include <linux/types.h>

struct tracepoint;

struct evt_tp_hook {
	const char *name;		/* the tracepoint's */
	void *probe;			/* the probe function, of its prototype */
	struct tracepoint *tp;		/* evt_tp_find(): NULL when this kernel has none */
};

void evt_tp_find(struct evt_tp_hook *const *hooks, unsigned int n);
int evt_tp_attach(const struct evt_tp_hook *h, void *data);
int evt_tp_attach_prio(const struct evt_tp_hook *h, void *data, int prio);
void evt_tp_detach(const struct evt_tp_hook *h, void *data);

#endif /* EVTRACE_TP_H */
