// SPDX-License-Identifier: GPL-2.0
/*
 * evstat: a trace's statistics from the analysis engine (lib/engine):
 * the whole trace through the background path (saved beside the trace, so
 * the second run reads no stream), a window (--from/--to) through the ad
 * hoc path. See usage().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evt_comps.h"
#include "evt_engine.h"
#include "evt_format.h"
#include "evt_timearg.h"

#define EXIT_TRACE 1
#define EXIT_USAGE 2

static void usage(FILE *f)
{
	fprintf(f,
"usage: evstat DIR [options]\n"
"The statistics of the evtrace trace in DIR (a trace directory or a run of\n"
"chunks): events per name, CPU and thread; the threads that ran most; system\n"
"calls with their latency; interrupts and softirqs with their durations;\n"
"scheduling latency (wakeup to switch-in); losses per stream and over time.\n"
"The whole trace is computed once and the results saved beside it\n"
"(DIR/.evtrace-results/, or ~/.cache/evtrace/ when DIR is not writable): the\n"
"next evstat of an unchanged trace reads no stream file.\n"
"\n"
"  --json              one JSON object instead of text\n"
"  --from T, --to T    only the events in [T, T] (computed now, not saved);\n"
"                      T as evcat(1) takes it (HH:MM:SS[.ns], +SECONDS, @CLOCK, ...)\n"
"  --top N             rows of each table in text (default 10; 0: all)\n"
"  --no-saved          neither read nor write saved results\n"
"  --version           print the version\n"
"  --help              this text\n"
"\n"
"Exit status: 0 success; 1 trace error (the statistics of the events before it\n"
"are printed); 2 usage error.\n");
}

struct opts {
	const char *dir, *from, *to;
	int json, no_saved;
	unsigned long top;
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	int i;

	o->top = 10;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			printf("evstat %s\n", EVT_VERSION);
			exit(0);
		} else if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--no-saved")) {
			o->no_saved = 1;
		} else if (!strcmp(a, "--from") || !strcmp(a, "--to") || !strcmp(a, "--top")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "evstat: %s needs a value\n", a);
				return -1;
			}
			if (!strcmp(a, "--from")) {
				o->from = argv[++i];
			} else if (!strcmp(a, "--to")) {
				o->to = argv[++i];
			} else {
				char *end;

				errno = 0;
				o->top = strtoul(argv[++i], &end, 10);
				if (errno || *end || !*argv[i] || *argv[i] == '-') {
					fprintf(stderr, "evstat: --top needs a whole number, not \"%s\"\n", argv[i]);
					return -1;
				}
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "evstat: unknown option %s\n", a);
			return -1;
		} else if (!o->dir) {
			o->dir = a;
		} else {
			fprintf(stderr, "evstat: one trace directory only (\"%s\" is a second)\n", a);
			return -1;
		}
	}
	if (!o->dir) {
		fprintf(stderr, "evstat: which trace? (evstat DIR)\n");
		return -1;
	}
	return 0;
}

/* ---- What is printed ---- */

struct report {
	const struct opts *o;
	struct evt_etrace *t;
	struct evt_stats *st;
	struct evt_state *state;
	uint64_t offset_ns;
	uint64_t from, to;		/* clock: the window, or 0 .. UINT64_MAX */
	int window;
};

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

static const char *softirq_name(unsigned int vec, char *buf, size_t len)
{
	if (vec < sizeof(softirq_names) / sizeof(softirq_names[0]))
		return softirq_names[vec];
	snprintf(buf, len, "vec%u", vec);
	return buf;
}

static double avg_us(const struct evt_lat *l)
{
	return l->count ? (double)l->total_ns / (double)l->count / 1000.0 : 0.0;
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static const char *when(const struct report *r, uint64_t ts, char *buf)
{
	evt_fmt_clock(buf, ts + r->offset_ns, 1);
	return buf;
}

/* Indexes 0..n-1 sorted by a key (descending), for the tables. */
static int cmp_desc(const void *a, const void *b, void *keys)
{
	const uint64_t *k = keys;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return k[x] < k[y] ? 1 : k[x] > k[y] ? -1 : x < y ? -1 : x > y;
}

static uint32_t *sorted(const uint64_t *keys, uint32_t n)
{
	uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), cmp_desc, (void *)keys);
	return ix;
}

static uint32_t rows(const struct report *r, uint32_t n)
{
	return r->o->top && r->o->top < n ? (uint32_t)r->o->top : n;
}

static int print_text(const struct report *r)
{
	const struct evt_stats *s = r->st;
	const struct evt_state_thread **top = NULL;
	uint64_t *keys = NULL, span;
	uint32_t *ix = NULL, i, n, cap;
	char b1[40], b2[40], name[16];
	size_t ntop;

	cap = s->nr_ev;
	if (s->nr_sys > cap)
		cap = s->nr_sys;
	if (s->nr_irqs > cap)
		cap = s->nr_irqs;
	keys = malloc((cap ? cap : 1) * sizeof(*keys));
	top = malloc((r->o->top ? r->o->top : evt_state_nr_threads(r->state) + 1) * sizeof(*top));
	if (!keys || !top)
		goto oom;

	printf("Trace %s%s\n", evt_etrace_path(r->t), r->window ? " (a window)" : "");
	span = s->events ? s->last_ts - s->first_ts : 0;
	if (s->events)
		printf("  %s .. %s UTC (%.9f s), %llu events\n", when(r, s->first_ts, b1), when(r, s->last_ts, b2),
		       (double)span / 1e9, (unsigned long long)s->events);
	else
		printf("  no events\n");

	printf("\nEvents per CPU\n  %5s %12s\n", "cpu", "events");
	for (i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].events)
			printf("  %5u %12llu\n", i, (unsigned long long)s->cpus[i].events);

	printf("\nEvents by name\n  %-32s %12s\n", "event", "count");
	for (i = 0; i < s->nr_ev; i++)
		keys[i] = s->ev[i].count;
	ix = sorted(keys, s->nr_ev);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(r, s->nr_ev); i < n; i++)
		printf("  %-32s %12llu\n", s->ev[ix[i]].name, (unsigned long long)s->ev[ix[i]].count);
	free(ix);

	ntop = evt_state_top_threads(r->state, top, r->o->top ? r->o->top : evt_state_nr_threads(r->state));
	printf("\nThreads by CPU time\n  %8s %8s %-16s %14s %7s %12s\n", "tid", "pid", "comm", "cpu ms",
	       "% span", "events");
	for (i = 0; i < ntop; i++) {
		const struct evt_stats_thread *th = evt_stats_thread(s, top[i]->tid);

		printf("  %8d %8d %-16s %14.3f %7.2f %12llu\n", top[i]->tid, top[i]->pid, top[i]->comm,
		       (double)top[i]->cpu_ns / 1e6, span ? 100.0 * (double)top[i]->cpu_ns / (double)span : 0.0,
		       (unsigned long long)(th ? th->events : 0));
	}

	printf("\nSystem calls\n  %-28s %10s %8s %12s %12s %12s\n", "syscall", "count", "errors", "min us",
	       "avg us", "max us");
	for (i = 0; i < s->nr_sys; i++)
		keys[i] = s->sys[i].count;
	ix = sorted(keys, s->nr_sys);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(r, s->nr_sys); i < n; i++) {
		const struct evt_stats_syscall *y = &s->sys[ix[i]];

		printf("  %-28s %10llu %8llu %12.3f %12.3f %12.3f\n", y->name, (unsigned long long)y->count,
		       (unsigned long long)y->errors, y->lat.count ? us(y->lat.min_ns) : 0.0, avg_us(&y->lat),
		       us(y->lat.max_ns));
	}
	free(ix);

	printf("\nInterrupts\n  %6s %-20s %10s %12s %12s %12s\n", "irq", "name", "count", "min us", "avg us",
	       "max us");
	for (i = 0; i < s->nr_irqs; i++)
		keys[i] = s->irqs[i].count;
	ix = sorted(keys, s->nr_irqs);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(r, s->nr_irqs); i < n; i++) {
		const struct evt_stats_irq *q = &s->irqs[ix[i]];

		printf("  %6d %-20s %10llu %12.3f %12.3f %12.3f\n", q->irq, q->name, (unsigned long long)q->count,
		       q->dur.count ? us(q->dur.min_ns) : 0.0, avg_us(&q->dur), us(q->dur.max_ns));
	}
	free(ix);
	ix = NULL;

	printf("\nSoftirqs\n  %-10s %10s %10s %12s %12s %12s\n", "softirq", "count", "raised", "min us", "avg us",
	       "max us");
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++) {
		const struct evt_stats_softirq *q = &s->softirq[i];

		if (q->count || q->raises)
			printf("  %-10s %10llu %10llu %12.3f %12.3f %12.3f\n", softirq_name(i, name, sizeof(name)),
			       (unsigned long long)q->count, (unsigned long long)q->raises,
			       q->dur.count ? us(q->dur.min_ns) : 0.0, avg_us(&q->dur), us(q->dur.max_ns));
	}

	printf("\nScheduling latency (wakeup to switch-in)\n");
	if (s->sched_lat.count)
		printf("  %llu wakeups: min %.3f us, avg %.3f us, max %.3f us\n",
		       (unsigned long long)s->sched_lat.count, us(s->sched_lat.min_ns), avg_us(&s->sched_lat),
		       us(s->sched_lat.max_ns));
	else
		printf("  none\n");

	printf("\nLosses\n  %6s %5s %-8s %12s %12s\n", "stream", "cpu", "channel", "discarded", "lost packets");
	for (i = 0; i < s->nr_streams; i++) {
		const struct evt_stats_stream *q = &s->streams[i];

		if (q->discarded || q->lost_packets)
			printf("  %6u %5u %-8s %12llu %12llu\n", q->id, q->cpu, evt_channel_name(q->channel),
			       (unsigned long long)q->discarded, (unsigned long long)q->lost_packets);
	}
	if (!s->nr_losses)
		printf("  none\n");
	for (i = 0, n = rows(r, s->nr_losses); i < n; i++) {
		const struct evt_stats_loss *l = &s->losses[i];

		printf("  at %s: stream %u lost %llu events, %llu packets\n", when(r, l->ts, b1), l->stream,
		       (unsigned long long)l->discarded, (unsigned long long)l->lost_packets);
	}
	free(keys);
	free(top);
	return 0;
oom:
	free(keys);
	free(top);
	return -1;
}

static void json_str(const char *s)
{
	char buf[6 * 256 + 3];

	if (strlen(s) > 255) {
		char cut[256];

		memcpy(cut, s, 255);
		cut[255] = 0;
		evt_fmt_json_string(buf, cut);
	} else {
		evt_fmt_json_string(buf, s);
	}
	fputs(buf, stdout);
}

static void json_lat(const char *key, const struct evt_lat *l)
{
	printf("\"%s\":{\"count\":%llu,\"total_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu}", key,
	       (unsigned long long)l->count, (unsigned long long)l->total_ns,
	       (unsigned long long)(l->count ? l->min_ns : 0), (unsigned long long)l->max_ns);
}

static void json_hist(const uint64_t *h)
{
	int last = 63;

	while (last >= 0 && !h[last])
		last--;
	printf("\"hist_log2_ns\":[");
	for (int b = 0; b <= last; b++)
		printf("%s%llu", b ? "," : "", (unsigned long long)h[b]);
	printf("]");
}

static int print_json(const struct report *r)
{
	const struct evt_stats *s = r->st;
	size_t nthreads = evt_state_nr_threads(r->state), i;
	uint32_t k;
	char name[16];

	printf("{\"trace\":");
	json_str(evt_etrace_path(r->t));
	printf(",\"window\":%s,\"offset_ns\":%llu,\"events\":%llu,\"first_ts\":%llu,\"last_ts\":%llu",
	       r->window ? "true" : "false", (unsigned long long)r->offset_ns, (unsigned long long)s->events,
	       (unsigned long long)s->first_ts, (unsigned long long)s->last_ts);
	printf(",\"cpus\":[");
	for (k = 0; k < s->nr_cpus; k++)
		printf("%s{\"cpu\":%u,\"events\":%llu}", k ? "," : "", k, (unsigned long long)s->cpus[k].events);
	printf("],\"events_by_name\":{");
	for (k = 0; k < s->nr_ev; k++) {
		printf("%s", k ? "," : "");
		json_str(s->ev[k].name);
		printf(":%llu", (unsigned long long)s->ev[k].count);
	}
	printf("},\"threads\":[");
	for (i = 0; i < nthreads; i++) {
		const struct evt_state_thread *t = evt_state_thread_nth(r->state, i);
		const struct evt_stats_thread *th = evt_stats_thread(s, t->tid);

		printf("%s{\"tid\":%d,\"pid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "", t->tid, t->pid, t->ppid);
		json_str(t->comm);
		printf(",\"cpu_ns\":%llu,\"events\":%llu}", (unsigned long long)t->cpu_ns,
		       (unsigned long long)(th ? th->events : 0));
	}
	printf("],\"syscalls\":[");
	for (k = 0; k < s->nr_sys; k++) {
		const struct evt_stats_syscall *y = &s->sys[k];

		printf("%s{\"name\":", k ? "," : "");
		json_str(y->name);
		printf(",\"count\":%llu,\"errors\":%llu,", (unsigned long long)y->count, (unsigned long long)y->errors);
		json_lat("latency", &y->lat);
		printf(",");
		json_hist(y->hist);
		printf("}");
	}
	printf("],\"syscall_exits_unmatched\":%llu,\"irqs\":[", (unsigned long long)s->sys_unmatched);
	for (k = 0; k < s->nr_irqs; k++) {
		const struct evt_stats_irq *q = &s->irqs[k];

		printf("%s{\"irq\":%d,\"name\":", k ? "," : "", q->irq);
		json_str(q->name);
		printf(",\"count\":%llu,", (unsigned long long)q->count);
		json_lat("duration", &q->dur);
		printf("}");
	}
	printf("],\"softirqs\":[");
	for (k = 0, i = 0; k < EVT_STATS_SOFTIRQS; k++) {
		const struct evt_stats_softirq *q = &s->softirq[k];

		if (!q->count && !q->raises)
			continue;
		printf("%s{\"vec\":%u,\"name\":\"%s\",\"count\":%llu,\"raises\":%llu,", i++ ? "," : "", k,
		       softirq_name(k, name, sizeof(name)), (unsigned long long)q->count,
		       (unsigned long long)q->raises);
		json_lat("duration", &q->dur);
		printf("}");
	}
	printf("],");
	json_lat("sched_latency", &s->sched_lat);
	printf(",\"sched_latency_hist_log2_ns\":[");
	{
		int last = 63;

		while (last >= 0 && !s->sched_hist[last])
			last--;
		for (int b = 0; b <= last; b++)
			printf("%s%llu", b ? "," : "", (unsigned long long)s->sched_hist[b]);
	}
	printf("],\"streams\":[");
	for (k = 0; k < s->nr_streams; k++) {
		const struct evt_stats_stream *q = &s->streams[k];

		printf("%s{\"id\":%u,\"cpu\":%u,\"channel\":\"%s\",\"discarded\":%llu,\"lost_packets\":%llu}",
		       k ? "," : "", q->id, q->cpu, evt_channel_name(q->channel), (unsigned long long)q->discarded,
		       (unsigned long long)q->lost_packets);
	}
	printf("],\"losses\":[");
	for (k = 0; k < s->nr_losses; k++) {
		const struct evt_stats_loss *l = &s->losses[k];

		printf("%s{\"ts\":%llu,\"stream\":%u,\"discarded\":%llu,\"lost_packets\":%llu}", k ? "," : "",
		       (unsigned long long)l->ts, l->stream, (unsigned long long)l->discarded,
		       (unsigned long long)l->lost_packets);
	}
	printf("]}\n");
	return 0;
}

/* ---- Getting the results ---- */

static void say(void *data, const char *msg)
{
	(void)data;
	fprintf(stderr, "evstat: %s\n", msg);
}

/* A window: both computations' hooks on an ad hoc request, fresh results. */
struct window {
	struct evt_stats *st;
	struct evt_state *state;
};

static int window_run(struct evt_engine *e, struct evt_etrace *t, uint64_t from, uint64_t to,
		      struct window *w, char *err, size_t errlen)
{
	struct evt_trace *tr = evt_etrace_reader(t);
	const struct evt_state *ready = evt_comp_result(t, "state");
	struct evt_traceset *ts = evt_traceset_new(e);
	uint64_t off = evt_etrace_offset_ns(t);
	struct evt_request r;
	unsigned int cpu, nr_cpus = 0;
	int ret = -1;

	evt_request_init(&r, w);
	w->st = evt_stats_new();
	w->state = evt_state_new();
	if (!tr || !ts || !w->st || !w->state) {
		snprintf(err, errlen, "%s", tr ? "out of memory" : evt_etrace_error(t));
		goto out;
	}
	/* A ready state result says who runs where at the window's start. */
	for (unsigned int i = 0; i < tr->nr_streams; i++)
		if (tr->streams[i].cpu + 1 > nr_cpus)
			nr_cpus = tr->streams[i].cpu + 1;
	for (cpu = 0; ready && cpu < nr_cpus; cpu++) {
		int32_t tid = evt_state_cpu_tid_at(ready, cpu, from);

		if (tid >= 0 && (evt_state_seed_cpu(w->state, cpu, tid) || evt_stats_seed_cpu(w->st, cpu, tid)))
			goto oom;
	}
	r.from_rt = from > UINT64_MAX - off ? UINT64_MAX : from + off;
	r.to_rt = to >= EVT_TIME_END - off ? EVT_TIME_END : to + off;
	if (evt_traceset_add(ts, t) || evt_hooks_add(&r.ctx.event, evt_stats_event_hook, w->st) ||
	    evt_hooks_add(&r.ctx.event, evt_state_event_hook, w->state) || evt_request_submit(ts, &r))
		goto oom;
	evt_engine_run(e);
	evt_state_close(w->state);
	if (evt_stats_read_losses(w->st, tr))
		goto oom;
	ret = r.error ? 1 : 0;
	if (r.error)
		snprintf(err, errlen, "%s", r.errmsg);
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	evt_request_release(&r);
	evt_traceset_free(ts);
	return ret;
}

/* Losses of the whole trace, kept to those of the window. */
static void window_losses(struct evt_stats *s, uint64_t from, uint64_t to)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->nr_streams; i++)
		s->streams[i].discarded = s->streams[i].lost_packets = 0;
	for (i = 0; i < s->nr_losses; i++) {
		struct evt_stats_loss *l = &s->losses[i];

		if (l->ts < from || l->ts > to)
			continue;
		if (l->stream < s->nr_streams) {
			s->streams[l->stream].discarded += l->discarded;
			s->streams[l->stream].lost_packets += l->lost_packets;
		}
		s->losses[n++] = *l;
	}
	s->nr_losses = n;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct evt_engine_opts eo = { .warn = say };
	struct evt_engine *e;
	struct evt_etrace *t;
	struct report rep = { .o = &o };
	struct window w = { 0 };
	char err[EVT_ENGINE_ERRLEN];
	int ret = 0, bad = 0;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr, "Try 'evstat --help'.\n");
		return EXIT_USAGE;
	}
	eo.no_saved_results = o.no_saved;
	e = evt_engine_new(&eo);
	if (!e || evt_engine_register_builtin(e)) {
		fprintf(stderr, "evstat: out of memory\n");
		evt_engine_free(e);
		return EXIT_TRACE;
	}
	t = evt_trace_get(e, o.dir, err, sizeof(err));
	if (!t) {
		fprintf(stderr, "evstat: %s\n", err);
		evt_engine_free(e);
		return EXIT_TRACE;
	}
	rep.t = t;
	rep.offset_ns = evt_etrace_offset_ns(t);
	rep.from = 0;
	rep.to = UINT64_MAX;
	if (o.from || o.to) {
		uint64_t first, last;
		int r;

		/* The first event's time (relative times count from it), from the packet index. */
		if (evt_etrace_span(t, &first, &last)) {
			fprintf(stderr, "evstat: %s\n", evt_etrace_error(t));
			ret = EXIT_TRACE;
			goto out;
		}
		first -= rep.offset_ns;	/* back to the clock */
		for (int k = 0; k < 2; k++) {
			const char *arg = k ? o.to : o.from;

			if (!arg)
				continue;
			r = evt_parse_time(arg, rep.offset_ns, first, k ? &rep.to : &rep.from);
			if (r) {
				fprintf(stderr, r == -2 ? "evstat: %s time \"%s\" is beyond the trace clock's range\n" :
					"evstat: bad %s time \"%s\" (see --help)\n", k ? "--to" : "--from", arg);
				ret = EXIT_USAGE;
				goto out;
			}
		}
		if (rep.from > rep.to) {
			fprintf(stderr, "evstat: --from is after --to\n");
			ret = EXIT_USAGE;
			goto out;
		}
		rep.window = 1;
		r = window_run(e, t, rep.from, rep.to, &w, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "evstat: %s\n", err);
			ret = EXIT_TRACE;
			goto out;
		}
		if (r > 0)
			bad = 1;
		window_losses(w.st, rep.from, rep.to);
		rep.st = w.st;
		rep.state = w.state;
	} else {
		/* The background path: ready (saved) or one pass for both. */
		if (evt_want(t, "stats", NULL, NULL, NULL) < 0 || evt_want(t, "state", NULL, NULL, NULL) < 0) {
			fprintf(stderr, "evstat: out of memory\n");
			ret = EXIT_TRACE;
			goto out;
		}
		evt_engine_run(e);
		rep.st = evt_comp_result(t, "stats");
		rep.state = evt_comp_result(t, "state");
		if (!rep.st || !rep.state) {
			fprintf(stderr, "evstat: %s\n", evt_comp_error(t) ? evt_comp_error(t) : evt_etrace_error(t));
			ret = EXIT_TRACE;
			goto out;
		}
		if (evt_comp_error(t)) {
			snprintf(err, sizeof(err), "%s", evt_comp_error(t));
			bad = 1;
		}
	}
	if ((o.json ? print_json(&rep) : print_text(&rep)) || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "evstat: writing the output: %s\n", errno ? strerror(errno) : "out of memory");
		ret = EXIT_TRACE;
	}
	if (bad) {
		fprintf(stderr, "evstat: %s (the statistics are those of the events before it)\n", err);
		ret = EXIT_TRACE;
	}
out:
	if (w.st)
		evt_stats_free(w.st);
	if (w.state)
		evt_state_free(w.state);
	evt_trace_put(t);
	evt_engine_free(e);
	return ret;
}
