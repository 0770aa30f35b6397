/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * evtrace ABI shared by the kernel module and userspace: on-disk packet and
 * event header layouts (CTF 1.8, little endian), reader ioctls, statistics.
 */
#ifndef EVTRACE_ABI_H
#define EVTRACE_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define EVT_CTF_MAGIC		0xC1FC1FC1U

/* Channels: one CTF stream class each; stream_id in the packet header. */
enum evt_channel {
	EVT_CHAN_COMPACT = 0,	/* 32-bit headers: 5-bit id + 27-bit timestamp */
	EVT_CHAN_NORMAL = 1,	/* 16-bit id + 16-bit size + 32-bit timestamp */
	EVT_NR_CHANNELS
};

/*
 * One sub-buffer is one CTF packet and begins with this header + context.
 * Every field is naturally aligned; the TSDL in the metadata says the same.
 */
struct evt_packet_header {
	__u32 magic;
	__u8 uuid[16];
	__u32 stream_id;
	__u64 stream_instance_id;	/* the CPU: one stream per file */
	/* packet context */
	__u64 timestamp_begin;
	__u64 timestamp_end;
	__u64 content_size;		/* bits, header included */
	__u64 packet_size;		/* bits: the sub-buffer size */
	__u64 packet_seq_num;
	__u64 events_discarded;		/* running total for this stream */
	__u32 cpu_id;
} __attribute__((packed, aligned(4)));
#define EVT_PACKET_HEADER_SIZE	84

/*
 * Compact header (one 32-bit word): bits 0-4 id, bits 5-31 the low 27 bits of
 * the timestamp; ids 0-29 only. Id 30 is the wide header: that word, then
 * a __u32 id (any id; 8 bytes, the normal header's size). Id 31 escapes to
 * an extended header, written whenever the timestamp's bits above the low
 * 27 changed: the 32-bit word (only its id bits are read), a __u32 id, a
 * __u64 timestamp: 16 bytes. evtrace 0.1 had no wide header: ids 0-30
 * were small (its metadata says which; readers take both).
 */
#define EVT_COMPACT_ID_BITS	5
#define EVT_COMPACT_TS_BITS	27
#define EVT_COMPACT_ID_WIDE	30U
#define EVT_COMPACT_ID_EXT	31U
#define EVT_COMPACT_HDR		4
#define EVT_COMPACT_WIDE_HDR	8
#define EVT_COMPACT_EXT_HDR	16

/*
 * Normal header: __u16 id, __u16 payload size in bytes, __u32 low timestamp
 * bits; id 65535 escapes to __u16 id, __u16 size, __u32 id, __u64 timestamp.
 * The size sits in what the CTF metadata declares as alignment padding
 * (babeltrace2 warns about unknown event-header fields): CTF readers skip
 * it, evtrace's reader checks payloads against it.
 */
#define EVT_NORMAL_TS_BITS	32
#define EVT_NORMAL_ID_EXT	65535U
#define EVT_NORMAL_HDR		8
#define EVT_NORMAL_EXT_HDR	16
#define EVT_NORMAL_MAX_PAYLOAD	65535U

#define EVT_EVENT_ALIGN		4

/* Reader interface: /dev/evtrace/<channel>/cpuN */
struct evt_quiescent {
	__u64 timestamp;	/* no event older than this will still appear */
	__u32 flags;		/* EVT_QUIESCENT_* */
	__u32 pad;
};
#define EVT_QUIESCENT_OFFLINE	1U	/* the CPU is offline */
#define EVT_QUIESCENT_EMPTY	2U	/* nothing left to read right now */

#define EVT_IOC_MAGIC		0xE7
/* Take the oldest complete sub-buffer: -EAGAIN when there is none. */
#define EVT_IOC_GET_NEXT_SUBBUF		_IO(EVT_IOC_MAGIC, 1)
/* Release it: the writer may reuse it. */
#define EVT_IOC_PUT_NEXT_SUBBUF		_IO(EVT_IOC_MAGIC, 2)
/* Bytes of content (header + events) in the held sub-buffer. */
#define EVT_IOC_GET_SUBBUF_SIZE		_IOR(EVT_IOC_MAGIC, 3, __u64)
/* Bytes of the held sub-buffer as a packet, padding included. */
#define EVT_IOC_GET_PADDED_SUBBUF_SIZE	_IOR(EVT_IOC_MAGIC, 4, __u64)
/* Close the partial sub-buffer so that it becomes readable. */
#define EVT_IOC_FLUSH			_IO(EVT_IOC_MAGIC, 5)
#define EVT_IOC_GET_QUIESCENT		_IOR(EVT_IOC_MAGIC, 6, struct evt_quiescent)
/* Per-ring counters. */
#define EVT_IOC_GET_STATS		_IOR(EVT_IOC_MAGIC, 7, struct evt_ring_stats)
/*
 * Release the held sub-buffer, if any, and take the next one: one call per
 * packet for a drainer. -EAGAIN (nothing held any more) when none is complete.
 */
#define EVT_IOC_PUT_GET_NEXT_SUBBUF	_IO(EVT_IOC_MAGIC, 8)
/*
 * A snapshot's read (evctl snapshot): release the held sub-buffer, if any,
 * and take the next one if its packet_seq_num is below *arg, the bound
 * EVT_CMD_SNAPSHOT returned for the ring. -ENODATA (nothing held) once the
 * reader reached the bound: the snapshot of this ring is complete, however
 * fast the writer goes on; -EAGAIN (nothing held) when the sub-buffer at
 * the reader's position is below the bound but not complete yet (a writer
 * is committing into it: ask again).
 */
#define EVT_IOC_PUT_GET_SUBBUF_BELOW	_IOW(EVT_IOC_MAGIC, 9, __u64)

/*
 * The per-ring counters, defined once. Each X(field, ATTR, width) is a __u64
 * field of struct evt_ring_stats, the netlink attribute EVT_R_<ATTR> of a ring
 * in STATUS, a column of the module's debugfs stats and of evctl status (text
 * of that width, JSON). The numbers and the layout are ABI: a counter added
 * later goes into a list of its own, after what came before it (version 3's
 * after EVT_R_FAKE and after the struct's fill_pct and online).
 */
#define EVT_RING_COUNTERS_V2(X)						\
	X(recorded, RECORDED, 12)	/* events reserved and committed */	\
	X(discarded, DISCARDED, 12)	/* events dropped: no free sub-buffer */ \
	X(overwritten, OVERWRITTEN, 12)	/* recorded, overwritten before read */ \
	X(too_big, TOO_BIG, 10)		/* larger than a sub-buffer's payload */ \
	X(refused, REFUSED, 10)		/* nesting too deep, or no ring */	\
	X(produced, PRODUCED, 10)	/* sub-buffers completed */		\
	X(consumed, CONSUMED, 10)	/* sub-buffers released by the reader */ \
	X(skipped, SKIPPED, 10)		/* sub-buffers skipped: the reader held them */
#define EVT_RING_COUNTERS_V3(X)						\
	X(filtered, FILTERED, 10)	/* not recorded: the task is not tracked */
#define EVT_RING_COUNTERS(X) EVT_RING_COUNTERS_V2(X) EVT_RING_COUNTERS_V3(X)

struct evt_ring_stats {
#define EVT_RING_STATS_FIELD(field, attr, width) __u64 field;
	EVT_RING_COUNTERS_V2(EVT_RING_STATS_FIELD)
	__u32 fill_pct;		/* unconsumed part of the ring, percent */
	__u32 online;
	EVT_RING_COUNTERS_V3(EVT_RING_STATS_FIELD)
#undef EVT_RING_STATS_FIELD
};

#endif /* EVTRACE_ABI_H */
