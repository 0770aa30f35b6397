/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's insides, shared by evt_engine.c and evt_results.c. */
#ifndef EVT_ENGINE_PRIV_H
#define EVT_ENGINE_PRIV_H

#include "evt_engine.h"
#include "evt_merged.h"

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
	/* The background scheduler. */
	struct bg_request *list_in, *list_out;
	struct bg_notify *notify_in, *notify_out;
	struct evt_ctx bg_ctx;
	int bg_active;
	struct evt_trace bg_tr;			/* the pass's reader (a clone) */
	struct evt_merged bg_mt;
	struct evt_ref *bg_refs;
	uint64_t bg_pos, bg_rt, bg_passes;
	int bg_seen;
	char *bg_error;
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
/* The thread on @cpu at clock @ts from a ready state result, else -2. */
int32_t evt_engine_running_tid(struct evt_etrace *t, unsigned int cpu, uint64_t ts);

/* evt_results.c */
int evt_results_key(struct evt_etrace *t, char *err, size_t errlen);
void evt_results_try_load(struct evt_etrace *t, struct comp_slot *s);
void evt_results_save(struct evt_etrace *t, struct comp_slot *s);

#endif /* EVT_ENGINE_PRIV_H */
