// SPDX-License-Identifier: GPL-2.0
/*
 * evcat: print an evtrace trace directory as one time-ordered stream,
 * every line with the task that ran. See usage(); the readings are
 * evcat_run.c, the task context evcat_ctx.c, the selections
 * evcat_filter.c.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "evcat.h"
#include "util/evt_cli.h"
#include "util/evt_cpulist.h"
#include "engine/evt_engine.h"
#include "format/evt_format.h"
#include "util/evt_io.h"
#include "json/evt_json.h"
#include "ctf/evt_losses.h"
#include "format/evt_symbols.h"
#include "format/evt_timearg.h"
#include "util/evt_units.h"

#define EXIT_TRACE EVT_EXIT_FAILURE
#define EXIT_USAGE EVT_EXIT_USAGE
#define EXIT_LOSS EVT_EXIT_LOSS

/* EVT_VERSION: the top-level VERSION file, passed by the Makefile. */
#ifndef EVT_VERSION
#define EVT_VERSION "unknown"
#endif

/* An error message; what it quotes (a file name, a name from the trace) escaped. */
static void say_err(const char *msg)
{
	evt_say_err("evcat", msg);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: evcat DIR [options]\n"
"Print the evtrace trace in DIR (metadata + compact_N / normal_N stream files)\n"
"as one stream in time order: every stream file decoded strictly, then merged,\n"
"each line with the task that ran. A DIR of chunks (a rotating evdrain's:\n"
"evdrain(8), Rotation) reads as one trace, the chunks joined in sequence order;\n"
"--from/--to open only the chunks they overlap, --stats shows the chunks and each\n"
"seam's lost packets. What the trace lost is said on standard error, once per\n"
"lost range, before the events.\n"
"\n"
"  --format text|json  text (default), close to babeltrace2's:\n"
"                        [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) comm/tid [CPU] name: { field = value, ... }\n"
"                      (exit_syscall: { syscall = sys_NAME, ... }; prev_state as\n"
"                      the kernel's letters; ? for what the trace does not say)\n"
"                      json: one object per line:\n"
"                        {\"ts\":CLOCK,\"time\":\"...Z\",\"cpu\":N,\"tid\":T,\"pid\":P,\"comm\":\"C\",\n"
"                         \"event\":\"name\",\"fields\":{...}}\n"
"                      times are UTC: the clock value plus the metadata's clock offset\n"
"  --from T, --to T    only events in [T, T]; T is one of\n"
"                        HH:MM:SS[.ns]              UTC, on the day of the first event\n"
"                        YYYY-MM-DD HH:MM:SS[.ns]   UTC (or with a T between)\n"
"                        SECONDS[.ns]               since the Epoch\n"
"                        +SECONDS[.ns]              after the first event\n"
"                        [+]DURATION                after the first event, with a\n"
"                                                   unit: 10ms, 1.5s, 2m (ns us ms s m h d)\n"
"                        @CLOCK                     a raw clock value (ns)\n"
"  --cpu LIST          only these CPUs, e.g. 0,2-3\n"
"  --event NAME        only these events: names or globs ('sys_*'); repeat, or NAME,NAME\n"
"  --pid N, --tid N    only the events of these processes / threads (repeat, or N,N)\n"
"  --comm GLOB         only the events of tasks so named (globs; repeat, or A,B)\n"
"  --where COND        only the events whose fields meet COND: FIELD OP VALUE,\n"
"                      joined by 'and'; OP == != < <= > >= (numbers, strings) or\n"
"                      ~ (a string against a glob); e.g. 'ret < 0', 'next_comm ~ \"kworker*\"'\n"
"  --stacks            kernel_stack events' addresses as function names, from the\n"
"                      kernel symbols evdrain saved beside the trace\n"
"  --count             print the number of events (decoded and merged like printing)\n"
"  --stats             print per-CPU and per-event counts, time span and losses\n"
"                      (events_discarded, packet_seq_num gaps), text or json\n"
"  --fail-on-loss      exit with status 7 when the events read lost any (after printing)\n"
"  --merge tree|list   k-way merge: tournament tree (default) or sorted list + cache\n"
"  --threads N         merge time slices on N threads (default: one per CPU, at\n"
"                      most 8; 1: one merge, streaming); the output is the same\n"
"  --slice-bytes SIZE  packet content per time slice with threads (2097152;\n"
"                      --count alone: the content over 8 slices a thread if more)\n"
"  --list-events       print the trace's event names, one a line, and exit\n"
"  --version           print the version\n"
"  --help              this text\n"
"\n"
"Exit status: 0 success; 1 trace error (unreadable or corrupt trace: the message\n"
"names the file and byte offset; events before the error are printed) or output\n"
"error; 2 usage error; 7 events were lost (--fail-on-loss).\n");
}

static void free_opts(struct evcat_opts *o);

/* --from or --to: 0, or -1 after saying what is wrong with it. */
static int time_arg(const char *opt, const char *arg, const struct evt_trace *t, uint64_t first,
		    uint64_t *out)
{
	int r = evt_parse_time(arg, evt_trace_offset_ns(t), first, out);

	if (r == -2)
		fprintf(stderr, "evcat: %s time \"%s\" is beyond the trace clock's range "
			"(%llu ns from its origin)\n", opt, arg, (unsigned long long)UINT64_MAX);
	else if (r)
		fprintf(stderr, "evcat: bad %s time \"%s\" (see --help)\n", opt, arg);
	return r ? -1 : 0;
}

/* --from and --to as clock values of @t: 0, or -1 (said). */
static int resolve_times(const struct evcat_opts *o, struct evt_trace *t, uint64_t *from, uint64_t *to)
{
	uint64_t first = UINT64_MAX;
	unsigned int i;

	/* The first event: each stream's first packet (errors come later, in order). */
	for (i = 0; i < t->nr_streams; i++) {
		struct evt_stream *s = &t->streams[i];

		if (s->npk && s->pk[0].begin < first)
			first = s->pk[0].begin;
	}
	if (first == UINT64_MAX)
		first = 0;
	if ((o->from && time_arg("--from", o->from, t, first, from)) ||
	    (o->to && time_arg("--to", o->to, t, first, to)))
		return -1;
	/* An empty range is a mistake in the command, as evstat says, not a trace without events. */
	if (o->from && o->to && *from > *to) {
		fprintf(stderr, "evcat: --from is after --to\n");
		return -1;
	}
	return 0;
}

enum {
	OPT_FORMAT = 256, OPT_FROM, OPT_TO, OPT_CPU, OPT_EVENT, OPT_COUNT, OPT_STATS, OPT_MERGE, OPT_THREADS,
	OPT_SLICE_BYTES, OPT_FAIL_ON_LOSS, OPT_PID, OPT_TID, OPT_COMM, OPT_WHERE, OPT_STACKS,
	OPT_LIST_EVENTS, OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "where", required_argument, NULL, OPT_WHERE },
	{ "count", no_argument, NULL, OPT_COUNT },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "fail-on-loss", no_argument, NULL, OPT_FAIL_ON_LOSS },
	{ "merge", required_argument, NULL, OPT_MERGE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "slice-bytes", required_argument, NULL, OPT_SLICE_BYTES },
	{ "list-events", no_argument, NULL, OPT_LIST_EVENTS },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A comma-separated list appended to *@list (joined by commas): 0, or -1 (said). */
static int add_list(char **list, const char *v)
{
	size_t have = *list ? strlen(*list) : 0;
	char *more = realloc(*list, have + strlen(v) + 2);

	if (!more) {
		perror("evcat");
		return -1;
	}
	*list = more;
	sprintf(more + have, "%s%s", have ? "," : "", v);
	return 0;
}

/* A whole number in [1, max] for @opt: 0, or -1 (said). */
static int whole(const char *opt, const char *v, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 10);
	if (*end || !*v || *v == '-' || errno || *out < 1 || *out > max) {
		fprintf(stderr, "evcat: --%s needs a whole number from 1 to %llu, not \"%s\"\n", opt, max, v);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct evcat_opts *o)
{
	unsigned long long n;
	char why[200];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		const char *v = optarg;

		switch (c) {
		case 'h':
			usage(stdout);
			free_opts(o);
			exit(EVT_EXIT_OK);
		case OPT_VERSION:
			printf("evcat %s\n", EVT_VERSION);
			free_opts(o);
			exit(EVT_EXIT_OK);
		case OPT_LIST_EVENTS:
			o->list_events = 1;
			break;
		case OPT_COUNT:
			o->count = 1;
			break;
		case OPT_STACKS:
			o->stacks = 1;
			break;
		case OPT_STATS:
			o->stats = 1;
			break;
		case OPT_FAIL_ON_LOSS:
			o->fail_on_loss = 1;
			break;
		case OPT_THREADS:
			if (whole("threads", v, 256, &n))
				return -1;
			o->threads = (unsigned int)n;
			break;
		case OPT_SLICE_BYTES:
			/* Bytes, or with K, M, G (2M). */
			if (evt_parse_size(v, &o->slice_bytes) || o->slice_bytes < 1 || o->slice_bytes > 1ULL << 40) {
				fprintf(stderr, "evcat: --slice-bytes needs a size from 1 to 1T (bytes, or with K, M, "
					"G: 2M), not \"%s\"\n", v);
				return -1;
			}
			break;
		case OPT_FORMAT:
			if (!strcmp(v, "text")) {
				o->fmt = EVT_FMT_TEXT;
			} else if (!strcmp(v, "json")) {
				o->fmt = EVT_FMT_JSON;
			} else {
				fprintf(stderr, "evcat: --format is text or json, not \"%s\"\n", v);
				return -1;
			}
			break;
		case OPT_MERGE:
			if (!strcmp(v, "tree")) {
				o->merge = EVT_MERGE_TREE;
			} else if (!strcmp(v, "list")) {
				o->merge = EVT_MERGE_LIST;
			} else {
				fprintf(stderr, "evcat: --merge is tree or list, not \"%s\"\n", v);
				return -1;
			}
			break;
		case OPT_FROM:
			o->from = v;
			break;
		case OPT_TO:
			o->to = v;
			break;
		case OPT_CPU:
			if (!o->cpu_set)
				o->cpu_set = calloc(EVT_CPUSET_BYTES, 1);
			if (!o->cpu_set) {
				perror("evcat");
				return -1;
			}
			if (evt_cpulist_parse(v, o->cpu_set, why, sizeof(why))) {
				fprintf(stderr, "evcat: --cpu: %s\n", why);
				return -1;
			}
			break;
		case OPT_EVENT:
			if (add_list(&o->events, v))
				return -1;
			break;
		case OPT_PID:
		case OPT_TID:
			if (evcat_ids_add(c == OPT_PID ? &o->task.pids : &o->task.tids, c == OPT_PID ? "pid" : "tid", v))
				return -1;
			break;
		case OPT_COMM:
			if (add_list(&o->task.comms, v))
				return -1;
			break;
		case OPT_WHERE:
			if (o->where_text) {
				fprintf(stderr, "evcat: one --where (join conditions with \"and\")\n");
				return -1;
			}
			o->where_text = v;
			break;
		default:
			evt_opt_error("evcat", argv, "h", long_opts);
			return -1;
		}
	}
	for (; optind < argc; optind++) {
		if (!o->dir) {
			o->dir = argv[optind];
		} else {
			fprintf(stderr, "evcat: one trace directory only (\"%s\"?)\n", argv[optind]);
			return -1;
		}
	}
	if (!o->dir) {
		fprintf(stderr, "evcat: no trace directory given\n");
		return -1;
	}
	if (!o->threads) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);

		o->threads = nc < 1 ? 1 : nc > 8 ? 8 : (unsigned int)nc;
	}
	return 0;
}

/* Packets lost at the seam into chunk @k (index in t->chunks): the sequence gaps there, all streams. */
static uint64_t seam_lost(const struct evt_trace *t, unsigned int k)
{
	uint64_t lost = 0;
	unsigned int i, j;

	for (i = 0; i < t->nr_streams; i++)
		for (j = 0; j < t->streams[i].nsegs; j++)
			if (t->streams[i].segs[j].chunk == k)
				lost += t->streams[i].segs[j].seam_lost;
	return lost;
}

/* A run of chunks: which were read, and each seam (lost packets, the time between the names). */
static void print_run(const struct evt_trace *t)
{
	unsigned int k;
	char e1[1024];

	printf("run of %u chunks (of %u in %s): %s .. %s\n", t->nr_chunks, t->run_chunks,
	       evt_fmt_esc(e1, sizeof(e1), t->dir), t->chunks[0].name, t->chunks[t->nr_chunks - 1].name);
	if (t->nr_chunks > 1)
		printf("%-12s %-12s %10s %16s\n", "seam: seq", "to seq", "pkts lost", "gap (us)");
	for (k = 1; k < t->nr_chunks; k++) {
		const struct evt_chunk_ref *a = &t->chunks[k - 1], *b = &t->chunks[k];
		const long long gap_us = ((long long)b->begin_rt - (long long)a->end_rt) / 1000;

		printf("%-12llu %-12llu %10llu %16lld%s\n", (unsigned long long)a->seq,
		       (unsigned long long)b->seq, (unsigned long long)seam_lost(t, k), gap_us,
		       b->seq != a->seq + 1 ? "  (chunks missing between)" : "");
	}
}

/* The run's members of the JSON statistics, into @o: 0, or -1 (out of memory). */
static int run_json(json_t *o, const struct evt_trace *t)
{
	json_t *chunks = json_array(), *seams = json_array();
	unsigned int k;
	int bad = !chunks || !seams;

	for (k = 0; !bad && k < t->nr_chunks; k++)
		bad = json_array_append_new(chunks, json_pack("{s:o,s:o}", "name", evt_json_str(t->chunks[k].name),
							      "seq", evt_json_u64(t->chunks[k].seq)));
	for (k = 1; !bad && k < t->nr_chunks; k++) {
		const struct evt_chunk_ref *a = &t->chunks[k - 1], *b = &t->chunks[k];

		bad = json_array_append_new(seams, json_pack("{s:o,s:o,s:o,s:I,s:b}", "from", evt_json_u64(a->seq),
							     "to", evt_json_u64(b->seq), "lost_packets",
							     evt_json_u64(seam_lost(t, k)), "gap_us",
							     (json_int_t)(((long long)b->begin_rt - (long long)a->end_rt) / 1000),
							     "chunks_missing", b->seq != a->seq + 1));
	}
	if (bad) {
		json_decref(chunks);
		json_decref(seams);
		return -1;
	}
	return json_object_update_new(o, json_pack("{s:I,s:o,s:o}", "chunks_in_dir", (json_int_t)t->run_chunks,
						   "chunks", chunks, "seams", seams));
}

/* One CPU's figures (both channels summed: streams are sorted by CPU) from stream @i on; *@next: the next CPU's. */
struct cpu_sum {
	unsigned int cpu;
	uint64_t events, discarded, lost, packets;
};

static unsigned int cpu_sum(const struct evt_trace *t, const struct evcat_stats *st, unsigned int i,
			    struct cpu_sum *c)
{
	unsigned int j;

	memset(c, 0, sizeof(*c));
	c->cpu = t->streams[i].cpu;
	for (j = i; j < t->nr_streams && t->streams[j].cpu == t->streams[i].cpu; j++) {
		c->events += st->per_stream[j];
		c->discarded += t->streams[j].discarded;
		c->lost += t->streams[j].seq_gaps;
		c->packets += t->streams[j].packets;
	}
	return j;
}

/* --stats --format json: docs/schemas/evtrace.cat-stats.json. */
static int stats_json(struct evt_trace *t, const struct evcat_stats *st, uint64_t disc, uint64_t lost,
		      const char *first, const char *last)
{
	const struct evt_catalogue *cat = t->md.cat;
	json_t *o, *cpus = json_array(), *by_name = json_object();
	unsigned int i;
	int bad = !cpus || !by_name;

	for (i = 0; !bad && i < t->nr_streams;) {
		struct cpu_sum c;

		i = cpu_sum(t, st, i, &c);
		bad = json_array_append_new(cpus, json_pack("{s:I,s:o,s:o,s:o,s:o}", "cpu", (json_int_t)c.cpu, "events",
							    evt_json_u64(c.events), "discarded",
							    evt_json_u64(c.discarded), "lost_packets",
							    evt_json_u64(c.lost), "packets", evt_json_u64(c.packets)));
	}
	for (i = 0; !bad && i < cat->nr_events; i++) {
		/* Names are the metadata's: a key written like every string from a trace. */
		json_t *key;

		if (!st->per_event[i])
			continue;
		key = evt_json_str(cat->events[i].name);
		bad = !key || json_object_set_new(by_name, json_string_value(key), evt_json_u64(st->per_event[i]));
		json_decref(key);
	}
	if (bad) {
		json_decref(cpus);
		json_decref(by_name);
		return -1;
	}
	o = json_pack("{s:s,s:o,s:o,s:o,s:s+,s:s+,s:o,s:o,s:o,s:o,s:o}", "schema", EVT_SCHEMA_CAT_STATS, "events",
		      evt_json_u64(st->total), "first_ts", evt_json_u64(st->first), "last_ts", evt_json_u64(st->last),
		      "first", st->total ? first : "", "Z", "last", st->total ? last : "", "Z", "span_ns",
		      evt_json_u64(st->total ? st->last - st->first : 0), "discarded", evt_json_u64(disc),
		      "lost_packets", evt_json_u64(lost), "cpus", cpus, "events_by_name", by_name);
	if (o && t->nr_chunks && run_json(o, t)) {
		json_decref(o);
		o = NULL;
	}
	return evt_json_write(stdout, o, JSON_COMPACT);
}

static int print_stats(const struct evcat_opts *o, struct evt_trace *t, const struct evcat_stats *st)
{
	const uint64_t off = evt_trace_offset_ns(t);
	uint64_t disc = 0, lost = 0, span = st->total ? st->last - st->first : 0;
	char a[64], b[64];
	unsigned int i;
	const struct evt_catalogue *cat = t->md.cat;
	char e1[1024];

	for (i = 0; i < t->nr_streams; i++) {
		disc += t->streams[i].discarded;
		lost += t->streams[i].seq_gaps;
	}
	evt_fmt_clock(a, st->first + off, 1);
	evt_fmt_clock(b, st->last + off, 1);
	if (o->fmt == EVT_FMT_JSON)
		return stats_json(t, st, disc, lost, a, b);
	printf("trace %s: %llu events in %u stream%s\n", evt_fmt_esc(e1, sizeof(e1), t->dir),
	       (unsigned long long)st->total, t->nr_streams, t->nr_chunks ? "s" : " files");
	if (t->nr_chunks)
		print_run(t);
	if (st->total)
		printf("time span: %sZ .. %sZ (%llu.%09llu s)\n", a, b, (unsigned long long)(span / 1000000000ULL),
		       (unsigned long long)(span % 1000000000ULL));
	printf("%-6s %14s %12s %12s %10s\n", "cpu", "events", "discarded", "pkts lost", "packets");
	for (i = 0; i < t->nr_streams;) {
		struct cpu_sum c;

		i = cpu_sum(t, st, i, &c);
		printf("%-6u %14llu %12llu %12llu %10llu\n", c.cpu, (unsigned long long)c.events,
		       (unsigned long long)c.discarded, (unsigned long long)c.lost, (unsigned long long)c.packets);
	}
	printf("%-24s %14s\n", "event", "count");
	for (i = 0; i < cat->nr_events; i++)
		if (st->per_event[i])
			printf("%-24s %14llu\n", evt_fmt_esc(e1, sizeof(e1), cat->events[i].name),
			       (unsigned long long)st->per_event[i]);
	printf("losses: %llu events discarded (events_discarded), %llu packets lost "
	       "(packet_seq_num gaps)\n", (unsigned long long)disc, (unsigned long long)lost);
	return ferror(stdout) ? -1 : 0;
}

/* A trace evdrain is writing: which streams end in a packet not yet whole (not read). */
static void say_being_written(const struct evt_trace *t)
{
	unsigned int i, n = 0;
	const char *first = NULL;
	char dir[1024];

	evt_fmt_esc(dir, sizeof(dir), t->dir);
	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].partial_tail && !n++)
			first = t->streams[i].name;
	if (n == 1)
		fprintf(stderr, "evcat: %s is being written (evdrain, pid %ld): %s is read up to its "
			"last complete packet\n", dir, t->writer_pid, first);
	else if (n)
		fprintf(stderr, "evcat: %s is being written (evdrain, pid %ld): %s and %u other streams "
			"are read up to their last complete packet\n", dir, t->writer_pid, first, n - 1);
}

static void close_trace(struct evt_engine *eng, struct evt_etrace *et, struct evt_trace *t)
{
	if (et) {
		evt_etrace_put(et);
		evt_engine_free(eng);
	} else {
		evt_trace_close(t);
	}
}

/*
 * What the streams read lost in the range read, on standard error, once
 * per lost range (as babeltrace2 warns): how many of them there were.
 */
static unsigned int say_losses(const struct evt_trace *t, const uint8_t *cpu_set, uint64_t from, uint64_t to,
			       int json)
{
	const uint64_t off = evt_trace_offset_ns(t);
	struct evt_loss *l;
	uint32_t n, i;
	unsigned int said = 0;
	char a[64], b[64], name[256];

	if (evt_trace_losses(t, &l, &n)) {
		fprintf(stderr, "evcat: warning: out of memory: the trace's losses are not told\n");
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct evt_stream *s = &t->streams[l[i].stream];

		if ((cpu_set && !(s->cpu < EVT_MAX_CPUS && (cpu_set[s->cpu / 8] >> (s->cpu % 8) & 1))) ||
		    l[i].to < from || l[i].from > to)
			continue;
		evt_fmt_clock(a, l[i].from + off, json);
		evt_fmt_clock(b, l[i].to + off, json);
		evt_fmt_esc(name, sizeof(name), s->name);
		if (l[i].before)
			fprintf(stderr, "evcat: warning: CPU %u (%s): %llu events discarded before [%s%s] "
				"(the stream's first packet: before the trace, or in it)\n", s->cpu, name,
				(unsigned long long)l[i].events, b, json ? "Z" : "");
		else if (l[i].events)
			fprintf(stderr, "evcat: warning: CPU %u (%s): %llu events discarded between [%s%s] and [%s%s]\n",
				s->cpu, name, (unsigned long long)l[i].events, a, json ? "Z" : "", b, json ? "Z" : "");
		if (l[i].packets)
			fprintf(stderr, "evcat: warning: CPU %u (%s): %llu packets lost between [%s%s] and [%s%s]\n",
				s->cpu, name, (unsigned long long)l[i].packets, a, json ? "Z" : "",
				evt_fmt_clock(b, l[i].begin + off, json) ? b : b, json ? "Z" : "");
		said++;
	}
	free(l);
	return said;
}

/* What parse_args() allocated: every exit frees it (LSan checks the error paths too). */
static void free_opts(struct evcat_opts *o)
{
	free(o->cpu_set);
	free(o->events);
	free(o->event_mask);
	evcat_taskf_free(&o->task);
	evcat_where_free(o->where);
	o->cpu_set = NULL;
	o->events = NULL;
	o->event_mask = NULL;
	o->where = NULL;
}

/* The task context and the selections, over the open trace @t: 0, or -1 (said; @usage: a usage error). */
static int setup_ctx(struct evcat_run *c, struct evcat_opts *o, struct evt_trace *t, int *usage_err)
{
	const unsigned int nev = t->md.cat->nr_events;
	unsigned int i;

	*usage_err = 0;
	if (evcat_shared_init(&c->sh, t, o->fmt, c->print))
		return -1;
	if (o->where) {
		char err[200];
		int rc = evcat_where_bind(o->where, t->md.cat->events, nev, err, sizeof(err));

		if (rc == -2) {
			say_err(err);
			*usage_err = 1;
		}
		if (rc)
			return -1;
	}
	c->sh.taskf = o->task.active ? &o->task : NULL;
	c->sh.where = o->where;
	c->sh.show = o->event_mask;
	if (o->cpu_set) {
		c->stream_show = calloc(t->nr_streams + 1, 1);
		if (!c->stream_show)
			return -1;
		for (i = 0; i < t->nr_streams; i++)
			c->stream_show[i] = t->streams[i].cpu < EVT_MAX_CPUS &&
					    (o->cpu_set[t->streams[i].cpu / 8] >> (t->streams[i].cpu % 8) & 1);
		c->sh.stream_show = c->stream_show;
	}
	/* The merge gives what is shown and what the context must see. */
	if (o->event_mask) {
		c->merge_mask = calloc(nev ? nev : 1, 1);
		if (!c->merge_mask)
			return -1;
		memcpy(c->merge_mask, o->event_mask, nev);
		evcat_shared_needs(&c->sh, c->merge_mask);
	}
	c->plain = c->print && !c->sh.taskf && !c->sh.where && !c->sh.show && !c->sh.stream_show;
	c->g = evcat_ctx_new(&c->sh, 1);
	if (!c->g)
		return -1;
	/* Each CPU's task before its first switch: the switch's prev_tid. */
	if (evcat_ctx_look_ahead(c->g, t, 0) || evcat_shared_unknown_cpus(&c->sh, c->g))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct evcat_opts o = { .fmt = EVT_FMT_TEXT, .merge = EVT_MERGE_TREE };
	struct evt_trace_opts to = { 0 };
	struct evt_trace own, *t = &own;
	struct evt_engine *eng = NULL;
	struct evt_etrace *et = NULL;
	struct evcat_run c = { 0 };
	struct evt_symbols *syms = NULL;
	uint64_t from = 0, tov = UINT64_MAX;
	char err[512];
	int ret = 0, rc, run_times = 0, bad = 0, use_ctx;
	unsigned int losses;

	if (parse_args(argc, argv, &o) || evcat_taskf_ready(&o.task) ||
	    (o.where_text && evcat_where_parse(o.where_text, &o.where, err, sizeof(err)) && (say_err(err), 1))) {
		free_opts(&o);
		return EXIT_USAGE;
	}
	/* Lines say which task ran: every CPU's events tell about every task (names, pids, syscalls). */
	use_ctx = (!o.count && !o.stats) || o.task.active || o.where;
	if (o.cpu_set && !use_ctx) {
		to.cpu_set = o.cpu_set;
		to.cpu_set_bits = EVT_MAX_CPUS;
	}
	to.threads = o.threads;
	/* A run of chunks: the times first (by its first chunk), so that only the chunks in them are opened. */
	if (o.from || o.to) {
		char *first = evt_trace_run_first(o.dir);

		if (first) {
			struct evt_trace probe;

			if (evt_trace_open(&probe, first, NULL)) {
				say_err(probe.err);
				free(first);
				free_opts(&o);
				return EXIT_TRACE;
			}
			bad = resolve_times(&o, &probe, &from, &tov);
			to.from_rt = from + evt_trace_offset_ns(&probe);
			to.to_rt = tov > UINT64_MAX - evt_trace_offset_ns(&probe) ? UINT64_MAX :
				   tov + evt_trace_offset_ns(&probe);
			evt_trace_close(&probe);
			free(first);
			if (bad) {
				free_opts(&o);
				return EXIT_USAGE;
			}
			run_times = 1;
		}
	}
	if ((o.from || o.to) && o.threads <= 1 && !use_ctx) {
		/* The analysis engine's ad hoc path (it reads, it saves nothing beside the trace). */
		struct evt_engine_opts eo = { .no_saved_results = 1 };

		eng = evt_engine_new(&eo);
		et = eng ? evt_etrace_get_opts(eng, o.dir, &to, err, sizeof(err)) : NULL;
		t = et ? evt_etrace_reader(et) : NULL;
		if (!t) {
			say_err(!eng ? "out of memory" : et ? evt_etrace_error(et) : err);
			evt_etrace_put(et);
			evt_engine_free(eng);
			free_opts(&o);
			return EXIT_TRACE;
		}
	} else if (evt_trace_open(t, o.dir, &to)) {
		say_err(t->err);
		free_opts(&o);
		return EXIT_TRACE;
	}
	evt_trace_catch_cut(t, "evcat");
	if (o.list_events) {
		for (unsigned int i = 0; i < t->md.cat->nr_events; i++) {
			evt_fputs_esc(stdout, t->md.cat->events[i].name);
			putchar('\n');
		}
		ret = fflush(stdout) || ferror(stdout) ? EXIT_TRACE : 0;
		close_trace(eng, et, t);
		free_opts(&o);
		return ret;
	}
	if (o.events) {
		o.event_mask = calloc(t->md.cat->nr_events ? t->md.cat->nr_events : 1, 1);
		if (!o.event_mask || evcat_event_mask(o.events, t->md.cat->events, t->md.cat->nr_events, o.event_mask)) {
			close_trace(eng, et, t);
			free_opts(&o);
			return EXIT_USAGE;
		}
	}
	say_being_written(t);
	if ((o.from || o.to) && !run_times && resolve_times(&o, t, &from, &tov)) {
		close_trace(eng, et, t);
		free_opts(&o);
		return EXIT_USAGE;
	}
	c.o = &o;
	c.t = t;
	c.from = from;
	c.to = tov;
	c.use_ctx = use_ctx;
	c.print = !o.count && !o.stats;
	c.count_only = o.count && !o.stats && !use_ctx;
	pthread_mutex_init(&c.pool_lock, NULL);
	c.st.per_stream = calloc(t->nr_streams + 1, sizeof(*c.st.per_stream));
	c.st.per_event = calloc(t->md.cat->nr_events, sizeof(*c.st.per_event));
	if (!c.st.per_stream || !c.st.per_event || evt_out_init(&c.out, STDOUT_FILENO, 1 << 20) ||
	    evt_fmt_init(&c.fmt, o.fmt, evt_trace_offset_ns(t), t->md.cat->events, t->md.cat->nr_events) ||
	    (use_ctx && setup_ctx(&c, &o, t, &bad))) {
		if (use_ctx && bad) {
			ret = EXIT_USAGE;
			goto out;
		}
		fprintf(stderr, "evcat: out of memory\n");
		ret = EXIT_TRACE;
		goto out;
	}
	if (o.stacks) {
		syms = evt_symbols_of_trace(t, err, sizeof(err));
		if (!syms) {
			fprintf(stderr, "evcat: --stacks: %s (evdrain saves the kernel's symbols when stacks are on)\n",
				err);
			ret = EXIT_TRACE;
			goto out;
		}
		c.fmt.syms = syms;
	}
	/* What was lost, first: said whatever the output (it goes to standard error). */
	losses = say_losses(t, o.cpu_set, from, tov, o.fmt == EVT_FMT_JSON);
	rc = evcat_run(&c, eng, et);
	if (rc < 0 && !c.err && !c.out.err)
		c.err = strdup("out of memory");
	if (c.print && !c.out.err)
		evt_out_flush(&c.out);
	if (c.out.err) {
		fprintf(stderr, "evcat: writing the output: %s\n", strerror(c.out.err));
		ret = EXIT_TRACE;
	} else {
		if (o.count)
			printf("%llu\n", (unsigned long long)c.st.total);
		if (o.stats && print_stats(&o, t, &c.st) && !ferror(stdout)) {
			fprintf(stderr, "evcat: --stats: out of memory\n");
			ret = EXIT_TRACE;
		}
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "evcat: writing the output: %s\n", strerror(errno));
			ret = EXIT_TRACE;
		}
	}
	if (c.err) {
		say_err(c.err);
		ret = EXIT_TRACE;
	}
	if (!ret && o.fail_on_loss && losses) {
		fprintf(stderr, "evcat: %u lost range%s in the events read (--fail-on-loss)\n", losses,
			losses == 1 ? "" : "s");
		ret = EXIT_LOSS;
	}
out:
	evt_out_free(&c.out);
	while (c.npool)
		evt_out_free(&c.pool[--c.npool]);
	pthread_mutex_destroy(&c.pool_lock);
	evt_fmt_free(&c.fmt);
	evt_symbols_free(syms);
	evcat_ctx_free(c.g);
	evcat_shared_free(&c.sh);
	free(c.merge_mask);
	free(c.stream_show);
	close_trace(eng, et, t);
	free(c.err);
	free(c.st.per_stream);
	free(c.st.per_event);
	free_opts(&o);
	return ret;
}
