// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

int main(void)
{
	SRunner *sr = srunner_create(ring_suite());
	int failed;

	srunner_add_suite(sr, format_suite());
	srunner_add_suite(sr, merge_suite());
	srunner_add_suite(sr, trace_suite());
	srunner_add_suite(sr, ctl_suite());
	srunner_add_suite(sr, cpulist_suite());
	srunner_add_suite(sr, fuzz_suite());
	srunner_add_suite(sr, windows_suite());
	srunner_add_suite(sr, consumer_suite());
	srunner_add_suite(sr, chunk_suite());
	srunner_add_suite(sr, comps_suite());
	srunner_add_suite(sr, engine_suite());
	srunner_add_suite(sr, events_suite());
	srunner_add_suite(sr, export_suite());
	srunner_add_suite(sr, edges_suite());
	srunner_add_suite(sr, pindex_suite());
	srunner_add_suite(sr, view_suite());
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
