// SPDX-License-Identifier: GPL-2.0
/* Tracesets and the foreground scheduler: ad hoc requests over time ranges, merged across traces. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_engine_priv.h"

static void req_stop(struct evt_request *r);

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
		evt_etrace_put(ts->traces[i]);
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
	evt_ctx_free(&r->ctx);
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
	if (evt_ctx_resolve(&r->ctx, cat))
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
int evt_fg_chunk(struct evt_traceset *ts)
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
		evt_ctx_deliver(&r->ctx, &ev);
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
