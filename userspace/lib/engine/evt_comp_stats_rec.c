// SPDX-License-Identifier: GPL-2.0
/*
 * The "stats" computation's records (made, freed, looked up) and its
 * saved form; the building, and the computation's entry in the engine,
 * is evt_comp_stats.c.
 */
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "engine/evt_comp_stats_int.h"

void evt_stats_lat_init(struct evt_lat *l)
{
	memset(l, 0, sizeof(*l));
	l->min_ns = UINT64_MAX;
}

static void init_fixed(struct evt_stats *s)
{
	unsigned int i;

	for (i = 0; i < EVT_STATS_SOFTIRQS; i++) {
		evt_stats_lat_init(&s->softirq[i].dur);
		evt_lathist_init(&s->softirq[i].pct);
	}
	evt_stats_lat_init(&s->sched_lat);
	evt_lathist_init(&s->sched_pct);
}

struct evt_stats *evt_stats_new(void)
{
	struct evt_stats *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->priv = calloc(1, sizeof(*s->priv));
	if (!s->priv) {
		free(s);
		return NULL;
	}
	init_fixed(s);
	return s;
}

static void rets_free(struct evt_stats_rets *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

void evt_stats_clear(struct evt_stats *s)
{
	struct evt_stats_priv *p = s->priv;
	uint32_t i, j;

	for (i = 0; i < s->nr_ev; i++)
		free(s->ev[i].name);
	free(s->ev);
	for (i = 0; i < s->nr_sys; i++) {
		free(s->sys[i].name);
		evt_lathist_free(&s->sys[i].pct);
		rets_free(&s->sys[i].rets);
	}
	free(s->sys);
	free(s->cpus);
	for (i = 0; i < s->nr_threads; i++) {
		struct evt_stats_thread *t = &s->threads[i];

		for (j = 0; j < t->ntsys; j++)
			evt_stats_tsys_release(&t->tsys[j]);
		free(t->tsys);
		evt_lathist_free(&t->wake_pct);
		free(t->wakers);
	}
	free(s->threads);
	for (i = 0; i < s->nr_irqs; i++)
		evt_lathist_free(&s->irqs[i].pct);
	free(s->irqs);
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++)
		evt_lathist_free(&s->softirq[i].pct);
	evt_lathist_free(&s->sched_pct);
	free(s->streams);
	free(s->losses);
	evt_kinds_free(&p->kinds);
	free(p->ev_slot);
	free(p->sys_slot);
	evt_tidmap_free(&p->tmap);
	evt_tidmap_free(&p->irq_map);
	evt_lossmap_free(&p->losses);
	free(p->seams);
	memset(p, 0, sizeof(*p));
	memset(s, 0, sizeof(*s));
	s->priv = p;
	init_fixed(s);
}

void evt_stats_free(struct evt_stats *s)
{
	if (!s)
		return;
	evt_stats_clear(s);
	free(s->priv);
	free(s);
}

/* ---- Records ---- */

struct evt_stats_cpu *evt_stats_get_cpu(struct evt_stats *s, unsigned int cpu)
{
	if (cpu >= EVT_MAX_CPUS)
		return NULL;
	if (cpu >= s->nr_cpus) {
		uint32_t i;

		if (evt_grow(&s->cpus, &s->cap_cpus, cpu + 1, sizeof(*s->cpus)))
			return NULL;
		for (i = s->nr_cpus; i <= cpu; i++) {
			memset(&s->cpus[i], 0, sizeof(s->cpus[i]));
			s->cpus[i].cur = -1;
			/* Its time is counted from the result's first event, whenever its own comes. */
			s->cpus[i].since = s->cpus[i].mode_since = s->first_ts;
		}
		s->nr_cpus = cpu + 1;
	}
	return &s->cpus[cpu];
}

long evt_stats_thread_idx(struct evt_stats *s, int32_t tid)
{
	long i = evt_tidmap_get(&s->priv->tmap, tid);
	struct evt_stats_thread *t;

	if (i >= 0)
		return i;
	if (evt_grow(&s->threads, &s->cap_threads, (size_t)s->nr_threads + 1, sizeof(*s->threads)) ||
	    evt_tidmap_set(&s->priv->tmap, tid, s->nr_threads))
		return -1;
	t = &s->threads[s->nr_threads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->sys = -1;
	t->prio = -1;
	t->waker = -1;
	t->last_cpu = -1;
	if (!tid)
		strcpy(t->comm, "swapper");
	evt_stats_lat_init(&t->wake);
	evt_lathist_init(&t->wake_pct);
	return s->nr_threads++;
}

long evt_stats_find_named(const void *arr, size_t elem, uint32_t n, const char *name)
{
	uint32_t i;

	/* name is each element's first member */
	for (i = 0; i < n; i++)
		if (!strcmp(*(char *const *)((const char *)arr + (size_t)i * elem), name))
			return i;
	return -1;
}

long evt_stats_event_slot(struct evt_stats *s, const char *name)
{
	long i = evt_stats_find_named(s->ev, sizeof(*s->ev), s->nr_ev, name);
	char *dup;

	if (i >= 0)
		return i;
	if (evt_grow(&s->ev, &s->cap_ev, (size_t)s->nr_ev + 1, sizeof(*s->ev)) || !(dup = strdup(name)))
		return -1;
	s->ev[s->nr_ev].name = dup;
	s->ev[s->nr_ev].count = 0;
	return s->nr_ev++;
}

long evt_stats_sys_slot(struct evt_stats *s, const char *name)
{
	long i = evt_stats_find_named(s->sys, sizeof(*s->sys), s->nr_sys, name);
	struct evt_stats_syscall *c;
	char *dup;

	if (i >= 0)
		return i;
	if (evt_grow(&s->sys, &s->cap_sys, (size_t)s->nr_sys + 1, sizeof(*s->sys)) || !(dup = strdup(name)))
		return -1;
	c = &s->sys[s->nr_sys];
	memset(c, 0, sizeof(*c));
	c->name = dup;
	evt_stats_lat_init(&c->lat);
	evt_lathist_init(&c->pct);
	return s->nr_sys++;
}

long evt_stats_irq_slot(struct evt_stats *s, int32_t irq)
{
	struct evt_stats_irq *q;
	long i = evt_tidmap_get(&s->priv->irq_map, irq);

	if (i >= 0)
		return i;
	if (evt_grow(&s->irqs, &s->cap_irqs, (size_t)s->nr_irqs + 1, sizeof(*s->irqs)) ||
	    evt_tidmap_set(&s->priv->irq_map, irq, s->nr_irqs))
		return -1;
	q = &s->irqs[s->nr_irqs];
	memset(q, 0, sizeof(*q));
	q->irq = irq;
	evt_stats_lat_init(&q->dur);
	evt_lathist_init(&q->pct);
	return s->nr_irqs++;
}

struct evt_stats_tsys *evt_stats_tsys(struct evt_stats_thread *t, uint32_t sys)
{
	struct evt_stats_tsys *y;
	uint32_t i;

	for (i = 0; i < t->ntsys; i++)
		if (t->tsys[i].sys == sys)
			return &t->tsys[i];
	if (evt_grow(&t->tsys, &t->cap_tsys, (size_t)t->ntsys + 1, sizeof(*t->tsys)))
		return NULL;
	y = &t->tsys[t->ntsys++];
	evt_stats_tsys_init(y, sys);
	return y;
}

void evt_stats_tsys_init(struct evt_stats_tsys *y, uint32_t sys)
{
	memset(y, 0, sizeof(*y));
	y->sys = sys;
	evt_stats_lat_init(&y->lat);
	evt_lathist_init(&y->pct);
}

int evt_stats_rets_add(struct evt_stats_rets *r, int64_t ret, uint64_t c)
{
	uint32_t i;

	if (ret >= 0) {
		r->success += c;
		return 0;
	}
	for (i = 0; i < r->n; i++) {
		if (r->v[i].ret == ret) {
			r->v[i].count += c;
			return 0;
		}
	}
	if (evt_grow(&r->v, &r->cap, (size_t)r->n + 1, sizeof(*r->v)))
		return -1;
	r->v[r->n].ret = ret;
	r->v[r->n].count = c;
	r->n++;
	return 0;
}

void evt_stats_tsys_release(struct evt_stats_tsys *y)
{
	evt_lathist_free(&y->pct);
	rets_free(&y->rets);
}

int evt_stats_tsys_merge(struct evt_stats_tsys *dst, const struct evt_stats_tsys *src)
{
	struct evt_lat *l = &dst->lat;
	uint32_t i;

	dst->count += src->count;
	l->count += src->lat.count;
	l->total_ns += src->lat.total_ns;
	l->spans_loss += src->lat.spans_loss;
	if (src->lat.count && src->lat.min_ns < l->min_ns)
		l->min_ns = src->lat.min_ns;
	if (src->lat.max_ns > l->max_ns)
		l->max_ns = src->lat.max_ns;
	if (evt_lathist_merge(&dst->pct, &src->pct) || evt_stats_rets_add(&dst->rets, 0, src->rets.success))
		return -1;
	for (i = 0; i < src->rets.n; i++)
		if (evt_stats_rets_add(&dst->rets, src->rets.v[i].ret, src->rets.v[i].count))
			return -1;
	return 0;
}

int evt_stats_waker_add(struct evt_stats_thread *t, int32_t waker, uint64_t c)
{
	uint32_t i;

	for (i = 0; i < t->nwakers; i++) {
		if (t->wakers[i].tid == waker) {
			t->wakers[i].count += c;
			return 0;
		}
	}
	if (evt_grow(&t->wakers, &t->cap_wakers, (size_t)t->nwakers + 1, sizeof(*t->wakers)))
		return -1;
	t->wakers[t->nwakers].tid = waker;
	t->wakers[t->nwakers].count = c;
	t->nwakers++;
	return 0;
}

/* ---- Lookups ---- */

const struct evt_stats_event *evt_stats_event(const struct evt_stats *s, const char *name)
{
	long i = evt_stats_find_named(s->ev, sizeof(*s->ev), s->nr_ev, name);

	return i < 0 ? NULL : &s->ev[i];
}

const struct evt_stats_syscall *evt_stats_syscall(const struct evt_stats *s, const char *name)
{
	long i = evt_stats_find_named(s->sys, sizeof(*s->sys), s->nr_sys, name);

	return i < 0 ? NULL : &s->sys[i];
}

const struct evt_stats_thread *evt_stats_thread(const struct evt_stats *s, int32_t tid)
{
	long i = evt_tidmap_get(&s->priv->tmap, tid);

	return i < 0 ? NULL : &s->threads[i];
}

const struct evt_stats_irq *evt_stats_irq(const struct evt_stats *s, int32_t irq)
{
	long i = evt_tidmap_get(&s->priv->irq_map, irq);

	return i < 0 ? NULL : &s->irqs[i];
}

static int put_lat(struct evt_buf *b, const struct evt_lat *l)
{
	return evt_put_u64(b, l->count) | evt_put_u64(b, l->total_ns) | evt_put_u64(b, l->min_ns) |
	       evt_put_u64(b, l->max_ns) | evt_put_u64(b, l->spans_loss);
}

static int get_lat(struct evt_rbuf *r, struct evt_lat *l)
{
	if (evt_get_u64(r, &l->count) || evt_get_u64(r, &l->total_ns) || evt_get_u64(r, &l->min_ns) ||
	    evt_get_u64(r, &l->max_ns) || evt_get_u64(r, &l->spans_loss))
		return -1;
	/* An empty one has min UINT64_MAX and max 0; a full one min <= max. */
	return l->count ? (l->min_ns <= l->max_ns ? 0 : -1) :
			  (l->min_ns == UINT64_MAX && !l->max_ns && !l->total_ns ? 0 : -1);
}

/* A log2 histogram: its buckets up to the last one in use (a u8 count, then each). */
static int put_hist(struct evt_buf *b, const uint64_t *h)
{
	unsigned int i, n = EVT_HIST_BUCKETS;
	int err;

	while (n && !h[n - 1])
		n--;
	err = evt_put_u8(b, (uint8_t)n);
	for (i = 0; i < n; i++)
		err |= evt_put_u64(b, h[i]);
	return err;
}

static int get_hist(struct evt_rbuf *r, uint64_t *h)
{
	unsigned int i;
	uint8_t n;

	if (evt_get_u8(r, &n) || n > EVT_HIST_BUCKETS || (n && evt_rbuf_left(r) < 8u * n))
		return -1;
	for (i = 0; i < n; i++)
		if (evt_get_u64(r, &h[i]))
			return -1;
	/* The last one kept is in use (the form is one, not another of the same buckets). */
	return n && !h[n - 1] ? -1 : 0;
}

static int put_rets(struct evt_buf *b, const struct evt_stats_rets *x)
{
	uint32_t i;
	int err = evt_put_u64(b, x->success) | evt_put_u32(b, x->n);

	for (i = 0; i < x->n; i++)
		err |= evt_put_u64(b, (uint64_t)x->v[i].ret) | evt_put_u64(b, x->v[i].count);
	return err;
}

static int get_rets(struct evt_rbuf *r, struct evt_stats_rets *x)
{
	uint32_t n, i;

	if (evt_get_u64(r, &x->success) || evt_get_count(r, &n, 16, UINT32_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t ret, c;

		/* Each failure once, and only failures. */
		if (evt_get_u64(r, &ret) || evt_get_u64(r, &c) || (int64_t)ret >= 0 || !c ||
		    x->n != i || evt_stats_rets_add(x, (int64_t)ret, c) || x->n != i + 1)
			return -1;
	}
	return 0;
}

/* A distribution and the latency it goes with must agree (count, min, max). */
static int get_pct(struct evt_rbuf *r, struct evt_lathist *h, const struct evt_lat *l)
{
	if (evt_lathist_load(h, r) || h->count != l->count)
		return -1;
	return !l->count || (h->min == l->min_ns && h->max == l->max_ns) ? 0 : -1;
}

static int put_worst(struct evt_buf *b, const struct evt_stats_worstlist *l)
{
	uint32_t i;
	int err = evt_put_u32(b, l->n);

	for (i = 0; i < l->n; i++) {
		const struct evt_stats_worst *w = &l->v[i];

		err |= evt_put_u64(b, w->begin) | evt_put_u64(b, w->end) | evt_put_u32(b, w->cpu) |
		       evt_put_s32(b, w->tid) | evt_buf_put(b, w->comm, sizeof(w->comm)) | evt_put_s32(b, w->what) |
		       evt_put_u64(b, (uint64_t)w->ret) | evt_put_s32(b, w->waker) |
		       evt_buf_put(b, w->waker_comm, sizeof(w->waker_comm)) | evt_put_s32(b, w->prio);
	}
	return err;
}

static int get_worst(struct evt_rbuf *r, struct evt_stats_worstlist *l)
{
	uint32_t i;

	if (evt_get_count(r, &l->n, 76, EVT_STATS_WORST))
		return -1;
	for (i = 0; i < l->n; i++) {
		struct evt_stats_worst *w = &l->v[i];
		uint64_t ret;

		if (evt_get_u64(r, &w->begin) || evt_get_u64(r, &w->end) || w->end < w->begin ||
		    evt_get_u32(r, &w->cpu) || evt_get_s32(r, &w->tid) || evt_rbuf_get(r, w->comm, sizeof(w->comm)) ||
		    !memchr(w->comm, 0, sizeof(w->comm)) || evt_get_s32(r, &w->what) || evt_get_u64(r, &ret) ||
		    evt_get_s32(r, &w->waker) || evt_rbuf_get(r, w->waker_comm, sizeof(w->waker_comm)) ||
		    !memchr(w->waker_comm, 0, sizeof(w->waker_comm)) || evt_get_s32(r, &w->prio))
			return -1;
		w->ret = (int64_t)ret;
	}
	l->sorted = 1;
	return 0;
}

static int put_thread(struct evt_buf *b, const struct evt_stats_thread *t)
{
	uint32_t i;
	int err = evt_put_s32(b, t->tid) | evt_put_u64(b, t->events) | evt_buf_put(b, t->comm, sizeof(t->comm)) |
		  evt_put_s32(b, t->prio) | evt_put_u32(b, t->nprios);

	for (i = 0; i < t->nprios; i++)
		err |= evt_put_s32(b, t->prios[i]);
	err |= evt_put_u64(b, t->migrations) | evt_put_u64(b, t->cpu_changes) | evt_put_u32(b, t->ntsys);
	for (i = 0; i < t->ntsys; i++) {
		const struct evt_stats_tsys *y = &t->tsys[i];

		err |= evt_put_u32(b, y->sys) | evt_put_u64(b, y->count) | put_lat(b, &y->lat) |
		       evt_lathist_save(&y->pct, b) | put_rets(b, &y->rets);
	}
	err |= put_lat(b, &t->wake) | evt_lathist_save(&t->wake_pct, b) | evt_put_u32(b, t->nwakers);
	for (i = 0; i < t->nwakers; i++)
		err |= evt_put_s32(b, t->wakers[i].tid) | evt_put_u64(b, t->wakers[i].count);
	return err;
}

static int get_thread(struct evt_stats *s, struct evt_rbuf *r)
{
	struct evt_stats_thread *t;
	uint32_t n, i;
	int32_t tid;
	long k;

	if (evt_get_s32(r, &tid) || tid < -1 || evt_tidmap_get(&s->priv->tmap, tid) >= 0 ||
	    (k = evt_stats_thread_idx(s, tid)) < 0)
		return -1;
	t = &s->threads[k];
	if (evt_get_u64(r, &t->events) || evt_rbuf_get(r, t->comm, sizeof(t->comm)) ||
	    !memchr(t->comm, 0, sizeof(t->comm)) || evt_get_s32(r, &t->prio) ||
	    evt_get_count(r, &t->nprios, 4, EVT_STATS_PRIOS))
		return -1;
	for (i = 0; i < t->nprios; i++)
		if (evt_get_s32(r, &t->prios[i]))
			return -1;
	if (evt_get_u64(r, &t->migrations) || evt_get_u64(r, &t->cpu_changes) ||
	    evt_get_count(r, &n, 40 + 28 + 12, UINT32_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		struct evt_stats_tsys *y;
		uint32_t sys;

		if (evt_get_u32(r, &sys) || evt_stats_tsys(t, sys) != &t->tsys[i] ||
		    evt_get_u64(r, &t->tsys[i].count))
			return -1;
		y = &t->tsys[i];
		if (get_lat(r, &y->lat) || get_pct(r, &y->pct, &y->lat) || get_rets(r, &y->rets))
			return -1;
	}
	if (get_lat(r, &t->wake) || get_pct(r, &t->wake_pct, &t->wake) || evt_get_count(r, &n, 12, UINT32_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		int32_t w;
		uint64_t c;

		if (evt_get_s32(r, &w) || evt_get_u64(r, &c) || t->nwakers != i || evt_stats_waker_add(t, w, c) ||
		    t->nwakers != i + 1)
			return -1;
	}
	return 0;
}

/*
 * The saved form (little-endian): magic, version, events, first and last
 * times; the event names and counts; the CPUs (events, where their time
 * went); the threads (tid, events, comm, priorities, migrations, their
 * syscalls, their wakeup latency and wakers); the syscalls (name, count,
 * errors, latency, histogram, distribution, return values) and the
 * unmatched exits; the irqs (irq, name, count, duration, histogram,
 * distribution); the softirqs (count, raises, duration, histogram,
 * distribution); the scheduling latency, its histogram and distribution;
 * the worst latencies of each kind; the streams' losses and the losses
 * over time.
 */
int evt_stats_save(const void *r, struct evt_buf *b)
{
	const struct evt_stats *s = r;
	uint32_t i;
	int err = 0;

	err |= evt_put_u32(b, STATS_MAGIC) | evt_put_u32(b, STATS_VERSION);
	err |= evt_put_u64(b, s->events) | evt_put_u64(b, s->first_ts) | evt_put_u64(b, s->last_ts);
	err |= evt_put_u32(b, s->nr_ev);
	for (i = 0; i < s->nr_ev; i++)
		err |= evt_put_str(b, s->ev[i].name, strlen(s->ev[i].name)) | evt_put_u64(b, s->ev[i].count);
	err |= evt_put_u32(b, s->nr_cpus);
	for (i = 0; i < s->nr_cpus; i++) {
		const struct evt_stats_cpu *c = &s->cpus[i];

		err |= evt_put_u64(b, c->events) | evt_put_u64(b, c->busy_ns) | evt_put_u64(b, c->idle_ns) |
		       evt_put_u64(b, c->irq_ns) | evt_put_u64(b, c->softirq_ns) | evt_put_u64(b, c->lossy_ns) |
		       evt_put_u64(b, c->task_ns);
	}
	err |= evt_put_u32(b, s->nr_threads);
	for (i = 0; i < s->nr_threads && !err; i++)
		err |= put_thread(b, &s->threads[i]);
	err |= evt_put_u32(b, s->nr_sys);
	for (i = 0; i < s->nr_sys; i++) {
		const struct evt_stats_syscall *q = &s->sys[i];

		err |= evt_put_str(b, q->name, strlen(q->name)) | evt_put_u64(b, q->count) |
		       evt_put_u64(b, q->errors) | put_lat(b, &q->lat) | put_hist(b, q->hist) |
		       evt_lathist_save(&q->pct, b) | put_rets(b, &q->rets);
	}
	err |= evt_put_u64(b, s->sys_unmatched);
	err |= evt_put_u32(b, s->nr_irqs);
	for (i = 0; i < s->nr_irqs; i++) {
		const struct evt_stats_irq *q = &s->irqs[i];

		err |= evt_put_s32(b, q->irq) | evt_put_str(b, q->name, strlen(q->name)) |
		       evt_put_u64(b, q->count) | put_lat(b, &q->dur) | put_hist(b, q->hist) |
		       evt_lathist_save(&q->pct, b);
	}
	{
		uint32_t n = 0;

		for (i = 0; i < EVT_STATS_SOFTIRQS; i++)
			n += s->softirq[i].count || s->softirq[i].raises || s->softirq[i].dur.spans_loss;
		err |= evt_put_u32(b, n);
	}
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++)
		if (s->softirq[i].count || s->softirq[i].raises || s->softirq[i].dur.spans_loss)
			err |= evt_put_u32(b, i) | evt_put_u64(b, s->softirq[i].count) |
			       evt_put_u64(b, s->softirq[i].raises) | put_lat(b, &s->softirq[i].dur) |
			       put_hist(b, s->softirq[i].hist) | evt_lathist_save(&s->softirq[i].pct, b);
	err |= put_lat(b, &s->sched_lat) | put_hist(b, s->sched_hist) | evt_lathist_save(&s->sched_pct, b);
	for (i = 0; i < EVT_WORST_KINDS; i++)
		err |= put_worst(b, &s->worst[i]);
	err |= evt_put_u32(b, s->nr_streams);
	for (i = 0; i < s->nr_streams; i++) {
		const struct evt_stats_stream *q = &s->streams[i];

		err |= evt_put_u32(b, q->id) | evt_put_u32(b, q->cpu) | evt_put_u32(b, q->channel) |
		       evt_put_u64(b, q->discarded) | evt_put_u64(b, q->lost_packets);
	}
	err |= evt_put_u32(b, s->nr_losses);
	for (i = 0; i < s->nr_losses; i++) {
		const struct evt_stats_loss *q = &s->losses[i];

		err |= evt_put_u64(b, q->ts) | evt_put_u64(b, q->from) | evt_put_u64(b, q->to) |
		       evt_put_u32(b, q->stream) | evt_put_u64(b, q->discarded) | evt_put_u64(b, q->lost_packets);
	}
	return err || b->oom ? -1 : 0;
}

/*
 * A saved result is cross-checked where it can be: the event count is the
 * sum of the per-CPU counts and of the per-name counts (a forged total,
 * its checksum mended, is refused rather than printed beside rows that
 * say otherwise); every syscall a thread or a worst latency names exists.
 */
static int totals_agree(const struct evt_stats *s)
{
	uint64_t by_cpu = 0, by_name = 0;
	uint32_t i, j;

	for (i = 0; i < s->nr_cpus; i++)
		if (__builtin_add_overflow(by_cpu, s->cpus[i].events, &by_cpu))
			return 0;
	for (i = 0; i < s->nr_ev; i++)
		if (__builtin_add_overflow(by_name, s->ev[i].count, &by_name))
			return 0;
	for (i = 0; i < s->nr_threads; i++)
		for (j = 0; j < s->threads[i].ntsys; j++)
			if (s->threads[i].tsys[j].sys >= s->nr_sys)
				return 0;
	for (i = 0; i < s->worst[EVT_WORST_SYSCALL].n; i++)
		if (s->worst[EVT_WORST_SYSCALL].v[i].what < 0 ||
		    (uint32_t)s->worst[EVT_WORST_SYSCALL].v[i].what >= s->nr_sys)
			return 0;
	return by_cpu == s->events && by_name == s->events;
}

static int load_into(struct evt_stats *s, struct evt_rbuf *r)
{
	uint32_t magic, version, n, i, prev_vec;

	if (evt_get_u32(r, &magic) || magic != STATS_MAGIC || evt_get_u32(r, &version) ||
	    version != STATS_VERSION || evt_get_u64(r, &s->events) || evt_get_u64(r, &s->first_ts) ||
	    evt_get_u64(r, &s->last_ts) || s->first_ts > s->last_ts)
		return -1;
	/* Each count is checked against the bytes left (evt_get_count) before anything is made. */
	if (evt_get_count(r, &n, 12, EVT_CATALOGUE_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		char *name;
		long k;

		if (evt_get_str(r, &name, NAME_MAX_LEN))
			return -1;
		k = evt_stats_find_named(s->ev, sizeof(*s->ev), s->nr_ev, name) >= 0 ? -1 :
		    evt_stats_event_slot(s, name);
		free(name);
		if (k < 0 || evt_get_u64(r, &s->ev[k].count))
			return -1;
	}
	if (evt_get_count(r, &n, 56, EVT_MAX_CPUS) || (n && !evt_stats_get_cpu(s, n - 1)))
		return -1;
	for (i = 0; i < n; i++) {
		struct evt_stats_cpu *c = &s->cpus[i];

		if (evt_get_u64(r, &c->events) || evt_get_u64(r, &c->busy_ns) || evt_get_u64(r, &c->idle_ns) ||
		    evt_get_u64(r, &c->irq_ns) || evt_get_u64(r, &c->softirq_ns) || evt_get_u64(r, &c->lossy_ns) ||
		    evt_get_u64(r, &c->task_ns))
			return -1;
	}
	if (evt_get_count(r, &n, 4 + 8 + 16 + 8 + 16 + 4 + 40 + 28 + 4, UINT32_MAX - 1))
		return -1;
	for (i = 0; i < n; i++)
		if (get_thread(s, r))
			return -1;
	if (evt_get_count(r, &n, 4 + 16 + 40 + 1 + 28 + 12, EVT_CATALOGUE_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		struct evt_stats_syscall *q;
		char *name;
		long k;

		if (evt_get_str(r, &name, NAME_MAX_LEN))
			return -1;
		k = evt_stats_find_named(s->sys, sizeof(*s->sys), s->nr_sys, name) >= 0 ? -1 :
		    evt_stats_sys_slot(s, name);
		free(name);
		if (k < 0)
			return -1;
		q = &s->sys[k];
		if (evt_get_u64(r, &q->count) || evt_get_u64(r, &q->errors) || get_lat(r, &q->lat) ||
		    get_hist(r, q->hist) || get_pct(r, &q->pct, &q->lat) || get_rets(r, &q->rets))
			return -1;
	}
	if (evt_get_u64(r, &s->sys_unmatched))
		return -1;
	if (evt_get_count(r, &n, 4 + 4 + 8 + 40 + 1 + 28, UINT32_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		struct evt_stats_irq *q;
		char *name;
		int32_t irq;
		long k;

		if (evt_get_s32(r, &irq) || evt_stats_irq(s, irq) || (k = evt_stats_irq_slot(s, irq)) < 0)
			return -1;
		q = &s->irqs[k];
		if (evt_get_str(r, &name, sizeof(q->name) - 1))
			return -1;
		strcpy(q->name, name);
		free(name);
		if (evt_get_u64(r, &q->count) || get_lat(r, &q->dur) || get_hist(r, q->hist) ||
		    get_pct(r, &q->pct, &q->dur))
			return -1;
	}
	if (evt_get_count(r, &n, 4 + 16 + 40 + 1 + 28, EVT_STATS_SOFTIRQS))
		return -1;
	for (i = 0, prev_vec = 0; i < n; i++) {
		struct evt_stats_softirq *q;
		uint32_t vec;

		/* Vectors in order, each once. */
		if (evt_get_u32(r, &vec) || vec >= EVT_STATS_SOFTIRQS || (i && vec <= prev_vec))
			return -1;
		prev_vec = vec;
		q = &s->softirq[vec];
		if (evt_get_u64(r, &q->count) || evt_get_u64(r, &q->raises) || get_lat(r, &q->dur) ||
		    get_hist(r, q->hist) || get_pct(r, &q->pct, &q->dur))
			return -1;
	}
	if (get_lat(r, &s->sched_lat) || get_hist(r, s->sched_hist) || get_pct(r, &s->sched_pct, &s->sched_lat))
		return -1;
	for (i = 0; i < EVT_WORST_KINDS; i++)
		if (get_worst(r, &s->worst[i]))
			return -1;
	if (evt_get_count(r, &n, 28, UINT32_MAX))
		return -1;
	if (n && !(s->streams = calloc(n, sizeof(*s->streams))))
		return -1;
	s->nr_streams = n;
	for (i = 0; i < n; i++) {
		struct evt_stats_stream *q = &s->streams[i];

		if (evt_get_u32(r, &q->id) || evt_get_u32(r, &q->cpu) || evt_get_u32(r, &q->channel) ||
		    evt_get_u64(r, &q->discarded) || evt_get_u64(r, &q->lost_packets))
			return -1;
	}
	if (evt_get_count(r, &n, 44, UINT32_MAX))
		return -1;
	if (n && !(s->losses = calloc(n, sizeof(*s->losses))))
		return -1;
	s->nr_losses = n;
	for (i = 0; i < n; i++) {
		struct evt_stats_loss *q = &s->losses[i];

		if (evt_get_u64(r, &q->ts) || evt_get_u64(r, &q->from) || evt_get_u64(r, &q->to) ||
		    q->from > q->to || evt_get_u32(r, &q->stream) || q->stream >= s->nr_streams ||
		    evt_get_u64(r, &q->discarded) || evt_get_u64(r, &q->lost_packets))
			return -1;
	}
	return r->off == r->n && totals_agree(s) ? 0 : -1;
}

int evt_stats_load(void *res, const uint8_t *p, size_t n)
{
	struct evt_stats *s = res, *tmp = evt_stats_new();
	struct evt_stats_priv *keep;
	struct evt_rbuf r = { p, n, 0 };

	if (!tmp)
		return -1;
	if (load_into(tmp, &r)) {
		evt_stats_free(tmp);
		return -1;
	}
	/* Swap: @res gets the loaded contents, tmp takes the old ones away. */
	keep = s->priv;
	evt_stats_clear(s);
	*s = *tmp;
	tmp->priv = keep;
	memset(tmp, 0, offsetof(struct evt_stats, priv));
	evt_stats_free(tmp);
	return 0;
}
