// SPDX-License-Identifier: GPL-2.0
/*
 * evview's JSON API (see evview(1)). JSON is built with jansson (Debian's
 * libjansson, well kept): strings are escaped and numbers written by a
 * library that does nothing else, not by hand in every handler. Event
 * fields come from lib/format's JSON formatter, evcat's own, so a page of
 * events reads exactly as `evcat --format json` prints them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "evt_comp_index.h"
#include "evt_comp_marks.h"
#include "evt_cpulist.h"
#include "evt_json.h"
#include "evt_format.h"
#include "evt_report.h"
#include "evt_comp_power.h"
#include "evv.h"

#define MAX_COLS 4096
/*
 * Cells (columns x CPUs) of one window at most: a window's memory and its
 * answer grow with both (4096 columns of 8192 CPUs were half a gigabyte of
 * JSON and 6.8 GB of memory). /api/trace says the columns this allows.
 */
#define MAX_CELLS (1U << 20)
#define MAX_LIMIT 1000
#define MAX_EVENT_NAMES 64

enum { WD_EVENTS, WD_SUMMARY, WD_SAMPLE };
static const char *const detail_name[] = { "events", "summary", "sample" };

static const char *arg(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

/* A decimal number into *v (absent: *v untouched): 0, or the status of the error answer made. */
static unsigned int get_u64(struct MHD_Connection *c, const char *name, uint64_t *v, char **body)
{
	const char *s = arg(c, name);
	char *end;

	if (!s)
		return 0;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end || !*s || *s < '0' || *s > '9')
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "%s: \"%s\" is not a whole number", name, s);
	return 0;
}

/* from and to (realtime ns, the span when absent), inside the span: 0 or the error's status. */
static unsigned int get_range(struct evv *s, struct MHD_Connection *c, uint64_t *from, uint64_t *to, char **body)
{
	unsigned int st;

	*from = s->first_rt;
	*to = s->last_rt;
	if ((st = get_u64(c, "from", from, body)) || (st = get_u64(c, "to", to, body)))
		return st;
	if (*from > *to)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "from (%llu) is after to (%llu)",
				 (unsigned long long)*from, (unsigned long long)*to);
	if (*from < s->first_rt || *to > s->last_rt)
		return evv_error(MHD_HTTP_BAD_REQUEST, body,
				 "%s: %llu is outside the trace's span [%llu, %llu] (realtime ns)",
				 *from < s->first_rt ? "from" : "to",
				 (unsigned long long)(*from < s->first_rt ? *from : *to),
				 (unsigned long long)s->first_rt, (unsigned long long)s->last_rt);
	return 0;
}

/* The columns a window may have: MAX_COLS, fewer when there are many CPUs. */
static uint32_t max_cols(const struct evv *s)
{
	uint32_t n = MAX_CELLS / (s->nr_cpus ? s->nr_cpus : 1);

	return n < MAX_COLS ? (n ? n : 1) : MAX_COLS;
}

/* A count as JSON (evt_json_u64: one past INT64_MAX is null, never negative). */
static json_t *json_u64(uint64_t v)
{
	return evt_json_u64(v);
}

/* ASCII only: a name's C1 control or bidi override goes out as \uXXXX, never raw to a terminal (curl). */
static unsigned int reply(json_t *o, char **body)
{
	*body = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(6)) : NULL;
	json_decref(o);
	return *body ? MHD_HTTP_OK : evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "out of memory");
}

/* The helpers above, for the other handlers' file (evv_detail.c). */
const char *evv_arg(struct MHD_Connection *c, const char *name)
{
	return arg(c, name);
}

unsigned int evv_get_u64(struct MHD_Connection *c, const char *name, uint64_t *v, char **body)
{
	return get_u64(c, name, v, body);
}

unsigned int evv_get_range(struct evv *s, struct MHD_Connection *c, uint64_t *from, uint64_t *to, char **body)
{
	return get_range(s, c, from, to, body);
}

json_t *evv_json_u64(uint64_t v)
{
	return json_u64(v);
}

unsigned int evv_reply(json_t *o, char **body)
{
	return reply(o, body);
}

unsigned int evv_reply_computing(struct evv *s, char **body)
{
	unsigned int p = evv_percent(s);

	evv_leave(s);
	return reply(json_pack("{s:b,s:I}", "computing", 1, "percent", (json_int_t)p), body);
}

/* ---- /api/trace ---- */

unsigned int evv_api_trace(struct evv *s, struct MHD_Connection *c, char **body)
{
	json_t *o = json_object(), *cpus = json_array(), *streams = json_array(), *chunks = json_array();
	const struct evt_index *ix;
	struct evt_bg_info bi;
	const char *err;
	unsigned int i;
	char when[48];

	(void)c;
	if (!o || !cpus || !streams || !chunks) {
		json_decref(o);
		json_decref(cpus);
		json_decref(streams);
		json_decref(chunks);
		return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "out of memory");
	}
	evv_enter(s);
	evt_bg_info(s->t, &bi);
	json_object_set_new(o, "path", json_string(evt_etrace_path(s->t)));
	json_object_set_new(o, "offset_ns", json_integer((json_int_t)s->offset_ns));
	json_object_set_new(o, "first_rt", json_integer((json_int_t)s->first_rt));
	json_object_set_new(o, "last_rt", json_integer((json_int_t)s->last_rt));
	evt_fmt_clock(when, s->first_rt, 1);
	json_object_set_new(o, "first", json_string(when));
	evt_fmt_clock(when, s->last_rt, 1);
	json_object_set_new(o, "last", json_string(when));
	for (i = 0; i < s->nr_cpus; i++)
		json_array_append_new(cpus, json_integer(s->cpu_of[i]));
	json_object_set_new(o, "cpus", cpus);
	json_object_set_new(o, "max_cols", json_integer(max_cols(s)));
	for (i = 0; i < s->tr->nr_streams; i++) {
		const struct evt_stream *st = &s->tr->streams[i];

		json_array_append_new(streams, json_pack("{s:I,s:I,s:s,s:s,s:I}", "id", (json_int_t)st->id,
							 "cpu", (json_int_t)st->cpu,
							 "channel", evt_channel_name(st->channel),
							 "file", st->name, "packets", (json_int_t)st->npk));
	}
	json_object_set_new(o, "streams", streams);
	for (i = 0; i < s->tr->nr_chunks; i++) {
		const struct evt_chunk_ref *k = &s->tr->chunks[i];

		json_array_append_new(chunks, json_pack("{s:s,s:I,s:I,s:I}", "name", k->name,
							"begin_rt", (json_int_t)k->begin_rt,
							"end_rt", (json_int_t)k->end_rt, "seq", (json_int_t)k->seq));
	}
	json_object_set_new(o, "chunks", chunks);
	json_object_set_new(o, "losses", evv_losses_json(s));
	ix = s->ready_index ? evt_comp_result(s->t, "index") : NULL;
	json_object_set_new(o, "events", ix ? json_u64(ix->total) : json_null());
	json_object_set_new(o, "passes", json_integer((json_int_t)bi.passes));
	json_object_set_new(o, "ready", json_pack("{s:b,s:b,s:b,s:b}", "state", s->ready_state,
						  "stats", s->ready_stats, "index", s->ready_index, "marks",
						  s->ready_marks));
	json_object_set_new(o, "percent", json_integer(evv_percent(s)));
	err = s->error[0] ? s->error : evt_comp_error(s->t);
	json_object_set_new(o, "error", err ? json_string(err) : json_null());
	evv_leave(s);
	return reply(o, body);
}

/* ---- /api/window: per CPU and pixel column ---- */

/*
 * The rule (tests/tools/evview-check.py computes it the same way from
 * evcat's JSON): [from, to] is cut into cols columns, column k covering
 * [from + floor(k * n / cols), from + floor((k + 1) * n / cols)) with
 * n = to - from + 1. A CPU runs a thread from one sched_switch's
 * next_tid to the next switch (to + 1 at the end). At from the thread is
 * the ready state result's; without one (or where it does not know: before
 * the CPU's first event) it is unknown until the CPU's first switch, whose
 * prev_tid then runs from the CPU's first event of the window (the state
 * computation's rule). A CPU is flagged incomplete when the state result
 * is not ready and some of its time is unknown: the same window asked
 * again once it is ready may say more. A column's tid is the thread other than idle (tid 0) that
 * ran longest in it (ties: the smaller tid), busy the time a thread
 * other than idle ran over the column's length; irq and softirq count
 * irq_handler_entry and softirq_entry events; lost counts the packets
 * whose headers say events or packets were lost just before them.
 */
struct wtid {
	int32_t tid;
	uint64_t ns;
};

struct wcpu {
	int32_t cur;			/* -1: unknown */
	uint64_t since;			/* when cur started (clock) */
	uint64_t first;			/* its first event in the window */
	int seen, switched, incomplete;
	uint32_t col;			/* the column being summed */
	struct wtid *acc;		/* its threads' times */
	uint32_t nacc, cap;
	int32_t *tid;			/* per column: the result */
	uint64_t *busy;
	uint32_t *irq, *soft, *lost;
};

enum { WK_UNSEEN, WK_OTHER, WK_SWITCH, WK_IRQ, WK_SOFTIRQ };

struct wkind {
	uint8_t kind;
	enum evt_field_type prev_type, next_type;
	int prev_off, next_off, comm_off;
};

struct comm {
	int32_t tid;
	char comm[16];
};

struct window {
	uint64_t from, to;		/* clock */
	uint64_t n;			/* to - from + 1 */
	uint32_t cols;
	unsigned int nr_cpus;		/* CPUs with a stream: w->cpu[slot] */
	const unsigned int *cpu_of;	/* slot -> CPU */
	const int32_t *slot_of;		/* CPU -> slot, -1: no stream */
	unsigned int nr_slot_of;
	struct wcpu *cpu;
	struct wkind *kinds;
	unsigned int nr_kinds;
	struct comm *comms;		/* tid -> the last next_comm seen (open addressing) */
	uint32_t comm_cap, nr_comms;
	int state_ready;		/* CPUs seeded from the state result */
	int oom;
};

static uint64_t col_start(const struct window *w, uint64_t k)
{
	return w->from + (uint64_t)((unsigned __int128)k * w->n / w->cols);
}

static uint32_t col_of(const struct window *w, uint64_t ts)
{
	uint64_t k = (uint64_t)((unsigned __int128)(ts - w->from) * w->cols / w->n);

	/* floor() may put ts one column early or late at the boundaries: settle it. */
	while (k > 0 && col_start(w, k) > ts)
		k--;
	while (k + 1 < w->cols && col_start(w, k + 1) <= ts)
		k++;
	return (uint32_t)k;
}

/* The column summed so far is over: its winner. */
static void col_close(struct wcpu *c)
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

static void col_add(struct window *w, struct wcpu *c, uint32_t k, int32_t tid, uint64_t ns)
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
			struct wtid *a = realloc(c->acc, cap * sizeof(*a));

			if (!a) {
				w->oom = 1;
				return;
			}
			c->acc = a;
			c->cap = cap;
		}
		c->acc[c->nacc++] = (struct wtid){ tid, 0 };
	}
	c->acc[i].ns += ns;
}

/* @tid ran on @c over [a, z). */
static void charge(struct window *w, struct wcpu *c, int32_t tid, uint64_t a, uint64_t z)
{
	if (tid < 0 && z > a && !w->state_ready)
		c->incomplete = 1;
	while (a < z) {
		uint32_t k = col_of(w, a);
		uint64_t end = k + 1 < w->cols ? col_start(w, k + 1) : w->to + 1;

		if (end > z)
			end = z;
		col_add(w, c, k, tid, end - a);
		a = end;
	}
}

static void comm_put(struct window *w, int32_t tid, const char *comm)
{
	uint32_t i;

	if (2 * (w->nr_comms + 1) > w->comm_cap) {
		uint32_t cap = w->comm_cap ? 2 * w->comm_cap : 256;
		struct comm *n = calloc(cap, sizeof(*n));

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

static const char *comm_get(const struct window *w, int32_t tid)
{
	if (!w->comm_cap)
		return NULL;
	for (uint32_t i = (uint32_t)tid & (w->comm_cap - 1); w->comms[i].tid >= 0; i = (i + 1) & (w->comm_cap - 1))
		if (w->comms[i].tid == tid)
			return w->comms[i].comm;
	return NULL;
}

static const struct wkind *kind_of(struct window *w, const struct evt_engine_event *ev)
{
	struct wkind *k;
	enum evt_field_type t;

	if (ev->idx >= w->nr_kinds) {
		unsigned int n = ev->tr->md.cat->nr_events;
		struct wkind *a = n > ev->idx ? realloc(w->kinds, n * sizeof(*a)) : NULL;

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

static int window_event(void *data, void *call)
{
	struct window *w = data;
	const struct evt_engine_event *ev = call;
	const struct wkind *k = kind_of(w, ev);
	struct wcpu *c;

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
		w->cpu[ev->cpu].irq[col_of(w, ev->ts)]++;
		break;
	case WK_SOFTIRQ:
		w->cpu[ev->cpu].soft[col_of(w, ev->ts)]++;
		break;
	}
	return 0;
}

static void window_free(struct window *w)
{
	for (unsigned int i = 0; w->cpu && i < w->nr_cpus; i++) {
		struct wcpu *c = &w->cpu[i];

		free(c->acc);
		free(c->tid);
		free(c->busy);
		free(c->irq);
		free(c->soft);
		free(c->lost);
	}
	free(w->cpu);
	free(w->kinds);
	free(w->comms);
}

static int window_init(struct window *w, const struct evv *s, uint64_t from, uint64_t to, uint32_t cols)
{
	const struct evt_state *ready = s->ready_state ? evt_comp_result(s->t, "state") : NULL;

	memset(w, 0, sizeof(*w));
	w->from = from;
	w->to = to;
	w->n = to - from + 1;
	w->cols = cols;
	w->nr_cpus = s->nr_cpus;
	w->cpu_of = s->cpu_of;
	w->slot_of = s->slot_of;
	w->nr_slot_of = s->nr_slot_of;
	w->state_ready = ready != NULL;
	w->cpu = calloc(w->nr_cpus ? w->nr_cpus : 1, sizeof(*w->cpu));
	if (!w->cpu)
		return -1;
	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		struct wcpu *c = &w->cpu[i];

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
	for (uint32_t i = 0; i < s->losses->nr_losses; i++) {
		const struct evt_stats_loss *l = &s->losses->losses[i];

		if (l->ts >= from && l->ts <= to && l->stream < s->losses->nr_streams &&
		    s->losses->streams[l->stream].cpu < w->nr_slot_of && w->slot_of[s->losses->streams[l->stream].cpu] >= 0)
			w->cpu[w->slot_of[s->losses->streams[l->stream].cpu]].lost[col_of(w, l->ts)]++;
	}
	return 0;
}

static void window_end(struct window *w)
{
	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		struct wcpu *c = &w->cpu[i];

		if (c->cur < 0 && !c->switched && !w->state_ready)
			c->incomplete = 1;
		charge(w, c, c->cur, c->since, w->to + 1);
		col_close(c);
	}
}

/*
 * Per column, a CPU's idle state (the one held longest there: its number, -1
 * running) or its frequency (the time-weighted mean, kHz), from the power
 * result (null where unknown, and every column until the pass is done).
 */
static json_t *power_column(const struct evt_power *pw, const struct window *w, unsigned int cpu, int idle)
{
	const struct evt_power_cpu *c = pw ? evt_power_cpu(pw, cpu) : NULL;
	json_t *a = json_array();

	for (uint32_t k = 0; a && k < w->cols; k++) {
		uint64_t from = col_start(w, k), to = k + 1 < w->cols ? col_start(w, k + 1) : w->to + 1;
		double mean;
		uint32_t v = c ? evt_power_mostly(idle ? c->idle : c->freq, idle ? c->nr_idle : c->nr_freq, pw->end,
						  from, to, &mean) : EVT_POWER_UNKNOWN;

		if (v == EVT_POWER_UNKNOWN)
			json_array_append_new(a, json_null());
		else if (idle)
			json_array_append_new(a, json_integer(v == EVT_POWER_RUNNING ? -1 : (json_int_t)v));
		else
			json_array_append_new(a, json_integer((json_int_t)(mean + 0.5)));
	}
	return a ? a : json_null();
}

static json_t *window_json(const struct window *w, const struct evv *s, const char *error, int detail,
			   json_t *estimated)
{
	const struct evt_state *ready = s->ready_state ? evt_comp_result(s->t, "state") : NULL;
	const struct evt_power *power = s->ready_power ? evt_comp_result(s->t, "power") : NULL;
	json_t *o = json_object(), *cpus = json_array(), *threads = json_object(), *empty = json_array(), *est;
	int incomplete = 0;
	char key[16];

	if (!o || !cpus || !threads || !empty)
		goto oom;
	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		const struct wcpu *c = &w->cpu[i];
		json_t *tid = json_array(), *busy = json_array(), *irq = json_array(),
		       *soft = json_array(), *lost = json_array();

		if (!tid || !busy || !irq || !soft || !lost) {
			json_decref(tid);
			json_decref(busy);
			json_decref(irq);
			json_decref(soft);
			json_decref(lost);
			goto oom;
		}
		for (uint32_t k = 0; k < w->cols; k++) {
			uint64_t len = (k + 1 < w->cols ? col_start(w, k + 1) : w->to + 1) - col_start(w, k);

			json_array_append_new(tid, c->tid[k] >= 0 ? json_integer(c->tid[k]) : json_null());
			json_array_append_new(busy, json_real(len ? (double)c->busy[k] / (double)len : 0.0));
			json_array_append_new(irq, json_integer(c->irq[k]));
			json_array_append_new(soft, json_integer(c->soft[k]));
			json_array_append_new(lost, json_integer(c->lost[k]));
			if (c->tid[k] > 0) {
				const struct evt_state_thread *t = ready ? evt_state_thread(ready, c->tid[k]) : NULL;
				const char *comm = t ? t->comm : comm_get(w, c->tid[k]);

				snprintf(key, sizeof(key), "%d", c->tid[k]);
				if (!json_object_get(threads, key))
					json_object_set_new(threads, key, comm ? json_string(comm) : json_null());
			}
		}
		incomplete |= c->incomplete;
		est = estimated ? json_array_get(estimated, i) : NULL;
		json_array_append_new(cpus, json_pack("{s:I,s:b,s:o,s:o,s:o,s:o,s:o,s:O,s:o,s:o}", "cpu",
						      (json_int_t)w->cpu_of[i], "incomplete", c->incomplete,
						      "tid", tid, "busy", busy, "irq", irq, "softirq", soft,
						      "lost", lost, "estimated", est ? est : empty,
						      "idle", power_column(power, w, w->cpu_of[i], 1),
						      "freq", power_column(power, w, w->cpu_of[i], 0)));
	}
	json_object_set_new(o, "from", json_integer((json_int_t)(w->from + s->offset_ns)));
	json_object_set_new(o, "to", json_integer((json_int_t)(w->to + s->offset_ns)));
	json_object_set_new(o, "cols", json_integer(w->cols));
	json_object_set_new(o, "detail", json_string(detail_name[detail]));
	json_object_set_new(o, "incomplete", json_boolean(incomplete || error));
	json_object_set_new(o, "error", error ? json_string(error) : json_null());
	json_object_set_new(o, "cpus", cpus);
	json_object_set_new(o, "threads", threads);
	json_decref(empty);
	return o;
oom:
	json_decref(empty);
	json_decref(o);
	json_decref(cpus);
	json_decref(threads);
	return NULL;
}

/* ---- Wide windows: from the background results, or a sample ---- */

/*
 * A window whose range holds more than WINDOW_READ_BYTES of packets is not
 * read event by event (that is seconds on a multi-GB trace). Once the
 * state and marks results are ready it is summed from them ("summary"):
 * the same rule as reading the events, column for column, with the
 * busy time from running totals kept every SUM_BLOCK intervals and the
 * interrupt counts by binary search in the marks; only a column that
 * holds more than SUM_EXACT intervals has its thread estimated, as the
 * one running at most of SUM_POINTS evenly spaced times (such columns
 * are listed in "estimated"). Before
 * they are ready it is sampled ("sample", flagged incomplete): per
 * stream and column, SAMPLE_EVENTS events from the first packet that
 * starts in the column (or from where the column starts in the packet
 * that holds it), scaled to the column.
 */
#define WINDOW_READ_BYTES (16ULL << 20)
#define SUM_BLOCK 64
#define SUM_EXACT 512
#define SUM_POINTS 128
#define SAMPLE_EVENTS 256

/* A column's threads (a summary's or a sample's): a few, searched linearly. */
struct colacc {
	struct wtid v[SUM_EXACT + 2];
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
		a->v[a->n++] = (struct wtid){ tid, 0 };
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

static uint64_t col_end(const struct window *w, uint32_t k)
{
	return k + 1 < w->cols ? col_start(w, k + 1) : w->to + 1;
}

/* Packet bytes of [from, to] (clock), over every stream: what reading its events costs. */
static uint64_t range_bytes(const struct evt_trace *tr, uint64_t from, uint64_t to)
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

struct evv_summary {
	unsigned int nr;
	struct sum_cpu *cpu;
};

void evv_summary_free(struct evv *s)
{
	struct evv_summary *sm = s->summary;

	if (!sm)
		return;
	for (unsigned int i = 0; i < sm->nr; i++)
		free(sm->cpu[i].cum);
	free(sm->cpu);
	free(sm);
	s->summary = NULL;
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

long evv_iv_find(const struct evt_state *st, unsigned int cpu, uint64_t ts)
{
	return iv_find(st, cpu, evt_state_cpu_nr_intervals(st, cpu), ts);
}

/*
 * The running totals of @cpu, once. Unusable (the window is then read
 * event by event) when the state's first real switch is not the marks'.
 */
static struct sum_cpu *sum_cpu_get(struct evv *s, const struct evt_state *st, const struct evt_marks *m,
				   unsigned int slot, unsigned int cpu)
{
	struct evv_summary *sm = s->summary;
	const struct evt_marks_cpu *mc = evt_marks_cpu(m, cpu);
	struct evt_state_interval iv;
	struct sum_cpu *sc;
	uint64_t run = 0;

	if (!sm) {
		sm = s->summary = calloc(1, sizeof(*sm));
		if (!sm)
			return NULL;
		sm->nr = s->nr_cpus;
		sm->cpu = calloc(sm->nr ? sm->nr : 1, sizeof(*sm->cpu));
		if (!sm->cpu) {
			free(sm);
			s->summary = NULL;
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
static int window_summary(struct window *w, struct evv *s, json_t *estimated)
{
	const struct evt_state *st = evt_comp_result(s->t, "state");
	const struct evt_marks *m = evt_comp_result(s->t, "marks");
	struct colacc *acc = malloc(sizeof(*acc));
	int ret = -1;

	if (!acc || !st || !m || !evt_marks_complete(m))
		goto out;
	for (unsigned int slot = 0; slot < w->nr_cpus; slot++) {
		const unsigned int i = w->cpu_of[slot];	/* the CPU */
		struct wcpu *c = &w->cpu[slot];
		const struct evt_marks_cpu *mc = evt_marks_cpu(m, i);
		struct sum_cpu *sc = sum_cpu_get(s, st, m, slot, i);
		json_t *est = json_array();
		uint64_t s1 = w->to + 1, since0 = w->from, prev_busy;
		struct evt_state_interval iv;
		int32_t cur0;
		long j1;

		if (!sc || !sc->usable || !est) {
			json_decref(est);
			goto out;
		}
		json_array_append_new(estimated, est);
		for (uint32_t k = 0; k < w->cols; k++) {
			c->irq[k] = (uint32_t)evt_marks_count(m, i, EVT_MARK_IRQ, col_start(w, k), col_end(w, k));
			c->soft[k] = (uint32_t)evt_marks_count(m, i, EVT_MARK_SOFTIRQ, col_start(w, k), col_end(w, k));
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
			uint64_t a = col_start(w, k), z = col_end(w, k), lo, busy;
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
					json_array_append_new(est, json_integer(k));
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
static const struct wkind *sdec_take(struct window *w, struct sdec *d)
{
	const struct wkind *k = kind_of(w, &d->ev);

	d->have = 0;
	if (k && k->kind == WK_SWITCH)
		d->cur = (int32_t)evt_event_int(&d->ev, k->next_off, k->next_type);
	return k;
}

static uint64_t scale(uint64_t v, uint64_t num, uint64_t den)
{
	return den ? (uint64_t)((unsigned __int128)v * num / den) : v;
}

/* One stream's sample, column by column. 0, or -1 with @err set (a decoding error: what came before stays). */
static int sample_stream(struct window *w, struct evt_trace *tr, unsigned int si, char *err, size_t errlen)
{
	struct evt_stream *st = &tr->streams[si];
	struct sdec d = { .tr = tr, .st = st, .pk = st->npk, .cur = -1 };
	struct wcpu *c;
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
		uint64_t a = col_start(w, k), b = col_end(w, k), t0, since, t_end, busy = 0;
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
			const struct wkind *kd = kind_of(w, &d.ev);

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

static int window_sample(struct window *w, struct evv *s, char *err, size_t errlen)
{
	int ret = 0;

	if (!s->sample_open) {
		if (evt_trace_clone(&s->sample_tr, s->tr))
			return -1;
		s->sample_open = 1;
	}
	for (unsigned int i = 0; i < s->sample_tr.nr_streams; i++)
		if (sample_stream(w, &s->sample_tr, i, err, errlen) && !ret)
			ret = 1;
	for (unsigned int i = 0; i < w->nr_cpus; i++)
		w->cpu[i].incomplete = 1;
	return ret;
}

unsigned int evv_api_window(struct evv *s, struct MHD_Connection *c, char **body)
{
	const char *read = arg(c, "read");
	uint64_t from, to, cols = 0;
	struct window w;
	struct evt_request r;
	char err[EVT_TRACE_ERRLEN] = "";
	const char *error = NULL;
	json_t *o = NULL, *estimated = NULL;
	unsigned int st;
	int ok, detail, ready;

	if ((st = get_range(s, c, &from, &to, body)) || (st = get_u64(c, "cols", &cols, body)))
		return st;
	if (!arg(c, "cols") || cols < 1 || cols > MAX_COLS)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "cols: a number of columns 1..%d is needed", MAX_COLS);
	if (cols > max_cols(s))
		return evv_error(MHD_HTTP_BAD_REQUEST, body,
				 "cols: at most %u columns for this trace's %u CPUs (columns x CPUs at most %u)",
				 max_cols(s), s->nr_cpus, MAX_CELLS);
	if (read && strcmp(read, "auto") && strcmp(read, "events") && strcmp(read, "summary") && strcmp(read, "sample"))
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "read: auto, events, summary or sample, not \"%s\"", read);
	evt_request_init(&r, s);
	r.from_rt = from;
	r.to_rt = to;
	evv_enter(s);
	ready = s->ready_state && s->ready_marks;
	if (!read || !strcmp(read, "auto"))
		detail = range_bytes(s->tr, from - s->offset_ns, to - s->offset_ns) <= WINDOW_READ_BYTES ? WD_EVENTS :
			 ready ? WD_SUMMARY : WD_SAMPLE;
	else
		detail = !strcmp(read, "events") ? WD_EVENTS : !strcmp(read, "summary") ? WD_SUMMARY : WD_SAMPLE;
	if (detail == WD_SUMMARY && !ready) {
		evv_leave(s);
		evt_request_release(&r);
		return evv_error(MHD_HTTP_CONFLICT, body, "read=summary: the background pass is not done (%u %%)",
				 evv_percent(s));
	}
	ok = !window_init(&w, s, from - s->offset_ns, to - s->offset_ns, (uint32_t)cols);
	if (ok && detail == WD_SUMMARY) {
		estimated = json_array();
		if (!estimated || window_summary(&w, s, estimated)) {
			/* Not to be summed here (or no memory): read the events. */
			json_decref(estimated);
			estimated = NULL;
			window_free(&w);
			detail = WD_EVENTS;
			ok = !window_init(&w, s, from - s->offset_ns, to - s->offset_ns, (uint32_t)cols);
		}
	}
	if (ok && detail == WD_SAMPLE) {
		int e = window_sample(&w, s, err, sizeof(err));

		ok = e >= 0;
		if (e > 0)
			error = err;
	}
	if (ok && detail == WD_EVENTS) {
		ok = !evt_hooks_add(&r.ctx.event, window_event, &w) && !evv_run_request(s, s->ts, &r);
		if (ok) {
			window_end(&w);
			if (r.error)
				error = r.errmsg;
		}
	}
	if (ok && !w.oom)
		o = window_json(&w, s, error, detail, estimated);
	evv_leave(s);
	json_decref(estimated);
	evt_request_release(&r);
	window_free(&w);
	if (!o)
		return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "%s", r.errmsg[0] ? r.errmsg : "out of memory");
	return reply(o, body);
}

/* ---- /api/thread: a thread's lane, from the ready state result ---- */

/*
 * Per column of [from, to] (cut as /api/window's): the share of the
 * column the thread ran (user, syscall, IRQ or softirq state) and the
 * state it spent longest in (ties: the first in enum evt_tstate's order;
 * null where the state result says nothing). The state result's last
 * interval ends at the trace's last event.
 */
static int thread_lane(const struct evt_state *st, const struct evt_state_thread *t, struct window *w,
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
			uint32_t k = col_of(w, a);
			uint64_t end = k + 1 < w->cols ? col_start(w, k + 1) : w->to + 1;

			if (end > z)
				end = z;
			ns[k][iv.state < EVT_TSTATE_COUNT ? iv.state : EVT_TSTATE_UNKNOWN] += end - a;
			a = end;
		}
	}
	return 0;
}

unsigned int evv_api_thread(struct evv *s, struct MHD_Connection *c, char **body)
{
	uint64_t from, to, cols = 0, tid = UINT64_MAX;
	const struct evt_state_thread *t;
	const struct evt_state *st;
	uint64_t (*ns)[EVT_TSTATE_COUNT];
	json_t *o = NULL, *run, *state;
	struct window w = { 0 };
	unsigned int status;

	if ((status = get_range(s, c, &from, &to, body)) || (status = get_u64(c, "cols", &cols, body)) ||
	    (status = get_u64(c, "tid", &tid, body)))
		return status;
	if (!arg(c, "cols") || cols < 1 || cols > MAX_COLS)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "cols: a number of columns 1..%d is needed", MAX_COLS);
	if (tid > INT32_MAX)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "tid: a thread id is needed");
	evv_enter(s);
	if (!s->ready_state)
		return evv_reply_computing(s, body);
	st = evt_comp_result(s->t, "state");
	t = st ? evt_state_thread(st, (int32_t)tid) : NULL;
	if (!t || !tid) {
		evv_leave(s);
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "tid: no thread %llu in the trace",
				 (unsigned long long)tid);
	}
	w.from = from - s->offset_ns;
	w.to = to - s->offset_ns;
	w.n = w.to - w.from + 1;
	w.cols = (uint32_t)cols;
	ns = calloc(cols, sizeof(*ns));
	run = json_array();
	state = json_array();
	if (ns && run && state && !thread_lane(st, t, &w, ns)) {
		for (uint32_t k = 0; k < w.cols; k++) {
			uint64_t len = (k + 1 < w.cols ? col_start(&w, k + 1) : w.to + 1) - col_start(&w, k), best = 0;
			uint64_t running = ns[k][EVT_TSTATE_USER] + ns[k][EVT_TSTATE_SYSCALL] + ns[k][EVT_TSTATE_IRQ] +
					   ns[k][EVT_TSTATE_SOFTIRQ];
			int b = -1;

			for (int j = 0; j < EVT_TSTATE_COUNT; j++)
				if (ns[k][j] > best) {
					best = ns[k][j];
					b = j;
				}
			json_array_append_new(run, json_real(len ? (double)running / (double)len : 0.0));
			json_array_append_new(state, b >= 0 ? json_string(evt_tstate_name((enum evt_tstate)b)) :
						     json_null());
		}
		o = json_pack("{s:I,s:I,s:I,s:s,s:I,s:I,s:I,s:O,s:O}", "tid", (json_int_t)t->tid,
			      "pid", (json_int_t)t->pid, "ppid", (json_int_t)t->ppid, "comm", t->comm,
			      "from", (json_int_t)from, "to", (json_int_t)to, "cols", (json_int_t)cols,
			      "running", run, "state", state);
	}
	evv_leave(s);
	free(ns);
	json_decref(run);
	json_decref(state);
	if (!o)
		return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "out of memory");
	return reply(o, body);
}

/* ---- /api/events: a page ---- */

/*
 * Paging by cursor. The events of a selection come in one order: by
 * realtime, and at equal times by the merged reader's tie order (within a
 * trace the stream with the lower index, streams sorted by CPU then channel,
 * and in a stream its file order; across the traces of a traceset the lower
 * trace). Per-event filters (cpu, event) keep that order. So the events at
 * or after a time T are a suffix of the sequence, and a request from T reads
 * that suffix only (every stream seeks through the packet index to T).
 *
 * A cursor "T:K" names the place after the K-th event at realtime T: the
 * next page is the request from T skipping K events, all of which must be at
 * T (else the cursor is not of this selection: 400). A page's cursor is its
 * last event's time and how many events at that time the request delivered
 * up to it, counted from the request's start, which is at or before T.
 */
#define CURSOR_LEN 48

struct page {
	uint64_t skip, limit, n;
	int after;			/* skipping a cursor's events: each must be at after_rt */
	uint64_t after_rt;
	uint64_t last_rt, run;		/* the last event in the page, events at its time so far */
	int bad_cursor;			/* an event other than at after_rt among the skipped */
	uint64_t bad_rt;
	struct evt_request *req;
	struct evt_fmt fmt;
	int fmt_ok;
	const struct evt_symbols *syms;	/* kernel_stack's addresses named */
	struct evt_out out;
	json_t *events;
	int oom;
};

/* "T:K" (decimal realtime ns, decimal count >= 1): 0, or -1. */
static int cursor_parse(const char *s, uint64_t *rt, uint64_t *k)
{
	const char *c = strchr(s, ':');
	char *end;

	if (!c || c == s || s[0] < '0' || s[0] > '9' || c[1] < '0' || c[1] > '9')
		return -1;
	errno = 0;
	*rt = strtoull(s, &end, 10);
	if (errno || end != c)
		return -1;
	*k = strtoull(c + 1, &end, 10);
	if (errno || *end || !*k)
		return -1;
	return 0;
}

static void cursor_text(char *buf, size_t len, uint64_t rt, uint64_t k)
{
	snprintf(buf, len, "%llu:%llu", (unsigned long long)rt, (unsigned long long)k);
}

static int page_event(void *data, void *call)
{
	struct page *p = data;
	const struct evt_engine_event *ev = call;
	json_error_t jerr;
	json_t *e;
	uint64_t i = p->n++;

	/* The one past the page (max_events): only says that more follow. */
	if (i >= p->skip + p->limit)
		return 0;
	if (!i || ev->rt != p->last_rt) {
		p->last_rt = ev->rt;
		p->run = 0;
	}
	p->run++;
	if (i < p->skip) {
		if (p->after && ev->rt != p->after_rt) {
			p->bad_cursor = 1;
			p->bad_rt = ev->rt;
			p->req->stop = 1;
		}
		return 0;
	}
	if (!p->fmt_ok) {
		if (evt_fmt_init(&p->fmt, EVT_FMT_JSON, evt_etrace_offset_ns(ev->trace), ev->tr->md.cat->events,
				 ev->tr->md.cat->nr_events)) {
			p->oom = 1;
			return 0;
		}
		p->fmt.syms = p->syms;
		p->fmt_ok = 1;
	}
	p->out.len = 0;
	if (evt_fmt_event(&p->fmt, &p->out, ev->ts, ev->cpu, ev->desc, ev->payload, ev->len, 0) ||
	    !evt_out_room(&p->out, 1)) {
		p->oom = 1;
		return 0;
	}
	e = json_loadb(p->out.buf, p->out.len, 0, &jerr);
	if (!e) {
		p->oom = 1;
		return 0;
	}
	json_object_set_new(e, "realtime", json_integer((json_int_t)ev->rt));
	json_array_append_new(p->events, e);
	return 0;
}

/* after=T:K: the request's start and the events to skip; 0 or the error's status. */
static unsigned int get_cursor(struct MHD_Connection *c, uint64_t from, uint64_t to, struct page *p, char **body)
{
	const char *s = arg(c, "after");

	if (!s)
		return 0;
	if (arg(c, "offset"))
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "after and offset: one or the other, not both");
	if (cursor_parse(s, &p->after_rt, &p->skip))
		return evv_error(MHD_HTTP_BAD_REQUEST, body,
				 "after: \"%s\" is not a cursor (TIME:COUNT, as a page's \"next\")", s);
	if (p->after_rt < from || p->after_rt > to)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "after: %llu is outside [from, to] = [%llu, %llu]",
				 (unsigned long long)p->after_rt, (unsigned long long)from,
				 (unsigned long long)to);
	if (p->skip > UINT64_MAX - MAX_LIMIT - 1)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "after: the count is too large");
	p->after = 1;
	return 0;
}

unsigned int evv_api_events(struct evv *s, struct MHD_Connection *c, char **body)
{
	uint64_t from, to, offset = 0, limit = 100;
	const char *cpus = arg(c, "cpu"), *names = arg(c, "event");
	const char *list[MAX_EVENT_NAMES + 1];
	uint8_t set[EVT_CPUSET_BYTES];
	char err[256], cur[CURSOR_LEN], after[CURSOR_LEN], *copy = NULL;
	struct page p = { .syms = s->syms };
	struct evt_request r;
	unsigned int st, n = 0;
	json_t *o = NULL;

	if ((st = get_range(s, c, &from, &to, body)) || (st = get_u64(c, "offset", &offset, body)) ||
	    (st = get_u64(c, "limit", &limit, body)) || (st = get_cursor(c, from, to, &p, body)))
		return st;
	if (limit < 1 || limit > MAX_LIMIT)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "limit: 1..%d events a page", MAX_LIMIT);
	/* Echoed back as a JSON integer (signed): never more than it holds. */
	if (offset > (uint64_t)INT64_MAX - MAX_LIMIT - 1)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "offset: %llu is too large", (unsigned long long)offset);
	if (cpus && evt_cpulist_parse(cpus, set, err, sizeof(err)))
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "cpu: %s", err);
	if (names) {
		char *save = NULL, *tok;

		copy = strdup(names);
		if (!copy)
			return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "out of memory");
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			unsigned int i;

			for (i = 0; i < s->tr->md.cat->nr_events; i++)
				if (!strcmp(s->tr->md.cat->events[i].name, tok))
					break;
			if (i == s->tr->md.cat->nr_events || n == MAX_EVENT_NAMES) {
				st = n == MAX_EVENT_NAMES ?
				     evv_error(MHD_HTTP_BAD_REQUEST, body, "event: at most %d names", MAX_EVENT_NAMES) :
				     evv_error(MHD_HTTP_BAD_REQUEST, body, "event: the trace has no event \"%s\"", tok);
				free(copy);
				return st;
			}
			list[n++] = tok;
		}
		if (!n) {
			free(copy);
			return evv_error(MHD_HTTP_BAD_REQUEST, body, "event: no event names");
		}
		list[n] = NULL;
	}
	if (!p.after)
		p.skip = offset;
	p.limit = limit;
	p.events = json_array();
	p.req = &r;
	evt_request_init(&r, s);
	/* From the cursor's time: the streams seek there through the packet index. */
	r.from_rt = p.after ? p.after_rt : from;
	r.to_rt = to;
	/* One more than the page: whether more follow. */
	r.max_events = p.skip + limit + 1;
	if (cpus) {
		r.cpu_set = set;
		r.cpu_set_bits = EVT_MAX_CPUS;
	}
	if (names)
		r.events = list;
	st = 0;
	if (p.events && !evt_out_init(&p.out, -1, 4096) && !evt_hooks_add(&r.ctx.event, page_event, &p)) {
		evv_enter(s);
		if (!evv_run_request(s, s->ts, &r) && !p.oom) {
			int more = p.n > p.skip + limit;

			/* The cursor's events not all at its time, or fewer there than it counts. */
			if (p.after && !r.error && (p.bad_cursor || p.n < p.skip)) {
				st = p.bad_cursor ?
				     evv_error(MHD_HTTP_BAD_REQUEST, body,
					       "after: the selection has fewer than %llu events at %llu (the next is at %llu): "
					       "not a cursor of this selection", (unsigned long long)p.skip,
					       (unsigned long long)p.after_rt, (unsigned long long)p.bad_rt) :
				     evv_error(MHD_HTTP_BAD_REQUEST, body,
					       "after: the selection has %llu events from %llu, the cursor skips %llu: "
					       "not a cursor of this selection", (unsigned long long)p.n,
					       (unsigned long long)p.after_rt, (unsigned long long)p.skip);
			} else {
				cursor_text(cur, sizeof(cur), p.last_rt, p.run);
				cursor_text(after, sizeof(after), p.after_rt, p.skip);
				o = json_pack("{s:I,s:I,s:o,s:o,s:I,s:O,s:b,s:o,s:o}", "from", (json_int_t)from,
					      "to", (json_int_t)to,
					      "offset", p.after ? json_null() : json_integer((json_int_t)offset),
					      "after", p.after ? json_string(after) : json_null(),
					      "limit", (json_int_t)limit, "events", p.events, "more", more,
					      "next", more ? json_string(cur) : json_null(),
					      "error", r.error ? json_string(r.errmsg) : json_null());
			}
		}
		evv_leave(s);
	}
	evt_request_release(&r);
	json_decref(p.events);
	evt_out_free(&p.out);
	if (p.fmt_ok)
		evt_fmt_free(&p.fmt);
	free(copy);
	if (st)
		return st;
	if (!o)
		return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "%s", r.errmsg[0] ? r.errmsg : "out of memory");
	return reply(o, body);
}

/* ---- /api/stats ---- */

/* evt_report_json() into a string: evstat --json's very text. */
static char *report_text(const struct evt_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int bad;

	if (!f)
		return NULL;
	bad = evt_report_json(f, rep);
	if (fclose(f) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

unsigned int evv_api_stats(struct evv *s, struct MHD_Connection *c, char **body)
{
	struct evt_report rep = { .path = evt_etrace_path(s->t), .offset_ns = s->offset_ns };
	struct evt_report_window w = { 0 };
	uint64_t from, to;
	unsigned int st;
	char err[EVT_ENGINE_ERRLEN];
	int r;

	if (!arg(c, "from") && !arg(c, "to")) {
		evv_enter(s);
		if (!s->ready_stats || !s->ready_state || !s->ready_io || !s->ready_power)
			return evv_reply_computing(s, body);
		rep.st = evt_comp_result(s->t, "stats");
		rep.state = evt_comp_result(s->t, "state");
		rep.io = evt_comp_result(s->t, "io");
		rep.power = evt_comp_result(s->t, "power");
		*body = rep.st && rep.state && rep.io && rep.power ? report_text(&rep) : NULL;
		evv_leave(s);
		if (!*body)
			return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "%s",
					 evt_comp_error(s->t) ? evt_comp_error(s->t) : "out of memory");
		return MHD_HTTP_OK;
	}
	if ((st = get_range(s, c, &from, &to, body)))
		return st;
	snprintf(err, sizeof(err), "out of memory");
	evv_enter(s);
	r = evt_report_window_init(&w, s->eng, s->t, from - s->offset_ns, to - s->offset_ns, err, sizeof(err));
	/* The window's own traceset: its request must not see the shared one's. */
	if (!r)
		r = evv_run_request(s, w.ts, &w.req);
	if (!r)
		r = evt_report_window_finish(&w, s->t, err, sizeof(err)) < 0 ? -1 : 0;
	if (!r) {
		rep.st = w.st;
		rep.state = w.state;
		rep.io = w.io;
		rep.window = 1;
		*body = report_text(&rep);
	} else if (w.req.errmsg[0]) {
		snprintf(err, sizeof(err), "%s", w.req.errmsg);
	}
	evt_report_window_free(&w);
	evv_leave(s);
	if (r || !*body)
		return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "%s", err);
	return MHD_HTTP_OK;
}
