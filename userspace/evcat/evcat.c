// SPDX-License-Identifier: GPL-2.0
/*
 * evcat: print an evtrace trace directory as one time-ordered stream.
 * See usage().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "evt_cpulist.h"
#include "evt_format.h"
#include "evt_symbols.h"
#include "evt_io.h"
#include "evt_engine.h"
#include "evt_timearg.h"
#include "evt_par.h"
#include "evt_merged.h"

#define EXIT_TRACE 1
#define EXIT_USAGE 2
#define NREFS 1024

/* An error message; what it quotes (a file name, a name from the trace) escaped. */
static void say_err(const char *msg)
{
	fputs("evcat: ", stderr);
	evt_fputs_esc(stderr, msg);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: evcat DIR [options]\n"
"Print the evtrace trace in DIR (metadata + compact_N / normal_N stream files)\n"
"as one stream in time order: every stream file decoded strictly, then merged.\n"
"A DIR of chunks (a rotating evdrain's: evdrain(8), Rotation) reads as one trace,\n"
"the chunks joined in sequence order; --from/--to open only the chunks they\n"
"overlap, --stats shows the chunks and each seam's lost packets.\n"
"\n"
"  --format text|json  text (default), close to babeltrace2's:\n"
"                        [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) cpu N name: { field = value, ... }\n"
"                      json: one object per line:\n"
"                        {\"ts\":CLOCK,\"time\":\"...Z\",\"cpu\":N,\"event\":\"name\",\"fields\":{...}}\n"
"                      times are UTC: the clock value plus the metadata's clock offset\n"
"  --from T, --to T    only events in [T, T]; T is one of\n"
"                        HH:MM:SS[.ns]              UTC, on the day of the first event\n"
"                        YYYY-MM-DD HH:MM:SS[.ns]   UTC (or with a T between)\n"
"                        SECONDS[.ns]               since the Epoch\n"
"                        +SECONDS[.ns]              after the first event\n"
"                        @CLOCK                     a raw clock value (ns)\n"
"  --cpu LIST          only these CPUs, e.g. 0,2-3\n"
"  --event NAME        only these events (repeat, or NAME,NAME)\n"
"  --stacks            kernel_stack events' addresses as function names, from the\n"
"                      kernel symbols evdrain saved beside the trace\n"
"  --count             print the number of events (decoded and merged like printing)\n"
"  --stats             print per-CPU and per-event counts, time span and losses\n"
"                      (events_discarded, packet_seq_num gaps), text or json\n"
"  --merge tree|list   k-way merge: tournament tree (default) or sorted list + cache\n"
"  --threads N         merge time slices on N threads (default: one per CPU, at\n"
"                      most 8; 1: one merge, streaming); the output is the same\n"
"  --slice-bytes N     packet content per time slice with threads (2097152;\n"
"                      --count alone: the content over 8 slices a thread if more)\n"
"  --help              this text\n"
"\n"
"Exit status: 0 success; 1 trace error (unreadable or corrupt trace: the message\n"
"names the file and byte offset; events before the error are printed) or output\n"
"error; 2 usage error.\n");
}

struct opts {
	const char *dir;
	enum evt_fmt_kind fmt;
	const char *from, *to;
	uint8_t *cpu_set;
	char *events;		/* the --event lists, joined by commas */
	uint8_t *event_mask;	/* by index in the trace's catalogue, once it is open */
	int count, stats, stacks;
	enum evt_merge_kind merge;
	unsigned int threads;
	uint64_t slice_bytes;
};

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
static int resolve_times(const struct opts *o, struct evt_trace *t, uint64_t *from, uint64_t *to)
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

/*
 * The --event names as a mask over the events the trace's metadata
 * declares: 0, or -1 (said; an unknown name lists the trace's events).
 */
static int event_mask(struct opts *o, const struct evt_catalogue *cat)
{
	char *save = NULL, *tok;

	o->event_mask = calloc(cat->nr_events ? cat->nr_events : 1, 1);
	if (!o->event_mask) {
		perror("evcat");
		return -1;
	}
	for (tok = strtok_r(o->events, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct evt_event_desc *d = evt_catalogue_find(cat, tok);

		if (!d) {
			unsigned int i;

			fputs("evcat: --event: the trace has no event \"", stderr);
			evt_fputs_esc(stderr, tok);
			fputs("\"; its events:", stderr);
			for (i = 0; i < cat->nr_events; i++) {
				fputc(' ', stderr);
				evt_fputs_esc(stderr, cat->events[i].name);
			}
			fprintf(stderr, "\n");
			return -1;
		}
		o->event_mask[d - cat->events] = 1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--count")) {
			o->count = 1;
		} else if (!strcmp(a, "--stacks")) {
			o->stacks = 1;
		} else if (!strcmp(a, "--stats")) {
			o->stats = 1;
		} else if (!strcmp(a, "--threads") || !strcmp(a, "--slice-bytes")) {
			int th = a[2] == 't';
			char *end;
			unsigned long long n;

			if (!v) {
				fprintf(stderr, "evcat: %s needs a value\n", a);
				return -1;
			}
			errno = 0;
			n = strtoull(v, &end, 10);
			if (*end || !*v || *v == '-' || errno || n < 1 || n > (th ? 256 : 1ULL << 40)) {
				fprintf(stderr, "evcat: %s needs a whole number from 1 to %llu, not \"%s\"\n", a,
					th ? 256ULL : 1ULL << 40, v);
				return -1;
			}
			if (th)
				o->threads = (unsigned int)n;
			else
				o->slice_bytes = n;
			i++;
		} else if (!strcmp(a, "--format") || !strcmp(a, "--merge") || !strcmp(a, "--from") ||
			   !strcmp(a, "--to") || !strcmp(a, "--cpu") || !strcmp(a, "--event")) {
			if (!v) {
				fprintf(stderr, "evcat: %s needs a value\n", a);
				return -1;
			}
			i++;
			if (!strcmp(a, "--format")) {
				if (!strcmp(v, "text")) {
					o->fmt = EVT_FMT_TEXT;
				} else if (!strcmp(v, "json")) {
					o->fmt = EVT_FMT_JSON;
				} else {
					fprintf(stderr, "evcat: --format is text or json, not \"%s\"\n", v);
					return -1;
				}
			} else if (!strcmp(a, "--merge")) {
				if (!strcmp(v, "tree")) {
					o->merge = EVT_MERGE_TREE;
				} else if (!strcmp(v, "list")) {
					o->merge = EVT_MERGE_LIST;
				} else {
					fprintf(stderr, "evcat: --merge is tree or list, not \"%s\"\n", v);
					return -1;
				}
			} else if (!strcmp(a, "--from")) {
				o->from = v;
			} else if (!strcmp(a, "--to")) {
				o->to = v;
			} else if (!strcmp(a, "--cpu")) {
				char why[200];

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
			} else {
				size_t have = o->events ? strlen(o->events) : 0;
				char *more = realloc(o->events, have + strlen(v) + 2);

				if (!more) {
					perror("evcat");
					return -1;
				}
				o->events = more;
				sprintf(more + have, "%s%s", have ? "," : "", v);
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "evcat: unknown option %s\n", a);
			return -1;
		} else if (!o->dir) {
			o->dir = a;
		} else {
			fprintf(stderr, "evcat: one trace directory only (\"%s\"?)\n", a);
			return -1;
		}
	}
	if (!o->dir) {
		fprintf(stderr, "evcat: no trace directory given\n");
		return -1;
	}
	if (!o->threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		o->threads = n < 1 ? 1 : n > 8 ? 8 : (unsigned int)n;
	}
	return 0;
}

struct stats {
	uint64_t total;
	uint64_t *per_stream;
	uint64_t *per_event;
	uint64_t first, last;
};

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
static void print_run(const struct opts *o, const struct evt_trace *t)
{
	const int json = o->fmt == EVT_FMT_JSON;
	unsigned int k;
	char e1[1024];

	if (json)
		printf(",\"chunks_in_dir\":%u,\"chunks\":[", t->run_chunks);
	else
		printf("run of %u chunks (of %u in %s): %s .. %s\n", t->nr_chunks, t->run_chunks,
		       evt_fmt_esc(e1, sizeof(e1), t->dir), t->chunks[0].name, t->chunks[t->nr_chunks - 1].name);
	for (k = 0; json && k < t->nr_chunks; k++)
		printf("%s{\"name\":\"%s\",\"seq\":%llu}", k ? "," : "", t->chunks[k].name,
		       (unsigned long long)t->chunks[k].seq);
	if (json)
		printf("],\"seams\":[");
	else if (t->nr_chunks > 1)
		printf("%-12s %-12s %10s %16s\n", "seam: seq", "to seq", "pkts lost", "gap (us)");
	for (k = 1; k < t->nr_chunks; k++) {
		const struct evt_chunk_ref *a = &t->chunks[k - 1], *b = &t->chunks[k];
		const long long gap_us = ((long long)b->begin_rt - (long long)a->end_rt) / 1000;
		const int missing = b->seq != a->seq + 1;

		if (json)
			printf("%s{\"from\":%llu,\"to\":%llu,\"packets_lost\":%llu,\"gap_us\":%lld,"
			       "\"chunks_missing\":%s}", k > 1 ? "," : "", (unsigned long long)a->seq,
			       (unsigned long long)b->seq, (unsigned long long)seam_lost(t, k), gap_us,
			       missing ? "true" : "false");
		else
			printf("%-12llu %-12llu %10llu %16lld%s\n", (unsigned long long)a->seq,
			       (unsigned long long)b->seq, (unsigned long long)seam_lost(t, k), gap_us,
			       missing ? "  (chunks missing between)" : "");
	}
	if (json)
		printf("]");
}

static void print_stats(const struct opts *o, struct evt_trace *t, const struct stats *st)
{
	const uint64_t off = evt_trace_offset_ns(t);
	uint64_t disc = 0, lost = 0, span = st->total ? st->last - st->first : 0;
	char a[64], b[64];
	unsigned int i, j;
	const int json = o->fmt == EVT_FMT_JSON;
	const struct evt_catalogue *cat = t->md.cat;
	char e1[1024];

	for (i = 0; i < t->nr_streams; i++) {
		disc += t->streams[i].discarded;
		lost += t->streams[i].seq_gaps;
	}
	evt_fmt_clock(a, st->first + off, 1);
	evt_fmt_clock(b, st->last + off, 1);
	if (json) {
		printf("{\"events\":%llu,\"first_ts\":%llu,\"last_ts\":%llu,\"first\":\"%sZ\",\"last\":\"%sZ\","
		       "\"span_ns\":%llu,\"discarded\":%llu,\"packets_lost\":%llu,\"cpus\":[",
		       (unsigned long long)st->total, (unsigned long long)st->first,
		       (unsigned long long)st->last, st->total ? a : "", st->total ? b : "",
		       (unsigned long long)span, (unsigned long long)disc, (unsigned long long)lost);
	} else {
		printf("trace %s: %llu events in %u stream%s\n", evt_fmt_esc(e1, sizeof(e1), t->dir),
		       (unsigned long long)st->total, t->nr_streams, t->nr_chunks ? "s" : " files");
		if (t->nr_chunks)
			print_run(o, t);
		if (st->total)
			printf("time span: %sZ .. %sZ (%llu.%09llu s)\n", a, b,
			       (unsigned long long)(span / 1000000000ULL),
			       (unsigned long long)(span % 1000000000ULL));
		printf("%-6s %14s %12s %12s %10s\n", "cpu", "events", "discarded", "pkts lost", "packets");
	}
	/* Streams are sorted by CPU: one row per CPU, both channels summed. */
	for (i = 0; i < t->nr_streams; i = j) {
		uint64_t ev = 0, d = 0, l = 0, pk = 0;

		for (j = i; j < t->nr_streams && t->streams[j].cpu == t->streams[i].cpu; j++) {
			ev += st->per_stream[j];
			d += t->streams[j].discarded;
			l += t->streams[j].seq_gaps;
			pk += t->streams[j].packets;
		}
		if (json)
			printf("%s{\"cpu\":%u,\"events\":%llu,\"discarded\":%llu,\"packets_lost\":%llu,"
			       "\"packets\":%llu}", i ? "," : "", t->streams[i].cpu,
			       (unsigned long long)ev, (unsigned long long)d,
			       (unsigned long long)l, (unsigned long long)pk);
		else
			printf("%-6u %14llu %12llu %12llu %10llu\n", t->streams[i].cpu,
			       (unsigned long long)ev, (unsigned long long)d,
			       (unsigned long long)l, (unsigned long long)pk);
	}
	if (json)
		printf("],\"events_by_name\":{");
	else
		printf("%-24s %14s\n", "event", "count");
	for (i = 0, j = 0; i < cat->nr_events; i++) {
		if (!st->per_event[i])
			continue;
		/* Names are the metadata's: escaped like every string from a trace. */
		if (json) {
			char *q = malloc(6 * strlen(cat->events[i].name) + 3);

			if (q)
				evt_fmt_json_string(q, cat->events[i].name);
			printf("%s%s:%llu", j++ ? "," : "", q ? q : "\"\"", (unsigned long long)st->per_event[i]);
			free(q);
		} else {
			printf("%-24s %14llu\n", evt_fmt_esc(e1, sizeof(e1), cat->events[i].name),
			       (unsigned long long)st->per_event[i]);
		}
	}
	if (json && t->nr_chunks) {
		printf("}");
		print_run(o, t);
		printf("}\n");
	} else if (json) {
		printf("}}\n");
	}
	else
		printf("losses: %llu events discarded (events_discarded), %llu packets lost "
		       "(packet_seq_num gaps)\n", (unsigned long long)disc, (unsigned long long)lost);
}

/* ---- Consuming the merged events: one slice (sequential) or many (threads) ---- */

#define POOL 64

struct cat {
	const struct opts *o;
	struct evt_trace *t;
	int print;
	/*
	 * --count without --stats: every event is still decoded and merged
	 * in order (evt_merged_count), only no reference is handed out.
	 */
	int count_only;
	/*
	 * Slice text buffers, recycled: fresh ones would be faulted in and
	 * zeroed by the kernel for every slice.
	 */
	pthread_mutex_t pool_lock;
	struct evt_out pool[POOL];
	unsigned int npool;
	struct evt_out out;		/* stdout */
	struct evt_fmt fmt;		/* the output's: its delta runs across slices */
	struct stats st;
	char *err;			/* the decode error the merge stopped at */
};

struct slice {
	uint64_t count, first, last;
	uint64_t *per_stream, *per_event;
	int direct;			/* print straight to stdout (sequential) */
	struct evt_out out;		/* in memory, for a slice on a thread */
	struct evt_fmt fmt;
	int have_first;
	struct evt_ref first_ref;	/* printed by the main thread: its delta */
};

static void slice_free(struct cat *c, struct slice *sl)
{
	if (!sl)
		return;
	if (!sl->direct && sl->out.buf) {
		pthread_mutex_lock(&c->pool_lock);
		if (c->npool < POOL && !sl->out.err) {
			sl->out.len = 0;
			c->pool[c->npool++] = sl->out;
		} else {
			evt_out_free(&sl->out);
		}
		pthread_mutex_unlock(&c->pool_lock);
	}
	free(sl->per_stream);
	free(sl->per_event);
	free(sl);
}

static void *slice_begin(void *ctx, unsigned int j)
{
	struct cat *c = ctx;
	struct slice *sl = calloc(1, sizeof(*sl));

	(void)j;
	if (!sl)
		return NULL;
	if (c->o->stats) {
		sl->per_stream = calloc(c->t->nr_streams + 1, sizeof(*sl->per_stream));
		sl->per_event = calloc(c->t->md.cat->nr_events, sizeof(*sl->per_event));
		if (!sl->per_stream || !sl->per_event) {
			slice_free(c, sl);
			return NULL;
		}
	}
	if (c->print) {
		pthread_mutex_lock(&c->pool_lock);
		if (c->npool)
			sl->out = c->pool[--c->npool];
		pthread_mutex_unlock(&c->pool_lock);
		if (!sl->out.buf && evt_out_init(&sl->out, -1, 1 << 20)) {
			slice_free(c, sl);
			return NULL;
		}
		/* The shared templates, this slice's own time cache and delta. */
		sl->fmt = c->fmt;
		sl->fmt.have_prev = 0;
		sl->fmt.have_cached = 0;
	}
	return sl;
}

static void print_ref(struct cat *c, struct evt_fmt *f, struct evt_out *out, const struct evt_ref *r)
{
	evt_fmt_event(f, out, r->ts, c->t->streams[EVT_REF_STREAM(r)].cpu,
		      &c->t->md.cat->events[EVT_REF_DESC(r)], r->payload, EVT_REF_LEN(r), 0);
}

static int slice_refs(void *ctx, void *state, const struct evt_ref *r, size_t n)
{
	struct cat *c = ctx;
	struct slice *sl = state;
	size_t i = 0;

	if (!n)
		return 0;
	if (!sl->count)
		sl->first = r[0].ts;
	sl->count += n;
	sl->last = r[n - 1].ts;
	if (sl->per_stream) {
		for (i = 0; i < n; i++) {
			sl->per_stream[EVT_REF_STREAM(&r[i])]++;
			sl->per_event[EVT_REF_DESC(&r[i])]++;
		}
	}
	if (!c->print)
		return 0;
	if (sl->direct) {
		for (i = 0; i < n; i++)
			print_ref(c, &c->fmt, &c->out, &r[i]);
		return c->out.err ? -1 : 0;
	}
	i = 0;
	if (!sl->have_first) {
		/* Its delta needs the previous slice's last event: printed later. */
		sl->first_ref = r[0];
		sl->have_first = 1;
		sl->fmt.prev_ts = r[0].ts;
		sl->fmt.have_prev = 1;
		i = 1;
	}
	for (; i < n; i++)
		print_ref(c, &sl->fmt, &sl->out, &r[i]);
	return sl->out.err ? -1 : 0;
}

/* --count alone: the merge counts, no references are made. */
static int slice_count(void *ctx, void *state, uint64_t n)
{
	struct slice *sl = state;

	(void)ctx;
	sl->count += n;
	return 0;
}

static void slice_drop(void *ctx, void *state)
{
	slice_free(ctx, state);
}

/* In order, on the main thread: output and totals. */
static int slice_end(void *ctx, void *state, const char *err)
{
	struct cat *c = ctx;
	struct slice *sl = state;
	unsigned int i;
	int ret = 0;

	if (c->print && !sl->direct && sl->have_first) {
		if (sl->out.err) {
			c->out.err = sl->out.err;
		} else {
			print_ref(c, &c->fmt, &c->out, &sl->first_ref);
			if (!c->out.err && !evt_out_flush(&c->out) &&
			    evt_write_all(c->out.fd, sl->out.buf, sl->out.len))
				c->out.err = errno ? errno : EIO;
		}
		c->fmt.prev_ts = sl->last;
	}
	if (sl->count) {
		if (!c->st.total)
			c->st.first = sl->first;
		c->st.last = sl->last;
		c->st.total += sl->count;
	}
	if (sl->per_stream) {
		for (i = 0; i < c->t->nr_streams; i++)
			c->st.per_stream[i] += sl->per_stream[i];
		for (i = 0; i < c->t->md.cat->nr_events; i++)
			c->st.per_event[i] += sl->per_event[i];
	}
	if (err) {
		c->err = strdup(err);
		ret = -1;
	}
	if (c->out.err)
		ret = -1;
	slice_free(c, sl);
	return ret;
}

static const struct evt_par_ops cat_ops = {
	.begin = slice_begin, .refs = slice_refs, .end = slice_end, .drop = slice_drop,
	.count = slice_count,
};

/* The sequential path: one merge, printed as it goes. */
static int run_sequential(struct cat *c, uint64_t from, uint64_t to)
{
	struct evt_merged mt;
	struct evt_ref *refs = malloc(NREFS * sizeof(*refs));
	struct slice *sl;
	long n;
	int ret;

	if (!refs || evt_merged_init(&mt, c->t, c->o->merge)) {
		free(refs);
		return -1;
	}
	evt_merged_set_range(&mt, from, to);
	if (c->o->event_mask)
		evt_merged_set_events(&mt, c->o->event_mask);
	sl = slice_begin(c, 0);
	if (!sl) {
		evt_merged_free(&mt);
		free(refs);
		return -1;
	}
	if (c->print) {
		evt_out_free(&sl->out);
		sl->direct = 1;
	}
	if (c->count_only) {
		while ((n = evt_merged_count(&mt, 1U << 20)) > 0)
			slice_count(c, sl, (uint64_t)n);
	} else {
		while ((n = evt_merged_next(&mt, refs, NREFS)) > 0)
			if (slice_refs(c, sl, refs, (size_t)n))
				break;
	}
	ret = slice_end(c, sl, n < 0 ? mt.errmsg : NULL);
	evt_merged_free(&mt);
	free(refs);
	return ret < 0 ? 1 : 0;
}

/* --from/--to on one thread: an ad hoc request of the analysis engine (it seeks through the packet index). */
struct adhoc {
	struct cat *c;
	struct slice *sl;
	struct evt_request *r;
	struct evt_ref refs[NREFS];
	size_t n;
	int failed;
};

static int adhoc_flush(void *data, void *call)
{
	struct adhoc *a = data;

	(void)call;
	if (a->n && !a->failed && slice_refs(a->c, a->sl, a->refs, a->n)) {
		a->failed = 1;
		a->r->stop = 1;
	}
	a->n = 0;
	return 0;
}

static int adhoc_event(void *data, void *call)
{
	struct adhoc *a = data;
	const struct evt_engine_event *ev = call;

	a->refs[a->n++] = (struct evt_ref){ .ts = ev->ts, .payload = ev->payload,
					    .info = EVT_DMETA(ev->stream, ev->len, ev->idx) };
	if (a->n == NREFS)
		adhoc_flush(a, NULL);
	return 0;
}

static int run_adhoc(struct cat *c, struct evt_engine *eng, struct evt_etrace *et, uint64_t from, uint64_t to)
{
	const struct evt_catalogue *cat = c->t->md.cat;
	uint64_t off = evt_etrace_offset_ns(et);
	struct evt_traceset *ts = evt_traceset_new(eng);
	struct adhoc *a = calloc(1, sizeof(*a));
	const char **names = NULL;
	struct evt_request r;
	unsigned int i, k = 0;
	int ret = -1;

	evt_request_init(&r, c);
	if (!ts || !a)
		goto out;
	r.from_rt = from > UINT64_MAX - off ? UINT64_MAX : from + off;
	r.to_rt = to >= EVT_TIME_END - off ? EVT_TIME_END : to + off;
	if (c->o->event_mask) {
		names = calloc(cat->nr_events + 1, sizeof(*names));
		if (!names)
			goto out;
		for (i = 0; i < cat->nr_events; i++)
			if (c->o->event_mask[i])
				names[k++] = cat->events[i].name;
		r.events = names;
	}
	a->c = c;
	a->r = &r;
	a->sl = slice_begin(c, 0);
	if (!a->sl || evt_traceset_add(ts, et) || evt_hooks_add(&r.ctx.event, adhoc_event, a) ||
	    evt_hooks_add(&r.ctx.after_chunk, adhoc_flush, a) || evt_request_submit(ts, &r))
		goto out;
	if (c->print) {
		evt_out_free(&a->sl->out);
		a->sl->direct = 1;
	}
	evt_engine_run(eng);
	adhoc_flush(a, NULL);
	ret = slice_end(c, a->sl, r.error ? r.errmsg : NULL);
	a->sl = NULL;
out:
	if (a && a->sl)
		slice_free(c, a->sl);
	evt_request_release(&r);
	evt_traceset_free(ts);
	free(names);
	free(a);
	return ret < 0 ? 1 : 0;
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
		evt_trace_put(et);
		evt_engine_free(eng);
	} else {
		evt_trace_close(t);
	}
}

/* What parse_args() allocated: every exit frees it (LSan checks the error paths too). */
static void free_opts(struct opts *o)
{
	free(o->cpu_set);
	free(o->events);
	free(o->event_mask);
	o->cpu_set = NULL;
	o->events = NULL;
	o->event_mask = NULL;
}

int main(int argc, char **argv)
{
	struct opts o = { .fmt = EVT_FMT_TEXT, .merge = EVT_MERGE_TREE };
	struct evt_trace_opts to = { 0 };
	struct evt_trace own, *t = &own;
	struct evt_engine *eng = NULL;
	struct evt_etrace *et = NULL;
	struct cat c = { 0 };
	struct evt_symbols *syms = NULL;
	uint64_t from = 0, tov = UINT64_MAX;
	char err[512];
	int ret = 0, rc, run_times = 0;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr, "Try 'evcat --help'.\n");
		free_opts(&o);
		return EXIT_USAGE;
	}
	if (o.cpu_set) {
		to.cpu_set = o.cpu_set;
		to.cpu_set_bits = EVT_MAX_CPUS;
	}
	to.threads = o.threads;
	/* A run of chunks: the times first (by its first chunk), so that only the chunks in them are opened. */
	if (o.from || o.to) {
		char *first = evt_trace_run_first(o.dir);

		if (first) {
			struct evt_trace probe;
			int bad;

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
	if ((o.from || o.to) && o.threads <= 1) {
		/* The analysis engine's ad hoc path (it reads, it saves nothing beside the trace). */
		struct evt_engine_opts eo = { .no_saved_results = 1 };

		eng = evt_engine_new(&eo);
		et = eng ? evt_trace_get_opts(eng, o.dir, &to, err, sizeof(err)) : NULL;
		t = et ? evt_etrace_reader(et) : NULL;
		if (!t) {
			say_err(!eng ? "out of memory" : et ? evt_etrace_error(et) : err);
			evt_trace_put(et);
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
	if (o.events && event_mask(&o, t->md.cat)) {
		close_trace(eng, et, t);
		free_opts(&o);
		return EXIT_USAGE;
	}
	say_being_written(t);
	if ((o.from || o.to) && !run_times && resolve_times(&o, t, &from, &tov)) {
		close_trace(eng, et, t);
		free_opts(&o);
		return EXIT_USAGE;
	}
	c.o = &o;
	c.t = t;
	pthread_mutex_init(&c.pool_lock, NULL);
	c.print = !o.count && !o.stats;
	c.count_only = o.count && !o.stats;
	c.st.per_stream = calloc(t->nr_streams + 1, sizeof(*c.st.per_stream));
	c.st.per_event = calloc(t->md.cat->nr_events, sizeof(*c.st.per_event));
	if (!c.st.per_stream || !c.st.per_event || evt_out_init(&c.out, STDOUT_FILENO, 1 << 20) ||
	    evt_fmt_init(&c.fmt, o.fmt, evt_trace_offset_ns(t), t->md.cat->events, t->md.cat->nr_events)) {
		fprintf(stderr, "evcat: out of memory\n");
		free(c.st.per_stream);
		free(c.st.per_event);
		close_trace(eng, et, t);
		free_opts(&o);
		return EXIT_TRACE;
	}
	if (o.stacks) {
		syms = evt_symbols_of_trace(t, err, sizeof(err));
		if (!syms) {
			fprintf(stderr, "evcat: --stacks: %s (evdrain saves the kernel's symbols when stacks are on)\n",
				err);
			evt_fmt_free(&c.fmt);
	evt_symbols_free(syms);
			free(c.st.per_stream);
			free(c.st.per_event);
			close_trace(eng, et, t);
			free_opts(&o);
			return EXIT_TRACE;
		}
		c.fmt.syms = syms;
	}
	{
		struct evt_par_opts po = {
			.threads = o.threads, .kind = o.merge, .from = from, .to = tov,
			.event_mask = o.event_mask, .slice_bytes = o.slice_bytes,
			.count_only = c.count_only,
		};

		/*
		 * Counting goes by slices also on one thread: the tree merges
		 * two slices at a time, interleaved (evt_merged_count_pair).
		 */
		if (et) {
			rc = run_adhoc(&c, eng, et, from, tov);
			if (rc && !c.err && !c.out.err)
				c.err = strdup("out of memory");
		} else if ((o.threads > 1 || (c.count_only && o.merge == EVT_MERGE_TREE)) &&
			   evt_par_slices(t, &po) > 1) {
			rc = evt_par_run(t, &po, &cat_ops, &c, err, sizeof(err));
			if (rc < 0 && !c.err)
				c.err = strdup(err);
		} else {
			rc = run_sequential(&c, from, tov);
			if (rc && !c.err && !c.out.err)
				c.err = strdup("out of memory");
		}
	}
	if (c.print && !c.out.err)
		evt_out_flush(&c.out);
	if (c.out.err) {
		fprintf(stderr, "evcat: writing the output: %s\n", strerror(c.out.err));
		ret = EXIT_TRACE;
	} else {
		if (o.count)
			printf("%llu\n", (unsigned long long)c.st.total);
		if (o.stats)
			print_stats(&o, t, &c.st);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "evcat: writing the output: %s\n", strerror(errno));
			ret = EXIT_TRACE;
		}
	}
	if (c.err) {
		say_err(c.err);
		ret = EXIT_TRACE;
	}
	evt_out_free(&c.out);
	while (c.npool)
		evt_out_free(&c.pool[--c.npool]);
	pthread_mutex_destroy(&c.pool_lock);
	evt_fmt_free(&c.fmt);
	close_trace(eng, et, t);
	free(c.err);
	free(c.st.per_stream);
	free(c.st.per_event);
	free_opts(&o);
	return ret;
}
