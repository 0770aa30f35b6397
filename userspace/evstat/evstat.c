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
#include "util/evt_cli.h"
#include "engine/evt_comps.h"
#include "engine/evt_comp_io.h"
#include "engine/evt_comp_power.h"
#include "engine/evt_engine.h"
#include "format/evt_format.h"
#include "report/evt_report.h"
#include "format/evt_timearg.h"
#include "evs_stacks.h"

#define EXIT_TRACE EVT_EXIT_FAILURE
#define EXIT_USAGE EVT_EXIT_USAGE

static void usage(FILE *f)
{
	fprintf(f,
"usage: evstat DIR [options]\n"
"The statistics of the evtrace trace in DIR (a trace directory or a run of\n"
"chunks): events per name, CPU and thread; the threads that ran most; system\n"
"calls with their latency; interrupts and softirqs with their durations;\n"
"scheduling latency (wakeup to switch-in); block I/O per device and request\n"
"size, I/O system calls' bytes per process and file; losses per stream and\n"
"over time.\n"
"The whole trace is computed once and the results saved beside it\n"
"(DIR/.evtrace-results/, or ~/.cache/evtrace/ when DIR is not writable): the\n"
"next evstat of an unchanged trace reads no stream file.\n"
"\n"
"  --json              one JSON object instead of text\n"
"  --from T, --to T    only the events in [T, T] (computed now, not saved);\n"
"                      T as evcat(1) takes it (HH:MM:SS[.ns], +SECONDS, @CLOCK, ...)\n"
"  --top N             rows of each table in text (default 10; 0: all)\n"
"  --by process|thread also the system calls of each process or thread\n"
"                      (calls, latencies, percentiles, errors by errno)\n"
"  --pid N, --tid N, --comm GLOB  only these tasks in the per-task parts\n"
"                      (threads, processes, worst latencies, wakeups), as\n"
"                      evcat(1) chooses them: repeat an option or give A,B; a\n"
"                      thread is kept when it matches each option given;\n"
"                      implies --by process unless --by is given\n"
"  --hist WHAT         also a histogram as bars (log2 buckets): WHAT is\n"
"                      syscall=NAME, irq=N, softirq=NAME or sched (repeatable)\n"
"  --stacks            also the kernel stacks (evctl enable --stack): each\n"
"                      event's most frequent ones, as function names from the\n"
"                      symbols evdrain saved beside the trace\n"
"  --folded EVENT      only EVENT's kernel stacks, folded for flamegraph.pl and\n"
"                      speedscope: \"EVENT;outermost;...;innermost COUNT\" lines\n"
"  --no-saved          neither read nor write saved results\n"
"  --version           print the version\n"
"  --help              this text\n"
"\n"
"Exit status: 0 success; 1 trace error (the statistics of the events before it\n"
"are printed); 2 usage error.\n");
}

#define MAX_FILTERS 64
struct opts {
	const char *dir, *from, *to, *folded;
	int json, no_saved, stacks;
	unsigned long top;
	enum evt_report_by by;
	int by_given;
	int32_t pids[MAX_FILTERS], tids[MAX_FILTERS];
	const char *comms[MAX_FILTERS], *hists[MAX_FILTERS];
	uint32_t nr_pids, nr_tids, nr_comms, nr_hists;
};

/* --by, --pid, --tid, --comm, --hist's value @v (@a: the option). 0 or -1 (said). */
static int task_opt(struct opts *o, const char *a, const char *v)
{
	const char *const v0 = v;

	if (!strcmp(a, "--by")) {
		o->by_given = 1;
		if (!strcmp(v, "process")) {
			o->by = EVT_REPORT_BY_PROCESS;
		} else if (!strcmp(v, "thread")) {
			o->by = EVT_REPORT_BY_THREAD;
		} else {
			fputs("evstat: --by takes process or thread, not \"", stderr);
			evt_fputs_esc(stderr, v);
			fputs("\"\n", stderr);
			return -1;
		}
		return 0;
	}
	if (!strcmp(a, "--pid") || !strcmp(a, "--tid")) {
		int32_t *ids = a[2] == 'p' ? o->pids : o->tids;
		uint32_t *n = a[2] == 'p' ? &o->nr_pids : &o->nr_tids;

		for (const char *p = v0;;) {
			char *end;
			long long id;

			errno = 0;
			id = strtoll(p, &end, 10);
			if (end == p || errno || id < 0 || id > INT32_MAX || (*end && *end != ',') || *n >= MAX_FILTERS) {
				fprintf(stderr, "evstat: %s takes up to %d numbers (0 to %d, NUM,NUM), not \"", a, MAX_FILTERS,
					INT32_MAX);
				evt_fputs_esc(stderr, v0);
				fputs("\"\n", stderr);
				return -1;
			}
			ids[(*n)++] = (int32_t)id;
			if (!*end)
				return 0;
			p = end + 1;
		}
	}
	if ((!strcmp(a, "--comm") ? o->nr_comms : o->nr_hists) >= MAX_FILTERS) {
		fprintf(stderr, "evstat: more than %d %s options\n", MAX_FILTERS, a);
		return -1;
	}
	if (!strcmp(a, "--comm")) {
		o->comms[o->nr_comms++] = v;
	} else {
		if (evt_report_hist_valid(v)) {
			fputs("evstat: --hist takes syscall=NAME, irq=N, softirq=NAME or sched, not \"", stderr);
			evt_fputs_esc(stderr, v);
			fputs("\"\n", stderr);
			return -1;
		}
		o->hists[o->nr_hists++] = v;
	}
	return 0;
}

enum { OPT_JSON = 256, OPT_NO_SAVED, OPT_STACKS, OPT_FOLDED, OPT_BY, OPT_PID, OPT_TID, OPT_COMM, OPT_HIST,
       OPT_FROM, OPT_TO, OPT_TOP, OPT_VERSION };

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-saved", no_argument, NULL, OPT_NO_SAVED },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "by", required_argument, NULL, OPT_BY },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "hist", required_argument, NULL, OPT_HIST },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	char flag[16];
	int c, idx;

	o->top = 10;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", long_opts, &idx)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("evstat %s\n", EVT_VERSION);
			exit(0);
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_NO_SAVED:
			o->no_saved = 1;
			break;
		case OPT_STACKS:
			o->stacks = 1;
			break;
		case OPT_FOLDED:
			o->folded = optarg;
			break;
		case OPT_BY:
		case OPT_PID:
		case OPT_TID:
		case OPT_COMM:
		case OPT_HIST:
			snprintf(flag, sizeof(flag), "--%s", long_opts[idx].name);
			if (task_opt(o, flag, optarg))
				return -1;
			break;
		case OPT_FROM:
			o->from = optarg;
			break;
		case OPT_TO:
			o->to = optarg;
			break;
		case OPT_TOP: {
			char *end;

			errno = 0;
			o->top = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-') {
				fprintf(stderr, "evstat: --top needs a whole number, not \"%s\"\n", optarg);
				return -1;
			}
			break;
		}
		default:
			evt_opt_error("evstat", argv, "h", long_opts);
			return -1;
		}
	}
	for (; optind < argc; optind++) {
		if (!o->dir) {
			o->dir = argv[optind];
		} else {
			fprintf(stderr, "evstat: one trace directory only (\"%s\" is a second)\n", argv[optind]);
			return -1;
		}
	}
	if (!o->dir) {
		fprintf(stderr, "evstat: which trace? (evstat DIR)\n");
		return -1;
	}
	if ((o->nr_pids || o->nr_tids || o->nr_comms) && o->by == EVT_REPORT_BY_NONE)
		o->by = EVT_REPORT_BY_PROCESS;
	if (o->json && (o->by_given || o->nr_hists)) {
		fprintf(stderr, "evstat: --by and --hist are text; --json always has both (processes, threads, hist_log2_ns)\n");
		return -1;
	}
	if (o->stacks && o->json) {
		fprintf(stderr, "evstat: --stacks is a section of the text report: no --json\n");
		return -1;
	}
	if (o->folded && (o->json || o->stacks || o->from || o->to || o->by || o->nr_hists)) {
		fprintf(stderr, "evstat: --folded prints the folded stacks alone: no --json, --stacks, --from, --to,\n"
			"--by, --pid, --tid, --comm or --hist\n");
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
	const struct evt_state *ids;	/* a window's: the whole trace's state, if ready */
	struct evt_io *io;
	struct evt_power *power;
	uint64_t offset_ns;
	uint64_t from, to;		/* clock: the window, or 0 .. UINT64_MAX */
	int window;
};

static struct evt_report lib_report(const struct report *r);

static int print_text(const struct report *r)
{
	const struct evt_report lib = lib_report(r);
	const struct evt_report_text txt = {
		.top = r->o->top, .by = r->o->by, .hists = r->o->hists, .nr_hists = r->o->nr_hists,
		.saved_from = r->window ? NULL : evt_comp_saved_from(r->t, "stats"),
	};

	return evt_report_text(&lib, &txt);
}

/* The library's view of the report (its JSON, the per-task sections). */
static struct evt_report lib_report(const struct report *r)
{
	struct evt_report j = {
		.path = evt_etrace_path(r->t), .st = r->st, .state = r->state, .ids = r->ids, .io = r->io,
		.power = r->power, .offset_ns = r->offset_ns, .window = r->window, .pids = r->o->pids,
		.nr_pids = r->o->nr_pids, .tids = r->o->tids, .nr_tids = r->o->nr_tids, .comms = r->o->comms,
		.nr_comms = r->o->nr_comms,
	};

	return j;
}

static int print_json(const struct report *r)
{
	struct evt_report j = lib_report(r);

	return evt_report_json(stdout, &j);
}

/* ---- Getting the results ---- */

/* A message to stderr; what it quotes (a file name, a name) escaped. */
static void say(void *data, const char *msg)
{
	(void)data;
	evt_say_err("evstat", msg);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct evt_engine_opts eo = { .warn = say };
	struct evt_engine *e;
	struct evt_etrace *t;
	struct report rep = { .o = &o };
	struct evt_report_window w = { 0 };
	char err[EVT_ENGINE_ERRLEN] = "";
	int ret = 0, bad = 0, pr;

	if (parse_args(argc, argv, &o)) {
		return EXIT_USAGE;
	}
	eo.no_saved_results = o.no_saved;
	e = evt_engine_new(&eo);
	if (!e || evt_engine_register_builtin(e)) {
		fprintf(stderr, "evstat: out of memory\n");
		evt_engine_free(e);
		return EXIT_TRACE;
	}
	t = evt_etrace_get(e, o.dir, err, sizeof(err));
	if (!t) {
		say(NULL, err);
		evt_engine_free(e);
		return EXIT_TRACE;
	}
	if (o.folded) {
		if (evs_stacks_report(e, t, o.folded, 0, stdout, err, sizeof(err)) || fflush(stdout)) {
			fprintf(stderr, "evstat: %s\n", err);
			ret = EXIT_TRACE;
		}
		goto out;
	}
	rep.t = t;
	evt_etrace_catch_cut(t, "evstat");
	rep.offset_ns = evt_etrace_offset_ns(t);
	rep.from = 0;
	rep.to = UINT64_MAX;
	if (o.from || o.to) {
		uint64_t first, last;
		int r;

		/* The first event's time (relative times count from it), from the packet index. */
		if (evt_etrace_span(t, &first, &last)) {
			say(NULL, evt_etrace_error(t));
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
		/* The ad hoc path: this process steps the engine until the request is done. */
		snprintf(err, sizeof(err), "out of memory");
		if (evt_report_window_init(&w, e, t, rep.from, rep.to, err, sizeof(err)) ||
		    evt_request_submit(w.ts, &w.req)) {
			say(NULL, w.req.errmsg[0] ? w.req.errmsg : err);
			ret = EXIT_TRACE;
			goto out;
		}
		evt_engine_run(e);
		r = evt_report_window_finish(&w, t, err, sizeof(err));
		if (r < 0) {
			say(NULL, err);
			ret = EXIT_TRACE;
			goto out;
		}
		if (r > 0)
			bad = 1;
		rep.st = w.st;
		rep.state = w.state;
		rep.ids = evt_comp_result(t, "state");
		rep.io = w.io;
	} else {
		/* The background path: ready (saved) or one pass for both. */
		if (evt_comp_want(t, "stats", NULL, NULL, NULL) < 0 || evt_comp_want(t, "state", NULL, NULL, NULL) < 0 ||
		    evt_comp_want(t, "io", NULL, NULL, NULL) < 0 || evt_comp_want(t, "power", NULL, NULL, NULL) < 0) {
			fprintf(stderr, "evstat: out of memory\n");
			ret = EXIT_TRACE;
			goto out;
		}
		evt_engine_run(e);
		rep.st = evt_comp_result(t, "stats");
		rep.state = evt_comp_result(t, "state");
		rep.io = evt_comp_result(t, "io");
		rep.power = evt_comp_result(t, "power");
		if (!rep.st || !rep.state || !rep.io || !rep.power) {
			say(NULL, evt_comp_error(t) ? evt_comp_error(t) : evt_etrace_error(t));
			ret = EXIT_TRACE;
			goto out;
		}
		if (evt_comp_error(t)) {
			snprintf(err, sizeof(err), "%s", evt_comp_error(t));
			bad = 1;
		}
	}
	pr = o.json ? print_json(&rep) : print_text(&rep);
	if (pr == 1) {
		ret = EXIT_USAGE;	/* a --hist of nothing there is, said */
		pr = 0;
	}
	if (pr ||
	    (o.stacks && evs_stacks_report(e, t, NULL, o.top, stdout, err, sizeof(err))) || fflush(stdout) ||
	    ferror(stdout)) {
		if (o.stacks && err[0])
			fprintf(stderr, "evstat: --stacks: %s\n", err);
		fprintf(stderr, "evstat: writing the output: %s\n", errno ? strerror(errno) : "out of memory");
		ret = EXIT_TRACE;
	}
	if (bad) {
		fputs("evstat: ", stderr);
		evt_fputs_esc(stderr, err);
		fputs(" (the statistics are those of the events before it)\n", stderr);
		ret = EXIT_TRACE;
	}
out:
	evt_report_window_free(&w);
	evt_etrace_put(t);
	evt_engine_free(e);
	return ret;
}
