// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's registry: the engine, its computations, its traces (one
 * global object per path) and the builtin computations. The schedulers of
 * Desnoyers, "Linux Trace Toolkit Requests Servicing Schedulers", 2004
 * (docs/references.md; see evt_engine.h) are beside it: evt_bg.c, evt_fg.c,
 * driven by evt_engine_drive.c; a trace's accessors in evt_etrace.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_comp_index.h"
#include "engine/evt_comp_io.h"
#include "engine/evt_comp_power.h"
#include "engine/evt_comps.h"
#include "engine/evt_engine.h"
#include "engine/evt_engine_priv.h"
#include "util/evt_io.h"
#include "ctf/evt_merged.h"

/* ---- The engine ---- */

struct evt_engine *evt_engine_new(const struct evt_engine_opts *o)
{
	struct evt_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	if (o)
		e->o = *o;
	if (!e->o.fg_chunk)
		e->o.fg_chunk = 16384;
	if (!e->o.bg_chunk)
		e->o.bg_chunk = 65536;
	return e;
}

void evt_engine_free(struct evt_engine *e)
{
	if (!e)
		return;
	free(e->comps);
	free(e);
}

void evt_engine_get_stats(const struct evt_engine *e, struct evt_engine_stats *s)
{
	*s = e->stats;
}

int evt_engine_register(struct evt_engine *e, const struct evt_computation *c)
{
	const struct evt_computation **v;
	struct evt_etrace *t;

	if (evt_engine_comp_index(e, c->name) >= 0) {
		errno = EEXIST;
		return -1;
	}
	v = realloc(e->comps, (e->nr_comps + 1) * sizeof(*v));
	if (!v)
		return -1;
	e->comps = v;
	e->comps[e->nr_comps++] = c;
	/* Traces already open may have its result saved. */
	for (t = e->traces; t; t = t->next)
		evt_slot_get(t, c);
	return 0;
}

int evt_engine_unregister(struct evt_engine *e, const char *name)
{
	int i = evt_engine_comp_index(e, name);
	const struct evt_computation *c;
	struct evt_etrace *t;

	if (i < 0) {
		errno = ENOENT;
		return -1;
	}
	c = e->comps[i];
	for (t = e->traces; t; t = t->next) {
		struct bg_request **pp, *r;
		struct comp_slot *s;
		int pass_had = 0;

		/* Seed 001: unregistering removes every request made for its hooks. */
		for (int l = 0; l < 2; l++) {
			pp = l ? &t->bg.list_out : &t->bg.list_in;
			while ((r = *pp)) {
				if (r->c == c) {
					pass_had |= !l;
					*pp = r->next;
					free(r);
				} else {
					pp = &r->next;
				}
			}
		}
		s = evt_slot_of(t, c);
		if (s) {
			evt_slot_clear(s);
			s->c = NULL;	/* the slot is free for nobody: c may go */
		}
		/* The pass lost its last request: it is over (nothing is ready). */
		if (pass_had && !t->bg.list_in && t->bg.active)
			evt_bg_end_pass(t, 0);
	}
	memmove(&e->comps[i], &e->comps[i + 1], (e->nr_comps - (unsigned int)i - 1) * sizeof(*e->comps));
	e->nr_comps--;
	return 0;
}

/* ---- Traces: global objects ---- */

struct evt_etrace *evt_etrace_get(struct evt_engine *e, const char *path, char *err, size_t errlen)
{
	return evt_etrace_get_opts(e, path, NULL, err, errlen);
}

struct evt_etrace *evt_etrace_get_opts(struct evt_engine *e, const char *path, const struct evt_trace_opts *o,
				      char *err, size_t errlen)
{
	struct evt_etrace *t;
	char *real = realpath(path, NULL);
	unsigned int i;

	if (!real) {
		evt_errf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* Seed 001: one instance of a trace for the whole program. */
	for (t = e->traces; t; t = t->next)
		if (!strcmp(t->path, real)) {
			free(real);
			t->refs++;
			return t;
		}
	t = calloc(1, sizeof(*t));
	if (!t) {
		free(real);
		evt_errf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	t->eng = e;
	t->path = real;
	if (o)
		t->open_opts = *o;
	t->refs = 1;
	if (evt_results_key(t, err, errlen)) {
		struct evt_trace probe;

		/* Say it as the reader would (it names the trace's problem best). */
		if (evt_trace_open(&probe, path, o))
			evt_errf(err, errlen, "%s", probe.err);
		else
			evt_trace_close(&probe);
		free(t->path);
		free(t);
		return NULL;
	}
	t->next = e->traces;
	e->traces = t;
	for (i = 0; i < e->nr_comps; i++)
		evt_slot_get(t, e->comps[i]);
	return t;
}

void evt_etrace_put(struct evt_etrace *t)
{
	struct evt_etrace **pp;
	unsigned int i;

	if (!t || --t->refs)
		return;
	for (pp = &t->eng->traces; *pp != t; pp = &(*pp)->next)
		;
	*pp = t->next;
	evt_bg_reader_close(t);
	evt_ctx_free(&t->bg.ctx);
	evt_bg_requests_free(t->bg.list_in);
	evt_bg_requests_free(t->bg.list_out);
	evt_bg_notify_free(t->bg.notify_in);
	evt_bg_notify_free(t->bg.notify_out);
	for (i = 0; i < t->nr_slots; i++)
		if (t->slots[i].c)
			evt_slot_clear(&t->slots[i]);
	free(t->slots);
	if (t->opened)
		evt_trace_close(&t->tr);
	free(t->bg.error);
	free(t->key_files);
	free(t->path);
	free(t);
}

int evt_engine_register_builtin(struct evt_engine *e)
{
	return evt_engine_register(e, &evt_comp_state) || evt_engine_register(e, &evt_comp_stats) ||
	       evt_engine_register(e, &evt_comp_index) || evt_engine_register(e, &evt_comp_io) ||
	       evt_engine_register(e, &evt_comp_power) ? -1 : 0;
}
