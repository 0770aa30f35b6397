/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing events: text close to babeltrace2's layout, or JSON, one event
 * per line, into a large output buffer written with write(2).
 *
 * text:  [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) cpu N name: { field = value, ... }
 * json:  {"ts":CLOCK_NS,"time":"YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ","cpu":N,
 *         "event":"name","fields":{"field":value,...}}
 *
 * Times are the clock value plus the metadata's clock offset, in UTC. The
 * delta is to the previous event printed (+?.????????? for the first).
 */
#ifndef EVT_FORMAT_H
#define EVT_FORMAT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <evtrace/events.h>
#include "util/evt_esc.h"

struct evt_out {
	int fd;
	int err;		/* errno of a failed write */
	char *buf;
	size_t len, cap;
};

/* 0 or -1 (no memory). @fd < 0: in memory only, the buffer grows. */
int evt_out_init(struct evt_out *o, int fd, size_t cap);
/* Write what is buffered: 0 or -1 (o->err). */
int evt_out_flush(struct evt_out *o);
void evt_out_free(struct evt_out *o);
/* Room for @n more bytes at o->buf + o->len: NULL on a write error / no memory. */
char *evt_out_room(struct evt_out *o, size_t n);

enum evt_fmt_kind {
	EVT_FMT_TEXT = 0,
	EVT_FMT_JSON = 1,
};

struct evt_fmt_tmpl;

struct evt_symbols;
/* A function's name for an address, at most (evt_symbols_name()). */
#define EVT_FMT_SYM_MAX 256

struct evt_fmt {
	enum evt_fmt_kind kind;
	const struct evt_event_desc *events;	/* the catalogue printed */
	unsigned int nr_events;
	const struct evt_fmt_tmpl *tmpl;	/* per events[] entry */
	uint64_t offset_ns;	/* realtime = clock + offset */
	uint64_t prev_ts;
	int have_prev;
	uint64_t cached_sec;
	int have_cached;
	char cached[32];	/* "HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS" for cached_sec */
	size_t cached_len;
	/* Set: a stack's addresses (u64 sequences) are printed as function names. */
	const struct evt_symbols *syms;
};

#define EVT_FMT_LATE 1U

/*
 * Print events of the catalogue @events (@nr of them: a trace's, its
 * metadata's): 0, or -1 (no memory).
 */
int evt_fmt_init(struct evt_fmt *f, enum evt_fmt_kind kind, uint64_t offset_ns,
		 const struct evt_event_desc *events, unsigned int nr);
void evt_fmt_free(struct evt_fmt *f);
/* Append one event line (@d one of the catalogue's); 0 or -1 (output error). */
int evt_fmt_event(struct evt_fmt *f, struct evt_out *o, uint64_t ts, uint32_t cpu,
		  const struct evt_event_desc *d, const uint8_t *payload, uint32_t len,
		  unsigned int flags);

/*
 * A line with its context (evcat): the task that ran and, for
 * exit_syscall, the syscall it ends, rendered by evt_fmt_task() and
 * evt_fmt_sysname(), or left as holes to fill later (their offsets in
 * o->buf are given back):
 *
 * text:  [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) comm/tid [CPU] name: { [syscall = NAME,] field = value, ... }
 * json:  {"ts":..,"time":"..","cpu":N,"tid":T,"pid":P,"comm":"C","event":"name"
 *         [,"syscall":"NAME","syscall_from":"entry"|"id"],"fields":{...}}
 */
struct evt_fmt_ctx {
	/* evt_fmt_task()'s, or NULL: a hole at task_at; its buffer EVT_FMT_TASK_MAX bytes long */
	const char *task;
	size_t task_len;	/* its length (a hole: the most it may take) */
	int task_cpu;		/* text: @task ends with the CPU's part, evt_fmt_cpu()'s (a CPU's cached task) */
	int has_sys;		/* an exit_syscall: its syscall's part is printed */
	const char *sys;	/* evt_fmt_sysname()'s, or NULL: a hole at sys_at */
	size_t sys_len;
	int delta_hole;		/* text: the delta is a hole at delta_at (evt_fmt_delta() fills it) */
	size_t task_at, sys_at, delta_at;	/* out */
};
/* A text line's delta, "+S.nnnnnnnnn" ("+?.?????????" without @have_prev): its length. */
#define EVT_FMT_DELTA_MAX 32
size_t evt_fmt_delta(char *out, uint64_t prev_ts, int have_prev, uint64_t ts);
/* Bytes evt_fmt_task() and evt_fmt_sysname() write at most. */
#define EVT_FMT_TASK_MAX 160
#define EVT_FMT_SYSNAME_MAX 64
#define EVT_FMT_SYSNAME_BYTES (6 * EVT_FMT_SYSNAME_MAX + 64)
size_t evt_fmt_task(char *out, enum evt_fmt_kind kind, int32_t tid, int32_t pid, const char *comm);
/* A text line's CPU after its task, " [007]": its length (at most EVT_FMT_CPU_MAX). */
#define EVT_FMT_CPU_MAX 16
size_t evt_fmt_cpu(char *out, uint32_t cpu);
/* @name: an entry event's name ("" writes nothing); @by_entry: from the call's entry, not its number. */
size_t evt_fmt_sysname(char *out, enum evt_fmt_kind kind, const char *name, int by_entry);
int evt_fmt_event_ctx(struct evt_fmt *f, struct evt_out *o, uint64_t ts, uint32_t cpu,
		      const struct evt_event_desc *d, const uint8_t *payload, uint32_t len,
		      unsigned int flags, struct evt_fmt_ctx *c);

/*
 * Only the event's fields, as the JSON object evt_fmt_event() prints
 * ({"fd":3,"buf":"0x7ffd..."}; @f made with EVT_FMT_JSON), appended to
 * @o without a newline: 0 or -1 (output error).
 */
int evt_fmt_fields_json(struct evt_fmt *f, struct evt_out *o, const struct evt_event_desc *d,
			const uint8_t *payload, uint32_t len);

/* Helpers also used for statistics: "HH:MM:SS.nnnnnnnnn" of a realtime ns value. */
size_t evt_fmt_clock(char *out, uint64_t realtime_ns, int with_date);
/* Decimal digits of @v at @out (no NUL): the length. */
size_t evt_fmt_u64(char *out, uint64_t v);
/* The same digits as the lines write them: @out must hold 28 bytes (the digits, then scratch). */
size_t evt_fmt_u64_wide(char *out, uint64_t v);
/* evt_fmt_esc(), evt_fputs_esc(), evt_fmt_utf8_len(): util/evt_esc.h. */

#endif /* EVT_FORMAT_H */
