/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every JSON document the programs write (evstat --json, evcat --stats
 * --format json, evctl status --json, evdrain --stats-json, a chunk's
 * summary.json) is built with jansson and written here: one escaper
 * (jansson's, ASCII only), a "schema" member first that names the
 * document and its version (docs/schemas/NAME.json describes each).
 * evcat's per-event rows are the one exception: evt_format writes them
 * with its own escaper, which keeps the same string values (see
 * docs/schemas/README.md for why: speed).
 */
#ifndef EVT_JSON_H
#define EVT_JSON_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

/* The documents' schema names (docs/schemas/<name>.json without the version). */
#define EVT_SCHEMA_STATS "evtrace.stats/1"
#define EVT_SCHEMA_CAT_STATS "evtrace.cat-stats/1"
#define EVT_SCHEMA_STATUS "evtrace.status/1"
#define EVT_SCHEMA_DRAIN_STATS "evtrace.drain-stats/1"
#define EVT_SCHEMA_CHUNK_SUMMARY "evtrace.chunk-summary/1"

/* A count: jansson's integers are signed, so one past INT64_MAX is null, never negative. */
json_t *evt_json_u64(uint64_t v);

/*
 * At most @n bytes of @s (up to a NUL) as a JSON string: any bytes a task
 * or a trace chose. Well-formed UTF-8 stays as it is, every other byte
 * becomes the character U+00XX of its value (what evcat's rows write as
 * \u00XX), so the value is the same in every program's output.
 */
json_t *evt_json_bytes(const char *s, size_t n);
/* The same for a NUL-terminated @s; NULL @s is JSON null. */
json_t *evt_json_str(const char *s);

/*
 * Write @doc (its reference taken) to @f as one line, ASCII only (every
 * character past ASCII, every control and DEL as \uXXXX: nothing a
 * terminal acts on), then a newline. @flags: jansson's (JSON_COMPACT for
 * "a":1,"b":2; without it "a": 1, "b": 2). A NULL @doc (a failed
 * allocation while building it) writes nothing. 0, or -1 (out of memory
 * or an output error).
 */
int evt_json_write(FILE *f, json_t *doc, size_t flags);
/*
 * The same for a document read by people and line tools (evctl status
 * --json): one top-level member a line, each object of an array of
 * objects on a line of its own ("key": value within a line).
 */
int evt_json_write_lines(FILE *f, json_t *doc);

#endif
