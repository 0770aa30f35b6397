// SPDX-License-Identifier: GPL-2.0
/* evcat's selection: tasks, events by name or glob, and --where (see evcat.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evcat.h"
#include "util/evt_cli.h"
#include "ctf/evt_decode.h"
#include "engine/evt_engine.h"

int evcat_ids_add(struct evcat_ids *ids, const char *what, const char *list)
{
	const char *p = list;

	for (;;) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || errno || v < 0 || v > INT32_MAX || (*end && *end != ',')) {
			fprintf(stderr, "evcat: --%s takes numbers (0 to %d, NUM,NUM), not \"", what, INT32_MAX);
			evt_fputs_esc(stderr, list);
			fputs("\"\n", stderr);
			return -1;
		}
		if (ids->n == ids->cap) {
			uint32_t cap = ids->cap ? 2 * ids->cap : 8;
			int32_t *nv = realloc(ids->v, cap * sizeof(*nv));

			if (!nv) {
				perror("evcat");
				return -1;
			}
			ids->v = nv;
			ids->cap = cap;
		}
		ids->v[ids->n++] = (int32_t)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

static int has_id(const struct evcat_ids *ids, int32_t v)
{
	uint32_t i;

	for (i = 0; i < ids->n; i++)
		if (ids->v[i] == v)
			return 1;
	return 0;
}

int evcat_taskf_ready(struct evcat_taskf *f)
{
	char *save = NULL, *tok;

	f->active = f->pids.n || f->tids.n || f->comms;
	f->need_pid = f->pids.n > 0;
	f->need_comm = f->comms != NULL;
	if (!f->comms)
		return 0;
	for (tok = strtok_r(f->comms, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **nv = realloc(f->comm, (f->ncomm + 1) * sizeof(*nv));

		if (!nv)
			return -1;
		f->comm = nv;
		f->comm[f->ncomm++] = tok;
	}
	return 0;
}

int evcat_taskf_match(const struct evcat_taskf *f, const struct evt_task *t)
{
	uint32_t i;

	if (f->tids.n && (t->tid < 0 || !has_id(&f->tids, t->tid)))
		return 0;
	if (f->pids.n && (t->pid < 0 || !has_id(&f->pids, t->pid)))
		return 0;
	if (!f->ncomm)
		return 1;
	if (t->tid < 0 && !t->comm[0])
		return 0;
	for (i = 0; i < f->ncomm; i++)
		if (!fnmatch(f->comm[i], t->comm, 0))
			return 1;
	return 0;
}

void evcat_taskf_free(struct evcat_taskf *f)
{
	free(f->pids.v);
	free(f->tids.v);
	free(f->comms);
	free(f->comm);
	memset(f, 0, sizeof(*f));
}

/* Up to this many names after an unknown --event; the rest with --list-events. */
#define SIMILAR_MAX 20

/*
 * The trace's event names that look like @tok (its longest run of letters
 * and digits, 3 or more, inside the name; else the first SIMILAR_MAX), one
 * a line, and where the whole list is: a trace has hundreds of events.
 */
static void say_similar(const char *tok, const struct evt_event_desc *events, unsigned int nr)
{
	const char *names[SIMILAR_MAX];
	char key[64] = "";
	size_t best = 0, n = 0, more = 0;
	unsigned int i;

	for (const char *p = tok; *p;) {
		size_t l = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

		if (l > best && l < sizeof(key)) {
			best = l;
			memcpy(key, p, l);
			key[l] = 0;
		}
		p += l ? l : 1;
	}
	for (i = 0; best >= 3 && i < nr; i++) {
		if (!strcasestr(events[i].name, key))
			continue;
		if (n < SIMILAR_MAX)
			names[n++] = events[i].name;
		else
			more++;
	}
	if (n) {
		fprintf(stderr, "evcat: names with \"%s\" in them:\n", key);
	} else {
		for (i = 0; i < nr && n < SIMILAR_MAX; i++)
			names[n++] = events[i].name;
		more = nr - n;
		fprintf(stderr, "evcat: its events include:\n");
	}
	evt_print_list(stderr, names, n, SIMILAR_MAX);
	if (more)
		fprintf(stderr, "  ... and %zu more\n", more);
	fprintf(stderr, "evcat: all %u: evcat DIR --list-events\n", nr);
}

int evcat_event_mask(const char *list, const struct evt_event_desc *events, unsigned int nr, uint8_t *mask)
{
	char *copy = strdup(list), *save = NULL, *tok;
	unsigned int i;

	if (!copy) {
		perror("evcat");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int hits = 0;

		/* A name is a glob of itself: "sys_*" selects every syscall entry. */
		for (i = 0; i < nr; i++) {
			if (!fnmatch(tok, events[i].name, 0)) {
				mask[i] = 1;
				hits++;
			}
		}
		if (hits)
			continue;
		fputs("evcat: --event: the trace has no event \"", stderr);
		evt_fputs_esc(stderr, tok);
		fprintf(stderr, "\"%s\n", strpbrk(tok, "*?[") ? " (no name matches)" : "");
		say_similar(tok, events, nr);
		free(copy);
		return -1;
	}
	free(copy);
	return 0;
}

/* ---- --where ---- */

enum wop { W_EQ, W_NE, W_LT, W_LE, W_GT, W_GE, W_GLOB };

struct wcond {
	char *field;
	enum wop op;
	int is_num;			/* the value is a number */
	__int128 num;
	char *str;
	/* Bound: per catalogue index, the field's offset (-1: absent) and type. */
	int32_t *off;
	uint8_t *type;
};

struct evcat_where {
	struct wcond *c;
	unsigned int n;
	unsigned int nr;		/* bound catalogue's size */
};

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* One condition at *@pp: 0, or -1 with @err. */
static int parse_cond(const char **pp, struct wcond *c, char *err, size_t errlen)
{
	static const struct { const char *s; enum wop op; } ops[] = {
		{ "==", W_EQ }, { "!=", W_NE }, { "<=", W_LE }, { ">=", W_GE }, { "<", W_LT }, { ">", W_GT },
		{ "~", W_GLOB }, { "=", W_EQ },
	};
	const char *p = skip_space(*pp), *b;
	unsigned int i;

	b = p;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')
		p++;
	if (p == b) {
		snprintf(err, errlen, "--where: a field name expected at \"%.40s\"", b);
		return -1;
	}
	c->field = strndup(b, (size_t)(p - b));
	if (!c->field) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p = skip_space(p);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p, ops[i].s, strlen(ops[i].s)))
			break;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		snprintf(err, errlen, "--where: an operator (== != < <= > >= ~) expected after %s", c->field);
		return -1;
	}
	c->op = ops[i].op;
	p = skip_space(p + strlen(ops[i].s));
	if (*p == '"' || *p == '\'') {
		const char q = *p++;

		b = p;
		while (*p && *p != q)
			p++;
		if (!*p) {
			snprintf(err, errlen, "--where: a quote is not closed after %s", c->field);
			return -1;
		}
		c->str = strndup(b, (size_t)(p - b));
		p++;
	} else {
		char *end;
		long long sv;
		unsigned long long uv;

		b = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (p == b) {
			snprintf(err, errlen, "--where: a value expected after %s", c->field);
			return -1;
		}
		c->str = strndup(b, (size_t)(p - b));
		if (c->str && c->op != W_GLOB) {
			errno = 0;
			if (c->str[0] == '-') {
				sv = strtoll(c->str, &end, 0);
				c->num = sv;
			} else {
				uv = strtoull(c->str, &end, 0);
				c->num = (__int128)uv;
			}
			c->is_num = !*end && !errno;
		}
	}
	if (!c->str) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (c->op == W_GLOB && c->is_num) {
		snprintf(err, errlen, "--where: ~ matches a string field against a glob");
		return -1;
	}
	*pp = p;
	return 0;
}

int evcat_where_parse(const char *text, struct evcat_where **out, char *err, size_t errlen)
{
	struct evcat_where *w = calloc(1, sizeof(*w));
	const char *p = text;

	*out = NULL;
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (;;) {
		struct wcond *nc = realloc(w->c, (w->n + 1) * sizeof(*nc));

		if (!nc) {
			snprintf(err, errlen, "out of memory");
			evcat_where_free(w);
			return -1;
		}
		w->c = nc;
		memset(&w->c[w->n], 0, sizeof(w->c[0]));
		if (parse_cond(&p, &w->c[w->n++], err, errlen)) {
			evcat_where_free(w);
			return -1;
		}
		p = skip_space(p);
		if (!*p)
			break;
		if (strncmp(p, "and", 3) || (p[3] != ' ' && p[3] != '\t')) {
			snprintf(err, errlen, "--where: \"and\" expected between conditions, not \"%.40s\"", p);
			evcat_where_free(w);
			return -1;
		}
		p += 3;
	}
	*out = w;
	return 0;
}

int evcat_where_bind(struct evcat_where *w, const struct evt_event_desc *events, unsigned int nr, char *err,
		     size_t errlen)
{
	unsigned int i, k;

	w->nr = nr;
	for (i = 0; i < w->n; i++) {
		struct wcond *c = &w->c[i];
		unsigned int named = 0, usable = 0;

		c->off = malloc((nr ? nr : 1) * sizeof(*c->off));
		c->type = malloc(nr ? nr : 1);
		if (!c->off || !c->type) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (k = 0; k < nr; k++) {
			enum evt_field_type t = EVT_F_U64;
			int off = evt_field_offset(&events[k], c->field, &t);
			const int is_str = t == EVT_F_STRING || t == EVT_F_COMM;

			named += off >= 0;
			/* A field of the other kind than the value (a number against a name) is no match. */
			if (off < 0 || t == EVT_F_SEQ_U8 || (c->is_num && is_str) ||
			    (!c->is_num && !is_str && c->op != W_GLOB) || (c->op == W_GLOB && !is_str))
				off = -1;
			usable += off >= 0;
			c->off[k] = off;
			c->type[k] = (uint8_t)t;
		}
		/* A condition no event can meet is a mistake in the command, not an empty answer. */
		if (!named) {
			snprintf(err, errlen, "--where: no event of this trace has a field \"%.60s\"", c->field);
			return -2;
		}
		if (!usable) {
			snprintf(err, errlen, "--where: %.60s is never %s in this trace's events", c->field,
				 c->op == W_GLOB || !c->is_num ? "a string (use a number)" : "a number (quote a string)");
			return -2;
		}
	}
	return 0;
}

static int cmp_num(enum wop op, __int128 a, __int128 b)
{
	switch (op) {
	case W_EQ: return a == b;
	case W_NE: return a != b;
	case W_LT: return a < b;
	case W_LE: return a <= b;
	case W_GT: return a > b;
	case W_GE: return a >= b;
	default: return 0;
	}
}

int evcat_where_match(const struct evcat_where *w, unsigned int idx, const uint8_t *payload, uint32_t len)
{
	unsigned int i;

	if (idx >= w->nr)
		return 0;
	for (i = 0; i < w->n; i++) {
		const struct wcond *c = &w->c[i];
		const int32_t off = c->off[idx];
		const enum evt_field_type t = (enum evt_field_type)c->type[idx];

		if (off < 0 || (uint32_t)off >= len)
			return 0;
		if (t == EVT_F_STRING || t == EVT_F_COMM) {
			char s[256];
			size_t max = len - (uint32_t)off, n;
			const uint8_t *nul;
			int r;

			if (t == EVT_F_COMM && max > 16)
				max = 16;
			nul = memchr(payload + off, 0, max);
			n = nul ? (size_t)(nul - (payload + off)) : max;
			if (n >= sizeof(s))
				n = sizeof(s) - 1;
			memcpy(s, payload + off, n);
			s[n] = 0;
			r = c->op == W_GLOB ? !fnmatch(c->str, s, 0) : c->op == W_EQ ? !strcmp(s, c->str) :
			    c->op == W_NE ? strcmp(s, c->str) != 0 : 0;
			if (!r)
				return 0;
		} else {
			__int128 v;
			size_t sz = evt_field_size(t);

			if (len - (uint32_t)off < sz)
				return 0;
			switch (t) {
			case EVT_F_U8: v = payload[off]; break;
			case EVT_F_U16: v = evt_ld16(payload + off); break;
			case EVT_F_U32: v = evt_ld32(payload + off); break;
			case EVT_F_S32: v = (int32_t)evt_ld32(payload + off); break;
			case EVT_F_S64: v = (int64_t)evt_ld64(payload + off); break;
			default: v = evt_ld64(payload + off); break;
			}
			if (!cmp_num(c->op, v, c->num))
				return 0;
		}
	}
	return 1;
}

void evcat_where_free(struct evcat_where *w)
{
	unsigned int i;

	if (!w)
		return;
	for (i = 0; i < w->n; i++) {
		free(w->c[i].field);
		free(w->c[i].str);
		free(w->c[i].off);
		free(w->c[i].type);
	}
	free(w->c);
	free(w);
}
