// SPDX-License-Identifier: GPL-2.0
/*
 * What jansson would cost evcat per event (scripts/bench-json): the rows of
 * FILE (evcat --format json output, one object a line) read into jansson
 * objects untimed, then timed: each row written with json_dumps() as every
 * JSON document is (lib/json), and each row built anew (json_deep_copy(): a
 * row's objects and strings allocated, as a jansson row path would) and
 * written. Prints "dump NS build+dump NS" per row, best of 3, and how many
 * rows hold an integer jansson cannot hold (a u64 field past INT64_MAX).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t n = 0, cap = 1 << 16, i, sink = 0, too_big = 0;
	json_t **rows = malloc(cap * sizeof(*rows));
	double best_dump = 1e30, best_both = 1e30;
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "r")) || !rows) {
		fprintf(stderr, "usage: bench-json ROWS.jsonl\n");
		return 2;
	}
	while (getline(&line, &len, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);

		/* A u64 field past INT64_MAX: jansson has no such integer (a real, here, to time the rest). */
		if (!j && (j = json_loads(line, JSON_DECODE_INT_AS_REAL, NULL)))
			too_big++;
		if (!j) {
			fprintf(stderr, "bench-json: row %zu is not JSON\n", n + 1);
			return 1;
		}
		if (n == cap && !(rows = realloc(rows, (cap *= 2) * sizeof(*rows))))
			return 1;
		rows[n++] = j;
	}
	fclose(f);
	free(line);
	if (!n)
		return 1;
	for (int run = 0; run < 3; run++) {
		double t0 = now(), t1, t2;

		for (i = 0; i < n; i++) {
			char *s = json_dumps(rows[i], JSON_COMPACT | JSON_ENSURE_ASCII);

			sink += strlen(s);
			free(s);
		}
		t1 = now();
		for (i = 0; i < n; i++) {
			json_t *copy = json_deep_copy(rows[i]);
			char *s = json_dumps(copy, JSON_COMPACT | JSON_ENSURE_ASCII);

			sink += strlen(s);
			free(s);
			json_decref(copy);
		}
		t2 = now();
		if (t1 - t0 < best_dump)
			best_dump = t1 - t0;
		if (t2 - t1 < best_both)
			best_both = t2 - t1;
	}
	printf("rows %zu dump %.1f build+dump %.1f too_big %zu bytes %zu\n", n, best_dump * 1e9 / (double)n,
	       best_both * 1e9 / (double)n, too_big, sink / 6);
	for (i = 0; i < n; i++)
		json_decref(rows[i]);
	free(rows);
	return 0;
}
