// SPDX-License-Identifier: GPL-2.0
/*
 * Hook contexts: a computation's or a request's hooks per event name,
 * bound to a trace's catalogue (evt_engine.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_engine_priv.h"

struct evt_named_hook {
	char *event;
	evt_hook_fn fn;
	void *data;
	unsigned int refs;
};

int evt_ctx_bind(struct evt_ctx *c, const struct evt_catalogue *cat)
{
	if (c->cat == cat)
		return 0;
	if (c->by_id) {
		for (unsigned int i = 0; i < c->cat->nr_events; i++)
			evt_hooks_free(&c->by_id[i]);
		free(c->by_id);
		c->by_id = NULL;
	}
	c->cat = cat;
	c->nr_by_id = 0;
	if (!cat)
		return 0;
	c->by_id = calloc(cat->nr_events ? cat->nr_events : 1, sizeof(*c->by_id));
	return c->by_id ? 0 : -1;
}

int evt_ctx_add_event(struct evt_ctx *c, const char *event, evt_hook_fn fn, void *data)
{
	const struct evt_event_desc *d;
	unsigned int i;

	if (!c->cat) {
		/* Not bound to a trace yet (a request): kept by name, resolved at its start. */
		for (i = 0; i < c->nr_named; i++)
			if (c->named[i].fn == fn && c->named[i].data == data && !strcmp(c->named[i].event, event)) {
				c->named[i].refs++;
				return 0;
			}
		if (c->nr_named == c->cap_named) {
			unsigned int cap = c->cap_named ? 2 * c->cap_named : 8;
			struct evt_named_hook *v = realloc(c->named, cap * sizeof(*v));

			if (!v)
				return -1;
			c->named = v;
			c->cap_named = cap;
		}
		c->named[c->nr_named].event = strdup(event);
		if (!c->named[c->nr_named].event)
			return -1;
		c->named[c->nr_named].fn = fn;
		c->named[c->nr_named].data = data;
		c->named[c->nr_named].refs = 1;
		c->nr_named++;
		return 0;
	}
	d = evt_catalogue_find(c->cat, event);
	if (!d)
		return 0;
	i = (unsigned int)(d - c->cat->events);
	if (evt_hooks_empty(&c->by_id[i]))
		c->nr_by_id++;
	if (evt_hooks_add(&c->by_id[i], fn, data)) {
		if (evt_hooks_empty(&c->by_id[i]))
			c->nr_by_id--;
		return -1;
	}
	return 0;
}

void evt_ctx_remove_event(struct evt_ctx *c, const char *event, evt_hook_fn fn, void *data)
{
	const struct evt_event_desc *d;
	unsigned int i;

	if (!c->cat) {
		for (i = 0; i < c->nr_named; i++)
			if (c->named[i].fn == fn && c->named[i].data == data && !strcmp(c->named[i].event, event)) {
				if (--c->named[i].refs == 0) {
					free(c->named[i].event);
					c->named[i] = c->named[--c->nr_named];
				}
				return;
			}
		return;
	}
	d = evt_catalogue_find(c->cat, event);
	if (!d)
		return;
	i = (unsigned int)(d - c->cat->events);
	if (evt_hooks_remove(&c->by_id[i], fn, data) == 0 && evt_hooks_empty(&c->by_id[i]))
		c->nr_by_id--;
}

/* Resolve a request's by-name hooks against @cat (its reading starts). */
int evt_ctx_resolve(struct evt_ctx *c, const struct evt_catalogue *cat)
{
	unsigned int i, r;

	if (evt_ctx_bind(c, cat))
		return -1;
	for (i = 0; i < c->nr_named; i++) {
		const struct evt_event_desc *d = evt_catalogue_find(cat, c->named[i].event);
		unsigned int k;

		if (!d)
			continue;
		k = (unsigned int)(d - cat->events);
		if (evt_hooks_empty(&c->by_id[k]))
			c->nr_by_id++;
		for (r = 0; r < c->named[i].refs; r++)
			if (evt_hooks_add(&c->by_id[k], c->named[i].fn, c->named[i].data))
				return -1;
	}
	return 0;
}

void evt_ctx_free(struct evt_ctx *c)
{
	unsigned int i;

	evt_ctx_bind(c, NULL);
	evt_hooks_free(&c->before_chunk);
	evt_hooks_free(&c->after_chunk);
	evt_hooks_free(&c->event);
	for (i = 0; i < c->nr_named; i++)
		free(c->named[i].event);
	free(c->named);
	c->named = NULL;
	c->nr_named = c->cap_named = 0;
}

/* Call the context's hooks for each event of a batch. */
void evt_ctx_deliver(struct evt_ctx *c, struct evt_engine_event *ev)
{
	if (!evt_hooks_empty(&c->event))
		evt_hooks_call(&c->event, ev);
	if (c->nr_by_id && !evt_hooks_empty(&c->by_id[ev->idx]))
		evt_hooks_call(&c->by_id[ev->idx], ev);
}
