// SPDX-License-Identifier: GPL-2.0
/*
 * The TSDL parser: a recursive descent over what evtrace's metadata uses
 * (see evt_tsdl.h), its blocks here, its lexer and types beside it
 * (evt_tsdl_parser.h). Errors name the line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf/evt_tsdl_parser.h"

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
		return evt_tsdl_fail(ps, "field %s of event %s: an array evtrace's catalogue does not have", f->name,
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
	return evt_tsdl_fail(ps, "field %s of event %s: a type evtrace's catalogue does not have", f->name, event);
}

/* The event's fields as the catalogue's (a sequence's u16 length field folded into it). */
static int event_fields(struct parser *ps, struct evt_event_desc *d, const struct evt_tsdl_type *st)
{
	struct evt_field_desc *fd;
	unsigned int i, n = 0;

	if (st->kind != EVT_TSDL_STRUCT)
		return evt_tsdl_fail(ps, "event %s: its fields are not a struct", d->name);
	fd = calloc(st->nr_fields ? st->nr_fields : 1, sizeof(*fd));
	if (!fd)
		return evt_tsdl_fail(ps, "out of memory");
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
				return evt_tsdl_fail(ps, "field %s of event %s: a sequence whose length is not the "
					    "%s %s_len just before it", f->name, d->name,
					    lt == EVT_F_U16 ? "uint16_t" : "uint32_t", f->name);
			free((char *)fd[--n].name);
			fd[n].name = NULL;
		}
		name = strdup(f->name);
		if (!name)
			return evt_tsdl_fail(ps, "out of memory");
		fd[n].name = name;
		fd[n].type = (enum evt_field_type)type;
		n++;
		d->nr_fields = (unsigned char)n;
	}
	if (n > 255)
		return evt_tsdl_fail(ps, "event %s: more than 255 fields", d->name);
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

	if (evt_tsdl_lex(ps) || evt_tsdl_expect(ps, "{"))
		return -1;
	if (kind == B_CLOCK) {
		if (m->has_clock)
			return evt_tsdl_fail(ps, "a second clock: evcat reads one");
		m->has_clock = 1;
	}
	while (!evt_tsdl_is_punct(ps, "}")) {
		char key[64], val[256];
		uint64_t num = 0;
		int is_num;

		if (evt_tsdl_take_dotted(ps, key, sizeof(key)))
			goto out;
		if (evt_tsdl_is_punct(ps, ":=")) {
			struct evt_tsdl_type *dst =
				kind == B_TRACE && !strcmp(key, "packet.header") ? &m->packet_header :
				kind == B_STREAM && !strcmp(key, "event.header") ? &st.event_header :
				kind == B_STREAM && !strcmp(key, "packet.context") ? &st.packet_context :
				kind == B_EVENT && !strcmp(key, "fields") ? &fields : NULL;

			if (!dst) {
				evt_tsdl_fail(ps, "%s := is not one evtrace writes there", key);
				goto out;
			}
			evt_tsdl_type_free(dst);
			if (evt_tsdl_lex(ps) || evt_tsdl_parse_type(ps, dst) || evt_tsdl_expect(ps, ";"))
				goto out;
			have_fields |= dst == &fields;
			continue;
		}
		if (evt_tsdl_expect(ps, "=") || evt_tsdl_take_value(ps, val, sizeof(val), &num, &is_num) || evt_tsdl_expect(ps, ";"))
			goto out;
		if (kind == B_ENV) {
			struct evt_tsdl_env *n = realloc(m->env, (m->nr_env + 1) * sizeof(*n));

			if (!n) {
				evt_tsdl_fail(ps, "out of memory");
				goto out;
			}
			m->env = n;
			n[m->nr_env].key = strdup(key);
			n[m->nr_env].value = strdup(val);
			if (!n[m->nr_env].key || !n[m->nr_env++].value) {
				evt_tsdl_fail(ps, "out of memory");
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
				evt_tsdl_fail(ps, "uuid \"%s\" is malformed", val);
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
			evt_tsdl_fail(ps, "%s = %s is not one evtrace writes there", key, val);
			goto out;
		}
	}
	if (evt_tsdl_lex(ps) || evt_tsdl_expect(ps, ";"))
		goto out;
	if (kind == B_STREAM) {
		struct evt_tsdl_stream *n;

		if (!have_id) {
			evt_tsdl_fail(ps, "a stream without its id");
			goto out;
		}
		n = realloc(m->streams, (m->nr_streams + 1) * sizeof(*n));
		if (!n) {
			evt_tsdl_fail(ps, "out of memory");
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
			evt_tsdl_fail(ps, "an event without its name, id, stream_id or fields");
			goto out;
		}
		if (stream_id >= EVT_NR_CHANNELS || id > 0xffff) {
			evt_tsdl_fail(ps, "event %s: stream_id %llu or id %llu out of range", ev_name,
			     (unsigned long long)stream_id, (unsigned long long)id);
			goto out;
		}
		unsigned int *lines = realloc(m->event_lines, (m->nr_events + 1) * sizeof(*lines));

		if (lines)
			m->event_lines = lines;
		n = lines ? realloc(m->events, (m->nr_events + 1) * sizeof(*n)) : NULL;
		if (!n) {
			evt_tsdl_fail(ps, "out of memory");
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
	evt_tsdl_type_free(&fields);
	evt_tsdl_type_free(&st.event_header);
	evt_tsdl_type_free(&st.packet_context);
	return ret;
}

int evt_tsdl_parse(const char *text, size_t len, struct evt_tsdl *m, char *err, size_t errlen)
{
	struct parser ps = { .p = text, .end = text + len, .line = 1, .err = err, .errlen = errlen, .m = m };
	unsigned int i;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (evt_tsdl_lex(&ps))
		goto out;
	while (ps.t.kind != T_EOF) {
		char b[64];

		if (evt_tsdl_is_ident(&ps, "typealias")) {
			if (evt_tsdl_parse_typealias(&ps))
				goto out;
		} else if (evt_tsdl_is_ident(&ps, "struct")) {
			struct evt_tsdl_type t;
			char *name;

			memset(&t, 0, sizeof(t));
			if (evt_tsdl_lex(&ps) || evt_tsdl_parse_struct(&ps, &t, &name)) {
				evt_tsdl_type_free(&t);
				goto out;
			}
			if (!name) {
				evt_tsdl_type_free(&t);
				evt_tsdl_fail(&ps, "a struct at the top level without a name");
				goto out;
			}
			if (evt_tsdl_keep_struct(&ps, name, &t) || evt_tsdl_expect(&ps, ";")) {
				evt_tsdl_type_free(&t);
				goto out;
			}
			evt_tsdl_type_free(&t);
		} else if (evt_tsdl_is_ident(&ps, "trace") || evt_tsdl_is_ident(&ps, "env") || evt_tsdl_is_ident(&ps, "clock") ||
			   evt_tsdl_is_ident(&ps, "stream") || evt_tsdl_is_ident(&ps, "event")) {
			enum block k = evt_tsdl_is_ident(&ps, "trace") ? B_TRACE : evt_tsdl_is_ident(&ps, "env") ? B_ENV :
				       evt_tsdl_is_ident(&ps, "clock") ? B_CLOCK : evt_tsdl_is_ident(&ps, "stream") ? B_STREAM :
				       B_EVENT;

			if (parse_block(&ps, k))
				goto out;
		} else {
			evt_tsdl_fail(&ps, "expected a declaration, found %s", evt_tsdl_tok_text(&ps.t, b, sizeof(b)));
			goto out;
		}
	}
	ret = 0;
out:
	if (ps.failed)
		ret = -1;
	for (i = 0; i < ps.nr_aliases; i++) {
		free(ps.aliases[i].name);
		evt_tsdl_type_free(&ps.aliases[i].type);
	}
	free(ps.aliases);
	for (i = 0; i < ps.nr_structs; i++) {
		free(ps.structs[i].name);
		evt_tsdl_type_free(&ps.structs[i].type);
	}
	free(ps.structs);
	return ret;
}

void evt_tsdl_free(struct evt_tsdl *m)
{
	unsigned int i, j;

	evt_tsdl_type_free(&m->packet_header);
	for (i = 0; i < m->nr_env; i++) {
		free(m->env[i].key);
		free(m->env[i].value);
	}
	free(m->env);
	free(m->clock_name);
	for (i = 0; i < m->nr_streams; i++) {
		evt_tsdl_type_free(&m->streams[i].event_header);
		evt_tsdl_type_free(&m->streams[i].packet_context);
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
