/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one CPU-list syntax of the programs (evctl generate --cpus, evcat
 * --cpu): "all", or comma-separated CPU numbers and ranges "A-B" (A <= B),
 * every number below EVT_MAX_CPUS, at most EVT_CPULIST_MAX - 1 bytes: the
 * list the module's cpulist_parse() takes.
 */
#ifndef EVT_CPULIST_H
#define EVT_CPULIST_H

#include <stddef.h>
#include <stdint.h>
#include <evtrace/limits.h>

/* Bytes of a CPU set: one bit per CPU number. */
#define EVT_CPUSET_BYTES	(EVT_MAX_CPUS / 8)

/*
 * Parse S. SET, when not NULL, is EVT_CPUSET_BYTES bytes: cleared, then a bit
 * set per CPU of the list ("all": every bit). Returns 0, or -1 with a
 * message in ERR.
 */
int evt_cpulist_parse(const char *s, uint8_t *set, char *err, size_t errlen);

static inline int evt_cpuset_has(const uint8_t *set, unsigned int cpu)
{
	return cpu < EVT_MAX_CPUS && (set[cpu / 8] >> (cpu % 8)) & 1;
}

#endif /* EVT_CPULIST_H */
