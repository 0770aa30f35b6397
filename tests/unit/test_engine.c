// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis engine against Desnoyers, "Linux Trace Toolkit Requests
 * Servicing Schedulers", 2004 (docs/references.md): refcounted hook lists; traces as
 * global objects; requests that arrive during a pass wait for the next;
 * ad hoc chunks always before background chunks (a trace of the call
 * order); notifications by time, by position and at the end; two consumers,
 * one pass; an interrupted pass gives the same bytes as an uninterrupted
 * one; unregistering drops requests; ad hoc requests seek; saved results
 * (used, invalidated by a changed file, a corrupt one ignored with a
 * warning).
 * One file over 900 lines: one subject, every case driving the test
 * computation and the trace set up at its top (the "engine" suite's one case).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "engine/evt_engine.h"
#include "engine/evt_comp_index.h"
#include "engine/evt_comps.h"
#include "ctf/evt_merged.h"
#include "synth/evt_synth.h"

/* ---- A test computation: a digest of every event in order, and a call log ---- */

static char call_log[1 << 16];
static size_t call_log_n;

static void log_call(char c)
{
	if (call_log_n + 1 < sizeof(call_log)) {
		call_log[call_log_n++] = c;
		call_log[call_log_n] = 0;
	}
}

struct digest {
	uint64_t events, hash, last_ts, chunks;
	unsigned int hook_calls_per_event_max;
	uint64_t seen_pos;		/* the event's pos, checked against the count */
	int pos_ok;
};

static void *digest_create(struct evt_etrace *t)
{
	struct digest *d = calloc(1, sizeof(*d));

	(void)t;
	if (d) {
		d->hash = 0xcbf29ce484222325ULL;
		d->pos_ok = 1;
	}
	return d;
}

static void digest_destroy(void *r)
{
	free(r);
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int digest_event(void *data, void *call)
{
	struct digest *d = data;
	const struct evt_engine_event *ev = call;

	if (ev->pos != d->events)
		d->pos_ok = 0;
	d->hash = mix(d->hash, &ev->ts, 8);
	d->hash = mix(d->hash, &ev->stream, sizeof(ev->stream));
	d->hash = mix(d->hash, ev->payload, ev->len);
	d->events++;
	d->last_ts = ev->ts;
	return 0;
}

static int digest_before_chunk(void *data, void *call)
{
	(void)call;
	((struct digest *)data)->chunks++;
	log_call('B');
	return 0;
}

static int digest_adder(struct evt_ctx *ctx, void *r)
{
	return evt_hooks_add(&ctx->event, digest_event, r) || evt_hooks_add(&ctx->before_chunk, digest_before_chunk, r);
}

static void digest_remover(struct evt_ctx *ctx, void *r)
{
	evt_hooks_remove(&ctx->event, digest_event, r);
	evt_hooks_remove(&ctx->before_chunk, digest_before_chunk, r);
}

static int digest_save(const void *r, struct evt_buf *b)
{
	const struct digest *d = r;

	return evt_buf_u64(b, d->events) || evt_buf_u64(b, d->hash) || evt_buf_u64(b, d->last_ts);
}

static int digest_load(void *r, const uint8_t *p, size_t n)
{
	struct digest *d = r;
	struct evt_rbuf rb = { .p = p, .n = n };

	if (evt_rbuf_u64(&rb, &d->events) || evt_rbuf_u64(&rb, &d->hash) || evt_rbuf_u64(&rb, &d->last_ts) ||
	    rb.off != n)
		return -1;
	return 0;
}

static const struct evt_computation comp_digest = {
	.name = "digest", .version = 1, .create = digest_create, .destroy = digest_destroy,
	.hook_adder = digest_adder, .hook_remover = digest_remover, .save = digest_save, .load = digest_load,
};
/* The same, under another name (a second module). */
static const struct evt_computation comp_digest2 = {
	.name = "digest2", .version = 1, .create = digest_create, .destroy = digest_destroy,
	.hook_adder = digest_adder, .hook_remover = digest_remover,
};

/* ---- A trace ---- */

static char tdir[64], trace[128];
static uint64_t trace_events, trace_first, trace_last, trace_hash;

static void make_trace(void)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_trace t;
	struct evt_merged mt;
	struct evt_ref refs[512];
	char err[512];
	long n;

	snprintf(tdir, sizeof(tdir), "/tmp/evt-engine-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
	snprintf(trace, sizeof(trace), "%s/t", tdir);
	evt_synth_defaults(&p);
	p.cpus = 3;
	p.events = 40000;
	p.subbuf_size = 4096;
	p.normal_pct = 20;
	p.mix = 1;
	if (evt_synth_write(trace, &p, &r, err, sizeof(err)))
		ck_abort_msg("synth: %s", err);
	/* The reference: the merged reader alone. */
	ck_assert_int_eq(evt_trace_open(&t, trace, NULL), 0);
	ck_assert_int_eq(evt_merged_init(&mt, &t, EVT_MERGE_TREE), 0);
	trace_events = 0;
	trace_hash = 0xcbf29ce484222325ULL;
	while ((n = evt_merged_next(&mt, refs, 512)) > 0)
		for (long i = 0; i < n; i++) {
			unsigned int sid = EVT_REF_STREAM(&refs[i]);

			if (!trace_events)
				trace_first = refs[i].ts;
			trace_last = refs[i].ts;
			trace_hash = mix(trace_hash, &refs[i].ts, 8);
			trace_hash = mix(trace_hash, &sid, sizeof(sid));
			trace_hash = mix(trace_hash, refs[i].payload, EVT_REF_LEN(&refs[i]));
			trace_events++;
		}
	ck_assert_int_eq(n, 0);
	evt_merged_free(&mt);
	evt_trace_close(&t);
	ck_assert_uint_gt(trace_events, 30000);
}

static void rm_trace(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tdir);
	ck_assert_int_eq(system(cmd), 0);
}

static char warnings[4096];
static void catch_warn(void *data, const char *msg)
{
	(void)data;
	snprintf(warnings + strlen(warnings), sizeof(warnings) - strlen(warnings), "%s\n", msg);
}

static struct evt_engine *engine(uint64_t bg_chunk, int saved)
{
	struct evt_engine_opts o = { .bg_chunk = bg_chunk, .fg_chunk = 1000, .no_saved_results = !saved,
				     .warn = catch_warn };
	struct evt_engine *e = evt_engine_new(&o);

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(evt_engine_register(e, &comp_digest), 0);
	ck_assert_int_eq(evt_engine_register(e, &comp_digest2), 0);
	warnings[0] = 0;
	call_log_n = 0;
	call_log[0] = 0;
	return e;
}

static int count_calls(void *data, void *call)
{
	(void)call;
	(*(int *)data)++;
	return 0;
}

/* ---- Tests ---- */

START_TEST(hooks_refcounted)
{
	struct evt_hooks h = { 0 };
	int a = 0, b = 0;

	ck_assert_int_eq(evt_hooks_add(&h, count_calls, &a), 0);
	ck_assert_int_eq(evt_hooks_add(&h, count_calls, &b), 0);
	ck_assert_int_eq(evt_hooks_add(&h, count_calls, &a), 0);	/* identical: counted */
	ck_assert_uint_eq(h.n, 2);
	evt_hooks_call(&h, NULL);
	ck_assert_int_eq(a, 1);		/* called once */
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(evt_hooks_remove(&h, count_calls, &a), 1);	/* one reference left */
	evt_hooks_call(&h, NULL);
	ck_assert_int_eq(a, 2);
	ck_assert_int_eq(evt_hooks_remove(&h, count_calls, &a), 0);	/* the second removal removes */
	evt_hooks_call(&h, NULL);
	ck_assert_int_eq(a, 2);
	ck_assert_int_eq(b, 3);
	ck_assert_int_eq(evt_hooks_remove(&h, count_calls, &a), -1);
	evt_hooks_free(&h);
}
END_TEST

START_TEST(traces_are_global)
{
	struct evt_engine *e;
	struct evt_etrace *t1, *t2;
	char err[512], other[256];

	make_trace();
	e = engine(0, 0);
	t1 = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_ptr_nonnull(t1);
	snprintf(other, sizeof(other), "%s/../t/", trace);	/* the same directory, another spelling */
	t2 = evt_etrace_get(e, other, err, sizeof(err));
	ck_assert_ptr_eq(t1, t2);
	evt_etrace_put(t2);
	/* Still open: the first reference holds it; a traceset adds its own. */
	{
		struct evt_traceset *ts = evt_traceset_new(e);

		ck_assert_int_eq(evt_traceset_add(ts, t1), 0);
		evt_etrace_put(t1);
		ck_assert_ptr_eq(evt_etrace_get(e, trace, err, sizeof(err)), t1);
		evt_etrace_put(t1);
		evt_traceset_free(ts);
	}
	ck_assert_ptr_null(evt_etrace_get(e, "/nonexistent/trace", err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/trace"));
	ck_assert_ptr_null(evt_etrace_get(e, tdir, err, sizeof(err)));	/* no metadata */
	ck_assert_msg(strstr(err, tdir) && strstr(err, "metadata"), "%s", err);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

struct after_rec {
	int calls, end;
	uint64_t pos;
	char tag;
};

static int after_req(void *data, void *call)
{
	struct after_rec *a = data;
	const struct evt_where *w = call;

	a->calls++;
	a->end = w->end;
	a->pos = w->pos;
	log_call(a->tag);
	return 0;
}

START_TEST(queued_during_pass_waits)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_bg_info bi;
	struct after_rec a1 = { .tag = '1' }, a2 = { .tag = '2' };
	struct evt_engine_stats st;
	char err[512];
	struct digest *d2;

	make_trace();
	e = engine(5000, 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_int_eq(evt_bg_request(t, "digest", NULL, after_req, &a1), 0);
	ck_assert_int_eq(evt_comp_in_progress(t, "digest"), 0);
	ck_assert_int_eq(evt_engine_step(e), 1);	/* the pass starts */
	ck_assert_int_eq(evt_etrace_attr(t, "computation/digest/in_progress"), 1);
	ck_assert_int_eq(evt_etrace_attr(t, "computation/digest/ready"), 0);
	ck_assert_int_eq(evt_etrace_attr(t, "computation/digest/other"), -1);
	/* A request during the pass: list_out, not list_in. */
	ck_assert_int_eq(evt_bg_request(t, "digest2", NULL, after_req, &a2), 0);
	evt_bg_info(t, &bi);
	ck_assert_uint_eq(bi.list_in, 1);
	ck_assert_uint_eq(bi.list_out, 1);
	ck_assert_int_eq(evt_comp_in_progress(t, "digest2"), 0);
	evt_engine_step(e);
	ck_assert_int_eq(evt_comp_in_progress(t, "digest2"), 0);
	evt_engine_run(e);
	/* Two passes: digest2 waited for the first to end, then read the whole trace. */
	evt_bg_info(t, &bi);
	ck_assert_uint_eq(bi.passes, 2);
	ck_assert_uint_eq(bi.list_in + bi.list_out, 0);
	ck_assert_str_eq(call_log + strlen(call_log) - 1, "2");
	ck_assert_ptr_nonnull(strchr(call_log, '1'));
	ck_assert(strchr(call_log, '1') < strchr(call_log, '2'));
	ck_assert_int_eq(a1.calls, 1);
	ck_assert_int_eq(a1.end, 1);
	ck_assert_uint_eq(a1.pos, trace_events);
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 1);
	ck_assert_int_eq(evt_comp_in_progress(t, "digest"), 0);
	d2 = evt_comp_result(t, "digest2");
	ck_assert_ptr_nonnull(d2);
	ck_assert_uint_eq(d2->events, trace_events);
	ck_assert_uint_eq(d2->hash, trace_hash);
	ck_assert_int_eq(d2->pos_ok, 1);
	evt_engine_get_stats(e, &st);
	ck_assert_uint_eq(st.bg_events, 2 * trace_events);
	ck_assert_uint_eq(st.bg_passes, 2);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

static int fg_before_chunk(void *data, void *call)
{
	(void)data;
	(void)call;
	log_call('F');
	return 0;
}

struct window {
	uint64_t n, lo, hi, first_pos_bad;
	uint64_t last_rt;
	int order_bad;
};

static int window_event(void *data, void *call)
{
	struct window *w = data;
	const struct evt_engine_event *ev = call;

	if (ev->rt < w->lo || ev->rt > w->hi)
		w->first_pos_bad++;
	if (ev->rt < w->last_rt)
		w->order_bad = 1;
	w->last_rt = ev->rt;
	w->n++;
	return 0;
}

START_TEST(adhoc_before_background)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_traceset *ts;
	struct evt_request r;
	struct window win = { 0 };
	struct after_rec ar = { .tag = 'R' }, ab = { .tag = 'D' };
	char err[512], *after_submit, *p;
	uint64_t off, lo, hi, expect = 0;
	size_t mark;

	make_trace();
	e = engine(1000, 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ts = evt_traceset_new(e);
	ck_assert_int_eq(evt_traceset_add(ts, t), 0);
	ck_assert_int_eq(evt_bg_request(t, "digest", NULL, after_req, &ab), 0);
	evt_engine_step(e);
	evt_engine_step(e);
	evt_engine_step(e);
	mark = call_log_n;
	ck_assert_str_eq(call_log, "BBB");

	/* An ad hoc request in the middle of the background pass. */
	off = evt_etrace_offset_ns(t);
	lo = trace_first + (trace_last - trace_first) / 3 + off;
	hi = trace_first + (trace_last - trace_first) / 2 + off;
	evt_request_init(&r, &win);
	r.from_rt = lo;
	r.to_rt = hi;
	win.lo = lo;
	win.hi = hi;
	ck_assert_int_eq(evt_hooks_add(&r.ctx.event, window_event, &win), 0);
	ck_assert_int_eq(evt_hooks_add(&r.ctx.before_chunk, fg_before_chunk, NULL), 0);
	ck_assert_int_eq(evt_hooks_add(&r.after_request, after_req, &ar), 0);
	ck_assert_int_eq(evt_request_submit(ts, &r), 0);
	evt_engine_run(e);

	/* After the submission: every ad hoc chunk, its end, then background chunks only. */
	after_submit = call_log + mark;
	p = strchr(after_submit, 'R');
	ck_assert_ptr_nonnull(p);
	for (char *q = after_submit; q < p; q++)
		ck_assert_msg(*q == 'F', "a background chunk ran before the ad hoc request ended: %s", call_log);
	ck_assert_int_gt(p - after_submit, 1);		/* it took several chunks */
	ck_assert_ptr_null(strchr(p, 'F'));
	ck_assert_ptr_nonnull(strchr(p, 'B'));
	ck_assert_str_eq(call_log + strlen(call_log) - 1, "D");
	ck_assert_int_eq(r.state, EVT_REQ_DONE);
	ck_assert_int_eq(ar.calls, 1);

	/* The window's events, all of them and only them, in time order. */
	{
		struct evt_trace tr;
		struct evt_merged mt;
		struct evt_ref refs[512];
		long n;

		ck_assert_int_eq(evt_trace_open(&tr, trace, NULL), 0);
		ck_assert_int_eq(evt_merged_init(&mt, &tr, EVT_MERGE_TREE), 0);
		while ((n = evt_merged_next(&mt, refs, 512)) > 0)
			for (long i = 0; i < n; i++)
				expect += refs[i].ts + off >= lo && refs[i].ts + off <= hi;
		evt_merged_free(&mt);
		evt_trace_close(&tr);
	}
	ck_assert_uint_gt(expect, 1000);
	ck_assert_uint_eq(win.n, expect);
	ck_assert_uint_eq(r.delivered, expect);
	ck_assert_uint_eq(win.first_pos_bad, 0);
	ck_assert_int_eq(win.order_bad, 0);
	{
		/* It sought through the index: read far fewer than the events before the window. */
		struct evt_engine_stats st;

		evt_engine_get_stats(e, &st);
		ck_assert_uint_lt(st.fg_events, expect + trace_events / 4);
	}
	evt_request_release(&r);
	evt_traceset_free(ts);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

struct note {
	int calls, end;
	uint64_t rt, pos;
};

static int on_note(void *data, void *call)
{
	struct note *n = data;
	const struct evt_where *w = call;

	n->calls++;
	n->end = w->end;
	n->rt = w->rt;
	n->pos = w->pos;
	return 0;
}

START_TEST(notifications)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct note by_time = { 0 }, by_pos = { 0 }, at_end = { 0 }, current = { 0 }, now = { 0 };
	char err[512];
	uint64_t off, mid;

	make_trace();
	e = engine(997, 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	off = evt_etrace_offset_ns(t);
	mid = trace_first + (trace_last - trace_first) / 2 + off;
	/* Nothing in progress: a notification for the current pass is due at once. */
	ck_assert_int_eq(evt_bg_notify_current(t, NULL, EVT_TIME_END, UINT64_MAX, on_note, &now), 0);
	ck_assert_int_eq(now.calls, 1);
	ck_assert_int_eq(evt_bg_notify_queue(t, NULL, mid, UINT64_MAX, on_note, &by_time), 0);
	ck_assert_int_eq(evt_bg_notify_queue(t, NULL, EVT_TIME_END, 12345, on_note, &by_pos), 0);
	ck_assert_int_eq(evt_bg_notify_queue(t, NULL, EVT_TIME_END, UINT64_MAX, on_note, &at_end), 0);
	ck_assert_int_eq(evt_bg_request(t, "digest", NULL, NULL, NULL), 0);
	evt_engine_step(e);
	/* During the pass: one for this pass (notify_in). */
	ck_assert_int_eq(evt_bg_notify_current(t, NULL, EVT_TIME_END, UINT64_MAX, on_note, &current), 0);
	ck_assert_int_eq(current.calls, 0);
	evt_engine_run(e);
	/* By time: at the first chunk end past it, not at the end. */
	ck_assert_int_eq(by_time.calls, 1);
	ck_assert_int_eq(by_time.end, 0);
	ck_assert_uint_ge(by_time.rt, mid);
	ck_assert_uint_lt(by_time.pos, trace_events);
	/* By position: the chunk (997 events) that reached it. */
	ck_assert_int_eq(by_pos.calls, 1);
	ck_assert_int_eq(by_pos.end, 0);
	ck_assert_uint_ge(by_pos.pos, 12345);
	ck_assert_uint_lt(by_pos.pos, 12345 + 997);
	/* At the end. */
	ck_assert_int_eq(at_end.calls, 1);
	ck_assert_int_eq(at_end.end, 1);
	ck_assert_uint_eq(at_end.pos, trace_events);
	ck_assert_int_eq(current.calls, 1);
	ck_assert_int_eq(current.end, 1);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

START_TEST(two_consumers_one_pass)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_bg_info bi;
	struct note c1 = { 0 }, c2 = { 0 }, c3 = { 0 };
	struct digest *d;
	char err[512];

	make_trace();
	e = engine(3000, 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	/* Two consumers before the pass: two requests, one pass, the hooks run once per event. */
	ck_assert_int_eq(evt_comp_want(t, "digest", &c1, on_note, &c1), 0);
	ck_assert_int_eq(evt_comp_want(t, "digest", &c2, on_note, &c2), 0);
	evt_engine_step(e);
	/* A third during the pass finds in_progress: a notification, no request. */
	ck_assert_int_eq(evt_comp_want(t, "digest", &c3, on_note, &c3), 0);
	evt_bg_info(t, &bi);
	ck_assert_uint_eq(bi.list_out, 0);
	ck_assert_uint_eq(bi.notify_in, 1);
	evt_engine_run(e);
	evt_bg_info(t, &bi);
	ck_assert_uint_eq(bi.passes, 1);
	ck_assert_int_eq(c1.calls + c2.calls + c3.calls, 3);
	d = evt_comp_result(t, "digest");
	ck_assert_uint_eq(d->events, trace_events);	/* not twice */
	ck_assert_uint_eq(d->hash, trace_hash);
	/* A fourth finds it ready: nothing to do. */
	ck_assert_int_eq(evt_comp_want(t, "digest", NULL, on_note, &c1), 1);
	ck_assert_int_eq(evt_engine_busy(e), 0);
	ck_assert_int_eq(evt_comp_want(t, "nosuch", NULL, on_note, &c1), -1);
	ck_assert_int_eq(errno, ENOENT);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

/* Run digest to ready, with ad hoc requests between chunks when @interrupt. */
static void digest_bytes(uint64_t chunk, int interrupt, struct evt_buf *out)
{
	struct evt_engine *e = engine(chunk, 0);
	struct evt_etrace *t;
	struct evt_traceset *ts;
	struct evt_request r;
	struct window win = { .hi = UINT64_MAX };
	char err[512];
	int i = 0;

	t = evt_etrace_get(e, trace, err, sizeof(err));
	ts = evt_traceset_new(e);
	ck_assert_int_eq(evt_traceset_add(ts, t), 0);
	ck_assert_int_eq(evt_bg_request(t, "digest", NULL, NULL, NULL), 0);
	evt_request_init(&r, NULL);
	r.max_events = 50;
	ck_assert_int_eq(evt_hooks_add(&r.ctx.event, window_event, &win), 0);
	while (evt_engine_step(e))
		if (interrupt && ++i % 3 == 0 && r.state != EVT_REQ_PENDING && r.state != EVT_REQ_RUNNING) {
			r.from_rt = evt_etrace_offset_ns(t) + trace_first + (uint64_t)i * 1000;
			ck_assert_int_eq(evt_request_submit(ts, &r), 0);
		}
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 1);
	ck_assert_int_eq(comp_digest.save(evt_comp_result(t, "digest"), out), 0);
	if (interrupt)
		ck_assert_uint_gt(win.n, 0);
	evt_request_release(&r);
	evt_traceset_free(ts);
	evt_etrace_put(t);
	evt_engine_free(e);
}

START_TEST(interrupted_equals_whole)
{
	struct evt_buf whole = { 0 }, cut = { 0 }, cut2 = { 0 };

	make_trace();
	digest_bytes(UINT64_MAX / 2, 0, &whole);
	digest_bytes(7, 1, &cut);
	digest_bytes(4096, 1, &cut2);
	ck_assert_uint_eq(whole.n, cut.n);
	ck_assert_int_eq(memcmp(whole.p, cut.p, whole.n), 0);
	ck_assert_int_eq(memcmp(whole.p, cut2.p, whole.n), 0);
	evt_buf_free(&whole);
	evt_buf_free(&cut);
	evt_buf_free(&cut2);
	rm_trace();
}
END_TEST

START_TEST(unregister_drops_requests)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_bg_info bi;
	struct after_rec a1 = { .tag = '1' }, a2 = { .tag = '2' };
	char err[512];

	make_trace();
	e = engine(2000, 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	/* Queued: dropped, never called. */
	ck_assert_int_eq(evt_bg_request(t, "digest", NULL, after_req, &a1), 0);
	ck_assert_int_eq(evt_bg_request(t, "digest2", NULL, after_req, &a2), 0);
	ck_assert_int_eq(evt_engine_unregister(e, "digest2"), 0);
	evt_bg_info(t, &bi);
	ck_assert_uint_eq(bi.list_out, 1);
	ck_assert_int_eq(evt_bg_request(t, "digest2", NULL, after_req, &a2), -1);
	evt_engine_run(e);
	ck_assert_int_eq(a1.calls, 1);
	ck_assert_int_eq(a2.calls, 0);
	ck_assert_int_eq(evt_comp_ready(t, "digest2"), 0);

	/* In the pass: it stops, its after_request is not called, nothing is ready. */
	ck_assert_int_eq(evt_engine_register(e, &comp_digest2), 0);
	ck_assert_int_eq(evt_engine_register(e, &comp_digest2), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_eq(evt_bg_request(t, "digest2", NULL, after_req, &a2), 0);
	evt_engine_step(e);
	ck_assert_int_eq(evt_comp_in_progress(t, "digest2"), 1);
	ck_assert_int_eq(evt_engine_unregister(e, "digest2"), 0);
	ck_assert_int_eq(evt_comp_in_progress(t, "digest2"), 0);
	ck_assert_int_eq(evt_engine_busy(e), 0);
	evt_engine_run(e);
	ck_assert_int_eq(a2.calls, 0);
	ck_assert_int_eq(evt_comp_ready(t, "digest2"), 0);
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 1);	/* the other untouched */
	ck_assert_int_eq(evt_engine_unregister(e, "nosuch"), -1);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

static void set_mtime(const char *path, time_t when)
{
	struct timespec ts[2] = { { when, 0 }, { when, 0 } };

	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

START_TEST(saved_results)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_engine_stats st;
	struct digest *d;
	char err[512], res[256], stream[256];
	int fd;
	uint8_t byte;

	make_trace();
	/* First process: computes and saves. */
	e = engine(0, 1);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 0);
	ck_assert_int_eq(evt_comp_want(t, "digest", NULL, NULL, NULL), 0);
	evt_engine_run(e);
	evt_engine_get_stats(e, &st);
	ck_assert_uint_eq(st.results_saved, 1);
	evt_etrace_put(t);
	evt_engine_free(e);
	snprintf(res, sizeof(res), "%s/.evtrace-results/digest.res", trace);
	ck_assert_int_eq(access(res, R_OK), 0);

	/* Second: ready at once, the streams never opened. */
	e = engine(0, 1);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 1);
	ck_assert_int_eq(evt_comp_want(t, "digest", NULL, NULL, NULL), 1);
	d = evt_comp_result(t, "digest");
	ck_assert_uint_eq(d->events, trace_events);
	ck_assert_uint_eq(d->hash, trace_hash);
	evt_engine_get_stats(e, &st);
	ck_assert_uint_eq(st.traces_opened, 0);
	ck_assert_uint_eq(st.results_loaded, 1);
	ck_assert_str_eq(warnings, "");
	evt_etrace_put(t);
	evt_engine_free(e);

	/* A stream file changed (its mtime): computed again, no warning. */
	snprintf(stream, sizeof(stream), "%s/compact_1", trace);
	set_mtime(stream, 1000000000);
	e = engine(0, 1);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 0);
	ck_assert_str_eq(warnings, "");
	ck_assert_int_eq(evt_comp_want(t, "digest", NULL, NULL, NULL), 0);
	evt_engine_run(e);
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 1);
	evt_etrace_put(t);
	evt_engine_free(e);

	/* A corrupt results file: ignored with a warning naming it, computed again. */
	fd = open(res, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &byte, 1, 70), 1);
	byte ^= 0x40;
	ck_assert_int_eq(pwrite(fd, &byte, 1, 70), 1);
	close(fd);
	e = engine(0, 1);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 0);
	ck_assert_msg(strstr(warnings, res) && strstr(warnings, "checksum mismatch"), "warnings: %s", warnings);
	evt_engine_get_stats(e, &st);
	ck_assert_uint_eq(st.results_rejected, 1);
	evt_etrace_put(t);
	evt_engine_free(e);

	/* Not a results file at all (cut short). */
	ck_assert_int_eq(truncate(res, 20), 0);
	e = engine(0, 1);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_int_eq(evt_comp_ready(t, "digest"), 0);
	ck_assert_ptr_nonnull(strstr(warnings, "not a results file"));
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

START_TEST(adhoc_filters)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_traceset *ts;
	struct evt_request r;
	struct window win = { .hi = UINT64_MAX };
	static const char *const only[] = { "gen_normal", NULL };
	uint8_t cpus = 1u << 1;
	char err[512];

	make_trace();
	e = engine(0, 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ts = evt_traceset_new(e);
	ck_assert_int_eq(evt_traceset_add(ts, t), 0);
	evt_request_init(&r, NULL);
	r.events = only;
	r.cpu_set = &cpus;
	r.cpu_set_bits = 8;
	ck_assert_int_eq(evt_ctx_add_event(&r.ctx, "gen_normal", window_event, &win), 0);
	ck_assert_int_eq(evt_ctx_add_event(&r.ctx, "no_such_event", window_event, &win), 0);
	ck_assert_int_eq(evt_request_submit(ts, &r), 0);
	ck_assert_int_eq(evt_request_submit(ts, &r), -1);	/* already in */
	evt_engine_run(e);
	ck_assert_int_eq(r.error, 0);
	ck_assert_uint_gt(win.n, 100);
	ck_assert_uint_eq(win.n, r.delivered);
	/* Every event delivered was gen_normal from CPU 1: compare with a count of them. */
	{
		struct evt_trace tr;
		struct evt_merged mt;
		struct evt_ref refs[512];
		const struct evt_event_desc *gn;
		uint64_t expect = 0;
		long n;

		ck_assert_int_eq(evt_trace_open(&tr, trace, NULL), 0);
		gn = evt_catalogue_find(tr.md.cat, "gen_normal");
		ck_assert_int_eq(evt_merged_init(&mt, &tr, EVT_MERGE_TREE), 0);
		while ((n = evt_merged_next(&mt, refs, 512)) > 0)
			for (long i = 0; i < n; i++)
				expect += EVT_REF_DESC(&refs[i]) == (unsigned int)(gn - tr.md.cat->events) &&
					  tr.streams[EVT_REF_STREAM(&refs[i])].cpu == 1;
		evt_merged_free(&mt);
		evt_trace_close(&tr);
		ck_assert_uint_eq(win.n, expect);
	}
	/* A range that ends before it begins. */
	r.from_rt = 10;
	r.to_rt = 5;
	ck_assert_int_eq(evt_request_submit(ts, &r), -1);
	ck_assert_ptr_nonnull(strstr(r.errmsg, "ends before"));
	evt_request_release(&r);
	evt_traceset_free(ts);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

START_TEST(index_computation)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_index *ix, *back;
	struct evt_buf b = { 0 }, b2 = { 0 };
	struct evt_trace tr;
	struct evt_merged mt;
	struct evt_ref refs[512];
	uint64_t lo, hi, from, to, truth = 0, touched = 0, per_stream[64] = { 0 };
	uint64_t span_lo[64], span_hi[64];
	char err[512];
	long n;

	make_trace();
	e = engine(1500, 0);
	ck_assert_int_eq(evt_engine_register(e, &evt_comp_index), 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ck_assert_int_eq(evt_comp_want(t, "index", NULL, NULL, NULL), 0);
	evt_engine_run(e);
	ix = evt_comp_result(t, "index");
	ck_assert_ptr_nonnull(ix);
	ck_assert_uint_eq(ix->total, trace_events);
	/* Against the reader: each stream's events, a window's bounds. */
	from = trace_first + (trace_last - trace_first) / 4;
	to = trace_first + (trace_last - trace_first) / 2;
	ck_assert_int_eq(evt_trace_open(&tr, trace, NULL), 0);
	ck_assert_uint_eq(ix->nr_streams, tr.nr_streams);
	/*
	 * The upper bound's truth: per stream, the events from the beginning of
	 * the first packet that ends at or after @from to the end of the last one
	 * that begins at or before @to (the packets the window touches).
	 */
	for (unsigned int i = 0; i < tr.nr_streams; i++) {
		const struct evt_stream *st = &tr.streams[i];
		uint32_t k;

		ck_assert_uint_lt(i, 64);
		span_lo[i] = UINT64_MAX;
		span_hi[i] = 0;
		for (k = 0; k < st->npk; k++)
			if (st->pk[k].end >= from && st->pk[k].begin <= to) {
				span_lo[i] = span_lo[i] < st->pk[k].begin ? span_lo[i] : st->pk[k].begin;
				span_hi[i] = st->pk[k].end;
			}
	}
	ck_assert_int_eq(evt_merged_init(&mt, &tr, EVT_MERGE_TREE), 0);
	while ((n = evt_merged_next(&mt, refs, 512)) > 0)
		for (long i = 0; i < n; i++) {
			unsigned int si = EVT_REF_STREAM(&refs[i]);

			per_stream[si]++;
			truth += refs[i].ts >= from && refs[i].ts <= to;
			touched += refs[i].ts >= span_lo[si] && refs[i].ts <= span_hi[si];
		}
	evt_merged_free(&mt);
	for (unsigned int i = 0; i < tr.nr_streams; i++) {
		ck_assert_uint_eq(ix->s[i].events, per_stream[i]);
		ck_assert_uint_eq(ix->s[i].npk, tr.streams[i].npk);
		for (uint32_t k = 0; k < ix->s[i].npk; k++)
			ck_assert_uint_eq(ix->s[i].pk[k].off, tr.streams[i].pk[k].off);
	}
	evt_trace_close(&tr);
	evt_index_count(ix, from, to, &lo, &hi);
	ck_assert_uint_le(lo, truth);
	ck_assert_uint_ge(hi, truth);
	/* Not above the events of the packets the window touches (a bound that can fail). */
	ck_assert_uint_le(hi, touched);
	ck_assert_uint_lt(hi, trace_events);
	ck_assert_uint_gt(lo, 0);
	evt_index_count(ix, 0, UINT64_MAX, &lo, &hi);
	ck_assert_uint_eq(lo, trace_events);
	ck_assert_uint_eq(hi, trace_events);
	/* Its saved form reads back the same; cut or inconsistent forms are refused. */
	ck_assert_int_eq(evt_comp_index.save(ix, &b), 0);
	back = evt_comp_index.create(t);
	ck_assert_int_eq(evt_comp_index.load(back, b.p, b.n), 0);
	ck_assert_int_eq(evt_comp_index.save(back, &b2), 0);
	ck_assert_uint_eq(b.n, b2.n);
	ck_assert_int_eq(memcmp(b.p, b2.p, b.n), 0);
	ck_assert_uint_eq(back->total, trace_events);
	evt_comp_index.destroy(back);
	for (size_t cut = 0; cut < b.n; cut += 1 + cut / 3) {
		back = evt_comp_index.create(t);
		ck_assert_int_eq(evt_comp_index.load(back, b.p, cut), -1);
		evt_comp_index.destroy(back);
	}
	{
		uint64_t huge = UINT64_MAX / 2;

		memcpy(b.p, &huge, 8);	/* a stream count the bytes cannot hold */
		back = evt_comp_index.create(t);
		ck_assert_int_eq(evt_comp_index.load(back, b.p, b.n), -1);
		evt_comp_index.destroy(back);
	}
	evt_buf_free(&b);
	evt_buf_free(&b2);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

/*
 * A synthesized machine's kernel events (evsynth --kernel), with losses when
 * @stall, a fork about every @fork_every steps of a thread (0: evsynth's default).
 */
static void make_kernel_trace(uint64_t events, unsigned int stall, unsigned int fork_every)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	char err[512];

	snprintf(tdir, sizeof(tdir), "/tmp/evt-engine-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
	snprintf(trace, sizeof(trace), "%s/t", tdir);
	evt_synth_defaults(&p);
	p.kernel = 1;
	p.cpus = 3;
	p.events = events;
	p.subbuf_size = 4096;
	p.stall_every = stall;
	if (fork_every)
		p.fork_every = fork_every;
	if (evt_synth_write(trace, &p, &r, err, sizeof(err)))
		ck_abort_msg("synth: %s", err);
	ck_assert_uint_gt(r.switches, 100);
}

/*
 * tests/tools/@script_args (a check of the built programs) on the trace:
 * its output shown and the test failed when it fails.
 */
static void run_check(const char *script_args)
{
	char cmd[768];

	snprintf(cmd, sizeof(cmd), "python3 tests/tools/%s '%s' > '%s/check.log' 2>&1", script_args, trace, tdir);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "cat '%s/check.log'", tdir);
		ck_assert_int_eq(system(cmd), 0);
		ck_abort_msg("tests/tools/%s failed on %s", script_args, trace);
	}
}

/*
 * evstat (the programs, built) against tests/tools/evstat-check.py's own
 * computation from evcat's JSON; threads fork often, so some exit
 * (exit_group: a syscall that never returns); and a trace with losses.
 */
START_TEST(evstat_matches_independent)
{
	make_kernel_trace(60000, 0, 300);
	run_check("evstat-check.py build/bin/evcat build/bin/evstat --lttng");
	rm_trace();
	/*
	 * With losses: the header says so first, and what spans a loss is
	 * counted apart, as the check computes (babeltrace2's windows).
	 */
	make_kernel_trace(60000, 7000, 300);
	run_check("evstat-check.py build/bin/evcat build/bin/evstat");
	rm_trace();
}
END_TEST

/* evview's API (tests/tools/evview-check.py): a trace with losses, so lost marks show. */
START_TEST(evview_api_matches_independent)
{
	make_kernel_trace(60000, 7000, 0);
	run_check("evview-check.py build/bin/evview build/bin/evcat");
	rm_trace();
}
END_TEST

/*
 * Every JSON document of the readers (evstat --json, evcat --stats, evsynth's
 * chunk summaries) against its schema in docs/schemas/ (a trace with
 * losses: the loss members filled).
 */
START_TEST(json_documents_match_schemas)
{
	make_kernel_trace(20000, 7000, 0);
	run_check("json-schema-check.py --programs build/bin");
	rm_trace();
}
END_TEST

static int count_events(void *data, void *call)
{
	(void)call;
	(*(uint64_t *)data)++;
	return 0;
}

struct tid_win {
	int32_t tid;
	uint64_t n, wrong;
	int32_t running[8];
	const struct evt_event_desc *sw;
	int next_off;
	enum evt_field_type next_type;
};

/* The reference: every event of the trace while @tid runs on its CPU (known from each CPU's switches). */
static int tid_ref_event(void *data, void *call)
{
	struct tid_win *w = data;
	const struct evt_engine_event *ev = call;

	if (ev->desc == w->sw) {
		int32_t next = (int32_t)evt_event_int(ev, w->next_off, w->next_type);

		w->n += w->running[ev->cpu] == w->tid || next == w->tid;
		w->running[ev->cpu] = next;
	} else {
		w->n += w->running[ev->cpu] == w->tid;
	}
	return 0;
}

START_TEST(adhoc_thread_filter)
{
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_traceset *ts;
	struct evt_request r, all;
	struct tid_win ref = { .tid = -1 }, got = { 0 };
	const struct evt_state *st;
	const struct evt_state_thread *top[1];
	struct evt_trace *tr;
	uint64_t off, lo;
	char err[512];

	make_kernel_trace(60000, 0, 0);
	e = evt_engine_new(&(struct evt_engine_opts){ .no_saved_results = 1 });
	ck_assert_int_eq(evt_engine_register_builtin(e), 0);
	t = evt_etrace_get(e, trace, err, sizeof(err));
	ts = evt_traceset_new(e);
	ck_assert_int_eq(evt_traceset_add(ts, t), 0);
	tr = evt_etrace_reader(t);
	ck_assert_ptr_nonnull(tr);
	off = evt_etrace_offset_ns(t);
	/* The busiest thread, from a state pass; a window from a third of the trace on. */
	ck_assert_int_eq(evt_comp_want(t, "state", NULL, NULL, NULL), 0);
	evt_engine_run(e);
	st = evt_comp_result(t, "state");
	ck_assert_uint_eq(evt_state_top_threads(st, top, 1), 1);
	{
		uint64_t first, last;

		evt_state_span(st, &first, &last);
		lo = first + (last - first) / 3;
	}
	ref.tid = top[0]->tid;
	ref.sw = evt_catalogue_find(tr->md.cat, "sched_switch");
	ref.next_off = evt_field_offset(ref.sw, "next_tid", &ref.next_type);
	for (unsigned int i = 0; i < 8; i++)
		ref.running[i] = -3;
	/* The reference reads from the start (it knows every CPU's thread), counting from lo on. */
	{
		evt_request_init(&all, NULL);
		all.to_rt = lo + off - 1;
		ck_assert_int_eq(evt_hooks_add(&all.ctx.event, tid_ref_event, &ref), 0);
		ck_assert_int_eq(evt_request_submit(ts, &all), 0);
		evt_engine_run(e);
		ref.n = 0;
		evt_request_release(&all);
		evt_request_init(&all, NULL);
		all.from_rt = lo + off;
		ck_assert_int_eq(evt_hooks_add(&all.ctx.event, tid_ref_event, &ref), 0);
		ck_assert_int_eq(evt_request_submit(ts, &all), 0);
		evt_engine_run(e);
	}
	/* The filtered request starts at lo, seeded by the ready state. */
	evt_request_init(&r, NULL);
	r.from_rt = lo + off;
	r.tid = ref.tid;
	got.tid = ref.tid;
	ck_assert_int_eq(evt_hooks_add(&r.ctx.event, count_events, &got.n), 0);
	ck_assert_int_eq(evt_request_submit(ts, &r), 0);
	evt_engine_run(e);
	ck_assert_int_eq(r.incomplete, 0);
	ck_assert_uint_gt(r.delivered, 100);
	ck_assert_uint_eq(r.delivered, ref.n);
	evt_request_release(&r);
	evt_request_release(&all);
	evt_traceset_free(ts);
	evt_etrace_put(t);
	evt_engine_free(e);
	rm_trace();
}
END_TEST

Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, hooks_refcounted);
	tcase_add_test(tc, traces_are_global);
	tcase_add_test(tc, queued_during_pass_waits);
	tcase_add_test(tc, adhoc_before_background);
	tcase_add_test(tc, notifications);
	tcase_add_test(tc, two_consumers_one_pass);
	tcase_add_test(tc, interrupted_equals_whole);
	tcase_add_test(tc, unregister_drops_requests);
	tcase_add_test(tc, saved_results);
	tcase_add_test(tc, adhoc_filters);
	tcase_add_test(tc, index_computation);
	tcase_add_test(tc, evstat_matches_independent);
	tcase_add_test(tc, adhoc_thread_filter);
	tcase_add_test(tc, evview_api_matches_independent);
	tcase_add_test(tc, json_documents_match_schemas);
	suite_add_tcase(s, tc);
	return s;
}
