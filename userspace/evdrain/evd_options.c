// SPDX-License-Identifier: GPL-2.0
/* evdrain's command line: see evd_options.h. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <evtrace/abi.h>
#include "evd_options.h"
#include "util/evt_units.h"

/* EVT_VERSION: the top-level VERSION file, passed by the Makefile. */
#ifndef EVT_VERSION
#define EVT_VERSION "unknown"
#endif

#define MAX_DURATION_S	31622400	/* a leap year */
#define MAX_TICK_MS	100000
#define MAX_DELAY_TICKS	100000

/* A failed hook's retries (--hook-retries, --hook-backoff): 2+4+8+16+32 s before the last of 5. */
#define HOOK_RETRIES		5
#define HOOK_BACKOFF_MS		2000
#define HOOK_BACKOFF_MAX_MS	60000

static const char usage_text[] =
"usage: evdrain -o DIR [options]\n"
"       evdrain -o DIR [options] -- CMD [ARGS...]\n"
"       evdrain --live [-o DIR] [--format text|json] [--delay-ticks D] [--tick-ms MS] [options]\n"
"       evdrain --snapshots DIR [--keep-ms MS] [--keep-mb MB] [-d D] [--copy] [-q]\n"
"Drain evtrace's rings into DIR as a CTF 1.8 trace, laid out as LTTng's kernel\n"
"traces are (DIR/kernel/metadata and one stream file per channel and CPU:\n"
"DIR/kernel/compact_0, DIR/kernel/normal_3, ...). With a command: start\n"
"tracing, run CMD (as the user who ran sudo, when run through sudo: SUDO_UID,\n"
"SUDO_GID), record only CMD and the processes it forks, stop when CMD exits,\n"
"print a summary of its threads and exit with CMD's status.\n"
"\n"
"  -o, --output DIR         trace directory (created if missing, mode 0750); a\n"
"                           DIR that holds a trace is refused (exit 5)\n"
"  -d, --duration D         stop after D: seconds, or with a unit (250ms, 10s,\n"
"                           5m, 2h), at most a year (default: until\n"
"                           SIGINT/SIGTERM)\n"
"  -c, --channels LIST      compact,normal (default both)\n"
"  -m, --mode MODE          discard or overwrite: set before starting\n"
"  -a, --attach             drain a session that is already tracing: do not\n"
"                           configure or start it; append to DIR's files\n"
"      --force              DIR holds a trace: delete its files and record anew\n"
"      --group NAME         DIR (when evdrain creates it) and its files belong\n"
"                           to group NAME (files are 0640: the group reads them)\n"
"      --fail-on-loss       exit 7 when any event was discarded or overwritten\n"
"                           (after writing everything)\n"
"      --rotate-size SIZE   cut the trace into chunks of about SIZE bytes (K, M,\n"
"                           G: powers of 1024): DIR then holds chunks, each a\n"
"                           whole trace named BEGIN-END-SEQ (UTC)\n"
"      --rotate-interval D  cut a chunk every D (ms, s, m, h, d; default s)\n"
"      --keep N             keep the N newest complete chunks, remove older ones\n"
"      --max-total SIZE     remove the oldest complete chunks while all chunks\n"
"                           take more than SIZE bytes\n"
"      --on-chunk PROGRAM   run PROGRAM CHUNK_DIR for every completed chunk, one\n"
"                           at a time and in order, beside the drain\n"
"                           (EVT_CHUNK_* variables give its times and counts);\n"
"                           at least once: a failed run is run again, a chunk\n"
"                           stays until its hook succeeded (unless --max-total\n"
"                           forces it out), the next evdrain reruns the rest\n"
"      --hook-retries N     run a failed hook again N times at most, 0 to 1000\n"
"                           (default 5)\n"
"      --hook-backoff D[:M] pause D before the first retry, doubling up to M\n"
"                           (ms, s, m, h; default 2s:1m)\n"
"      --copy               read()/write() instead of splicing (sendfile())\n"
"  -q, --quiet              no progress line, no summary\n"
"      --stats-json FILE    write the final summary as JSON to FILE\n"
"      --live               print the merged, time-ordered stream while draining\n"
"                           (watermark reordering; -o still writes DIR)\n"
"      --format FMT         text (default) or json, with --live\n"
"      --delay-ticks D      with --live: emit up to the watermark of D ticks ago,\n"
"                           0 to 100000 (default 2)\n"
"      --tick-ms MS         with --live: tick period, 1 to 100000 ms, or with a\n"
"                           unit: 1s (default 100)\n"
"      --snapshots DIR      flight recorder: drain nothing, wait for the module's\n"
"                           triggers (kernel reports, its parameter triggers) and\n"
"                           save what the rings held before each into a new\n"
"                           DIR/TIME-REASON-SEQ; tracing is left as it is\n"
"      --keep-ms MS         with --snapshots: only the packets that end at most MS\n"
"                           ms before the trigger, 1 to 86400000 (or with a\n"
"                           unit: 5s, 2m)\n"
"      --keep-mb MB         with --snapshots: only the newest MB MiB of packets,\n"
"                           1 to 1048576 (or with a unit: 2G)\n"
"  -V, --version            print the version and exit\n"
"  -h, --help               this text\n"
"\n"
"On SIGINT, SIGTERM or the end of --duration it stops tracing, flushes, drains\n"
"everything, fsyncs and prints a summary. On a terminal it prints a progress\n"
"line every second.\n"
"\n"
"With a command, Ctrl-C (SIGINT) or SIGTERM is passed on to CMD, and tracing\n"
"goes on until it exits; a second one stops at once.\n"
"\n"
"Exit status: 0 done; 1 the kernel refused or another runtime error; 2 usage;\n"
"3 another evdrain is running; 4 module not loaded or no permission; 5 DIR is\n"
"not writable or holds a trace (a trace recorded without rotation, when\n"
"rotating); 6 a write failed (disk full): tracing is stopped and every whole\n"
"packet written so far stays readable; 7 with --fail-on-loss, events were lost\n"
"(the trace is complete otherwise); the table of every evtrace program\n"
"(docs/exit-codes.md).\n"
"With a command, evdrain exits with CMD's status (128 + N when signal N killed\n"
"it), 125 when evdrain failed (what failed is printed; before CMD started, CMD\n"
"did not run), 126 when CMD could not be run, 127 when there is no such command.\n";

/*
 * --hook-backoff D[:M]: the first pause D (10 ms to an hour), doubling up to
 * M (D to a day; default: D's 30 times, within that). 0, or -1 said.
 */
static int parse_backoff(const char *arg, struct evd_rot_opts *r)
{
	char first[64];
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	uint64_t d, m;

	if (n >= sizeof(first))
		goto bad;
	memcpy(first, arg, n);
	first[n] = '\0';
	if (evt_parse_duration_ms(first, &d) || d < 10 || d > 3600000)
		goto bad;
	m = d * 30 < 86400000 ? d * 30 : 86400000;
	if (colon && (evt_parse_duration_ms(colon + 1, &m) || m < d || m > 86400000))
		goto bad;
	r->hook_backoff_ms = d;
	r->hook_backoff_max_ms = m;
	return 0;
bad:
	fprintf(stderr, "evdrain: --hook-backoff wants D or D:M, durations (ms, s, m, h) with D from 10ms to 1h "
		"and M from D to a day, e.g. 2s:1m; not \"%s\"\n", arg);
	return -1;
}

/*
 * --on-chunk's program must be there and executable now, not found
 * missing at the first chunk. A path: the service's PATH is not the shell's.
 */
static int check_hook(const char *prog)
{
	struct stat st;

	if (!strchr(prog, '/')) {
		fprintf(stderr, "evdrain: --on-chunk %s: give the program's path (e.g. ./%s or "
			"/usr/local/bin/%s)\n", prog, prog, prog);
		return -1;
	}
	if (stat(prog, &st)) {
		fprintf(stderr, "evdrain: --on-chunk %s: %s\n", prog, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || access(prog, X_OK)) {
		fprintf(stderr, "evdrain: --on-chunk %s: not an executable file\n", prog);
		return -1;
	}
	return 0;
}

/* See evd_options.h. */
int evd_parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "channels", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "attach", no_argument, NULL, 'a' },
		{ "copy", no_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats-json", required_argument, NULL, 'j' },
		{ "live", no_argument, NULL, 'L' },
		{ "format", required_argument, NULL, 'F' },
		{ "delay-ticks", required_argument, NULL, 'D' },
		{ "tick-ms", required_argument, NULL, 'T' },
		{ "force", no_argument, NULL, 'f' },
		{ "group", required_argument, NULL, 'G' },
		{ "fail-on-loss", no_argument, NULL, 'l' },
		{ "rotate-size", required_argument, NULL, 'S' },
		{ "rotate-interval", required_argument, NULL, 'I' },
		{ "keep", required_argument, NULL, 'K' },
		{ "max-total", required_argument, NULL, 'M' },
		{ "on-chunk", required_argument, NULL, 'H' },
		{ "hook-retries", required_argument, NULL, 'R' },
		{ "hook-backoff", required_argument, NULL, 'B' },
		{ "snapshots", required_argument, NULL, 'P' },
		{ "keep-ms", required_argument, NULL, 'k' },
		{ "keep-mb", required_argument, NULL, 'b' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, hook_opts = 0;

	*o = (struct options){ .channels = (1U << EVT_NR_CHANNELS) - 1, .mode = -1,
			       .live_kind = EVT_FMT_TEXT, .delay_ticks = 2, .tick_ms = 100 };
	o->rot.hook_retries = HOOK_RETRIES;
	o->rot.hook_backoff_ms = HOOK_BACKOFF_MS;
	o->rot.hook_backoff_max_ms = HOOK_BACKOFF_MAX_MS;
	/* "+": options end at the first argument that is not one (a command follows "--"). */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:d:c:m:aqhV", opts, NULL)) != -1) {
		char *end, *list, *tok, *save = NULL;
		long v;

		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'd': {
			uint64_t ns;

			/* Seconds when bare (fractions too: 0.5), else any unit: 10s, 5m, 250ms. */
			if (evt_parse_duration(optarg, EVT_NS_PER_S, 1, &ns) || !ns ||
			    ns > (uint64_t)MAX_DURATION_S * EVT_NS_PER_S) {
				fprintf(stderr, "evdrain: --duration wants a duration more than 0 and at most %d s: "
					"seconds, or with a unit (ms, s, m, h, d), e.g. 10s; not \"%s\"\n",
					MAX_DURATION_S, optarg);
				return -1;
			}
			o->duration = (double)ns / 1e9;
			break;
		}
		case 'c':
			list = strdup(optarg);
			if (!list) {
				fprintf(stderr, "evdrain: out of memory\n");
				return -1;
			}
			o->channels = 0;
			for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "compact")) {
					o->channels |= 1U << EVT_CHAN_COMPACT;
				} else if (!strcmp(tok, "normal")) {
					o->channels |= 1U << EVT_CHAN_NORMAL;
				} else {
					fprintf(stderr, "evdrain: unknown channel '%s' (compact, normal)\n", tok);
					free(list);
					return -1;
				}
			}
			free(list);
			if (!o->channels) {
				fprintf(stderr, "evdrain: --channels names no channel (compact, normal)\n");
				return -1;
			}
			break;
		case 'm':
			if (strcmp(optarg, "discard") && strcmp(optarg, "overwrite")) {
				fprintf(stderr, "evdrain: --mode is discard or overwrite\n");
				return -1;
			}
			o->mode = !strcmp(optarg, "overwrite");
			break;
		case 'a':
			o->attach = 1;
			break;
		case 'C':
			o->copy = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case 'L':
			o->live = 1;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'l':
			o->fail_on_loss = 1;
			break;
		case 'G': {
			const struct group *g = getgrnam(optarg);

			if (!g) {
				fprintf(stderr, "evdrain: --group: no group named \"%s\"\n", optarg);
				return -1;
			}
			o->group = g->gr_gid;
			o->has_group = 1;
			break;
		}
		case 'F':
			o->live_opts = 1;
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "evdrain: --format is text or json\n");
				return -1;
			}
			o->live_kind = !strcmp(optarg, "json") ? EVT_FMT_JSON : EVT_FMT_TEXT;
			break;
		case 'D':
			o->live_opts = 1;
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || v < 0 || v > MAX_DELAY_TICKS) {
				fprintf(stderr, "evdrain: --delay-ticks wants a whole number from 0 to %d, not \"%s\"\n",
					MAX_DELAY_TICKS, optarg);
				return -1;
			}
			o->delay_ticks = v;
			break;
		case 'T': {
			uint64_t ms;

			o->live_opts = 1;
			if (evt_parse_duration(optarg, EVT_NS_PER_MS, EVT_NS_PER_MS, &ms) || ms < 1 || ms > MAX_TICK_MS) {
				fprintf(stderr, "evdrain: --tick-ms wants whole milliseconds from 1 to %d (or with a "
					"unit: 1s), not \"%s\"\n", MAX_TICK_MS, optarg);
				return -1;
			}
			o->tick_ms = (long)ms;
			break;
		}
		case 'S':
		case 'M':
			if (evt_parse_size(optarg, c == 'S' ? &o->rot.size : &o->rot.max_total) ||
			    !(c == 'S' ? o->rot.size : o->rot.max_total)) {
				fprintf(stderr, "evdrain: --%s wants a size above 0: bytes, or with K, M, G or T "
					"(powers of 1024), e.g. 64M; not \"%s\"\n",
					c == 'S' ? "rotate-size" : "max-total", optarg);
				return -1;
			}
			break;
		case 'I':
			if (evt_parse_duration_ms(optarg, &o->rot.interval_ms) || o->rot.interval_ms < 100) {
				fprintf(stderr, "evdrain: --rotate-interval wants a duration from 100ms to a year: "
					"seconds, or with ms, s, m, h or d, e.g. 10m; not \"%s\"\n", optarg);
				return -1;
			}
			break;
		case 'K':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || v < 1 || v > 1000000) {
				fprintf(stderr, "evdrain: --keep wants a number of chunks from 1 to 1000000, "
					"not \"%s\"\n", optarg);
				return -1;
			}
			o->rot.keep = (unsigned int)v;
			break;
		case 'H':
			if (check_hook(optarg))
				return -1;
			o->rot.hook = optarg;
			break;
		case 'R':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || v < 0 || v > 1000) {
				fprintf(stderr, "evdrain: --hook-retries wants a number from 0 to 1000, not \"%s\"\n",
					optarg);
				return -1;
			}
			o->rot.hook_retries = (unsigned int)v;
			hook_opts = 1;
			break;
		case 'B':
			if (parse_backoff(optarg, &o->rot))
				return -1;
			hook_opts = 1;
			break;
		case 'P':
			if (!optarg[0]) {
				fprintf(stderr, "evdrain: --snapshots wants a directory, not ''\n");
				return -1;
			}
			o->snap.dir = optarg;
			break;
		case 'k':
		case 'b': {
			/* A bare number keeps the name's unit (ms, MiB); 5s and 2G work too. */
			uint64_t max = c == 'k' ? 86400000 : 1048576, n;
			int bad = c == 'k' ? evt_parse_duration(optarg, EVT_NS_PER_MS, EVT_NS_PER_MS, &n) :
					     evt_parse_size_in(optarg, 1ULL << 20, 1ULL << 20, &n);

			if (bad || n < 1 || n > max) {
				fprintf(stderr, "evdrain: --%s wants %s from 1 to %llu (or with a unit: %s), not \"%s\"\n",
					c == 'k' ? "keep-ms" : "keep-mb", c == 'k' ? "whole milliseconds" : "whole MiB",
					(unsigned long long)max, c == 'k' ? "5s, 2m" : "512M, 2G", optarg);
				return -1;
			}
			if (c == 'k')
				o->snap.keep_ms = n;
			else
				o->snap.keep_bytes = n << 20;
			break;
		}
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case 'V':
			printf("evdrain %s\n", EVT_VERSION);
			return 1;
		default:
			evt_opt_error("evdrain", argv, ":o:d:c:m:aqhV", opts);
			return -1;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--")) {
			fprintf(stderr, "evdrain: unexpected argument \"%s\": a command to trace goes after --\n",
				argv[optind]);
			return -1;
		}
		o->cmd = argv + optind;
	} else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		fprintf(stderr, "evdrain: no command after --\n");
		return -1;
	}
	if (o->cmd && !o->outdir) {
		fprintf(stderr, "evdrain: -- %s: the command's trace needs -o DIR\n", o->cmd[0]);
		return -1;
	}
	if (o->cmd && (o->snap.dir || o->attach || o->duration > 0)) {
		fprintf(stderr, "evdrain: -- %s: tracing starts with the command and stops when it exits: "
			"no --%s\n", o->cmd[0], o->snap.dir ? "snapshots" : o->attach ? "attach" : "duration");
		return -1;
	}
	if (!o->outdir && !o->live && !o->snap.dir) {
		fprintf(stderr, "evdrain: where to? -o DIR, --live or --snapshots DIR (evdrain --help)\n");
		return -1;
	}
	if (o->snap.dir && (o->outdir || o->live || o->attach || o->mode >= 0 || rotating(o) ||
			    o->fail_on_loss || o->json_path || o->channels != (1U << EVT_NR_CHANNELS) - 1)) {
		fprintf(stderr, "evdrain: --snapshots saves every ring when a trigger fires and leaves "
			"the session as it is: no -o, --live, --attach, --mode, --channels, rotation, "
			"--fail-on-loss or --stats-json\n");
		return -1;
	}
	if (!o->snap.dir && (o->snap.keep_ms || o->snap.keep_bytes)) {
		fprintf(stderr, "evdrain: --keep-ms and --keep-mb go with --snapshots\n");
		return -1;
	}
	if (o->attach && o->mode >= 0) {
		fprintf(stderr, "evdrain: --attach leaves the session as it is: no --mode\n");
		return -1;
	}
	if (o->attach && o->force) {
		fprintf(stderr, "evdrain: --attach appends to DIR's trace, --force deletes it: one or the other\n");
		return -1;
	}
	if (o->live_opts && !o->live) {
		fprintf(stderr, "evdrain: --format, --delay-ticks and --tick-ms go with --live\n");
		return -1;
	}
	if (!o->outdir && (o->force || o->has_group)) {
		fprintf(stderr, "evdrain: --force and --group need -o DIR\n");
		return -1;
	}
	if (!rotating(o) && (o->rot.keep || o->rot.max_total || o->rot.hook)) {
		fprintf(stderr, "evdrain: --keep, --max-total and --on-chunk go with --rotate-size or "
			"--rotate-interval\n");
		return -1;
	}
	if (hook_opts && !o->rot.hook) {
		fprintf(stderr, "evdrain: --hook-retries and --hook-backoff go with --on-chunk\n");
		return -1;
	}
	if (rotating(o) && !o->outdir) {
		fprintf(stderr, "evdrain: rotation writes chunks: it needs -o DIR\n");
		return -1;
	}
	if (rotating(o) && o->force) {
		fprintf(stderr, "evdrain: with rotation, chunks are never overwritten (retention removes "
			"old ones: --keep, --max-total): no --force\n");
		return -1;
	}
	if (o->rot.size && o->rot.max_total && o->rot.max_total < 2 * o->rot.size) {
		fprintf(stderr, "evdrain: --max-total must hold at least two chunks (the one being written "
			"and a complete one): 2 x --rotate-size or more\n");
		return -1;
	}
	o->rot.outdir = o->outdir;
	o->rot.has_group = o->has_group;
	o->rot.group = o->group;
	o->rot.quiet = o->quiet;
	o->snap.quiet = o->quiet;
	o->snap.xfer = o->copy ? EVT_XFER_COPY : EVT_XFER_SENDFILE;
	o->snap.duration_ms = (uint64_t)(o->duration * 1000);
	return 0;
}
