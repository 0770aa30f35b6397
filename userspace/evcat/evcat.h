/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evcat's parts: the selection of events and tasks (evcat_filter.c) and
 * the task context of every line (evcat_ctx.c); evcat.c reads the trace,
 * merges it, on one thread or many, and prints.
 */
#ifndef EVCAT_H
#define EVCAT_H

#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include "engine/evt_curtask.h"
#include "format/evt_format.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_trace.h"

/* ---- Selection ---- */

struct evcat_ids {
	int32_t *v;
	uint32_t n, cap;
};
/* The ids of @list ("1010,1011") added for option --@what: 0, or -1 (said). */
int evcat_ids_add(struct evcat_ids *ids, const char *what, const char *list);

/* --pid, --tid, --comm: a line is printed when its task matches each option given (any of its values). */
struct evcat_taskf {
	struct evcat_ids pids, tids;
	char *comms;			/* the --comm globs, joined by commas (option parsing) */
	char **comm;			/* them, split */
	uint32_t ncomm;
	int active;
	int need_pid;			/* --pid: the pid must be known */
	int need_comm;
};
/* After option parsing: 0, or -1 (no memory). */
int evcat_taskf_ready(struct evcat_taskf *f);
/* 1 when @t matches (unknown fields match nothing), 0 when not. */
int evcat_taskf_match(const struct evcat_taskf *f, const struct evt_task *t);
void evcat_taskf_free(struct evcat_taskf *f);

/*
 * --where: "FIELD OP VALUE [and FIELD OP VALUE]...", OP one of == != < <=
 * > >= (numbers: decimal, 0x hex, negative; strings: quoted or a bare
 * word) and ~ (a string field against a glob). An event lacking a field
 * named does not match.
 */
struct evcat_where;
/* 0, or -1 with @err (a usage error). */
int evcat_where_parse(const char *text, struct evcat_where **out, char *err, size_t errlen);
/*
 * The fields' places for @cat's events: 0; -1 no memory; -2 a usage error
 * in @err (a field no event has, or never of the value's kind).
 */
int evcat_where_bind(struct evcat_where *w, const struct evt_event_desc *events, unsigned int nr, char *err,
		     size_t errlen);
/* 1 when the event (@idx in the bound catalogue, its payload) matches. */
int evcat_where_match(const struct evcat_where *w, unsigned int idx, const uint8_t *payload, uint32_t len);
void evcat_where_free(struct evcat_where *w);

/*
 * --event: names or globs over the catalogue's events, into @mask
 * (nr bytes): 0, or -1 (said: a name or glob that matches no event lists
 * the trace's events).
 */
int evcat_event_mask(const char *list, const struct evt_event_desc *events, unsigned int nr, uint8_t *mask);

/* ---- The task context of every line ---- */

/* What every slice's context shares (read-only once made). */
struct evcat_shared {
	const struct evt_trace *t;
	enum evt_fmt_kind kind;
	int print;			/* lines are made (else counted only) */
	const struct evcat_taskf *taskf;	/* NULL: none */
	const struct evcat_where *where;	/* NULL: none */
	const uint8_t *show;		/* the events printed (--event), by catalogue index; NULL: all */
	const uint8_t *stream_show;	/* the streams printed (--cpu), by stream index; NULL: all */
	uint8_t *kind_of;		/* per catalogue index: CK_* */
	int16_t exit_id_off;		/* exit_syscall's id field */
	uint8_t exit_id_type;
	int16_t sw_prev_off, sw_next_off;	/* sched_switch's prev_tid, next_tid */
	uint8_t sw_prev_type, sw_next_type;
	const char **sys_by_nr;		/* the 64-bit table: nr -> entry event name */
	uint32_t nr_sys;
	uint32_t nr_cpus;		/* the CPUs with a stream */
	/* The CPUs whose task the final context did not know when slices began (a slice assumes so). */
	uint8_t *unknown_cpu;
	uint32_t nr_unknown_cpu;
};
/* 0, or -1 (no memory). */
int evcat_shared_init(struct evcat_shared *sh, const struct evt_trace *t, enum evt_fmt_kind kind, int print);
void evcat_shared_free(struct evcat_shared *sh);
/* The events the context must see whatever --event says, added to @mask (nr bytes). */
void evcat_shared_needs(const struct evcat_shared *sh, uint8_t *mask);

struct evcat_ctx;

/*
 * A context: @final, the whole trace's, read in order from its start (what
 * it does not know nobody does); else a slice's, read from a time in the
 * middle, whose unknowns (a CPU's task before its first switch there, a
 * thread's pid or name or syscall told before the slice) are holes in its
 * lines, filled in order by evcat_ctx_resolve() against the context of the
 * slices before. NULL: no memory.
 */
struct evcat_ctx *evcat_ctx_new(const struct evcat_shared *sh, int final);
void evcat_ctx_free(struct evcat_ctx *x);
/* Each CPU's task before its first sched_switch, from the trace (a final context at the start). 0 or -1. */
int evcat_ctx_look_ahead(struct evcat_ctx *x, const struct evt_trace *t, uint64_t since);
/* @sh->unknown_cpu from the final context @g (before slices are read): 0, or -1 (no memory). */
int evcat_shared_unknown_cpus(struct evcat_shared *sh, const struct evcat_ctx *g);

/* What evcat_ctx_event() decided. */
struct evcat_line {
	int show;			/* print (or count) it */
	int fixup;			/* a slice's line to resolve later (counted then, not now) */
};

/*
 * The next event (merge order), its line formatted into @out with @fmt
 * when sh->print, its state fed. 0, or -1 (no memory or an output error).
 * EVCAT_FIRST: the line's delta is a hole (a slice's first line shown);
 * EVCAT_QUIET: its state only (an event before --from).
 */
#define EVCAT_FIRST 1u
#define EVCAT_QUIET 2u
int evcat_ctx_event(struct evcat_ctx *x, const struct evt_ref *r, struct evt_fmt *fmt, struct evt_out *out,
		    unsigned int flags, struct evcat_line *line);

/*
 * The run of events at @r (up to @n) that are plain lines, printed: no
 * selection at all (the caller's to know), no hole, no effect on the
 * context but a syscall's entry. How many (0: the next needs
 * evcat_ctx_event()), or (size_t)-1 (an output error). The loop of nearly
 * every line, kept apart from evcat_ctx_event()'s cases for speed.
 */
size_t evcat_ctx_plain(struct evcat_ctx *x, const struct evt_ref *r, size_t n, struct evt_fmt *fmt,
		       struct evt_out *out, uint64_t from);

/* How a slice's lines end up (evcat_ctx_resolve()). */
struct evcat_sink {
	struct evt_out *out;		/* where resolved lines go (printing) */
	uint64_t prev_ts;		/* the line before the slice's (its first line's delta) */
	int have_prev;
	/* Counted per line shown: the total, and per stream and event when not NULL. */
	uint64_t count;
	uint64_t *per_stream, *per_event;
	uint64_t first_ts, last_ts;
};

/*
 * Slice @x done (in order): its lines, resolved against @g (the final
 * context of everything before it), written to @sink->out from its buffer
 * @buf, counted; then @g takes in what @x learned. 0; 1 when @x's guesses
 * do not hold (events were lost where it began: the caller reads the slice
 * again through @g); -1 no memory or an output error.
 */
int evcat_ctx_resolve(struct evcat_ctx *x, struct evcat_ctx *g, const struct evt_out *buf, struct evcat_sink *sink);


/* ---- A reading ---- */

struct evcat_opts {
	const char *dir;
	enum evt_fmt_kind fmt;
	const char *from, *to;
	uint8_t *cpu_set;
	char *events;			/* the --event lists, joined by commas */
	uint8_t *event_mask;		/* by index in the trace's catalogue, once it is open */
	int count, stats, fail_on_loss, stacks;
	int list_events;		/* --list-events: the trace's event names, then exit */
	enum evt_merge_kind merge;
	unsigned int threads;
	uint64_t slice_bytes;
	struct evcat_taskf task;
	const char *where_text;
	struct evcat_where *where;
};

struct evcat_stats {
	uint64_t total;
	uint64_t *per_stream;
	uint64_t *per_event;
	uint64_t first, last;
};

#define EVCAT_POOL 64

struct evcat_run {
	const struct evcat_opts *o;
	struct evt_trace *t;
	uint64_t from, to;		/* the range, clock values */
	int print;			/* lines, not --count or --stats */
	/* --count without --stats or a selection: the merge counts, no reference is made. */
	int count_only;
	struct evt_out out;		/* stdout */
	struct evt_fmt fmt;		/* the output's: its delta runs across slices */
	struct evcat_stats st;
	char *err;			/* the decode error the merge stopped at */
	/* Slice text buffers, recycled: fresh ones would be faulted in and zeroed for every slice. */
	pthread_mutex_t pool_lock;
	struct evt_out pool[EVCAT_POOL];
	unsigned int npool;
	/* With the task context: */
	int use_ctx;
	struct evcat_shared sh;
	struct evcat_ctx *g;		/* the final context: of everything read so far */
	struct evcat_sink sink;
	uint8_t *merge_mask;		/* the events the merge gives (NULL: --event's, or all) */
	uint8_t *stream_show;		/* --cpu over the streams, when every stream is read */
	int plain;			/* printing without any selection: evcat_ctx_plain() */
};

/*
 * Read and print (or count) @c->t over [from, to], on one thread or
 * several: 0, 1 a decode error (c->err) or an output error (c->out.err),
 * -1 no memory. The ad hoc path (@et given: --from/--to on one thread,
 * no task context) goes through the analysis engine.
 */
struct evt_engine;
struct evt_etrace;
int evcat_run(struct evcat_run *c, struct evt_engine *eng, struct evt_etrace *et);

#endif /* EVCAT_H */
