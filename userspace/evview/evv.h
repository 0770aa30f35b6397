/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evview's server: one analysis engine, stepped by one engine thread;
 * HTTP handler threads (libmicrohttpd, a thread per connection) take the
 * lock, submit an ad hoc request or read a ready result, and wait for
 * their request to end.
 */
#ifndef EVV_H
#define EVV_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <jansson.h>
#include "engine/evt_comps.h"
#include "engine/evt_engine.h"
#include "format/evt_symbols.h"

struct evv {
	/* Everything below that touches the engine is under lock. */
	pthread_mutex_t lock;
	pthread_cond_t work;		/* the engine thread sleeps here when idle */
	pthread_cond_t done;		/* handlers wait here for their request */
	/*
	 * Handlers that want the lock, and requests done whose handler has
	 * not woken yet: the engine thread steps back between chunks while
	 * either is non-zero (a mutex is not fair: it would take it again).
	 */
	atomic_int want_lock, wakeups;
	atomic_int quit;

	struct evt_engine *eng;
	struct evt_etrace *t;
	struct evt_trace *tr;		/* its reader: streams, chunks, catalogue */
	struct evt_traceset *ts;	/* every ad hoc request goes here */
	/* The kernel's symbols evdrain saved beside the trace: stacks by name (NULL: addresses). */
	struct evt_symbols *syms;
	uint64_t offset_ns;		/* realtime = clock + this */
	uint64_t first_rt, last_rt;	/* the span, from the packet index */
	/* The CPUs that have a stream (a lone compact_8191 is one CPU, not 8192). */
	unsigned int nr_cpus;
	unsigned int *cpu_of;		/* [nr_cpus]: their numbers, ascending */
	int32_t *slot_of;		/* [nr_slot_of]: a CPU's index in cpu_of, or -1 */
	unsigned int nr_slot_of;
	struct evt_stats *losses;	/* the packet index's losses (no events read) */
	struct evt_lossmap lossmap;	/* their windows, merged (evt_losses.h) */
	char error[EVT_ENGINE_ERRLEN];	/* a corrupt stream: where (the rest is served) */

	/* The background pass (state, stats, index). */
	int ready_state, ready_stats, ready_index, ready_marks, ready_io, ready_power;
	/* Wide windows (evv_api.c): running totals of the state, a reader for samples. */
	struct evt_window_summary *summary;
	struct evt_trace sample_tr;
	int sample_open;
	int progress_armed;
	uint64_t pass_rt;		/* the latest notification's time */
	unsigned int percent;

	char www[4096];			/* the page's files */
	char token[65];			/* the API's secret (evview.c) */
	struct sockaddr_in self;	/* where it listens */
};

/* ---- The handlers' turns (evv_turns.c) ---- */

/* Take the lock as a handler (the engine thread lets it in between chunks). */
void evv_enter(struct evv *s);
void evv_leave(struct evv *s);
/*
 * Submit @r to @ts (under the lock) and wait until it is done; the lock
 * is held again on return. -1: the submission failed (r->errmsg, or no
 * memory), or the server is stopping.
 */
int evv_run_request(struct evv *s, struct evt_traceset *ts, struct evt_request *r);
/* Whether state, stats, index and marks are all ready. */
int evv_all_ready(const struct evv *s);
/* The percent of the background pass (100 when ready). */
unsigned int evv_percent(const struct evv *s);

/* ---- The API (evv_api.c): each returns the HTTP status and sets *body (malloc'd JSON). ---- */

struct MHD_Connection;
unsigned int evv_api_trace(struct evv *s, struct MHD_Connection *c, char **body);
unsigned int evv_api_window(struct evv *s, struct MHD_Connection *c, char **body);
unsigned int evv_api_events(struct evv *s, struct MHD_Connection *c, char **body);
unsigned int evv_api_stats(struct evv *s, struct MHD_Connection *c, char **body);
unsigned int evv_api_thread(struct evv *s, struct MHD_Connection *c, char **body);
/* evv_detail.c: the whole trace's latencies and worst ones; a CPU's slice at a time. */
unsigned int evv_api_latency(struct evv *s, struct MHD_Connection *c, char **body);
unsigned int evv_api_slice(struct evv *s, struct MHD_Connection *c, char **body);
/* /api/trace's "losses": totals, merged windows, records (under the lock; NULL: no memory). */
json_t *evv_losses_json(const struct evv *s);

/* ---- Reading a request, writing its answer (evv_reply.c) ---- */

const char *evv_arg(struct MHD_Connection *c, const char *name);
/* A decimal number into *v (absent: untouched): 0, or the status of the error answer made. */
unsigned int evv_get_u64(struct MHD_Connection *c, const char *name, uint64_t *v, char **body);
/* from and to (realtime ns, the span when absent), inside the span: 0 or the error's status. */
unsigned int evv_get_range(struct evv *s, struct MHD_Connection *c, uint64_t *from, uint64_t *to, char **body);
json_t *evv_json_u64(uint64_t v);
/* @o as the answer (taken): 200, or 500 when it could not be written. */
unsigned int evv_reply(json_t *o, char **body);
/* Under the lock, a result not ready yet: leave the lock, answer {"computing":true,"percent":P}. */
unsigned int evv_reply_computing(struct evv *s, char **body);
/* {"error": msg} */
unsigned int evv_error(unsigned int status, char **body, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* EVV_H */
