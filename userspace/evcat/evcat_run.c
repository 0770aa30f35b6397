// SPDX-License-Identifier: GPL-2.0
/*
 * evcat's readings (see evcat.h): one merge on this thread, or time
 * slices merged on worker threads (evt_par) and taken in order here; with
 * the task context (printing, or a selection by task or field) or without
 * (counting). The ad hoc path of --from/--to on one thread counts through
 * the analysis engine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "evcat.h"
#include "engine/evt_engine.h"
#include "util/evt_io.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_par.h"
#include "ctf/evt_stream.h"

#define NREFS 1024

struct slice {
	uint64_t lo, hi;		/* its time range */
	uint64_t count, first, last;
	uint64_t *per_stream, *per_event;
	int direct;			/* straight to stdout (one thread) */
	struct evt_out out;		/* in memory, for a slice on a thread */
	struct evt_fmt fmt;
	struct evcat_ctx *x;		/* the task context (a slice's, or the final one on one thread) */
	int shown;			/* a line was formatted: the first's delta is a hole */
};

static void slice_free(struct evcat_run *c, struct slice *sl)
{
	if (!sl)
		return;
	if (!sl->direct && sl->out.buf) {
		pthread_mutex_lock(&c->pool_lock);
		if (c->npool < EVCAT_POOL && !sl->out.err) {
			sl->out.len = 0;
			c->pool[c->npool++] = sl->out;
		} else {
			evt_out_free(&sl->out);
		}
		pthread_mutex_unlock(&c->pool_lock);
	}
	if (sl->x && sl->x != c->g)
		evcat_ctx_free(sl->x);
	free(sl->per_stream);
	free(sl->per_event);
	free(sl);
}

/* A slice's state: @direct, printed as it goes through the final context on this thread. */
static struct slice *slice_new(struct evcat_run *c, uint64_t lo, uint64_t hi, int direct)
{
	struct slice *sl = calloc(1, sizeof(*sl));

	if (!sl)
		return NULL;
	sl->lo = lo;
	sl->hi = hi;
	sl->direct = direct;
	if (c->o->stats) {
		sl->per_stream = calloc(c->t->nr_streams + 1, sizeof(*sl->per_stream));
		sl->per_event = calloc(c->t->md.cat->nr_events, sizeof(*sl->per_event));
		if (!sl->per_stream || !sl->per_event) {
			slice_free(c, sl);
			return NULL;
		}
	}
	if (c->use_ctx) {
		sl->x = direct ? c->g : evcat_ctx_new(&c->sh, 0);
		if (!sl->x) {
			slice_free(c, sl);
			return NULL;
		}
	}
	if (c->print && !direct) {
		pthread_mutex_lock(&c->pool_lock);
		if (c->npool)
			sl->out = c->pool[--c->npool];
		pthread_mutex_unlock(&c->pool_lock);
		if (!sl->out.buf && evt_out_init(&sl->out, -1, 1 << 20)) {
			slice_free(c, sl);
			return NULL;
		}
		/* The shared templates, this slice's own time cache and delta. */
		sl->fmt = c->fmt;
		sl->fmt.have_prev = 0;
		sl->fmt.have_cached = 0;
	}
	return sl;
}

static void *slice_begin(void *ctx, unsigned int j, uint64_t lo, uint64_t hi)
{
	(void)j;
	return slice_new(ctx, lo, hi, 0);
}

static void count_line(struct slice *sl, const struct evt_ref *r)
{
	if (!sl->count)
		sl->first = r->ts;
	sl->count++;
	sl->last = r->ts;
	if (sl->per_stream) {
		sl->per_stream[EVT_REF_STREAM(r)]++;
		sl->per_event[EVT_REF_DESC(r)]++;
	}
}

static int slice_refs(void *ctx, void *state, const struct evt_ref *r, size_t n)
{
	struct evcat_run *c = ctx;
	struct slice *sl = state;
	struct evt_fmt *f = sl->direct ? &c->fmt : &sl->fmt;
	struct evt_out *out = sl->direct ? &c->out : &sl->out;
	size_t i;

	if (!c->use_ctx) {
		/* Counting alone: every event counts. */
		for (i = 0; i < n; i++)
			count_line(sl, &r[i]);
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct evcat_line line;
		const unsigned int flags = (sl->direct || sl->shown ? 0 : EVCAT_FIRST) |
					   (r[i].ts < c->from ? EVCAT_QUIET : 0);

		if (c->plain && (sl->direct || sl->shown || c->o->fmt == EVT_FMT_JSON)) {
			const size_t m = evcat_ctx_plain(sl->x, &r[i], n - i, f, out, c->from);

			if (m == (size_t)-1)
				return -1;
			if (m) {
				if (!sl->count)
					sl->first = r[i].ts;
				sl->count += m;
				sl->last = r[i + m - 1].ts;
				sl->shown = 1;
				i += m - 1;
				continue;
			}
		}

		if (evcat_ctx_event(sl->x, &r[i], f, out, flags, &line))
			return -1;
		if (line.show)
			sl->shown = 1;
		if (line.show && !line.fixup)
			count_line(sl, &r[i]);
	}
	return out->err ? -1 : 0;
}

/* --count alone: the merge counts, no references are made. */
static int slice_count(void *ctx, void *state, uint64_t n)
{
	struct slice *sl = state;

	(void)ctx;
	sl->count += n;
	return 0;
}

static void slice_drop(void *ctx, void *state)
{
	slice_free(ctx, state);
}

/* @n lines from @first to @last into the totals. */
static void add_span(struct evcat_run *c, uint64_t n, uint64_t first, uint64_t last)
{
	if (!n)
		return;
	if (!c->st.total || first < c->st.first)
		c->st.first = first;
	if (!c->st.total || last > c->st.last)
		c->st.last = last;
	c->st.total += n;
}

static void add_counts(struct evcat_run *c, const struct slice *sl)
{
	unsigned int i;

	add_span(c, sl->count, sl->first, sl->last);
	if (sl->per_stream) {
		for (i = 0; i < c->t->nr_streams; i++)
			c->st.per_stream[i] += sl->per_stream[i];
		for (i = 0; i < c->t->md.cat->nr_events; i++)
			c->st.per_event[i] += sl->per_event[i];
	}
}

/* The fixups' counts, resolved: into the totals. */
static void add_sink(struct evcat_run *c)
{
	add_span(c, c->sink.count, c->sink.first_ts, c->sink.last_ts);
	c->sink.count = 0;
}

static int run_range_direct(struct evcat_run *c, uint64_t lo, uint64_t hi);

/* In order, on the main thread: output and totals. */
static int slice_end(void *ctx, void *state, const char *err)
{
	struct evcat_run *c = ctx;
	struct slice *sl = state;
	int ret = 0, rc;

	if (sl->x && !sl->out.err) {
		c->sink.out = &c->out;
		c->sink.per_stream = c->st.per_stream;
		c->sink.per_event = c->st.per_event;
		rc = evcat_ctx_resolve(sl->x, c->g, c->print ? &sl->out : NULL, &c->sink);
		if (rc > 0) {
			/* Its guess did not hold (events lost where it began): the slice again, here. */
			c->fmt.prev_ts = c->sink.prev_ts;
			c->fmt.have_prev = c->sink.have_prev;
			rc = run_range_direct(c, sl->lo, sl->hi);
			c->sink.prev_ts = c->fmt.prev_ts;
			c->sink.have_prev = c->fmt.have_prev;
			slice_free(c, sl);
			return rc ? -1 : 0;
		}
		if (rc < 0 && !c->out.err)
			c->out.err = ENOMEM;
		add_sink(c);
	} else if (sl->out.err) {
		c->out.err = sl->out.err;
	}
	add_counts(c, sl);
	if (err) {
		c->err = strdup(err);
		ret = -1;
	}
	if (c->out.err)
		ret = -1;
	slice_free(c, sl);
	return ret;
}

static const struct evt_par_ops cat_ops = {
	.begin = slice_begin, .refs = slice_refs, .end = slice_end, .drop = slice_drop,
	.count = slice_count,
};

/* One merge over [lo, hi], printed through the final context on this thread: 0, or -1 (said in c). */
static int run_range_direct(struct evcat_run *c, uint64_t lo, uint64_t hi)
{
	struct evt_trace t;
	struct evt_merged mt;
	struct evt_ref *refs = malloc(NREFS * sizeof(*refs));
	struct slice *sl;
	unsigned int s;
	long n;
	int ret = -1;

	if (!refs || evt_trace_clone(&t, c->t)) {
		free(refs);
		c->out.err = c->out.err ? c->out.err : ENOMEM;
		return -1;
	}
	if (evt_merged_init(&mt, &t, c->o->merge)) {
		evt_trace_close(&t);
		free(refs);
		c->out.err = c->out.err ? c->out.err : ENOMEM;
		return -1;
	}
	for (s = 0; s < t.nr_streams; s++)
		evt_stream_seek(&t.streams[s], lo);
	evt_merged_set_range(&mt, lo, hi);
	if (c->merge_mask)
		evt_merged_set_events(&mt, c->merge_mask);
	sl = slice_new(c, lo, hi, 1);
	if (sl) {
		while ((n = evt_merged_next(&mt, refs, NREFS)) > 0)
			if (slice_refs(c, sl, refs, (size_t)n))
				break;
		if (n < 0 && !c->err)
			c->err = strdup(mt.errmsg);
		add_counts(c, sl);
		ret = n < 0 || c->out.err ? -1 : 0;
		sl->x = NULL;
		slice_free(c, sl);
	}
	evt_merged_free(&mt);
	evt_trace_close(&t);
	free(refs);
	return ret;
}

/* The sequential path: one merge, printed as it goes. */
static int run_sequential(struct evcat_run *c, uint64_t from, uint64_t to)
{
	struct evt_merged mt;
	struct evt_ref *refs = malloc(NREFS * sizeof(*refs));
	struct slice *sl;
	long n;
	int ret;

	if (!refs || evt_merged_init(&mt, c->t, c->o->merge)) {
		free(refs);
		return -1;
	}
	evt_merged_set_range(&mt, from, to);
	if (c->merge_mask)
		evt_merged_set_events(&mt, c->merge_mask);
	else if (c->o->event_mask)
		evt_merged_set_events(&mt, c->o->event_mask);
	sl = slice_new(c, from, to, 1);
	if (!sl) {
		evt_merged_free(&mt);
		free(refs);
		return -1;
	}
	if (c->count_only) {
		while ((n = evt_merged_count(&mt, 1U << 20)) > 0)
			slice_count(c, sl, (uint64_t)n);
	} else {
		while ((n = evt_merged_next(&mt, refs, NREFS)) > 0)
			if (slice_refs(c, sl, refs, (size_t)n))
				break;
	}
	add_counts(c, sl);
	if (sl->x == c->g)
		sl->x = NULL;
	slice_free(c, sl);
	ret = n < 0 ? -1 : 0;
	if (n < 0)
		c->err = strdup(mt.errmsg);
	evt_merged_free(&mt);
	free(refs);
	return ret < 0 || c->out.err ? 1 : 0;
}

/* --from/--to on one thread, counting: an ad hoc request of the analysis engine (it seeks through the packet index). */
struct adhoc {
	struct evcat_run *c;
	struct slice *sl;
	struct evt_request *r;
	struct evt_ref refs[NREFS];
	size_t n;
	int failed;
};

static int adhoc_flush(void *data, void *call)
{
	struct adhoc *a = data;

	(void)call;
	if (a->n && !a->failed && slice_refs(a->c, a->sl, a->refs, a->n)) {
		a->failed = 1;
		a->r->stop = 1;
	}
	a->n = 0;
	return 0;
}

static int adhoc_event(void *data, void *call)
{
	struct adhoc *a = data;
	const struct evt_engine_event *ev = call;

	a->refs[a->n++] = (struct evt_ref){ .ts = ev->ts, .payload = ev->payload,
					    .info = EVT_DMETA(ev->stream, ev->len, ev->idx) };
	if (a->n == NREFS)
		adhoc_flush(a, NULL);
	return 0;
}

static int run_adhoc(struct evcat_run *c, struct evt_engine *eng, struct evt_etrace *et)
{
	const struct evt_catalogue *cat = c->t->md.cat;
	uint64_t off = evt_etrace_offset_ns(et);
	struct evt_traceset *ts = evt_traceset_new(eng);
	struct adhoc *a = calloc(1, sizeof(*a));
	const char **names = NULL;
	struct evt_request r;
	unsigned int i, k = 0;
	int ret = -1;

	evt_request_init(&r, c);
	if (!ts || !a)
		goto out;
	r.from_rt = c->from > UINT64_MAX - off ? UINT64_MAX : c->from + off;
	r.to_rt = c->to >= EVT_TIME_END - off ? EVT_TIME_END : c->to + off;
	if (c->o->event_mask) {
		names = calloc(cat->nr_events + 1, sizeof(*names));
		if (!names)
			goto out;
		for (i = 0; i < cat->nr_events; i++)
			if (c->o->event_mask[i])
				names[k++] = cat->events[i].name;
		r.events = names;
	}
	a->c = c;
	a->r = &r;
	a->sl = slice_new(c, c->from, c->to, 1);
	if (!a->sl || evt_traceset_add(ts, et) || evt_hooks_add(&r.ctx.event, adhoc_event, a) ||
	    evt_hooks_add(&r.ctx.after_chunk, adhoc_flush, a) || evt_request_submit(ts, &r))
		goto out;
	evt_engine_run(eng);
	adhoc_flush(a, NULL);
	add_counts(c, a->sl);
	if (r.error)
		c->err = strdup(r.errmsg);
	ret = r.error ? 1 : 0;
out:
	if (a && a->sl)
		slice_free(c, a->sl);
	evt_request_release(&r);
	evt_traceset_free(ts);
	free(names);
	free(a);
	return ret;
}

/* The task context from the start to --from: its state only, nothing shown. */
static int run_prefix(struct evcat_run *c)
{
	uint64_t first = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < c->t->nr_streams; i++)
		if (c->t->streams[i].npk && c->t->streams[i].pk[0].begin < first)
			first = c->t->streams[i].pk[0].begin;
	if (first >= c->from)
		return 0;
	return run_range_direct(c, first, c->from - 1);
}

int evcat_run(struct evcat_run *c, struct evt_engine *eng, struct evt_etrace *et)
{
	struct evt_par_opts po = {
		.threads = c->o->threads, .kind = c->o->merge, .from = c->from, .to = c->to,
		.event_mask = c->merge_mask ? c->merge_mask : c->o->event_mask, .slice_bytes = c->o->slice_bytes,
		.count_only = c->count_only,
	};
	char err[512];
	int rc;

	if (et && !c->use_ctx)
		return run_adhoc(c, eng, et);
	if (c->use_ctx && c->from && run_prefix(c))
		return c->err || c->out.err ? 1 : -1;
	/*
	 * Counting goes by slices also on one thread: the tree merges two
	 * slices at a time, interleaved (evt_merged_count_pair).
	 */
	if ((c->o->threads > 1 || (c->count_only && c->o->merge == EVT_MERGE_TREE)) && evt_par_slices(c->t, &po) > 1) {
		rc = evt_par_run(c->t, &po, &cat_ops, c, err, sizeof(err));
		if (rc < 0 && !c->err)
			c->err = strdup(err);
		return rc ? 1 : 0;
	}
	return run_sequential(c, c->from, c->to);
}
