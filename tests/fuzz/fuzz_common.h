/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c) and the unit tests
 * that replay what they found (tests/unit/test_fuzz.c): a target's checks go
 * through FZ_ASSERT, which aborts under libFuzzer (a crash it reports and
 * minimizes) and fails the Check test in the unit build.
 *
 * A target file defines fz_<name>_one(data, size) and, unless FZ_NO_MAIN is
 * defined (the unit tests include the file with it), LLVMFuzzerTestOneInput.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Called on a failed check: must not return. */
void fz_fail(const char *file, int line, const char *what);

#define FZ_ASSERT(c) do { if (!(c)) fz_fail(__FILE__, __LINE__, #c); } while (0)

int fz_trace_one(const uint8_t *data, size_t size);
int fz_reorder_one(const uint8_t *data, size_t size);
int fz_dir_one(const uint8_t *data, size_t size);
int fz_results_one(const uint8_t *data, size_t size);
int fz_run_one(const uint8_t *data, size_t size);
int fz_text_one(const uint8_t *data, size_t size);

/* The libFuzzer entry point of a target whose checks are in @one. */
#ifndef FZ_NO_MAIN
#include <stdio.h>
#include <stdlib.h>
#define FZ_TARGET(one)								\
void fz_fail(const char *file, int line, const char *what)			\
{										\
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);	\
	abort();								\
}										\
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);			\
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)			\
{										\
	return one(data, size);							\
}
#else
#define FZ_TARGET(one)
#endif

#endif
