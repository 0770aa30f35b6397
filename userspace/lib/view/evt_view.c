// SPDX-License-Identifier: GPL-2.0
/*
 * The window algorithms (evt_view.h): the reading rule, the summary from
 * the background results, the sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_decode.h"
#include "view/evt_view.h"
#include "ctf/evt_stream.h"

enum { WK_UNSEEN, WK_OTHER, WK_SWITCH, WK_IRQ, WK_SOFTIRQ };

struct evt_window_kind {
	uint8_t kind;
	enum evt_field_type prev_type, next_type;
	int prev_off, next_off, comm_off;
};

struct evt_window_comm {
	int32_t tid;
	char comm[16];
};


uint64_t evt_window_col_start(const struct evt_window *w, uint64_t k)
{
	return w->from + (uint64_t)((unsigned __int128)k * w->n / w->cols);
}

uint32_t evt_window_col_of(const struct evt_window *w, uint64_t ts)
{
	uint64_t k = (uint64_t)((unsigned __int128)(ts - w->from) * w->cols / w->n);

	/* floor() may put ts one column early or late at the boundaries: settle it. */
	while (k > 0 && evt_window_col_start(w, k) > ts)
		k--;
	while (k + 1 < w->cols && evt_window_col_start(w, k + 1) <= ts)
		k++;
	return (uint32_t)k;
}

/* The column summed so far is over: its winner. */
static void col_close(struct evt_window_cpu *c)
{
	int32_t best = -1;
	uint64_t best_ns = 0;

	for (uint32_t i = 0; i < c->nacc; i++)
		if (c->acc[i].ns > best_ns || (c->acc[i].ns == best_ns && best >= 0 && c->acc[i].tid < best)) {
			best = c->acc[i].tid;
			best_ns = c->acc[i].ns;
		}
	c->tid[c->col] = best;
	c->nacc = 0;
}

static void col_add(struct evt_window *w, struct evt_window_cpu *c, uint32_t k, int32_t tid, uint64_t ns)
{
	uint32_t i;

	if (k != c->col) {
		col_close(c);
		c->col = k;
	}
	if (tid <= 0 || !ns)
		return;
	c->busy[k] += ns;
	for (i = 0; i < c->nacc && c->acc[i].tid != tid; i++)
		;
	if (i == c->nacc) {
		if (c->nacc == c->cap) {
			uint32_t cap = c->cap ? 2 * c->cap : 16;
			struct evt_window_tid *a = realloc(c->acc, cap * sizeof(*a));

			if (!a) {
				w->oom = 1;
				return;
			}
			c->acc = a;
			c->cap = cap;
		}
		c->acc[c->nacc++] = (struct evt_window_tid){ tid, 0 };
	}
	c->acc[i].ns += ns;
}

/* @tid ran on @c over [a, z). */
static void charge(struct evt_window *w, struct evt_window_cpu *c, int32_t tid, uint64_t a, uint64_t z)
{
	if (tid < 0 && z > a && !w->state_ready)
		c->incomplete = 1;
	while (a < z) {
		uint32_t k = evt_window_col_of(w, a);
		uint64_t end = k + 1 < w->cols ? evt_window_col_start(w, k + 1) : w->to + 1;

		if (end > z)
			end = z;
		col_add(w, c, k, tid, end - a);
		a = end;
	}
}

static void comm_put(struct evt_window *w, int32_t tid, const char *comm)
{
	uint32_t i;

	if (2 * (w->nr_comms + 1) > w->comm_cap) {
		uint32_t cap = w->comm_cap ? 2 * w->comm_cap : 256;
		struct evt_window_comm *n = calloc(cap, sizeof(*n));

		if (!n) {
			w->oom = 1;
			return;
		}
		for (i = 0; i < cap; i++)
			n[i].tid = -1;
		for (uint32_t j = 0; j < w->comm_cap; j++) {
			if (w->comms[j].tid < 0)
				continue;
			for (i = (uint32_t)w->comms[j].tid & (cap - 1); n[i].tid >= 0; i = (i + 1) & (cap - 1))
				;
			n[i] = w->comms[j];
		}
		free(w->comms);
		w->comms = n;
		w->comm_cap = cap;
	}
	for (i = (uint32_t)tid & (w->comm_cap - 1); w->comms[i].tid >= 0 && w->comms[i].tid != tid;
	     i = (i + 1) & (w->comm_cap - 1))
		;
	if (w->comms[i].tid < 0)
		w->nr_comms++;
	w->comms[i].tid = tid;
	memcpy(w->comms[i].comm, comm, sizeof(w->comms[i].comm) - 1);
	w->comms[i].comm[sizeof(w->comms[i].comm) - 1] = 0;
}

const char *evt_window_comm(const struct evt_window *w, int32_t tid)
{
	if (!w->comm_cap)
		return NULL;
	for (uint32_t i = (uint32_t)tid & (w->comm_cap - 1); w->comms[i].tid >= 0; i = (i + 1) & (w->comm_cap - 1))
		if (w->comms[i].tid == tid)
			return w->comms[i].comm;
	return NULL;
}

static const struct evt_window_kind *kind_of(struct evt_window *w, const struct evt_engine_event *ev)
{
	struct evt_window_kind *k;
	enum evt_field_type t;

	if (ev->idx >= w->nr_kinds) {
		unsigned int n = ev->tr->md.cat->nr_events;
		struct evt_window_kind *a = n > ev->idx ? realloc(w->kinds, n * sizeof(*a)) : NULL;

		if (!a) {
			w->oom = 1;
			return NULL;
		}
		memset(a + w->nr_kinds, 0, (n - w->nr_kinds) * sizeof(*a));
		w->kinds = a;
		w->nr_kinds = n;
	}
	k = &w->kinds[ev->idx];
	if (k->kind != WK_UNSEEN)
		return k;
	k->kind = WK_OTHER;
	if (!strcmp(ev->desc->name, "sched_switch")) {
		k->prev_off = evt_field_offset(ev->desc, "prev_tid", &k->prev_type);
		k->next_off = evt_field_offset(ev->desc, "next_tid", &k->next_type);
		k->comm_off = evt_field_offset(ev->desc, "next_comm", &t);
		if (t != EVT_F_COMM)
			k->comm_off = -1;
		if (k->prev_off >= 0 && k->next_off >= 0)
			k->kind = WK_SWITCH;
	} else if (!strcmp(ev->desc->name, "irq_handler_entry")) {
		k->kind = WK_IRQ;
	} else if (!strcmp(ev->desc->name, "softirq_entry")) {
		k->kind = WK_SOFTIRQ;
	}
	return k;
}

int evt_window_event(void *data, void *call)
{
	struct evt_window *w = data;
	const struct evt_engine_event *ev = call;
	const struct evt_window_kind *k = kind_of(w, ev);
	struct evt_window_cpu *c;

	if (!k || ev->cpu >= w->nr_slot_of || w->slot_of[ev->cpu] < 0 || ev->ts < w->from || ev->ts > w->to)
		return 0;
	c = &w->cpu[w->slot_of[ev->cpu]];
	if (!c->seen) {
		c->seen = 1;
		c->first = ev->ts;
	}
	switch (k->kind) {
	case WK_SWITCH: {
		int32_t next = (int32_t)evt_event_int(ev, k->next_off, k->next_type);

		if (c->cur < 0 && !c->switched) {
			/* Unseeded: prev_tid ran from the CPU's first event here. */
			charge(w, c, -1, c->since, c->first);
			c->cur = (int32_t)evt_event_int(ev, k->prev_off, k->prev_type);
			c->since = c->first;
		}
		charge(w, c, c->cur, c->since, ev->ts);
		c->cur = next;
		c->since = ev->ts;
		c->switched = 1;
		if (k->comm_off >= 0 && (uint64_t)k->comm_off + 16 <= ev->len)
			comm_put(w, next, (const char *)ev->payload + k->comm_off);
		break;
	}
	case WK_IRQ:
		c->irq[evt_window_col_of(w, ev->ts)]++;
		break;
	case WK_SOFTIRQ:
		c->soft[evt_window_col_of(w, ev->ts)]++;
		break;
	}
	return 0;
}

void evt_window_free(struct evt_window *w)
{
	for (unsigned int i = 0; w->cpu && i < w->nr_cpus; i++) {
		struct evt_window_cpu *c = &w->cpu[i];

		free(c->acc);
		free(c->tid);
		free(c->busy);
		free(c->irq);
		free(c->soft);
		free(c->lost);
		free(c->estimated);
	}
	free(w->cpu);
	free(w->kinds);
	free(w->comms);
}

int evt_window_init(struct evt_window *w, const struct evt_window_cpus *cpus, const struct evt_state *ready,
		    const struct evt_stats *losses, uint64_t from, uint64_t to, uint32_t cols)
{

	memset(w, 0, sizeof(*w));
	w->from = from;
	w->to = to;
	w->n = to - from + 1;
	w->cols = cols;
	w->nr_cpus = cpus->nr_cpus;
	w->cpu_of = cpus->cpu_of;
	w->slot_of = cpus->slot_of;
	w->nr_slot_of = cpus->nr_slot_of;
	w->state_ready = ready != NULL;
	w->cpu = calloc(w->nr_cpus ? w->nr_cpus : 1, sizeof(*w->cpu));
	if (!w->cpu)
		return -1;
	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		struct evt_window_cpu *c = &w->cpu[i];

		c->tid = malloc(cols * sizeof(*c->tid));
		c->busy = calloc(cols, sizeof(*c->busy));
		c->irq = calloc(cols, sizeof(*c->irq));
		c->soft = calloc(cols, sizeof(*c->soft));
		c->lost = calloc(cols, sizeof(*c->lost));
		if (!c->tid || !c->busy || !c->irq || !c->soft || !c->lost)
			return -1;
		for (uint32_t k = 0; k < cols; k++)
			c->tid[k] = -1;
		c->cur = ready ? evt_state_cpu_tid_at(ready, w->cpu_of[i], from) : -1;
		c->since = from;
	}
	/* Losses from the packet headers, known from the start. */
	for (uint32_t i = 0; losses && i < losses->nr_losses; i++) {
		const struct evt_stats_loss *l = &losses->losses[i];

		if (l->ts >= from && l->ts <= to && l->stream < losses->nr_streams &&
		    losses->streams[l->stream].cpu < w->nr_slot_of && w->slot_of[losses->streams[l->stream].cpu] >= 0)
			w->cpu[w->slot_of[losses->streams[l->stream].cpu]].lost[evt_window_col_of(w, l->ts)]++;
	}
	return 0;
}

void evt_window_end(struct evt_window *w)
{
	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		struct evt_window_cpu *c = &w->cpu[i];

		if (c->cur < 0 && !c->switched && !w->state_ready)
			c->incomplete = 1;
		charge(w, c, c->cur, c->since, w->to + 1);
		col_close(c);
	}
}

/* ---- Wide windows: from the background results, or a sample ---- */

#define SUM_BLOCK 64
#define SUM_EXACT 512
#define SUM_POINTS 128
#define SAMPLE_EVENTS 256

/* A column's threads (a summary's or a sample's): a few, searched linearly. */
struct colacc {
	struct evt_window_tid v[SUM_EXACT + 2];
	unsigned int n;
};

static void acc_add(struct colacc *a, int32_t tid, uint64_t ns)
{
	unsigned int i;

	if (tid <= 0 || !ns)
		return;
	for (i = 0; i < a->n && a->v[i].tid != tid; i++)
		;
	if (i == a->n) {
		if (a->n == sizeof(a->v) / sizeof(a->v[0]))
			return;	/* cannot happen: a column adds at most SUM_EXACT + 1 threads */
		a->v[a->n++] = (struct evt_window_tid){ tid, 0 };
	}
	a->v[i].ns += ns;
}

static int32_t acc_best(const struct colacc *a)
{
	int32_t best = -1;
	uint64_t best_ns = 0;

	for (unsigned int i = 0; i < a->n; i++)
		if (a->v[i].ns > best_ns || (a->v[i].ns == best_ns && best >= 0 && a->v[i].tid < best)) {
			best = a->v[i].tid;
			best_ns = a->v[i].ns;
		}
	return best;
}

uint64_t evt_window_col_end(const struct evt_window *w, uint32_t k)
{
	return k + 1 < w->cols ? evt_window_col_start(w, k + 1) : w->to + 1;
}

/* Packet bytes of [from, to] (clock), over every stream: what reading its events costs. */
uint64_t evt_window_range_bytes(const struct evt_trace *tr, uint64_t from, uint64_t to)
{
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *s = &tr->streams[i];
		uint32_t lo = 0, hi = s->npk;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (s->pk[mid].end < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < s->npk && s->pk[lo].begin <= to; lo++)
			bytes += s->pk[lo].content;
	}
	return bytes;
}

/* ---- summary ---- */

struct sum_cpu {
	int built, usable;
	size_t n;			/* the state's intervals on this CPU */
	size_t j0;			/* the first one a sched_switch started */
	uint64_t *cum;			/* busy ns over [begin[j0], begin[j0 + SUM_BLOCK * q]) */
};

struct evt_window_summary {
	unsigned int nr;
	struct sum_cpu *cpu;
};

void evt_window_summary_free(struct evt_window_summary *sm)
{
	if (!sm)
		return;
	for (unsigned int i = 0; i < sm->nr; i++)
		free(sm->cpu[i].cum);
	free(sm->cpu);
	free(sm);
}

static uint64_t iv_busy(const struct evt_state_interval *iv)
{
	return iv->tid > 0 ? iv->end - iv->begin : 0;
}

/*
 * The last interval of @cpu that begins at or before @ts (or -1), known to
 * be at or after interval @j (-1: anywhere): galloping forward from @j, so
 * that a column's evenly spaced times cost a few lookups each.
 */
static long iv_find_from(const struct evt_state *st, unsigned int cpu, size_t n, long j, uint64_t ts)
{
	struct evt_state_interval iv;
	size_t lo = (size_t)(j + 1), hi, step = 1;

	/* Find hi with begin[hi] > ts (or n), doubling the step. */
	for (;;) {
		hi = lo + step - 1;
		if (hi >= n) {
			hi = n;
			break;
		}
		evt_state_cpu_interval(st, cpu, hi, &iv);
		if (iv.begin > ts)
			break;
		lo = hi + 1;
		step *= 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		evt_state_cpu_interval(st, cpu, mid, &iv);
		if (iv.begin <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

static long iv_find(const struct evt_state *st, unsigned int cpu, size_t n, uint64_t ts)
{
	return iv_find_from(st, cpu, n, -1, ts);
}

long evt_window_iv_find(const struct evt_state *st, unsigned int cpu, uint64_t ts)
{
	return iv_find(st, cpu, evt_state_cpu_nr_intervals(st, cpu), ts);
}

/*
 * The running totals of @cpu, once. Unusable (the window is then read
 * event by event) when the state's first real switch is not the marks'.
 */
static struct sum_cpu *sum_cpu_get(struct evt_window_summary **smp, unsigned int nr_cpus, const struct evt_state *st,
				   const struct evt_marks *m, unsigned int slot, unsigned int cpu)
{
	struct evt_window_summary *sm = *smp;
	const struct evt_marks_cpu *mc = evt_marks_cpu(m, cpu);
	struct evt_state_interval iv;
	struct sum_cpu *sc;
	uint64_t run = 0;

	if (!sm) {
		sm = *smp = calloc(1, sizeof(*sm));
		if (!sm)
			return NULL;
		sm->nr = nr_cpus;
		sm->cpu = calloc(sm->nr ? sm->nr : 1, sizeof(*sm->cpu));
		if (!sm->cpu) {
			free(sm);
			*smp = NULL;
			return NULL;
		}
	}
	if (slot >= sm->nr)
		return NULL;
	sc = &sm->cpu[slot];
	if (sc->built)
		return sc;
	sc->n = cpu < evt_state_nr_cpus(st) ? evt_state_cpu_nr_intervals(st, cpu) : 0;
	sc->usable = 1;
	if (mc && mc->switched) {
		/* The state's first interval is prev_tid's when it ran (prev_tid > 0). */
		sc->j0 = mc->first_prev > 0 ? 1 : 0;
		if (sc->j0 >= sc->n || evt_state_cpu_interval(st, cpu, sc->j0, &iv) || iv.begin != mc->first_switch)
			sc->usable = 0;
	} else if (sc->n) {
		sc->usable = 0;
	}
	if (sc->usable && sc->n) {
		sc->cum = malloc(((sc->n - sc->j0) / SUM_BLOCK + 1) * sizeof(*sc->cum));
		if (!sc->cum)
			return NULL;
		for (size_t j = sc->j0; j < sc->n; j++) {
			if ((j - sc->j0) % SUM_BLOCK == 0)
				sc->cum[(j - sc->j0) / SUM_BLOCK] = run;
			evt_state_cpu_interval(st, cpu, j, &iv);
			run += iv_busy(&iv);
		}
	}
	sc->built = 1;
	return sc;
}

/* Busy ns on @cpu over [begin[j0], ts) (ts at or after begin[j0]; the last interval runs on). */
static uint64_t sum_busy_to(const struct sum_cpu *sc, const struct evt_state *st, unsigned int cpu, uint64_t ts)
{
	long j = iv_find(st, cpu, sc->n, ts);
	struct evt_state_interval iv;
	size_t q, jj;
	uint64_t b;

	if (j < (long)sc->j0)
		return 0;
	q = ((size_t)j - sc->j0) / SUM_BLOCK;
	b = sc->cum[q];
	for (jj = sc->j0 + q * SUM_BLOCK; jj < (size_t)j; jj++) {
		evt_state_cpu_interval(st, cpu, jj, &iv);
		b += iv_busy(&iv);
	}
	evt_state_cpu_interval(st, cpu, (size_t)j, &iv);
	return b + (iv.tid > 0 ? ts - iv.begin : 0);
}

/*
 * The window from the ready state and marks: 0, or -1 when a CPU's
 * intervals cannot be matched to the reading rule (read the events).
 */
int evt_window_summary(struct evt_window *w, struct evt_window_summary **sm, const struct evt_state *st,
		       const struct evt_marks *m)
{
	struct colacc *acc = malloc(sizeof(*acc));
	int ret = -1;

	if (!acc || !st || !m || !evt_marks_complete(m))
		goto out;
	for (unsigned int slot = 0; slot < w->nr_cpus; slot++) {
		const unsigned int i = w->cpu_of[slot];	/* the CPU */
		struct evt_window_cpu *c = &w->cpu[slot];
		const struct evt_marks_cpu *mc = evt_marks_cpu(m, i);
		struct sum_cpu *sc = sum_cpu_get(sm, w->nr_cpus, st, m, slot, i);
		uint64_t s1 = w->to + 1, since0 = w->from, prev_busy;
		struct evt_state_interval iv;
		int32_t cur0;
		long j1;

		if (!sc || !sc->usable)
			goto out;
		free(c->estimated);
		c->estimated = calloc(w->cols, sizeof(*c->estimated));
		if (!c->estimated)
			goto out;
		for (uint32_t k = 0; k < w->cols; k++) {
			c->irq[k] = (uint32_t)evt_marks_count(m, i, EVT_MARK_IRQ, evt_window_col_start(w, k), evt_window_col_end(w, k));
			c->soft[k] = (uint32_t)evt_marks_count(m, i, EVT_MARK_SOFTIRQ, evt_window_col_start(w, k), evt_window_col_end(w, k));
		}
		if (!mc || !mc->switched)
			continue;	/* no switch: nobody known to run (as reading finds) */
		/* The first switch at or after from, if it is in the window. */
		j1 = iv_find(st, i, sc->n, w->from);
		if (j1 < 0 || (evt_state_cpu_interval(st, i, (size_t)j1, &iv), iv.begin < w->from))
			j1++;
		if (j1 < (long)sc->j0)
			j1 = (long)sc->j0;
		if ((size_t)j1 < sc->n && !evt_state_cpu_interval(st, i, (size_t)j1, &iv) && iv.begin <= w->to)
			s1 = iv.begin;
		/* Before it: the state's thread at from, or the first switch's prev_tid from the CPU's first event. */
		cur0 = evt_state_cpu_tid_at(st, i, w->from);
		if (cur0 < 0 && s1 <= w->to) {
			cur0 = mc->first_prev;
			since0 = mc->first > w->from ? mc->first : w->from;
		}
		prev_busy = s1 <= w->to ? sum_busy_to(sc, st, i, s1) : 0;
		for (uint32_t k = 0; k < w->cols; k++) {
			uint64_t a = evt_window_col_start(w, k), z = evt_window_col_end(w, k), lo, busy;
			long ja, jb;

			acc->n = 0;
			lo = a > since0 ? a : since0;
			if (cur0 > 0 && lo < (z < s1 ? z : s1)) {
				acc_add(acc, cur0, (z < s1 ? z : s1) - lo);
				c->busy[k] += (z < s1 ? z : s1) - lo;
			}
			if (z > s1) {
				lo = a > s1 ? a : s1;
				busy = sum_busy_to(sc, st, i, z);
				c->busy[k] += busy - prev_busy;
				prev_busy = busy;
				ja = iv_find(st, i, sc->n, lo);
				jb = iv_find(st, i, sc->n, z - 1);
				if (jb - ja + 1 <= SUM_EXACT) {
					for (long j = ja; j <= jb; j++) {
						evt_state_cpu_interval(st, i, (size_t)j, &iv);
						if (j + 1 == (long)sc->n || iv.end > z)
							iv.end = z;
						acc_add(acc, iv.tid, iv.end - (iv.begin > lo ? iv.begin : lo));
					}
				} else {
					/*
					 * Too many to read for one pixel: who runs at SUM_POINTS
					 * evenly spaced times, each standing for its share.
					 */
					long j = ja;

					for (uint64_t q = 0; q < SUM_POINTS; q++) {
						uint64_t t = lo + (uint64_t)((unsigned __int128)(z - lo) * (2 * q + 1) /
									       (2 * SUM_POINTS));

						j = iv_find_from(st, i, sc->n, j, t);
						evt_state_cpu_interval(st, i, (size_t)j, &iv);
						acc_add(acc, iv.tid, (z - lo) / SUM_POINTS + 1);
					}
					c->estimated[k] = 1;
				}
			}
			c->tid[k] = acc_best(acc);
		}
	}
	ret = 0;
out:
	free(acc);
	return ret;
}

/* ---- sample ---- */

/* A stream read from where a sample needs it: one event of look-ahead. */
struct sdec {
	struct evt_trace *tr;
	struct evt_stream *st;
	uint32_t pk;			/* the packet in hand; st->npk: none */
	size_t pos, end;
	uint64_t prev, tend;
	const uint8_t *pkt;
	int have, eof, err;
	struct evt_engine_event ev;	/* the look-ahead */
	int32_t cur;			/* who runs at the look-ahead, -1: unknown */
};

/* Packet @k in hand (its header checked, its run's file mapped, as the reader loads it). */
static void sdec_start(struct sdec *d, uint32_t k)
{
	const struct evt_pkt *p = &d->st->pk[k];

	d->pk = k;
	d->have = d->eof = 0;
	d->st->ipk = k;
	if (evt_stream_load_packet(d->tr, d->st)) {
		d->err = 1;
		return;
	}
	d->pkt = d->st->map + p->off;
	d->pos = EVT_PACKET_HEADER_SIZE;
	d->end = (size_t)p->content;
	d->prev = p->begin;
	d->tend = p->end;
}

/* The next event in d->ev: 1, 0 at the stream's end, -1 on a decoding error. */
static int sdec_peek(struct sdec *d)
{
	struct evt_decoded e;
	size_t next;

	if (d->have)
		return 1;
	if (d->err)
		return -1;
	while (!d->eof && !d->err && d->pos >= d->end) {
		if (d->pk + 1 >= d->st->npk) {
			d->eof = 1;
			break;
		}
		sdec_start(d, d->pk + 1);
	}
	if (d->err)
		return -1;
	if (d->eof)
		return 0;
	if (evt_stream_decode_one(d->tr, d->st, d->pkt, d->pos, d->end, d->tend, d->prev, &e, &next)) {
		d->err = 1;
		return -1;
	}
	d->pos = next;
	d->prev = e.ts;
	d->ev.ts = e.ts;
	d->ev.idx = EVT_DMETA_DESC(e.meta);
	d->ev.desc = &d->tr->md.cat->events[d->ev.idx];
	d->ev.payload = d->pkt + EVT_DMETA_OFF(e.meta);
	d->ev.len = EVT_DMETA_LEN(e.meta);
	d->have = 1;
	return 1;
}

/* Take the look-ahead: follow the running thread through its switches. */
static const struct evt_window_kind *sdec_take(struct evt_window *w, struct sdec *d)
{
	const struct evt_window_kind *k = kind_of(w, &d->ev);

	d->have = 0;
	if (k && k->kind == WK_SWITCH)
		d->cur = (int32_t)evt_event_int(&d->ev, k->next_off, k->next_type);
	return k;
}

static uint64_t scale(uint64_t v, uint64_t num, uint64_t den)
{
	return den ? (uint64_t)((unsigned __int128)v * num / den) : v;
}

/*
 * The packets a stream's sample will start its columns in, asked for all
 * at once: from a cold cache each is a read from the disk, and the disk
 * serves many reads queued together far faster than the same reads one by
 * one (the sample used to wait for each in turn).
 */
static void prefetch_stream(const struct evt_window *w, const struct evt_trace *tr, unsigned int si)
{
	const struct evt_stream *st = &tr->streams[si];
	uint32_t q = 0, last = UINT32_MAX, k, probes = 0, resident = 0;

	if (st->cpu >= w->nr_slot_of || w->slot_of[st->cpu] < 0 || !st->npk)
		return;
	/* A few of them in memory already (a warm cache): no need, and asking costs. */
	for (k = 0; k < 8; k++) {
		const uint64_t a = evt_window_col_start(w, (uint32_t)((uint64_t)w->cols * k / 8));

		while (q < st->npk && st->pk[q].end < a)
			q++;
		if (q == st->npk)
			break;
		probes++;
		resident += (uint32_t)evt_stream_resident(st, q);
	}
	if (probes && resident == probes)
		return;
	for (k = 0, q = 0; k < w->cols; k++) {
		while (q < st->npk && st->pk[q].end < evt_window_col_start(w, k))
			q++;
		if (q == st->npk)
			break;
		if (q != last && st->pk[q].begin < evt_window_col_end(w, k)) {
			evt_stream_prefetch(st, q, 1);
			last = q;
		}
	}
}

/* One stream's sample, column by column. 0, or -1 with @err set (a decoding error: what came before stays). */
static int sample_stream(struct evt_window *w, struct evt_trace *tr, unsigned int si, char *err, size_t errlen)
{
	struct evt_stream *st = &tr->streams[si];
	struct sdec d = { .tr = tr, .st = st, .pk = st->npk, .cur = -1 };
	struct evt_window_cpu *c;
	struct colacc acc;
	uint32_t p = 0;

	if (st->cpu >= w->nr_slot_of || w->slot_of[st->cpu] < 0 || !st->npk)
		return 0;
	c = &w->cpu[w->slot_of[st->cpu]];
	d.ev.tr = tr;
	d.ev.cpu = st->cpu;
	d.ev.stream = si;
	d.ev.channel = st->channel;
	for (uint32_t k = 0; k < w->cols; k++) {
		uint64_t a = evt_window_col_start(w, k), b = evt_window_col_end(w, k), t0, since, t_end, busy = 0;
		uint32_t irq = 0, soft = 0, n = 0;
		int32_t cur;
		int known, r = 1, switches = 0;

		while (p < st->npk && st->pk[p].end < a)
			p++;
		if (p == st->npk)
			break;
		if (st->pk[p].begin >= b)
			continue;
		/* Jump ahead when the stream in hand is packets behind (who runs is then unknown). */
		if (d.pk == st->npk || d.pk < p) {
			sdec_start(&d, p);
			d.cur = -1;
		}
		/* Up to the column: only who runs. */
		while ((r = sdec_peek(&d)) > 0 && d.ev.ts < a)
			sdec_take(w, &d);
		if (r < 0)
			break;
		known = d.cur >= 0;
		cur = d.cur;
		t0 = since = a;
		memset(&acc, 0, sizeof(acc));
		while (n < SAMPLE_EVENTS && (r = sdec_peek(&d)) > 0 && d.ev.ts < b) {
			uint64_t ts = d.ev.ts;
			int32_t prev_tid = -1;
			const struct evt_window_kind *kd = kind_of(w, &d.ev);

			if (!n && !known)
				t0 = since = ts;
			if (kd && kd->kind == WK_SWITCH)
				prev_tid = (int32_t)evt_event_int(&d.ev, kd->prev_off, kd->prev_type);
			kd = sdec_take(w, &d);
			n++;
			if (!kd)
				continue;
			if (kd->kind == WK_SWITCH) {
				if (cur < 0)
					cur = prev_tid;	/* the reading rule: prev_tid ran from the first event */
				acc_add(&acc, cur, ts - since);
				if (cur > 0)
					busy += ts - since;
				cur = d.cur;
				since = ts;
				switches = 1;
			} else if (kd->kind == WK_IRQ) {
				irq++;
			} else if (kd->kind == WK_SOFTIRQ) {
				soft++;
			}
		}
		if (r < 0)
			break;
		/* Whether the sample reached the column's end: then it knows the column's every event here. */
		t_end = r == 0 || (r > 0 && d.ev.ts >= b) ? b : d.prev;
		if (t_end < since)
			t_end = since;
		if (cur >= 0) {
			acc_add(&acc, cur, t_end - since);
			if (cur > 0)
				busy += t_end - since;
		}
		if (!n && !known)
			continue;
		if (t_end > t0) {
			irq = irq ? (uint32_t)(scale(irq, b - a, t_end - t0) ? scale(irq, b - a, t_end - t0) : 1) : 0;
			soft = soft ? (uint32_t)(scale(soft, b - a, t_end - t0) ? scale(soft, b - a, t_end - t0) : 1) : 0;
		}
		c->irq[k] += irq;
		c->soft[k] += soft;
		if (switches || known) {
			c->tid[k] = acc_best(&acc);
			c->busy[k] = t_end > t0 ? scale(busy, b - a, t_end - t0) : 0;
		}
	}
	if (d.err) {
		snprintf(err, errlen, "%s", st->errmsg);
		return -1;
	}
	return 0;
}

int evt_window_sample(struct evt_window *w, struct evt_trace *tr, char *err, size_t errlen)
{
	int ret = 0;

	for (unsigned int i = 0; i < tr->nr_streams; i++)
		prefetch_stream(w, tr, i);
	for (unsigned int i = 0; i < tr->nr_streams; i++)
		if (sample_stream(w, tr, i, err, errlen) && !ret)
			ret = 1;
	for (unsigned int i = 0; i < w->nr_cpus; i++)
		w->cpu[i].incomplete = 1;
	return ret;
}

/* ---- A thread's lane ---- */

int evt_window_thread_lane(const struct evt_state *st, const struct evt_state_thread *t, struct evt_window *w,
		       uint64_t (*ns)[EVT_TSTATE_COUNT])
{
	struct evt_state_interval iv;
	size_t lo = 0, hi = t->nch, i;

	/* The first interval that ends after from: the last change at or before it. */
	while (lo + 1 < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (evt_state_thread_interval(st, t, mid, &iv))
			return -1;
		if (iv.begin <= w->from)
			lo = mid;
		else
			hi = mid;
	}
	for (i = lo; !evt_state_thread_interval(st, t, i, &iv) && iv.begin <= w->to; i++) {
		uint64_t a = iv.begin > w->from ? iv.begin : w->from;
		uint64_t z = iv.end < w->to + 1 ? iv.end : w->to + 1;

		while (a < z) {
			uint32_t k = evt_window_col_of(w, a);
			uint64_t end = k + 1 < w->cols ? evt_window_col_start(w, k + 1) : w->to + 1;

			if (end > z)
				end = z;
			ns[k][iv.state < EVT_TSTATE_COUNT ? iv.state : EVT_TSTATE_UNKNOWN] += end - a;
			a = end;
		}
	}
	return 0;
}
