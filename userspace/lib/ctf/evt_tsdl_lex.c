// SPDX-License-Identifier: GPL-2.0
/* The TSDL lexer: tokens, the line they are on, and the error that names it. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/evt_io.h"
#include "ctf/evt_tsdl_parser.h"

__attribute__((format(printf, 2, 3)))
int evt_tsdl_fail(struct parser *ps, const char *fmt, ...)
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
const char *evt_tsdl_tok_text(const struct tok *t, char *buf, size_t len)
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

int evt_tsdl_lex(struct parser *ps)
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
				return evt_tsdl_fail(ps, "a comment that is not closed");
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
			return evt_tsdl_fail(ps, "a number that is malformed or beyond 2^64 - 1");
		t->kind = T_NUM;
		t->num = v;
		t->n = (size_t)(p - t->s);
	} else if (*p == '"') {
		t->s = ++p;
		while (p < e && *p != '"') {
			if (*p == '\\' && p + 1 < e)
				p++;
			if (*p == '\n')
				return evt_tsdl_fail(ps, "a string that runs past the end of its line");
			p++;
		}
		if (p >= e)
			return evt_tsdl_fail(ps, "a string that is not closed");
		t->kind = T_STR;
		t->n = (size_t)(p - t->s);
		p++;
	} else {
		t->kind = T_PUNCT;
		t->n = p + 1 < e && p[0] == ':' && p[1] == '=' ? 2 :
		       p + 2 < e && p[0] == '.' && p[1] == '.' && p[2] == '.' ? 3 : 1;
		if (!strchr("{}()[];=,<>:.", *p))
			return evt_tsdl_fail(ps, "a character TSDL does not use: 0x%02x", (unsigned char)*p);
		p += t->n;
	}
	ps->p = p;
	return 0;
}

int evt_tsdl_is_punct(const struct parser *ps, const char *s)
{
	return ps->t.kind == T_PUNCT && ps->t.n == strlen(s) && !memcmp(ps->t.s, s, ps->t.n);
}

int evt_tsdl_is_ident(const struct parser *ps, const char *s)
{
	return ps->t.kind == T_IDENT && ps->t.n == strlen(s) && !memcmp(ps->t.s, s, ps->t.n);
}

int evt_tsdl_expect(struct parser *ps, const char *s)
{
	char b[64];

	if (!evt_tsdl_is_punct(ps, s))
		return evt_tsdl_fail(ps, "expected \"%s\", found %s", s, evt_tsdl_tok_text(&ps->t, b, sizeof(b)));
	return evt_tsdl_lex(ps);
}

/* An identifier, malloc'd; NULL after a failure. */
char *evt_tsdl_take_ident(struct parser *ps, const char *what)
{
	char b[64], *s;

	if (ps->t.kind != T_IDENT) {
		evt_tsdl_fail(ps, "expected %s, found %s", what, evt_tsdl_tok_text(&ps->t, b, sizeof(b)));
		return NULL;
	}
	s = strndup(ps->t.s, ps->t.n);
	if (!s || evt_tsdl_lex(ps)) {
		if (!s)
			evt_tsdl_fail(ps, "out of memory");
		free(s);
		return NULL;
	}
	return s;
}

/* A dotted name (packet.header, clock.monotonic.value) into @buf. */
int evt_tsdl_take_dotted(struct parser *ps, char *buf, size_t len)
{
	size_t used = 0;

	for (;;) {
		char b[64];

		if (ps->t.kind != T_IDENT)
			return evt_tsdl_fail(ps, "expected a name, found %s", evt_tsdl_tok_text(&ps->t, b, sizeof(b)));
		if (used + ps->t.n + 2 > len)
			return evt_tsdl_fail(ps, "a name longer than %zu characters", len - 2);
		memcpy(buf + used, ps->t.s, ps->t.n);
		used += ps->t.n;
		buf[used] = 0;
		if (evt_tsdl_lex(ps))
			return -1;
		if (!evt_tsdl_is_punct(ps, "."))
			return 0;
		buf[used++] = '.';
		if (evt_tsdl_lex(ps))
			return -1;
	}
}

int evt_tsdl_take_num(struct parser *ps, uint64_t *v)
{
	char b[64];

	if (ps->t.kind != T_NUM)
		return evt_tsdl_fail(ps, "expected a number, found %s", evt_tsdl_tok_text(&ps->t, b, sizeof(b)));
	*v = ps->t.num;
	return evt_tsdl_lex(ps);
}

/* A block value: a number, a string or a dotted name, as text (strings unquoted). */
int evt_tsdl_take_value(struct parser *ps, char *buf, size_t len, uint64_t *num, int *is_num)
{
	*is_num = 0;
	if (ps->t.kind == T_NUM) {
		*is_num = 1;
		*num = ps->t.num;
		snprintf(buf, len, "%llu", (unsigned long long)ps->t.num);
		return evt_tsdl_lex(ps);
	}
	if (ps->t.kind == T_STR) {
		if (ps->t.n >= len)
			return evt_tsdl_fail(ps, "a string longer than %zu characters", len - 1);
		memcpy(buf, ps->t.s, ps->t.n);
		buf[ps->t.n] = 0;
		return evt_tsdl_lex(ps);
	}
	return evt_tsdl_take_dotted(ps, buf, len);
}
