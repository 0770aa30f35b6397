/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The consumer: what every program that drains evtrace's rings does, once.
 * It opens the ring devices (/dev/evtrace/<channel>/cpuN, and CPUs that come
 * online later), takes whole sub-buffers and releases them, moves each to the
 * ring's stream file without copying (sendfile(), or splice() through a pipe)
 * or by read()/write() where the file system refuses, keeps the files to
 * whole packets when a write fails, copies the module's metadata whatever its
 * size (written aside, fsynced, renamed), and asks a ring for its quiescent
 * time. Scheduling (when to drain which ring) stays with the program.
 */
#ifndef EVT_CONSUMER_H
#define EVT_CONSUMER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <evtrace/abi.h>
#include <evtrace/limits.h>
#include "ctf/evt_pindex.h"

struct evt_metadata;

/* How a packet goes from the ring device to its file. */
enum evt_xfer {
	EVT_XFER_SENDFILE,	/* sendfile(): the kernel splices the pages, one call */
	EVT_XFER_SPLICE,	/* splice() into a pipe and out of it */
	EVT_XFER_COPY,		/* read() into a buffer, write() from it */
};

struct evt_consumer_ring {
	int fd;			/* the ring device */
	int out;		/* its stream file; -1 without a directory */
	unsigned int channel;
	int cpu;
	int index;		/* its place in evt_consumer.rings, for good */
	char name[32];		/* "compact_3": the stream file's name */
	off_t size;		/* bytes of whole packets in the stream file */
	uint64_t packets;	/* packets this consumer wrote */
	uint64_t packet;	/* bytes per packet (the padded sub-buffer size) */
	enum evt_xfer xfer;	/* copy from the first packet a file refuses to splice */
	int holding;		/* a sub-buffer is taken */
	int ready, busy;	/* free for the program's scheduling */
	/* Its packet index file, written as packets go (evt_pindex.h); inert when it cannot be. */
	struct evt_pidx_writer idx;
	int idx_added;		/* entries since the last flush */
};

/* Sources a reorderer fed by the consumer needs: one per possible ring. */
#define EVT_LIVE_SOURCES	(EVT_MAX_CPUS * EVT_NR_CHANNELS)

/*
 * A trace tells what every process did: its files are for the owner and
 * the group (a tracing group), not for every local user.
 */
#define EVT_CONSUMER_FILE_MODE	0640

struct evt_consumer_opts {
	const char *dev_dir;	/* NULL: /dev/evtrace */
	const char *out_dir;	/* NULL: packets go to on_packet only */
	unsigned int channels;	/* bit per channel (1U << EVT_CHAN_*); 0: all */
	enum evt_xfer xfer;
	/* Existing stream files: keep their whole packets and append (else truncate). */
	int append;
	/* The files it writes (mode EVT_CONSUMER_FILE_MODE) given to this group. */
	int has_group;
	gid_t group;
	/* No packet index files beside the stream files (evt_pindex.h): readers walk the headers. */
	int no_index;
	/* Every packet's bytes, once taken (its ring forced to EVT_XFER_COPY). */
	void (*on_packet)(void *arg, struct evt_consumer_ring *r, const uint8_t *pkt, size_t len);
	void *arg;
};

struct evt_consumer {
	struct evt_consumer_opts o;
	struct evt_consumer_ring *rings;	/* moved by evt_consumer_open_rings() */
	int nr_rings, cap_rings;
	uint64_t bytes_written;
	/* A write failed (disk full): no more packets are taken; err says which file. */
	int write_failed;
	char err[512];		/* the last error */
	uint8_t *buf;		/* EVT_XFER_COPY's buffer */
	size_t buf_size;
	int pipefd[2];		/* EVT_XFER_SPLICE's pipe */
	char out_dir_buf[4096];	/* o.out_dir once evt_consumer_switch_dir() moved it */
};

/* 0, or -1 with errno (out of memory). */
int evt_consumer_init(struct evt_consumer *c, const struct evt_consumer_opts *o);

/* Release what is held, close every descriptor, free. */
void evt_consumer_close(struct evt_consumer *c);

/*
 * Open every ring device not open yet, and its stream file. Returns how many
 * were opened (0 when none is new), or -1 with c->err (a device another
 * reader has, a file that cannot be written: the rings opened so far stay).
 */
int evt_consumer_open_rings(struct evt_consumer *c);

struct evt_consumer_ring *evt_consumer_find(struct evt_consumer *c, unsigned int channel, int cpu);

/*
 * Read the module's metadata to its end. With an output directory it becomes
 * DIR/metadata: written as DIR/metadata.tmp, fsynced, renamed, the directory
 * fsynced (a reader never sees half of it). With @md it is also parsed into
 * it (evt_metadata_free() it after 0). 0, or -1 with c->err.
 */
int evt_consumer_metadata(struct evt_consumer *c, struct evt_metadata *md);

/*
 * The kernel's symbols for the trace's kernel stacks: /proc/kallsyms and
 * /proc/modules (as this process may read them: root sees the addresses)
 * copied to TRACE/symbols/kallsyms and TRACE/symbols/modules, beside
 * TRACE/kernel/ (evt_symbols_path()), the directory 0750 and the files
 * EVT_CONSUMER_FILE_MODE, given to the group as the trace's files are,
 * never written through a link. 0; 1 when kallsyms shows no addresses to
 * this process (nothing written: such symbols name nothing); -1 with c->err.
 * With @end, the copy taken when the trace ends goes to kallsyms-end and
 * modules-end instead: modules loaded while tracing are in it (one
 * unloaded meanwhile is in the first), readers take both.
 */
int evt_consumer_symbols(struct evt_consumer *c, int end);

/*
 * Take the ring's next complete sub-buffer, releasing the held one first.
 * 1 taken, 0 none complete (nothing is held then), -1 with c->err.
 */
int evt_consumer_take(struct evt_consumer *c, struct evt_consumer_ring *r);

/*
 * A snapshot's take: release the held sub-buffer and take the next one if
 * its packet_seq_num is below @bound (EVT_CMD_SNAPSHOT's, see
 * evt_ctl_snapshot()); a sub-buffer below it still being committed is
 * waited for (1 s at most). 1 taken, 0 the bound is reached (nothing held),
 * -1 with c->err.
 */
int evt_consumer_take_below(struct evt_consumer *c, struct evt_consumer_ring *r, uint64_t bound);

/*
 * evt_consumer_drain() up to @bound: take, write and release every
 * sub-buffer below it. It ends whatever the writer does meanwhile: the
 * reader's position only grows, and the bound is fixed. Returns the packets
 * written, or -1 with c->err.
 */
int evt_consumer_drain_below(struct evt_consumer *c, struct evt_consumer_ring *r, uint64_t bound);

/* Release the held sub-buffer. 0, or -1 with c->err. */
int evt_consumer_release(struct evt_consumer *c, struct evt_consumer_ring *r);

/*
 * Write the held packet, read from the device's file position (0 right after
 * a take), to the ring's file and hand it to on_packet. On a failed write the
 * file is cut back to its last whole packet, c->write_failed is set and the
 * packet released. 0, or -1 with c->err.
 */
int evt_consumer_write(struct evt_consumer *c, struct evt_consumer_ring *r);

/*
 * Take, write and release every complete sub-buffer of @r (one ioctl per
 * packet); nothing is held on return, and a ring the program holds itself is
 * left alone. Returns the packets written, or -1 with c->err. r->busy says
 * whether any was.
 */
int evt_consumer_drain(struct evt_consumer *c, struct evt_consumer_ring *r);

/* evt_consumer_drain() on every ring until a write fails; -1 if any failed. */
int evt_consumer_drain_all(struct evt_consumer *c);

/*
 * After tracing stopped: drain, flush every ring, drain again (losses after
 * the last closed packet need a free sub-buffer to be carried in a packet).
 */
int evt_consumer_drain_final(struct evt_consumer *c);

/*
 * The ring's quiescent time (it flushes first): no event older than
 * q->timestamp can still appear in it. 0, or -1 with c->err.
 */
int evt_consumer_quiescent(struct evt_consumer *c, struct evt_consumer_ring *r,
			   struct evt_quiescent *q);

/*
 * Bytes of whole packets at the start of @fd (@size bytes long): the packet
 * headers are walked, so a drainer killed mid-write, or sub-buffers of
 * another size in an earlier run, leave only their whole packets counted.
 */
off_t evt_whole_packets(int fd, off_t size);

/*
 * The packet at @pos of @fd (@size bytes long): its header in @h and its
 * bytes when a whole packet starts there (magic, a packet_size in whole
 * bytes of at least a header, within the file), else 0. The walk above.
 */
uint64_t evt_packet_at(int fd, off_t pos, off_t size, struct evt_packet_header *h);

/*
 * fsync every stream file and the directory, and seal the packet index
 * files with the streams' sizes and mtimes (a packet written later unseals
 * its index again). 0, or -1 with c->err.
 */
int evt_consumer_sync(struct evt_consumer *c);

/*
 * From now on, every ring's packets go to a new stream file in @dir (which
 * exists; the files are created empty), rings opened later too: rotation.
 * The old files are closed as they are (sync them before, or by path
 * after). Nothing may be held. 0, or -1 with c->err and write_failed set
 * (a file that cannot be created, as a write that failed: no packet is
 * taken any more).
 */
int evt_consumer_switch_dir(struct evt_consumer *c, const char *dir);

#endif
