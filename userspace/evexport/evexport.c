// SPDX-License-Identifier: GPL-2.0
/*
 * evexport: a chunk (or a trace) as flat NDJSON tables for a column store
 * (lib/export/evt_export.h). See usage() and evexport(1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "evt_export.h"

#define EXIT_ERROR 1
#define EXIT_USAGE 2

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
	int quiet = 0, i, rc;
	unsigned int t;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const int has_val = i + 1 < argc;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("evexport %s\n", EVT_VERSION);
			return 0;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "--final")) {
			o.final = 1;
		} else if (!strcmp(a, "--not-final")) {
			o.final = 0;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--out") || !strcmp(a, "--host") || !strcmp(a, "--state") ||
			   !strcmp(a, "--tables")) {
			if (!has_val) {
				fprintf(stderr, "evexport: %s needs a value\n", a);
				return EXIT_USAGE;
			}
			if (!strcmp(a, "--host"))
				o.host = argv[++i];
			else if (!strcmp(a, "--state"))
				o.state_dir = argv[++i];
			else if (!strcmp(a, "--tables")) {
				if (parse_tables(argv[++i], &o.tables))
					return EXIT_USAGE;
			} else
				o.out_dir = argv[++i];
			if (!strcmp(a, "--host") && (!*o.host || strlen(o.host) > 200)) {
				fprintf(stderr, "evexport: --host wants a name of 1 to 200 bytes\n");
				return EXIT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "evexport: unknown option %s (evexport --help)\n", a);
			return EXIT_USAGE;
		} else if (!o.chunk_dir) {
			o.chunk_dir = a;
		} else {
			fprintf(stderr, "evexport: one chunk at a time (\"%s\" is a second)\n", a);
			return EXIT_USAGE;
		}
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
