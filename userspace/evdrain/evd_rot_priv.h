/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evdrain's rotation inside: what the cut and the finisher (evd_rotate.c),
 * the chunk summary (evd_summary.c) and the --on-chunk hooks (evd_hooks.c)
 * share. Only these three files include it; evd_rotate.h is the drain
 * loop's view.
 */
#ifndef EVD_ROT_PRIV_H
#define EVD_ROT_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "evd_rotate.h"
#include "chunk/evt_chunk.h"
#include "ctf/evt_trace.h"

#define NO_SEQ		UINT64_MAX
/*
 * DIR's record of the chunks whose hook has succeeded (one sequence number
 * a line): a chunk completed but not shipped when evdrain stopped or was
 * killed (its hook failed every retry, or never ran) gets its hook from the
 * next evdrain (a hook killed mid-way runs again: at least once, so hooks
 * should be idempotent, as rsync is).
 */
#define HOOKED_FILE	".hooked"
/* The output directory's name at most; every path below it fits its buffer. */
#define OUTDIR_LEN	3072
#define DIR_LEN		(OUTDIR_LEN + 300)	/* outdir/NAME */
#define FILE_LEN	(DIR_LEN + 300)		/* outdir/NAME/kernel/FILE */

/* A closed chunk waiting for the finisher. */
struct closed {
	uint64_t seq;
	char dir[DIR_LEN];		/* outdir/.inprogress-SEQ */
	uint64_t opened_ns, closed_ns;	/* realtime: the name of a chunk without packets */
	struct evd_rot_ring_count *counts;
	size_t ncounts;
	int recovered;
	int final;			/* the session's last chunk */
	struct closed *next;
};

/* A complete chunk on disk. */
struct done {
	uint64_t seq, bytes;
	char name[EVT_CHUNK_NAME_MAX];
	int hook_queued;
	int shipped;			/* its hook succeeded (or there is none): retention may take it */
	int final;
	uint64_t begin_ns, end_ns, events, discarded, overwritten, lost_packets;
};

/* What a stream's last packet in the previous chunk said: the seam's checks. */
struct carry {
	uint64_t next_seq;		/* its packet_seq_num + 1 */
	uint64_t discarded;		/* its running total */
	uint64_t overwritten;		/* the module's count at the cut */
	int valid, counted;
};

struct evd_rot {
	struct evd_rot_opts o;
	char outdir[OUTDIR_LEN];
	uint64_t next_seq;
	struct closed *current;		/* in progress, the drain loop's */
	struct closed *next;		/* made by a cut, current once the cut is done */
	atomic_uint_fast64_t current_bytes;

	pthread_mutex_t mu;
	pthread_cond_t fin_cv, hook_cv;
	struct closed *queue, **queue_tail;	/* for the finisher */
	struct done *done;			/* complete chunks, oldest first */
	size_t ndone, capdone;
	uint64_t *hookq;			/* seqs waiting for the hook, in order */
	size_t nhookq, caphookq;
	uint64_t hooking;			/* the seq whose hook runs, or NO_SEQ */
	/*
	 * The last completed chunk, its hook held until the chunk after it
	 * records a packet (then it is not the session's last) or turns out
	 * empty at the stop (then it is: final), or NO_SEQ.
	 */
	uint64_t held;
	atomic_int held_waiting;		/* held != NO_SEQ, for the drain loop's look without the lock */
	int stopping;
	int finisher_done;			/* no chunk will be completed any more */
	uint64_t hook_deadline_ms;		/* set by evd_rot_stop: kill hooks after it */
	pthread_t finisher, hooker;
	struct carry *carry;			/* [channel * EVT_MAX_CPUS + cpu] */
	struct evd_rot_stats st;
};

static inline uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A chunk's figures, read back from it for its summary.json (evd_summary.c). */
struct stream_sum {
	unsigned int channel, cpu;
	uint64_t events, packets, bytes, discarded, overwritten, lost, first_seq, last_seq;
};

struct chunk_sum {
	struct stream_sum *s;
	unsigned int n;
	uint64_t begin_ns, end_ns, events, discarded, overwritten, lost, bytes;
	uint64_t per_channel[EVT_NR_CHANNELS];
	char err[EVT_TRACE_ERRLEN];
};

/* evd_retention.c */
/* Oldest complete chunks out while --keep or --max-total is passed. */
void evd_rot_retention(struct evd_rot *r);
/* A chunk directory and everything in it: 0, or -1. */
int evd_remove_tree(const char *path);

/* evd_summary.c */
/*
 * Read chunk @c (its streams in @kdir) as a trace: events per stream, the
 * packets' accounting, the seams against the previous chunk. 1 when it
 * holds no packet, 0, or -1 with cs->err (the trace could not be opened).
 */
int evd_sum_scan(struct evd_rot *r, const struct closed *c, const char *kdir, struct chunk_sum *cs);
/* DIR/summary.json of chunk @name, written aside and renamed: 0, or -1 with errno. */
int evd_sum_write(const struct evd_rot *r, const char *dir, const char *name, const struct closed *c,
		  const struct chunk_sum *cs);
/* The complete chunk @chunk's summary.json says it ended its session ("final": true). */
int evd_sum_says_final(const char *chunk);
/*
 * The complete chunk @chunk is its session's last: its summary.json says
 * so now, in place. 0, or -1 (said on stderr).
 */
int evd_sum_mark_final(const char *chunk);

/* evd_hooks.c (all under r->mu but evd_hook_held_is_final and evd_hook_main) */
/* Chunk @seq's hook, queued now or held until the chunk after it shows it is not the session's last. */
void evd_hook_queue(struct evd_rot *r, uint64_t seq, int final);
/* The held chunk's hook is queued (the chunk after it has a packet, or evdrain stops). */
void evd_hook_release_held(struct evd_rot *r);
/* The session's last chunk closed empty: the held chunk is the last. */
void evd_hook_held_is_final(struct evd_rot *r);
/* At start: the complete chunks whose hook never ran are queued for it. */
void evd_hook_queue_unhooked(struct evd_rot *r);
/* The hook thread. */
void *evd_hook_main(void *arg);

#endif
