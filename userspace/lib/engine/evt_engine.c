// SPDX-License-Identifier: GPL-2.0
/*
 * The request-servicing schedulers of Desnoyers, "Linux Trace Toolkit
 * Requests Servicing Schedulers", 2004 (docs/references.md): see
 * evt_engine.h. The
 * document's names (list_in, list_out, notify_in, notify_out, the steps of
 * the v1 algorithm) are kept in the code where they help.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evt_comp_index.h"
#include "evt_comp_io.h"
#include "evt_comp_power.h"
#include "evt_comps.h"
#include "evt_engine.h"
#include "evt_engine_priv.h"
#include "evt_io.h"
#include "evt_merged.h"

/* ---- Small things ---- */

int evt_buf_put(struct evt_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return -1;
	if (b->cap - b->n < n) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *q;

		while (cap - b->n < n) {
			if (cap > SIZE_MAX / 2) {
				b->oom = 1;
				return -1;
			}
			cap *= 2;
		}
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return -1;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

void evt_buf_free(struct evt_buf *b)
{
	free(b->p);
	*b = (struct evt_buf){ 0 };
}

int evt_rbuf_get(struct evt_rbuf *r, void *out, size_t n)
{
	if (r->n - r->off < n)
		return -1;
	memcpy(out, r->p + r->off, n);
	r->off += n;
	return 0;
}

int evt_field_offset(const struct evt_event_desc *d, const char *name, enum evt_field_type *type)
{
	unsigned int i, off = 0;

	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		unsigned int a = evt_field_align(f->type);

		off = (off + a - 1) & ~(a - 1);
		if (!strcmp(f->name, name)) {
			if (type)
				*type = f->type;
			return (int)off;
		}
		if (evt_field_is_var(f->type))
			return -1;	/* what follows moves with it */
		off += evt_field_size(f->type);
	}
	return -1;
}

int64_t evt_event_int(const struct evt_engine_event *ev, int off, enum evt_field_type type)
{
	unsigned int sz = evt_field_size(type);

	if (off < 0 || !sz || sz > 8 || (uint64_t)off + sz > ev->len)
		return 0;
	switch (type) {
	case EVT_F_U8: return ev->payload[off];
	case EVT_F_U16: return evt_ld16(ev->payload + off);
	case EVT_F_U32: case EVT_F_X32: return evt_ld32(ev->payload + off);
	case EVT_F_S32: return (int32_t)evt_ld32(ev->payload + off);
	default: return (int64_t)evt_ld64(ev->payload + off);
	}
}

static void warn(struct evt_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct evt_engine *e, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e->o.warn)
		e->o.warn(e->o.warn_data, msg);
	else
		fprintf(stderr, "evtrace: %s\n", msg);
}

void evt_engine_warn(struct evt_engine *e, const char *msg)
{
	warn(e, "%s", msg);
}

/* ---- Contexts ---- */

struct evt_named_hook {
	char *event;
	evt_hook_fn fn;
	void *data;
	unsigned int refs;
};

static int ctx_bind(struct evt_ctx *c, const struct evt_catalogue *cat)
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
static int ctx_resolve(struct evt_ctx *c, const struct evt_catalogue *cat)
{
	unsigned int i, r;

	if (ctx_bind(c, cat))
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

static void ctx_free(struct evt_ctx *c)
{
	unsigned int i;

	ctx_bind(c, NULL);
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
static void ctx_deliver(struct evt_ctx *c, struct evt_engine_event *ev)
{
	if (!evt_hooks_empty(&c->event))
		evt_hooks_call(&c->event, ev);
	if (c->nr_by_id && !evt_hooks_empty(&c->by_id[ev->idx]))
		evt_hooks_call(&c->by_id[ev->idx], ev);
}

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

static int comp_index(const struct evt_engine *e, const char *name)
{
	unsigned int i;

	for (i = 0; i < e->nr_comps; i++)
		if (e->comps[i] && !strcmp(e->comps[i]->name, name))
			return (int)i;
	return -1;
}

const struct evt_computation *evt_engine_computation(const struct evt_engine *e, const char *name)
{
	int i = comp_index(e, name);

	return i < 0 ? NULL : e->comps[i];
}

static struct comp_slot *slot_of(struct evt_etrace *t, const struct evt_computation *c)
{
	unsigned int i;

	for (i = 0; i < t->nr_slots; i++)
		if (t->slots[i].c == c)
			return &t->slots[i];
	return NULL;
}

static const struct comp_slot *slot_by_name(const struct evt_etrace *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr_slots; i++)
		if (t->slots[i].c && !strcmp(t->slots[i].c->name, name))
			return &t->slots[i];
	return NULL;
}

/* @t's slot for @c, made (and its saved result looked for) on first use. */
static struct comp_slot *slot_get(struct evt_etrace *t, const struct evt_computation *c)
{
	struct comp_slot *s = slot_of(t, c), *v;

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

static void slot_clear(struct comp_slot *s)
{
	if (s->result)
		s->c->destroy(s->result);
	s->result = NULL;
	s->ready = s->in_progress = s->loaded = 0;
	free(s->loaded_from);
	s->loaded_from = NULL;
}

int evt_engine_register(struct evt_engine *e, const struct evt_computation *c)
{
	const struct evt_computation **v;
	struct evt_etrace *t;

	if (comp_index(e, c->name) >= 0) {
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
		slot_get(t, c);
	return 0;
}

static void bg_end_pass(struct evt_etrace *t, int reached_end);

int evt_engine_unregister(struct evt_engine *e, const char *name)
{
	int i = comp_index(e, name);
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
			pp = l ? &t->list_out : &t->list_in;
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
		s = slot_of(t, c);
		if (s) {
			slot_clear(s);
			s->c = NULL;	/* the slot is free for nobody: c may go */
		}
		/* The pass lost its last request: it is over (nothing is ready). */
		if (pass_had && !t->list_in && t->bg_active)
			bg_end_pass(t, 0);
	}
	memmove(&e->comps[i], &e->comps[i + 1], (e->nr_comps - (unsigned int)i - 1) * sizeof(*e->comps));
	e->nr_comps--;
	return 0;
}

/* ---- Traces: global objects ---- */

struct evt_etrace *evt_trace_get(struct evt_engine *e, const char *path, char *err, size_t errlen)
{
	return evt_trace_get_opts(e, path, NULL, err, errlen);
}

struct evt_etrace *evt_trace_get_opts(struct evt_engine *e, const char *path, const struct evt_trace_opts *o,
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
		slot_get(t, e->comps[i]);
	return t;
}

static void notify_free(struct bg_notify *n)
{
	while (n) {
		struct bg_notify *next = n->next;

		free(n);
		n = next;
	}
}

static void requests_free(struct bg_request *r)
{
	while (r) {
		struct bg_request *next = r->next;

		free(r);
		r = next;
	}
}

static void bg_reader_close(struct evt_etrace *t)
{
	if (!t->bg_active)
		return;
	evt_merged_free(&t->bg_mt);
	evt_trace_close(&t->bg_tr);
	free(t->bg_refs);
	t->bg_refs = NULL;
	t->bg_active = 0;
}

void evt_trace_put(struct evt_etrace *t)
{
	struct evt_etrace **pp;
	unsigned int i;

	if (!t || --t->refs)
		return;
	for (pp = &t->eng->traces; *pp != t; pp = &(*pp)->next)
		;
	*pp = t->next;
	bg_reader_close(t);
	ctx_free(&t->bg_ctx);
	requests_free(t->list_in);
	requests_free(t->list_out);
	notify_free(t->notify_in);
	notify_free(t->notify_out);
	for (i = 0; i < t->nr_slots; i++)
		if (t->slots[i].c)
			slot_clear(&t->slots[i]);
	free(t->slots);
	if (t->opened)
		evt_trace_close(&t->tr);
	free(t->bg_error);
	free(t->key_files);
	free(t->path);
	free(t);
}

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

int evt_attr(const struct evt_etrace *t, const char *path)
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
	const struct comp_slot *s = slot_by_name(t, name);

	return s ? s->in_progress : 0;
}

int evt_comp_ready(const struct evt_etrace *t, const char *name)
{
	const struct comp_slot *s = slot_by_name(t, name);

	return s ? s->ready : 0;
}

const char *evt_comp_saved_from(const struct evt_etrace *t, const char *name)
{
	const struct comp_slot *s = slot_by_name(t, name);

	return s && s->ready && s->loaded ? s->loaded_from : NULL;
}

void *evt_comp_result(const struct evt_etrace *t, const char *name)
{
	const struct comp_slot *s = slot_by_name(t, name);

	return s && s->ready ? s->result : NULL;
}

const char *evt_comp_error(const struct evt_etrace *t)
{
	return t->bg_error;
}

/* ---- Background scheduler (Desnoyers 2004, "Background Requests Servicing Algorithm (v1)") ---- */

int evt_bg_request(struct evt_etrace *t, const char *name, void *owner, evt_hook_fn after_request, void *data)
{
	int i = comp_index(t->eng, name);
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
	for (pp = &t->list_out; *pp; pp = &(*pp)->next)
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
	return notify_add(&t->notify_out, owner, notify_rt, notify_pos, fn, data);
}

static void where_init(struct evt_where *w, struct evt_etrace *t)
{
	*w = (struct evt_where){ .eng = t->eng, .trace = t, .rt = t->bg_rt, .pos = t->bg_pos };
}

int evt_bg_notify_current(struct evt_etrace *t, void *owner, uint64_t notify_rt, uint64_t notify_pos,
			  evt_hook_fn fn, void *data)
{
	if (!t->list_in) {
		/* Nothing being serviced: what it waits for is over already. */
		struct evt_where w;

		where_init(&w, t);
		w.end = 1;
		fn(data, &w);
		return 0;
	}
	return notify_add(&t->notify_in, owner, notify_rt, notify_pos, fn, data);
}

void evt_bg_remove_owner(struct evt_etrace *t, void *owner)
{
	struct bg_request **rp, *r;
	struct bg_notify **np, *n;
	int l;

	/* A request of the pass in progress stays (its hooks are the pass's); it only forgets its caller. */
	for (r = t->list_in; r; r = r->next)
		if (r->owner == owner)
			r->after = NULL;
	rp = &t->list_out;
	while ((r = *rp)) {
		if (r->owner == owner) {
			*rp = r->next;
			free(r);
		} else {
			rp = &r->next;
		}
	}
	for (l = 0; l < 2; l++) {
		np = l ? &t->notify_out : &t->notify_in;
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

int evt_want(struct evt_etrace *t, const char *name, void *owner, evt_hook_fn fn, void *data)
{
	const struct evt_computation *c = evt_engine_computation(t->eng, name);
	struct comp_slot *s;

	if (!c) {
		errno = ENOENT;
		return -1;
	}
	s = slot_get(t, c);
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

	*i = (struct evt_bg_info){ .passes = t->bg_passes, .pos = t->bg_pos };
	for (r = t->list_in; r; r = r->next)
		i->list_in++;
	for (r = t->list_out; r; r = r->next)
		i->list_out++;
	for (n = t->notify_in; n; n = n->next)
		i->notify_in++;
	for (n = t->notify_out; n; n = n->next)
		i->notify_out++;
}

static int bg_has_work(const struct evt_etrace *t)
{
	return t->list_in || t->list_out;
}

/* 3.2 / 3.3: notifications whose time or position is reached, or all (@all). */
static void bg_notify(struct evt_etrace *t, int all, int end)
{
	struct bg_notify **np = &t->notify_in, *n;
	struct evt_where w;

	where_init(&w, t);
	w.end = end;
	w.error = t->bg_error != NULL;
	w.errmsg = t->bg_error;
	while ((n = *np)) {
		if (all || (n->rt != EVT_TIME_END && t->bg_seen && t->bg_rt >= n->rt) ||
		    (n->pos != UINT64_MAX && t->bg_pos >= n->pos)) {
			*np = n->next;
			n->fn(n->data, &w);
			free(n);
			/* The hook may have changed the list: start over. */
			np = &t->notify_in;
		} else {
			np = &n->next;
		}
	}
}

/* The pass is over: at the end of the trace (3.3), or its requests gone. */
static void bg_end_pass(struct evt_etrace *t, int reached_end)
{
	struct bg_request *r;
	struct evt_where w;

	if (reached_end) {
		/* Once per computation, however many requests named it. */
		for (r = t->list_in; r; r = r->next) {
			struct comp_slot *s = slot_of(t, r->c);

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
	while ((r = t->list_in)) {
		t->list_in = r->next;
		if (r->after) {
			where_init(&w, t);
			w.end = reached_end;
			w.computation = r->c->name;
			w.error = t->bg_error != NULL;
			w.errmsg = t->bg_error;
			r->after(r->data, &w);
		}
		free(r);
	}
	bg_notify(t, 1, reached_end);
	/* Reset the context. */
	bg_reader_close(t);
	ctx_free(&t->bg_ctx);
}

/* 1. Before processing (a new pass): 0, or -1 when the trace cannot be read (the pass is then over). */
static int bg_start_pass(struct evt_etrace *t)
{
	struct evt_trace *tr;
	struct bg_request *r;
	struct bg_notify **np;
	const char *why = "out of memory";

	/* Add all requests in list_out to list_in, empty list_out. */
	t->list_in = t->list_out;
	t->list_out = NULL;
	free(t->bg_error);
	t->bg_error = NULL;
	t->bg_pos = 0;
	t->bg_rt = 0;
	t->bg_seen = 0;
	t->bg_passes++;
	t->eng->stats.bg_passes++;
	/* Move all notifications from notify_out to notify_in. */
	for (np = &t->notify_in; *np; np = &(*np)->next)
		;
	*np = t->notify_out;
	t->notify_out = NULL;

	/* Seek the trace to its start: a reader of its own, from the first packet. */
	tr = evt_etrace_reader(t);
	if (!tr) {
		why = t->err;
		goto fail;
	}
	if (evt_trace_clone(&t->bg_tr, tr))
		goto fail;
	if (evt_merged_init(&t->bg_mt, &t->bg_tr, EVT_MERGE_TREE)) {
		evt_trace_close(&t->bg_tr);
		goto fail;
	}
	t->bg_active = 1;
	t->bg_refs = malloc(EVT_BG_BATCH * sizeof(*t->bg_refs));
	if (!t->bg_refs || ctx_bind(&t->bg_ctx, t->bg_tr.md.cat))
		goto fail;
	/* For each request in list_in: set its in_progress flag, call its before-request hook (a fresh result). */
	for (r = t->list_in; r; r = r->next) {
		struct comp_slot *s = slot_get(t, r->c);

		if (!s || s->in_progress)
			continue;
		slot_clear(s);
		s->result = r->c->create(t);
		if (!s->result) {
			warn(t->eng, "%s: %s: out of memory", t->path, r->c->name);
			continue;	/* not in progress: its hooks are not added */
		}
		s->in_progress = 1;
	}
	return 0;
fail:
	t->bg_error = strdup(why);
	bg_end_pass(t, 0);
	return -1;
}

/* One chunk of the pass (steps 1 to 3): 1 while the trace has background work. */
static int bg_step(struct evt_etrace *t)
{
	struct evt_engine *e = t->eng;
	struct bg_request *r;
	uint64_t budget = e->o.bg_chunk;
	int end = 0;

	/* 0.1 Lock traces, 0.2 sync tracefiles: one thread, and the reader is synced at open. */
	if (!t->list_in) {
		if (!t->list_out)
			return 0;
		if (bg_start_pass(t))
			return bg_has_work(t);
	}
	/* For each request in list_in: add its hooks to the context (only one of each: refcounts). */
	for (r = t->list_in; r; r = r->next) {
		struct comp_slot *s = slot_of(t, r->c);

		if (s && s->in_progress && r->c->hook_adder(&t->bg_ctx, s->result))
			warn(e, "%s: %s: out of memory adding its hooks", t->path, r->c->name);
	}
	/* Call before chunk hooks for list_in. */
	evt_hooks_call(&t->bg_ctx.before_chunk, NULL);

	/* 2. Process a chunk. */
	while (budget) {
		long n = evt_merged_next(&t->bg_mt, t->bg_refs,
					 budget < EVT_BG_BATCH ? (size_t)budget : EVT_BG_BATCH);
		long k;

		if (n <= 0) {
			if (n < 0)
				t->bg_error = strdup(t->bg_mt.errmsg);
			end = 1;
			break;
		}
		for (k = 0; k < n; k++) {
			const struct evt_ref *ref = &t->bg_refs[k];
			const struct evt_stream *s = &t->bg_tr.streams[EVT_REF_STREAM(ref)];
			struct evt_engine_event ev = {
				.trace = t, .tr = &t->bg_tr, .ts = ref->ts, .rt = ref->ts + t->offset_ns,
				.pos = t->bg_pos + (uint64_t)k, .idx = EVT_REF_DESC(ref),
				.stream = EVT_REF_STREAM(ref), .cpu = s->cpu, .channel = s->channel,
				.payload = ref->payload, .len = EVT_REF_LEN(ref),
			};

			ev.desc = &t->bg_tr.md.cat->events[ev.idx];
			ctx_deliver(&t->bg_ctx, &ev);
		}
		t->bg_pos += (uint64_t)n;
		t->bg_rt = t->bg_refs[n - 1].ts + t->offset_ns;
		t->bg_seen = 1;
		budget -= (uint64_t)n;
		e->stats.bg_events += (uint64_t)n;
	}
	e->stats.bg_chunks++;

	/* 3.1 Call after chunk hooks for list_in, remove the hooks from the context. */
	evt_hooks_call(&t->bg_ctx.after_chunk, NULL);
	for (r = t->list_in; r; r = r->next) {
		struct comp_slot *s = slot_of(t, r->c);

		if (s && s->in_progress)
			r->c->hook_remover(&t->bg_ctx, s->result);
	}
	/* 3.2 Notifications whose time or position is reached. */
	bg_notify(t, 0, 0);
	/* 3.3 End of trace reached. */
	if (end) {
		bg_end_pass(t, 1);
		/* list_out empty: the scheduler stops; else it stays registered. */
		return t->list_out != NULL;
	}
	/* 3.4 */
	return 1;
}

/* ---- Tracesets and the foreground scheduler ---- */

struct evt_traceset *evt_traceset_new(struct evt_engine *e)
{
	struct evt_traceset *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->eng = e;
	ts->next = e->tracesets;
	e->tracesets = ts;
	return ts;
}

int evt_traceset_add(struct evt_traceset *ts, struct evt_etrace *t)
{
	struct evt_etrace **v = realloc(ts->traces, (ts->nr + 1) * sizeof(*v));

	if (!v)
		return -1;
	ts->traces = v;
	ts->traces[ts->nr++] = t;
	t->refs++;
	return 0;
}

static void req_stop(struct evt_request *r);

void evt_traceset_free(struct evt_traceset *ts)
{
	struct evt_traceset **pp;
	unsigned int i;

	if (!ts)
		return;
	while (ts->pending)
		evt_request_remove(ts->pending);
	for (pp = &ts->eng->tracesets; *pp != ts; pp = &(*pp)->next)
		;
	*pp = ts->next;
	for (i = 0; i < ts->nr; i++)
		evt_trace_put(ts->traces[i]);
	free(ts->traces);
	free(ts);
}

void evt_request_init(struct evt_request *r, void *owner)
{
	*r = (struct evt_request){ .owner = owner, .from_rt = 0, .to_rt = EVT_TIME_END, .tid = -1 };
}

void evt_request_release(struct evt_request *r)
{
	if (r->ts)
		evt_request_remove(r);
	evt_hooks_free(&r->before_request);
	evt_hooks_free(&r->after_request);
	ctx_free(&r->ctx);
}

int evt_request_submit(struct evt_traceset *ts, struct evt_request *r)
{
	struct evt_request **pp;

	if (r->ts) {
		snprintf(r->errmsg, sizeof(r->errmsg), "the request is already submitted");
		return -1;
	}
	if (r->from_rt > r->to_rt) {
		snprintf(r->errmsg, sizeof(r->errmsg), "the range ends before it begins");
		return -1;
	}
	r->state = EVT_REQ_PENDING;
	r->delivered = 0;
	r->stop = 0;
	r->incomplete = r->error = 0;
	r->errmsg[0] = 0;
	r->ts = ts;
	r->priv = NULL;
	for (pp = &ts->pending; *pp; pp = &(*pp)->next_pending)
		;
	r->next_pending = NULL;
	*pp = r;
	return 0;
}

void evt_request_remove(struct evt_request *r)
{
	struct evt_request **pp;

	if (!r->ts)
		return;
	for (pp = &r->ts->pending; *pp; pp = &(*pp)->next_pending)
		if (*pp == r) {
			*pp = r->next_pending;
			break;
		}
	req_stop(r);
	r->ts = NULL;
	if (r->state != EVT_REQ_DONE)
		r->state = EVT_REQ_NEW;
}

/* A request's reading of one trace. */
struct fg_src {
	struct evt_etrace *t;
	struct evt_trace tr;
	struct evt_merged mt;
	struct evt_ref refs[EVT_FG_BATCH];
	long n, i;
	int done, inited;
	uint8_t *mask;			/* events the reader decodes (the filter, plus sched_switch) */
	uint8_t *want;			/* events delivered */
	int sw_idx;			/* sched_switch's index, -1 */
	int sw_next_off;
	enum evt_field_type sw_next_type;
	int32_t *cpu_tid;		/* the thread filter: each CPU's thread, -2 unknown */
	unsigned int nr_cpus;
};

struct evt_req_priv {
	unsigned int nsrc;
	struct fg_src *src;
	int started;
};

static void req_stop(struct evt_request *r)
{
	struct evt_req_priv *p = r->priv;
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->nsrc; i++) {
		struct fg_src *s = &p->src[i];

		if (s->inited) {
			evt_merged_free(&s->mt);
			evt_trace_close(&s->tr);
		}
		free(s->mask);
		free(s->want);
		free(s->cpu_tid);
	}
	free(p->src);
	free(p);
	r->priv = NULL;
}

static int fg_src_start(struct evt_request *r, struct fg_src *s, struct evt_etrace *t)
{
	struct evt_trace *tr = evt_etrace_reader(t);
	const struct evt_catalogue *cat;
	uint64_t off = t->offset_ns, from, to;
	unsigned int i;

	s->t = t;
	s->sw_idx = -1;
	if (!tr) {
		snprintf(r->errmsg, sizeof(r->errmsg), "%s", t->err);
		return -1;
	}
	if (evt_trace_clone(&s->tr, tr))
		goto oom;
	if (evt_merged_init(&s->mt, &s->tr, EVT_MERGE_TREE)) {
		evt_trace_close(&s->tr);
		goto oom;
	}
	s->inited = 1;
	cat = s->tr.md.cat;
	from = r->from_rt > off ? r->from_rt - off : 0;
	to = r->to_rt == EVT_TIME_END ? UINT64_MAX : (r->to_rt >= off ? r->to_rt - off : 0);
	if (r->to_rt < off) {
		s->done = 1;	/* the whole range is before this trace */
		return 0;
	}
	/* Seeks every stream through the packet index to the first packet that can hold @from. */
	evt_merged_set_range(&s->mt, from, to);
	if (r->events || r->tid >= 0) {
		s->mask = calloc(cat->nr_events ? cat->nr_events : 1, 1);
		s->want = calloc(cat->nr_events ? cat->nr_events : 1, 1);
		if (!s->mask || !s->want)
			goto oom;
		for (i = 0; i < cat->nr_events; i++)
			s->want[i] = !r->events;
		for (i = 0; r->events && r->events[i]; i++) {
			const struct evt_event_desc *d = evt_catalogue_find(cat, r->events[i]);

			if (d)
				s->want[d - cat->events] = 1;
		}
		memcpy(s->mask, s->want, cat->nr_events);
	}
	if (r->tid >= 0) {
		const struct evt_event_desc *sw = evt_catalogue_find(cat, "sched_switch");

		s->nr_cpus = 0;
		for (i = 0; i < s->tr.nr_streams; i++)
			if (s->tr.streams[i].cpu + 1 > s->nr_cpus)
				s->nr_cpus = s->tr.streams[i].cpu + 1;
		s->cpu_tid = malloc((s->nr_cpus ? s->nr_cpus : 1) * sizeof(*s->cpu_tid));
		if (!s->cpu_tid)
			goto oom;
		for (i = 0; i < s->nr_cpus; i++)
			s->cpu_tid[i] = evt_engine_running_tid(t, i, from);
		if (sw) {
			s->sw_idx = (int)(sw - cat->events);
			s->sw_next_off = evt_field_offset(sw, "next_tid", &s->sw_next_type);
			s->mask[s->sw_idx] = 1;	/* decoded to follow the threads, delivered only if wanted */
		}
	}
	if (s->mask)
		evt_merged_set_events(&s->mt, s->mask);
	if (ctx_resolve(&r->ctx, cat))
		goto oom;
	return 0;
oom:
	snprintf(r->errmsg, sizeof(r->errmsg), "out of memory");
	return -1;
}

static int fg_start(struct evt_request *r)
{
	struct evt_traceset *ts = r->ts;
	struct evt_req_priv *p = calloc(1, sizeof(*p));
	unsigned int i;

	if (!p)
		return -1;
	r->priv = p;
	p->src = calloc(ts->nr ? ts->nr : 1, sizeof(*p->src));
	if (!p->src)
		return -1;
	p->nsrc = ts->nr;
	for (i = 0; i < ts->nr; i++)
		if (fg_src_start(r, &p->src[i], ts->traces[i]))
			return -1;
	return 0;
}

/* The source whose next event comes first (realtime), filling batches; -1 at the end of all, -2 on error. */
static int fg_pick(struct evt_request *r)
{
	struct evt_req_priv *p = r->priv;
	int best = -1;
	uint64_t best_rt = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < p->nsrc; i++) {
		struct fg_src *s = &p->src[i];
		uint64_t rt;

		if (s->done)
			continue;
		if (s->i == s->n) {
			s->n = evt_merged_next(&s->mt, s->refs, EVT_FG_BATCH);
			s->i = 0;
			if (s->n < 0) {
				r->error = 1;
				snprintf(r->errmsg, sizeof(r->errmsg), "%s", s->mt.errmsg);
				s->done = 1;
				return -2;
			}
			if (s->n == 0) {
				s->done = 1;
				continue;
			}
		}
		rt = s->refs[s->i].ts + s->t->offset_ns;
		if (rt < best_rt) {
			best_rt = rt;
			best = (int)i;
		}
	}
	return best;
}

/* One chunk of the request at the head of @ts: 1 when it goes on, 0 when it is done. */
static int fg_chunk(struct evt_traceset *ts)
{
	struct evt_engine *e = ts->eng;
	struct evt_request *r = ts->pending;
	struct evt_req_priv *p;
	uint64_t budget = e->o.fg_chunk;
	struct evt_where w;
	int end = 0;

	if (r->state == EVT_REQ_PENDING) {
		r->state = EVT_REQ_RUNNING;
		w = (struct evt_where){ .eng = e, .req = r };
		if (fg_start(r)) {
			if (!r->errmsg[0])
				snprintf(r->errmsg, sizeof(r->errmsg), "out of memory");
			r->error = 1;
			end = 1;
			goto done;
		}
		evt_hooks_call(&r->before_request, &w);
	}
	p = r->priv;
	w = (struct evt_where){ .eng = e, .req = r, .pos = r->delivered };
	evt_hooks_call(&r->ctx.before_chunk, &w);
	while (budget) {
		int k = fg_pick(r);
		struct fg_src *s;
		const struct evt_ref *ref;
		const struct evt_stream *st;
		struct evt_engine_event ev;

		if (k < 0) {
			end = 1;
			break;
		}
		s = &p->src[k];
		ref = &s->refs[s->i++];
		st = &s->tr.streams[EVT_REF_STREAM(ref)];
		ev = (struct evt_engine_event){
			.trace = s->t, .tr = &s->tr, .ts = ref->ts, .rt = ref->ts + s->t->offset_ns,
			.pos = r->delivered, .idx = EVT_REF_DESC(ref), .stream = EVT_REF_STREAM(ref),
			.cpu = st->cpu, .channel = st->channel, .payload = ref->payload, .len = EVT_REF_LEN(ref),
		};
		ev.desc = &s->tr.md.cat->events[ev.idx];
		e->stats.fg_events++;
		if (r->cpu_set && (st->cpu >= r->cpu_set_bits || !(r->cpu_set[st->cpu / 8] & (1u << (st->cpu % 8)))))
			continue;
		if (s->cpu_tid) {
			int32_t running = st->cpu < s->nr_cpus ? s->cpu_tid[st->cpu] : -2;
			int deliver;

			if ((int)ev.idx == s->sw_idx && st->cpu < s->nr_cpus) {
				int32_t next = (int32_t)evt_event_int(&ev, s->sw_next_off, s->sw_next_type);

				/* The switch belongs to both: the thread leaving and the one coming. */
				deliver = running == r->tid || next == r->tid;
				s->cpu_tid[st->cpu] = next;
			} else {
				deliver = running == r->tid;
			}
			if (running == -2 && (int)ev.idx != s->sw_idx)
				r->incomplete = 1;
			if (!deliver || !s->want[ev.idx])
				continue;
		} else if (s->want && !s->want[ev.idx]) {
			continue;
		}
		ctx_deliver(&r->ctx, &ev);
		w.rt = ev.rt;
		r->delivered++;
		budget--;
		if ((r->max_events && r->delivered >= r->max_events) || r->stop) {
			end = 1;
			break;
		}
	}
	e->stats.fg_chunks++;
	w.pos = r->delivered;
	w.end = end;
	evt_hooks_call(&r->ctx.after_chunk, &w);
	if (!end)
		return 1;
done:
	/* The request leaves the pool before its after_request hooks: they may submit it again. */
	ts->pending = r->next_pending;
	req_stop(r);
	r->ts = NULL;
	r->state = EVT_REQ_DONE;
	w = (struct evt_where){ .eng = e, .req = r, .pos = r->delivered, .end = 1, .error = r->error,
				.errmsg = r->error ? r->errmsg : NULL };
	evt_hooks_call(&r->after_request, &w);
	return 0;
}

/* ---- Driving ---- */

int evt_engine_busy(const struct evt_engine *e)
{
	const struct evt_traceset *ts;
	const struct evt_etrace *t;

	for (ts = e->tracesets; ts; ts = ts->next)
		if (ts->pending)
			return 1;
	for (t = e->traces; t; t = t->next)
		if (bg_has_work(t))
			return 1;
	return 0;
}

int evt_engine_step(struct evt_engine *e)
{
	struct evt_traceset *ts;
	struct evt_etrace *t;
	unsigned int i, n;

	/* Ad hoc first: no background chunk runs while any is pending (tracesets in turn). */
	for (n = 0, ts = e->tracesets; ts; ts = ts->next)
		n++;
	for (i = 0; i < n; i++) {
		unsigned int k = (e->fg_turn + i) % n, j;

		for (j = 0, ts = e->tracesets; j < k; j++)
			ts = ts->next;
		if (ts->pending) {
			e->fg_turn = k + 1;
			fg_chunk(ts);
			return evt_engine_busy(e);
		}
	}
	for (n = 0, t = e->traces; t; t = t->next)
		n++;
	for (i = 0; i < n; i++) {
		unsigned int k = (e->bg_turn + i) % n, j;

		for (j = 0, t = e->traces; j < k; j++)
			t = t->next;
		if (bg_has_work(t)) {
			e->bg_turn = k + 1;
			bg_step(t);
			return evt_engine_busy(e);
		}
	}
	return 0;
}

void evt_engine_run(struct evt_engine *e)
{
	while (evt_engine_step(e))
		;
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

int evt_engine_register_builtin(struct evt_engine *e)
{
	return evt_engine_register(e, &evt_comp_state) || evt_engine_register(e, &evt_comp_stats) ||
	       evt_engine_register(e, &evt_comp_index) || evt_engine_register(e, &evt_comp_io) ||
	       evt_engine_register(e, &evt_comp_power) ? -1 : 0;
}
