// SPDX-License-Identifier: GPL-2.0
/* The one CPU-list parser (evctl generate --cpus, evcat --cpu). */
#include "unit.h"
#include <stdio.h>
#include <string.h>
#include "util/evt_cpulist.h"

static unsigned int count_cpus(const uint8_t *set)
{
	unsigned int cpu, n = 0;

	for (cpu = 0; cpu < EVT_MAX_CPUS; cpu++)
		n += (unsigned int)evt_cpuset_has(set, cpu);
	return n;
}

START_TEST(cpulist_syntax)
{
	static const char *const good[] = {
		"all", "0", "7", "0-3", "0-3,6", "1,3,5", "0-0", "8191", "0-8191", "2,0",
	};
	static const char *const bad[] = {
		"", ",", "0,", ",0", "1-", "-1", "a", "0-3,,6", "0 1", " 0", "0-3-5", "3-1",
		"8192", "0-8192", "99999999999999999999", "ALL", "all,1", "0x1", "1;2", "1-2:1/2",
	};
	char err[256], big[400];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(evt_cpulist_parse(good[i], NULL, err, sizeof(err)) == 0, "'%s': %s",
			      good[i], err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(evt_cpulist_parse(bad[i], NULL, err, sizeof(err)) == -1, "'%s' accepted",
			      bad[i]);
		ck_assert_msg(err[0], "no message for '%s'", bad[i]);
	}
	ck_assert_int_eq(evt_cpulist_parse("8192", NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "below " EVT_STR(EVT_MAX_CPUS)));
	ck_assert_int_eq(evt_cpulist_parse("5-2", NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "goes down"));
	/* Longer than the module takes: refused here. */
	memset(big, 0, sizeof(big));
	for (i = 0; strlen(big) < 300; i++)
		snprintf(big + strlen(big), sizeof(big) - strlen(big), "%s%zu", i ? "," : "", i);
	ck_assert_int_eq(evt_cpulist_parse(big, NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "too long"));
}
END_TEST

START_TEST(cpulist_set)
{
	static uint8_t set[EVT_CPUSET_BYTES];
	char err[256];

	ck_assert_int_eq(evt_cpulist_parse("0-3,6,8190-8191", set, err, sizeof(err)), 0);
	ck_assert_uint_eq(count_cpus(set), 7);
	ck_assert(evt_cpuset_has(set, 0) && evt_cpuset_has(set, 3) && evt_cpuset_has(set, 6));
	ck_assert(!evt_cpuset_has(set, 4) && !evt_cpuset_has(set, 7));
	ck_assert(evt_cpuset_has(set, 8191) && !evt_cpuset_has(set, 8192));
	/* Parsing again replaces the set. */
	ck_assert_int_eq(evt_cpulist_parse("2", set, err, sizeof(err)), 0);
	ck_assert_uint_eq(count_cpus(set), 1);
	ck_assert_int_eq(evt_cpulist_parse("all", set, err, sizeof(err)), 0);
	ck_assert_uint_eq(count_cpus(set), EVT_MAX_CPUS);
	/* A refused list selects nothing, not what came before the error. */
	ck_assert_int_eq(evt_cpulist_parse("0-3,x", set, err, sizeof(err)), -1);
	ck_assert_uint_eq(count_cpus(set), 0);
	ck_assert_int_eq(evt_cpulist_parse("1,9-8", set, err, sizeof(err)), -1);
	ck_assert_uint_eq(count_cpus(set), 0);
}
END_TEST

Suite *cpulist_suite(void)
{
	Suite *s = suite_create("cpulist");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, cpulist_syntax);
	tcase_add_test(tc, cpulist_set);
	suite_add_tcase(s, tc);
	return s;
}
