// SPDX-License-Identifier: GPL-2.0
/*
 * The "stats" computation: events per name, per CPU and per thread;
 * syscalls (entry -> exit of one thread: count, errors, latency and its
 * log2 histogram), interrupts and softirqs (entry -> exit on one CPU),
 * scheduling latency (wakeup -> the switch that runs the thread), and the
 * trace's losses (per stream, and over time from the packet index).
 *
 * A CPU's thread is the one the last sched_switch there ran: events
 * before a CPU's first switch count under tid -1 ("unknown"), unless the
 * caller seeded it (a window's start).
 */
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "evt_comps.h"
#include "evt_comp_util.h"

#define STATS_MAGIC 0x54535445u		/* "ESTS" */
#define STATS_VERSION 1
#define NAME_MAX_LEN 4096		/* of a saved event or syscall name */

struct evt_stats_priv {
	struct evt_kinds kinds;
	/* Per catalogue index: its slot in ev[] and sys[], -1: not looked up. */
	const struct evt_catalogue *map_cat;
	int32_t *ev_slot, *sys_slot;
	uint32_t nmap;
	struct evt_tidmap tmap;
	const struct evt_trace *tr;	/* the last event's reader (for the losses) */
	struct evt_stats_observer obs;
};

unsigned int evt_stats_hist_bucket(uint64_t ns)
{
	return evt_hist_bucket(ns);
}

static void lat_init(struct evt_lat *l)
{
	memset(l, 0, sizeof(*l));
	l->min_ns = UINT64_MAX;
}

static void lat_add(struct evt_lat *l, uint64_t ns)
{
	l->count++;
	l->total_ns += ns;
	if (ns < l->min_ns)
		l->min_ns = ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
}

struct evt_stats *evt_stats_new(void)
{
	struct evt_stats *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (!s)
		return NULL;
	s->priv = calloc(1, sizeof(*s->priv));
	if (!s->priv) {
		free(s);
		return NULL;
	}
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++)
		lat_init(&s->softirq[i].dur);
	lat_init(&s->sched_lat);
	return s;
}

/* Everything but the private part's allocation, which is kept (zeroed). */
static void stats_clear(struct evt_stats *s)
{
	struct evt_stats_priv *p = s->priv;
	uint32_t i;

	for (i = 0; i < s->nr_ev; i++)
		free(s->ev[i].name);
	free(s->ev);
	for (i = 0; i < s->nr_sys; i++)
		free(s->sys[i].name);
	free(s->sys);
	free(s->cpus);
	free(s->threads);
	free(s->irqs);
	free(s->streams);
	free(s->losses);
	evt_kinds_free(&p->kinds);
	free(p->ev_slot);
	free(p->sys_slot);
	evt_tidmap_free(&p->tmap);
	memset(p, 0, sizeof(*p));
	memset(s, 0, sizeof(*s));
	s->priv = p;
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++)
		lat_init(&s->softirq[i].dur);
	lat_init(&s->sched_lat);
}

void evt_stats_free(struct evt_stats *s)
{
	if (!s)
		return;
	stats_clear(s);
	free(s->priv);
	free(s);
}

/* ---- Building ---- */

static struct evt_stats_cpu *get_cpu(struct evt_stats *s, unsigned int cpu)
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
		}
		s->nr_cpus = cpu + 1;
	}
	return &s->cpus[cpu];
}

/* The index of @tid's record (made when new), or -1 (no memory). */
static long thread_idx(struct evt_stats *s, int32_t tid)
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
	return s->nr_threads++;
}

static long find_named(const void *arr, size_t elem, uint32_t n, const char *name)
{
	uint32_t i;

	/* name is each element's first member */
	for (i = 0; i < n; i++)
		if (!strcmp(*(char *const *)((const char *)arr + (size_t)i * elem), name))
			return i;
	return -1;
}

static long event_slot(struct evt_stats *s, const char *name)
{
	long i = find_named(s->ev, sizeof(*s->ev), s->nr_ev, name);
	char *dup;

	if (i >= 0)
		return i;
	if (evt_grow(&s->ev, &s->cap_ev, (size_t)s->nr_ev + 1, sizeof(*s->ev)) || !(dup = strdup(name)))
		return -1;
	s->ev[s->nr_ev].name = dup;
	s->ev[s->nr_ev].count = 0;
	return s->nr_ev++;
}

static long sys_slot(struct evt_stats *s, const char *name)
{
	long i = find_named(s->sys, sizeof(*s->sys), s->nr_sys, name);
	struct evt_stats_syscall *c;
	char *dup;

	if (i >= 0)
		return i;
	if (evt_grow(&s->sys, &s->cap_sys, (size_t)s->nr_sys + 1, sizeof(*s->sys)) || !(dup = strdup(name)))
		return -1;
	c = &s->sys[s->nr_sys];
	memset(c, 0, sizeof(*c));
	c->name = dup;
	lat_init(&c->lat);
	return s->nr_sys++;
}

/* The slots of @ev's event, the per-index maps (re)made for a new catalogue. 0 or -1. */
static int resolve(struct evt_stats *s, const struct evt_engine_event *ev, int is_sys, int32_t *evs,
		   int32_t *sys)
{
	struct evt_stats_priv *p = s->priv;
	const struct evt_catalogue *cat = ev->tr->md.cat;
	long i;

	if (p->map_cat != cat) {
		size_t n = cat->nr_events ? cat->nr_events : 1;
		int32_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));

		if (!a || !b) {
			free(a);
			free(b);
			return -1;
		}
		memset(a, 0xff, n * sizeof(*a));
		memset(b, 0xff, n * sizeof(*b));
		free(p->ev_slot);
		free(p->sys_slot);
		p->ev_slot = a;
		p->sys_slot = b;
		p->nmap = cat->nr_events;
		p->map_cat = cat;
	}
	if (ev->idx >= p->nmap)
		return -1;
	if (p->ev_slot[ev->idx] < 0) {
		if ((i = event_slot(s, ev->desc->name)) < 0)
			return -1;
		p->ev_slot[ev->idx] = (int32_t)i;
	}
	if (is_sys && p->sys_slot[ev->idx] < 0) {
		if ((i = sys_slot(s, ev->desc->name)) < 0)
			return -1;
		p->sys_slot[ev->idx] = (int32_t)i;
	}
	*evs = p->ev_slot[ev->idx];
	*sys = p->sys_slot[ev->idx];
	return 0;
}

static long irq_slot(struct evt_stats *s, int32_t irq)
{
	struct evt_stats_irq *q;
	uint32_t i;

	for (i = 0; i < s->nr_irqs; i++)
		if (s->irqs[i].irq == irq)
			return i;
	if (evt_grow(&s->irqs, &s->cap_irqs, (size_t)s->nr_irqs + 1, sizeof(*s->irqs)))
		return -1;
	q = &s->irqs[s->nr_irqs];
	memset(q, 0, sizeof(*q));
	q->irq = irq;
	lat_init(&q->dur);
	return s->nr_irqs++;
}

static void on_irq(struct evt_stats *s, struct evt_stats_cpu *c, const struct evt_engine_event *ev,
		   const struct evt_kind_entry *ke, int entry)
{
	const int32_t irq = (int32_t)evt_kf_int(ev, ke, EVT_KF_IRQ);
	long i = irq_slot(s, irq);

	if (i < 0)
		return;
	if (entry) {
		struct evt_stats_irq *q = &s->irqs[i];

		q->count++;
		/* The handler's name as its latest entry gives it. */
		evt_kf_str(ev, ke, EVT_KF_IRQ_NAME, q->name, sizeof(q->name));
		if (c->irq_depth < EVT_STATS_NEST) {
			c->irq[c->irq_depth].i = (uint32_t)i;
			c->irq[c->irq_depth].ts = ev->ts;
		}
		c->irq_depth++;
		return;
	}
	/* An exit whose entry came before the window (depth 0) has no duration. */
	if (!c->irq_depth)
		return;
	c->irq_depth--;
	if (c->irq_depth < EVT_STATS_NEST && c->irq[c->irq_depth].i == (uint32_t)i &&
	    ev->ts >= c->irq[c->irq_depth].ts)
		lat_add(&s->irqs[i].dur, ev->ts - c->irq[c->irq_depth].ts);
	else
		c->irq_depth = 0;	/* another irq's exit: entries were lost, start over */
}

static void on_softirq(struct evt_stats *s, struct evt_stats_cpu *c, const struct evt_engine_event *ev,
		       const struct evt_kind_entry *ke, enum evt_kind kind)
{
	const uint64_t vec = (uint64_t)evt_kf_int(ev, ke, EVT_KF_VEC);
	struct evt_stats_softirq *q;

	if (vec >= EVT_STATS_SOFTIRQS)
		return;
	q = &s->softirq[vec];
	if (kind == EVT_K_SOFTIRQ_RAISE) {
		q->raises++;
	} else if (kind == EVT_K_SOFTIRQ_ENTRY) {
		q->count++;
		if (c->soft_depth < EVT_STATS_NEST) {
			c->soft[c->soft_depth].i = (uint32_t)vec;
			c->soft[c->soft_depth].ts = ev->ts;
		}
		c->soft_depth++;
	} else if (c->soft_depth) {
		c->soft_depth--;
		if (c->soft_depth < EVT_STATS_NEST && c->soft[c->soft_depth].i == vec &&
		    ev->ts >= c->soft[c->soft_depth].ts)
			lat_add(&q->dur, ev->ts - c->soft[c->soft_depth].ts);
		else
			c->soft_depth = 0;
	}
}

static void on_switch(struct evt_stats *s, struct evt_stats_cpu *c, const struct evt_engine_event *ev,
		      const struct evt_kind_entry *ke)
{
	const int32_t prev = (int32_t)evt_kf_int(ev, ke, EVT_KF_PREV_TID);
	const int32_t next = (int32_t)evt_kf_int(ev, ke, EVT_KF_NEXT_TID);
	struct evt_stats_thread *t;
	long i;

	if (prev < 0 || next < 0)
		return;
	if (c->cur >= 0)
		s->threads[c->cur_th].running = 0;
	if ((i = evt_tidmap_get(&s->priv->tmap, prev)) >= 0)
		s->threads[i].running = 0;
	if ((i = thread_idx(s, next)) < 0) {
		c->cur = -1;
		return;
	}
	t = &s->threads[i];
	if (t->wakeup_pending && next) {
		const uint64_t lat = ev->ts >= t->wakeup_ts ? ev->ts - t->wakeup_ts : 0;

		lat_add(&s->sched_lat, lat);
		s->sched_hist[evt_hist_bucket(lat)]++;
		if (s->priv->obs.sched_latency)
			s->priv->obs.sched_latency(s->priv->obs.data, ev, next, t->wakeup_ts);
	}
	t->wakeup_pending = 0;
	t->running = 1;
	c->cur = next;
	c->cur_th = (uint32_t)i;
	/* A switch is never inside an interrupt: ones left open lost their exits. */
	c->irq_depth = c->soft_depth = 0;
}

static void on_wakeup(struct evt_stats *s, const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	const int32_t tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_W_TID);
	struct evt_stats_thread *t;
	long i;

	if (tid <= 0 || (i = thread_idx(s, tid)) < 0)
		return;
	t = &s->threads[i];
	/* A running thread did not wait; a second wakeup adds no wait to the first. */
	if (t->running || t->wakeup_pending)
		return;
	t->wakeup_pending = 1;
	t->wakeup_ts = ev->ts;
}

int evt_stats_event_hook(void *data, void *call_data)
{
	struct evt_stats *s = data;
	const struct evt_engine_event *ev = call_data;
	const struct evt_kind_entry *ke;
	struct evt_stats_cpu *c;
	struct evt_stats_thread *t;
	int32_t evs, sys;
	long ti;

	if (!s->events)
		s->first_ts = ev->ts;
	s->events++;
	s->last_ts = ev->ts;
	s->priv->tr = ev->tr;
	ke = evt_kind_of(&s->priv->kinds, ev);
	if (!ke || resolve(s, ev, ke->kind == EVT_K_SYS_ENTRY, &evs, &sys))
		return 0;
	s->ev[evs].count++;
	c = get_cpu(s, ev->cpu);
	if (!c)
		return 0;
	c->events++;
	ti = c->cur >= 0 ? (long)c->cur_th : thread_idx(s, -1);
	if (ti < 0)
		return 0;
	t = &s->threads[ti];
	t->events++;
	switch (ke->kind) {
	case EVT_K_SYS_ENTRY:
		s->sys[sys].count++;
		if (c->cur >= 0) {
			t->sys = sys;
			t->sys_ts = ev->ts;
		}
		break;
	case EVT_K_SYS_EXIT:
		if (c->cur >= 0 && t->sys >= 0 && ev->ts >= t->sys_ts) {
			struct evt_stats_syscall *q = &s->sys[t->sys];
			const uint64_t lat = ev->ts - t->sys_ts;
			const int64_t ret = evt_kf_int(ev, ke, EVT_KF_RET);

			lat_add(&q->lat, lat);
			q->hist[evt_hist_bucket(lat)]++;
			if (ret < 0)
				q->errors++;
			if (s->priv->obs.syscall)
				s->priv->obs.syscall(s->priv->obs.data, ev, t->tid, q->name, t->sys_ts, ret);
		} else {
			s->sys_unmatched++;
		}
		t->sys = -1;
		break;
	case EVT_K_IRQ_ENTRY:
	case EVT_K_IRQ_EXIT:
		on_irq(s, c, ev, ke, ke->kind == EVT_K_IRQ_ENTRY);
		break;
	case EVT_K_SOFTIRQ_ENTRY:
	case EVT_K_SOFTIRQ_EXIT:
	case EVT_K_SOFTIRQ_RAISE:
		on_softirq(s, c, ev, ke, (enum evt_kind)ke->kind);
		break;
	case EVT_K_SWITCH:
		on_switch(s, c, ev, ke);
		break;
	case EVT_K_WAKEUP:
		/* sched_wakeup and _new; sched_waking is the request, not the wakeup. */
		on_wakeup(s, ev, ke);
		break;
	default:
		break;
	}
	return 0;
}

int evt_stats_seed_cpu(struct evt_stats *s, unsigned int cpu, int32_t tid)
{
	struct evt_stats_cpu *c = get_cpu(s, cpu);
	long i;

	if (!c || tid < 0 || (i = thread_idx(s, tid)) < 0)
		return -1;
	c->cur = tid;
	c->cur_th = (uint32_t)i;
	s->threads[i].running = 1;
	return 0;
}

int evt_stats_seed_syscall(struct evt_stats *s, int32_t tid, const char *name, uint64_t entry_ts)
{
	long i = tid >= 0 ? thread_idx(s, tid) : -1, k;

	if (i < 0 || (k = sys_slot(s, name)) < 0)
		return -1;
	s->threads[i].sys = (int32_t)k;
	s->threads[i].sys_ts = entry_ts;
	return 0;
}

int evt_stats_seed_wakeup(struct evt_stats *s, int32_t tid, uint64_t ts)
{
	long i = tid > 0 ? thread_idx(s, tid) : -1;

	if (i < 0)
		return -1;
	s->threads[i].wakeup_pending = 1;
	s->threads[i].wakeup_ts = ts;
	return 0;
}

void evt_stats_set_observer(struct evt_stats *s, const struct evt_stats_observer *o)
{
	if (o)
		s->priv->obs = *o;
	else
		memset(&s->priv->obs, 0, sizeof(s->priv->obs));
}

/* ---- Losses ---- */

int evt_stats_read_losses(struct evt_stats *s, const struct evt_trace *tr)
{
	struct evt_stats_stream *streams;
	struct evt_stats_loss *losses = NULL;
	uint32_t nl = 0, cap = 0, i, k;

	streams = calloc(tr->nr_streams ? tr->nr_streams : 1, sizeof(*streams));
	if (!streams)
		return -1;
	for (i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *st = &tr->streams[i];
		uint64_t discarded = 0, seq = 0;

		streams[i].id = st->id;
		streams[i].cpu = st->cpu;
		streams[i].channel = st->channel;
		streams[i].discarded = st->discarded;
		streams[i].lost_packets = st->seq_gaps;
		/* From the packet index's counters: no page of the stream is read. */
		for (k = 0; k < st->npk; k++) {
			const struct evt_pkt *pk = &st->pk[k];
			uint64_t dd, dl;

			/* The first packet's running total counts from the stream's start; its seq does not. */
			dd = pk->discarded > discarded ? pk->discarded - discarded : 0;
			dl = k && pk->seq > seq + 1 ? pk->seq - seq - 1 : 0;
			discarded = pk->discarded;
			seq = pk->seq;
			if (!dd && !dl)
				continue;
			if (evt_grow(&losses, &cap, (size_t)nl + 1, sizeof(*losses))) {
				free(streams);
				free(losses);
				return -1;
			}
			losses[nl].ts = pk->begin;
			losses[nl].stream = i;
			losses[nl].discarded = dd;
			losses[nl].lost_packets = dl;
			nl++;
		}
	}
	free(s->streams);
	free(s->losses);
	s->streams = streams;
	s->nr_streams = tr->nr_streams;
	s->losses = losses;
	s->nr_losses = nl;
	return 0;
}

/* ---- Lookups ---- */

const struct evt_stats_event *evt_stats_event(const struct evt_stats *s, const char *name)
{
	long i = find_named(s->ev, sizeof(*s->ev), s->nr_ev, name);

	return i < 0 ? NULL : &s->ev[i];
}

const struct evt_stats_syscall *evt_stats_syscall(const struct evt_stats *s, const char *name)
{
	long i = find_named(s->sys, sizeof(*s->sys), s->nr_sys, name);

	return i < 0 ? NULL : &s->sys[i];
}

const struct evt_stats_thread *evt_stats_thread(const struct evt_stats *s, int32_t tid)
{
	long i = evt_tidmap_get(&s->priv->tmap, tid);

	return i < 0 ? NULL : &s->threads[i];
}

const struct evt_stats_irq *evt_stats_irq(const struct evt_stats *s, int32_t irq)
{
	uint32_t i;

	for (i = 0; i < s->nr_irqs; i++)
		if (s->irqs[i].irq == irq)
			return &s->irqs[i];
	return NULL;
}

/* ---- The computation ---- */

static void *stats_create(struct evt_etrace *t)
{
	(void)t;
	return evt_stats_new();
}

static void stats_destroy(void *r)
{
	evt_stats_free(r);
}

static int stats_add(struct evt_ctx *ctx, void *r)
{
	return evt_hooks_add(&ctx->event, evt_stats_event_hook, r);
}

static void stats_remove(struct evt_ctx *ctx, void *r)
{
	evt_hooks_remove(&ctx->event, evt_stats_event_hook, r);
}

static void stats_finish(void *r, const struct evt_where *w)
{
	struct evt_stats *s = r;
	const struct evt_trace *tr = s->priv->tr;

	/* The trace's reader, else the one its events came from (a caller's own). */
	if (w && w->trace && evt_etrace_reader(w->trace))
		tr = evt_etrace_reader(w->trace);
	/* No memory: the losses stay unknown (empty), the counts are whole. */
	if (tr)
		evt_stats_read_losses(s, tr);
}

static int put_lat(struct evt_buf *b, const struct evt_lat *l)
{
	return evt_put_u64(b, l->count) | evt_put_u64(b, l->total_ns) | evt_put_u64(b, l->min_ns) |
	       evt_put_u64(b, l->max_ns);
}

static int get_lat(struct evt_rbuf *r, struct evt_lat *l)
{
	if (evt_get_u64(r, &l->count) || evt_get_u64(r, &l->total_ns) || evt_get_u64(r, &l->min_ns) ||
	    evt_get_u64(r, &l->max_ns))
		return -1;
	/* An empty one has min UINT64_MAX and max 0; a full one min <= max. */
	return l->count ? (l->min_ns <= l->max_ns ? 0 : -1) :
			  (l->min_ns == UINT64_MAX && !l->max_ns && !l->total_ns ? 0 : -1);
}

static int put_hist(struct evt_buf *b, const uint64_t *h)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < EVT_HIST_BUCKETS; i++)
		err |= evt_put_u64(b, h[i]);
	return err;
}

static int get_hist(struct evt_rbuf *r, uint64_t *h)
{
	unsigned int i;

	for (i = 0; i < EVT_HIST_BUCKETS; i++)
		if (evt_get_u64(r, &h[i]))
			return -1;
	return 0;
}

/*
 * The saved form (little-endian): magic, version, events, first and last
 * times; the event names and counts; the CPUs' counts; the threads (tid,
 * events); the syscalls (name, count, errors, latency, histogram) and the
 * unmatched exits; the irqs (irq, name, count, duration); the softirqs
 * (count, raises, duration); the scheduling latency and its histogram; the
 * streams' losses and the losses over time.
 */
static int stats_save(const void *r, struct evt_buf *b)
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
	for (i = 0; i < s->nr_cpus; i++)
		err |= evt_put_u64(b, s->cpus[i].events);
	err |= evt_put_u32(b, s->nr_threads);
	for (i = 0; i < s->nr_threads; i++)
		err |= evt_put_s32(b, s->threads[i].tid) | evt_put_u64(b, s->threads[i].events);
	err |= evt_put_u32(b, s->nr_sys);
	for (i = 0; i < s->nr_sys; i++) {
		const struct evt_stats_syscall *q = &s->sys[i];

		err |= evt_put_str(b, q->name, strlen(q->name)) | evt_put_u64(b, q->count) |
		       evt_put_u64(b, q->errors) | put_lat(b, &q->lat) | put_hist(b, q->hist);
	}
	err |= evt_put_u64(b, s->sys_unmatched);
	err |= evt_put_u32(b, s->nr_irqs);
	for (i = 0; i < s->nr_irqs; i++) {
		const struct evt_stats_irq *q = &s->irqs[i];

		err |= evt_put_s32(b, q->irq) | evt_put_str(b, q->name, strlen(q->name)) |
		       evt_put_u64(b, q->count) | put_lat(b, &q->dur);
	}
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++)
		err |= evt_put_u64(b, s->softirq[i].count) | evt_put_u64(b, s->softirq[i].raises) |
		       put_lat(b, &s->softirq[i].dur);
	err |= put_lat(b, &s->sched_lat) | put_hist(b, s->sched_hist);
	err |= evt_put_u32(b, s->nr_streams);
	for (i = 0; i < s->nr_streams; i++) {
		const struct evt_stats_stream *q = &s->streams[i];

		err |= evt_put_u32(b, q->id) | evt_put_u32(b, q->cpu) | evt_put_u32(b, q->channel) |
		       evt_put_u64(b, q->discarded) | evt_put_u64(b, q->lost_packets);
	}
	err |= evt_put_u32(b, s->nr_losses);
	for (i = 0; i < s->nr_losses; i++) {
		const struct evt_stats_loss *q = &s->losses[i];

		err |= evt_put_u64(b, q->ts) | evt_put_u32(b, q->stream) | evt_put_u64(b, q->discarded) |
		       evt_put_u64(b, q->lost_packets);
	}
	return err || b->oom ? -1 : 0;
}

/*
 * A saved result is cross-checked where it can be: the event count is the
 * sum of the per-CPU counts and of the per-name counts (a forged total,
 * its checksum mended, is refused rather than printed beside rows that
 * say otherwise).
 */
static int totals_agree(const struct evt_stats *s)
{
	uint64_t by_cpu = 0, by_name = 0;
	uint32_t i;

	for (i = 0; i < s->nr_cpus; i++)
		if (__builtin_add_overflow(by_cpu, s->cpus[i].events, &by_cpu))
			return 0;
	for (i = 0; i < s->nr_ev; i++)
		if (__builtin_add_overflow(by_name, s->ev[i].count, &by_name))
			return 0;
	return by_cpu == s->events && by_name == s->events;
}

static int load_into(struct evt_stats *s, struct evt_rbuf *r)
{
	uint32_t magic, version, n, i;

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
		k = find_named(s->ev, sizeof(*s->ev), s->nr_ev, name) >= 0 ? -1 : event_slot(s, name);
		free(name);
		if (k < 0 || evt_get_u64(r, &s->ev[k].count))
			return -1;
	}
	if (evt_get_count(r, &n, 8, EVT_MAX_CPUS) || (n && !get_cpu(s, n - 1)))
		return -1;
	for (i = 0; i < n; i++)
		if (evt_get_u64(r, &s->cpus[i].events))
			return -1;
	if (evt_get_count(r, &n, 12, UINT32_MAX - 1))
		return -1;
	for (i = 0; i < n; i++) {
		int32_t tid;
		long k;

		if (evt_get_s32(r, &tid) || tid < -1 || evt_tidmap_get(&s->priv->tmap, tid) >= 0 ||
		    (k = thread_idx(s, tid)) < 0 || evt_get_u64(r, &s->threads[k].events))
			return -1;
	}
	if (evt_get_count(r, &n, 4 + 16 + 32 + 8 * EVT_HIST_BUCKETS, EVT_CATALOGUE_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		struct evt_stats_syscall *q;
		char *name;
		long k;

		if (evt_get_str(r, &name, NAME_MAX_LEN))
			return -1;
		k = find_named(s->sys, sizeof(*s->sys), s->nr_sys, name) >= 0 ? -1 : sys_slot(s, name);
		free(name);
		if (k < 0)
			return -1;
		q = &s->sys[k];
		if (evt_get_u64(r, &q->count) || evt_get_u64(r, &q->errors) || get_lat(r, &q->lat) ||
		    get_hist(r, q->hist))
			return -1;
	}
	if (evt_get_u64(r, &s->sys_unmatched))
		return -1;
	if (evt_get_count(r, &n, 4 + 4 + 8 + 32, UINT32_MAX))
		return -1;
	for (i = 0; i < n; i++) {
		struct evt_stats_irq *q;
		char *name;
		int32_t irq;
		long k;

		if (evt_get_s32(r, &irq) || evt_stats_irq(s, irq) || (k = irq_slot(s, irq)) < 0)
			return -1;
		q = &s->irqs[k];
		if (evt_get_str(r, &name, sizeof(q->name) - 1))
			return -1;
		strcpy(q->name, name);
		free(name);
		if (evt_get_u64(r, &q->count) || get_lat(r, &q->dur))
			return -1;
	}
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++)
		if (evt_get_u64(r, &s->softirq[i].count) || evt_get_u64(r, &s->softirq[i].raises) ||
		    get_lat(r, &s->softirq[i].dur))
			return -1;
	if (get_lat(r, &s->sched_lat) || get_hist(r, s->sched_hist))
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
	if (evt_get_count(r, &n, 28, UINT32_MAX))
		return -1;
	if (n && !(s->losses = calloc(n, sizeof(*s->losses))))
		return -1;
	s->nr_losses = n;
	for (i = 0; i < n; i++) {
		struct evt_stats_loss *q = &s->losses[i];

		if (evt_get_u64(r, &q->ts) || evt_get_u32(r, &q->stream) || q->stream >= s->nr_streams ||
		    evt_get_u64(r, &q->discarded) || evt_get_u64(r, &q->lost_packets))
			return -1;
	}
	return r->off == r->n && totals_agree(s) ? 0 : -1;
}

static int stats_load(void *res, const uint8_t *p, size_t n)
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
	stats_clear(s);
	*s = *tmp;
	tmp->priv = keep;
	memset(tmp, 0, offsetof(struct evt_stats, priv));
	evt_stats_free(tmp);
	return 0;
}

const struct evt_computation evt_comp_stats = {
	.name = "stats",
	.version = STATS_VERSION,
	.create = stats_create,
	.destroy = stats_destroy,
	.hook_adder = stats_add,
	.hook_remover = stats_remove,
	.finish = stats_finish,
	.save = stats_save,
	.load = stats_load,
};
