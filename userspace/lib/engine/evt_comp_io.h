/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "io" computation (evt_comp_io.c): block requests per device (count,
 * bytes, issue -> completion latency, also per request size), and the bytes
 * of I/O system calls per process and per file.
 *
 * Block requests are matched as the LTTng analyses match them
 * (lttnganalyses/linuxautomaton/block.py): a block_rq_issue with sectors is
 * pending under (dev, sector), dev taken back to the partition a
 * block_bio_remap came from; the block_rq_complete of the same (dev,
 * sector) and number of sectors completes it (others are counted
 * unmatched). A request's bytes are its sectors x 512; it is a write when
 * its rwbs is odd.
 *
 * I/O system calls (read, write, pread64, pwrite64, readv, writev, preadv,
 * pwritev and their 2 forms, recvfrom, sendto, recvmsg, sendmsg) add the
 * bytes their exit returns (when positive) to the calling thread's process
 * and to the file its descriptor names: the state dump's open files,
 * open/openat's filename, dup/dup2/dup3, close; a descriptor never named is
 * "fd N of PID". A thread is the one the CPU's last sched_switch ran.
 */
#ifndef EVT_COMP_IO_H
#define EVT_COMP_IO_H

#include <stdint.h>
#include "engine/evt_comps.h"

/* Request sizes: bucket b holds sizes in (2^(b-1), 2^b] bytes (b >= 9: 512 B). */
#define EVT_IO_SIZE_BUCKETS 40

struct evt_io_req_stats {
	uint64_t count, bytes;
	struct evt_lat lat;		/* issue -> completion */
};

struct evt_io_dev {
	uint32_t dev;			/* the kernel's dev_t */
	char name[32];			/* the state dump's, else "" */
	struct evt_io_req_stats rw[2];	/* [0] reads, [1] writes */
	struct evt_io_req_stats size[2][EVT_IO_SIZE_BUCKETS];
};

struct evt_io_proc {
	int32_t pid;
	char comm[16];
	uint64_t read, write;		/* bytes of I/O system calls */
	uint64_t blk_read, blk_write;	/* bytes of the block requests its threads issued */
};

struct evt_io_file {
	char *name;
	uint64_t read, write;
};

struct evt_io {
	struct evt_io_dev *devs;
	uint32_t nr_devs, cap_devs;
	struct evt_io_proc *procs;
	uint32_t nr_procs, cap_procs;
	struct evt_io_file *files;
	uint32_t nr_files, cap_files;
	uint64_t unmatched;		/* completions with no matching issue */
	struct evt_io_priv *priv;	/* while built */
};

extern const struct evt_computation evt_comp_io;

/* The bucket of a request of @bytes (evt_io_dev.size). */
unsigned int evt_io_size_bucket(uint64_t bytes);

#endif /* EVT_COMP_IO_H */
