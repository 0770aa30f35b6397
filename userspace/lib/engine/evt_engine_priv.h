/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's insides, shared by its files (evt_registry.c, evt_bg.c, evt_fg.c, ...). */
#ifndef EVT_ENGINE_PRIV_H
#define EVT_ENGINE_PRIV_H

#include "engine/evt_engine.h"
#include "ctf/evt_merged.h"

#define EVT_BG_BATCH 4096		/* events taken from the merge at once */
#define EVT_FG_BATCH 1024

/*
 * A background request (BackgroundRequest in Desnoyers, "Linux Trace Toolkit
 * Requests Servicing Schedulers", 2004; docs/references.md).
 */
struct bg_request {
	struct bg_request *next;
	const struct evt_computation *c;
	void *owner;
	evt_hook_fn after;		/* after_request, NULL: nobody to tell */
	void *data;
};

/* A notification (Desnoyers 2004's BackgroundNotify). */
struct bg_notify {
	struct bg_notify *next;
	void *owner;
	uint64_t rt, pos;		/* EVT_TIME_END / UINT64_MAX: none */
	evt_hook_fn fn;
	void *data;
};

/* A computation's attributes and result on one trace. */
struct comp_slot {
	const struct evt_computation *c;	/* NULL once unregistered */
	void *result;
	int in_progress, ready;
	int loaded;				/* ready from a saved result */
	char *loaded_from;			/* its file */
};

/* The background scheduler's state on one trace: its lists and its pass (evt_bg.c). */
struct evt_bg_pass {
	struct bg_request *list_in, *list_out;
	struct bg_notify *notify_in, *notify_out;
	struct evt_ctx ctx;
	int active;
	struct evt_trace tr;			/* the pass's reader (a clone) */
	struct evt_merged mt;
	struct evt_ref *refs;
	uint64_t pos, rt, passes;
	int seen;
	char *error;
};

struct evt_etrace {
	struct evt_engine *eng;
	struct evt_etrace *next;
	char *path;				/* realpath: the instance's identity */
	unsigned int refs;
	uint64_t offset_ns;			/* realtime - clock */
	/* The saved results' key: metadata UUID and the files' sizes and mtimes. */
	uint8_t uuid[16];
	uint64_t key[2];
	char *key_files;			/* how many files, for messages */
	int growing;				/* an evdrain writes it: nothing is saved */
	/* Its metadata file's mode and group: saved results are never readable by more. */
	unsigned int mode;
	unsigned int gid;
	uint64_t bytes;				/* the trace's files, added up */
	/* The reader, opened on first use. */
	int opened, open_failed;
	struct evt_trace_opts open_opts;
	struct evt_trace tr;
	char err[EVT_ENGINE_ERRLEN];
	struct comp_slot *slots;
	unsigned int nr_slots;
	struct evt_bg_pass bg;
};

struct evt_traceset {
	struct evt_engine *eng;
	struct evt_traceset *next;
	struct evt_etrace **traces;
	unsigned int nr;
	struct evt_request *pending;		/* the foreground pool, in arrival order */
};

struct evt_engine {
	struct evt_engine_opts o;
	const struct evt_computation **comps;
	unsigned int nr_comps;
	struct evt_etrace *traces;
	struct evt_traceset *tracesets;
	unsigned int fg_turn, bg_turn;
	struct evt_engine_stats stats;
};

void evt_engine_warn(struct evt_engine *e, const char *msg);
void evt_engine_warnf(struct evt_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The thread on @cpu at clock @ts from a ready state result, else -2. */
int32_t evt_engine_running_tid(struct evt_etrace *t, unsigned int cpu, uint64_t ts);

/* evt_ctx.c: a context's hooks bound to a catalogue, resolved, freed, called. */
int evt_ctx_bind(struct evt_ctx *c, const struct evt_catalogue *cat);
int evt_ctx_resolve(struct evt_ctx *c, const struct evt_catalogue *cat);
void evt_ctx_free(struct evt_ctx *c);
void evt_ctx_deliver(struct evt_ctx *c, struct evt_engine_event *ev);

/* evt_slots.c: a computation's index in the engine (-1: none), its slot on a trace. */
int evt_engine_comp_index(const struct evt_engine *e, const char *name);
struct comp_slot *evt_slot_of(struct evt_etrace *t, const struct evt_computation *c);
const struct comp_slot *evt_slot_by_name(const struct evt_etrace *t, const char *name);
/* The slot, made (and its saved result tried) on first use; NULL: no memory. */
struct comp_slot *evt_slot_get(struct evt_etrace *t, const struct evt_computation *c);
void evt_slot_clear(struct comp_slot *s);

/* evt_bg.c: the background scheduler's side of the registry and the driver. */
void evt_bg_notify_free(struct bg_notify *n);
void evt_bg_requests_free(struct bg_request *r);
void evt_bg_reader_close(struct evt_etrace *t);
int evt_bg_has_work(const struct evt_etrace *t);
void evt_bg_end_pass(struct evt_etrace *t, int reached_end);
int evt_bg_step(struct evt_etrace *t);

/* evt_fg.c: a chunk of the foreground scheduler's work on @ts. */
int evt_fg_chunk(struct evt_traceset *ts);

/* evt_results.c */
int evt_results_key(struct evt_etrace *t, char *err, size_t errlen);
void evt_results_try_load(struct evt_etrace *t, struct comp_slot *s);
void evt_results_save(struct evt_etrace *t, struct comp_slot *s);

#endif /* EVT_ENGINE_PRIV_H */
