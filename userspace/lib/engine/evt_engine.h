/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analysis engine: the request-servicing schedulers of Desnoyers,
 * "Linux Trace Toolkit Requests Servicing Schedulers" (LTTV's, 2004;
 * docs/references.md) for evtrace traces.
 *
 * - Traces are global objects: one open instance per trace path (a trace
 *   directory or a run of chunks) in a process, shared by every traceset
 *   that names it, closed when the last reference goes. A trace's streams
 *   are mapped only when a request needs its events: a process that finds
 *   every result it wants saved beside the trace never reads them.
 * - Ad hoc requests (a viewer's "these events, now") go to a traceset and
 *   are serviced by its foreground scheduler, a chunk at a time, each
 *   request seeking through the packet index to its start.
 * - Precomputations (computations registered by name: state, stats, index,
 *   ...) run per trace in the background scheduler, with the v1 algorithm
 *   of the document (list_in / list_out / notify_in / notify_out): a pass
 *   reads the trace from start to end with the hooks of every request of
 *   the pass in one context; requests that arrive during a pass wait in
 *   list_out for the next.
 * - The engine is driven by evt_engine_step(): one chunk each call, an ad
 *   hoc one whenever any is pending (a background chunk only when none
 *   is), so a caller's loop (a server's, a GUI's idle function) may add or
 *   remove requests between any two chunks; the schedulers make no
 *   assumption about the pools when they resume.
 * - Attributes per trace: computation/<name>/in_progress and .../ready
 *   (evt_etrace_attr()); a consumer that finds ready reads the result, one that
 *   finds in_progress asks to be told when it is done
 *   (evt_bg_notify_current()) rather than requesting a second pass.
 * - A computation's result is saved beside the trace (evt_results.c),
 *   keyed by the trace's UUID and its files' sizes and mtimes.
 *
 * Single-threaded: one thread calls into an engine (a server serialises).
 */
#ifndef EVT_ENGINE_H
#define EVT_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "engine/evt_buf.h"
#include "engine/evt_hooks.h"
#include "ctf/evt_trace.h"

#define EVT_ENGINE_ERRLEN EVT_TRACE_ERRLEN
#define EVT_TIME_END UINT64_MAX		/* "to the end" (and "no notify time") */

struct evt_engine;
struct evt_etrace;
struct evt_traceset;
struct evt_request;
struct evt_computation;
struct evt_buf;

/* ---- What hooks receive ---- */

/* An event: the call data of event hooks (valid during the call). */
struct evt_engine_event {
	struct evt_etrace *trace;
	const struct evt_trace *tr;		/* its reader (tr->md.cat: the catalogue) */
	uint64_t ts;				/* trace clock (ns) */
	uint64_t rt;				/* realtime ns: ts + the trace's offset */
	uint64_t pos;				/* events before it in this pass or request */
	const struct evt_event_desc *desc;
	unsigned int idx;			/* desc's index in tr->md.cat->events */
	unsigned int stream, cpu, channel;
	const uint8_t *payload;
	uint32_t len;
};

/*
 * The call data of before/after request and chunk hooks, and of
 * notifications: where the pass or request is.
 */
struct evt_where {
	struct evt_engine *eng;
	struct evt_etrace *trace;		/* background: the trace; ad hoc: NULL */
	struct evt_request *req;		/* ad hoc: the request; background: NULL */
	const char *computation;		/* background request hooks: whose */
	uint64_t rt;				/* the last event's time (realtime ns), 0 before any */
	uint64_t pos;				/* events delivered so far */
	int end;				/* the end was reached (of the trace or the range) */
	int error;				/* the reading stopped at a decoding error (errmsg) */
	const char *errmsg;
};

/*
 * A context: the hooks a reading calls (LTTV's traceset context). Event
 * hooks by event are kept per index of the trace's catalogue; hooks are
 * named by event name, so one set of hooks serves traces whose catalogues
 * differ.
 */
struct evt_ctx {
	const struct evt_catalogue *cat;
	struct evt_hooks before_chunk, after_chunk;
	struct evt_hooks event;			/* every event */
	struct evt_hooks *by_id;		/* [cat->nr_events] */
	unsigned int nr_by_id;			/* lists in use, for the fast path */
	/* by-name hooks not yet resolved against a catalogue (an ad hoc request's) */
	struct evt_named_hook *named;
	unsigned int nr_named, cap_named;
};

/* Add/remove a per-event hook by event name: an event the catalogue lacks is no error (0). */
int evt_ctx_add_event(struct evt_ctx *c, const char *event, evt_hook_fn fn, void *data);
void evt_ctx_remove_event(struct evt_ctx *c, const char *event, evt_hook_fn fn, void *data);

/* ---- The engine ---- */

struct evt_engine_opts {
	uint64_t fg_chunk;		/* events per ad hoc chunk (0: 16384) */
	uint64_t bg_chunk;		/* events per background chunk (0: 65536: ~10 ms, what an ad hoc request may wait) */
	int no_saved_results;		/* neither read nor write saved results */
	/* Where results go when the trace's directory is not writable (NULL: $XDG_CACHE_HOME/evtrace or ~/.cache/evtrace). */
	const char *cache_dir;
	/* Warnings (a corrupt results file ...): NULL: stderr with "evtrace: ". */
	void (*warn)(void *data, const char *msg);
	void *warn_data;
};

struct evt_engine *evt_engine_new(const struct evt_engine_opts *o);
/* Every traceset and trace must have been released. */
void evt_engine_free(struct evt_engine *e);

/*
 * One chunk of work: an ad hoc chunk when any traceset has a request
 * pending (tracesets in turn), else a background chunk (traces in turn).
 * 1: there is more work, 0: idle.
 */
int evt_engine_step(struct evt_engine *e);
/* Steps until idle. */
void evt_engine_run(struct evt_engine *e);
/* 1 when a step would do something. */
int evt_engine_busy(const struct evt_engine *e);

/* What the engine did, for tests and benchmarks. */
struct evt_engine_stats {
	uint64_t fg_chunks, bg_chunks;		/* chunks run */
	uint64_t fg_events, bg_events;		/* events read */
	uint64_t bg_passes;			/* background passes started */
	uint64_t traces_opened;			/* stream sets mapped */
	uint64_t results_loaded, results_saved, results_rejected;
};
void evt_engine_get_stats(const struct evt_engine *e, struct evt_engine_stats *s);

/* ---- Computations (Desnoyers 2004: "an API for calculation modules") ---- */

struct evt_computation {
	const char *name;
	unsigned int version;		/* of the saved form: another version is not loaded */
	/* Its result for @t, empty (NULL: no memory). */
	void *(*create)(struct evt_etrace *t);
	void (*destroy)(void *result);
	/*
	 * Add / remove its hooks to / from a context (Desnoyers 2004's hook adder
	 * and remover). @result is the one create() made for the trace.
	 * Adder: 0 or -1 (no memory).
	 */
	int (*hook_adder)(struct evt_ctx *ctx, void *result);
	void (*hook_remover)(struct evt_ctx *ctx, void *result);
	/* Called once the pass has read the whole trace (may be NULL). */
	void (*finish)(void *result, const struct evt_where *w);
	/*
	 * Its saved form (may be NULL: never saved). save: append to @out
	 * (evt_buf_*), 0 or -1. load: 0, or -1 when the bytes are not a
	 * result of this version (the file is then ignored with a warning).
	 */
	int (*save)(const void *result, struct evt_buf *out);
	int (*load)(void *result, const uint8_t *p, size_t n);
	/*
	 * A computation that follows the scheduler (state) may say which
	 * thread runs on @cpu at clock value @ts (-2: unknown): ad hoc
	 * requests with a thread filter start from it. May be NULL.
	 */
	int32_t (*running_tid)(const void *result, unsigned int cpu, uint64_t ts);
};

/*
 * Register @c (kept by reference). -1 with errno EEXIST when the name is
 * taken.
 */
int evt_engine_register(struct evt_engine *e, const struct evt_computation *c);
/*
 * Unregister: every trace's pending requests for it are removed (their
 * after_request hooks are not called), a pass in progress stops running
 * its hooks, its results are freed and it is neither in progress nor ready.
 */
int evt_engine_unregister(struct evt_engine *e, const char *name);
const struct evt_computation *evt_engine_computation(const struct evt_engine *e, const char *name);
/* Register state, stats, index, io and power (evt_comp_*.c). 0 or -1. */
int evt_engine_register_builtin(struct evt_engine *e);

/* ---- Traces: global objects ---- */

/*
 * The trace at @path (a trace directory, DIR/kernel's parent, or a run of
 * chunks): the open one when this process has it (one more reference),
 * else a new one. NULL with @err set. Only the metadata is read here.
 */
struct evt_etrace *evt_etrace_get(struct evt_engine *e, const char *path, char *err, size_t errlen);
/*
 * The same, with the options its reader opens with (a run of chunks: only
 * those of a time range; some CPUs) when this call makes the instance.
 */
struct evt_etrace *evt_etrace_get_opts(struct evt_engine *e, const char *path, const struct evt_trace_opts *o,
				      char *err, size_t errlen);
/* One reference less; the last closes the trace (pending background requests are dropped). */
void evt_etrace_put(struct evt_etrace *t);
const char *evt_etrace_path(const struct evt_etrace *t);
/* Realtime = clock + this. */
uint64_t evt_etrace_offset_ns(const struct evt_etrace *t);
/*
 * The reader, its streams mapped and indexed (done on first use): NULL
 * with evt_etrace_error() set when the trace cannot be opened.
 */
struct evt_trace *evt_etrace_reader(struct evt_etrace *t);
/*
 * A stream file of @t cut while it is read (a truncate, a copy over it)
 * ends the process with a message naming the file, exit status 1, not
 * SIGBUS (evt_trace_catch_cut), whether the reader is open yet or not.
 * One trace per process. 0, or -1 with errno.
 */
int evt_etrace_catch_cut(struct evt_etrace *t, const char *prog);
const char *evt_etrace_error(const struct evt_etrace *t);
/* The trace's time span (realtime ns) from the packet index: opens the reader. 0 or -1. */
int evt_etrace_span(struct evt_etrace *t, uint64_t *begin_rt, uint64_t *end_rt);

/*
 * Attributes (Desnoyers 2004's "computation/<name>/in_progress" and
 * ".../ready"): 1 when set, 0 when not, -1 for another path.
 */
int evt_etrace_attr(const struct evt_etrace *t, const char *path);
int evt_comp_in_progress(const struct evt_etrace *t, const char *name);
int evt_comp_ready(const struct evt_etrace *t, const char *name);
/* The result of @name for @t once ready (else NULL). */
void *evt_comp_result(const struct evt_etrace *t, const char *name);
/*
 * The file @name's ready result was loaded from (saved by an earlier run:
 * a program says so beside the figures), or NULL when it was computed.
 */
const char *evt_comp_saved_from(const struct evt_etrace *t, const char *name);
/* The decoding error that ended the pass which made the ready results, or NULL. */
const char *evt_comp_error(const struct evt_etrace *t);

/* ---- Background requests (precomputations) ---- */

/*
 * Queue a request for computation @name on @t (list_out): served by the
 * next pass. @after_request (may be NULL) is called with a struct
 * evt_where when the pass is over. -1: unknown computation (errno ENOENT)
 * or no memory.
 */
int evt_bg_request(struct evt_etrace *t, const char *name, void *owner,
		   evt_hook_fn after_request, void *data);
/*
 * Notifications: @fn called when the pass reaches @notify_rt (realtime;
 * EVT_TIME_END: none) or @notify_pos events (UINT64_MAX: none), or at its
 * end, whichever first. _queue: for the next pass (notify_out); _current:
 * for the pass in progress (notify_in; with none in progress, called now).
 */
int evt_bg_notify_queue(struct evt_etrace *t, void *owner, uint64_t notify_rt, uint64_t notify_pos,
			evt_hook_fn fn, void *data);
int evt_bg_notify_current(struct evt_etrace *t, void *owner, uint64_t notify_rt, uint64_t notify_pos,
			  evt_hook_fn fn, void *data);
/* Remove @owner's background requests and notifications (a viewer going away). */
void evt_bg_remove_owner(struct evt_etrace *t, void *owner);
/*
 * The document's "typical use for a viewer": ready -> 1 (nothing queued,
 * read the result); in_progress -> 0 and @fn is called when the pass
 * ends (a notification, not a second request); else -> 0 and a request
 * is queued whose end calls @fn. -1: unknown computation / no memory.
 */
int evt_comp_want(struct evt_etrace *t, const char *name, void *owner, evt_hook_fn fn, void *data);
/* Passes done and running on @t, for tests. */
struct evt_bg_info {
	unsigned int list_in, list_out, notify_in, notify_out;
	uint64_t passes;		/* started */
	uint64_t pos;			/* events read by the pass in progress */
};
void evt_bg_info(const struct evt_etrace *t, struct evt_bg_info *i);

/* ---- Tracesets and ad hoc requests ---- */

/* A tab's workspace: the traces it looks at (one reference each). */
struct evt_traceset *evt_traceset_new(struct evt_engine *e);
int evt_traceset_add(struct evt_traceset *ts, struct evt_etrace *t);
/* Pending requests are dropped (not called); each trace loses a reference. */
void evt_traceset_free(struct evt_traceset *ts);

enum evt_req_state { EVT_REQ_NEW, EVT_REQ_PENDING, EVT_REQ_RUNNING, EVT_REQ_DONE };

/*
 * An ad hoc request: the events of [from_rt, to_rt] (realtime ns,
 * inclusive) of every trace of its traceset, in time order, at most
 * max_events of them (0: all), filtered by CPU, thread and event name.
 */
struct evt_request {
	void *owner;
	uint64_t from_rt, to_rt;
	uint64_t max_events;
	const uint8_t *cpu_set;		/* bitmap, NULL: all CPUs */
	unsigned int cpu_set_bits;
	int32_t tid;			/* only events while this thread runs on the CPU, -1: any */
	const char *const *events;	/* only these events (NULL-terminated names), NULL: all */
	struct evt_hooks before_request, after_request;
	struct evt_ctx ctx;		/* before/after chunk and event hooks */
	int stop;			/* a hook sets it: the request ends after the current event */
	/* Filled by the engine. */
	enum evt_req_state state;
	uint64_t delivered;
	/*
	 * A thread filter before the state computation is ready: a CPU's
	 * thread is unknown until its first switch, its events then are not
	 * delivered and this is set (Desnoyers 2004: ad hoc results may be
	 * incomplete while precomputation runs).
	 */
	int incomplete;
	int error;
	char errmsg[EVT_ENGINE_ERRLEN];
	struct evt_req_priv *priv;
	struct evt_traceset *ts;
	struct evt_request *next_pending;
};

/* A request with no filter, the whole time range. */
void evt_request_init(struct evt_request *r, void *owner);
/* Its hooks (as evt_hooks_add / evt_ctx_add_event on its lists). */
void evt_request_release(struct evt_request *r);
/*
 * Submit to the traceset's foreground scheduler (the request must stay
 * valid until DONE or removed). 0 or -1 (no memory, or bad range: errmsg).
 */
int evt_request_submit(struct evt_traceset *ts, struct evt_request *r);
/* Withdraw a request (its after_request hooks are not called). */
void evt_request_remove(struct evt_request *r);

/* ---- Payload fields, by name, for computations ---- */

/*
 * A field of a fixed-layout prefix of @d: its byte offset and type, or -1
 * when @d has no such field or a variable-sized field comes before it.
 */
int evt_field_offset(const struct evt_event_desc *d, const char *name, enum evt_field_type *type);
/* A signed/unsigned integer field of an event (0 when beyond the payload). */
int64_t evt_event_int(const struct evt_engine_event *ev, int off, enum evt_field_type type);

#endif /* EVT_ENGINE_H */
