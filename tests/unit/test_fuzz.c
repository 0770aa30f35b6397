// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzz targets' checks in the unit tests (plain and under ASan+UBSan):
 * every input of the seed corpus (tests/fuzz/corpus/<target>/) and every
 * input a fuzz run found a bug with (tests/fuzz/regress/<target>/, one file
 * per bug, named after it) replayed through the same target code, built here
 * by gcc; and the bugs themselves as direct cases.
 */
#define FZ_NO_MAIN
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "../fuzz/fuzz_common.h"
#include "../fuzz/fuzz_trace.c"
#include "../fuzz/fuzz_reorder.c"
#include "../fuzz/fuzz_dir.c"
#include "../fuzz/fuzz_results.c"
#include "../fuzz/fuzz_run.c"
#include "../fuzz/fuzz_text.c"

void fz_fail(const char *file, int line, const char *what)
{
	ck_abort_msg("%s:%d: fuzz target check failed: %s", file, line, what);
	abort();	/* not reached */
}

/* Replay every file of @dir through @one; returns how many. */
static unsigned int replay_dir(const char *dir, int (*one)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[1024];
		uint8_t *buf;
		long len;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		ck_assert_msg(f != NULL, "cannot open %s", path);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc((size_t)len + 1);
		ck_assert(buf != NULL);
		ck_assert_int_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
		fclose(f);
		one(buf, (size_t)len);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

START_TEST(test_fuzz_trace_corpus)
{
	ck_assert_uint_gt(replay_dir("tests/fuzz/corpus/trace", fz_trace_one), 0);
	replay_dir("tests/fuzz/regress/trace", fz_trace_one);
}
END_TEST

START_TEST(test_fuzz_dir_corpus)
{
	ck_assert_uint_gt(replay_dir("tests/fuzz/corpus/dir", fz_dir_one), 0);
	replay_dir("tests/fuzz/regress/dir", fz_dir_one);
}
END_TEST

START_TEST(test_fuzz_reorder_corpus)
{
	ck_assert_uint_gt(replay_dir("tests/fuzz/corpus/reorder", fz_reorder_one), 0);
	replay_dir("tests/fuzz/regress/reorder", fz_reorder_one);
}
END_TEST

START_TEST(test_fuzz_run_corpus)
{
	ck_assert_uint_gt(replay_dir("tests/fuzz/corpus/run", fz_run_one), 0);
	replay_dir("tests/fuzz/regress/run", fz_run_one);
}
END_TEST

START_TEST(test_fuzz_text_corpus)
{
	ck_assert_uint_gt(replay_dir("tests/fuzz/corpus/text", fz_text_one), 0);
	replay_dir("tests/fuzz/regress/text", fz_text_one);
}
END_TEST

/* A seed of the results corpus, malloc'd: its bytes and length. */
static uint8_t *read_seed(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	ck_assert(buf != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/*
 * Saved results with a valid header and checksum and a hostile payload,
 * through the loaders as a program loads them: the seeds, then 1000
 * mutants of them (repeatable: unit_rnd): bytes flipped, counts made huge,
 * cut short, a part repeated. Loaded or refused, never a crash.
 */
START_TEST(test_fuzz_results_mutants)
{
	static const char *const seeds[] = { "real-stats", "real-state", "real-index", "real-marks" };
	uint64_t st = 0x2545f4914f6cdd1dULL;
	unsigned int i, k, done = 0;

	ck_assert_uint_gt(replay_dir("tests/fuzz/corpus/results", fz_results_one), 0);
	replay_dir("tests/fuzz/regress/results", fz_results_one);
	for (i = 0; i < 4; i++) {
		char path[128];
		size_t len, n;
		uint8_t *seed, *m;

		snprintf(path, sizeof(path), "tests/fuzz/corpus/results/%s", seeds[i]);
		seed = read_seed(path, &len);
		m = malloc(2 * len);
		ck_assert_ptr_nonnull(m);
		for (k = 0; k < 250; k++, done++) {
			size_t at = 1 + unit_rnd(&st) % (len - 1);

			memcpy(m, seed, len);
			n = len;
			switch (k % 5) {
			case 0:		/* a few bytes flipped */
				for (unsigned int j = 0; j < 1 + k % 3; j++)
					m[1 + unit_rnd(&st) % (len - 1)] ^= (uint8_t)(1u << (unit_rnd(&st) % 8));
				break;
			case 1:		/* a count or length made huge */
				if (at + 4 <= len)
					memset(m + at, 0xff, 4);
				break;
			case 2:		/* cut short */
				n = at;
				break;
			case 3:		/* a part repeated: longer than it says */
				memcpy(m + len, seed + at, len - at);
				n = len + (len - at);
				break;
			default:	/* a byte set to each of 0, 0x80, 0x7f */
				m[at] = (uint8_t)(k % 3 == 0 ? 0 : k % 3 == 1 ? 0x80 : 0x7f);
				break;
			}
			fz_results_one(m, n);
		}
		free(m);
		free(seed);
	}
	ck_assert_uint_eq(done, 1000);
}
END_TEST

/* Random inputs through both targets: repeatable (unit_rnd), no crash, every check holds. */
START_TEST(test_fuzz_random_inputs)
{
	uint64_t st = 0x9e3779b97f4a7c15ULL;
	uint8_t buf[2048];
	unsigned int i, j;

	for (i = 0; i < 200; i++) {
		size_t len = unit_rnd(&st) % sizeof(buf);

		for (j = 0; j < len; j++)
			buf[j] = (uint8_t)unit_rnd(&st);
		fz_reorder_one(buf, len);
		fz_trace_one(buf, len);
		fz_text_one(buf, len);
		if (i < 50)
			fz_dir_one(buf, len);
	}
}
END_TEST

Suite *fuzz_suite(void)
{
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("replay");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fuzz_trace_corpus);
	tcase_add_test(tc, test_fuzz_reorder_corpus);
	tcase_add_test(tc, test_fuzz_dir_corpus);
	tcase_add_test(tc, test_fuzz_random_inputs);
	tcase_add_test(tc, test_fuzz_run_corpus);
	tcase_add_test(tc, test_fuzz_text_corpus);
	suite_add_tcase(s, tc);
	tc = tcase_create("results");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_fuzz_results_mutants);
	suite_add_tcase(s, tc);
	return s;
}
