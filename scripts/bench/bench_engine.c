// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis engine's latency and throughput (scripts/bench-analysis
 * prints the table): a benchmark, not a test.
 *
 *   bench-engine TRACE [WINDOW_MS] [ROUNDS]
 *
 * 1. The stats + state pass over the whole trace (no saved results):
 *    events, seconds, M events/s, and its longest chunk (what a request
 *    arriving from another thread during one would wait).
 * 2. An ad hoc request for a WINDOW_MS window in the middle of the trace,
 *    answered on an idle engine, and again while the background pass runs
 *    (submitted after a third of the pass): milliseconds from submission
 *    to its after_request, the median of ROUNDS each, side by side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine/evt_comps.h"
#include "engine/evt_engine.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct win {
	uint64_t events;
	double done_ms;
	int done;
};

static int win_event(void *data, void *call)
{
	(void)call;
	((struct win *)data)->events++;
	return 0;
}

static int win_done(void *data, void *call)
{
	struct win *w = data;

	(void)call;
	w->done = 1;
	w->done_ms = now_ms();
	return 0;
}

static struct evt_engine *engine(void)
{
	struct evt_engine_opts o = { .no_saved_results = 1 };
	struct evt_engine *e = evt_engine_new(&o);

	if (!e || evt_engine_register_builtin(e)) {
		fprintf(stderr, "bench-engine: out of memory\n");
		exit(1);
	}
	return e;
}

/* One window request; with @busy, while a background pass is a third done. Its latency in ms. */
static double window(const char *path, uint64_t ms, int busy, uint64_t *events, uint64_t *bg_left)
{
	struct evt_engine *e = engine();
	char err[EVT_ENGINE_ERRLEN];
	struct evt_etrace *t = evt_etrace_get(e, path, err, sizeof(err));
	struct evt_traceset *ts = evt_traceset_new(e);
	struct evt_request r;
	struct win w = { 0 };
	uint64_t b, en, mid;
	double t0, lat;

	if (!t || !ts || evt_traceset_add(ts, t) || evt_etrace_span(t, &b, &en)) {
		fprintf(stderr, "bench-engine: %s\n", t ? evt_etrace_error(t) : err);
		exit(1);
	}
	if (busy) {
		struct evt_bg_info bi;
		uint64_t total = 0;

		evt_comp_want(t, "stats", NULL, NULL, NULL);
		evt_comp_want(t, "state", NULL, NULL, NULL);
		/* A third of the pass (the events are counted by the first pass of the idle run's caller). */
		total = *bg_left;
		do {
			evt_engine_step(e);
			evt_bg_info(t, &bi);
		} while (bi.list_in && bi.pos < total / 3);
	}
	mid = b + (en - b) / 2;
	evt_request_init(&r, &w);
	r.from_rt = mid;
	r.to_rt = mid + ms * 1000000ULL;
	evt_hooks_add(&r.ctx.event, win_event, &w);
	evt_hooks_add(&r.after_request, win_done, &w);
	t0 = now_ms();
	evt_request_submit(ts, &r);
	while (!w.done && evt_engine_step(e))
		;
	lat = w.done_ms - t0;
	*events = w.events;
	if (busy) {
		struct evt_bg_info bi;

		evt_bg_info(t, &bi);
		*bg_left = bi.list_in;	/* the pass was still running when the window was answered */
	}
	evt_request_release(&r);
	evt_traceset_free(ts);
	evt_etrace_put(t);
	evt_engine_free(e);
	return lat;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *path;
	uint64_t ms = 10, rounds = 5, events = 0, wev = 0, still = 0;
	struct evt_engine *e;
	struct evt_etrace *t;
	struct evt_engine_stats st;
	char err[EVT_ENGINE_ERRLEN];
	double t0, secs, *idle, *busy, chunk_max = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-engine TRACE [WINDOW_MS] [ROUNDS]\n");
		return 2;
	}
	path = argv[1];
	if (argc > 2)
		ms = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		rounds = strtoull(argv[3], NULL, 10);
	if (!rounds)
		rounds = 1;

	e = engine();
	t = evt_etrace_get(e, path, err, sizeof(err));
	if (!t) {
		fprintf(stderr, "bench-engine: %s\n", err);
		return 1;
	}
	if (!evt_etrace_reader(t)) {	/* opened (mapped, indexed) before the clock starts */
		fprintf(stderr, "bench-engine: %s\n", evt_etrace_error(t));
		return 1;
	}
	t0 = now_ms();
	evt_comp_want(t, "stats", NULL, NULL, NULL);
	evt_comp_want(t, "state", NULL, NULL, NULL);
	/* Step by step: the longest chunk is the longest a request arriving from another thread would wait. */
	for (;;) {
		double c0 = now_ms();
		int more = evt_engine_step(e);

		if (now_ms() - c0 > chunk_max)
			chunk_max = now_ms() - c0;
		if (!more)
			break;
	}
	secs = (now_ms() - t0) / 1e3;
	evt_engine_get_stats(e, &st);
	events = st.bg_events;
	if (evt_comp_error(t))
		fprintf(stderr, "bench-engine: %s\n", evt_comp_error(t));
	evt_etrace_put(t);
	evt_engine_free(e);
	printf("pass\tevents\t%llu\tseconds\t%.3f\tMev/s\t%.2f\tchunk_max_ms\t%.2f\n", (unsigned long long)events,
	       secs, (double)events / secs / 1e6, chunk_max);

	idle = calloc(rounds, sizeof(*idle));
	busy = calloc(rounds, sizeof(*busy));
	if (!idle || !busy)
		return 1;
	for (uint64_t i = 0; i < rounds; i++) {
		uint64_t left = events;

		idle[i] = window(path, ms, 0, &wev, &left);
		left = events;
		busy[i] = window(path, ms, 1, &wev, &left);
		still += left != 0;
	}
	qsort(idle, rounds, sizeof(*idle), cmp_d);
	qsort(busy, rounds, sizeof(*busy), cmp_d);
	printf("window\tms\t%llu\tevents\t%llu\tidle_ms\t%.2f\tbusy_ms\t%.2f\tratio\t%.2f\tpass_running\t%llu/%llu\n",
	       (unsigned long long)ms, (unsigned long long)wev, idle[rounds / 2], busy[rounds / 2],
	       busy[rounds / 2] / idle[rounds / 2], (unsigned long long)still, (unsigned long long)rounds);
	free(idle);
	free(busy);
	return 0;
}
