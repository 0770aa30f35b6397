// SPDX-License-Identifier: GPL-2.0
/*
 * The merged reader on several threads: see evt_par.h.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_par.h"
#include "ctf/evt_stream.h"

struct pkt_ts {
	uint64_t begin;
	uint64_t content;
};

static int pkt_ts_cmp(const void *a, const void *b)
{
	const struct pkt_ts *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/*
 * Slice starts: packet begin times, about slice_bytes of content apart,
 * within (from, to]. Returns how many (0: one slice), *@out malloc'd.
 */
static long cut(const struct evt_trace *t, const struct evt_par_opts *o, uint64_t **out)
{
	uint64_t target = o->slice_bytes ? o->slice_bytes : EVT_PAR_SLICE_BYTES, acc = 0, content = 0, *b;
	size_t total = 0, n = 0, i;
	struct pkt_ts *all;
	unsigned int s;

	*out = NULL;
	for (s = 0; s < t->nr_streams; s++)
		total += t->streams[s].npk;
	if (!total)
		return 0;
	all = malloc(total * sizeof(*all));
	b = malloc(total * sizeof(*b));
	if (!all || !b) {
		free(all);
		free(b);
		return -1;
	}
	for (s = 0, i = 0; s < t->nr_streams; s++) {
		const struct evt_stream *st = &t->streams[s];
		uint32_t k;

		for (k = 0; k < st->npk; k++, i++) {
			all[i].begin = st->pk[k].begin;
			all[i].content = st->pk[k].content;
			content += st->pk[k].content;
		}
	}
	/*
	 * Counting keeps nothing per slice, and each slice's start decodes a
	 * packet of every stream and merges the events before the slice:
	 * fewer, larger slices, still EVT_PAR_COUNT_SLICES a thread for the
	 * balance (the range's share of the trace is not known here).
	 */
	if (!o->slice_bytes && o->count_only &&
	    content / ((uint64_t)o->threads * EVT_PAR_COUNT_SLICES) > target)
		target = content / ((uint64_t)o->threads * EVT_PAR_COUNT_SLICES);
	qsort(all, total, sizeof(*all), pkt_ts_cmp);
	for (i = 0; i < total; i++) {
		const struct pkt_ts *p = &all[i];

		if (p->begin > o->to)
			break;
		if (p->begin <= o->from)
			acc = 0;	/* only what the range holds counts */
		if (acc >= target && p->begin > o->from && (!n || p->begin > b[n - 1])) {
			b[n++] = p->begin;
			acc = 0;
		}
		acc += p->content;
	}
	free(all);
	*out = b;
	return (long)n;
}

unsigned int evt_par_slices(const struct evt_trace *t, const struct evt_par_opts *o)
{
	uint64_t *b;
	long n = cut(t, o, &b);

	free(b);
	return n < 0 ? 1 : (unsigned int)n + 1;
}

struct result {
	void *state;
	char *err;
	int done;
};

struct run {
	struct evt_trace *t;
	const struct evt_par_opts *o;
	const struct evt_par_ops *ops;
	void *ctx;
	uint64_t *bound;		/* slice j: [lo(j), bound[j] - 1], bound[last] unused */
	unsigned int nslices;
	unsigned int next;		/* next slice to take */
	unsigned int ended;		/* slices ended by the caller */
	unsigned int window;		/* slices in flight at most */
	int stop;
	struct result *res;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static uint64_t slice_lo(const struct run *r, unsigned int j)
{
	return j ? r->bound[j - 1] : r->o->from;
}

static uint64_t slice_hi(const struct run *r, unsigned int j)
{
	return j + 1 < r->nslices ? r->bound[j] - 1 : r->o->to;
}

static void finish(struct run *r, unsigned int j, void *state, char *err)
{
	pthread_mutex_lock(&r->lock);
	r->res[j].state = state;
	r->res[j].err = err;
	r->res[j].done = 1;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/*
 * Slice @j's merged reader on @t (a clone: its own cursors) and its state:
 * the state, or NULL when it could not start (the slice is then finished
 * with the reason).
 */
static void *slice_open(struct run *r, struct evt_trace *t, int cloned, struct evt_merged *mt,
			unsigned int j)
{
	unsigned int s;
	void *state;

	if (!cloned || evt_merged_init(mt, t, r->o->kind)) {
		finish(r, j, NULL, strdup("out of memory"));
		return NULL;
	}
	for (s = 0; s < t->nr_streams; s++)
		evt_stream_seek(&t->streams[s], slice_lo(r, j));
	evt_merged_set_range(mt, slice_lo(r, j), slice_hi(r, j));
	if (r->o->event_mask)
		evt_merged_set_events(mt, r->o->event_mask);
	state = r->ops->begin(r->ctx, j, slice_lo(r, j), slice_hi(r, j));
	if (!state) {
		evt_merged_free(mt);
		finish(r, j, NULL, strdup("out of memory"));
	}
	return state;
}

/* The slice's merge ended (@n < 0: at an error): hand it over. */
static void slice_close(struct run *r, struct evt_merged *mt, unsigned int j, void *state, long n)
{
	char *err = NULL;

	if (n < 0) {
		err = strdup(mt->errmsg);
		if (!err)
			err = strdup("out of memory");
	}
	evt_merged_free(mt);
	finish(r, j, state, err);
}

/* One slice, to its end. */
static void slice_run(struct run *r, struct evt_merged *mt, unsigned int j, void *state,
		      struct evt_ref *refs)
{
	long n;

	if (r->o->count_only) {
		while ((n = evt_merged_count(mt, 1U << 20)) > 0)
			if (r->ops->count(r->ctx, state, (uint64_t)n))
				break;
	} else {
		while ((n = evt_merged_next(mt, refs, 512)) > 0)
			if (r->ops->refs(r->ctx, state, refs, (size_t)n))
				break;
	}
	slice_close(r, mt, j, state, n);
}

/*
 * Counting with the tree: two slices at a time, their merges interleaved
 * on this thread (evt_merged_count_pair), each over its own clone.
 */
static void slice_pair(struct run *r, struct evt_trace *t1, struct evt_trace *t2,
		       unsigned int j1, unsigned int j2)
{
	struct evt_merged m1, m2;
	void *s1 = slice_open(r, t1, 1, &m1, j1), *s2 = slice_open(r, t2, 1, &m2, j2);
	uint64_t n1, n2;

	if (!s1 || !s2) {
		if (s1)
			slice_run(r, &m1, j1, s1, NULL);
		if (s2)
			slice_run(r, &m2, j2, s2, NULL);
		return;
	}
	evt_merged_count_pair(&m1, &m2, &n1, &n2);
	if (n1)
		r->ops->count(r->ctx, s1, n1);
	if (n2)
		r->ops->count(r->ctx, s2, n2);
	slice_close(r, &m1, j1, s1, m1.err ? -1 : 0);
	slice_close(r, &m2, j2, s2, m2.err ? -1 : 0);
}

static void *worker(void *arg)
{
	struct run *r = arg;
	struct evt_trace t, t2;
	struct evt_ref *refs = malloc(512 * sizeof(*refs));
	int cloned = refs && evt_trace_clone(&t, r->t) == 0;
	/* Counting with the tree: a second reader, for slices taken in pairs. */
	int pair = cloned && r->o->count_only && r->o->kind == EVT_MERGE_TREE &&
		   evt_trace_clone(&t2, r->t) == 0;

	for (;;) {
		struct evt_merged mt;
		unsigned int j, j2 = UINT32_MAX;
		void *state;

		pthread_mutex_lock(&r->lock);
		while (!r->stop && r->next < r->nslices && r->next >= r->ended + r->window)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop || r->next >= r->nslices) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		j = r->next++;
		if (pair && r->next < r->nslices && r->next < r->ended + r->window)
			j2 = r->next++;
		pthread_mutex_unlock(&r->lock);

		if (j2 != UINT32_MAX) {
			slice_pair(r, &t, &t2, j, j2);
			continue;
		}
		state = slice_open(r, &t, cloned, &mt, j);
		if (state)
			slice_run(r, &mt, j, state, refs);
	}
	if (pair)
		evt_trace_close(&t2);
	if (cloned)
		evt_trace_close(&t);
	free(refs);
	return NULL;
}

int evt_par_run(struct evt_trace *t, const struct evt_par_opts *o, const struct evt_par_ops *ops,
		void *ctx, char *err, size_t errlen)
{
	struct run r = { .t = t, .o = o, .ops = ops, .ctx = ctx };
	unsigned int nt = o->threads ? o->threads : 1, i, started = 0, j;
	pthread_t *tid;
	long nb;
	int ret = 0;

	nb = cut(t, o, &r.bound);
	if (nb < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r.nslices = (unsigned int)nb + 1;
	r.window = 2 * nt + 2;
	r.res = calloc(r.nslices, sizeof(*r.res));
	tid = calloc(nt, sizeof(*tid));
	if (!r.res || !tid) {
		free(r.res);
		free(tid);
		free(r.bound);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	for (i = 0; i < nt && i < r.nslices; i++)
		if (pthread_create(&tid[started], NULL, worker, &r) == 0)
			started++;
	if (!started) {
		snprintf(err, errlen, "cannot start a thread");
		ret = -1;
		goto out;
	}
	for (j = 0; j < r.nslices; j++) {
		struct result *res = &r.res[j];
		int rc;

		pthread_mutex_lock(&r.lock);
		while (!res->done)
			pthread_cond_wait(&r.cond, &r.lock);
		pthread_mutex_unlock(&r.lock);
		if (!res->state) {
			/* The slice could not even start: stop with its reason. */
			snprintf(err, errlen, "%s", res->err ? res->err : "out of memory");
			free(res->err);
			res->err = NULL;
			res->done = 2;
			ret = -1;
			break;
		}
		rc = ops->end(ctx, res->state, res->err);
		free(res->err);
		res->err = NULL;
		res->state = NULL;
		res->done = 2;
		pthread_mutex_lock(&r.lock);
		r.ended = j + 1;
		pthread_cond_broadcast(&r.cond);
		pthread_mutex_unlock(&r.lock);
		if (rc) {
			ret = 1;
			break;
		}
	}
out:
	pthread_mutex_lock(&r.lock);
	r.stop = 1;
	pthread_cond_broadcast(&r.cond);
	pthread_mutex_unlock(&r.lock);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	/* Slices done but never ended. */
	for (j = 0; j < r.nslices; j++) {
		if (r.res[j].done == 1 && r.res[j].state)
			ops->drop(ctx, r.res[j].state);
		free(r.res[j].err);
	}
	pthread_mutex_destroy(&r.lock);
	pthread_cond_destroy(&r.cond);
	free(r.res);
	free(tid);
	free(r.bound);
	return ret;
}
