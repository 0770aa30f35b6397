/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TSDL (CTF 1.8 metadata) as evtrace writes it, parsed: the type aliases,
 * named structs, the trace, env and clock blocks, the streams, and the
 * events as a catalogue (struct evt_event_desc) the decoder can use in
 * place of the built-in one. What evtrace does not write (floating point,
 * big-endian, a field type outside its catalogue's) is refused with the
 * line it is on.
 */
#ifndef EVT_TSDL_H
#define EVT_TSDL_H

#include <stddef.h>
#include <stdint.h>
#include <evtrace/events.h>

/* An integer type's attributes (sizes and alignment in bits). */
struct evt_tsdl_int {
	unsigned int size, align, base;
	int is_signed, utf8;
	int clock;		/* map = clock.NAME.value */
};

enum evt_tsdl_kind { EVT_TSDL_INT, EVT_TSDL_STRING, EVT_TSDL_STRUCT, EVT_TSDL_ENUM, EVT_TSDL_VARIANT };

struct evt_tsdl_field;

/* A type: an integer, a string, a struct (its fields), an enum (its integer), a variant. */
struct evt_tsdl_type {
	enum evt_tsdl_kind kind;
	struct evt_tsdl_int i;			/* INT, ENUM's container */
	struct evt_tsdl_field *fields;		/* STRUCT, VARIANT */
	unsigned int nr_fields;
	unsigned int align;			/* STRUCT: align(N) in bytes, 0: none */
	char *spec;				/* ENUM: "LABEL=LO...HI," per mapping; VARIANT: its tag */
};

/* A field: its type, and for an array its length (a number, or the field named by len_field). */
struct evt_tsdl_field {
	char *name;
	struct evt_tsdl_type type;
	int is_array;
	unsigned long array_len;
	char *len_field;
	unsigned int line;
};

struct evt_tsdl_stream {
	uint64_t id;
	unsigned int line;		/* of the block's start */
	struct evt_tsdl_type event_header, packet_context;
};

struct evt_tsdl_env {
	char *key, *value;	/* value: the string's text, or a number's digits */
};

struct evt_tsdl {
	unsigned int major, minor;
	int big_endian;
	int has_uuid;
	uint8_t uuid[16];
	struct evt_tsdl_type packet_header;

	struct evt_tsdl_env *env;
	unsigned int nr_env;

	int has_clock;
	char *clock_name;
	uint64_t clock_freq, clock_offset_s, clock_offset;

	struct evt_tsdl_stream *streams;
	unsigned int nr_streams;

	/* The catalogue: names and fields malloc'd, channel = the stream id. */
	struct evt_event_desc *events;
	unsigned int *event_lines;	/* where each event block starts */
	unsigned int nr_events;
};

/*
 * A uuid's 32 hex digits at @s (dashes allowed after bytes 4, 6, 8 and
 * 10) into @u: where it ends, or NULL.
 */
const char *evt_uuid_parse(const char *s, uint8_t *u);

/*
 * Parse @len bytes of TSDL text: 0, or -1 with @err ("line N: ...").
 * Free it with evt_tsdl_free() either way.
 */
int evt_tsdl_parse(const char *text, size_t len, struct evt_tsdl *m, char *err, size_t errlen);
void evt_tsdl_free(struct evt_tsdl *m);
/*
 * 1 when @a and @b are the same type: kinds, integer attributes, field
 * names, arrays, enum mappings and variant tags; not how they were written
 * (aliases, named structs, spacing, comments).
 */
int evt_tsdl_type_same(const struct evt_tsdl_type *a, const struct evt_tsdl_type *b);

#endif /* EVT_TSDL_H */
