/* SPDX-License-Identifier: GPL-2.0 */
/* Times on the command line, the forms evcat(1) lists under --from. */
#ifndef EVT_TIMEARG_H
#define EVT_TIMEARG_H

#include <stdint.h>

/*
 * @s into a clock value of a trace whose realtime is clock + @offset_ns;
 * @first is its first event's clock value (for +SECONDS and HH:MM:SS).
 * Forms: HH:MM:SS[.ns] (UTC, on the first event's day), YYYY-MM-DD
 * HH:MM:SS[.ns] (or with a T), SECONDS[.ns] since the Epoch,
 * +SECONDS[.ns] after the first event, @CLOCK; a duration with a unit
 * (evt_units.h: 10ms, +2.5s, 1m) after the first event too. 0, -1 (not a
 * time) or -2 (beyond the clock's 64 bits of ns).
 */
int evt_parse_time(const char *s, uint64_t offset_ns, uint64_t first, uint64_t *out);

#endif /* EVT_TIMEARG_H */
