// SPDX-License-Identifier: GPL-2.0
/*
 * CTF metadata: reading the text and parsing what the reader checks; see
 * evt_metadata.h.
 */
#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <evtrace/events.h>
#include "ctf/evt_metadata.h"
#include "util/evt_io.h"
#include "ctf/evt_tsdl.h"
#include "ctf/evt_decode.h"

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

/* The events and the tables of a metadata that are not this build's. */
struct evt_metadata_own {
	struct evt_tsdl tsdl;
	struct evt_catalogue cat;
};

/*
 * This build's metadata, parsed: the layouts a trace's must have; and the
 * same with evtrace 0.1's compact event header, which had no wide kind.
 */
static struct evt_tsdl reference, reference_0_1;
static pthread_once_t reference_once = PTHREAD_ONCE_INIT;

static const char compact_header_0_1[] =
	"struct event_header_compact {\n"
	"\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
	"\tvariant <id> {\n"
	"\t\tstruct { uint27_clock_monotonic_t timestamp; } compact;\n"
	"\t\tstruct { uint32_t id; uint64a32_clock_monotonic_t timestamp; } extended;\n"
	"\t} v;\n"
	"} align(32);";

static void reference_abort(const char *what, const char *err)
{
	fprintf(stderr, "evtrace: this build's metadata %s: %s\n", what, err);
	abort();
}

static void reference_parse(void)
{
	const struct evt_meta_params p = { .hostname = "", .kernel_release = "", .tracer_version = "" };
	unsigned long need = evt_meta_render(NULL, 0, &p);
	char *text = malloc(need + 1), *old, *events, err[256];
	const char *b, *e;

	if (!text)
		reference_abort("", "out of memory");
	evt_meta_render(text, need + 1, &p);
	/* The layouts only: the event blocks (most of the text) are not needed. */
	events = strstr(text, "\nevent {");
	if (events) {
		events[1] = '\0';
		need = (unsigned long)(events + 1 - text);
	}
	if (evt_tsdl_parse(text, need, &reference, err, sizeof(err)))
		reference_abort("does not parse", err);
	/* The same text with 0.1's compact header in place of this build's. */
	b = strstr(text, "struct event_header_compact {");
	e = b ? strstr(b, "} align(32);") : NULL;
	if (!e)
		reference_abort("has no compact event header", "struct event_header_compact");
	e += strlen("} align(32);");
	old = malloc(need + sizeof(compact_header_0_1));
	if (!old)
		reference_abort("", "out of memory");
	sprintf(old, "%.*s%s%s", (int)(b - text), text, compact_header_0_1, e);
	if (evt_tsdl_parse(old, strlen(old), &reference_0_1, err, sizeof(err)))
		reference_abort("with 0.1's compact header does not parse", err);
	free(old);
	free(text);
}

/*
 * @what (a struct of the trace's metadata) must be @ref: 0, or -1 with
 * @err naming the first field that differs and its line.
 */
static int same_struct(const char *what, const struct evt_tsdl_type *t, const struct evt_tsdl_type *ref,
		       char *err, size_t errlen)
{
	unsigned int i;

	if (evt_tsdl_type_same(t, ref))
		return 0;
	for (i = 0; i < t->nr_fields && i < ref->nr_fields; i++) {
		const struct evt_tsdl_field *f = &t->fields[i], *r = &ref->fields[i];

		if (strcmp(f->name, r->name) || f->is_array != r->is_array ||
		    f->array_len != r->array_len || !evt_tsdl_type_same(&f->type, &r->type)) {
			char why[128];

			if (strcmp(f->name, r->name))
				snprintf(why, sizeof(why), "evtrace's has %s there", r->name);
			else
				snprintf(why, sizeof(why), "its type differs");
			evt_errf(err, errlen, "line %u: field %s of the %s is not evtrace's (%s): evcat "
				 "reads evtrace's %s only", f->line, f->name, what, why, what);
			return -1;
		}
	}
	if (t->nr_fields != ref->nr_fields)
		evt_errf(err, errlen, "the %s has %u fields, evtrace's has %u: evcat reads evtrace's %s only",
			 what, t->nr_fields, ref->nr_fields, what);
	else
		evt_errf(err, errlen, "the %s is not evtrace's (its alignment): evcat reads evtrace's %s only",
			 what, what);
	return -1;
}

/*
 * What the decoder does not take from the metadata must be evtrace's: the
 * packet header, the streams (0 compact, 1 normal), their packet contexts
 * and event headers (the compact one this build's or 0.1's: *@wide_id
 * says which, as evt_catalogue_init() takes it). 0, or -1 with @err.
 */
static int check_layouts(const struct evt_tsdl *m, unsigned int *wide_id, char *err, size_t errlen)
{
	unsigned int i, j;

	*wide_id = EVT_COMPACT_ID_WIDE;
	pthread_once(&reference_once, reference_parse);
	if (same_struct("packet header", &m->packet_header, &reference.packet_header, err, errlen))
		return -1;
	for (i = 0; i < m->nr_streams; i++) {
		const struct evt_tsdl_stream *st = &m->streams[i], *ref = NULL;
		char what[64];

		for (j = 0; j < i; j++)
			if (m->streams[j].id == st->id) {
				evt_errf(err, errlen, "line %u: stream %llu is declared twice", st->line,
					 (unsigned long long)st->id);
				return -1;
			}
		for (j = 0; j < reference.nr_streams; j++)
			if (reference.streams[j].id == st->id)
				ref = &reference.streams[j];
		if (!ref) {
			evt_errf(err, errlen, "line %u: stream %llu: evcat reads evtrace's streams 0 "
				 "(compact) and 1 (normal) only", st->line, (unsigned long long)st->id);
			return -1;
		}
		snprintf(what, sizeof(what), "stream %llu event header", (unsigned long long)st->id);
		if (st->id == EVT_CHAN_COMPACT &&
		    evt_tsdl_type_same(&st->event_header, &reference_0_1.streams[ref - reference.streams].event_header))
			*wide_id = EVT_COMPACT_NO_WIDE;
		else if (same_struct(what, &st->event_header, &ref->event_header, err, errlen))
			return -1;
		snprintf(what, sizeof(what), "stream %llu packet context", (unsigned long long)st->id);
		if (same_struct(what, &st->packet_context, &ref->packet_context, err, errlen))
			return -1;
	}
	for (i = 0; i < m->nr_events; i++) {
		for (j = 0; j < m->nr_streams; j++)
			if (m->streams[j].id == m->events[i].channel)
				break;
		if (j == m->nr_streams) {
			evt_errf(err, errlen, "line %u: event %s: its stream %u is not declared",
				 m->event_lines[i], m->events[i].name, m->events[i].channel);
			return -1;
		}
	}
	if (!m->nr_events) {
		evt_errf(err, errlen, "no event is declared");
		return -1;
	}
	return 0;
}

void evt_metadata_free(struct evt_metadata *md)
{
	if (md->own) {
		evt_tsdl_free(&md->own->tsdl);
		free(md->own);
	}
	md->own = NULL;
	md->cat = NULL;
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
	struct evt_metadata_own *own = NULL;
	const struct evt_tsdl *m;
	unsigned int wide_id;
	char *s, val[256];
	const char *b, *e;
	int ret = -1;

	memset(md, 0, sizeof(*md));

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
	/*
	 * Another tracer's CTF: say so first, it is the likeliest case. These
	 * few keys are looked up in the text before the TSDL is parsed: the
	 * parser stops at the first construct evtrace does not write (a float,
	 * a callsite), which says less than "not an evtrace trace".
	 */
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
	own = calloc(1, sizeof(*own));
	if (!own) {
		evt_errf(err, errlen, "out of memory");
		goto out;
	}
	if (evt_tsdl_parse(text, len, &own->tsdl, err, errlen) ||
	    check_layouts(&own->tsdl, &wide_id, err, errlen))
		goto out;
	m = &own->tsdl;
	if (!m->has_uuid) {
		evt_errf(err, errlen, "the trace block has no uuid");
		goto out;
	}
	memcpy(md->uuid, m->uuid, 16);
	md->has_uuid = 1;
	if (m->clock_freq != 1000000000ULL) {
		evt_errf(err, errlen, "clock freq %llu: only 1000000000 (ns) is supported",
			 (unsigned long long)m->clock_freq);
		goto out;
	}
	/* Clock values and the offset add up in 64 bits of ns: refuse what wraps. */
	if (m->clock_offset_s > (UINT64_MAX - m->clock_offset) / 1000000000ULL) {
		evt_errf(err, errlen, "clock offset_s %llu + offset %llu ns is beyond 2^64 ns",
			 (unsigned long long)m->clock_offset_s, (unsigned long long)m->clock_offset);
		goto out;
	}
	md->has_clock = 1;
	md->clock_offset_s = m->clock_offset_s;
	md->clock_offset_ns = m->clock_offset;
	if (evt_catalogue_init(&own->cat, m->events, m->nr_events, wide_id, val, sizeof(val))) {
		if (own->cat.bad >= 0)
			evt_errf(err, errlen, "line %u: %s", m->event_lines[own->cat.bad], val);
		else
			evt_errf(err, errlen, "%s", val);
		goto out;
	}
	if (evt_catalogue_same(&own->cat, evt_builtin)) {
		evt_tsdl_free(&own->tsdl);
		free(own);
		md->cat = evt_builtin;
	} else {
		md->own = own;
		md->cat = &own->cat;
	}
	own = NULL;
	ret = 0;
out:
	if (own) {
		evt_tsdl_free(&own->tsdl);
		free(own);
	}
	free(s);
	return ret;
}

