// SPDX-License-Identifier: GPL-2.0
/* A trace of the engine: its reader, span and attributes, its computations' results. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_comps.h"
#include "engine/evt_engine_priv.h"

const char *evt_etrace_path(const struct evt_etrace *t)
{
	return t->path;
}

int evt_etrace_catch_cut(struct evt_etrace *t, const char *prog)
{
	/* The reader's struct, opened now or later: its mappings are what the handler looks at. */
	return evt_trace_catch_cut(&t->tr, prog);
}

struct evt_trace *evt_etrace_reader(struct evt_etrace *t)
{
	if (t->opened)
		return &t->tr;
	if (t->open_failed)
		return NULL;
	if (evt_trace_open(&t->tr, t->path, &t->open_opts)) {
		snprintf(t->err, sizeof(t->err), "%s", t->tr.err);
		t->open_failed = 1;
		return NULL;
	}
	t->opened = 1;
	t->eng->stats.traces_opened++;
	return &t->tr;
}

const char *evt_etrace_error(const struct evt_etrace *t)
{
	return t->err;
}

uint64_t evt_etrace_offset_ns(const struct evt_etrace *t)
{
	return t->offset_ns;
}

int evt_etrace_span(struct evt_etrace *t, uint64_t *begin_rt, uint64_t *end_rt)
{
	struct evt_trace *tr = evt_etrace_reader(t);
	uint64_t b = UINT64_MAX, en = 0;
	unsigned int i;

	if (!tr)
		return -1;
	for (i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *s = &tr->streams[i];

		if (!s->npk)
			continue;
		if (s->pk[0].begin < b)
			b = s->pk[0].begin;
		if (s->pk[s->npk - 1].end > en)
			en = s->pk[s->npk - 1].end;
	}
	if (b == UINT64_MAX)
		b = en = 0;
	*begin_rt = b + t->offset_ns;
	*end_rt = en + t->offset_ns;
	return 0;
}

int evt_etrace_attr(const struct evt_etrace *t, const char *path)
{
	const char *name, *leaf;
	char buf[256];
	size_t n;

	if (strncmp(path, "computation/", 12))
		return -1;
	name = path + 12;
	leaf = strrchr(name, '/');
	if (!leaf || leaf == name || (size_t)(leaf - name) >= sizeof(buf))
		return -1;
	n = (size_t)(leaf - name);
	memcpy(buf, name, n);
	buf[n] = 0;
	if (!strcmp(leaf, "/in_progress"))
		return evt_comp_in_progress(t, buf);
	if (!strcmp(leaf, "/ready"))
		return evt_comp_ready(t, buf);
	return -1;
}

int evt_comp_in_progress(const struct evt_etrace *t, const char *name)
{
	const struct comp_slot *s = evt_slot_by_name(t, name);

	return s ? s->in_progress : 0;
}

int evt_comp_ready(const struct evt_etrace *t, const char *name)
{
	const struct comp_slot *s = evt_slot_by_name(t, name);

	return s ? s->ready : 0;
}

const char *evt_comp_saved_from(const struct evt_etrace *t, const char *name)
{
	const struct comp_slot *s = evt_slot_by_name(t, name);

	return s && s->ready && s->loaded ? s->loaded_from : NULL;
}

void *evt_comp_result(const struct evt_etrace *t, const char *name)
{
	const struct comp_slot *s = evt_slot_by_name(t, name);

	return s && s->ready ? s->result : NULL;
}

const char *evt_comp_error(const struct evt_etrace *t)
{
	return t->bg.error;
}

int32_t evt_engine_running_tid(struct evt_etrace *t, unsigned int cpu, uint64_t ts)
{
	unsigned int i;

	for (i = 0; i < t->nr_slots; i++) {
		const struct comp_slot *s = &t->slots[i];

		if (s->c && s->ready && s->c->running_tid)
			return s->c->running_tid(s->result, cpu, ts);
	}
	return -2;
}
