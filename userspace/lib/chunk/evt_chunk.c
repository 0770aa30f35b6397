// SPDX-License-Identifier: GPL-2.0
/* Chunk names and rotation units. See evt_chunk.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "chunk/evt_chunk.h"

#define NS_PER_S	1000000000ULL
#define TIME_LEN	23	/* 20261125T211500.123456Z */

void evt_chunk_time(char *buf, size_t len, uint64_t ns)
{
	time_t secs = (time_t)(ns / NS_PER_S);
	struct tm tm;

	if (!gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%04d%02d%02dT%02d%02d%02d.%06uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned int)(ns % NS_PER_S / 1000));
}

void evt_chunk_iso_time(char *buf, size_t len, uint64_t ns, int nanoseconds)
{
	time_t secs = (time_t)(ns / NS_PER_S);
	struct tm tm;

	if (!gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	if (nanoseconds)
		snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned int)(ns % NS_PER_S));
	else
		snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06u", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned int)(ns % NS_PER_S / 1000));
}

int evt_chunk_name(char *buf, size_t len, uint64_t begin_ns, uint64_t end_ns, uint64_t seq)
{
	char b[32], e[32];
	int n;

	evt_chunk_time(b, sizeof(b), begin_ns);
	evt_chunk_time(e, sizeof(e), end_ns);
	n = snprintf(buf, len, "%s-%s-%llu", b, e, (unsigned long long)seq);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Exactly @n digits at @s: their value, or -1. */
static long digits(const char *s, int n)
{
	long v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* One time of a chunk name, TIME_LEN characters at @s: 0 with *@ns, else -1. */
static int parse_time(const char *s, uint64_t *ns)
{
	struct tm tm = { 0 };
	long y = digits(s, 4), mo = digits(s + 4, 2), d = digits(s + 6, 2);
	long h = digits(s + 9, 2), mi = digits(s + 11, 2), sec = digits(s + 13, 2), us = digits(s + 16, 6);
	time_t t;

	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    sec < 0 || sec > 60 || us < 0 || s[8] != 'T' || s[15] != '.' || s[22] != 'Z')
		return -1;
	tm.tm_year = (int)(y - 1900);
	tm.tm_mon = (int)(mo - 1);
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)sec;
	t = timegm(&tm);
	if (t < 0)
		return -1;
	*ns = (uint64_t)t * NS_PER_S + (uint64_t)us * 1000;
	return 0;
}

/* A sequence number in decimal, no leading zero, to the end of @s. */
static int parse_seq(const char *s, uint64_t *seq)
{
	char *end;

	if (!isdigit((unsigned char)*s) || (s[0] == '0' && s[1]) || strlen(s) > 20)
		return -1;
	errno = 0;
	*seq = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int evt_chunk_parse(const char *name, uint64_t *begin_ns, uint64_t *end_ns, uint64_t *seq)
{
	if (strlen(name) < 2 * TIME_LEN + 3 || name[TIME_LEN] != '-' || name[2 * TIME_LEN + 1] != '-')
		return -1;
	if (parse_time(name, begin_ns) || parse_time(name + TIME_LEN + 1, end_ns) || *end_ns < *begin_ns)
		return -1;
	return parse_seq(name + 2 * TIME_LEN + 2, seq);
}

int evt_chunk_like(const char *name)
{
	uint64_t b, e;

	return strlen(name) >= 2 * TIME_LEN + 2 && name[TIME_LEN] == '-' && name[2 * TIME_LEN + 1] == '-' &&
	       !parse_time(name, &b) && !parse_time(name + TIME_LEN + 1, &e);
}

int evt_chunk_parse_hidden(const char *name, const char *prefix, uint64_t *seq)
{
	size_t l = strlen(prefix);

	return strncmp(name, prefix, l) ? -1 : parse_seq(name + l, seq);
}

