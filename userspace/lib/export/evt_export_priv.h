/* SPDX-License-Identifier: GPL-2.0 */
/* The exporter's insides: its rows (evt_export_rows.c) and its carry (evt_export_carry.c). */
#ifndef EVT_EXPORT_PRIV_H
#define EVT_EXPORT_PRIV_H

#include <stdio.h>
#include <jansson.h>
#include "engine/evt_comps.h"
#include "engine/evt_curtask.h"
#include "export/evt_export.h"
#include "format/evt_format.h"

/* ---- Rows ---- */

/* What every row of one chunk's export says first. */
struct rows_id {
	const char *host;
	const char *chunk;
	uint64_t seq;
	const char *kernel;		/* the stats rows' (summary.json's "kernel"), "" unknown */
};

struct rows {
	FILE *f[EVT_EXPORT_NR_TABLES];		/* NULL: the table is not written */
	json_t *row[EVT_EXPORT_NR_TABLES];	/* one object per table, its values set per row */
	char *buf;				/* a row's text */
	size_t cap;
	uint64_t n[EVT_EXPORT_NR_TABLES];
	struct evt_fmt fmt;			/* events' fields */
	struct evt_out fields;
	int fmt_ok;
	int err;				/* errno of a failed write */
};

/* Open @dir/NAME.ndjson for each table of @tables (O_NOFOLLOW, 0640). 0, or -1 with @err. */
int rows_open(struct rows *r, const char *dir, unsigned int tables, char *err, size_t errlen);
/* Flush and close: 0, or -1 with @err (a write failed). */
int rows_close(struct rows *r, char *err, size_t errlen);
/* The events' fields are printed by the trace's catalogue: 0 or -1 (no memory). */
int rows_set_catalogue(struct rows *r, const struct evt_event_desc *events, unsigned int nr);

static inline int rows_want(const struct rows *r, unsigned int table)
{
	return r->f[table] != NULL;
}

/* One row of each table; times are realtime ns, @task the thread's identity. */
void rows_event(struct rows *r, const struct rows_id *id, const char *trace_id, uint64_t idx, uint64_t ts,
		unsigned int cpu, const struct evt_task *task, const struct evt_event_desc *d,
		const uint8_t *payload, uint32_t len);
void rows_syscall(struct rows *r, const struct rows_id *id, const char *trace_id, unsigned int cpu,
		  const struct evt_task *task, const char *name, uint64_t entry, uint64_t exit, int64_t ret);
void rows_slice(struct rows *r, const struct rows_id *id, const char *trace_id, unsigned int cpu,
		const struct evt_task *task, uint64_t begin, uint64_t end, int64_t end_state);
void rows_wakeup(struct rows *r, const struct rows_id *id, const char *trace_id, unsigned int cpu,
		 const struct evt_task *task, uint64_t wakeup, uint64_t sw);

/*
 * @dir/partition.sql: the rows' partition, ('HOST', 'CHUNK'), as a SQL
 * literal of the very strings the rows hold (for ALTER TABLE ... DROP
 * PARTITION): 0, or -1 with @err.
 */
int rows_write_partition(const char *dir, const struct rows_id *id, char *err, size_t errlen);

/* A stats row: kind and what it says (fields that do not apply stay 0 / ""). */
struct stats_row {
	const char *kind;		/* chunk, stream, cpu, event, syscall, sched_latency, thread */
	const char *name;
	uint64_t begin, end;		/* realtime ns: the events it counts */
	int64_t cpu;			/* -1: none */
	const struct evt_task *task;	/* thread rows */
	uint64_t count, errors;
	const struct evt_lat *lat;	/* NULL: none */
	const uint64_t *hist;		/* [EVT_HIST_BUCKETS], NULL: none */
	uint64_t discarded, lost_packets, cpu_ns;
};
void rows_stats(struct rows *r, const struct rows_id *id, const char *trace_id, const struct stats_row *s);

/* ---- The carry between two chunks' exports ---- */

/* An event left for the next export, with its own copy of the payload. */
struct deferred {
	uint64_t ts;
	uint32_t cpu, channel;
	uint32_t idx;			/* in the catalogue of the trace it is read with */
	uint32_t len;
	uint8_t *payload;
};

struct carry_stream {
	uint32_t channel, cpu;
	uint64_t next_seq;		/* the last packet's packet_seq_num + 1 */
	uint64_t discarded;		/* its events_discarded (a running total) */
	uint64_t end;			/* its timestamp_end (where a loss at the seam starts) */
};

struct carry_sys {
	int32_t tid;
	char *name;
	uint64_t ts;
};

struct carry {
	uint8_t uuid[16];
	uint32_t metadata_crc;
	uint64_t seq;			/* of the chunk whose export wrote it */
	char chunk[128];
	struct carry_stream *streams;
	uint32_t nr_streams;
	struct evt_buf tracker;		/* evt_curtask_save() */
	int32_t *stats_cpu;		/* the stats computation's task per CPU, -1 */
	uint32_t nr_stats_cpu;
	struct carry_sys *sys;		/* threads in a syscall */
	uint32_t nr_sys;
	struct carry_sys *woken;	/* threads woken, waiting for a CPU (name unused) */
	uint32_t nr_woken;
	uint64_t *windows;		/* loss windows an interval still open may span (from, to each) */
	uint32_t nr_windows;
	struct deferred *ev;		/* in time order */
	uint32_t nr_ev, cap_ev;
	char **names;			/* the deferred events' names, as saved */
};

void carry_free(struct carry *c);
/* Write @c to @path (aside, then renamed; 0640): 0, or -1 with errno. */
int carry_save(const struct carry *c, const struct evt_event_desc *events, const char *path);
/*
 * Read @path: 0, 1 when there is none, -1 when it is not a carry (@err).
 * The deferred events' names are kept (c->names) for carry_resolve().
 */
int carry_load(struct carry *c, const char *path, char *err, size_t errlen);
/* The deferred events' indexes in @events (by name): 0, or -1 naming one the catalogue lacks. */
int carry_resolve(struct carry *c, const struct evt_event_desc *events, unsigned int nr, char *err,
		  size_t errlen);
/* Append an event (payload copied): 0 or -1 (no memory). */
int carry_defer(struct carry *c, uint64_t ts, uint32_t cpu, uint32_t channel, uint32_t idx, const uint8_t *payload,
		uint32_t len);

#endif /* EVT_EXPORT_PRIV_H */
