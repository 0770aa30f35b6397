// SPDX-License-Identifier: GPL-2.0
/*
 * The "stats" computation: events per name, per CPU and per thread;
 * syscalls (entry -> exit of one thread: count, return values, latency,
 * its log2 histogram and percentiles), in all and per thread; interrupts
 * and softirqs (entry -> exit on one CPU); scheduling latency (woken ->
 * the switch that runs the thread), in all and per thread with its
 * wakers; the worst latencies of each kind; where each CPU's time went;
 * the trace's losses (per stream, and over time from the packet index).
 *
 * A CPU's thread is the one the last sched_switch there ran: events
 * before a CPU's first switch count under tid -1 ("unknown"), unless the
 * caller seeded it (a window's start).
 *
 * A latency, a duration or a CPU's slice whose interval spans a loss
 * (evt_losses.h) is no measurement of the machine: it is counted apart
 * (spans_loss, lossy_ns), not in the figures.
 *
 * The records, the lookups and the saved form: evt_comp_stats_rec.c.
 */
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "engine/evt_comp_stats_int.h"

unsigned int evt_stats_hist_bucket(uint64_t ns)
{
	return evt_hist_bucket(ns);
}

static const char *const worst_names[EVT_WORST_KINDS] = { "syscall", "irq", "softirq", "sched" };

const char *evt_worst_kind_name(enum evt_worst_kind k)
{
	return (unsigned int)k < EVT_WORST_KINDS ? worst_names[k] : "?";
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

static void prio_seen(struct evt_stats_thread *t, int64_t prio)
{
	uint32_t i;

	if (prio < 0 || prio > INT32_MAX)
		return;
	t->prio = (int32_t)prio;
	for (i = 0; i < t->nprios; i++)
		if (t->prios[i] == t->prio)
			return;
	if (t->nprios < EVT_STATS_PRIOS)
		t->prios[t->nprios++] = t->prio;
}

/* ---- The worst latencies: a heap of the EVT_STATS_WORST worst while building ---- */

/* @a is worse than @b: longer; of two as long, the earlier (then by CPU, thread, what). */
static int worse(const struct evt_stats_worst *a, const struct evt_stats_worst *b)
{
	const uint64_t da = a->end - a->begin, db = b->end - b->begin;

	if (da != db)
		return da > db;
	if (a->begin != b->begin)
		return a->begin < b->begin;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu;
	if (a->tid != b->tid)
		return a->tid < b->tid;
	return a->what < b->what;
}

static void swap_worst(struct evt_stats_worst *a, struct evt_stats_worst *b)
{
	struct evt_stats_worst t = *a;

	*a = *b;
	*b = t;
}

/* The root is the least bad one kept. */
static void heap_down(struct evt_stats_worstlist *l, uint32_t i)
{
	for (;;) {
		uint32_t k = i, c;

		for (c = 2 * i + 1; c <= 2 * i + 2 && c < l->n; c++)
			if (worse(&l->v[k], &l->v[c]))
				k = c;
		if (k == i)
			return;
		swap_worst(&l->v[i], &l->v[k]);
		i = k;
	}
}

static void worst_add(struct evt_stats_worstlist *l, const struct evt_stats_worst *w)
{
	uint32_t i;

	if (l->n < EVT_STATS_WORST) {
		i = l->n++;
		l->v[i] = *w;
		while (i && worse(&l->v[(i - 1) / 2], &l->v[i])) {
			swap_worst(&l->v[(i - 1) / 2], &l->v[i]);
			i = (i - 1) / 2;
		}
	} else if (worse(w, &l->v[0])) {
		l->v[0] = *w;
		heap_down(l, 0);
	}
}

static int by_worst(const void *a, const void *b)
{
	return worse(a, b) ? -1 : worse(b, a) ? 1 : 0;
}

/* ---- Building ---- */

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
		if ((i = evt_stats_event_slot(s, ev->desc->name)) < 0)
			return -1;
		p->ev_slot[ev->idx] = (int32_t)i;
	}
	if (is_sys && p->sys_slot[ev->idx] < 0) {
		if ((i = evt_stats_sys_slot(s, ev->desc->name)) < 0)
			return -1;
		p->sys_slot[ev->idx] = (int32_t)i;
	}
	*evs = p->ev_slot[ev->idx];
	*sys = p->sys_slot[ev->idx];
	return 0;
}

static int spans(const struct evt_stats *s, uint64_t a, uint64_t b)
{
	return evt_lossmap_spans(&s->priv->losses, a, b);
}

/* The thread record running on @c, or NULL. */
static struct evt_stats_thread *cur_th(struct evt_stats *s, const struct evt_stats_cpu *c)
{
	return c->cur >= 0 ? &s->threads[c->cur_th] : NULL;
}

/* A worst record's thread: @t (may be NULL: unknown). */
static void worst_who(struct evt_stats_worst *w, const struct evt_stats_thread *t)
{
	w->tid = t ? t->tid : -1;
	memcpy(w->comm, t ? t->comm : "", t ? sizeof(w->comm) : 1);
	w->waker = -1;
	w->waker_comm[0] = '\0';
	w->prio = -1;
	w->ret = 0;
}

/*
 * Where a CPU's time goes: the time since the last change is charged to
 * what ran then (the task, a softirq, a hard IRQ), before any change;
 * what of it lies in a loss window is lossy.
 */
static void charge(struct evt_stats *s, struct evt_stats_cpu *c, uint64_t ts)
{
	uint64_t d, lossy;

	if (ts <= c->mode_since)
		return;
	lossy = evt_lossmap_overlap(&s->priv->losses, c->mode_since, ts);
	c->lossy_ns += lossy;
	d = ts - c->mode_since - lossy;
	if (c->irq_depth)
		c->irq_ns += d;
	else if (c->soft_depth)
		c->softirq_ns += d;
	else
		c->slice_task_ns += d;
	c->mode_since = ts;
}


/*
 * The CPU's slice ends at @ts: its task time to the thread that ran
 * (@owner: the CPU's thread, or before its first switch the switch's
 * prev; -1 unknown). Interrupts left open end with it.
 */
static void slice_end(struct evt_stats *s, struct evt_stats_cpu *c, int32_t owner, uint64_t ts, int in_use)
{
	charge(s, c, ts);
	if (owner > 0)
		c->busy_ns += c->slice_task_ns;
	else if (!owner)
		c->idle_ns += c->slice_task_ns;
	if (ts > c->since && in_use)
		c->task_ns += ts - c->since;
	c->slice_task_ns = 0;
	c->since = ts;
}

/*
 * A hard or soft IRQ handler that began at @b ends now (@ev): its duration
 * measured (@lat, @hist, @pct, the worst of @kind with @what), or counted
 * apart when it spans a loss.
 */
static void handler_done(struct evt_stats *s, struct evt_stats_cpu *c, const struct evt_engine_event *ev, uint64_t b,
			 struct evt_lat *lat, uint64_t *hist, struct evt_lathist *pct, enum evt_worst_kind kind,
			 int32_t what)
{
	struct evt_stats_worst w;

	if (spans(s, b, ev->ts)) {
		lat->spans_loss++;
		return;
	}
	lat_add(lat, ev->ts - b);
	hist[evt_hist_bucket(ev->ts - b)]++;
	evt_lathist_add(pct, ev->ts - b);
	worst_who(&w, cur_th(s, c));
	w.begin = b;
	w.end = ev->ts;
	w.cpu = ev->cpu;
	w.what = what;
	worst_add(&s->worst[kind], &w);
}

static void on_irq(struct evt_stats *s, struct evt_stats_cpu *c, const struct evt_engine_event *ev,
		   const struct evt_kind_entry *ke, int entry)
{
	const int32_t irq = (int32_t)evt_kf_int(ev, ke, EVT_KF_IRQ);
	long i = evt_stats_irq_slot(s, irq);

	charge(s, c, ev->ts);
	if (i < 0)
		return;
	if (entry) {
		struct evt_stats_irq *q = &s->irqs[i];

		q->count++;
		/* The handler's name as its latest entry gives it. */
		evt_kf_str(ev, ke, EVT_KF_IRQ_NAME, q->name, sizeof(q->name));
		/*
		 * Handlers run with interrupts off: one that begins while
		 * another is open means the open one's exit was lost.
		 */
		c->irq[0].i = (uint32_t)i;
		c->irq[0].ts = ev->ts;
		c->irq_depth = 1;
		return;
	}
	/* An exit whose entry came before the window (depth 0) has no duration. */
	if (!c->irq_depth)
		return;
	c->irq_depth--;
	if (c->irq_depth < EVT_STATS_NEST && c->irq[c->irq_depth].i == (uint32_t)i &&
	    ev->ts >= c->irq[c->irq_depth].ts) {
		struct evt_stats_irq *q = &s->irqs[i];

		handler_done(s, c, ev, c->irq[c->irq_depth].ts, &q->dur, q->hist, &q->pct, EVT_WORST_IRQ, irq);
	} else {
		c->irq_depth = 0;	/* another irq's exit: entries were lost, start over */
	}
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
		return;
	}
	charge(s, c, ev->ts);
	if (kind == EVT_K_SOFTIRQ_ENTRY) {
		q->count++;
		/*
		 * Softirqs do not nest on a CPU: one that begins while another
		 * is open means the open one's exit was lost (it was seen on a
		 * VM: a stale entry kept counting the CPU's task time as
		 * softirq, and past four of them the next exit matched none).
		 */
		c->soft[0].i = (uint32_t)vec;
		c->soft[0].ts = ev->ts;
		c->soft_depth = 1;
		return;
	}
	if (!c->soft_depth)
		return;
	c->soft_depth--;
	if (c->soft_depth < EVT_STATS_NEST && c->soft[c->soft_depth].i == vec &&
	    ev->ts >= c->soft[c->soft_depth].ts) {
		handler_done(s, c, ev, c->soft[c->soft_depth].ts, &q->dur, q->hist, &q->pct, EVT_WORST_SOFTIRQ,
			     (int32_t)vec);
	} else {
		c->soft_depth = 0;
	}
}

/* @t, woken, is switched in on @c's CPU by @ev: its wait, unless it spans a loss. */
static void switched_in_woken(struct evt_stats *s, struct evt_stats_thread *t, const struct evt_engine_event *ev,
			      const struct evt_kind_entry *ke)
{
	const uint64_t lat = ev->ts >= t->wakeup_ts ? ev->ts - t->wakeup_ts : 0;
	struct evt_stats_worst w;
	long wi;

	if (spans(s, t->wakeup_ts, ev->ts)) {
		s->sched_lat.spans_loss++;
		t->wake.spans_loss++;
		return;
	}
	lat_add(&s->sched_lat, lat);
	s->sched_hist[evt_hist_bucket(lat)]++;
	evt_lathist_add(&s->sched_pct, lat);
	lat_add(&t->wake, lat);
	evt_lathist_add(&t->wake_pct, lat);
	evt_stats_waker_add(t, t->waker, 1);
	worst_who(&w, t);
	w.begin = t->wakeup_ts;
	w.end = ev->ts;
	w.cpu = ev->cpu;
	w.what = 0;
	w.prio = (int32_t)evt_kf_int(ev, ke, EVT_KF_NEXT_PRIO);
	w.waker = t->waker;
	wi = t->waker >= 0 ? evt_tidmap_get(&s->priv->tmap, t->waker) : -1;
	if (wi >= 0)
		memcpy(w.waker_comm, s->threads[wi].comm, sizeof(w.waker_comm));
	worst_add(&s->worst[EVT_WORST_SCHED], &w);
	if (s->priv->obs.sched_latency)
		s->priv->obs.sched_latency(s->priv->obs.data, ev, t->tid, t->wakeup_ts);
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
	/* Before the CPU's first switch, prev ran (as the state computation counts it). */
	/* lttng-cputop: a CPU's time before its first switch is in use, whoever ran. */
	slice_end(s, c, c->switched ? c->cur : prev, ev->ts, !c->switched || c->cur > 0);
	c->switched = 1;
	if (c->cur >= 0)
		s->threads[c->cur_th].running = 0;
	if ((i = evt_tidmap_get(&s->priv->tmap, prev)) >= 0) {
		t = &s->threads[i];
		t->running = 0;
		if (prev)
			evt_kf_str(ev, ke, EVT_KF_PREV_COMM, t->comm, sizeof(t->comm));
		prio_seen(t, evt_kf_int(ev, ke, EVT_KF_PREV_PRIO));
	}
	if ((i = evt_stats_thread_idx(s, next)) < 0) {
		c->cur = -1;
		return;
	}
	t = &s->threads[i];
	if (next) {
		evt_kf_str(ev, ke, EVT_KF_NEXT_COMM, t->comm, sizeof(t->comm));
		prio_seen(t, evt_kf_int(ev, ke, EVT_KF_NEXT_PRIO));
		if (t->last_cpu >= 0 && t->last_cpu != (int32_t)ev->cpu)
			t->cpu_changes++;
		t->last_cpu = (int32_t)ev->cpu;
	}
	if (t->wakeup_pending && next)
		switched_in_woken(s, t, ev, ke);
	t->wakeup_pending = 0;
	t->running = 1;
	c->cur = next;
	c->cur_th = (uint32_t)i;
	/* A switch is never inside an interrupt: ones left open lost their exits. */
	c->irq_depth = c->soft_depth = 0;
}

/*
 * sched_waking, sched_wakeup, sched_wakeup_new: the first of them since
 * the thread last ran starts its wait (as the LTTng analyses count it); a
 * running thread did not wait. Its waker: the thread on the event's CPU
 * (none in an interrupt on an idle CPU).
 */
/* The thread a wakeup or a migration names, its name and priority as it says them (NULL: none). */
static struct evt_stats_thread *named_thread(struct evt_stats *s, const struct evt_engine_event *ev,
					     const struct evt_kind_entry *ke)
{
	const int32_t tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_W_TID);
	struct evt_stats_thread *t;
	long i;

	if (tid <= 0 || (i = evt_stats_thread_idx(s, tid)) < 0)
		return NULL;
	t = &s->threads[i];
	evt_kf_str(ev, ke, EVT_KF_W_COMM, t->comm, sizeof(t->comm));
	prio_seen(t, evt_kf_int(ev, ke, EVT_KF_W_PRIO));
	return t;
}

static void on_wakeup(struct evt_stats *s, const struct evt_stats_cpu *c, const struct evt_engine_event *ev,
		      const struct evt_kind_entry *ke)
{
	struct evt_stats_thread *t = named_thread(s, ev, ke);

	if (!t || t->running || t->wakeup_pending)
		return;
	t->wakeup_pending = 1;
	t->wakeup_ts = ev->ts;
	t->waker = c->cur > 0 ? c->cur : -1;
}

static void on_migrate(struct evt_stats *s, const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	struct evt_stats_thread *t = named_thread(s, ev, ke);

	if (!t)
		return;
	t->migrations++;
}

static void on_sys_entry(struct evt_stats *s, struct evt_stats_cpu *c, struct evt_stats_thread *t,
			 const struct evt_engine_event *ev, int32_t sys)
{
	struct evt_stats_tsys *y = evt_stats_tsys(t, (uint32_t)sys);

	s->sys[sys].count++;
	if (y)
		y->count++;
	if (c->cur >= 0) {
		t->sys = y ? sys : -1;
		t->sys_ts = ev->ts;
		t->sys_cpu = ev->cpu;
		t->sys_tsys = y ? (uint32_t)(y - t->tsys) : 0;
	}
}

static void on_sys_exit(struct evt_stats *s, struct evt_stats_cpu *c, struct evt_stats_thread *t,
			const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	if (c->cur >= 0 && t->sys >= 0 && ev->ts >= t->sys_ts) {
		struct evt_stats_syscall *q = &s->sys[t->sys];
		struct evt_stats_tsys *y = &t->tsys[t->sys_tsys];
		const uint64_t lat = ev->ts - t->sys_ts;
		const int64_t ret = evt_kf_int(ev, ke, EVT_KF_RET);

		/* Spanning a loss, the pair may not be one call: its return value is not the syscall's either. */
		if (spans(s, t->sys_ts, ev->ts)) {
			q->lat.spans_loss++;
			y->lat.spans_loss++;
		} else {
			struct evt_stats_worst w;

			if (ret < 0)
				q->errors++;
			evt_stats_rets_add(&q->rets, ret, 1);
			evt_stats_rets_add(&y->rets, ret, 1);
			lat_add(&q->lat, lat);
			q->hist[evt_hist_bucket(lat)]++;
			evt_lathist_add(&q->pct, lat);
			lat_add(&y->lat, lat);
			evt_lathist_add(&y->pct, lat);
			worst_who(&w, t);
			w.begin = t->sys_ts;
			w.end = ev->ts;
			w.cpu = t->sys_cpu;
			w.what = t->sys;
			w.ret = ret;
			worst_add(&s->worst[EVT_WORST_SYSCALL], &w);
			if (s->priv->obs.syscall)
				s->priv->obs.syscall(s->priv->obs.data, ev, t->tid, q->name, t->sys_ts, ret);
		}
	} else {
		s->sys_unmatched++;
	}
	t->sys = -1;
}

/*
 * A new reader's loss windows join those known (a result fed from one
 * chunk after another keeps the earlier chunks'); the first reader's
 * first packets are read against the seams given. No memory: its windows
 * are missing (its intervals count, as before losses were known).
 */
static void add_reader_windows(struct evt_stats *s, const struct evt_trace *tr)
{
	struct evt_stats_priv *p = s->priv;
	struct evt_lossmap m = { 0 };
	struct evt_loss *l;
	uint32_t n;

	p->tr = tr;
	if (evt_trace_losses_seamed(tr, p->seen_reader ? NULL : p->seams, p->seen_reader ? 0 : p->nseams, &l, &n))
		return;
	p->seen_reader = 1;
	if (!evt_lossmap_build(&m, l, n))
		evt_lossmap_add(&p->losses, m.w, m.n);
	evt_lossmap_free(&m);
	free(l);
}

int evt_stats_prior_losses(struct evt_stats *s, const struct evt_loss_seam *seams, uint32_t nseams,
			   const uint64_t *w, uint32_t nw)
{
	struct evt_stats_priv *p = s->priv;

	if (nseams) {
		struct evt_loss_seam *c = malloc((size_t)nseams * sizeof(*c));

		if (!c)
			return -1;
		memcpy(c, seams, (size_t)nseams * sizeof(*c));
		free(p->seams);
		p->seams = c;
		p->nseams = nseams;
	}
	return evt_lossmap_add(&p->losses, w, nw);
}

void evt_stats_use_reader(struct evt_stats *s, const struct evt_trace *tr)
{
	if (s->priv->tr != tr)
		add_reader_windows(s, tr);
}

uint64_t evt_stats_loss_overlap(const struct evt_stats *s, uint64_t a, uint64_t b)
{
	return evt_lossmap_overlap(&s->priv->losses, a, b);
}

uint32_t evt_stats_windows_after(const struct evt_stats *s, uint64_t since, const uint64_t **w)
{
	const struct evt_lossmap *m = &s->priv->losses;
	uint32_t i = 0;

	/* Merged windows are disjoint and in order: their ends go up too. */
	while (i < m->n && m->w[2 * i + 1] <= since)
		i++;
	*w = m->w ? m->w + 2 * i : NULL;
	return m->n - i;
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

	if (!s->events) {
		uint32_t i;

		s->first_ts = ev->ts;
		/* CPUs seeded before the first event: their time starts here. */
		for (i = 0; i < s->nr_cpus; i++)
			s->cpus[i].since = s->cpus[i].mode_since = ev->ts;
	}
	s->events++;
	s->last_ts = ev->ts;
	if (s->priv->tr != ev->tr)
		add_reader_windows(s, ev->tr);
	ke = evt_kind_of(&s->priv->kinds, ev);
	if (!ke || resolve(s, ev, ke->kind == EVT_K_SYS_ENTRY, &evs, &sys))
		return 0;
	s->ev[evs].count++;
	c = evt_stats_get_cpu(s, ev->cpu);
	if (!c)
		return 0;
	c->events++;
	ti = c->cur >= 0 ? (long)c->cur_th : evt_stats_thread_idx(s, -1);
	if (ti < 0)
		return 0;
	t = &s->threads[ti];
	t->events++;
	switch (ke->kind) {
	case EVT_K_SYS_ENTRY:
		on_sys_entry(s, c, t, ev, sys);
		break;
	case EVT_K_SYS_EXIT:
		on_sys_exit(s, c, t, ev, ke);
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
	case EVT_K_WAKING:
		on_wakeup(s, c, ev, ke);
		break;
	case EVT_K_MIGRATE:
		on_migrate(s, ev, ke);
		break;
	default:
		break;
	}
	return 0;
}

int evt_stats_seed_cpu(struct evt_stats *s, unsigned int cpu, int32_t tid)
{
	struct evt_stats_cpu *c = evt_stats_get_cpu(s, cpu);
	long i;

	if (!c || tid < 0 || (i = evt_stats_thread_idx(s, tid)) < 0)
		return -1;
	c->cur = tid;
	c->cur_th = (uint32_t)i;
	c->switched = 1;
	s->threads[i].running = 1;
	if (tid)
		s->threads[i].last_cpu = (int32_t)cpu;
	return 0;
}

int evt_stats_seed_syscall(struct evt_stats *s, int32_t tid, const char *name, uint64_t entry_ts)
{
	long i = tid >= 0 ? evt_stats_thread_idx(s, tid) : -1, k;
	struct evt_stats_thread *t;
	struct evt_stats_tsys *y;

	if (i < 0 || (k = evt_stats_sys_slot(s, name)) < 0)
		return -1;
	t = &s->threads[i];
	y = evt_stats_tsys(t, (uint32_t)k);
	if (!y)
		return -1;
	t->sys = (int32_t)k;
	t->sys_ts = entry_ts;
	t->sys_cpu = t->last_cpu >= 0 ? (uint32_t)t->last_cpu : 0;
	t->sys_tsys = (uint32_t)(y - t->tsys);
	return 0;
}

int evt_stats_seed_wakeup(struct evt_stats *s, int32_t tid, uint64_t ts)
{
	long i = tid > 0 ? evt_stats_thread_idx(s, tid) : -1;

	if (i < 0)
		return -1;
	s->threads[i].wakeup_pending = 1;
	s->threads[i].wakeup_ts = ts;
	s->threads[i].waker = -1;
	return 0;
}

void evt_stats_set_observer(struct evt_stats *s, const struct evt_stats_observer *o)
{
	if (o)
		s->priv->obs = *o;
	else
		memset(&s->priv->obs, 0, sizeof(s->priv->obs));
}

void evt_stats_close(struct evt_stats *s)
{
	unsigned int k;
	uint32_t i;

	/* Each CPU's last slice ends with the last event; since moves, so closing twice counts once. */
	for (i = 0; s->events && i < s->nr_cpus; i++) {
		struct evt_stats_cpu *c = &s->cpus[i];

		if (s->last_ts >= c->since)
			slice_end(s, c, c->switched ? c->cur : -1, s->last_ts, c->switched && c->cur > 0);
		c->irq_depth = c->soft_depth = 0;
	}
	for (k = 0; k < EVT_WORST_KINDS; k++) {
		struct evt_stats_worstlist *l = &s->worst[k];

		if (!l->sorted)
			qsort(l->v, l->n, sizeof(l->v[0]), by_worst);
		l->sorted = 1;
	}
}

/* ---- Losses ---- */

int evt_stats_read_losses(struct evt_stats *s, const struct evt_trace *tr)
{
	struct evt_stats_stream *streams;
	struct evt_stats_loss *losses = NULL;
	struct evt_loss *l;
	uint32_t nl, i;

	streams = calloc(tr->nr_streams ? tr->nr_streams : 1, sizeof(*streams));
	if (!streams || evt_trace_losses(tr, &l, &nl)) {
		free(streams);
		return -1;
	}
	if (nl && !(losses = calloc(nl, sizeof(*losses)))) {
		free(streams);
		free(l);
		return -1;
	}
	for (i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *st = &tr->streams[i];

		streams[i].id = st->id;
		streams[i].cpu = st->cpu;
		streams[i].channel = st->channel;
		streams[i].discarded = st->discarded;
		streams[i].lost_packets = st->seq_gaps;
	}
	for (i = 0; i < nl; i++) {
		losses[i].ts = l[i].begin;
		losses[i].from = l[i].from;
		losses[i].to = l[i].to;
		losses[i].stream = l[i].stream;
		losses[i].discarded = l[i].events;
		losses[i].lost_packets = l[i].packets;
	}
	free(l);
	free(s->streams);
	free(s->losses);
	s->streams = streams;
	s->nr_streams = tr->nr_streams;
	s->losses = losses;
	s->nr_losses = nl;
	return 0;
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

	evt_stats_close(s);
	/* The trace's reader, else the one its events came from (a caller's own). */
	if (w && w->trace && evt_etrace_reader(w->trace))
		tr = evt_etrace_reader(w->trace);
	/* No memory: the losses stay unknown (empty), the counts are whole. */
	if (tr)
		evt_stats_read_losses(s, tr);
}

const struct evt_computation evt_comp_stats = {
	.name = "stats",
	.version = STATS_VERSION,
	.create = stats_create,
	.destroy = stats_destroy,
	.hook_adder = stats_add,
	.hook_remover = stats_remove,
	.finish = stats_finish,
	.save = evt_stats_save,
	.load = evt_stats_load,
};
