// SPDX-License-Identifier: GPL-2.0
/*
 * The background scheduler (Desnoyers 2004, "Background Requests Servicing
 * Algorithm (v1)", docs/references.md): one pass over a trace at a time computes every
 * computation requested; its state is the trace's struct evt_bg_pass.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_engine_priv.h"

void evt_bg_notify_free(struct bg_notify *n)
{
	while (n) {
		struct bg_notify *next = n->next;

		free(n);
		n = next;
	}
}

void evt_bg_requests_free(struct bg_request *r)
{
	while (r) {
		struct bg_request *next = r->next;

		free(r);
		r = next;
	}
}

void evt_bg_reader_close(struct evt_etrace *t)
{
	if (!t->bg.active)
		return;
	evt_merged_free(&t->bg.mt);
	evt_trace_close(&t->bg.tr);
	free(t->bg.refs);
	t->bg.refs = NULL;
	t->bg.active = 0;
}

int evt_bg_request(struct evt_etrace *t, const char *name, void *owner, evt_hook_fn after_request, void *data)
{
	int i = evt_engine_comp_index(t->eng, name);
	struct bg_request *r, **pp;

	if (i < 0) {
		errno = ENOENT;
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -1;
	r->c = t->eng->comps[i];
	r->owner = owner;
	r->after = after_request;
	r->data = data;
	/* list_out: waits for the next pass, in arrival order. */
	for (pp = &t->bg.list_out; *pp; pp = &(*pp)->next)
		;
	*pp = r;
	return 0;
}

static int notify_add(struct bg_notify **list, void *owner, uint64_t rt, uint64_t pos, evt_hook_fn fn, void *data)
{
	struct bg_notify *n = calloc(1, sizeof(*n)), **pp;

	if (!n)
		return -1;
	*n = (struct bg_notify){ .owner = owner, .rt = rt, .pos = pos, .fn = fn, .data = data };
	for (pp = list; *pp; pp = &(*pp)->next)
		;
	*pp = n;
	return 0;
}

int evt_bg_notify_queue(struct evt_etrace *t, void *owner, uint64_t notify_rt, uint64_t notify_pos,
			evt_hook_fn fn, void *data)
{
	return notify_add(&t->bg.notify_out, owner, notify_rt, notify_pos, fn, data);
}

static void where_init(struct evt_where *w, struct evt_etrace *t)
{
	*w = (struct evt_where){ .eng = t->eng, .trace = t, .rt = t->bg.rt, .pos = t->bg.pos };
}

int evt_bg_notify_current(struct evt_etrace *t, void *owner, uint64_t notify_rt, uint64_t notify_pos,
			  evt_hook_fn fn, void *data)
{
	if (!t->bg.list_in) {
		/* Nothing being serviced: what it waits for is over already. */
		struct evt_where w;

		where_init(&w, t);
		w.end = 1;
		fn(data, &w);
		return 0;
	}
	return notify_add(&t->bg.notify_in, owner, notify_rt, notify_pos, fn, data);
}

void evt_bg_remove_owner(struct evt_etrace *t, void *owner)
{
	struct bg_request **rp, *r;
	struct bg_notify **np, *n;
	int l;

	/* A request of the pass in progress stays (its hooks are the pass's); it only forgets its caller. */
	for (r = t->bg.list_in; r; r = r->next)
		if (r->owner == owner)
			r->after = NULL;
	rp = &t->bg.list_out;
	while ((r = *rp)) {
		if (r->owner == owner) {
			*rp = r->next;
			free(r);
		} else {
			rp = &r->next;
		}
	}
	for (l = 0; l < 2; l++) {
		np = l ? &t->bg.notify_out : &t->bg.notify_in;
		while ((n = *np)) {
			if (n->owner == owner) {
				*np = n->next;
				free(n);
			} else {
				np = &n->next;
			}
		}
	}
}

int evt_comp_want(struct evt_etrace *t, const char *name, void *owner, evt_hook_fn fn, void *data)
{
	const struct evt_computation *c = evt_engine_computation(t->eng, name);
	struct comp_slot *s;

	if (!c) {
		errno = ENOENT;
		return -1;
	}
	s = evt_slot_get(t, c);
	if (!s)
		return -1;
	if (s->ready)
		return 1;
	if (s->in_progress)
		return evt_bg_notify_current(t, owner, EVT_TIME_END, UINT64_MAX, fn, data) ? -1 : 0;
	/* Already asked for by someone (list_out): one more request is counted by the hooks, not run twice. */
	return evt_bg_request(t, name, owner, fn, data) ? -1 : 0;
}

void evt_bg_info(const struct evt_etrace *t, struct evt_bg_info *i)
{
	const struct bg_request *r;
	const struct bg_notify *n;

	*i = (struct evt_bg_info){ .passes = t->bg.passes, .pos = t->bg.pos };
	for (r = t->bg.list_in; r; r = r->next)
		i->list_in++;
	for (r = t->bg.list_out; r; r = r->next)
		i->list_out++;
	for (n = t->bg.notify_in; n; n = n->next)
		i->notify_in++;
	for (n = t->bg.notify_out; n; n = n->next)
		i->notify_out++;
}

int evt_bg_has_work(const struct evt_etrace *t)
{
	return t->bg.list_in || t->bg.list_out;
}

/* 3.2 / 3.3: notifications whose time or position is reached, or all (@all). */
static void bg_notify(struct evt_etrace *t, int all, int end)
{
	struct bg_notify **np = &t->bg.notify_in, *n;
	struct evt_where w;

	where_init(&w, t);
	w.end = end;
	w.error = t->bg.error != NULL;
	w.errmsg = t->bg.error;
	while ((n = *np)) {
		if (all || (n->rt != EVT_TIME_END && t->bg.seen && t->bg.rt >= n->rt) ||
		    (n->pos != UINT64_MAX && t->bg.pos >= n->pos)) {
			*np = n->next;
			n->fn(n->data, &w);
			free(n);
			/* The hook may have changed the list: start over. */
			np = &t->bg.notify_in;
		} else {
			np = &n->next;
		}
	}
}

/* The pass is over: at the end of the trace (3.3), or its requests gone. */
void evt_bg_end_pass(struct evt_etrace *t, int reached_end)
{
	struct bg_request *r;
	struct evt_where w;

	if (reached_end) {
		/* Once per computation, however many requests named it. */
		for (r = t->bg.list_in; r; r = r->next) {
			struct comp_slot *s = evt_slot_of(t, r->c);

			if (!s || !s->in_progress)
				continue;
			where_init(&w, t);
			w.end = 1;
			w.computation = r->c->name;
			if (r->c->finish)
				r->c->finish(s->result, &w);
			s->in_progress = 0;
			s->ready = 1;
			evt_results_save(t, s);
		}
	}
	/* The pass's requests: after_request, then destroyed. */
	while ((r = t->bg.list_in)) {
		t->bg.list_in = r->next;
		if (r->after) {
			where_init(&w, t);
			w.end = reached_end;
			w.computation = r->c->name;
			w.error = t->bg.error != NULL;
			w.errmsg = t->bg.error;
			r->after(r->data, &w);
		}
		free(r);
	}
	bg_notify(t, 1, reached_end);
	/* Reset the context. */
	evt_bg_reader_close(t);
	evt_ctx_free(&t->bg.ctx);
}

/* 1. Before processing (a new pass): 0, or -1 when the trace cannot be read (the pass is then over). */
static int bg_start_pass(struct evt_etrace *t)
{
	struct evt_trace *tr;
	struct bg_request *r;
	struct bg_notify **np;
	const char *why = "out of memory";

	/* Add all requests in list_out to list_in, empty list_out. */
	t->bg.list_in = t->bg.list_out;
	t->bg.list_out = NULL;
	free(t->bg.error);
	t->bg.error = NULL;
	t->bg.pos = 0;
	t->bg.rt = 0;
	t->bg.seen = 0;
	t->bg.passes++;
	t->eng->stats.bg_passes++;
	/* Move all notifications from notify_out to notify_in. */
	for (np = &t->bg.notify_in; *np; np = &(*np)->next)
		;
	*np = t->bg.notify_out;
	t->bg.notify_out = NULL;

	/* Seek the trace to its start: a reader of its own, from the first packet. */
	tr = evt_etrace_reader(t);
	if (!tr) {
		why = t->err;
		goto fail;
	}
	if (evt_trace_clone(&t->bg.tr, tr))
		goto fail;
	if (evt_merged_init(&t->bg.mt, &t->bg.tr, EVT_MERGE_TREE)) {
		evt_trace_close(&t->bg.tr);
		goto fail;
	}
	t->bg.active = 1;
	t->bg.refs = malloc(EVT_BG_BATCH * sizeof(*t->bg.refs));
	if (!t->bg.refs || evt_ctx_bind(&t->bg.ctx, t->bg.tr.md.cat))
		goto fail;
	/* For each request in list_in: set its in_progress flag, call its before-request hook (a fresh result). */
	for (r = t->bg.list_in; r; r = r->next) {
		struct comp_slot *s = evt_slot_get(t, r->c);

		if (!s || s->in_progress)
			continue;
		evt_slot_clear(s);
		s->result = r->c->create(t);
		if (!s->result) {
			evt_engine_warnf(t->eng, "%s: %s: out of memory", t->path, r->c->name);
			continue;	/* not in progress: its hooks are not added */
		}
		s->in_progress = 1;
	}
	return 0;
fail:
	t->bg.error = strdup(why);
	evt_bg_end_pass(t, 0);
	return -1;
}

/* One chunk of the pass (steps 1 to 3): 1 while the trace has background work. */
int evt_bg_step(struct evt_etrace *t)
{
	struct evt_engine *e = t->eng;
	struct bg_request *r;
	uint64_t budget = e->o.bg_chunk;
	int end = 0;

	/* 0.1 Lock traces, 0.2 sync tracefiles: one thread, and the reader is synced at open. */
	if (!t->bg.list_in) {
		if (!t->bg.list_out)
			return 0;
		if (bg_start_pass(t))
			return evt_bg_has_work(t);
	}
	/* For each request in list_in: add its hooks to the context (only one of each: refcounts). */
	for (r = t->bg.list_in; r; r = r->next) {
		struct comp_slot *s = evt_slot_of(t, r->c);

		if (s && s->in_progress && r->c->hook_adder(&t->bg.ctx, s->result))
			evt_engine_warnf(e, "%s: %s: out of memory adding its hooks", t->path, r->c->name);
	}
	/* Call before chunk hooks for list_in. */
	evt_hooks_call(&t->bg.ctx.before_chunk, NULL);

	/* 2. Process a chunk. */
	while (budget) {
		long n = evt_merged_next(&t->bg.mt, t->bg.refs,
					 budget < EVT_BG_BATCH ? (size_t)budget : EVT_BG_BATCH);
		long k;

		if (n <= 0) {
			if (n < 0)
				t->bg.error = strdup(t->bg.mt.errmsg);
			end = 1;
			break;
		}
		for (k = 0; k < n; k++) {
			const struct evt_ref *ref = &t->bg.refs[k];
			const struct evt_stream *s = &t->bg.tr.streams[EVT_REF_STREAM(ref)];
			struct evt_engine_event ev = {
				.trace = t, .tr = &t->bg.tr, .ts = ref->ts, .rt = ref->ts + t->offset_ns,
				.pos = t->bg.pos + (uint64_t)k, .idx = EVT_REF_DESC(ref),
				.stream = EVT_REF_STREAM(ref), .cpu = s->cpu, .channel = s->channel,
				.payload = ref->payload, .len = EVT_REF_LEN(ref),
			};

			ev.desc = &t->bg.tr.md.cat->events[ev.idx];
			evt_ctx_deliver(&t->bg.ctx, &ev);
		}
		t->bg.pos += (uint64_t)n;
		t->bg.rt = t->bg.refs[n - 1].ts + t->offset_ns;
		t->bg.seen = 1;
		budget -= (uint64_t)n;
		e->stats.bg_events += (uint64_t)n;
	}
	e->stats.bg_chunks++;

	/* 3.1 Call after chunk hooks for list_in, remove the hooks from the context. */
	evt_hooks_call(&t->bg.ctx.after_chunk, NULL);
	for (r = t->bg.list_in; r; r = r->next) {
		struct comp_slot *s = evt_slot_of(t, r->c);

		if (s && s->in_progress)
			r->c->hook_remover(&t->bg.ctx, s->result);
	}
	/* 3.2 Notifications whose time or position is reached. */
	bg_notify(t, 0, 0);
	/* 3.3 End of trace reached. */
	if (end) {
		evt_bg_end_pass(t, 1);
		/* list_out empty: the scheduler stops; else it stays registered. */
		return t->bg.list_out != NULL;
	}
	/* 3.4 */
	return 1;
}
