/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TSDL parser's insides, shared by its lexer (evt_tsdl_lex.c), its
 * types (evt_tsdl_type.c) and its blocks (evt_tsdl.c); not for outside.
 */
#ifndef EVT_TSDL_PARSER_H
#define EVT_TSDL_PARSER_H

#include <stddef.h>
#include <stdint.h>
#include "ctf/evt_tsdl.h"

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

/* ---- The lexer (evt_tsdl_lex.c): ps->t is the token in hand ---- */

__attribute__((format(printf, 2, 3)))
int evt_tsdl_fail(struct parser *ps, const char *fmt, ...);
const char *evt_tsdl_tok_text(const struct tok *t, char *buf, size_t len);
int evt_tsdl_lex(struct parser *ps);
int evt_tsdl_is_punct(const struct parser *ps, const char *s);
int evt_tsdl_is_ident(const struct parser *ps, const char *s);
int evt_tsdl_expect(struct parser *ps, const char *s);
char *evt_tsdl_take_ident(struct parser *ps, const char *what);
int evt_tsdl_take_dotted(struct parser *ps, char *buf, size_t len);
int evt_tsdl_take_num(struct parser *ps, uint64_t *v);
int evt_tsdl_take_value(struct parser *ps, char *buf, size_t len, uint64_t *num, int *is_num);

/* ---- Types (evt_tsdl_type.c) ---- */

void evt_tsdl_type_free(struct evt_tsdl_type *t);
int evt_tsdl_parse_struct(struct parser *ps, struct evt_tsdl_type *t, char **defined);
int evt_tsdl_keep_struct(struct parser *ps, char *name, const struct evt_tsdl_type *t);
int evt_tsdl_parse_type(struct parser *ps, struct evt_tsdl_type *t);
int evt_tsdl_parse_typealias(struct parser *ps);

#endif /* EVT_TSDL_PARSER_H */
