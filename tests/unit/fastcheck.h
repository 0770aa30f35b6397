/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Check's ck_assert* macros record a mark point (a write to a pipe) on
 * every success: far too slow for per-event checks in loops. These fail
 * the same way (file, line, the values) and cost nothing when they pass.
 * Include after unit.h.
 */
#ifndef FASTCHECK_H
#define FASTCHECK_H

#include <check.h>

#define FC_CMP(X, OP, Y, T, FMT) do { \
	T x_ = (T)(X), y_ = (T)(Y); \
	if (!(x_ OP y_)) \
		ck_abort_msg("Assertion '%s' failed: %s == " FMT ", %s == " FMT, \
			     #X " " #OP " " #Y, #X, x_, #Y, y_); \
} while (0)

#undef ck_assert
#define ck_assert(E) do { if (!(E)) ck_abort_msg("Assertion '%s' failed", #E); } while (0)
#undef ck_assert_msg
#define ck_assert_msg(E, ...) do { if (!(E)) ck_abort_msg(__VA_ARGS__); } while (0)
#undef ck_assert_uint_eq
#define ck_assert_uint_eq(X, Y) FC_CMP(X, ==, Y, unsigned long long, "%llu")
#undef ck_assert_uint_ne
#define ck_assert_uint_ne(X, Y) FC_CMP(X, !=, Y, unsigned long long, "%llu")
#undef ck_assert_uint_lt
#define ck_assert_uint_lt(X, Y) FC_CMP(X, <, Y, unsigned long long, "%llu")
#undef ck_assert_uint_le
#define ck_assert_uint_le(X, Y) FC_CMP(X, <=, Y, unsigned long long, "%llu")
#undef ck_assert_uint_gt
#define ck_assert_uint_gt(X, Y) FC_CMP(X, >, Y, unsigned long long, "%llu")
#undef ck_assert_uint_ge
#define ck_assert_uint_ge(X, Y) FC_CMP(X, >=, Y, unsigned long long, "%llu")
#undef ck_assert_int_eq
#define ck_assert_int_eq(X, Y) FC_CMP(X, ==, Y, long long, "%lld")
#undef ck_assert_int_le
#define ck_assert_int_le(X, Y) FC_CMP(X, <=, Y, long long, "%lld")
#undef ck_assert_ptr_nonnull
#define ck_assert_ptr_nonnull(X) do { if (!(X)) ck_abort_msg("Assertion '%s != NULL' failed", #X); } while (0)
#undef ck_assert_ptr_null
#define ck_assert_ptr_null(X) do { if (X) ck_abort_msg("Assertion '%s == NULL' failed", #X); } while (0)
#undef ck_assert_str_eq
#define ck_assert_str_eq(X, Y) do { const char *x_ = (X), *y_ = (Y); \
	if (strcmp(x_, y_)) \
		ck_abort_msg("Assertion '%s == %s' failed: \"%s\" vs \"%s\"", #X, #Y, x_, y_); \
} while (0)

#endif
