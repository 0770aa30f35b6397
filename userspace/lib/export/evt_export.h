/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chunk (or a whole trace) as flat tables for a column store: NDJSON
 * files, one object per line, that ClickHouse loads with FORMAT
 * JSONEachRow (18.16 and current). The tables and their columns are
 * docs/fleet.md's ("The tables"); every row has the schema version
 * EVT_EXPORT_SCHEMA, times are integers of realtime nanoseconds.
 *
 *   events.ndjson        every event, with the task that ran on its CPU
 *                        (lib/engine/evt_curtask.h)
 *   syscalls.ndjson      one row per system call whose exit met its entry
 *   sched_slices.ndjson  which thread ran on which CPU, from when to when
 *   wakeups.ndjson       a woken thread and when it got a CPU
 *   stats.ndjson         the chunk's aggregates (evstat's numbers: per
 *                        syscall count, errors, latency and its log2
 *                        histogram; scheduling latency; CPU time per
 *                        thread; events per name and CPU; losses)
 *
 * The seams. The derived tables (all but events) are computed by the
 * engine's own computations (the stats computation pairs syscalls and
 * wakeups, the current-task tracker cuts slices), fed in the order evstat
 * reads a run of chunks: one time order across every stream. A chunk's
 * streams end at different times (each ring is flushed in turn at a cut),
 * so the next chunk may hold events earlier than this chunk's last ones;
 * what this chunk holds at or after the earliest end of its streams is
 * deferred: carried, with what the computations have in flight (threads
 * in a syscall, woken threads, each CPU's task), into the next chunk's
 * export, which reads it merged with its own events. With a state
 * directory (opts.state_dir) a chunk's export finds the carry of the chunk
 * before it (same host, sequence number one less, same tracing session,
 * its streams' packet sequence numbers going on): pairs across a seam are
 * kept, whatever their length, and summed over a run the derived tables
 * and the stats are evstat's on the run, exactly. Without one, or for the
 * first chunk of a run, each CPU's task is taken from its first
 * sched_switch and what was in flight at the start is unknown, as evstat
 * has it on a trace alone.
 *
 * The one inexactness left: a stream with no event in this chunk whose
 * first events in the next chunk come before another stream's end here
 * (an idle CPU waking during the cut); they are then read after this
 * chunk's events up to that end instead of among them.
 *
 * Rows belong to the export that wrote them (their chunk and seq columns,
 * what a reload replaces): a syscall entered in chunk 3 and left in chunk 4
 * is a row of chunk 4, and a chunk's deferred events are rows of the next
 * chunk's export, read there in time order with its events (a CPU's two
 * streams end at different times too: only then is the task of every
 * event known). An export's events rows are numbered (idx) in that order,
 * so (seq, idx) is the run's time order, each event once. The stats row of
 * kind "chunk" counts the chunk's own events and losses.
 */
#ifndef EVT_EXPORT_H
#define EVT_EXPORT_H

#include <stdint.h>

#define EVT_EXPORT_SCHEMA 1
#define EVT_EXPORT_ERRLEN 1024

enum evt_export_table {
	EVT_EXPORT_EVENTS,
	EVT_EXPORT_SYSCALLS,
	EVT_EXPORT_SLICES,
	EVT_EXPORT_WAKEUPS,
	EVT_EXPORT_STATS,
	EVT_EXPORT_NR_TABLES
};

/* The table's name, and its file's (NAME.ndjson). */
const char *evt_export_table_name(unsigned int table);

struct evt_export_opts {
	const char *chunk_dir;		/* a chunk (CHUNK/kernel/...), or a trace directory */
	const char *out_dir;		/* an existing directory: NAME.ndjson files are written there */
	const char *host;		/* NULL: the chunk's summary.json "host" */
	const char *state_dir;		/* carries between chunks (made when absent); NULL: none */
	/*
	 * The chunk ends its tracing session (evdrain marks the chunk it
	 * closed at its stop): nothing is deferred, nothing carried on.
	 * -1: as the chunk's summary.json "final" says; a directory without a
	 * summary.json is a whole trace (final). Without a state directory
	 * nothing is deferred either (nothing would carry it).
	 */
	int final;
	unsigned int tables;		/* 1 << table bits; 0: all */
	/* Warnings (a carry that does not fit, ...): NULL: stderr, "evexport: ". */
	void (*warn)(void *data, const char *msg);
	void *warn_data;
};

struct evt_export_result {
	uint64_t rows[EVT_EXPORT_NR_TABLES];
	uint64_t events;		/* the chunk's */
	uint64_t carried_in;		/* deferred events of the chunk before, read here */
	uint64_t deferred;		/* this chunk's events (and carried ones) left for the next */
	int carry;			/* 1: the chunk before's carry was used */
	uint64_t seq;
	char host[256];
	char chunk[128];
	char trace_id[33];
};

/*
 * Export one chunk. 0; 1 when a decoding error ended the reading (@err
 * says where: the tables hold the events before it, and no carry is
 * written); -1 with @err (nothing usable written).
 */
int evt_export_chunk(const struct evt_export_opts *o, struct evt_export_result *res, char *err, size_t errlen);

#endif /* EVT_EXPORT_H */
