/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The evtrace control API: the generic netlink family "evtrace" (see
 * include/evtrace/netlink.h) through libnl-3. Used by evctl and evdrain.
 *
 * Every function that talks to the kernel returns 0 or a negative errno.
 * After a failure, evt_ctl_errmsg() says what happened in words a person can
 * act on: the kernel's extended-ack message when it sent one, else a
 * description of the errno ("permission denied: ..." for -EPERM). A module
 * of another protocol version (EVT_GENL_VERSION) is not sent any request:
 * each fails with -EPROTONOSUPPORT, and the message names both versions.
 *
 * Notifications: evt_ctl_subscribe() joins the "notify" multicast group on a
 * second, non-blocking socket; evt_ctl_notify_fd() is its descriptor for
 * poll(), evt_ctl_notify_read() delivers what is pending to a callback,
 * evt_ctl_notify_wait() polls and reads with a time-out.
 */
#ifndef EVT_CTL_H
#define EVT_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <evtrace/netlink.h>

struct evt_ctl;

/* STATUS, parsed. Absent attributes leave their field at its initial value. */
struct evt_status_event {
	char name[64];
	int enabled;
	int channel;			/* enum evt_channel, -1 when not reported */
	int stack;			/* recorded with its kernel stack */
};

struct evt_status_ring {
	unsigned int channel;		/* enum evt_channel */
	unsigned int cpu;
	int online;
	/* recorded ... skipped: the counters of <evtrace/abi.h> */
#define EVT_STATUS_RING_FIELD(field, attr, width) uint64_t field;
	EVT_RING_COUNTERS(EVT_STATUS_RING_FIELD)
#undef EVT_STATUS_RING_FIELD
	uint32_t fill;			/* percent */
	/* Held by a SNAPSHOT, by the kept trigger: since when (trace clock), 0 when not. */
	uint64_t held_snapshot, held_trigger;
	uint64_t unanswered;		/* flushes its CPU did not answer in time */
};

struct evt_status_gen {
	unsigned int cpu;
	int running, done;
	uint64_t compact, normal, timer;	/* events offered */
};

/*
 * STATUS's FILTER: what is tracked (<evtrace/netlink.h>, "Filters"). The
 * names and paths come to CAP_NET_ADMIN only: others get how many.
 */
struct evt_status_filter {
	int set;			/* 0: no filter, every task is recorded */
	uint32_t nr_pids;		/* process IDs tracked */
	int follow_fork;
	size_t nr_comms, nr_cgroups;	/* the names and paths below */
	int64_t count_comms, count_cgroups;	/* how many are tracked; -1 not reported */
	char comms[EVT_FILTER_COMMS_MAX][EVT_FILTER_COMM_MAX + 1];
	char cgroups[EVT_FILTER_CGROUPS_MAX][EVT_FILTER_CGROUP_PATH_MAX];
};

/* STATUS's kept trigger: the last one's bounds, which SNAPSHOT with its number reads. */
struct evt_status_trigger {
	uint64_t seq;			/* 0: none fired since load */
	int reason;			/* enum evt_trigger_reason */
	uint64_t ts;			/* when, trace clock */
	uint64_t release_ts;		/* its holds go unread then (trace clock); 0: until read */
	int expired;			/* they went with a ring unread (trigger_keep_ms) */
};

struct evt_status {
	int tracing;
	int mode;			/* 0 discard, 1 overwrite; -1 not reported */
	int64_t high_water;		/* percent; -1 not reported */
	int64_t flush_ms;		/* -1 not reported */
	uint64_t subbuf_size, num_subbuf;	/* 0 when not reported */
	size_t nr_events, nr_rings, nr_gens;
	struct evt_status_event *events;
	struct evt_status_ring *rings;
	struct evt_status_gen *gens;
	/*
	 * Synthetic rings of the module's test hook (debugfs status_fake_cpus,
	 * root only): CPUs that do not exist, made-up figures. Kept apart from
	 * rings[], never in a total; 0 unless a test set the hook.
	 */
	size_t nr_fake_rings;
	struct evt_status_ring *fake_rings;
	struct evt_status_filter filter;
	struct evt_status_trigger trigger;
	uint64_t now;			/* CLOCK_MONOTONIC (the trace clock) when read; 0: not known */
};

/* CONFIG request: only the fields named in @set are sent. */
#define EVT_CFG_MODE		0x1u
#define EVT_CFG_HIGH_WATER	0x2u
#define EVT_CFG_FLUSH_MS	0x4u
#define EVT_CFG_EVENTS		0x8u

/* What an event's kernel stack becomes (evctl enable --stack). */
enum { EVT_STACK_LEAVE, EVT_STACK_ON, EVT_STACK_OFF };

struct evt_event_switch {
	const char *name;
	int enabled;
	int stack;		/* EVT_STACK_*: on or off with the event's stack, or left */
	int stack_only;		/* send the stack alone: the event's switch is left as it is */
};

struct evt_config {
	unsigned int set;		/* EVT_CFG_* */
	int mode;			/* enum evt_mode: 0 discard, 1 overwrite */
	uint32_t high_water;		/* EVT_HIGH_WATER_MIN..MAX */
	uint32_t flush_ms;		/* 0..EVT_FLUSH_MS_MAX */
	size_t nr_events;
	const struct evt_event_switch *events;
};

/* GENERATE request: only the fields named in @set are sent (the kernel
 * supplies defaults for the others). */
#define EVT_GEN_SET_EVENTS	0x1u
#define EVT_GEN_SET_RATE	0x2u
#define EVT_GEN_SET_CHANNELS	0x4u
#define EVT_GEN_SET_SIZES	0x8u
#define EVT_GEN_SET_CPUS	0x10u

struct evt_gen_request {
	unsigned int set;		/* EVT_GEN_SET_* */
	struct evt_gen_params p;	/* the module's own (evtrace/netlink.h) */
	char cpus[EVT_CPULIST_MAX];	/* "0-3,6" or "all" */
};

/*
 * TRACK and UNTRACK: the items to add or remove. Process IDs are of the
 * caller's PID namespace; cgroups are paths in the cgroup v2 hierarchy
 * ("/a/b", as /proc/PID/cgroup shows them).
 */
struct evt_filter_spec {
	size_t nr_pids, nr_comms, nr_cgroups;
	const uint32_t *pids;
	const char *const *comms;
	const char *const *cgroups;
	int follow_fork;		/* TRACK: 0 or 1; -1 leaves it as it is */
	int all;			/* UNTRACK: everything (nothing else given) */
};

/* One NOTIFY message. Fields the kernel left out are -1. */
struct evt_notification {
	int reason;			/* enum evt_notify */
	int channel;			/* enum evt_channel */
	int cpu;
	int fill;			/* percent */
	/* NOTIFY_TRIGGER: what fired it (enum evt_trigger_reason, else -1), its number and time */
	int trigger_reason;
	uint64_t trigger_seq;
	uint64_t trigger_ts;		/* on the trace's clock */
	/* CPUs that did not answer the trigger's flush ("1,3-5"), "" when all did */
	char unanswered_cpus[EVT_CPULIST_MAX];
};

typedef void (*evt_notify_cb)(const struct evt_notification *n, void *arg);

/*
 * Connect and resolve the family. On failure *ctl is NULL and the return is
 * -ENOENT (module not loaded), or another -errno; evt_ctl_strerror() words it.
 */
int evt_ctl_open(struct evt_ctl **ctl);
void evt_ctl_close(struct evt_ctl *ctl);

int evt_ctl_start(struct evt_ctl *ctl);
int evt_ctl_stop(struct evt_ctl *ctl);
int evt_ctl_flush(struct evt_ctl *ctl);
/* Ask the drainers listening to the notify group to cut a chunk (NOTIFY_ROTATE). */
int evt_ctl_rotate(struct evt_ctl *ctl);
/* Record the state dump again (tracing must be running). */
int evt_ctl_statedump(struct evt_ctl *ctl);
int evt_ctl_config(struct evt_ctl *ctl, const struct evt_config *cfg);
int evt_ctl_generate(struct evt_ctl *ctl, const struct evt_gen_request *g);
int evt_ctl_generate_stop(struct evt_ctl *ctl);
/* The hrtimer source: an event per CPU every @period_us (EVT_TIMER_PERIOD_US_*). */
int evt_ctl_timer(struct evt_ctl *ctl, uint32_t period_us);
int evt_ctl_timer_stop(struct evt_ctl *ctl);
/* Record only tracked tasks' events from now on (see struct evt_filter_spec). */
int evt_ctl_track(struct evt_ctl *ctl, const struct evt_filter_spec *f);
int evt_ctl_untrack(struct evt_ctl *ctl, const struct evt_filter_spec *f);

/* One ring's bound in a snapshot: its packets below packet_seq_num @seq. */
struct evt_snapshot_bound {
	unsigned int channel;		/* enum evt_channel */
	unsigned int cpu;
	uint64_t seq;
	/* Its CPU did not answer the flush: the events of its open sub-buffer, left out. */
	int unanswered;
	uint64_t left_out;
};

/*
 * SNAPSHOT: the module flushes every ring and tells, per ring, the
 * packet_seq_num up to which a snapshot reads (EVT_IOC_PUT_GET_SUBBUF_BELOW).
 * With @trigger_seq (a NOTIFY_TRIGGER's number; 0: now), the bounds that
 * trigger kept instead, nothing flushed (-ENOENT when they are not kept).
 * *bounds (free() it) holds *nr entries on success.
 */
int evt_ctl_snapshot(struct evt_ctl *ctl, uint64_t trigger_seq, struct evt_snapshot_bound **bounds,
		     size_t *nr);
/* "kasan", "kfence", "warn", "oops" (enum evt_trigger_reason), else "?". */
const char *evt_trigger_name(int reason);

/* Fills @st (which the caller frees with evt_status_free, also on error). */
int evt_ctl_status(struct evt_ctl *ctl, struct evt_status *st);
/*
 * What evt_ctl_status() does with what it receives, for the unit tests: add
 * the STATUS messages in @buf (netlink messages back to back, @len bytes;
 * others are skipped) to @st. 0, -EPROTO when malformed, or -ENOMEM.
 */
int evt_status_parse(struct evt_status *st, const void *buf, size_t len);
void evt_status_init(struct evt_status *st);
void evt_status_free(struct evt_status *st);

int evt_ctl_subscribe(struct evt_ctl *ctl);
int evt_ctl_notify_fd(const struct evt_ctl *ctl);
/*
 * Deliver every pending notification (never blocks). Returns how many were
 * delivered, or -ENOBUFS when the socket overflowed and some were lost (the
 * socket keeps working: read again), or another -errno.
 */
int evt_ctl_notify_read(struct evt_ctl *ctl, evt_notify_cb cb, void *arg);
/* Wait up to @timeout_ms (-1: for ever) for notifications, then read them. */
int evt_ctl_notify_wait(struct evt_ctl *ctl, int timeout_ms, evt_notify_cb cb, void *arg);

/* A sentence for an error code from evt_ctl_open or any request. */
const char *evt_ctl_strerror(int err);
/* The last request's error: the kernel's extack text, else evt_ctl_strerror. */
const char *evt_ctl_errmsg(const struct evt_ctl *ctl);
/* The kernel's extack text of the last request, "" when it sent none. */
const char *evt_ctl_extack(const struct evt_ctl *ctl);

/* Names of enum values ("?" when unknown). */
const char *evt_notify_name(int reason);	/* "HIGH_WATER", ... */
const char *evt_mode_name(int mode);		/* "discard", "overwrite" */

#endif /* EVT_CTL_H */
