// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks on the kernel's tracepoints: the one lookup by name (the kernel
 * exports no tracepoint symbols to modules, only the walk over them) and
 * the attach and detach that every unit uses.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "evtrace_tp.h"

struct evt_tp_search {
	struct evt_tp_hook *const *hooks;
	unsigned int n;
};

static void evt_tp_match(struct tracepoint *tp, void *priv)
{
	const struct evt_tp_search *s = priv;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(tp->name, s->hooks[i]->name))
			s->hooks[i]->tp = tp;
}

/**
 * evt_tp_find() - look up the tracepoints of hooks, in one walk over the
 * kernel's
 * @hooks: the hooks; each one's @tp is set, or left NULL when this kernel
 *	has no tracepoint of that name
 * @n: their number
 *
 * Process context, at load: the kernel's own tracepoints only (not those of
 * modules), as the walk gives them.
 */
void evt_tp_find(struct evt_tp_hook *const *hooks, unsigned int n)
{
	struct evt_tp_search s = { .hooks = hooks, .n = n };

	for_each_kernel_tracepoint(evt_tp_match, &s);
}

/**
 * evt_tp_attach_prio() - attach a hook's probe to its tracepoint
 * @h: the hook, found by evt_tp_find()
 * @data: the probe's first argument
 * @prio: the probe's place among the tracepoint's (higher runs first)
 *
 * Return: 0, -ENOENT when this kernel has no such tracepoint, or the
 * registration's negative errno.
 */
int evt_tp_attach_prio(const struct evt_tp_hook *h, void *data, int prio)
{
	if (!h->tp)
		return -ENOENT;
	return tracepoint_probe_register_prio(h->tp, h->probe, data, prio);
}

/**
 * evt_tp_attach() - attach a hook's probe at the default priority
 * @h: the hook, found by evt_tp_find()
 * @data: the probe's first argument
 *
 * Return: as evt_tp_attach_prio().
 */
int evt_tp_attach(const struct evt_tp_hook *h, void *data)
{
	return evt_tp_attach_prio(h, data, TRACEPOINT_DEFAULT_PRIO);
}

/**
 * evt_tp_detach() - detach a hook's probe attached with @data
 * @h: the hook
 * @data: as given to the attach
 *
 * The caller waits for tracepoint_synchronize_unregister() before freeing
 * what the probe uses (once, after detaching several).
 */
void evt_tp_detach(const struct evt_tp_hook *h, void *data)
{
	if (h->tp)
		tracepoint_probe_unregister(h->tp, h->probe, data);
}
