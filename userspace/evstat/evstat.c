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
#include "evs_deep.h"
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
	enum evs_by by;
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
			o->by = EVS_BY_PROCESS;
		} else if (!strcmp(v, "thread")) {
			o->by = EVS_BY_THREAD;
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
		if (evs_hist_valid(v)) {
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
	if ((o->nr_pids || o->nr_tids || o->nr_comms) && o->by == EVS_BY_NONE)
		o->by = EVS_BY_PROCESS;
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

/*
 * Names come from the trace, chosen by whoever ran the process (a comm
 * set with prctl(PR_SET_NAME), an IRQ's name): escaped as evcat escapes
 * them, never written raw to a terminal.
 */
#define EVT_ESC_NAME 512
#define ESC(s) evt_fmt_esc(e1, sizeof(e1), (s))

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

static const char *when(const struct report *r, uint64_t ts, char *buf)
{
	evt_fmt_clock(buf, ts + r->offset_ns, 1);
	return buf;
}

static uint32_t rows(const struct report *r, uint32_t n)
{
	return r->o->top && r->o->top < n ? (uint32_t)r->o->top : n;
}

/* Block I/O per device and request size; I/O syscalls' bytes per process and file. */
static int print_io(const struct report *r)
{
	const struct evt_io *io = r->io;
	uint64_t *keys = malloc(((io->nr_procs > io->nr_files ? io->nr_procs : io->nr_files) + 1) * sizeof(*keys));
	char dev[32], size[32], name[4 * 255 + 3];
	uint32_t *ix, i, k, b, n;

	if (!keys)
		return -1;
	printf("\nBlock I/O (issue to completion)\n  %-12s %-9s %-5s %10s %12s %12s %12s %12s\n", "device", "dev",
	       "op", "requests", "bytes", "min us", "avg us", "max us");
	for (i = 0; i < io->nr_devs; i++)
		for (k = 0; k < 2; k++) {
			const struct evt_io_dev *d = &io->devs[i];
			const struct evt_io_req_stats *q = &d->rw[k];

			if (!q->count)
				continue;
			evt_fmt_esc(name, sizeof(name), d->name[0] ? d->name : "?");
			printf("  %-12s %-9s %-5s %10llu %12llu %12.3f %12.3f %12.3f\n", name,
			       evt_dev_name(d->dev, dev, sizeof(dev)), k ? "write" : "read",
			       (unsigned long long)q->count, (unsigned long long)q->bytes, evs_us(q->lat.min_ns),
			       evs_avg_us(&q->lat), evs_us(q->lat.max_ns));
		}
	if (!io->nr_devs)
		printf("  none\n");
	printf("\nBlock I/O by request size (up to)\n  %-12s %-5s %10s %10s %12s %12s %12s\n", "device", "op",
	       "size", "requests", "min us", "avg us", "max us");
	for (i = 0; i < io->nr_devs; i++)
		for (k = 0; k < 2; k++)
			for (b = 0; b < EVT_IO_SIZE_BUCKETS; b++) {
				const struct evt_io_req_stats *q = &io->devs[i].size[k][b];

				if (!q->count)
					continue;
				evt_fmt_esc(name, sizeof(name), io->devs[i].name[0] ? io->devs[i].name : "?");
				printf("  %-12s %-5s %10s %10llu %12.3f %12.3f %12.3f\n", name, k ? "write" : "read",
				       evt_io_size_name(b, size, sizeof(size)), (unsigned long long)q->count,
				       evs_us(q->lat.min_ns), evs_avg_us(&q->lat), evs_us(q->lat.max_ns));
			}
	printf("\nI/O by process (bytes: system calls, block requests issued)\n  %8s %-18s %12s %12s %12s %12s\n",
	       "pid", "comm", "read", "written", "block read", "block wr");
	for (i = 0; i < io->nr_procs; i++)
		keys[i] = io->procs[i].read + io->procs[i].write + io->procs[i].blk_read + io->procs[i].blk_write;
	ix = evs_order(keys, io->nr_procs);
	for (i = 0, n = rows(r, io->nr_procs); ix && i < n; i++) {
		const struct evt_io_proc *p = &io->procs[ix[i]];

		if (!keys[ix[i]])
			break;
		evt_fmt_esc(name, sizeof(name), p->comm);
		printf("  %8d %-18s %12llu %12llu %12llu %12llu\n", p->pid, name, (unsigned long long)p->read,
		       (unsigned long long)p->write, (unsigned long long)p->blk_read, (unsigned long long)p->blk_write);
	}
	free(ix);
	printf("\nI/O by file (bytes of system calls)\n  %12s %12s  %s\n", "read", "written", "file");
	for (i = 0; i < io->nr_files; i++)
		keys[i] = io->files[i].read + io->files[i].write;
	ix = evs_order(keys, io->nr_files);
	for (i = 0, n = rows(r, io->nr_files); ix && i < n; i++) {
		const struct evt_io_file *f = &io->files[ix[i]];

		if (!keys[ix[i]])
			break;
		evt_fmt_esc(name, sizeof(name), f->name);
		printf("  %12llu %12llu  %s\n", (unsigned long long)f->read, (unsigned long long)f->write, name);
	}
	free(ix);
	free(keys);
	return 0;
}

/* Per CPU: the time in each idle state and at each frequency (the CPU's own events say which). */
static void print_power(const struct report *r)
{
	const struct evt_power *pw = r->power;
	uint32_t i, k;

	printf("\nCPU idle states and frequencies (power_cpu_idle, power_cpu_frequency)\n"
	       "  %5s %-10s %12s %14s %8s\n", "cpu", "what", "value", "ms", "% known");
	for (i = 0; i < pw->nr_cpus; i++) {
		const struct evt_power_cpu *c = &pw->cpus[i];
		uint64_t known = 0;

		for (k = 0; k < c->nr_idle_ns; k++)
			known += c->idle_ns[k].ns;
		for (k = 0; k < c->nr_idle_ns; k++) {
			char v[24];

			if (c->idle_ns[k].value == EVT_POWER_RUNNING)
				snprintf(v, sizeof(v), "running");
			else
				snprintf(v, sizeof(v), "state %u", c->idle_ns[k].value);
			printf("  %5u %-10s %12s %14.3f %8.2f\n", c->cpu, "idle", v, (double)c->idle_ns[k].ns / 1e6,
			       known ? 100.0 * (double)c->idle_ns[k].ns / (double)known : 0.0);
		}
		known = 0;
		for (k = 0; k < c->nr_freq_ns; k++)
			known += c->freq_ns[k].ns;
		for (k = 0; k < c->nr_freq_ns; k++) {
			char v[24];

			snprintf(v, sizeof(v), "%u MHz", c->freq_ns[k].value / 1000);
			printf("  %5u %-10s %12s %14.3f %8.2f\n", c->cpu, "frequency", v, (double)c->freq_ns[k].ns / 1e6,
			       known ? 100.0 * (double)c->freq_ns[k].ns / (double)known : 0.0);
		}
	}
	if (!pw->nr_cpus)
		printf("  none\n");
}

static struct evt_report lib_report(const struct report *r);

static int print_text(const struct report *r)
{
	const struct evt_report lib = lib_report(r);
	const struct evt_stats *s = r->st;
	const struct evt_state_thread **top = NULL;
	uint64_t *keys = NULL, span;
	uint32_t *ix = NULL, i, n, cap;
	char b1[40], b2[40], name[16];
	size_t ntop, nthreads;
	const char *saved;
	int hist_missing = 0;
	char e1[EVT_ESC_NAME];

	cap = s->nr_ev;
	if (s->nr_sys > cap)
		cap = s->nr_sys;
	if (s->nr_irqs > cap)
		cap = s->nr_irqs;
	/* No more rows than threads, whatever --top says: --top 2^61 must not wrap the size. */
	nthreads = evt_state_nr_threads(r->state);
	if (r->o->top && r->o->top < nthreads)
		nthreads = r->o->top;
	keys = malloc((cap ? cap : 1) * sizeof(*keys));
	top = malloc((nthreads ? nthreads : 1) * sizeof(*top));
	if (!keys || !top)
		goto oom;

	printf("Trace %s%s\n", ESC(evt_etrace_path(r->t)), r->window ? " (a window)" : "");
	/* Whether the figures below are the whole story comes first. */
	{
		uint64_t disc = 0, lostp = 0;

		for (i = 0; i < s->nr_losses; i++) {
			disc += s->losses[i].discarded;
			lostp += s->losses[i].lost_packets;
		}
		if (!s->nr_losses)
			printf("  complete: no event or packet lost\n");
		else
			printf("  INCOMPLETE: %llu events discarded, %llu packets lost, in %u ranges (see Losses);\n"
			       "  a latency or duration that spans one is counted apart (spans loss), not measured\n",
			       (unsigned long long)disc, (unsigned long long)lostp, s->nr_losses);
	}
	/* Figures an earlier run saved are said to be, with where (whoever can write there made them). */
	if (!r->window && (saved = evt_comp_saved_from(r->t, "stats")))
		printf("  (saved results: %s; --no-saved computes them again)\n", ESC(saved));
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
	ix = evs_order(keys, s->nr_ev);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(r, s->nr_ev); i < n; i++)
		printf("  %-32s %12llu\n", ESC(s->ev[ix[i]].name), (unsigned long long)s->ev[ix[i]].count);
	free(ix);

	ntop = evt_state_top_threads(r->state, top, nthreads);
	printf("\nThreads by CPU time\n  %8s %8s %-16s %14s %7s %12s\n", "tid", "pid", "comm", "cpu ms",
	       "% span", "events");
	for (i = 0; i < ntop; i++) {
		const struct evt_stats_thread *th = evt_stats_thread(s, top[i]->tid);

		printf("  %8d %8d %-16s %14.3f %7.2f %12llu\n", top[i]->tid, top[i]->pid, ESC(top[i]->comm),
		       (double)top[i]->cpu_ns / 1e6, span ? 100.0 * (double)top[i]->cpu_ns / (double)span : 0.0,
		       (unsigned long long)(th ? th->events : 0));
	}

	printf("\nSystem calls\n  %-28s %10s %8s %12s %12s %12s %10s\n", "syscall", "count", "errors", "min us",
	       "avg us", "max us", "spans loss");
	for (i = 0; i < s->nr_sys; i++)
		keys[i] = s->sys[i].count;
	ix = evs_order(keys, s->nr_sys);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(r, s->nr_sys); i < n; i++) {
		const struct evt_stats_syscall *y = &s->sys[ix[i]];

		printf("  %-28s %10llu %8llu ", ESC(y->name), (unsigned long long)y->count, (unsigned long long)y->errors);
		/* No latency where no call returned (exit_group): none rather than 0. */
		if (y->lat.count)
			printf("%12.3f %12.3f %12.3f", evs_us(y->lat.min_ns), evs_avg_us(&y->lat), evs_us(y->lat.max_ns));
		else
			printf("%12s %12s %12s", "-", "-", "-");
		printf(" %10llu\n", (unsigned long long)y->lat.spans_loss);
	}
	free(ix);

	if (evs_print_percentiles(&lib, r->o->top))
		goto oom;

	printf("\nInterrupts\n  %6s %-20s %10s %12s %12s %12s %10s\n", "irq", "name", "count", "min us", "avg us",
	       "max us", "spans loss");
	for (i = 0; i < s->nr_irqs; i++)
		keys[i] = s->irqs[i].count;
	ix = evs_order(keys, s->nr_irqs);
	if (!ix)
		goto oom;
	for (i = 0, n = rows(r, s->nr_irqs); i < n; i++) {
		const struct evt_stats_irq *q = &s->irqs[ix[i]];

		printf("  %6d %-20s %10llu %12.3f %12.3f %12.3f %10llu\n", q->irq, ESC(q->name),
		       (unsigned long long)q->count, q->dur.count ? evs_us(q->dur.min_ns) : 0.0, evs_avg_us(&q->dur),
		       evs_us(q->dur.max_ns), (unsigned long long)q->dur.spans_loss);
	}
	free(ix);
	ix = NULL;

	printf("\nSoftirqs\n  %-10s %10s %10s %12s %12s %12s %10s\n", "softirq", "count", "raised", "min us",
	       "avg us", "max us", "spans loss");
	for (i = 0; i < EVT_STATS_SOFTIRQS; i++) {
		const struct evt_stats_softirq *q = &s->softirq[i];

		if (q->count || q->raises)
			printf("  %-10s %10llu %10llu %12.3f %12.3f %12.3f %10llu\n",
			       evt_softirq_name(i, name, sizeof(name)), (unsigned long long)q->count,
			       (unsigned long long)q->raises, q->dur.count ? evs_us(q->dur.min_ns) : 0.0, evs_avg_us(&q->dur),
			       evs_us(q->dur.max_ns), (unsigned long long)q->dur.spans_loss);
	}

	evs_print_irq_percentiles(&lib);

	printf("\nScheduling latency (wakeup to switch-in)\n");
	if (s->sched_lat.count)
		printf("  %llu wakeups: min %.3f us, avg %.3f us, max %.3f us\n",
		       (unsigned long long)s->sched_lat.count, evs_us(s->sched_lat.min_ns), evs_avg_us(&s->sched_lat),
		       evs_us(s->sched_lat.max_ns));
	else
		printf("  none\n");
	if (s->sched_lat.spans_loss)
		printf("  spans a loss: %llu (not measured)\n", (unsigned long long)s->sched_lat.spans_loss);
	if (s->sched_lat.count) {
		printf("  percentiles:");
		for (i = 0; i < EVT_REPORT_NPCT; i++)
			printf(" %s %.3f us%s", evt_report_pct_names[i],
			       evs_us(evt_lathist_pct(&s->sched_pct, evt_report_pct_permille[i])), i + 1 < EVT_REPORT_NPCT ? "," : "\n");
	}

	evs_print_cpus(&lib);
	if (evs_print_wakeups(&lib, r->o->top))
		goto oom;
	evs_print_worst(&lib, r->o->top);
	if (r->o->by != EVS_BY_NONE && evs_print_by(&lib, r->o->by, r->o->top))
		goto oom;

	if (r->io && print_io(r))
		goto oom;
	if (r->power)
		print_power(r);

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
	for (i = 0; i < r->o->nr_hists; i++)
		if (evs_print_hist(&lib, r->o->hists[i]))
			hist_missing = 1;
	free(keys);
	free(top);
	return hist_missing ? 1 : 0;
oom:
	free(keys);
	free(top);
	return -1;
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
	fputs("evstat: ", stderr);
	evt_fputs_esc(stderr, msg);
	fputc('\n', stderr);
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
