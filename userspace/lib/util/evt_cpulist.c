// SPDX-License-Identifier: GPL-2.0
#include "util/evt_cpulist.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A CPU number: digits only; 1 when it is not below EVT_MAX_CPUS. */
static int cpu_number(const char **p, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= EVT_MAX_CPUS)
			return 1;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

static int parse(const char *s, uint8_t *set, char *err, size_t errlen)
{
	const char *p = s;
	unsigned long a, b;
	int r;

	if (!s || !*s)
		return fail(err, errlen, "empty CPU list");
	if (strlen(s) >= EVT_CPULIST_MAX)
		return fail(err, errlen, "CPU list too long (%zu bytes, at most %d)", strlen(s),
			    EVT_CPULIST_MAX - 1);
	if (!strcmp(s, "all")) {
		if (set)
			memset(set, 0xff, EVT_CPUSET_BYTES);
		return 0;
	}
	for (;;) {
		r = cpu_number(&p, &a);
		b = a;
		if (r == 0 && *p == '-') {
			p++;
			r = cpu_number(&p, &b);
			if (r == 0 && b < a)
				return fail(err, errlen, "bad CPU list '%s': range %lu-%lu goes down", s,
					    a, b);
		}
		if (r == 1)
			return fail(err, errlen, "bad CPU list '%s': CPU numbers are below %d", s,
				    EVT_MAX_CPUS);
		if (r < 0)
			break;
		for (; set && a <= b; a++)
			set[a / 8] |= (uint8_t)(1U << (a % 8));
		if (*p == '\0')
			return 0;
		if (*p != ',')
			break;
		p++;
	}
	return fail(err, errlen, "bad CPU list '%s' (want \"all\" or a list like 0-3,6)", s);
}

int evt_cpulist_parse(const char *s, uint8_t *set, char *err, size_t errlen)
{
	if (set)
		memset(set, 0, EVT_CPUSET_BYTES);
	if (parse(s, set, err, errlen) == 0)
		return 0;
	/* A refused list selects nothing, not the part before the error. */
	if (set)
		memset(set, 0, EVT_CPUSET_BYTES);
	return -1;
}
