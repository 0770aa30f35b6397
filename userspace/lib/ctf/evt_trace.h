/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an evtrace trace directory: DIR/metadata plus one stream file per
 * channel and CPU (compact_<cpu>, normal_<cpu>), each a sequence of whole
 * CTF packets.
 *
 * Files are mapped, packets decoded in place, one packet at a time, into
 * per-stream arrays (timestamp, payload offset and length, event): no
 * allocation per event, no copy of payloads. Decoding is strict and follows
 * evt_decode's rules (one-wrap timestamps, payloads walked from the
 * catalogue of the trace's own metadata) plus what a whole file adds (stream_id and CPU constant,
 * packet_seq_num increasing, events_discarded a running total, time never
 * going back across packets, no trailing partial packet). The first error
 * names the file and the byte offset in it; events before it are still
 * delivered, nothing after it is.
 *
 * Streams are addressed by buffer ids 0..nr_streams-1 in (cpu, channel)
 * order (as Sysdig's agent-libs, "Optimized ring buffer algorithm";
 * docs/references.md): a missing or offline CPU leaves no hole. The merged
 * reader (evt_merged.h) puts them in one time order.
 *
 * A directory of chunks (a rotating evdrain's: lib/chunk/evt_chunk.h) opens
 * as one trace: each stream is its chunks' files one after another, in
 * sequence order, mapped back to back (each at a page boundary) so that the
 * rest of the reader sees one file per stream; the packet index walks each
 * file apart, and the packet rules (sequence numbers, running discard
 * totals, time) hold across the seams. Every chunk must carry the same
 * metadata (one tracing session).
 */
#ifndef EVT_TRACE_H
#define EVT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "ctf/evt_decode.h"
#include "ctf/evt_metadata.h"
#include "ctf/evt_pindex.h"

#define EVT_TRACE_ERRLEN 640

/*
 * A run of chunks: one chunk's file of a stream. Its place in the
 * stream's reservation is mapped when a reader first needs it and given
 * back when the run holds more files mapped than vm.max_map_count allows
 * and no reader is in it (evt_trace_run.c).
 */
struct evt_seg {
	uint64_t off;			/* where it starts in the stream's mapping (page aligned) */
	uint64_t size;			/* its bytes */
	unsigned int chunk;		/* index in evt_trace.chunks */
	uint32_t first_pk;		/* its first packet in the stream's index */
	uint32_t npk;			/* its packets */
	uint64_t seam_lost;		/* packet_seq_num gap from the previous chunk's last packet */
	uint64_t dev, ino, mtime_ns;	/* the file as the run was opened: mapped only if it still is */
	/* Mapping, under the run's lock. */
	unsigned int refs;		/* readers in it */
	int mapped;
	unsigned int stream;		/* whose */
	struct evt_seg *lru_prev, *lru_next;	/* mapped and nobody in it: the oldest goes first */
};

/* A run's mappings, shared by the trace and its clones (evt_trace_run.c). */
struct evt_run_maps;

/* A run of chunks: one chunk. */
struct evt_chunk_ref {
	char *dir;			/* RUN/NAME/kernel */
	char name[80];
	uint64_t begin_rt, end_rt;	/* from its name: realtime ns (microseconds kept) */
	uint64_t seq;
	unsigned int md_mode, md_gid;	/* its metadata file's */
};

/* A packet of the index: where it is, its time range and its accounting. */
struct evt_pkt {
	uint64_t off;
	uint64_t begin, end;		/* timestamp_begin, timestamp_end */
	uint64_t seq, discarded;	/* packet_seq_num, events_discarded */
	uint32_t content;		/* content bytes */
	uint32_t bytes;			/* packet bytes, | EVT_PKT_UNCHECKED */
};
/*
 * The packet came from an index file (evt_pindex.h): its header is
 * compared with the entry when the packet is read, as the walk would have
 * checked it.
 */
#define EVT_PKT_UNCHECKED	(1U << 31)
#define EVT_PKT_BYTES(p)	((p)->bytes & ~EVT_PKT_UNCHECKED)

struct evt_stream {
	unsigned int id;	/* buffer id */
	unsigned int channel;
	unsigned int cpu;
	char name[32];		/* file name in the directory */
	struct evt_pidx_ident ident;	/* what its packets' headers must say */
	const uint8_t *map;
	size_t size;
	size_t map_len;		/* what was mapped, when more than size (a run's page-rounded files) */
	int shared;		/* a clone: map and index belong to the original */
	struct evt_seg *segs;	/* a run of chunks: its files, in order (else NULL) */
	unsigned int nsegs;
	uint64_t last_seq;	/* the index's: the last packet's packet_seq_num */
	uint32_t pk_cap;	/* the index's allocation */
	/* Its files indexed from index files, by walking their headers; index files saved. */
	uint32_t pidx_loaded, pidx_walked, pidx_saved;

	/*
	 * The packet index, built at open from the headers alone: every
	 * packet-level rule (header, sizes, stream, CPU, uuid, sequence,
	 * running discard total, time never going back) checked once. A bad
	 * header ends the index; its error (tail_errmsg) is raised when the
	 * reader gets there, after the events before it.
	 */
	struct evt_pkt *pk;
	uint32_t npk;
	int tail_err;
	char tail_errmsg[EVT_TRACE_ERRLEN];
	/*
	 * The trace is being written (writer_pid) and the file ends inside
	 * a packet: its bytes, not read (the index ends before them).
	 */
	size_t partial_tail;

	/*
	 * The packet being delivered (index ipk - 1), decoded: ev[0..n), two
	 * slack entries after them for the merge's look-ahead.
	 */
	uint32_t ipk;		/* next packet to decode */
	size_t pkt_off;
	struct evt_packet_info pi;
	struct evt_decoded *ev;
	uint32_t n, i, cap;
	int err;		/* an error follows the decoded events */
	int eof;
	uint64_t events;	/* decoded so far */
	size_t released;	/* bytes of the mapping given back, from its start */
	int hold[2];		/* a run: the files this reader keeps mapped (its last two), -1 */

	/* Whole-file accounting, from the index. */
	uint64_t packets;
	uint64_t discarded;		/* events_discarded of the last packet */
	uint64_t seq_first;		/* packet_seq_num of the first packet */
	uint64_t seq_gaps;		/* packets missing between packets */
	uint64_t first_ts;		/* timestamp_begin of the first packet */
	uint64_t end_ts;		/* timestamp_end of the last packet */
	uint64_t min_end, max_end;	/* of the packets' timestamp_end */
	char errmsg[EVT_TRACE_ERRLEN];
};

struct evt_trace_opts {
	/* CPUs to open: bitmap of cpu_set_bits bits; NULL: all. */
	const uint8_t *cpu_set;
	unsigned int cpu_set_bits;
	/* Threads that open and index the streams (0 or 1: this one; at most EVT_TRACE_OPEN_THREADS). */
	unsigned int threads;
	/*
	 * A run of chunks: only the chunks whose names' times overlap
	 * [from_rt, to_rt] (realtime ns) are opened. Both 0: every chunk.
	 */
	uint64_t from_rt, to_rt;
	/*
	 * Packet index files (evt_pindex.h): read, and saved when the
	 * headers had to be walked, unless no_index. cache_dir: where they
	 * go when the trace's directory is not the user's (NULL: the user's
	 * cache).
	 */
	int no_index;
	const char *cache_dir;
	/*
	 * The caller wrote the files and nobody writes them any more
	 * (evdrain's chunk finisher): a stream not yet settled has its mtime
	 * set back (evt_pidx_backdate()) so that its index is saved sealed.
	 */
	int settle;
	/* A warning (an index ignored): NULL: "PROG: MSG" on stderr. */
	void (*warn)(void *data, const char *msg);
	void *warn_data;
};
#define EVT_TRACE_OPEN_THREADS 16

struct evt_trace {
	char *dir;
	unsigned int nr_streams;
	struct evt_stream *streams;
	struct evt_metadata md;		/* md.cat: the events, as the metadata declares them */
	int is_clone;			/* evt_trace_clone()'s: md belongs to the original */
	uint64_t base;			/* earliest timestamp_begin: merge keys are relative to it */
	/*
	 * The evdrain writing this directory now (its lock file is held and
	 * names it: EVT_WRITER_LOCKS), or 0: a stream that ends inside a
	 * packet is then read up to its last whole packet, not refused.
	 */
	long writer_pid;
	/* A run of chunks (else 0 and NULL): the chunks opened, in sequence order. */
	unsigned int nr_chunks, run_chunks;	/* opened, and in the directory */
	struct evt_chunk_ref *chunks;
	struct evt_run_maps *maps;	/* a run's lazy mappings (the original's) */
	/* The streams' files indexed from index files, by walking headers; index files saved. */
	unsigned int pidx_loaded, pidx_walked, pidx_saved;
	struct evt_trace_opts o;	/* as opened (cpu_set not kept) */
	unsigned int md_mode, md_gid;	/* the metadata file's: nothing derived is wider */
	char err[EVT_TRACE_ERRLEN];
};

/*
 * @dir holds chunks and no trace of its own: the first chunk's kernel/
 * directory (by sequence number; malloc'd), else NULL.
 */
char *evt_trace_run_first(const char *dir);

/*
 * evdrain's lock files, the first it can create: "PID\nDIR\n" (DIR as
 * realpath() gives it) while it holds an flock on it.
 */
#define EVT_WRITER_LOCKS { "/run/evdrain.lock", "/var/run/evdrain.lock", "/tmp/evdrain.lock" }

/* The pid of the evdrain writing @dir now, or 0. */
long evt_trace_writer(const char *dir);

/*
 * The directory that holds a trace's metadata and streams (malloc'd, NULL
 * when out of memory): @dir itself, or @dir/kernel when @dir has no
 * metadata and that has (evdrain writes LTTng's layout, DIR/kernel/; 0.1
 * wrote DIR/ alone).
 */
char *evt_trace_dir(const char *dir);

/* 0, or -1 with t->err set (t is then closed already). */
int evt_trace_open(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o);
void evt_trace_close(struct evt_trace *t);
/*
 * The streams are mapped: a file cut shorter while it is read (a trace
 * being written over, a truncate) would kill the reader with SIGBUS. After
 * this, a SIGBUS in one of @t's mappings prints "PROG: DIR/STREAM: the file
 * was cut while it was read (byte N is gone) ..." and exits with status 1
 * (any other SIGBUS keeps its default action). One trace per process: the
 * last one given. 0, or -1 with errno.
 */
int evt_trace_catch_cut(const struct evt_trace *t, const char *prog);
/*
 * A second reader of the same open trace (for another thread): shares the
 * mappings and the index, has its own cursors. Close it before @src.
 * 0 or -1 (no memory).
 */
int evt_trace_clone(struct evt_trace *dst, const struct evt_trace *src);
/* A run: the most of its files mapped at once so far (0 for a plain trace). */
unsigned long evt_trace_run_peak(const struct evt_trace *t);

/* Realtime = clock value + this (nanoseconds). */
static inline uint64_t evt_trace_offset_ns(const struct evt_trace *t)
{
	return evt_metadata_offset_ns(&t->md);
}

/* A decoding error of @s at byte @off of its file, as text, into @buf. */
void evt_stream_error(const struct evt_trace *t, const struct evt_stream *s, char *buf, size_t len,
		      size_t off, const struct evt_decode_err *e);

#endif /* EVT_TRACE_H */
