// SPDX-License-Identifier: GPL-2.0
/* Times on the command line (evcat's and evstat's --from/--to): see evt_timearg.h. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include "format/evt_timearg.h"
#include "util/evt_units.h"

static int parse_frac(const char *s, uint64_t *ns)
{
	uint64_t v = 0, scale = 100000000ULL;

	if (!*s)
		return 0;
	if (*s != '.')
		return -1;
	s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		v += (uint64_t)(*s - '0') * scale;
		scale /= 10;
	}
	if (*s)
		return -1;
	*ns = v;
	return 0;
}

/* Up to @maxdigits digits at *@s: 0, -1 (none) or -2 (beyond 2^64 - 1). */
static int parse_uint(const char **s, uint64_t *v, int maxdigits)
{
	int n = 0, over = 0;

	*v = 0;
	while (isdigit((unsigned char)**s) && n < maxdigits) {
		over |= __builtin_mul_overflow(*v, 10, v);
		over |= __builtin_add_overflow(*v, (uint64_t)(**s - '0'), v);
		(*s)++;
		n++;
	}
	return !n ? -1 : over ? -2 : 0;
}

/* Days since the Epoch of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era;
	unsigned int yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned int)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* HH:MM:SS[.ns] at @s into seconds of the day and ns. */
static int parse_hms(const char *s, uint64_t *sec, uint64_t *ns)
{
	uint64_t h, m, x;

	if (parse_uint(&s, &h, 2) || *s++ != ':' || parse_uint(&s, &m, 2) || *s++ != ':' ||
	    parse_uint(&s, &x, 2) || h > 23 || m > 59 || x > 60)
		return -1;
	*ns = 0;
	if (parse_frac(s, ns))
		return -1;
	*sec = h * 3600 + m * 60 + x;
	return 0;
}

/* @a * @m + @b into *@out: 0, or -2 when it does not fit in 64 bits. */
static int mul_add(uint64_t a, uint64_t m, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, m, out) || __builtin_add_overflow(*out, b, out) ? -2 : 0;
}

int evt_parse_time(const char *s, uint64_t off, uint64_t first, uint64_t *out)
{
	const uint64_t G = 1000000000ULL;
	uint64_t rt, sec, ns = 0;
	const char *p = s;
	int r;

	if (*s == '@') {
		p++;
		r = parse_uint(&p, out, 20);
		return r ? r : *p ? -1 : 0;
	}
	/* A duration with a unit (10ms, +1.5s): after the first event, as +SECONDS is. */
	if (*s == '+' || isdigit((unsigned char)*s)) {
		const char *d = s + (*s == '+');
		size_t digits = strspn(d, "0123456789.");

		if (d[digits] && !evt_parse_duration(d, G, 1, &rt))
			return __builtin_add_overflow(first, rt, out) ? -2 : 0;
	}
	if (*s == '+') {
		p++;
		r = parse_uint(&p, &sec, 12);
		if (r == -1 || parse_frac(p, &ns))
			return -1;
		return r ? r : mul_add(sec, G, ns, &rt) ? -2 : __builtin_add_overflow(first, rt, out) ? -2 : 0;
	}
	if (strlen(s) >= 10 && s[4] == '-' && s[7] == '-') {
		uint64_t y, mo, d, hs;
		int64_t days;

		if (parse_uint(&p, &y, 4) || *p++ != '-' || parse_uint(&p, &mo, 2) || *p++ != '-' ||
		    parse_uint(&p, &d, 2) || (*p != ' ' && *p != 'T') || mo < 1 || mo > 12 ||
		    d < 1 || d > 31)
			return -1;
		p++;
		if (parse_hms(p, &hs, &ns))
			return -1;
		days = days_from_civil((int64_t)y, (unsigned int)mo, (unsigned int)d);
		if (days < 0)
			return -1;
		if (mul_add((uint64_t)days, 86400, hs, &rt) || mul_add(rt, G, ns, &rt))
			return -2;
	} else if (strchr(s, ':')) {
		uint64_t hs, day = (first + off) / G / 86400;

		if (parse_hms(s, &hs, &ns))
			return -1;
		if (mul_add(day, 86400, hs, &rt) || mul_add(rt, G, ns, &rt))
			return -2;
	} else {
		r = parse_uint(&p, &sec, 12);
		if (r == -1 || parse_frac(p, &ns))
			return -1;
		if (r || mul_add(sec, G, ns, &rt))
			return -2;
	}
	*out = rt >= off ? rt - off : 0;
	return 0;
}

