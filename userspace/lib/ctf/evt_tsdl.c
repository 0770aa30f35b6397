// SPDX-License-Identifier: GPL-2.0
/*
 * The TSDL parser: a lexer and a recursive descent over what evtrace's
 * metadata uses (see evt_tsdl.h). Errors name the line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evt_tsdl.h"
#include "evt_io.h"
#include "evt_metadata.h"

enum tok_kind { T_EOF, T_IDENT, T_NUM, T_STR, T_PUNCT };

struct tok {
	enum tok_kind kind;
	const char *s;		/* IDENT, STR (without quotes), PUNCT */
	size_t n;
	uint64_t num;
	unsigned int line;
};

struct alias {
	char *name;
	struct evt_tsdl_type type;
};

struct named_struct {
	char *name;
	struct evt_tsdl_type type;
};

struct parser {
	const char *p, *end;
	unsigned int line;
	struct tok t;
	char *err;
	size_t errlen;
	int failed;
	struct evt_tsdl *m;
	struct alias *aliases;
	unsigned int nr_aliases;
	struct named_struct *structs;
	unsigned int nr_structs;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *ps, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (ps->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	evt_errf(ps->err, ps->errlen, "line %u: %s", ps->t.line, msg);
	ps->failed = 1;
	return -1;
}

/* The current token, for messages: at most 40 characters of it. */
static const char *tok_text(const struct tok *t, char *buf, size_t len)
{
	switch (t->kind) {
	case T_EOF:
		snprintf(buf, len, "the end");
		break;
	case T_NUM:
		snprintf(buf, len, "%llu", (unsigned long long)t->num);
		break;
	case T_STR:
		snprintf(buf, len, "\"%.*s\"", (int)(t->n > 40 ? 40 : t->n), t->s);
		break;
	default:
		snprintf(buf, len, "\"%.*s\"", (int)(t->n > 40 ? 40 : t->n), t->s);
		break;
	}
	return buf;
}

static int lex(struct parser *ps)
{
	struct tok *t = &ps->t;
	const char *p = ps->p, *e = ps->end;

	for (;;) {
		while (p < e && isspace((unsigned char)*p)) {
			ps->line += *p == '\n';
			p++;
		}
		if (p + 1 < e && p[0] == '/' && p[1] == '*') {
			for (p += 2; p + 1 < e && !(p[0] == '*' && p[1] == '/'); p++)
				ps->line += *p == '\n';
			if (p + 1 >= e) {
				t->line = ps->line;
				return fail(ps, "a comment that is not closed");
			}
			p += 2;
		} else if (p + 1 < e && p[0] == '/' && p[1] == '/') {
			while (p < e && *p != '\n')
				p++;
		} else {
			break;
		}
	}
	t->line = ps->line;
	t->s = p;
	if (p >= e) {
		t->kind = T_EOF;
		t->n = 0;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		t->kind = T_IDENT;
		t->n = (size_t)(p - t->s);
	} else if (isdigit((unsigned char)*p)) {
		int hex = p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
		uint64_t v = 0;
		int over = 0, digits = 0;

		if (hex)
			p += 2;
		for (; p < e && (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)); p++, digits++) {
			unsigned int d = isdigit((unsigned char)*p) ? (unsigned int)(*p - '0') :
					 (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);

			over |= __builtin_mul_overflow(v, hex ? 16 : 10, &v);
			over |= __builtin_add_overflow(v, d, &v);
		}
		if (!digits || over || (p < e && (isalnum((unsigned char)*p) || *p == '_')))
			return fail(ps, "a number that is malformed or beyond 2^64 - 1");
		t->kind = T_NUM;
		t->num = v;
		t->n = (size_t)(p - t->s);
	} else if (*p == '"') {
		t->s = ++p;
		while (p < e && *p != '"') {
			if (*p == '\\' && p + 1 < e)
				p++;
			if (*p == '\n')
				return fail(ps, "a string that runs past the end of its line");
			p++;
		}
		if (p >= e)
			return fail(ps, "a string that is not closed");
		t->kind = T_STR;
		t->n = (size_t)(p - t->s);
		p++;
	} else {
		t->kind = T_PUNCT;
		t->n = p + 1 < e && p[0] == ':' && p[1] == '=' ? 2 :
		       p + 2 < e && p[0] == '.' && p[1] == '.' && p[2] == '.' ? 3 : 1;
		if (!strchr("{}()[];=,<>:.", *p))
			return fail(ps, "a character TSDL does not use: 0x%02x", (unsigned char)*p);
		p += t->n;
	}
	ps->p = p;
	return 0;
}

static int is_punct(const struct parser *ps, const char *s)
{
	return ps->t.kind == T_PUNCT && ps->t.n == strlen(s) && !memcmp(ps->t.s, s, ps->t.n);
}

static int is_ident(const struct parser *ps, const char *s)
{
	return ps->t.kind == T_IDENT && ps->t.n == strlen(s) && !memcmp(ps->t.s, s, ps->t.n);
}

static int expect(struct parser *ps, const char *s)
{
	char b[64];

	if (!is_punct(ps, s))
		return fail(ps, "expected \"%s\", found %s", s, tok_text(&ps->t, b, sizeof(b)));
	return lex(ps);
}

/* An identifier, malloc'd; NULL after a failure. */
static char *take_ident(struct parser *ps, const char *what)
{
	char b[64], *s;

	if (ps->t.kind != T_IDENT) {
		fail(ps, "expected %s, found %s", what, tok_text(&ps->t, b, sizeof(b)));
		return NULL;
	}
	s = strndup(ps->t.s, ps->t.n);
	if (!s || lex(ps)) {
		if (!s)
			fail(ps, "out of memory");
		free(s);
		return NULL;
	}
	return s;
}

/* A dotted name (packet.header, clock.monotonic.value) into @buf. */
static int take_dotted(struct parser *ps, char *buf, size_t len)
{
	size_t used = 0;

	for (;;) {
		char b[64];

		if (ps->t.kind != T_IDENT)
			return fail(ps, "expected a name, found %s", tok_text(&ps->t, b, sizeof(b)));
		if (used + ps->t.n + 2 > len)
			return fail(ps, "a name longer than %zu characters", len - 2);
		memcpy(buf + used, ps->t.s, ps->t.n);
		used += ps->t.n;
		buf[used] = 0;
		if (lex(ps))
			return -1;
		if (!is_punct(ps, "."))
			return 0;
		buf[used++] = '.';
		if (lex(ps))
			return -1;
	}
}

static int take_num(struct parser *ps, uint64_t *v)
{
	char b[64];

	if (ps->t.kind != T_NUM)
		return fail(ps, "expected a number, found %s", tok_text(&ps->t, b, sizeof(b)));
	*v = ps->t.num;
	return lex(ps);
}

static void type_free(struct evt_tsdl_type *t);

static void fields_free(struct evt_tsdl_field *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].len_field);
		type_free(&f[i].type);
	}
	free(f);
}

static void type_free(struct evt_tsdl_type *t)
{
	fields_free(t->fields, t->nr_fields);
	t->fields = NULL;
	t->nr_fields = 0;
	free(t->spec);
	t->spec = NULL;
}

/* A deep copy of @src into @dst: 0, or -1 (no memory). */
static int type_copy(struct evt_tsdl_type *dst, const struct evt_tsdl_type *src)
{
	unsigned int i;

	*dst = *src;
	dst->fields = NULL;
	dst->nr_fields = 0;
	dst->spec = src->spec ? strdup(src->spec) : NULL;
	if (src->spec && !dst->spec)
		return -1;
	if (!src->nr_fields)
		return 0;
	dst->fields = calloc(src->nr_fields, sizeof(*dst->fields));
	if (!dst->fields)
		return -1;
	dst->nr_fields = src->nr_fields;
	for (i = 0; i < src->nr_fields; i++) {
		struct evt_tsdl_field *d = &dst->fields[i];
		const struct evt_tsdl_field *s = &src->fields[i];

		*d = *s;
		d->name = strdup(s->name);
		d->len_field = s->len_field ? strdup(s->len_field) : NULL;
		d->type.fields = NULL;
		d->type.nr_fields = 0;
		d->type.spec = NULL;
		if (!d->name || (s->len_field && !d->len_field) || type_copy(&d->type, &s->type))
			return -1;
	}
	return 0;
}

static int parse_type(struct parser *ps, struct evt_tsdl_type *t);

int evt_tsdl_type_same(const struct evt_tsdl_type *a, const struct evt_tsdl_type *b)
{
	unsigned int i;

	if (a->kind != b->kind || a->nr_fields != b->nr_fields || a->align != b->align ||
	    !a->spec != !b->spec || (a->spec && strcmp(a->spec, b->spec)))
		return 0;
	if ((a->kind == EVT_TSDL_INT || a->kind == EVT_TSDL_ENUM) &&
	    (a->i.size != b->i.size || a->i.align != b->i.align || a->i.base != b->i.base ||
	     a->i.is_signed != b->i.is_signed || a->i.utf8 != b->i.utf8 || a->i.clock != b->i.clock))
		return 0;
	for (i = 0; i < a->nr_fields; i++) {
		const struct evt_tsdl_field *x = &a->fields[i], *y = &b->fields[i];

		if (strcmp(x->name, y->name) || x->is_array != y->is_array ||
		    x->array_len != y->array_len || !x->len_field != !y->len_field ||
		    (x->len_field && strcmp(x->len_field, y->len_field)) ||
		    !evt_tsdl_type_same(&x->type, &y->type))
			return 0;
	}
	return 1;
}

/* integer { size = N; align = N; signed = B; base = N; encoding = E; map = clock.X.value; } */
static int parse_int_attrs(struct parser *ps, struct evt_tsdl_int *in)
{
	memset(in, 0, sizeof(*in));
	in->base = 10;
	if (expect(ps, "{"))
		return -1;
	while (!is_punct(ps, "}")) {
		char key[64], val[128];
		uint64_t v = 0;

		if (take_dotted(ps, key, sizeof(key)) || expect(ps, "="))
			return -1;
		if (ps->t.kind == T_NUM) {
			if (take_num(ps, &v))
				return -1;
			snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
		} else if (take_dotted(ps, val, sizeof(val))) {
			return -1;
		}
		if (!strcmp(key, "size") && v >= 1 && v <= 64)
			in->size = (unsigned int)v;
		else if (!strcmp(key, "align") && v && !(v & (v - 1)) && v <= 64)
			in->align = (unsigned int)v;
		else if (!strcmp(key, "signed") && (!strcmp(val, "true") || !strcmp(val, "false") ||
						    !strcmp(val, "1") || !strcmp(val, "0")))
			in->is_signed = !strcmp(val, "true") || !strcmp(val, "1");
		else if (!strcmp(key, "base") && (v == 2 || v == 8 || v == 10 || v == 16 ||
						  !strcmp(val, "decimal") || !strcmp(val, "hexadecimal")))
			in->base = v ? (unsigned int)v : !strcmp(val, "decimal") ? 10 : 16;
		else if (!strcmp(key, "encoding") && (!strcmp(val, "UTF8") || !strcmp(val, "none")))
			in->utf8 = !strcmp(val, "UTF8");
		else if (!strcmp(key, "map") && !strncmp(val, "clock.", 6) &&
			 strlen(val) > 12 && !strcmp(val + strlen(val) - 6, ".value"))
			in->clock = 1;
		else if (!strcmp(key, "byte_order") && !strcmp(val, "le"))
			;
		else
			return fail(ps, "integer attribute %s = %s is not one evtrace writes", key, val);
		if (expect(ps, ";"))
			return -1;
	}
	if (!in->size || !in->align)
		return fail(ps, "an integer without its size or align");
	return lex(ps);
}

/* { TYPE NAME [ '[' N | LEN ']' ] ; ... } */
static int parse_fields(struct parser *ps, struct evt_tsdl_type *t)
{
	if (expect(ps, "{"))
		return -1;
	while (!is_punct(ps, "}")) {
		struct evt_tsdl_field f = { 0 };
		struct evt_tsdl_field *n;

		f.line = ps->t.line;
		if (parse_type(ps, &f.type))
			return -1;
		f.name = take_ident(ps, "a field name");
		if (!f.name) {
			type_free(&f.type);
			return -1;
		}
		if (is_punct(ps, "[")) {
			uint64_t len;

			f.is_array = 1;
			if (lex(ps))
				goto bad;
			if (ps->t.kind == T_NUM) {
				if (take_num(ps, &len))
					goto bad;
				if (!len || len > 65536) {
					fail(ps, "array %s of %llu elements", f.name, (unsigned long long)len);
					goto bad;
				}
				f.array_len = (unsigned long)len;
			} else {
				f.len_field = take_ident(ps, "an array length");
				if (!f.len_field)
					goto bad;
			}
			if (expect(ps, "]"))
				goto bad;
		}
		if (expect(ps, ";"))
			goto bad;
		n = realloc(t->fields, (t->nr_fields + 1) * sizeof(*n));
		if (!n) {
			fail(ps, "out of memory");
			goto bad;
		}
		t->fields = n;
		t->fields[t->nr_fields++] = f;
		continue;
bad:
		free(f.name);
		free(f.len_field);
		type_free(&f.type);
		return -1;
	}
	return lex(ps);
}

static const struct evt_tsdl_type *find_alias(const struct parser *ps, const char *s, size_t n)
{
	unsigned int i;

	for (i = 0; i < ps->nr_aliases; i++)
		if (strlen(ps->aliases[i].name) == n && !memcmp(ps->aliases[i].name, s, n))
			return &ps->aliases[i].type;
	return NULL;
}

static const struct evt_tsdl_type *find_struct(const struct parser *ps, const char *name)
{
	unsigned int i;

	for (i = 0; i < ps->nr_structs; i++)
		if (!strcmp(ps->structs[i].name, name))
			return &ps->structs[i].type;
	return NULL;
}

/* struct [NAME] [{ fields } [align(N)]]: a named one without a body is a reference. */
static int parse_struct(struct parser *ps, struct evt_tsdl_type *t, char **defined)
{
	char *name = NULL;

	memset(t, 0, sizeof(*t));
	t->kind = EVT_TSDL_STRUCT;
	*defined = NULL;
	if (ps->t.kind == T_IDENT) {
		name = take_ident(ps, "a struct name");
		if (!name)
			return -1;
		if (!is_punct(ps, "{")) {
			const struct evt_tsdl_type *s = find_struct(ps, name);

			if (!s) {
				fail(ps, "struct %s is not declared", name);
				free(name);
				return -1;
			}
			free(name);
			return type_copy(t, s) ? fail(ps, "out of memory") : 0;
		}
	}
	if (parse_fields(ps, t)) {
		free(name);
		return -1;
	}
	if (is_ident(ps, "align")) {
		uint64_t a = 0;

		if (lex(ps) || expect(ps, "(") || take_num(ps, &a) || expect(ps, ")")) {
			free(name);
			return -1;
		}
		if (!a || (a & (a - 1)) || a > 64) {
			free(name);
			return fail(ps, "struct align(%llu)", (unsigned long long)a);
		}
		t->align = (unsigned int)a / 8;
	}
	*defined = name;
	return 0;
}

/* Keep a struct declared with a name, for later references. */
static int keep_struct(struct parser *ps, char *name, const struct evt_tsdl_type *t)
{
	struct named_struct *n;

	if (!name)
		return 0;
	if (find_struct(ps, name)) {
		fail(ps, "struct %s is declared twice", name);
		free(name);
		return -1;
	}
	n = realloc(ps->structs, (ps->nr_structs + 1) * sizeof(*n));
	if (!n) {
		free(name);
		return fail(ps, "out of memory");
	}
	ps->structs = n;
	n[ps->nr_structs].name = name;
	if (type_copy(&n[ps->nr_structs].type, t)) {
		free(name);
		return fail(ps, "out of memory");
	}
	ps->nr_structs++;
	return 0;
}

static int parse_type_inner(struct parser *ps, struct evt_tsdl_type *t)
{
	const struct evt_tsdl_type *a;
	char b[64];

	memset(t, 0, sizeof(*t));
	if (is_ident(ps, "integer")) {
		t->kind = EVT_TSDL_INT;
		return lex(ps) || parse_int_attrs(ps, &t->i);
	}
	if (is_ident(ps, "string")) {
		t->kind = EVT_TSDL_STRING;
		if (lex(ps))
			return -1;
		if (is_punct(ps, "{")) {
			/* string { encoding = UTF8; } */
			if (lex(ps) || !is_ident(ps, "encoding") || lex(ps) || expect(ps, "=") ||
			    !is_ident(ps, "UTF8") || lex(ps) || expect(ps, ";") || expect(ps, "}"))
				return fail(ps, "a string's attributes other than encoding = UTF8");
		}
		return 0;
	}
	if (is_ident(ps, "struct")) {
		char *name;

		if (lex(ps) || parse_struct(ps, t, &name))
			return -1;
		return keep_struct(ps, name, t);
	}
	if (is_ident(ps, "enum")) {
		struct evt_tsdl_type c;
		uint64_t next = 0;

		t->kind = EVT_TSDL_ENUM;
		if (lex(ps))
			return -1;
		if (ps->t.kind == T_IDENT && lex(ps))	/* a name: not kept */
			return -1;
		if (expect(ps, ":") || parse_type(ps, &c))
			return -1;
		if (c.kind != EVT_TSDL_INT) {
			type_free(&c);
			return fail(ps, "an enum whose container is not an integer");
		}
		t->i = c.i;
		if (expect(ps, "{"))
			return -1;
		while (!is_punct(ps, "}")) {
			uint64_t lo = next, hi;
			char label[64], *more;
			size_t have = t->spec ? strlen(t->spec) : 0;

			if (ps->t.kind != T_IDENT && ps->t.kind != T_STR)
				return fail(ps, "expected an enum label, found %s", tok_text(&ps->t, b, sizeof(b)));
			if (ps->t.n >= sizeof(label))
				return fail(ps, "an enum label longer than %zu characters", sizeof(label) - 1);
			memcpy(label, ps->t.s, ps->t.n);
			label[ps->t.n] = 0;
			if (lex(ps))
				return -1;
			if (is_punct(ps, "=")) {
				if (lex(ps) || take_num(ps, &lo))
					return -1;
			}
			hi = lo;
			if (is_punct(ps, "...") && (lex(ps) || take_num(ps, &hi)))
				return -1;
			if (hi < lo)
				return fail(ps, "enum label %s: the range %llu ... %llu goes down", label,
					    (unsigned long long)lo, (unsigned long long)hi);
			next = hi + 1;
			/* The mappings as one text ("LABEL=LO...HI,"): types compare by it. */
			more = realloc(t->spec, have + strlen(label) + 48);
			if (!more)
				return fail(ps, "out of memory");
			t->spec = more;
			sprintf(more + have, "%s=%llu...%llu,", label, (unsigned long long)lo,
				(unsigned long long)hi);
			if (is_punct(ps, ",")) {
				if (lex(ps))
					return -1;
			} else if (!is_punct(ps, "}")) {
				return fail(ps, "expected \",\" or \"}\" in an enum, found %s",
					    tok_text(&ps->t, b, sizeof(b)));
			}
		}
		return lex(ps);
	}
	if (is_ident(ps, "variant")) {
		t->kind = EVT_TSDL_VARIANT;
		if (lex(ps))
			return -1;
		if (ps->t.kind == T_IDENT && lex(ps))
			return -1;
		if (expect(ps, "<"))
			return -1;
		if (ps->t.kind != T_IDENT)
			return fail(ps, "a variant without its tag");
		t->spec = strndup(ps->t.s, ps->t.n);
		if (!t->spec)
			return fail(ps, "out of memory");
		if (lex(ps))
			return -1;
		return expect(ps, ">") || parse_fields(ps, t);
	}
	if (ps->t.kind == T_IDENT && (a = find_alias(ps, ps->t.s, ps->t.n)) != NULL)
		return type_copy(t, a) ? fail(ps, "out of memory") : lex(ps);
	if (is_ident(ps, "floating_point"))
		return fail(ps, "floating point types are not in evtrace's catalogue");
	return fail(ps, "expected a type, found %s", tok_text(&ps->t, b, sizeof(b)));
}

/* A type into @t: 0, or -1 with nothing of it left allocated. */
static int parse_type(struct parser *ps, struct evt_tsdl_type *t)
{
	if (!parse_type_inner(ps, t))
		return 0;
	type_free(t);
	return -1;
}

/* typealias TYPE := NAME ; */
static int parse_typealias(struct parser *ps)
{
	struct evt_tsdl_type t;
	struct alias *n;
	char *name;

	if (lex(ps) || parse_type(ps, &t))
		return -1;
	if (expect(ps, ":=") || !(name = take_ident(ps, "the alias's name"))) {
		type_free(&t);
		return -1;
	}
	if (find_alias(ps, name, strlen(name))) {
		type_free(&t);
		fail(ps, "type alias %s is declared twice", name);
		free(name);
		return -1;
	}
	n = realloc(ps->aliases, (ps->nr_aliases + 1) * sizeof(*n));
	if (!n) {
		type_free(&t);
		free(name);
		return fail(ps, "out of memory");
	}
	ps->aliases = n;
	n[ps->nr_aliases].name = name;
	n[ps->nr_aliases++].type = t;
	return expect(ps, ";");
}

/* A block value: a number, a string or a dotted name, as text (strings unquoted). */
static int take_value(struct parser *ps, char *buf, size_t len, uint64_t *num, int *is_num)
{
	*is_num = 0;
	if (ps->t.kind == T_NUM) {
		*is_num = 1;
		*num = ps->t.num;
		snprintf(buf, len, "%llu", (unsigned long long)ps->t.num);
		return lex(ps);
	}
	if (ps->t.kind == T_STR) {
		if (ps->t.n >= len)
			return fail(ps, "a string longer than %zu characters", len - 1);
		memcpy(buf, ps->t.s, ps->t.n);
		buf[ps->t.n] = 0;
		return lex(ps);
	}
	return take_dotted(ps, buf, len);
}

enum block { B_TRACE, B_ENV, B_CLOCK, B_STREAM, B_EVENT };

/* The catalogue's field type of an event field, or -1 (said). */
static int field_of(struct parser *ps, const struct evt_tsdl_field *f, const char *event)
{
	const struct evt_tsdl_type *t = &f->type;
	const struct evt_tsdl_int *i = &t->i;

	ps->t.line = f->line;
	if (f->is_array) {
		if (t->kind == EVT_TSDL_INT && i->size == 8 && i->align == 8 && !i->is_signed) {
			if (!f->len_field && f->array_len == 16 && i->utf8)
				return EVT_F_COMM;
			if (f->len_field)
				return EVT_F_SEQ_U8;
		}
		if (t->kind == EVT_TSDL_INT && f->len_field && i->size == 64 && i->align == 32 && !i->is_signed &&
		    i->base == 16 && !i->clock && !i->utf8)
			return EVT_F_SEQ_X64;
		return fail(ps, "field %s of event %s: an array evtrace's catalogue does not have", f->name,
			    event);
	}
	if (t->kind == EVT_TSDL_STRING)
		return EVT_F_STRING;
	if (t->kind == EVT_TSDL_INT && !i->clock && !i->utf8) {
		if (i->size == 8 && i->align == 8 && !i->is_signed)
			return EVT_F_U8;
		if (i->size == 16 && i->align == 16 && !i->is_signed)
			return EVT_F_U16;
		if (i->size == 32 && i->align == 32)
			return i->is_signed ? EVT_F_S32 : i->base == 16 ? EVT_F_X32 : EVT_F_U32;
		if (i->size == 64 && i->align == 32)
			return i->is_signed ? EVT_F_S64 : i->base == 16 ? EVT_F_X64 : EVT_F_U64;
	}
	return fail(ps, "field %s of event %s: a type evtrace's catalogue does not have", f->name, event);
}

/* The event's fields as the catalogue's (a sequence's u16 length field folded into it). */
static int event_fields(struct parser *ps, struct evt_event_desc *d, const struct evt_tsdl_type *st)
{
	struct evt_field_desc *fd;
	unsigned int i, n = 0;

	if (st->kind != EVT_TSDL_STRUCT)
		return fail(ps, "event %s: its fields are not a struct", d->name);
	fd = calloc(st->nr_fields ? st->nr_fields : 1, sizeof(*fd));
	if (!fd)
		return fail(ps, "out of memory");
	d->fields = fd;
	for (i = 0; i < st->nr_fields; i++) {
		const struct evt_tsdl_field *f = &st->fields[i];
		int type = field_of(ps, f, d->name);
		char *name;

		if (type < 0)
			return -1;
		if (type == EVT_F_SEQ_U8 || type == EVT_F_SEQ_X64) {
			/*
			 * uint16_t NAME_len; uint8_t NAME[NAME_len] (bytes), or uint32_t
			 * NAME_len; uint64a32_hex_t NAME[NAME_len] (a stack): one field of
			 * the catalogue.
			 */
			const enum evt_field_type lt = type == EVT_F_SEQ_U8 ? EVT_F_U16 : EVT_F_U32;
			size_t l = strlen(f->name);

			if (!n || fd[n - 1].type != lt || strcmp(f->len_field, fd[n - 1].name) ||
			    strncmp(fd[n - 1].name, f->name, l) || strcmp(fd[n - 1].name + l, "_len"))
				return fail(ps, "field %s of event %s: a sequence whose length is not the "
					    "%s %s_len just before it", f->name, d->name,
					    lt == EVT_F_U16 ? "uint16_t" : "uint32_t", f->name);
			free((char *)fd[--n].name);
			fd[n].name = NULL;
		}
		name = strdup(f->name);
		if (!name)
			return fail(ps, "out of memory");
		fd[n].name = name;
		fd[n].type = (enum evt_field_type)type;
		n++;
		d->nr_fields = (unsigned char)n;
	}
	if (n > 255)
		return fail(ps, "event %s: more than 255 fields", d->name);
	d->nr_fields = (unsigned char)n;
	return 0;
}

/* trace, env, clock, stream or event { ... } ; */
static int parse_block(struct parser *ps, enum block kind)
{
	struct evt_tsdl *m = ps->m;
	struct evt_tsdl_stream st = { 0 };
	struct evt_event_desc ev = { 0 };
	struct evt_tsdl_type fields = { 0 };
	int have_id = 0, have_stream = 0, have_fields = 0, ret = -1;
	uint64_t id = 0, stream_id = 0;
	char *ev_name = NULL;
	const unsigned int line = ps->t.line;

	if (lex(ps) || expect(ps, "{"))
		return -1;
	if (kind == B_CLOCK) {
		if (m->has_clock)
			return fail(ps, "a second clock: evcat reads one");
		m->has_clock = 1;
	}
	while (!is_punct(ps, "}")) {
		char key[64], val[256];
		uint64_t num = 0;
		int is_num;

		if (take_dotted(ps, key, sizeof(key)))
			goto out;
		if (is_punct(ps, ":=")) {
			struct evt_tsdl_type *dst =
				kind == B_TRACE && !strcmp(key, "packet.header") ? &m->packet_header :
				kind == B_STREAM && !strcmp(key, "event.header") ? &st.event_header :
				kind == B_STREAM && !strcmp(key, "packet.context") ? &st.packet_context :
				kind == B_EVENT && !strcmp(key, "fields") ? &fields : NULL;

			if (!dst) {
				fail(ps, "%s := is not one evtrace writes there", key);
				goto out;
			}
			type_free(dst);
			if (lex(ps) || parse_type(ps, dst) || expect(ps, ";"))
				goto out;
			have_fields |= dst == &fields;
			continue;
		}
		if (expect(ps, "=") || take_value(ps, val, sizeof(val), &num, &is_num) || expect(ps, ";"))
			goto out;
		if (kind == B_ENV) {
			struct evt_tsdl_env *n = realloc(m->env, (m->nr_env + 1) * sizeof(*n));

			if (!n) {
				fail(ps, "out of memory");
				goto out;
			}
			m->env = n;
			n[m->nr_env].key = strdup(key);
			n[m->nr_env].value = strdup(val);
			if (!n[m->nr_env].key || !n[m->nr_env++].value) {
				fail(ps, "out of memory");
				goto out;
			}
		} else if (kind == B_TRACE && (!strcmp(key, "major") || !strcmp(key, "minor")) && is_num) {
			*(key[1] == 'a' ? &m->major : &m->minor) = (unsigned int)(num > 99 ? 99 : num);
		} else if (kind == B_TRACE && !strcmp(key, "byte_order") &&
			   (!strcmp(val, "le") || !strcmp(val, "be") || !strcmp(val, "network"))) {
			m->big_endian = strcmp(val, "le") != 0;
		} else if ((kind == B_TRACE || kind == B_CLOCK) && !strcmp(key, "uuid")) {
			uint8_t u[16];

			const char *end = evt_uuid_parse(val, u);

			if (!end || *end) {
				fail(ps, "uuid \"%s\" is malformed", val);
				goto out;
			}
			if (kind == B_TRACE) {
				memcpy(m->uuid, u, 16);
				m->has_uuid = 1;
			}
		} else if (kind == B_CLOCK && !strcmp(key, "name")) {
			free(m->clock_name);
			m->clock_name = strdup(val);
		} else if (kind == B_CLOCK && is_num &&
			   (!strcmp(key, "freq") || !strcmp(key, "offset_s") || !strcmp(key, "offset") ||
			    !strcmp(key, "precision"))) {
			if (key[0] == 'f')
				m->clock_freq = num;
			else if (!strcmp(key, "offset_s"))
				m->clock_offset_s = num;
			else if (!strcmp(key, "offset"))
				m->clock_offset = num;
		} else if (kind == B_CLOCK && (!strcmp(key, "description") ||
					      (!strcmp(key, "absolute") &&
					       (!strcmp(val, "true") || !strcmp(val, "false"))))) {
			;
		} else if ((kind == B_STREAM || kind == B_EVENT) && !strcmp(key, "id") && is_num) {
			id = num;
			have_id = 1;
		} else if (kind == B_EVENT && !strcmp(key, "stream_id") && is_num) {
			stream_id = num;
			have_stream = 1;
		} else if (kind == B_EVENT && !strcmp(key, "name") && !is_num) {
			free(ev_name);
			ev_name = strdup(val);
		} else {
			fail(ps, "%s = %s is not one evtrace writes there", key, val);
			goto out;
		}
	}
	if (lex(ps) || expect(ps, ";"))
		goto out;
	if (kind == B_STREAM) {
		struct evt_tsdl_stream *n;

		if (!have_id) {
			fail(ps, "a stream without its id");
			goto out;
		}
		n = realloc(m->streams, (m->nr_streams + 1) * sizeof(*n));
		if (!n) {
			fail(ps, "out of memory");
			goto out;
		}
		m->streams = n;
		st.id = id;
		st.line = line;
		n[m->nr_streams++] = st;
		memset(&st, 0, sizeof(st));
	} else if (kind == B_EVENT) {
		struct evt_event_desc *n;

		if (!ev_name || !have_id || !have_stream || !have_fields) {
			fail(ps, "an event without its name, id, stream_id or fields");
			goto out;
		}
		if (stream_id >= EVT_NR_CHANNELS || id > 0xffff) {
			fail(ps, "event %s: stream_id %llu or id %llu out of range", ev_name,
			     (unsigned long long)stream_id, (unsigned long long)id);
			goto out;
		}
		unsigned int *lines = realloc(m->event_lines, (m->nr_events + 1) * sizeof(*lines));

		if (lines)
			m->event_lines = lines;
		n = lines ? realloc(m->events, (m->nr_events + 1) * sizeof(*n)) : NULL;
		if (!n) {
			fail(ps, "out of memory");
			goto out;
		}
		m->events = n;
		lines[m->nr_events] = line;
		ev.name = ev_name;
		ev.channel = (unsigned char)stream_id;
		ev.id = (unsigned short)id;
		ev_name = NULL;
		n[m->nr_events] = ev;
		m->nr_events++;
		if (event_fields(ps, &n[m->nr_events - 1], &fields))
			goto out;
	}
	ret = 0;
out:
	free(ev_name);
	type_free(&fields);
	type_free(&st.event_header);
	type_free(&st.packet_context);
	return ret;
}

int evt_tsdl_parse(const char *text, size_t len, struct evt_tsdl *m, char *err, size_t errlen)
{
	struct parser ps = { .p = text, .end = text + len, .line = 1, .err = err, .errlen = errlen, .m = m };
	unsigned int i;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (lex(&ps))
		goto out;
	while (ps.t.kind != T_EOF) {
		char b[64];

		if (is_ident(&ps, "typealias")) {
			if (parse_typealias(&ps))
				goto out;
		} else if (is_ident(&ps, "struct")) {
			struct evt_tsdl_type t;
			char *name;

			memset(&t, 0, sizeof(t));
			if (lex(&ps) || parse_struct(&ps, &t, &name)) {
				type_free(&t);
				goto out;
			}
			if (!name) {
				type_free(&t);
				fail(&ps, "a struct at the top level without a name");
				goto out;
			}
			if (keep_struct(&ps, name, &t) || expect(&ps, ";")) {
				type_free(&t);
				goto out;
			}
			type_free(&t);
		} else if (is_ident(&ps, "trace") || is_ident(&ps, "env") || is_ident(&ps, "clock") ||
			   is_ident(&ps, "stream") || is_ident(&ps, "event")) {
			enum block k = is_ident(&ps, "trace") ? B_TRACE : is_ident(&ps, "env") ? B_ENV :
				       is_ident(&ps, "clock") ? B_CLOCK : is_ident(&ps, "stream") ? B_STREAM :
				       B_EVENT;

			if (parse_block(&ps, k))
				goto out;
		} else {
			fail(&ps, "expected a declaration, found %s", tok_text(&ps.t, b, sizeof(b)));
			goto out;
		}
	}
	ret = 0;
out:
	if (ps.failed)
		ret = -1;
	for (i = 0; i < ps.nr_aliases; i++) {
		free(ps.aliases[i].name);
		type_free(&ps.aliases[i].type);
	}
	free(ps.aliases);
	for (i = 0; i < ps.nr_structs; i++) {
		free(ps.structs[i].name);
		type_free(&ps.structs[i].type);
	}
	free(ps.structs);
	return ret;
}

void evt_tsdl_free(struct evt_tsdl *m)
{
	unsigned int i, j;

	type_free(&m->packet_header);
	for (i = 0; i < m->nr_env; i++) {
		free(m->env[i].key);
		free(m->env[i].value);
	}
	free(m->env);
	free(m->clock_name);
	for (i = 0; i < m->nr_streams; i++) {
		type_free(&m->streams[i].event_header);
		type_free(&m->streams[i].packet_context);
	}
	free(m->streams);
	for (i = 0; i < m->nr_events; i++) {
		for (j = 0; m->events[i].fields && j < m->events[i].nr_fields; j++)
			free((char *)m->events[i].fields[j].name);
		free((void *)m->events[i].fields);
		free((char *)m->events[i].name);
	}
	free(m->events);
	free(m->event_lines);
	memset(m, 0, sizeof(*m));
}
