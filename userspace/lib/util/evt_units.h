/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Durations and sizes on the command line, one grammar for every program:
 * NUMBER[.FRACTION][UNIT], durations in ns, us, ms, s, m, h, d and sizes in
 * B, K, M, G, T (powers of 1024; KiB, MiB, ... too). A bare number keeps
 * the unit the option always had (seconds for evdrain -d, microseconds for
 * evctl timer --period-us, ...), so that old command lines mean what they did.
 */
#ifndef EVT_UNITS_H
#define EVT_UNITS_H

#include <stdint.h>

#define EVT_NS_PER_US	1000ULL
#define EVT_NS_PER_MS	1000000ULL
#define EVT_NS_PER_S	1000000000ULL

/*
 * @s as a duration in units of @unit_ns, a bare number counting @bare_ns
 * each. 0, or -1: not a duration, not a whole number of @unit_ns (refused,
 * never rounded), or more than 2^63 ns (292 years).
 */
int evt_parse_duration(const char *s, uint64_t bare_ns, uint64_t unit_ns, uint64_t *out);

/* A duration in ms, a bare number in seconds, at most a year (366 days). 0 or -1. */
int evt_parse_duration_ms(const char *s, uint64_t *ms);

/*
 * @s as a size in units of @unit bytes, a bare number counting @bare bytes
 * each. 0, or -1: not a size, not a whole number of @unit, or more than 2^62
 * bytes.
 */
int evt_parse_size_in(const char *s, uint64_t bare, uint64_t unit, uint64_t *out);

/* A size in bytes, a bare number in bytes. 0 or -1. */
int evt_parse_size(const char *s, uint64_t *bytes);

#endif /* EVT_UNITS_H */
