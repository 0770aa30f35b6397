// SPDX-License-Identifier: GPL-2.0
/*
 * Event printing: see evt_format.h. Numbers and times are formatted by hand
 * (no printf on the per-event path).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ctf/evt_decode.h"
#include "format/evt_digits.h"
#include "format/evt_format.h"
#include "format/evt_symbols.h"
#include "util/evt_esc.h"
#include "util/evt_io.h"

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
	if (o->err)
		return -1;
	if (evt_write_all(o->fd, o->buf, o->len)) {
		o->err = errno;
		return -1;
	}
	o->len = 0;
	return 0;
}

void evt_out_free(struct evt_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* The buffer at @cap bytes: 0, or -1 (o->err ENOMEM). */
static int out_resize(struct evt_out *o, size_t cap)
{
	char *b = realloc(o->buf, cap);

	if (!b) {
		o->err = ENOMEM;
		return -1;
	}
	o->buf = b;
	o->cap = cap;
	return 0;
}

char *evt_out_room(struct evt_out *o, size_t n)
{
	if (o->cap - o->len >= n)
		return o->buf + o->len;
	if (o->fd < 0)	/* in memory: grow */
		return out_resize(o, o->cap * 2 > o->len + n ? o->cap * 2 : o->len + n) ? NULL :
		       o->buf + o->len;
	if (evt_out_flush(o) || (o->cap < n && out_resize(o, n)))
		return NULL;
	return o->buf;
}

size_t evt_fmt_u64(char *out, uint64_t v)
{
	return (size_t)(put_u64(out, v) - out);
}

size_t evt_fmt_u64_wide(char *out, uint64_t v)
{
	return (size_t)(put_u64_wide(out, v) - out);
}

static size_t fmt_sec(char *out, uint64_t sec, int with_date)
{
	struct tm tm;
	time_t t = (time_t)sec;
	char *p = out;

	gmtime_r(&t, &tm);
	if (with_date) {
		p = put_u64(p, (uint64_t)tm.tm_year + 1900);
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

static inline char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}
#define PUTS(p, lit) put(p, lit, sizeof(lit) - 1)


/* A quoted string, escaped for text or JSON (put_esc). */
static char *put_str(char *p, const uint8_t *s, unsigned int n, int json)
{
	*p++ = '"';
	p = evt_put_esc(p, s, n, json ? EVT_ESC_JSON : EVT_ESC_TEXT);
	*p++ = '"';
	return p;
}

/*
 * A task's state as the kernel's letters (its report bits: 1 S, 2 D, 4 T,
 * 8 t, 16 X, 32 Z, 64 P, 128 I; 0: R, running or preempted), several
 * joined by '|'; bits beyond them as the number.
 */
static char *put_state(char *p, uint64_t v)
{
	static const char letters[] = "SDTtXZPI";
	unsigned int b, n = 0;

	if (!v) {
		*p++ = 'R';
		return p;
	}
	if (v >> 8)
		return put_u64(p, v);
	for (b = 0; b < 8; b++) {
		if (!(v & (1u << b)))
			continue;
		if (n++)
			*p++ = '|';
		*p++ = letters[b];
	}
	return p;
}

/* The @size-byte unsigned value at @v. */
static inline uint64_t ld_size(const uint8_t *v, size_t size)
{
	return size == 1 ? v[0] : size == 2 ? evt_ld16(v) : size == 4 ? evt_ld32(v) : evt_ld64(v);
}

/* sched_switch's prev_state, an unsigned integer: text prints it as letters. */
static int is_state(const struct evt_event_desc *d, const struct evt_field_desc *f)
{
	/* (The first letters first: put_fields() asks for every field of a line.) */
	return f->name[0] == 'p' && d->name[0] == 's' &&
	       (f->type == EVT_F_U8 || f->type == EVT_F_U16 || f->type == EVT_F_U32 || f->type == EVT_F_U64) &&
	       !strcmp(f->name, "prev_state") && !strcmp(d->name, "sched_switch");
}

/* Bytes one line can take at most (@syms: with function names for addresses). */
static size_t line_bound(const struct evt_event_desc *d, uint32_t len, int syms)
{
	size_t n = 192 + strlen(d->name) + (syms ? (size_t)len / 8 * (6 * EVT_FMT_SYM_MAX + 8) : 0);
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++)
		n += 2 * strlen(d->fields[i].name) + 48;
	return n + (size_t)len * 16;
}

/*
 * A sequence field of @n elements at @el: bytes, or with @x64 addresses
 * (64-bit, in hex). Text as babeltrace2 prints it (fill_len = 2, fill =
 * [ [0] = 7, [1] = 7 ]), JSON as an array (addresses as strings).
 */
static char *put_seq(char *p, const char *name, size_t nl, const uint8_t *el, unsigned int n, int x64,
		     int json)
{
	unsigned int j;

	if (json) {
		*p++ = '[';
	} else {
		p = put(p, name, nl);
		p = PUTS(p, "_len = ");
		p = put_u64(p, n);
		p = PUTS(p, ", ");
		p = put(p, name, nl);
		p = PUTS(p, " = [");
	}
	for (j = 0; j < n; j++) {
		if (json && j) {
			*p++ = ',';
		} else if (!json) {
			p = PUTS(p, " [");
			p = put_u64(p, j);
			p = PUTS(p, "] = ");
		}
		if (!x64) {
			p = put_u64(p, el[j]);
		} else {
			if (json)
				*p++ = '"';
			p = put_hex(p, evt_ld64(el + 8 * (size_t)j));
			if (json)
				*p++ = '"';
		}
		if (!json && j + 1 < n)
			*p++ = ',';
	}
	if (json)
		*p++ = ']';
	else
		p = PUTS(p, " ]");
	return p;
}

/* The fields, walked like evt_decode's walk_fields (payload already checked). */
static char *put_fields(char *p, const struct evt_event_desc *d, const uint8_t *pl, uint32_t avail,
			int json, const struct evt_symbols *syms)
{
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		size_t a = evt_field_align(f->type), sz = evt_field_size(f->type), nl = strlen(f->name);

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
			if (f->type != EVT_F_SEQ_U8 && f->type != EVT_F_SEQ_X64) {
				p = put(p, f->name, nl);
				p = PUTS(p, " = ");
			}
		}
		if (!json && is_state(d, f)) {
			p = put_state(p, ld_size(pl + off, sz));
			off += sz;
			continue;
		}
		switch (f->type) {
		case EVT_F_U8: p = put_u64(p, pl[off]); break;
		case EVT_F_U16: p = put_u64(p, evt_ld16(pl + off)); break;
		case EVT_F_U32: p = put_u64(p, evt_ld32(pl + off)); break;
		case EVT_F_U64: p = put_u64(p, evt_ld64(pl + off)); break;
		case EVT_F_S32: p = put_s64(p, (int32_t)evt_ld32(pl + off)); break;
		case EVT_F_S64: p = put_s64(p, (int64_t)evt_ld64(pl + off)); break;
		case EVT_F_X64: case EVT_F_X32:
			if (json)
				*p++ = '"';
			p = put_hex(p, f->type == EVT_F_X64 ? evt_ld64(pl + off) : evt_ld32(pl + off));
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
		case EVT_F_COMM:
			/* char[16], NUL-padded: a string, as babeltrace2 shows it. */
			p = put_str(p, pl + off, (unsigned int)strnlen((const char *)pl + off, 16), json);
			break;
		case EVT_F_SEQ_U8: {
			unsigned int n = evt_ld16(pl + off);

			if (avail - off - 2 < n)
				n = avail - (unsigned int)off - 2;
			p = put_seq(p, f->name, nl, pl + off + 2, n, 0, json);
			sz = 2 + (size_t)n;
			break;
		}
		case EVT_F_SEQ_X64: {
			unsigned int n = evt_ld32(pl + off), j;

			if ((avail - off - 4) / 8 < n)
				n = (unsigned int)((avail - off - 4) / 8);
			if (syms) {
				/* --stacks: function names, innermost first. */
				if (!json) {
					p = put(p, f->name, nl);
					p = PUTS(p, " = ");
				}
				*p++ = '[';
				for (j = 0; j < n; j++) {
					char name[EVT_FMT_SYM_MAX];

					evt_symbols_name(syms, evt_ld64(pl + off + 4 + 8 * j), 1, name, sizeof(name));
					if (j)
						p = PUTS(p, ", ");
					else if (!json)
						*p++ = ' ';
					p = put_str(p, (const uint8_t *)name, (unsigned int)strlen(name), json);
				}
				if (!json)
					*p++ = ' ';
				*p++ = ']';
			} else {
				p = put_seq(p, f->name, nl, pl + off + 4, n, 1, json);
			}
			sz = 4 + 8 * (size_t)n;
			break;
		}
		}
		off += sz;
	}
	return p;
}

/*
 * Per event: the text around its name and each field's prefix, ready to
 * copy, and each field's offset when the layout is fixed. Pieces are
 * copied whole (TPL bytes) and the output pointer moves by their length:
 * no strlen, no variable-length memcpy on the per-event path.
 */
#define TPL 48
struct ftmpl {
	char pre[TPL];
	uint8_t len;
	uint8_t type;		/* enum evt_field_type, or FT_STATE */
	uint16_t off;
	uint8_t sz;		/* FT_STATE: the field's size */
};

/* Text only: sched_switch's prev_state, printed as the kernel's letters. */
#define FT_STATE 0xff

struct evt_fmt_tmpl {
	char head[TPL + 16];
	uint8_t head_len;
	uint8_t head_split;	/* where a syscall's name goes in the head (JSON: before "fields") */
	uint8_t fast;		/* fixed layout, every piece fits */
	uint16_t nf;
	size_t bound;		/* line bytes at most, slack included (fast events) */
	struct ftmpl f[];
};

static struct evt_fmt_tmpl *build_tmpl(const struct evt_event_desc *d, int json)
{
	struct evt_fmt_tmpl *t = calloc(1, sizeof(*t) + d->nr_fields * sizeof(struct ftmpl));
	size_t off = 0, n;
	unsigned int i;

	if (!t)
		return NULL;
	t->nf = d->nr_fields;
	t->fast = 1;
	n = (size_t)snprintf(t->head, sizeof(t->head), json ? ",\"event\":\"%s\",\"fields\":{" : " %s: {",
			     d->name);
	if (n >= sizeof(t->head))
		t->fast = 0;
	t->head_len = (uint8_t)(n < sizeof(t->head) ? n : 0);
	t->head_split = (uint8_t)(json && t->head_len ? t->head_len - strlen(",\"fields\":{") : t->head_len);
	t->bound = 160 + TPL + sizeof(t->head);
	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		struct ftmpl *ft = &t->f[i];
		size_t a = evt_field_align(f->type), sz = evt_field_size(f->type);

		/* Variable-sized fields: the slow path (their offsets vary). */
		if (evt_field_is_var(f->type))
			t->fast = 0;
		off = (off + a - 1) & ~(a - 1);
		ft->off = (uint16_t)off;
		ft->type = (uint8_t)f->type;
		if (!json && is_state(d, f)) {
			ft->type = FT_STATE;
			ft->sz = (uint8_t)sz;
		}
		off += sz;
		n = (size_t)snprintf(ft->pre, sizeof(ft->pre), json ? "%s\"%s\":" : "%s%s = ",
				     i ? (json ? "," : ", ") : (json ? "" : " "), f->name);
		if (n >= sizeof(ft->pre))
			t->fast = 0;
		ft->len = (uint8_t)(n < sizeof(ft->pre) ? n : 0);
		/* prefix, a number or a 16-char comm escaped (4 bytes a char at most) */
		t->bound += TPL + 72;
	}
	if (off > 0xffff)
		t->fast = 0;
	return t;
}

int evt_fmt_init(struct evt_fmt *f, enum evt_fmt_kind kind, uint64_t offset_ns,
		 const struct evt_event_desc *events, unsigned int nr)
{
	struct evt_fmt_tmpl **tp;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->offset_ns = offset_ns;
	f->events = events;
	f->nr_events = nr;
	tp = calloc(nr ? nr : 1, sizeof(*tp));
	if (!tp)
		return -1;
	for (i = 0; i < nr; i++) {
		tp[i] = build_tmpl(&events[i], kind == EVT_FMT_JSON);
		if (!tp[i]) {
			while (i--)
				free(tp[i]);
			free(tp);
			return -1;
		}
	}
	f->tmpl = (const struct evt_fmt_tmpl *)tp;
	return 0;
}

void evt_fmt_free(struct evt_fmt *f)
{
	struct evt_fmt_tmpl **tp = (struct evt_fmt_tmpl **)f->tmpl;
	unsigned int i;

	for (i = 0; tp && i < f->nr_events; i++)
		free(tp[i]);
	free(tp);
	f->tmpl = NULL;
}

/* Fixed-layout fields from the templates. */
static inline char *put_fast_fields(char *p, const struct evt_fmt_tmpl *t, const uint8_t *pl,
				    int json)
{
	unsigned int i;

	for (i = 0; i < t->nf; i++) {
		const struct ftmpl *ft = &t->f[i];
		const uint8_t *v = pl + ft->off;

		memcpy(p, ft->pre, TPL);
		p += ft->len;
		switch (ft->type) {
		case FT_STATE:
			p = put_state(p, ld_size(v, ft->sz));
			break;
		case EVT_F_U8: p = put_u64_wide(p, v[0]); break;
		case EVT_F_U16: p = put_u64_wide(p, evt_ld16(v)); break;
		case EVT_F_U32: p = put_u64_wide(p, evt_ld32(v)); break;
		case EVT_F_U64: p = put_u64_wide(p, evt_ld64(v)); break;
		case EVT_F_S32: p = put_s64_wide(p, (int32_t)evt_ld32(v)); break;
		case EVT_F_S64: p = put_s64_wide(p, (int64_t)evt_ld64(v)); break;
		case EVT_F_X64: case EVT_F_X32:
			if (json)
				*p++ = '"';
			p = put_hex_wide(p, ft->type == EVT_F_X64 ? evt_ld64(v) : evt_ld32(v));
			if (json)
				*p++ = '"';
			break;
		case EVT_F_COMM:
			p = put_str(p, v, (unsigned int)strnlen((const char *)v, 16), json);
			break;
		default:
			break;
		}
	}
	return p;
}

static char *put_delta(char *p, uint64_t prev_ts, int have_prev, uint64_t ts)
{
	uint64_t dt = ts - prev_ts;

	if (!have_prev)
		return PUTS(p, "+?.?????????");
	if (ts < prev_ts) {
		*p++ = '-';
		dt = prev_ts - ts;
	} else {
		*p++ = '+';
	}
	if (dt < 1000000000ULL) {
		*p++ = '0';
	} else {
		p = put_u64(p, dt / 1000000000ULL);
		dt %= 1000000000ULL;
	}
	*p++ = '.';
	put9(p, (uint32_t)dt);
	return p + 9;
}

size_t evt_fmt_delta(char *out, uint64_t prev_ts, int have_prev, uint64_t ts)
{
	return (size_t)(put_delta(out, prev_ts, have_prev, ts) - out);
}

/* "comm/tid" (text) or ,"tid":T,"pid":P,"comm":"C" (JSON) at @out: the end. */
size_t evt_fmt_task(char *out, enum evt_fmt_kind kind, int32_t tid, int32_t pid, const char *comm)
{
	char *p = out;
	const size_t n = strnlen(comm, 15);

	if (kind == EVT_FMT_JSON) {
		p = PUTS(p, ",\"tid\":");
		p = tid < 0 ? PUTS(p, "null") : put_s64(p, tid);
		p = PUTS(p, ",\"pid\":");
		p = pid < 0 ? PUTS(p, "null") : put_s64(p, pid);
		p = PUTS(p, ",\"comm\":");
		p = tid < 0 && !n ? PUTS(p, "null") : put_str(p, (const uint8_t *)comm, (unsigned int)n, 1);
		return (size_t)(p - out);
	}
	/* Unquoted, as the terminal escaper writes names: "?" for what is not known. */
	if (n)
		p = evt_put_esc(p, (const uint8_t *)comm, (unsigned int)n, EVT_ESC_BARE);
	else
		*p++ = '?';
	*p++ = '/';
	if (tid < 0)
		*p++ = '?';
	else
		p = put_s64(p, tid);
	return (size_t)(p - out);
}

static inline char *put_cpu(char *p, uint32_t cpu)
{
	*p++ = ' ';
	*p++ = '[';
	if (cpu < 100)
		*p++ = '0';
	if (cpu < 10)
		*p++ = '0';
	p = put_u64(p, cpu);
	*p++ = ']';
	return p;
}

size_t evt_fmt_cpu(char *out, uint32_t cpu)
{
	return (size_t)(put_cpu(out, cpu) - out);
}

size_t evt_fmt_sysname(char *out, enum evt_fmt_kind kind, const char *name, int by_entry)
{
	char *p = out;
	const size_t n = strnlen(name, EVT_FMT_SYSNAME_MAX);

	if (!n)
		return 0;
	if (kind == EVT_FMT_JSON) {
		p = PUTS(p, ",\"syscall\":");
		p = put_str(p, (const uint8_t *)name, (unsigned int)n, 1);
		p = by_entry ? PUTS(p, ",\"syscall_from\":\"entry\"") : PUTS(p, ",\"syscall_from\":\"id\"");
	} else {
		p = PUTS(p, " syscall = ");
		p = evt_put_esc(p, (const uint8_t *)name, (unsigned int)n, EVT_ESC_BARE);
		*p++ = ',';
	}
	return (size_t)(p - out);
}

/*
 * The task's text: a short one (nearly all) in one fixed-size copy, which
 * the compiler inlines (the source holds EVT_FMT_TASK_MAX bytes, the line's
 * room EVT_FMT_TASK_COPY more than it needs).
 */
#define EVT_FMT_TASK_COPY 32
static inline char *put_task(char *p, const struct evt_fmt_ctx *c)
{
	if (c->task_len <= EVT_FMT_TASK_COPY) {
		memcpy(p, c->task, EVT_FMT_TASK_COPY);
		return p + c->task_len;
	}
	return put(p, c->task, c->task_len);
}

static int fmt_event(struct evt_fmt *f, struct evt_out *o, uint64_t ts, uint32_t cpu,
		     const struct evt_event_desc *d, const uint8_t *payload, uint32_t len,
		     unsigned int flags, struct evt_fmt_ctx *c)
{
	uint64_t rt = ts + f->offset_ns, sec = rt / 1000000000ULL;
	uint32_t ns = (uint32_t)(rt - sec * 1000000000ULL);
	const int json = f->kind == EVT_FMT_JSON;
	const struct evt_fmt_tmpl *t = ((struct evt_fmt_tmpl *const *)f->tmpl)[d - f->events];
	size_t need = t->fast ? t->bound : t->bound + line_bound(d, len, f->syms != NULL);
	char *p0, *p;

	if (c)
		need += c->task_len + c->sys_len + 16 + EVT_FMT_TASK_COPY;
	/* Fast events: a fixed bound; others: their payload's worth more. */
	p0 = evt_out_room(o, need);
	if (!p0)
		return -1;
	p = p0;
	if (!f->have_cached || sec != f->cached_sec) {
		f->cached_len = fmt_sec(f->cached, sec, json);
		f->cached_sec = sec;
		f->have_cached = 1;
	}
	if (json) {
		p = PUTS(p, "{\"ts\":");
		p = put_u64(p, ts);
		p = PUTS(p, ",\"time\":\"");
		memcpy(p, f->cached, sizeof(f->cached));
		p += f->cached_len;
		*p++ = '.';
		put9(p, ns);
		p += 9;
		p = PUTS(p, "Z\",\"cpu\":");
		p = put_u64(p, cpu);
		if (c) {
			if (c->task)
				p = put_task(p, c);
			else
				c->task_at = (size_t)(p - o->buf);
		}
	} else {
		*p++ = '[';
		memcpy(p, f->cached, 8);
		p += 8;
		*p++ = '.';
		put9(p, ns);
		p += 9;
		p = PUTS(p, "] (");
		if (c && c->delta_hole)
			c->delta_at = (size_t)(p - o->buf);
		else
			p = put_delta(p, f->prev_ts, f->have_prev, ts);
		if (c) {
			/* worker-5/1010 [000] */
			*p++ = ')';
			*p++ = ' ';
			if (c->task)
				p = put_task(p, c);
			else
				c->task_at = (size_t)(p - o->buf);
			if (!c->task || !c->task_cpu)
				p = put_cpu(p, cpu);
		} else {
			p = PUTS(p, ") cpu ");
			p = put_u64(p, cpu);
		}
	}
	if (t->head_len) {
		if (c && c->has_sys) {
			p = put(p, t->head, t->head_split);
			if (c->sys)
				p = put(p, c->sys, c->sys_len);
			else
				c->sys_at = (size_t)(p - o->buf);
			p = put(p, t->head + t->head_split, (size_t)(t->head_len - t->head_split));
		} else {
			memcpy(p, t->head, sizeof(t->head));
			p += t->head_len;
		}
	} else {
		p = json ? PUTS(p, ",\"event\":\"") : PUTS(p, " ");
		p = put(p, d->name, strlen(d->name));
		p = json ? PUTS(p, "\"") : PUTS(p, ":");
		if (c && c->has_sys) {
			if (json && c->sys)
				p = put(p, c->sys, c->sys_len);
			else if (json)
				c->sys_at = (size_t)(p - o->buf);
		}
		p = json ? PUTS(p, ",\"fields\":{") : PUTS(p, " {");
		if (!json && c && c->has_sys) {
			if (c->sys)
				p = put(p, c->sys, c->sys_len);
			else
				c->sys_at = (size_t)(p - o->buf);
		}
	}
	p = t->fast ? put_fast_fields(p, t, payload, json) : put_fields(p, d, payload, len, json, f->syms);
	if (json) {
		*p++ = '}';
		if (flags & EVT_FMT_LATE)
			p = PUTS(p, ",\"late\":true");
		p = PUTS(p, "}\n");
	} else {
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

int evt_fmt_event(struct evt_fmt *f, struct evt_out *o, uint64_t ts, uint32_t cpu,
		  const struct evt_event_desc *d, const uint8_t *payload, uint32_t len,
		  unsigned int flags)
{
	return fmt_event(f, o, ts, cpu, d, payload, len, flags, NULL);
}

int evt_fmt_event_ctx(struct evt_fmt *f, struct evt_out *o, uint64_t ts, uint32_t cpu,
		      const struct evt_event_desc *d, const uint8_t *payload, uint32_t len,
		      unsigned int flags, struct evt_fmt_ctx *c)
{
	return fmt_event(f, o, ts, cpu, d, payload, len, flags, c);
}

int evt_fmt_fields_json(struct evt_fmt *f, struct evt_out *o, const struct evt_event_desc *d,
			const uint8_t *payload, uint32_t len)
{
	const struct evt_fmt_tmpl *t = ((struct evt_fmt_tmpl *const *)f->tmpl)[d - f->events];
	char *p0, *p;

	if (f->kind != EVT_FMT_JSON)
		return -1;
	p0 = evt_out_room(o, t->fast ? t->bound : t->bound + line_bound(d, len, 0));
	if (!p0)
		return -1;
	p = p0;
	*p++ = '{';
	p = t->fast ? put_fast_fields(p, t, payload, 1) : put_fields(p, d, payload, len, 1, NULL);
	*p++ = '}';
	o->len += (size_t)(p - p0);
	return 0;
}
