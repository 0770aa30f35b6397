/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evdrain --snapshots DIR: the flight recorder's drainer. It reads nothing
 * until the module announces a trigger (NOTIFY_TRIGGER: a KASAN or KFENCE
 * report, a WARN or an oops, see the module parameter triggers), then saves
 * what the rings held when it fired into a new directory under DIR.
 */
#ifndef EVD_SNAPSHOTS_H
#define EVD_SNAPSHOTS_H

#include <signal.h>
#include <stdint.h>
#include "consumer/evt_consumer.h"

struct evt_ctl;

struct evd_snap_opts {
	const char *dir;
	uint64_t keep_ms;		/* keep packets that end this close to the trigger; 0: all */
	uint64_t keep_bytes;		/* keep the newest packets up to this size; 0: all */
	uint64_t duration_ms;		/* 0: until a signal */
	enum evt_xfer xfer;
	int quiet;
};

/*
 * Wait for triggers and save each until *stop or the duration ends (the
 * control socket has joined the notify group). 0, or -1 when DIR cannot be
 * used or the notifications fail (a snapshot that fails is reported and
 * the wait goes on).
 */
int evd_snapshots_run(struct evt_ctl *ctl, const struct evd_snap_opts *o,
		      volatile sig_atomic_t *stop);
#endif
