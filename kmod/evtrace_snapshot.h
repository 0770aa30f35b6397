/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The snapshot unit (evtrace_snapshot.c): the one owner of the rings' two
 * holds, a SNAPSHOT's and a trigger's, and of the kept trigger's bounds.
 * Netlink (SNAPSHOT, STATUS), the triggers and the reader devices call in
 * here; it calls only the rings.
 */
#ifndef EVTRACE_SNAPSHOT_H
#define EVTRACE_SNAPSHOT_H

#include <linux/types.h>
#include <linux/cpumask.h>

struct evt_cpu_ring;
struct evt_flush_result;
struct netlink_ext_ack;

/* A trigger, as the trigger unit took it. */
struct evt_trigger_info {
	u64 seq;		/* its number since load; 0: none */
	u64 ts;			/* evt_clock(): the trace's clock */
	u64 id;			/* the address the report names, or the oops's error code */
	u32 reason;		/* enum evt_trigger_reason */
};

/* The kept trigger as STATUS and the debugfs file show it. */
struct evt_trigger_kept {
	struct evt_trigger_info t;
	bool ready;		/* its rings are all flushed and held */
	bool expired;		/* trigger_keep_ms passed with some ring unread: released */
	u64 release_ts;		/* when its holds go unread (trace clock); 0: until read */
};

/* One ring's holds (STATUS): when each began, 0 when not held. */
struct evt_ring_holds {
	u64 since[2];		/* [enum evt_hold_kind] */
};

void evt_snapshot_exit(void);

void evt_snapshot_take(struct evt_cpu_ring *cr, struct evt_flush_result *res);
int evt_snapshot_trigger_check(u64 seq, struct netlink_ext_ack *extack);
bool evt_snapshot_trigger_bound(struct evt_cpu_ring *cr, struct evt_flush_result *res);
void evt_snapshot_trigger(const struct evt_trigger_info *t, unsigned int keep_ms,
			  struct cpumask *unanswered);
void evt_snapshot_reader_reached(struct evt_cpu_ring *cr, unsigned long pos);
void evt_snapshot_reader_closed(struct evt_cpu_ring *cr);
void evt_snapshot_kept(struct evt_trigger_kept *k);
void evt_snapshot_ring_holds(struct evt_cpu_ring *cr, struct evt_ring_holds *h);

#endif /* EVTRACE_SNAPSHOT_H */
