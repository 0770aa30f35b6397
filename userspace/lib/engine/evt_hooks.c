// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "engine/evt_hooks.h"

static struct evt_hook *find(const struct evt_hooks *h, evt_hook_fn fn, void *data)
{
	unsigned int i;

	for (i = 0; i < h->n; i++)
		if (h->v[i].fn == fn && h->v[i].data == data)
			return &h->v[i];
	return NULL;
}

static int add_refs(struct evt_hooks *h, evt_hook_fn fn, void *data, unsigned int refs)
{
	struct evt_hook *k = find(h, fn, data);

	if (k) {
		k->refs += refs;
		return 0;
	}
	if (h->n == h->cap) {
		unsigned int cap = h->cap ? h->cap * 2 : 4;
		struct evt_hook *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = (struct evt_hook){ fn, data, refs };
	return 0;
}

int evt_hooks_add(struct evt_hooks *h, evt_hook_fn fn, void *data)
{
	return add_refs(h, fn, data, 1);
}

int evt_hooks_add_list(struct evt_hooks *h, const struct evt_hooks *from)
{
	unsigned int i;

	for (i = 0; i < from->n; i++)
		if (add_refs(h, from->v[i].fn, from->v[i].data, from->v[i].refs)) {
			/* Undo what was added: the list is as it was. */
			while (i--)
				for (unsigned int r = 0; r < from->v[i].refs; r++)
					evt_hooks_remove(h, from->v[i].fn, from->v[i].data);
			return -1;
		}
	return 0;
}

static void drop(struct evt_hooks *h, struct evt_hook *k)
{
	/* Keep the order: hooks run in the order they were first added. */
	memmove(k, k + 1, (size_t)(h->v + h->n - (k + 1)) * sizeof(*k));
	h->n--;
}

int evt_hooks_remove(struct evt_hooks *h, evt_hook_fn fn, void *data)
{
	struct evt_hook *k = find(h, fn, data);

	if (!k)
		return -1;
	if (--k->refs)
		return (int)k->refs;
	drop(h, k);
	return 0;
}

void evt_hooks_remove_list(struct evt_hooks *h, const struct evt_hooks *from)
{
	unsigned int i, r;

	for (i = 0; i < from->n; i++)
		for (r = 0; r < from->v[i].refs; r++)
			evt_hooks_remove(h, from->v[i].fn, from->v[i].data);
}

void evt_hooks_remove_all(struct evt_hooks *h, evt_hook_fn fn, void *data)
{
	struct evt_hook *k = find(h, fn, data);

	if (k)
		drop(h, k);
}

int evt_hooks_call(const struct evt_hooks *h, void *call_data)
{
	int ret = 0;
	unsigned int i;

	for (i = 0; i < h->n; i++)
		ret |= h->v[i].fn(h->v[i].data, call_data);
	return ret;
}

void evt_hooks_free(struct evt_hooks *h)
{
	free(h->v);
	*h = (struct evt_hooks){ 0 };
}
