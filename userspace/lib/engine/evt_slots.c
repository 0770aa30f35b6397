// SPDX-License-Identifier: GPL-2.0
/* The registry's lookups: a computation by name, its slot (attributes and result) on a trace. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_engine_priv.h"

int evt_engine_comp_index(const struct evt_engine *e, const char *name)
{
	unsigned int i;

	for (i = 0; i < e->nr_comps; i++)
		if (e->comps[i] && !strcmp(e->comps[i]->name, name))
			return (int)i;
	return -1;
}

const struct evt_computation *evt_engine_computation(const struct evt_engine *e, const char *name)
{
	int i = evt_engine_comp_index(e, name);

	return i < 0 ? NULL : e->comps[i];
}

struct comp_slot *evt_slot_of(struct evt_etrace *t, const struct evt_computation *c)
{
	unsigned int i;

	for (i = 0; i < t->nr_slots; i++)
		if (t->slots[i].c == c)
			return &t->slots[i];
	return NULL;
}

const struct comp_slot *evt_slot_by_name(const struct evt_etrace *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr_slots; i++)
		if (t->slots[i].c && !strcmp(t->slots[i].c->name, name))
			return &t->slots[i];
	return NULL;
}

/* @t's slot for @c, made (and its saved result looked for) on first use. */
struct comp_slot *evt_slot_get(struct evt_etrace *t, const struct evt_computation *c)
{
	struct comp_slot *s = evt_slot_of(t, c), *v;

	if (s)
		return s;
	v = realloc(t->slots, (t->nr_slots + 1) * sizeof(*v));
	if (!v)
		return NULL;
	t->slots = v;
	s = &t->slots[t->nr_slots++];
	*s = (struct comp_slot){ .c = c };
	evt_results_try_load(t, s);
	return s;
}

void evt_slot_clear(struct comp_slot *s)
{
	if (s->result)
		s->c->destroy(s->result);
	s->result = NULL;
	s->ready = s->in_progress = s->loaded = 0;
	free(s->loaded_from);
	s->loaded_from = NULL;
}
