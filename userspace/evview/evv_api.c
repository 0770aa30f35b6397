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
#include "engine/evt_comp_index.h"
#include "engine/evt_comp_marks.h"
#include "util/evt_cpulist.h"
#include "json/evt_json.h"
#include "format/evt_format.h"
#include "report/evt_report.h"
#include "engine/evt_comp_power.h"
#include "view/evt_view.h"
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

/* The columns a window may have: MAX_COLS, fewer when there are many CPUs. */
static uint32_t max_cols(const struct evv *s)
{
	uint32_t n = MAX_CELLS / (s->nr_cpus ? s->nr_cpus : 1);

	return n < MAX_COLS ? (n ? n : 1) : MAX_COLS;
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
	json_object_set_new(o, "events", ix ? evv_json_u64(ix->total) : json_null());
	json_object_set_new(o, "passes", json_integer((json_int_t)bi.passes));
	json_object_set_new(o, "ready", json_pack("{s:b,s:b,s:b,s:b}", "state", s->ready_state,
						  "stats", s->ready_stats, "index", s->ready_index, "marks",
						  s->ready_marks));
	json_object_set_new(o, "percent", json_integer(evv_percent(s)));
	err = s->error[0] ? s->error : evt_comp_error(s->t);
	json_object_set_new(o, "error", err ? json_string(err) : json_null());
	evv_leave(s);
	return evv_reply(o, body);
}

/* ---- /api/window: per CPU and pixel column (the rule: lib/view/evt_view.h) ---- */

/*
 * Per column, a CPU's idle state (the one held longest there: its number, -1
 * running) or its frequency (the time-weighted mean, kHz), from the power
 * result (null where unknown, and every column until the pass is done).
 */
static json_t *power_column(const struct evt_power *pw, const struct evt_window *w, unsigned int cpu, int idle)
{
	const struct evt_power_cpu *c = pw ? evt_power_cpu(pw, cpu) : NULL;
	json_t *a = json_array();

	for (uint32_t k = 0; a && k < w->cols; k++) {
		uint64_t from = evt_window_col_start(w, k), to = k + 1 < w->cols ? evt_window_col_start(w, k + 1) : w->to + 1;
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

/* A summary's estimated columns on one CPU, ascending. */
static json_t *estimated_json(const struct evt_window *w, const struct evt_window_cpu *c)
{
	json_t *a = json_array();

	for (uint32_t k = 0; a && c->estimated && k < w->cols; k++)
		if (c->estimated[k])
			json_array_append_new(a, json_integer(k));
	return a;
}

static json_t *window_json(const struct evt_window *w, const struct evv *s, const char *error, int detail)
{
	const struct evt_state *ready = s->ready_state ? evt_comp_result(s->t, "state") : NULL;
	const struct evt_power *power = s->ready_power ? evt_comp_result(s->t, "power") : NULL;
	json_t *o = json_object(), *cpus = json_array(), *threads = json_object();
	int incomplete = 0;
	char key[16];

	if (!o || !cpus || !threads)
		goto oom;
	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		const struct evt_window_cpu *c = &w->cpu[i];
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
			uint64_t len = (k + 1 < w->cols ? evt_window_col_start(w, k + 1) : w->to + 1) - evt_window_col_start(w, k);

			json_array_append_new(tid, c->tid[k] >= 0 ? json_integer(c->tid[k]) : json_null());
			json_array_append_new(busy, json_real(len ? (double)c->busy[k] / (double)len : 0.0));
			json_array_append_new(irq, json_integer(c->irq[k]));
			json_array_append_new(soft, json_integer(c->soft[k]));
			json_array_append_new(lost, json_integer(c->lost[k]));
			if (c->tid[k] > 0) {
				const struct evt_state_thread *t = ready ? evt_state_thread(ready, c->tid[k]) : NULL;
				const char *comm = t ? t->comm : evt_window_comm(w, c->tid[k]);

				snprintf(key, sizeof(key), "%d", c->tid[k]);
				if (!json_object_get(threads, key))
					json_object_set_new(threads, key, comm ? json_string(comm) : json_null());
			}
		}
		incomplete |= c->incomplete;
		json_array_append_new(cpus, json_pack("{s:I,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cpu",
						      (json_int_t)w->cpu_of[i], "incomplete", c->incomplete,
						      "tid", tid, "busy", busy, "irq", irq, "softirq", soft,
						      "lost", lost, "estimated", estimated_json(w, c),
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
	return o;
oom:
	json_decref(o);
	json_decref(cpus);
	json_decref(threads);
	return NULL;
}

static int window_init(struct evt_window *w, const struct evv *s, uint64_t from, uint64_t to, uint32_t cols)
{
	const struct evt_window_cpus cpus = {
		.nr_cpus = s->nr_cpus, .cpu_of = s->cpu_of, .slot_of = s->slot_of, .nr_slot_of = s->nr_slot_of,
	};

	return evt_window_init(w, &cpus, s->ready_state ? evt_comp_result(s->t, "state") : NULL, s->losses, from, to,
			       cols);
}

/* The sample's reader (a clone of the server's: its streams' positions are its own). */
static struct evt_trace *own_reader(struct evv *s)
{
	if (!s->sample_open) {
		if (evt_trace_clone(&s->sample_tr, s->tr))
			return NULL;
		s->sample_open = 1;
	}
	return &s->sample_tr;
}

/* A sample from the server's own reader (its streams' positions are the sample's). */
static int window_sample(struct evt_window *w, struct evv *s, char *err, size_t errlen)
{
	struct evt_trace *tr = own_reader(s);

	return tr ? evt_window_sample(w, tr, err, errlen) : -1;
}

unsigned int evv_api_window(struct evv *s, struct MHD_Connection *c, char **body)
{
	const char *read = evv_arg(c, "read");
	uint64_t from, to, cols = 0;
	struct evt_window w;
	struct evt_request r;
	char err[EVT_TRACE_ERRLEN] = "";
	const char *error = NULL;
	json_t *o = NULL;
	unsigned int st;
	int ok, detail, ready;

	if ((st = evv_get_range(s, c, &from, &to, body)) || (st = evv_get_u64(c, "cols", &cols, body)))
		return st;
	if (!evv_arg(c, "cols") || cols < 1 || cols > MAX_COLS)
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
		detail = evt_window_range_bytes(s->tr, from - s->offset_ns, to - s->offset_ns) <= EVT_WINDOW_READ_BYTES ? WD_EVENTS :
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
	if (ok && detail == WD_SUMMARY &&
	    evt_window_summary(&w, &s->summary, evt_comp_result(s->t, "state"), evt_comp_result(s->t, "marks"))) {
		/* Not to be summed here (or no memory): read the events. */
		evt_window_free(&w);
		detail = WD_EVENTS;
		ok = !window_init(&w, s, from - s->offset_ns, to - s->offset_ns, (uint32_t)cols);
	}
	if (ok && detail == WD_SAMPLE) {
		int e = window_sample(&w, s, err, sizeof(err));

		ok = e >= 0;
		if (e > 0)
			error = err;
	}
	if (ok && detail == WD_EVENTS) {
		ok = !evt_hooks_add(&r.ctx.event, evt_window_event, &w) && !evv_run_request(s, s->ts, &r);
		if (ok) {
			evt_window_end(&w);
			if (r.error)
				error = r.errmsg;
		}
	}
	if (ok && !w.oom)
		o = window_json(&w, s, error, detail);
	evv_leave(s);
	evt_request_release(&r);
	evt_window_free(&w);
	if (!o)
		return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "%s", r.errmsg[0] ? r.errmsg : "out of memory");
	return evv_reply(o, body);
}


unsigned int evv_api_thread(struct evv *s, struct MHD_Connection *c, char **body)
{
	uint64_t from, to, cols = 0, tid = UINT64_MAX;
	const struct evt_state_thread *t;
	const struct evt_state *st;
	uint64_t (*ns)[EVT_TSTATE_COUNT];
	json_t *o = NULL, *run, *state;
	struct evt_window w = { 0 };
	unsigned int status;

	if ((status = evv_get_range(s, c, &from, &to, body)) || (status = evv_get_u64(c, "cols", &cols, body)) ||
	    (status = evv_get_u64(c, "tid", &tid, body)))
		return status;
	if (!evv_arg(c, "cols") || cols < 1 || cols > MAX_COLS)
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
	if (ns && run && state && !evt_window_thread_lane(st, t, &w, ns)) {
		for (uint32_t k = 0; k < w.cols; k++) {
			uint64_t len = (k + 1 < w.cols ? evt_window_col_start(&w, k + 1) : w.to + 1) - evt_window_col_start(&w, k), best = 0;
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
	return evv_reply(o, body);
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

/*
 * offset=N over every event of [from, to] (or of the CPUs in @set), once
 * the index computation is ready: the latest time T from which the request
 * can start and still have the N-th event ahead of it, found by halving
 * [from, to] on the count of events before T (the packets' counts and one
 * packet decoded per stream), so the request skips only the events at T
 * before the N-th instead of the N before it. 0, or -1: the request skips
 * all N (no index yet, or it does not answer).
 */
static int offset_start(struct evv *s, uint64_t from, uint64_t to, const uint8_t *set, uint64_t offset,
			uint64_t *start, uint64_t *skip)
{
	const struct evt_index *ix = s->ready_index ? evt_comp_result(s->t, "index") : NULL;
	struct evt_trace *tr = ix ? own_reader(s) : NULL;
	uint64_t lo = from > s->offset_ns ? from - s->offset_ns : 0, hi, base, c, at_lo;

	if (!tr || to < s->offset_ns)
		return -1;
	hi = to - s->offset_ns;
	if (lo > hi || evt_index_before(ix, tr, set, lo, &base))
		return -1;
	/* at_lo: the events before lo, which never has more than @offset of the range's before it. */
	at_lo = base;
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo) / 2 + 1;

		if (evt_index_before(ix, tr, set, mid, &c) || c < base)
			return -1;
		if (c - base <= offset) {
			lo = mid;
			at_lo = c;
		} else {
			hi = mid - 1;
		}
	}
	*start = lo + s->offset_ns;
	*skip = offset - (at_lo - base);
	return 0;
}

/* after=T:K: the request's start and the events to skip; 0 or the error's status. */
static unsigned int get_cursor(struct MHD_Connection *c, uint64_t from, uint64_t to, struct page *p, char **body)
{
	const char *s = evv_arg(c, "after");

	if (!s)
		return 0;
	if (evv_arg(c, "offset"))
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
	const char *cpus = evv_arg(c, "cpu"), *names = evv_arg(c, "event");
	const char *list[MAX_EVENT_NAMES + 1];
	uint8_t set[EVT_CPUSET_BYTES];
	char err[256], cur[CURSOR_LEN], after[CURSOR_LEN], *copy = NULL;
	struct page p = { .syms = s->syms };
	struct evt_request r;
	unsigned int st, n = 0;
	json_t *o = NULL;

	if ((st = evv_get_range(s, c, &from, &to, body)) || (st = evv_get_u64(c, "offset", &offset, body)) ||
	    (st = evv_get_u64(c, "limit", &limit, body)) || (st = get_cursor(c, from, to, &p, body)))
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
		uint64_t start, rest;

		evv_enter(s);
		/* Unless events are chosen by name: start where few are left to skip. */
		if (!p.after && offset && !names && !offset_start(s, from, to, cpus ? set : NULL, offset, &start, &rest)) {
			r.from_rt = start;
			p.skip = rest;
			r.max_events = rest + limit + 1;
		}
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
				o = json_pack("{s:I,s:I,s:o,s:o,s:I,s:O,s:b,s:o,s:o,s:I}", "from", (json_int_t)from,
					      "to", (json_int_t)to,
					      "offset", p.after ? json_null() : json_integer((json_int_t)offset),
					      "after", p.after ? json_string(after) : json_null(),
					      "limit", (json_int_t)limit, "events", p.events, "more", more,
					      "next", more ? json_string(cur) : json_null(),
					      "error", r.error ? json_string(r.errmsg) : json_null(),
					      "skipped", (json_int_t)(p.n < p.skip ? p.n : p.skip));
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
	return evv_reply(o, body);
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

	if (!evv_arg(c, "from") && !evv_arg(c, "to")) {
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
	if ((st = evv_get_range(s, c, &from, &to, body)))
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

