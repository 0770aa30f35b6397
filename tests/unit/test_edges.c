// SPDX-License-Identifier: GPL-2.0
/*
 * The readers attacked as another local user would (issue 41): one test
 * per item of tests/tools/edges-check.py, which builds its traces, runs
 * the programs as root and as nobody (setpriv) and says what it saw. The
 * sanitizer build of the unit tests runs them against evcat-san,
 * evstat-san and evview-san (any ASan or UBSan report fails the item).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "unit.h"

#ifdef __SANITIZE_ADDRESS__
#define EDGES_SAN " --san"
#else
#define EDGES_SAN ""
#endif

static void edges(const char *item)
{
	char cmd[512], log[128];

	snprintf(log, sizeof(log), "/tmp/evt-edges-%s-%d.log", item, (int)getpid());
	snprintf(cmd, sizeof(cmd), "python3 tests/tools/edges-check.py%s %s > %s 2>&1", EDGES_SAN, item, log);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "cat %s; rm -f %s", log, log);
		ck_assert_int_eq(system(cmd), 0);
		ck_abort_msg("tests/tools/edges-check.py %s failed", item);
	}
	remove(log);
}

#define EDGE_TEST(item) \
	START_TEST(edges_##item) { edges(#item); } END_TEST

/* 1: evview's API needs the printed token; another user's connections are refused. */
EDGE_TEST(viewer)
/* 2: names with terminal escapes reach no text output raw. */
EDGE_TEST(escape)
/* 3: results never written through a link or into another user's directory. */
EDGE_TEST(results)
/* 4: symlinked streams and chunks: keyed on what the reader reads. */
EDGE_TEST(links)
/* 5: a file cut while read: a message and exit 1, not SIGBUS. */
EDGE_TEST(cut)
/* 6: --top of any size. */
EDGE_TEST(top)
/* 7: windows sized by the CPUs with streams, columns x CPUs bounded. */
EDGE_TEST(cpus)
/* 8: a run one mapping past the limit is refused, at the limit it reads. */
EDGE_TEST(maps)
/* 9: forged and oversized results, permissions, and the small ones. */
EDGE_TEST(forged)
EDGE_TEST(perms)
EDGE_TEST(misc)

Suite *edges_suite(void)
{
	Suite *s = suite_create("edges");
	TCase *tc = tcase_create("edges");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, edges_viewer);
	tcase_add_test(tc, edges_escape);
	tcase_add_test(tc, edges_results);
	tcase_add_test(tc, edges_links);
	tcase_add_test(tc, edges_cut);
	tcase_add_test(tc, edges_top);
	tcase_add_test(tc, edges_cpus);
	tcase_add_test(tc, edges_maps);
	tcase_add_test(tc, edges_forged);
	tcase_add_test(tc, edges_perms);
	tcase_add_test(tc, edges_misc);
	suite_add_tcase(s, tc);
	return s;
}
