// SPDX-License-Identifier: GPL-2.0
/*
 * evexport: a chunk (or a trace) as flat NDJSON tables for a column store
 * (lib/export/evt_export.h). See usage() and evexport(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/evt_cli.h"
#include "export/evt_export.h"

#define EXIT_ERROR EVT_EXIT_FAILURE
#define EXIT_USAGE EVT_EXIT_USAGE

enum { OPT_FINAL = 256, OPT_NOT_FINAL, OPT_HOST, OPT_STATE, OPT_TABLES, OPT_VERSION };

static const struct option long_opts[] = {
	{ "out", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "final", no_argument, NULL, OPT_FINAL },
	{ "not-final", no_argument, NULL, OPT_NOT_FINAL },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "tables", required_argument, NULL, OPT_TABLES },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: evexport CHUNK_DIR -o DIR [options]\n"
"Write the chunk CHUNK_DIR (one of a rotating evdrain's, or a trace directory)\n"
"as flat tables, one JSON object per line, that ClickHouse loads with FORMAT\n"
"JSONEachRow: DIR/events.ndjson, syscalls.ndjson, sched_slices.ndjson,\n"
"wakeups.ndjson and stats.ndjson (the columns: docs/fleet.md).\n"
"\n"
"  -o, --out DIR       an existing directory for the tables\n"
"  --host NAME         the host the rows name (default: the chunk's summary.json)\n"
"  --state DIR         carry what is in flight at a chunk's end into the next\n"
"                      chunk's export (DIR/HOST/SEQ.carry): syscalls and\n"
"                      wakeups across a seam are paired, and summed over a run\n"
"                      the tables give evstat's numbers on the run\n"
"  --final             the chunk ends its tracing session (nothing deferred)\n"
"  --not-final         it does not (default: as its summary.json says)\n"
"  --tables LIST       only these tables (comma-separated names)\n"
"  -q, --quiet         no summary line on standard error\n"
"  --version           print the version\n"
"  --help              this text\n"
"\n"
"Exit status: 0 success; 1 the chunk could not be read whole or the tables\n"
"not written (the message says which; a decoding error leaves the rows of the\n"
"events before it); 2 usage error.\n");
}

static int parse_tables(const char *list, unsigned int *tables)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int t;

	if (!copy)
		return -1;
	*tables = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (t = 0; t < EVT_EXPORT_NR_TABLES && strcmp(tok, evt_export_table_name(t)); t++)
			;
		if (t == EVT_EXPORT_NR_TABLES) {
			fprintf(stderr, "evexport: --tables: no table \"%s\" (events, syscalls, sched_slices, "
				"wakeups, stats)\n", tok);
			free(copy);
			return -1;
		}
		*tables |= 1u << t;
	}
	free(copy);
	if (!*tables) {
		fprintf(stderr, "evexport: --tables needs at least one table\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct evt_export_opts o = { .final = -1 };
	struct evt_export_result r;
	char err[EVT_EXPORT_ERRLEN];
	struct stat st;
	int quiet = 0, c, rc;
	unsigned int t;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:q", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return EVT_EXIT_OK;
		case OPT_VERSION:
			printf("evexport %s\n", EVT_VERSION);
			return EVT_EXIT_OK;
		case 'q':
			quiet = 1;
			break;
		case OPT_FINAL:
		case OPT_NOT_FINAL:
			o.final = c == OPT_FINAL;
			break;
		case 'o':
			o.out_dir = optarg;
			break;
		case OPT_STATE:
			o.state_dir = optarg;
			break;
		case OPT_TABLES:
			if (parse_tables(optarg, &o.tables))
				return EXIT_USAGE;
			break;
		case OPT_HOST:
			if (!*optarg || strlen(optarg) > 200) {
				fprintf(stderr, "evexport: --host wants a name of 1 to 200 bytes\n");
				return EXIT_USAGE;
			}
			o.host = optarg;
			break;
		default:
			evt_opt_error("evexport", argv, "ho:q", long_opts);
			return EXIT_USAGE;
		}
	}
	for (; optind < argc; optind++) {
		if (o.chunk_dir) {
			fprintf(stderr, "evexport: one chunk at a time (\"%s\" is a second)\n", argv[optind]);
			return EXIT_USAGE;
		}
		o.chunk_dir = argv[optind];
	}
	if (!o.chunk_dir || !o.out_dir) {
		fprintf(stderr, "evexport: %s (evexport CHUNK_DIR -o DIR)\n", !o.chunk_dir ? "which chunk?" :
			"where to? -o DIR");
		return EXIT_USAGE;
	}
	if (stat(o.out_dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "evexport: -o %s: %s\n", o.out_dir, S_ISDIR(st.st_mode) || errno != 0 ?
			strerror(errno) : "not a directory");
		return EXIT_USAGE;
	}
	rc = evt_export_chunk(&o, &r, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "evexport: %s\n", err);
		return EXIT_ERROR;
	}
	if (rc > 0)
		fprintf(stderr, "evexport: %s (the tables hold the events before it)\n", err);
	if (!quiet) {
		fprintf(stderr, "evexport: %s (host %s, seq %llu): %llu events;", r.chunk, r.host,
			(unsigned long long)r.seq, (unsigned long long)r.events);
		for (t = 0; t < EVT_EXPORT_NR_TABLES; t++)
			if (!o.tables || (o.tables & (1u << t)))
				fprintf(stderr, " %s %llu", evt_export_table_name(t), (unsigned long long)r.rows[t]);
		fprintf(stderr, " rows; %s, %llu carried in, %llu deferred\n",
			r.carry ? "carry of the chunk before used" : "no carry", (unsigned long long)r.carried_in,
			(unsigned long long)r.deferred);
	}
	return rc ? EXIT_ERROR : 0;
}
