// SPDX-License-Identifier: GPL-2.0
/*
 * CTF metadata: reading the text and parsing what the reader checks; see
 * evt_metadata.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "evt_metadata.h"
#include "evt_io.h"

int evt_metadata_read(int fd, char **textp, size_t *lenp, char *err, size_t errlen)
{
	size_t len = 0, cap = 16384;
	char *text = malloc(cap + 1);

	if (!text) {
		evt_errf(err, errlen, "out of memory");
		return -1;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *bigger;

			/* Room for one byte past the limit: a text of exactly the limit passes. */
			if (len > EVT_METADATA_MAX) {
				evt_errf(err, errlen, "metadata larger than %d MiB", EVT_METADATA_MAX >> 20);
				free(text);
				return -1;
			}
			cap = cap * 2 > EVT_METADATA_MAX ? EVT_METADATA_MAX + 1 : cap * 2;
			bigger = realloc(text, cap + 1);
			if (!bigger) {
				evt_errf(err, errlen, "out of memory");
				free(text);
				return -1;
			}
			text = bigger;
		}
		n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			evt_errf(err, errlen, "read: %s", strerror(errno));
			free(text);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	text[len] = 0;
	*textp = text;
	*lenp = len;
	return 0;
}

/* Copy of @text without comments; strings kept. */
static char *strip_comments(const char *text, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	size_t i = 0;

	if (!out)
		return NULL;
	while (i < len) {
		if (text[i] == '"') {
			*o++ = text[i++];
			while (i < len && text[i] != '"') {
				if (text[i] == '\\' && i + 1 < len)
					*o++ = text[i++];
				*o++ = text[i++];
			}
			if (i < len)
				*o++ = text[i++];
		} else if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
			const char *e = NULL;
			size_t j;

			for (j = i + 2; j + 1 < len; j++)
				if (text[j] == '*' && text[j + 1] == '/') {
					e = text + j;
					break;
				}
			i = e ? (size_t)(e - text) + 2 : len;
			*o++ = ' ';
		} else if (text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
			while (i < len && text[i] != '\n')
				i++;
		} else {
			*o++ = text[i++];
		}
	}
	*o = 0;
	return out;
}

/* Body [*b, *e) of the top-level block named @name ("clock", "trace"). */
static int find_block(const char *s, const char *name, const char **b, const char **e)
{
	size_t nl = strlen(name);
	int depth = 0;
	const char *p;

	for (p = s; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return -1;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}') {
			depth--;
		} else if (depth == 0 && !strncmp(p, name, nl) &&
			   (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
			   !(isalnum((unsigned char)p[nl]) || p[nl] == '_')) {
			const char *q = p + nl;
			int d = 1;

			while (isspace((unsigned char)*q))
				q++;
			if (*q != '{')
				continue;
			*b = ++q;
			for (; *q && d; q++) {
				if (*q == '"') {
					for (q++; *q && *q != '"'; q++)
						if (*q == '\\' && q[1])
							q++;
					if (!*q)
						return -1;
				} else if (*q == '{') {
					d++;
				} else if (*q == '}') {
					d--;
				}
			}
			if (d)
				return -1;
			*e = q - 1;
			return 0;
		}
	}
	return -1;
}

/* Value text of `key = value;` at the top level of [b, e): 0 or -1. */
static int find_assign(const char *b, const char *e, const char *key, char *val, size_t vlen)
{
	size_t kl = strlen(key);
	int depth = 0;
	const char *p;

	for (p = b; p < e; p++) {
		if (*p == '"') {
			for (p++; p < e && *p != '"'; p++)
				if (*p == '\\')
					p++;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}') {
			depth--;
		} else if (depth == 0 && (size_t)(e - p) > kl && !strncmp(p, key, kl) &&
			   (p == b || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
			   !(isalnum((unsigned char)p[kl]) || p[kl] == '_')) {
			const char *q = p + kl, *v;
			size_t n;

			while (q < e && isspace((unsigned char)*q))
				q++;
			if (q >= e || *q != '=')
				continue;
			q++;
			while (q < e && isspace((unsigned char)*q))
				q++;
			v = q;
			while (q < e && *q != ';')
				q++;
			if (q >= e)
				return -1;
			while (q > v && isspace((unsigned char)q[-1]))
				q--;
			n = (size_t)(q - v);
			if (n >= vlen)
				return -1;
			memcpy(val, v, n);
			val[n] = 0;
			return 0;
		}
	}
	return -1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_uuid(const char *s, uint8_t *u)
{
	unsigned int i, n = 0;

	if (*s++ != '"')
		return -1;
	for (i = 0; i < 16; i++) {
		unsigned int x;

		if (*s == '-' && (n == 4 || n == 6 || n == 8 || n == 10))
			s++;
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    sscanf(s, "%2x", &x) != 1)
			return -1;
		u[i] = (uint8_t)x;
		s += 2;
		n++;
	}
	return *s == '"' ? 0 : -1;
}

int evt_metadata_parse(const char *text, size_t len, struct evt_metadata *md,
		       char *err, size_t errlen)
{
	char *s, val[128];
	const char *b, *e;
	int ret = -1;

	if (len >= 4 && !memcmp(text, "\x57\x1d\xd1\x75", 4)) {
		evt_errf(err, errlen, "packetized metadata is not supported (evtrace writes plain text)");
		return -1;
	}
	if (len < 8 || memcmp(text, "/* CTF 1.8", 10 <= len ? 10 : len)) {
		evt_errf(err, errlen, "not CTF 1.8 plain-text metadata (no \"/* CTF 1.8\" at the start)");
		return -1;
	}
	if (memchr(text, 0, len)) {
		evt_errf(err, errlen, "NUL byte in the metadata text");
		return -1;
	}
	s = strip_comments(text, len);
	if (!s) {
		evt_errf(err, errlen, "out of memory");
		return -1;
	}
	md->has_clock = 0;
	md->clock_offset_s = 0;
	md->clock_offset_ns = 0;
	if (find_block(s, "clock", &b, &e) == 0) {
		md->has_clock = 1;
		if (find_assign(b, e, "offset_s", val, sizeof(val)) == 0 &&
		    parse_u64(val, &md->clock_offset_s)) {
			evt_errf(err, errlen, "clock offset_s \"%s\" is not a number", val);
			goto out;
		}
		if (find_assign(b, e, "offset", val, sizeof(val)) == 0 &&
		    parse_u64(val, &md->clock_offset_ns)) {
			evt_errf(err, errlen, "clock offset \"%s\" is not a number", val);
			goto out;
		}
		/* Clock values and the offset add up in 64 bits of ns: refuse what wraps. */
		if (md->clock_offset_s > (UINT64_MAX - md->clock_offset_ns) / 1000000000ULL) {
			evt_errf(err, errlen, "clock offset_s %llu + offset %llu ns is beyond 2^64 ns",
				 (unsigned long long)md->clock_offset_s,
				 (unsigned long long)md->clock_offset_ns);
			goto out;
		}
		if (find_assign(b, e, "freq", val, sizeof(val)) == 0) {
			uint64_t f;

			if (parse_u64(val, &f) || f != 1000000000ULL) {
				evt_errf(err, errlen, "clock freq %s: only 1000000000 (ns) is supported", val);
				goto out;
			}
		}
	}
	md->has_uuid = 0;
	if (find_block(s, "trace", &b, &e) == 0 &&
	    find_assign(b, e, "uuid", val, sizeof(val)) == 0) {
		if (parse_uuid(val, md->uuid)) {
			evt_errf(err, errlen, "trace uuid %s is malformed", val);
			goto out;
		}
		md->has_uuid = 1;
	}
	ret = 0;
out:
	free(s);
	return ret;
}

