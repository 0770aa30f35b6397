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
#include <evtrace/events.h>
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

const char *evt_uuid_parse(const char *s, uint8_t *u)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		unsigned int x;

		if (*s == '-' && (i == 4 || i == 6 || i == 8 || i == 10))
			s++;
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    sscanf(s, "%2x", &x) != 1)
			return NULL;
		u[i] = (uint8_t)x;
		s += 2;
	}
	return s;
}

/* 1-based line of @p in @text. */
static unsigned int line_of(const char *text, const char *p)
{
	unsigned int n = 1;

	for (; text < p; text++)
		n += *text == '\n';
	return n;
}

/*
 * Until the decoder builds its layouts from the metadata, the metadata's
 * type aliases, stream and event declarations must be this build's,
 * byte for byte (they are everything but the trace, env and clock blocks,
 * which are parsed): a trace whose events differ is refused, not decoded
 * wrongly under this build's names and layouts. 0, or -1 with @err.
 */
static int same_layouts(const char *text, size_t len, char *err, size_t errlen)
{
	static const char tail_mark[] = "\ntypealias integer { size = 27;";
	const struct evt_meta_params p = { .hostname = "", .kernel_release = "", .tracer_version = "" };
	unsigned long need = evt_meta_render(NULL, 0, &p);
	char *ref = malloc(need + 1);
	const char *head_end, *tail, *mine;
	size_t head_len, tail_len, i;
	int ret = -1;

	if (!ref) {
		evt_errf(err, errlen, "out of memory");
		return -1;
	}
	evt_meta_render(ref, need + 1, &p);
	head_end = strstr(ref, "trace {");
	tail = strstr(ref, tail_mark);
	head_len = (size_t)(head_end - ref);
	tail_len = need - (size_t)(tail - ref);
	for (i = 0; i < head_len && i < len && text[i] == ref[i]; i++)
		;
	if (i < head_len) {
		evt_errf(err, errlen, "line %u differs from the type aliases this build knows: "
			 "it reads the event layouts of its own version", line_of(text, text + i));
		goto out;
	}
	/* The trace block's packet header, from its byte order to the block's end. */
	{
		const char *ph = strstr(ref, "\tbyte_order = le;");
		const char *pe = ph ? strstr(ph, "\n};\n") : NULL;

		if (!pe || !memmem(text, len, ph, (size_t)(pe - ph) + 4)) {
			evt_errf(err, errlen, "the trace block's packet header is not the one this "
				 "build knows: it reads the layouts of its own version");
			goto out;
		}
	}
	mine = len >= tail_len ? text + len - tail_len : NULL;
	if (!mine || memcmp(mine, tail, tail_len)) {
		/* Where the text's streams and events start to differ. */
		const char *t = memmem(text, len, tail_mark, sizeof(tail_mark) - 1);
		size_t j = 0;

		if (t)
			while (t + j < text + len && j < tail_len && t[j] == tail[j])
				j++;
		if (t)
			evt_errf(err, errlen, "line %u differs from the streams and events this build "
				 "knows: it reads the event layouts of its own version",
				 line_of(text, t + j));
		else
			evt_errf(err, errlen, "no stream and event declarations as evtrace writes them");
		goto out;
	}
	ret = 0;
out:
	free(ref);
	return ret;
}

/* The trace block's @key must be @want: 0, or -1 with @err. */
static int trace_key(const char *b, const char *e, const char *key, const char *want,
		     const char *why, char *err, size_t errlen)
{
	char val[128];

	if (find_assign(b, e, key, val, sizeof(val))) {
		evt_errf(err, errlen, "the trace block has no %s", key);
		return -1;
	}
	if (strcmp(val, want)) {
		evt_errf(err, errlen, "trace %s = %s: %s", key, val, why);
		return -1;
	}
	return 0;
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
	/* Another tracer's CTF: say so first, it is the likeliest case. */
	{
		const char *name = find_block(s, "env", &b, &e) ? "missing: no env block" :
				   find_assign(b, e, "tracer_name", val, sizeof(val)) ? "missing" : val;

		if (name != val || strcmp(val, "\"evtrace\"")) {
			evt_errf(err, errlen, "not an evtrace trace (env.tracer_name is %s): evcat reads "
				 "the traces evtrace writes; babeltrace2 reads other CTF traces", name);
			goto out;
		}
	}
	if (find_block(s, "trace", &b, &e)) {
		evt_errf(err, errlen, "no trace block");
		goto out;
	}
	if (trace_key(b, e, "major", "1", "evcat reads CTF 1.8", err, errlen) ||
	    trace_key(b, e, "minor", "8", "evcat reads CTF 1.8", err, errlen) ||
	    trace_key(b, e, "byte_order", "le", "evcat reads little-endian traces", err, errlen))
		goto out;
	if (find_block(s, "clock", &b, &e)) {
		evt_errf(err, errlen, "no clock block: event times cannot be read");
		goto out;
	}
	if (same_layouts(text, len, err, errlen))
		goto out;
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
		const char *end = val[0] == '"' ? evt_uuid_parse(val + 1, md->uuid) : NULL;

		if (!end || *end != '"') {
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

