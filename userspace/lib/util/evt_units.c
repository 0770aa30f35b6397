// SPDX-License-Identifier: GPL-2.0
/* Durations and sizes with units: see evt_units.h. */
#include <ctype.h>
#include <string.h>
#include "util/evt_units.h"

struct unit {
	const char *name;
	uint64_t scale;
};

/*
 * NUMBER[.FRACTION]UNIT at @s, UNIT one of @units (the empty name: @bare)
 * into a count of @unit_scale: 0, or -1.
 */
static int parse_scaled(const char *s, const struct unit *units, size_t nunits, uint64_t bare,
			uint64_t unit_scale, uint64_t max, uint64_t *out)
{
	uint64_t whole = 0, num = 0, den = 1, scale = 0, v, frac;
	const char *p = s;
	size_t i;

	if (!isdigit((unsigned char)*p) || !unit_scale)
		return -1;
	for (; isdigit((unsigned char)*p); p++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
			return -1;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -1;
		/* Nineteen digits fit in 64 bits; more would only say zeros to a ns or a byte. */
		for (; isdigit((unsigned char)*p); p++) {
			if (den >= 1000000000000000000ULL) {
				if (*p != '0')
					return -1;
				continue;
			}
			num = num * 10 + (uint64_t)(*p - '0');
			den *= 10;
		}
	}
	if (!*p) {
		scale = bare;
	} else {
		for (i = 0; i < nunits; i++)
			if (!strcmp(p, units[i].name))
				scale = units[i].scale;
	}
	if (!scale)
		return -1;
	if (__builtin_mul_overflow(whole, scale, &v) || v > max)
		return -1;
	/* The fraction of the unit: whole base units only (1.5us is 1500 ns; 1.0001ns is refused). */
	if (num) {
		if (scale % den && (__builtin_mul_overflow(num, scale, &frac) || frac % den))
			return -1;
		frac = scale % den ? num * scale / den : num * (scale / den);
		if (__builtin_add_overflow(v, frac, &v) || v > max)
			return -1;
	}
	if (v % unit_scale)
		return -1;
	*out = v / unit_scale;
	return 0;
}

int evt_parse_duration(const char *s, uint64_t bare_ns, uint64_t unit_ns, uint64_t *out)
{
	static const struct unit units[] = {
		{ "ns", 1 }, { "us", EVT_NS_PER_US }, { "ms", EVT_NS_PER_MS }, { "s", EVT_NS_PER_S },
		{ "m", 60 * EVT_NS_PER_S }, { "h", 3600 * EVT_NS_PER_S }, { "d", 86400 * EVT_NS_PER_S },
	};

	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]), bare_ns, unit_ns, 1ULL << 63, out);
}

int evt_parse_duration_ms(const char *s, uint64_t *ms)
{
	return evt_parse_duration(s, EVT_NS_PER_S, EVT_NS_PER_MS, ms) || *ms > 366ULL * 86400000 ? -1 : 0;
}

int evt_parse_size_in(const char *s, uint64_t bare, uint64_t unit, uint64_t *out)
{
	static const struct unit units[] = {
		{ "B", 1 }, { "K", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
		{ "G", 1ULL << 30 }, { "GiB", 1ULL << 30 }, { "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	};

	return parse_scaled(s, units, sizeof(units) / sizeof(units[0]), bare, unit, 1ULL << 62, out);
}

int evt_parse_size(const char *s, uint64_t *bytes)
{
	return evt_parse_size_in(s, 1, 1, bytes);
}
