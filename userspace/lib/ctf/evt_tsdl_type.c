// SPDX-License-Identifier: GPL-2.0
/* TSDL types: integers, strings, structs, arrays and sequences, aliases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_tsdl_parser.h"

static void fields_free(struct evt_tsdl_field *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].len_field);
		evt_tsdl_type_free(&f[i].type);
	}
	free(f);
}

void evt_tsdl_type_free(struct evt_tsdl_type *t)
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
	if (evt_tsdl_expect(ps, "{"))
		return -1;
	while (!evt_tsdl_is_punct(ps, "}")) {
		char key[64], val[128];
		uint64_t v = 0;

		if (evt_tsdl_take_dotted(ps, key, sizeof(key)) || evt_tsdl_expect(ps, "="))
			return -1;
		if (ps->t.kind == T_NUM) {
			if (evt_tsdl_take_num(ps, &v))
				return -1;
			snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
		} else if (evt_tsdl_take_dotted(ps, val, sizeof(val))) {
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
			return evt_tsdl_fail(ps, "integer attribute %s = %s is not one evtrace writes", key, val);
		if (evt_tsdl_expect(ps, ";"))
			return -1;
	}
	if (!in->size || !in->align)
		return evt_tsdl_fail(ps, "an integer without its size or align");
	return evt_tsdl_lex(ps);
}

/* { TYPE NAME [ '[' N | LEN ']' ] ; ... } */
static int parse_fields(struct parser *ps, struct evt_tsdl_type *t)
{
	if (evt_tsdl_expect(ps, "{"))
		return -1;
	while (!evt_tsdl_is_punct(ps, "}")) {
		struct evt_tsdl_field f = { 0 };
		struct evt_tsdl_field *n;

		f.line = ps->t.line;
		if (evt_tsdl_parse_type(ps, &f.type))
			return -1;
		f.name = evt_tsdl_take_ident(ps, "a field name");
		if (!f.name) {
			evt_tsdl_type_free(&f.type);
			return -1;
		}
		if (evt_tsdl_is_punct(ps, "[")) {
			uint64_t len;

			f.is_array = 1;
			if (evt_tsdl_lex(ps))
				goto bad;
			if (ps->t.kind == T_NUM) {
				if (evt_tsdl_take_num(ps, &len))
					goto bad;
				if (!len || len > 65536) {
					evt_tsdl_fail(ps, "array %s of %llu elements", f.name, (unsigned long long)len);
					goto bad;
				}
				f.array_len = (unsigned long)len;
			} else {
				f.len_field = evt_tsdl_take_ident(ps, "an array length");
				if (!f.len_field)
					goto bad;
			}
			if (evt_tsdl_expect(ps, "]"))
				goto bad;
		}
		if (evt_tsdl_expect(ps, ";"))
			goto bad;
		n = realloc(t->fields, (t->nr_fields + 1) * sizeof(*n));
		if (!n) {
			evt_tsdl_fail(ps, "out of memory");
			goto bad;
		}
		t->fields = n;
		t->fields[t->nr_fields++] = f;
		continue;
bad:
		free(f.name);
		free(f.len_field);
		evt_tsdl_type_free(&f.type);
		return -1;
	}
	return evt_tsdl_lex(ps);
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
int evt_tsdl_parse_struct(struct parser *ps, struct evt_tsdl_type *t, char **defined)
{
	char *name = NULL;

	memset(t, 0, sizeof(*t));
	t->kind = EVT_TSDL_STRUCT;
	*defined = NULL;
	if (ps->t.kind == T_IDENT) {
		name = evt_tsdl_take_ident(ps, "a struct name");
		if (!name)
			return -1;
		if (!evt_tsdl_is_punct(ps, "{")) {
			const struct evt_tsdl_type *s = find_struct(ps, name);

			if (!s) {
				evt_tsdl_fail(ps, "struct %s is not declared", name);
				free(name);
				return -1;
			}
			free(name);
			return type_copy(t, s) ? evt_tsdl_fail(ps, "out of memory") : 0;
		}
	}
	if (parse_fields(ps, t)) {
		free(name);
		return -1;
	}
	if (evt_tsdl_is_ident(ps, "align")) {
		uint64_t a = 0;

		if (evt_tsdl_lex(ps) || evt_tsdl_expect(ps, "(") || evt_tsdl_take_num(ps, &a) || evt_tsdl_expect(ps, ")")) {
			free(name);
			return -1;
		}
		if (!a || (a & (a - 1)) || a > 64) {
			free(name);
			return evt_tsdl_fail(ps, "struct align(%llu)", (unsigned long long)a);
		}
		t->align = (unsigned int)a / 8;
	}
	*defined = name;
	return 0;
}

/* Keep a struct declared with a name, for later references. */
int evt_tsdl_keep_struct(struct parser *ps, char *name, const struct evt_tsdl_type *t)
{
	struct named_struct *n;

	if (!name)
		return 0;
	if (find_struct(ps, name)) {
		evt_tsdl_fail(ps, "struct %s is declared twice", name);
		free(name);
		return -1;
	}
	n = realloc(ps->structs, (ps->nr_structs + 1) * sizeof(*n));
	if (!n) {
		free(name);
		return evt_tsdl_fail(ps, "out of memory");
	}
	ps->structs = n;
	n[ps->nr_structs].name = name;
	if (type_copy(&n[ps->nr_structs].type, t)) {
		free(name);
		return evt_tsdl_fail(ps, "out of memory");
	}
	ps->nr_structs++;
	return 0;
}

static int parse_type_inner(struct parser *ps, struct evt_tsdl_type *t)
{
	const struct evt_tsdl_type *a;
	char b[64];

	memset(t, 0, sizeof(*t));
	if (evt_tsdl_is_ident(ps, "integer")) {
		t->kind = EVT_TSDL_INT;
		return evt_tsdl_lex(ps) || parse_int_attrs(ps, &t->i);
	}
	if (evt_tsdl_is_ident(ps, "string")) {
		t->kind = EVT_TSDL_STRING;
		if (evt_tsdl_lex(ps))
			return -1;
		if (evt_tsdl_is_punct(ps, "{")) {
			/* string { encoding = UTF8; } */
			if (evt_tsdl_lex(ps) || !evt_tsdl_is_ident(ps, "encoding") || evt_tsdl_lex(ps) || evt_tsdl_expect(ps, "=") ||
			    !evt_tsdl_is_ident(ps, "UTF8") || evt_tsdl_lex(ps) || evt_tsdl_expect(ps, ";") || evt_tsdl_expect(ps, "}"))
				return evt_tsdl_fail(ps, "a string's attributes other than encoding = UTF8");
		}
		return 0;
	}
	if (evt_tsdl_is_ident(ps, "struct")) {
		char *name;

		if (evt_tsdl_lex(ps) || evt_tsdl_parse_struct(ps, t, &name))
			return -1;
		return evt_tsdl_keep_struct(ps, name, t);
	}
	if (evt_tsdl_is_ident(ps, "enum")) {
		struct evt_tsdl_type c;
		uint64_t next = 0;

		t->kind = EVT_TSDL_ENUM;
		if (evt_tsdl_lex(ps))
			return -1;
		if (ps->t.kind == T_IDENT && evt_tsdl_lex(ps))	/* a name: not kept */
			return -1;
		if (evt_tsdl_expect(ps, ":") || evt_tsdl_parse_type(ps, &c))
			return -1;
		if (c.kind != EVT_TSDL_INT) {
			evt_tsdl_type_free(&c);
			return evt_tsdl_fail(ps, "an enum whose container is not an integer");
		}
		t->i = c.i;
		if (evt_tsdl_expect(ps, "{"))
			return -1;
		while (!evt_tsdl_is_punct(ps, "}")) {
			uint64_t lo = next, hi;
			char label[64], *more;
			size_t have = t->spec ? strlen(t->spec) : 0;

			if (ps->t.kind != T_IDENT && ps->t.kind != T_STR)
				return evt_tsdl_fail(ps, "expected an enum label, found %s", evt_tsdl_tok_text(&ps->t, b, sizeof(b)));
			if (ps->t.n >= sizeof(label))
				return evt_tsdl_fail(ps, "an enum label longer than %zu characters", sizeof(label) - 1);
			memcpy(label, ps->t.s, ps->t.n);
			label[ps->t.n] = 0;
			if (evt_tsdl_lex(ps))
				return -1;
			if (evt_tsdl_is_punct(ps, "=")) {
				if (evt_tsdl_lex(ps) || evt_tsdl_take_num(ps, &lo))
					return -1;
			}
			hi = lo;
			if (evt_tsdl_is_punct(ps, "...") && (evt_tsdl_lex(ps) || evt_tsdl_take_num(ps, &hi)))
				return -1;
			if (hi < lo)
				return evt_tsdl_fail(ps, "enum label %s: the range %llu ... %llu goes down", label,
					    (unsigned long long)lo, (unsigned long long)hi);
			next = hi + 1;
			/* The mappings as one text ("LABEL=LO...HI,"): types compare by it. */
			more = realloc(t->spec, have + strlen(label) + 48);
			if (!more)
				return evt_tsdl_fail(ps, "out of memory");
			t->spec = more;
			sprintf(more + have, "%s=%llu...%llu,", label, (unsigned long long)lo,
				(unsigned long long)hi);
			if (evt_tsdl_is_punct(ps, ",")) {
				if (evt_tsdl_lex(ps))
					return -1;
			} else if (!evt_tsdl_is_punct(ps, "}")) {
				return evt_tsdl_fail(ps, "expected \",\" or \"}\" in an enum, found %s",
					    evt_tsdl_tok_text(&ps->t, b, sizeof(b)));
			}
		}
		return evt_tsdl_lex(ps);
	}
	if (evt_tsdl_is_ident(ps, "variant")) {
		t->kind = EVT_TSDL_VARIANT;
		if (evt_tsdl_lex(ps))
			return -1;
		if (ps->t.kind == T_IDENT && evt_tsdl_lex(ps))
			return -1;
		if (evt_tsdl_expect(ps, "<"))
			return -1;
		if (ps->t.kind != T_IDENT)
			return evt_tsdl_fail(ps, "a variant without its tag");
		t->spec = strndup(ps->t.s, ps->t.n);
		if (!t->spec)
			return evt_tsdl_fail(ps, "out of memory");
		if (evt_tsdl_lex(ps))
			return -1;
		return evt_tsdl_expect(ps, ">") || parse_fields(ps, t);
	}
	if (ps->t.kind == T_IDENT && (a = find_alias(ps, ps->t.s, ps->t.n)) != NULL)
		return type_copy(t, a) ? evt_tsdl_fail(ps, "out of memory") : evt_tsdl_lex(ps);
	if (evt_tsdl_is_ident(ps, "floating_point"))
		return evt_tsdl_fail(ps, "floating point types are not in evtrace's catalogue");
	return evt_tsdl_fail(ps, "expected a type, found %s", evt_tsdl_tok_text(&ps->t, b, sizeof(b)));
}

/* A type into @t: 0, or -1 with nothing of it left allocated. */
int evt_tsdl_parse_type(struct parser *ps, struct evt_tsdl_type *t)
{
	if (!parse_type_inner(ps, t))
		return 0;
	evt_tsdl_type_free(t);
	return -1;
}

/* typealias TYPE := NAME ; */
int evt_tsdl_parse_typealias(struct parser *ps)
{
	struct evt_tsdl_type t;
	struct alias *n;
	char *name;

	if (evt_tsdl_lex(ps) || evt_tsdl_parse_type(ps, &t))
		return -1;
	if (evt_tsdl_expect(ps, ":=") || !(name = evt_tsdl_take_ident(ps, "the alias's name"))) {
		evt_tsdl_type_free(&t);
		return -1;
	}
	if (find_alias(ps, name, strlen(name))) {
		evt_tsdl_type_free(&t);
		evt_tsdl_fail(ps, "type alias %s is declared twice", name);
		free(name);
		return -1;
	}
	n = realloc(ps->aliases, (ps->nr_aliases + 1) * sizeof(*n));
	if (!n) {
		evt_tsdl_type_free(&t);
		free(name);
		return evt_tsdl_fail(ps, "out of memory");
	}
	ps->aliases = n;
	n[ps->nr_aliases].name = name;
	n[ps->nr_aliases++].type = t;
	return evt_tsdl_expect(ps, ";");
}
