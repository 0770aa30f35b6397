/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evdrain's rotation: the chunks of a run (lib/chunk/evt_chunk.h for their
 * names). The drain loop cuts (evd_rot_cut_*); a finisher thread completes
 * each closed chunk off the drain's path (fsync, event counts, summary.json,
 * the rename, retention) and a hook thread runs --on-chunk for completed
 * chunks, one at a time and in order, so that neither disk syncs nor slow
 * hooks hold up the rings. A failed hook is run again after a doubling
 * pause (at least once delivery); retention keeps a chunk until its hook
 * succeeded unless --max-total forces it out. evd_rotate.c: the cut, the
 * finisher, retention, recovery; evd_summary.c: a chunk's summary.json;
 * evd_hooks.c: the hook queue and thread (evd_rot_priv.h: what they share).
 */
#ifndef EVD_ROTATE_H
#define EVD_ROTATE_H

#include <stdint.h>
#include <sys/types.h>
#include <evtrace/abi.h>

struct evd_rot_opts {
	const char *outdir;
	uint64_t size;			/* bytes of streams per chunk; 0: no size limit */
	uint64_t interval_ms;		/* 0: no time limit */
	unsigned int keep;		/* complete chunks kept; 0: any number */
	uint64_t max_total;		/* bytes of all chunks; 0: no limit */
	const char *hook;		/* --on-chunk program, or NULL */
	unsigned int hook_retries;	/* a failed hook is run again this many times at most */
	uint64_t hook_backoff_ms;	/* before the first retry; doubling ... */
	uint64_t hook_backoff_max_ms;	/* ... up to this */
	int has_group;
	gid_t group;
	int quiet;
};

/* What the run did, for evdrain's summary. */
struct evd_rot_stats {
	uint64_t completed;		/* chunks completed (renamed) by this run */
	uint64_t recovered;		/* of them: left in progress by an earlier evdrain */
	uint64_t events, bytes;		/* in the chunks completed */
	uint64_t lost_packets;		/* packet_seq_num gaps, seams included */
	uint64_t deleted;		/* complete chunks removed by retention */
	uint64_t hooks_run, hooks_failed;	/* runs of the hook (retries included), and those that failed */
	uint64_t hooks_retried;		/* of the runs: after a failure of the same chunk's */
	uint64_t hooks_given_up;	/* chunks whose every run failed (the next evdrain runs it again) */
	uint64_t hooks_skipped;		/* chunks removed by retention before their hook ran */
	uint64_t removed_unshipped;	/* chunks --max-total removed before their hook succeeded */
	uint64_t hooks_not_run;		/* queued when evdrain stopped, its wait for hooks over */
	uint64_t hooks_pending_max;	/* the longest the hook queue was */
	uint64_t errors;		/* chunks that could not be completed (left in progress) */
};

/* Overwritten events per ring, as the module's STATUS counts them (cumulative). */
struct evd_rot_ring_count {
	unsigned int channel, cpu;
	uint64_t overwritten;
};

struct evd_rot;

/*
 * Scan outdir (a trace of its own there is refused), complete what an
 * earlier evdrain left in progress, start the threads. 0, or -1 said on stderr.
 */
int evd_rot_start(struct evd_rot **rp, const struct evd_rot_opts *o);

/*
 * A new chunk: its directory and kernel/ made, its kernel/ path in
 * @kernel_dir (the consumer writes there). The first one is the chunk in
 * progress; at a cut, the next one (in progress once evd_rot_close_chunk()
 * hands the old one over). 0, or -1 said on stderr.
 */
int evd_rot_open_chunk(struct evd_rot *r, char *kernel_dir, size_t len);

/*
 * The chunk in progress is closed (every packet of it written, its files
 * no longer written): the finisher completes it, the next one takes its
 * place. @counts: the module's counters now (may be NULL).
 */
void evd_rot_close_chunk(struct evd_rot *r, const struct evd_rot_ring_count *counts, size_t n);

/*
 * The same for the last chunk of the tracing session (evdrain stops: nothing
 * follows it): its summary.json says "final": true, its hook gets
 * EVT_CHUNK_FINAL=1.
 */
void evd_rot_close_final_chunk(struct evd_rot *r, const struct evd_rot_ring_count *counts, size_t n);

/* The chunk in progress stays as it is, under its hidden name (a failed write): reported. */
void evd_rot_abandon_chunk(struct evd_rot *r, const char *why);

/*
 * Bytes of the chunk in progress, for retention's total (the drain loop
 * says, after each pass).
 */
void evd_rot_set_current_bytes(struct evd_rot *r, uint64_t bytes);

/* Wait for the finisher and the hooks (those still running after @hook_wait_s are killed), free. */
void evd_rot_stop(struct evd_rot *r, unsigned int hook_wait_s, struct evd_rot_stats *st);

#endif
