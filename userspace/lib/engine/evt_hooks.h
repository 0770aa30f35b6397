/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hook lists with reference counts (Desnoyers, "Linux Trace Toolkit Requests
 * Servicing Schedulers", 2004, "Hooks Lists"; docs/references.md): two hooks are
 * identical when they have the same function and data; adding one that is
 * there already only counts it, so it is still called once, and it takes
 * as many removals as additions to leave the list. This is what lets the
 * background scheduler add the hooks of every request of a pass to one
 * context: two requests for the same computation do not run it twice.
 */
#ifndef EVT_HOOKS_H
#define EVT_HOOKS_H

/* A hook: its return value is or-ed over the list (nonzero: "stop", where a caller says). */
typedef int (*evt_hook_fn)(void *hook_data, void *call_data);

struct evt_hook {
	evt_hook_fn fn;
	void *data;
	unsigned int refs;
};

struct evt_hooks {
	struct evt_hook *v;
	unsigned int n, cap;
};

/* Add, or count once more when (fn, data) is there. 0, or -1 (no memory). */
int evt_hooks_add(struct evt_hooks *h, evt_hook_fn fn, void *data);
/* Every hook of @from, each with its count. 0, or -1 (no memory; @h unchanged). */
int evt_hooks_add_list(struct evt_hooks *h, const struct evt_hooks *from);
/*
 * One removal of (fn, data): the references left (0: it is gone), or -1
 * when it was not there.
 */
int evt_hooks_remove(struct evt_hooks *h, evt_hook_fn fn, void *data);
/* One removal of each hook of @from, as many times as @from counts it. */
void evt_hooks_remove_list(struct evt_hooks *h, const struct evt_hooks *from);
/* Remove (fn, data) whatever its count. */
void evt_hooks_remove_all(struct evt_hooks *h, evt_hook_fn fn, void *data);
/* Call each hook once, in the order they were first added; the or of their returns. */
int evt_hooks_call(const struct evt_hooks *h, void *call_data);
static inline int evt_hooks_empty(const struct evt_hooks *h)
{
	return h->n == 0;
}
void evt_hooks_free(struct evt_hooks *h);

#endif /* EVT_HOOKS_H */
