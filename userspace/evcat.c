// SPDX-License-Identifier: GPL-2.0
/*
 * evcat: print an evtrace trace directory as one time-ordered stream.
 * See usage().
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "evt_format.h"
#include "evt_trace.h"

#define EXIT_TRACE 1
#define EXIT_USAGE 2
#define MAX_CPUS 65536
#define NREFS 1024

static void usage(FILE *f)
{
	fprintf(f,
"usage: evcat DIR [options]\n"
"Print the evtrace trace in DIR (metadata + compact_N / normal_N stream files)\n"
"as one stream in time order: every stream file decoded strictly, then merged.\n"
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
"  --count             print the number of events (decoded and merged like printing)\n"
"  --stats             print per-CPU and per-event counts, time span and losses\n"
"                      (events_discarded, packet_seq_num gaps), text or json\n"
"  --merge tree|list   k-way merge: tournament tree (default) or sorted list + cache\n"
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
	uint8_t *event_mask;
	int count, stats;
	enum evt_merge_kind merge;
};

static int parse_frac(const char *s, uint64_t *ns)
{
	uint64_t v = 0, scale = 100000000ULL;

	if (!*s)
		return 0;
	if (*s != '.')
		return -1;
	s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		v += (uint64_t)(*s - '0') * scale;
		scale /= 10;
	}
	if (*s)
		return -1;
	*ns = v;
	return 0;
}

static int parse_uint(const char **s, uint64_t *v, int maxdigits)
{
	int n = 0;

	*v = 0;
	while (isdigit((unsigned char)**s) && n < maxdigits) {
		*v = *v * 10 + (uint64_t)(**s - '0');
		(*s)++;
		n++;
	}
	return n ? 0 : -1;
}

/* Days since the Epoch of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era;
	unsigned int yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned int)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* HH:MM:SS[.ns] at @s into seconds of the day and ns. */
static int parse_hms(const char *s, uint64_t *sec, uint64_t *ns)
{
	uint64_t h, m, x;

	if (parse_uint(&s, &h, 2) || *s++ != ':' || parse_uint(&s, &m, 2) || *s++ != ':' ||
	    parse_uint(&s, &x, 2) || h > 23 || m > 59 || x > 60)
		return -1;
	*ns = 0;
	if (parse_frac(s, ns))
		return -1;
	*sec = h * 3600 + m * 60 + x;
	return 0;
}

/* T into a clock value; @first is the first event's clock value. */
static int parse_time(const char *s, const struct evt_trace *t, uint64_t first, uint64_t *out)
{
	const uint64_t off = evt_trace_offset_ns(t), G = 1000000000ULL;
	uint64_t rt, sec, ns = 0;
	const char *p = s;

	if (*s == '@') {
		p++;
		if (parse_uint(&p, out, 20) || *p)
			return -1;
		return 0;
	}
	if (*s == '+') {
		p++;
		if (parse_uint(&p, &sec, 12) || parse_frac(p, &ns))
			return -1;
		*out = first + sec * G + ns;
		return 0;
	}
	if (strlen(s) >= 10 && s[4] == '-' && s[7] == '-') {
		uint64_t y, mo, d, hs;
		int64_t days;

		if (parse_uint(&p, &y, 4) || *p++ != '-' || parse_uint(&p, &mo, 2) || *p++ != '-' ||
		    parse_uint(&p, &d, 2) || (*p != ' ' && *p != 'T') || mo < 1 || mo > 12 ||
		    d < 1 || d > 31)
			return -1;
		p++;
		if (parse_hms(p, &hs, &ns))
			return -1;
		days = days_from_civil((int64_t)y, (unsigned int)mo, (unsigned int)d);
		if (days < 0)
			return -1;
		rt = ((uint64_t)days * 86400 + hs) * G + ns;
	} else if (strchr(s, ':')) {
		uint64_t hs, day = (first + off) / G / 86400;

		if (parse_hms(s, &hs, &ns))
			return -1;
		rt = (day * 86400 + hs) * G + ns;
	} else {
		if (parse_uint(&p, &sec, 12) || parse_frac(p, &ns))
			return -1;
		rt = sec * G + ns;
	}
	*out = rt >= off ? rt - off : 0;
	return 0;
}

static int add_events(struct opts *o, const char *list)
{
	char *dup = strdup(list), *save = NULL, *tok;
	int ret = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct evt_event_desc *d = evt_find_event_by_name(tok);

		if (!d) {
			unsigned int i;

			fprintf(stderr, "evcat: unknown event \"%s\"; events:", tok);
			for (i = 0; i < evt_nr_events; i++)
				fprintf(stderr, " %s", evt_events[i].name);
			fprintf(stderr, "\n");
			ret = -1;
			break;
		}
		o->event_mask[d - evt_events] = 1;
	}
	free(dup);
	return ret;
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
		} else if (!strcmp(a, "--stats")) {
			o->stats = 1;
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
				if (!o->cpu_set)
					o->cpu_set = calloc(MAX_CPUS / 8, 1);
				if (!o->cpu_set || evt_parse_cpu_list(v, o->cpu_set, MAX_CPUS)) {
					fprintf(stderr, "evcat: --cpu needs a CPU list like 0,2-3, not \"%s\"\n", v);
					return -1;
				}
			} else {
				if (!o->event_mask)
					o->event_mask = calloc(evt_nr_events, 1);
				if (!o->event_mask || add_events(o, v))
					return -1;
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
	return 0;
}

struct stats {
	uint64_t total;
	uint64_t *per_stream;
	uint64_t *per_event;
	uint64_t first, last;
};

static void print_stats(const struct opts *o, struct evt_trace *t, const struct stats *st)
{
	const uint64_t off = evt_trace_offset_ns(t);
	uint64_t disc = 0, lost = 0, span = st->total ? st->last - st->first : 0;
	char a[64], b[64];
	unsigned int i, j;
	const int json = o->fmt == EVT_FMT_JSON;

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
		printf("trace %s: %llu events in %u stream files\n", t->dir,
		       (unsigned long long)st->total, t->nr_streams);
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
	for (i = 0, j = 0; i < evt_nr_events; i++) {
		if (!st->per_event[i])
			continue;
		if (json)
			printf("%s\"%s\":%llu", j++ ? "," : "", evt_events[i].name,
			       (unsigned long long)st->per_event[i]);
		else
			printf("%-24s %14llu\n", evt_events[i].name, (unsigned long long)st->per_event[i]);
	}
	if (json)
		printf("}}\n");
	else
		printf("losses: %llu events discarded (events_discarded), %llu packets lost "
		       "(packet_seq_num gaps)\n", (unsigned long long)disc, (unsigned long long)lost);
}

int main(int argc, char **argv)
{
	struct opts o = { .fmt = EVT_FMT_TEXT, .merge = EVT_MERGE_TREE };
	struct evt_trace_opts to = { 0 };
	struct evt_trace t;
	struct evt_mtrace mt;
	struct evt_ref *refs;
	struct evt_out out;
	struct evt_fmt fmt;
	struct stats st = { 0 };
	uint64_t from = 0, tov = UINT64_MAX;
	int print, ret = 0;
	long n;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr, "Try 'evcat --help'.\n");
		return EXIT_USAGE;
	}
	print = !o.count && !o.stats;
	if (o.cpu_set) {
		to.cpu_set = o.cpu_set;
		to.cpu_set_bits = MAX_CPUS;
	}
	if (evt_trace_open(&t, o.dir, &to)) {
		fprintf(stderr, "evcat: %s\n", t.err);
		return EXIT_TRACE;
	}
	if (o.from || o.to) {
		uint64_t first = UINT64_MAX;
		unsigned int i;

		/* The first event: each stream's first packet (errors come later, in order). */
		for (i = 0; i < t.nr_streams; i++) {
			struct evt_stream *s = &t.streams[i];

			if (evt_stream_has(&t, s) > 0 && evt_stream_ts(s) < first)
				first = evt_stream_ts(s);
		}
		if (first == UINT64_MAX)
			first = 0;
		if (o.from && parse_time(o.from, &t, first, &from)) {
			fprintf(stderr, "evcat: bad --from time \"%s\" (see --help)\n", o.from);
			evt_trace_close(&t);
			return EXIT_USAGE;
		}
		if (o.to && parse_time(o.to, &t, first, &tov)) {
			fprintf(stderr, "evcat: bad --to time \"%s\" (see --help)\n", o.to);
			evt_trace_close(&t);
			return EXIT_USAGE;
		}
	}
	refs = malloc(NREFS * sizeof(*refs));
	st.per_stream = calloc(t.nr_streams + 1, sizeof(*st.per_stream));
	st.per_event = calloc(evt_nr_events, sizeof(*st.per_event));
	if (!refs || !st.per_stream || !st.per_event || evt_mtrace_init(&mt, &t, o.merge) ||
	    evt_out_init(&out, STDOUT_FILENO, 1 << 20) ||
	    evt_fmt_init(&fmt, o.fmt, evt_trace_offset_ns(&t))) {
		fprintf(stderr, "evcat: out of memory\n");
		return EXIT_TRACE;
	}
	evt_mtrace_set_range(&mt, from, tov);
	if (o.event_mask)
		evt_mtrace_set_events(&mt, o.event_mask);

	while ((n = evt_mtrace_next(&mt, refs, NREFS)) > 0) {
		long i;

		if (!st.total)
			st.first = refs[0].ts;
		st.total += (uint64_t)n;
		st.last = refs[n - 1].ts;
		if (print) {
			for (i = 0; i < n; i++) {
				const struct evt_ref *r = &refs[i];

				if (evt_fmt_event(&fmt, &out, r->ts, t.streams[EVT_REF_STREAM(r)].cpu,
						  &evt_events[EVT_REF_DESC(r)], r->payload,
						  EVT_REF_LEN(r), 0))
					break;
			}
			if (out.err)
				break;
		}
		if (o.stats) {
			for (i = 0; i < n; i++) {
				st.per_stream[EVT_REF_STREAM(&refs[i])]++;
				st.per_event[EVT_REF_DESC(&refs[i])]++;
			}
		}
	}
	if (print && !out.err)
		evt_out_flush(&out);
	if (out.err) {
		fprintf(stderr, "evcat: writing the output: %s\n", strerror(out.err));
		ret = EXIT_TRACE;
	} else {
		if (o.count) {
			printf("%llu\n", (unsigned long long)st.total);
		}
		if (o.stats)
			print_stats(&o, &t, &st);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "evcat: writing the output: %s\n", strerror(errno));
			ret = EXIT_TRACE;
		}
		if (n < 0) {
			fprintf(stderr, "evcat: %s\n", mt.errmsg);
			ret = EXIT_TRACE;
		}
	}
	evt_out_free(&out);
	evt_fmt_free(&fmt);
	evt_mtrace_free(&mt);
	evt_trace_close(&t);
	free(refs);
	free(st.per_stream);
	free(st.per_event);
	free(o.cpu_set);
	free(o.event_mask);
	return ret;
}
