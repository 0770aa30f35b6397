// SPDX-License-Identifier: GPL-2.0
/*
 * Event printing: see evt_format.h. Numbers and times are formatted by hand
 * (no printf on the per-event path).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "evt_format.h"

int evt_out_init(struct evt_out *o, int fd, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->cap = cap < 4096 ? 4096 : cap;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -1;
}

int evt_out_flush(struct evt_out *o)
{
	size_t off = 0;

	if (o->err)
		return -1;
	while (off < o->len) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->err = n < 0 ? errno : EIO;
			return -1;
		}
		off += (size_t)n;
	}
	o->len = 0;
	return 0;
}

void evt_out_free(struct evt_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

char *evt_out_room(struct evt_out *o, size_t n)
{
	if (o->cap - o->len >= n)
		return o->buf + o->len;
	if (evt_out_flush(o))
		return NULL;
	if (o->cap < n) {
		char *b = realloc(o->buf, n);

		if (!b) {
			o->err = ENOMEM;
			return NULL;
		}
		o->buf = b;
		o->cap = n;
	}
	return o->buf;
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t evt_fmt_u64(char *out, uint64_t v)
{
	char tmp[20];
	char *p = tmp + 20;
	size_t n;

	while (v >= 100) {
		unsigned int d = (unsigned int)(v % 100) * 2;

		v /= 100;
		p -= 2;
		p[0] = digits2[d];
		p[1] = digits2[d + 1];
	}
	if (v >= 10) {
		p -= 2;
		p[0] = digits2[v * 2];
		p[1] = digits2[v * 2 + 1];
	} else {
		*--p = (char)('0' + v);
	}
	n = (size_t)(tmp + 20 - p);
	memcpy(out, p, n);
	return n;
}

/* Exactly 9 digits. */
static inline void put9(char *out, uint32_t v)
{
	unsigned int a = v / 10000000, b = (v / 100000) % 100, c = (v / 1000) % 100,
		     d = (v / 10) % 100, e = v % 10;

	out[0] = digits2[a * 2];
	out[1] = digits2[a * 2 + 1];
	out[2] = digits2[b * 2];
	out[3] = digits2[b * 2 + 1];
	out[4] = digits2[c * 2];
	out[5] = digits2[c * 2 + 1];
	out[6] = digits2[d * 2];
	out[7] = digits2[d * 2 + 1];
	out[8] = (char)('0' + e);
}

static size_t fmt_sec(char *out, uint64_t sec, int with_date)
{
	struct tm tm;
	time_t t = (time_t)sec;
	char *p = out;

	gmtime_r(&t, &tm);
	if (with_date) {
		p += evt_fmt_u64(p, (uint64_t)tm.tm_year + 1900);
		*p++ = '-';
		memcpy(p, digits2 + (tm.tm_mon + 1) * 2, 2);
		p += 2;
		*p++ = '-';
		memcpy(p, digits2 + tm.tm_mday * 2, 2);
		p += 2;
		*p++ = 'T';
	}
	memcpy(p, digits2 + tm.tm_hour * 2, 2);
	p[2] = ':';
	memcpy(p + 3, digits2 + tm.tm_min * 2, 2);
	p[5] = ':';
	memcpy(p + 6, digits2 + tm.tm_sec * 2, 2);
	return (size_t)(p + 8 - out);
}

size_t evt_fmt_clock(char *out, uint64_t realtime_ns, int with_date)
{
	size_t n = fmt_sec(out, realtime_ns / 1000000000ULL, with_date);

	out[n] = '.';
	put9(out + n + 1, (uint32_t)(realtime_ns % 1000000000ULL));
	out[n + 10] = 0;
	return n + 10;
}

void evt_fmt_init(struct evt_fmt *f, enum evt_fmt_kind kind, uint64_t offset_ns)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->offset_ns = offset_ns;
}

static inline char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}
#define PUTS(p, lit) put(p, lit, sizeof(lit) - 1)

static inline uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Upper case, as babeltrace2 prints. */
static char *put_hex(char *p, uint64_t v)
{
	static const char hx[] = "0123456789ABCDEF";
	char tmp[16];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = hx[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return p + evt_fmt_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return p + evt_fmt_u64(p, (uint64_t)v);
}

/* A quoted string, escaped for text (babeltrace2 prints strings as they are) or JSON. */
static char *put_str(char *p, const uint8_t *s, unsigned int n, int json)
{
	static const char hx[] = "0123456789abcdef";
	unsigned int i;

	*p++ = '"';
	for (i = 0; i < n; i++) {
		uint8_t c = s[i];

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c == '\n') {
			p = PUTS(p, "\\n");
		} else if (c == '\t') {
			p = PUTS(p, "\\t");
		} else if (c < 0x20 || c == 0x7f || (json && c >= 0x80)) {
			/* JSON: bytes, not UTF-8: \u00XX keeps every line valid. */
			p = json ? PUTS(p, "\\u00") : PUTS(p, "\\x");
			*p++ = hx[c >> 4];
			*p++ = hx[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	return p;
}

/* Bytes one line can take at most. */
static size_t line_bound(const struct evt_event_desc *d, uint32_t len)
{
	size_t n = 192 + strlen(d->name);
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++)
		n += 2 * strlen(d->fields[i].name) + 48;
	return n + (size_t)len * 16;
}

/* The fields, walked like evt_decode's walk_fields (payload already checked). */
static char *put_fields(char *p, const struct evt_event_desc *d, const uint8_t *pl, uint32_t avail,
			int json)
{
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		size_t a = 1, sz = 0, nl = strlen(f->name);

		switch (f->type) {
		case EVT_F_U8: sz = 1; break;
		case EVT_F_U16: sz = 2; a = 2; break;
		case EVT_F_U32: case EVT_F_S32: sz = 4; a = 4; break;
		case EVT_F_U64: case EVT_F_S64: case EVT_F_X64: sz = 8; a = 4; break;
		case EVT_F_STRING: break;
		case EVT_F_SEQ_U8: sz = 2; a = 2; break;
#ifdef EVT_MARKER_MAX	/* the catalogue that has char[16] comm fields */
		case EVT_F_COMM: sz = 16; break;
#endif
		}
		off = (off + a - 1) & ~(a - 1);
		if (off > avail || avail - off < sz)
			break;		/* cannot happen for a decoded event */
		if (i)
			*p++ = ',';
		if (json) {
			*p++ = '"';
			p = put(p, f->name, nl);
			*p++ = '"';
			*p++ = ':';
		} else {
			*p++ = ' ';
			if (f->type != EVT_F_SEQ_U8) {
				p = put(p, f->name, nl);
				p = PUTS(p, " = ");
			}
		}
		switch (f->type) {
		case EVT_F_U8: p += evt_fmt_u64(p, pl[off]); break;
		case EVT_F_U16: p += evt_fmt_u64(p, ld16(pl + off)); break;
		case EVT_F_U32: p += evt_fmt_u64(p, ld32(pl + off)); break;
		case EVT_F_U64: p += evt_fmt_u64(p, ld64(pl + off)); break;
		case EVT_F_S32: p = put_s64(p, (int32_t)ld32(pl + off)); break;
		case EVT_F_S64: p = put_s64(p, (int64_t)ld64(pl + off)); break;
		case EVT_F_X64:
			if (json)
				*p++ = '"';
			p = put_hex(p, ld64(pl + off));
			if (json)
				*p++ = '"';
			break;
		case EVT_F_STRING: {
			const uint8_t *nul = memchr(pl + off, 0, avail - off);
			unsigned int n = nul ? (unsigned int)(nul - (pl + off)) : avail - (unsigned int)off;

			p = put_str(p, pl + off, n, json);
			sz = (size_t)n + 1;
			break;
		}
#ifdef EVT_MARKER_MAX
		case EVT_F_COMM:
			/* char[16], NUL-padded: a string, as babeltrace2 shows it. */
			p = put_str(p, pl + off, (unsigned int)strnlen((const char *)pl + off, 16), json);
			break;
#endif
		case EVT_F_SEQ_U8: {
			unsigned int n = ld16(pl + off), j;

			if (avail - off - 2 < n)
				n = avail - (unsigned int)off - 2;
			if (json) {
				*p++ = '[';
				for (j = 0; j < n; j++) {
					if (j)
						*p++ = ',';
					p += evt_fmt_u64(p, pl[off + 2 + j]);
				}
				*p++ = ']';
			} else {
				/* babeltrace2: fill_len = 2, fill = [ [0] = 7, [1] = 7 ] */
				p = put(p, f->name, nl);
				p = PUTS(p, "_len = ");
				p += evt_fmt_u64(p, n);
				p = PUTS(p, ", ");
				p = put(p, f->name, nl);
				p = PUTS(p, " = [");
				for (j = 0; j < n; j++) {
					p = PUTS(p, " [");
					p += evt_fmt_u64(p, j);
					p = PUTS(p, "] = ");
					p += evt_fmt_u64(p, pl[off + 2 + j]);
					if (j + 1 < n)
						*p++ = ',';
				}
				p = PUTS(p, " ]");
			}
			sz = 2 + (size_t)n;
			break;
		}
		}
		off += sz;
	}
	return p;
}

int evt_fmt_event(struct evt_fmt *f, struct evt_out *o, uint64_t ts, uint32_t cpu,
		  const struct evt_event_desc *d, const uint8_t *payload, uint32_t len,
		  unsigned int flags)
{
	uint64_t rt = ts + f->offset_ns, sec = rt / 1000000000ULL;
	uint32_t ns = (uint32_t)(rt - sec * 1000000000ULL);
	const int json = f->kind == EVT_FMT_JSON;
	char *p0 = evt_out_room(o, line_bound(d, len)), *p = p0;

	if (!p)
		return -1;
	if (!f->have_cached || sec != f->cached_sec) {
		f->cached_len = fmt_sec(f->cached, sec, json);
		f->cached_sec = sec;
		f->have_cached = 1;
	}
	if (json) {
		p = PUTS(p, "{\"ts\":");
		p += evt_fmt_u64(p, ts);
		p = PUTS(p, ",\"time\":\"");
		p = put(p, f->cached, f->cached_len);
		*p++ = '.';
		put9(p, ns);
		p += 9;
		p = PUTS(p, "Z\",\"cpu\":");
		p += evt_fmt_u64(p, cpu);
		p = PUTS(p, ",\"event\":\"");
		p = put(p, d->name, strlen(d->name));
		p = PUTS(p, "\",\"fields\":{");
		p = put_fields(p, d, payload, len, 1);
		*p++ = '}';
		if (flags & EVT_FMT_LATE)
			p = PUTS(p, ",\"late\":true");
		p = PUTS(p, "}\n");
	} else {
		*p++ = '[';
		p = put(p, f->cached, f->cached_len);
		*p++ = '.';
		put9(p, ns);
		p += 9;
		p = PUTS(p, "] (");
		if (!f->have_prev) {
			p = PUTS(p, "+?.?????????");
		} else {
			uint64_t dt = ts - f->prev_ts;

			if (ts < f->prev_ts) {
				*p++ = '-';
				dt = f->prev_ts - ts;
			} else {
				*p++ = '+';
			}
			p += evt_fmt_u64(p, dt / 1000000000ULL);
			*p++ = '.';
			put9(p, (uint32_t)(dt % 1000000000ULL));
			p += 9;
		}
		p = PUTS(p, ") cpu ");
		p += evt_fmt_u64(p, cpu);
		*p++ = ' ';
		p = put(p, d->name, strlen(d->name));
		p = PUTS(p, ": {");
		p = put_fields(p, d, payload, len, 0);
		p = PUTS(p, " }");
		if (flags & EVT_FMT_LATE)
			p = PUTS(p, " (late)");
		*p++ = '\n';
	}
	f->prev_ts = ts;
	f->have_prev = 1;
	o->len += (size_t)(p - p0);
	return 0;
}
