/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot: what the rings hold, saved as a trace without stopping
 * (evctl snapshot, evdrain --snapshots). It takes what it saves out of the
 * rings, as a drain does.
 */
#ifndef EVT_SNAPSHOT_H
#define EVT_SNAPSHOT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "consumer/evt_consumer.h"
#include "util/evt_cpulist.h"

struct evt_ctl;

struct evt_snapshot_result {
	uint64_t packets;
	uint64_t bytes;
	int streams;
	/*
	 * Rings whose CPU did not answer the flush (spinning with interrupts
	 * off): saved as they were, without their open sub-buffers' events.
	 */
	unsigned int unanswered;
	uint64_t left_out;
	uint8_t unanswered_cpus[EVT_CPUSET_BYTES];
};

/* What evt_snapshot_save() failed at. */
enum evt_snapshot_error {
	EVT_SNAPSHOT_ERR_RINGS = -1,	/* a device or a file: @err says which */
	EVT_SNAPSHOT_ERR_NO_RING = -2,	/* no ring device at all */
	EVT_SNAPSHOT_ERR_BUSY = -3,	/* another reader has a ring (a drainer) */
	EVT_SNAPSHOT_ERR_ACCESS = -4,	/* the devices need root */
	EVT_SNAPSHOT_ERR_MODULE = -5,	/* SNAPSHOT refused: evt_ctl_extack()/evt_ctl_errmsg() */
};

/*
 * Save a snapshot into @dir, an existing empty directory: open every ring
 * device, copy the metadata, send SNAPSHOT (@trigger_seq: the bounds that
 * trigger kept; 0: flush now), take each ring's packets up to its bound and
 * fsync. Opening the devices first leaves the least time between the flush
 * and the read. 0 with @res filled, or an enum evt_snapshot_error with a
 * message in @err. Files written before a failure stay: the caller removes
 * them.
 */
int evt_snapshot_save(struct evt_ctl *ctl, const char *dir, uint64_t trigger_seq,
		      enum evt_xfer xfer, struct evt_snapshot_result *res, char *err, size_t errlen);

/*
 * When some rings' CPUs did not answer the flush: one line on @f, "@prog:
 * CPU 1 did not answer ...", naming them and the events left out.
 */
void evt_snapshot_note_unanswered(FILE *f, const char *prog, const struct evt_snapshot_result *res);

/*
 * After a failed evt_snapshot_save(): remove the files it wrote in @dir (a
 * snapshot writes no subdirectory), and @dir itself when @remove_dir (the
 * caller created it).
 */
void evt_snapshot_undo(const char *dir, int remove_dir);
#endif
