/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet index files: what a stream file's packet headers say, one entry a
 * packet, kept beside the trace so that a reader opens it with one
 * sequential read per stream instead of one read per packet (a 5 GB trace
 * has 300 K packets: seconds from a cold page cache).
 *
 * Where: DIR/.evtrace-index/NAME.idx for the stream file DIR/NAME (DIR the
 * directory with the metadata: a trace's kernel/, a chunk's kernel/), or,
 * when DIR is not the user's to write, the user's cache
 * (CACHE/evtrace/index/HASH/NAME.idx, HASH of DIR's real path). evdrain
 * writes it as it writes the stream (and seals it when the stream is
 * complete: at its stop, at each chunk's completion); a reader that finds
 * none, or one it cannot use, walks the headers and saves what it found.
 * Beside the trace the directory is read only when it is the user's own or
 * root's, as saved results are (docs/design/reading.md, "Who may read what").
 *
 * The file (little-endian, as the trace):
 *
 *   head (80 bytes): "EVTPIDX1", u32 version, u32 entry size (48), the
 *     trace's uuid[16], u32 channel, u32 cpu, u64 the stream file's size,
 *     u64 its mtime (ns) and u64 the time it was sealed (realtime ns) when
 *     sealed (else 0), u32 flags (1: sealed, 2: it stops before a bad
 *     packet header), u32 zero, u32 CRC-32 of the
 *     76 bytes before;
 *   entries (48 bytes each, in file order, contiguous from offset 0):
 *     u32 packet bytes, u32 content bytes, u64 timestamp_begin,
 *     u64 timestamp_end, u64 packet_seq_num, u64 events_discarded,
 *     u32 CRC-32 of the 40 bytes before, u32 zero.
 *
 * A file's mtime moves by clock ticks (a few ms): a file rewritten within
 * the tick of its last write keeps it. So an index is sealed only once the
 * stream's mtime is EVT_PIDX_SETTLE_NS in the past (a later write then
 * shows), and one sealed sooner is not used (its stream is walked again).
 * A writer (evdrain, evsynth) does not wait: it sets the stream's mtime
 * that far back from its last write's when it seals.
 *
 * Never trusted: a sealed index whose stream's size or mtime differ, a bad
 * checksum, an entry that does not fit the file is ignored with a reason
 * (the reader warns and rebuilds it). An unsealed one is a prefix, the rest
 * walked, and is used only while the trace's writer (evdrain) is at work;
 * without one (its writer was killed, or someone else rewrote the stream)
 * nothing vouches for it: it is walked again and replaced by a sealed one.
 * The reader compares a few packet headers chosen at random with their
 * entries at open, and every packet's header with its entry before
 * decoding it (evt_trace_pk.c).
 */
#ifndef EVT_PINDEX_H
#define EVT_PINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <evtrace/abi.h>

#define EVT_PIDX_DIR		".evtrace-index"
#define EVT_PIDX_MAGIC		"EVTPIDX1"
#define EVT_PIDX_VERSION	1
#define EVT_PIDX_HEAD		80
#define EVT_PIDX_ENTRY		48
#define EVT_PIDX_SEALED		1U
/* Sealed, and it ends where a packet header is bad: the rest is walked (to the same error). */
#define EVT_PIDX_STOPPED	2U
/* A stream is settled this long after its last write: its mtime shows any later one. */
#define EVT_PIDX_SETTLE_NS	50000000ULL

/* One packet as its entry says (the file's form, checksum and offset aside). */
struct evt_pidx_pkt {
	uint64_t off;			/* in the stream file: the entries before it added up */
	uint32_t packet_bytes, content_bytes;
	uint64_t begin, end;
	uint64_t seq, discarded;
};

/* Which stream an index is of. */
struct evt_pidx_ident {
	uint8_t uuid[16];		/* the metadata's */
	int has_uuid;			/* 0: the metadata has none, packets' are not compared */
	unsigned int channel, cpu;
};

/* Where indexes are looked for and saved. */
struct evt_pidx_place {
	const char *dir;		/* the directory of the stream files */
	const char *cache_base;		/* NULL: $XDG_CACHE_HOME/evtrace or ~/.cache/evtrace */
	unsigned int trace_mode;	/* the metadata's mode and group: nothing wider beside the trace */
	gid_t trace_gid;
};

struct evt_pidx {
	struct evt_pidx_pkt *pk;	/* malloc'd */
	uint32_t n;
	int sealed;
	char where[4400];		/* the file read */
};

enum evt_pidx_status {
	EVT_PIDX_NONE,			/* no index (or another version's: rebuilt without a word) */
	EVT_PIDX_OK,
	EVT_PIDX_BAD,			/* ignored: @why says what was wrong */
};

/*
 * The index of the stream file @name, whose fstat() is @st: beside the
 * trace, else in the cache. On EVT_PIDX_OK @out holds its packets (free
 * them with evt_pidx_free()); on EVT_PIDX_BAD @why says which file and
 * what was wrong (a later place is still tried; the first reason is kept).
 */
enum evt_pidx_status evt_pidx_load(const struct evt_pidx_place *pl, const char *name, const struct stat *st,
				   const struct evt_pidx_ident *id, struct evt_pidx *out, char *why,
				   size_t whylen);
void evt_pidx_free(struct evt_pidx *x);

/*
 * The header @h read at @p's offset says what @p says (every field the
 * entry keeps, and the stream's identity). 1 or 0.
 */
int evt_pidx_matches(const struct evt_pidx_pkt *p, const struct evt_packet_header *h,
		     const struct evt_pidx_ident *id);

/*
 * Save @n packets as the sealed index of @name, whose fstat() @st was
 * taken at @st_time (realtime ns), the stream settled by then (else
 * nothing is saved: EAGAIN); @stopped: a bad packet header follows the
 * last. Beside the trace when that directory is the user's to write,
 * else in the cache. 0, or -1 with errno.
 */
int evt_pidx_save(const struct evt_pidx_place *pl, const char *name, const struct evt_pidx_ident *id,
		  const struct evt_pidx_pkt *pk, uint32_t n, const struct stat *st, uint64_t st_time,
		  int stopped);
/* @st's stream had settled at @at (realtime ns): a later write shows in its mtime. */
int evt_pidx_settled(const struct stat *st, uint64_t at);
/* The realtime clock, ns (what EVT_PIDX_SETTLE_NS is measured on). */
uint64_t evt_pidx_now(void);

/* ---- Writing one as the stream is written (evdrain, evsynth) ---- */

struct evt_pidx_writer {
	int fd;				/* -1: none (the directory could not be made) */
	struct evt_pidx_ident id;
	int have_id;			/* the header is written (from the first packet) */
	uint64_t size;			/* stream bytes indexed */
	uint8_t *buf;			/* entries not yet written */
	size_t n, cap;
	int failed;			/* a write failed: the index is left unsealed, readers walk */
	int sealed;			/* the file's header says sealed: a packet more unseals it first */
};

/*
 * Start the index of the stream file @dir/@name (@channel, @cpu), which holds @size bytes
 * of whole packets already (appending: they are read from @stream_fd and
 * indexed first; else 0 and -1). The file is made @mode and given to
 * @gid (-1: left), its directory likewise with x where r. 0, or -1 with
 * errno (the writer is then inert: the stream is still written, readers
 * walk it).
 */
int evt_pidx_writer_open(struct evt_pidx_writer *w, const char *dir, const char *name, unsigned int channel,
			 unsigned int cpu, mode_t mode, gid_t gid, int stream_fd, uint64_t size);
/* The packet whose header is @h, @packet_bytes long, was appended to the stream. */
void evt_pidx_writer_add(struct evt_pidx_writer *w, const struct evt_packet_header *h, uint32_t packet_bytes);
/* Entries out to the file (a reader sees them). 0 or -1. */
int evt_pidx_writer_flush(struct evt_pidx_writer *w);
/*
 * The stream @stream_fd is complete: flush and seal with its size and
 * mtime. The stream's mtime is first set EVT_PIDX_SETTLE_NS (and 1 ms)
 * before its last write's, so that it has settled at once and any later
 * write shows (the file system's clock alone decides). 0 or -1.
 */
int evt_pidx_writer_seal(struct evt_pidx_writer *w, int stream_fd);
/*
 * The file @fd's mtime set EVT_PIDX_SETTLE_NS and 1 ms before its last
 * write's (*@last, ns), for its writer to seal its index at once: @st is
 * then its fstat(). 0, or -1 with errno (not the file's owner).
 */
int evt_pidx_backdate(int fd, struct stat *st, uint64_t *last);
void evt_pidx_writer_close(struct evt_pidx_writer *w);

#endif
