/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunks: the pieces a rotating evdrain cuts its trace into. Each is a
 * whole trace directory (CHUNK/kernel/metadata and streams, CHUNK/summary.json)
 * named BEGIN-END-SEQ: the UTC times of its first and last events
 * (20261125T211500.123456Z, so that names sort by time) and its sequence
 * number in the run. While it is written it is DIR/.inprogress-SEQ (hidden:
 * readers and shippers never see half a chunk), renamed once complete; a
 * chunk being removed is renamed .deleting-SEQ first.
 *
 * Also the units of evdrain's rotation options, parsed here so that the
 * tests see the same rules.
 */
#ifndef EVT_CHUNK_H
#define EVT_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#define EVT_CHUNK_NAME_MAX	80	/* two times, 20 digits, the dashes, the NUL */
#define EVT_CHUNK_TMP_PREFIX	".inprogress-"
#define EVT_CHUNK_DEL_PREFIX	".deleting-"
#define EVT_CHUNK_SUMMARY	"summary.json"

/* BEGIN-END-SEQ from realtime nanoseconds: 0, or -1 when @len is too small. */
int evt_chunk_name(char *buf, size_t len, uint64_t begin_ns, uint64_t end_ns, uint64_t seq);

/*
 * A complete chunk's name: 0 with the times (microseconds kept) and the
 * sequence number, -1 for any other name.
 */
int evt_chunk_parse(const char *name, uint64_t *begin_ns, uint64_t *end_ns, uint64_t *seq);

/*
 * @name starts as a complete chunk's does (BEGIN-END-): a name that does
 * and is not one (a sequence number with a leading zero, "-01") is
 * refused by the reader rather than skipped (a chunk would go missing).
 */
int evt_chunk_like(const char *name);

/* ".inprogress-SEQ" (@prefix EVT_CHUNK_TMP_PREFIX or _DEL_PREFIX): 0 with *@seq, else -1. */
int evt_chunk_parse_hidden(const char *name, const char *prefix, uint64_t *seq);

/* Realtime nanoseconds as 20261125T211500.123456Z (27 bytes with the NUL). */
void evt_chunk_time(char *buf, size_t len, uint64_t ns);

/*
 * Realtime nanoseconds as 2026-11-25T21:15:00.123456789Z (@nanoseconds) or
 * 2026-11-25T21:15:00.123456 (microseconds, no zone: what evcat's --from
 * and --to take).
 */
void evt_chunk_iso_time(char *buf, size_t len, uint64_t ns, int nanoseconds);

/*
 * Cut the whole trace @trace_dir (a trace directory, or DIR with DIR/kernel)
 * into @o->nchunks chunks under @run_dir (made if absent), as a rotating
 * evdrain writes them: chunk k holds, of each stream, the packets that end
 * at or before the k-th cut (@o->cuts, else the k-th of nchunks equal steps
 * of the trace's time span; chunks overlap a little in time, as evdrain's
 * do; a trace whose rings were flushed at the cuts, as evdrain's cut does,
 * is cut as evdrain would have: evt_synth_write_chunks()), a copy of the
 * metadata and a summary.json with "chunk", "seq", "host" (@o->host),
 * "kernel" (@o->kernel),
 * "begin"/"end" (and _ns) and "final" (the last chunk). With
 * @o->lose_seam_packet, chunk 1 of the first stream starts one packet late
 * (a packet lost at a seam). The names go to @names (NULL: nowhere). 0, or
 * -1 with @err. For tests and benchmarks (evsynth --chunks).
 */
struct evt_chunk_split_opts {
	unsigned int nchunks;
	const char *host;
	const char *kernel;		/* summary.json's "kernel" (NULL: none) */
	int lose_seam_packet;
	const uint64_t *cuts;		/* the nchunks - 1 cut times (clock values); NULL: equal steps */
};
int evt_chunk_split(const char *trace_dir, const char *run_dir, const struct evt_chunk_split_opts *o,
		    char (*names)[EVT_CHUNK_NAME_MAX], char *err, size_t errlen);

#endif
