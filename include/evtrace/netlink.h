/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * evtrace generic netlink ABI: family "evtrace", version 3, multicast group
 * "notify". Shared by the module and userspace (libevtrace, evctl, evdrain).
 *
 * Version 3 adds the in-kernel filters (TRACK, UNTRACK, STATUS's FILTER),
 * SNAPSHOT and the ring counter FILTERED (after FAKE: no number changes),
 * which grows struct evt_ring_stats and so changes the EVT_IOC_GET_STATS
 * number.
 *
 * Version 2 changes one thing incompatibly: STATUS is a dump. A request without
 * NLM_F_DUMP gets EOPNOTSUPP. The dump's first message holds TRACING, MODE,
 * HIGH_WATER, FLUSH_MS, SUBBUF_SIZE, NUM_SUBBUF and EVENTS (every event);
 * then comes one message per ring, RINGS holding one RING, per channel and
 * CPU; one per possible CPU, GENS holding one GEN; and, only while the test
 * hook below is on, one per synthetic ring, FAKE_RINGS holding one RING.
 * The attributes are those of version 1's single reply, its lists split
 * over the messages: a client concatenates the lists of every message. No
 * message grows with the number of CPUs (version 1's RINGS nest passed
 * 65,535 bytes, its 16-bit length wrapping, beyond about 240 CPUs).
 * Userspace checks the family's version (CTRL_ATTR_VERSION) and refuses to
 * talk to another one.
 *
 * Test hook: while root writes N > 0 (at most 4096) to the debugfs file
 * evtrace/status_fake_cpus, STATUS also reports a ring per channel for N
 * CPUs that do not exist (numbered from the kernel's nr_cpu_ids up), with
 * made-up figures, each marked EVT_R_FAKE and only ever in FAKE_RINGS:
 * clients count them apart and never add them to real figures.
 *
 * SNAPSHOT (evctl snapshot) is a dump too, and needs CAP_NET_ADMIN: for each
 * ring it closes the partial sub-buffer (as FLUSH) and sends one message with
 * CHANNEL, CPU and SNAPSHOT_SEQ, the packet_seq_num of the sub-buffer open
 * after that flush: every packet below it is closed. A reader then takes the
 * ring's packets with EVT_IOC_PUT_GET_SUBBUF_BELOW up to that bound and stops
 * there, however fast the writer goes on (<evtrace/abi.h>). Until the reader
 * reaches the bound (or closes the ring, or 10 s pass) an overwriting writer
 * discards rather than take a packet below it: the ring's snapshot hold. A
 * ring whose CPU does not answer the flush within 2 s (spinning with
 * interrupts off) is not waited for: its bound is its open sub-buffer's
 * number (that sub-buffer, not closed, is left out) and its message carries
 * SNAPSHOT_LEFT_OUT, the events in it. With TRIGGER_SEQ, the bounds are those
 * the trigger of that number took when it fired (NOTIFY_TRIGGER), nothing is
 * flushed, and rings that had none are left out; only the last trigger's
 * bounds are kept (ENOENT for another, or once trigger_keep_ms released its
 * holds unread; EAGAIN while its rings are still being flushed). A request
 * without NLM_F_DUMP gets EOPNOTSUPP.
 *
 * Triggers: when the kernel reports a bug (error_report_end: KASAN, KFENCE,
 * every WARN; the die notifier: an oops) and the module parameter triggers
 * names that detector, the module records an evtrace_trigger event, flushes
 * every ring, holds each at its bound with the ring's trigger hold, and
 * multicasts NOTIFY_TRIGGER with TRIGGER_REASON, TRIGGER_SEQ, TRIGGER_TS and,
 * when CPUs did not answer the flush, UNANSWERED_CPUS (their rings kept as
 * they were). A drainer (evdrain --snapshots) then asks SNAPSHOT with
 * TRIGGER_SEQ. One trigger at a time, and none within trigger_interval_ms of
 * the last.
 *
 * Holds: a ring has two, a snapshot's and a trigger's; an overwriting writer
 * honours the higher, and each goes by its own rule only. A snapshot's: its
 * reader reaches the bound, the ring device is closed, or 10 s after the last
 * SNAPSHOT. A trigger's: a reader reaches its bound (whatever it reads for),
 * or trigger_keep_ms pass with it unread (0: never). STATUS shows them: the
 * kept trigger in the first message (TRIGGER_SEQ, _REASON, _TS, _RELEASE_TS
 * when its holds will go unread, _EXPIRED once they did), and per ring since
 * when it is held by each (R_HELD_SNAPSHOT, R_HELD_TRIGGER, absent when not)
 * and the flushes its CPU did not answer in time (R_UNANSWERED).
 *
 * Mutating commands need CAP_NET_ADMIN. STATUS is open to everyone: it
 * reports counters, configuration and holds of the tracer, no event
 * contents, no addresses, nothing about other users' processes. Of the task
 * filter everyone sees whether one is set and how many process IDs, names
 * and cgroups it tracks (FILTER_NR_PIDS, _NR_COMMS, _NR_CGROUPS,
 * _FOLLOW_FORK); the names and paths themselves (FILTER_COMMS,
 * FILTER_CGROUPS) go to CAP_NET_ADMIN only.
 *
 * Requests are validated strictly (EINVAL with an extended-ack message): the
 * genl header's reserved field must be 0, nlmsg_flags may hold only
 * NLM_F_REQUEST, NLM_F_ACK, NLM_F_ECHO and NLM_F_DUMP; each command takes
 * only the attributes listed for it below (START, STOP, STATUS, FLUSH,
 * GENERATE_STOP and TIMER_STOP take none), nests carry NLA_F_NESTED, and no bytes may
 * follow the last attribute, at the top or in a nest.
 */
#ifndef EVTRACE_NETLINK_H
#define EVTRACE_NETLINK_H

#include <linux/types.h>
#include <evtrace/limits.h>
#include <evtrace/abi.h>

#define EVT_GENL_NAME		"evtrace"
#define EVT_GENL_VERSION	3
#define EVT_GENL_MCGRP_NOTIFY	"notify"

enum evt_genl_cmd {
	EVT_CMD_UNSPEC,
	EVT_CMD_START,		/* start tracing */
	EVT_CMD_STOP,		/* stop tracing, close partial sub-buffers */
	EVT_CMD_STATUS,		/* a dump: state, configuration, rings, generator */
	EVT_CMD_CONFIG,		/* set MODE, HIGH_WATER, FLUSH_MS, EVENTS */
	EVT_CMD_FLUSH,		/* close partial sub-buffers now */
	EVT_CMD_GENERATE,	/* start the test generator: GEN_* attributes */
	EVT_CMD_GENERATE_STOP,	/* stop it */
	EVT_CMD_NOTIFY,		/* multicast only: NOTIFY_* attributes */
	EVT_CMD_TIMER,		/* start the test hrtimer source: TIMER_PERIOD_US */
	EVT_CMD_TIMER_STOP,	/* stop it */
	EVT_CMD_ROTATE,		/* ask the drainers to cut a chunk now: multicasts NOTIFY_ROTATE */
	EVT_CMD_STATEDUMP,	/* record the state dump again (a chunk's start), while tracing */
	EVT_CMD_TRACK,		/* add to the filter: FILTER_PIDS, _COMMS, _CGROUPS, _FOLLOW_FORK */
	EVT_CMD_UNTRACK,	/* remove from it: FILTER_PIDS, _COMMS, _CGROUPS, or FILTER_ALL */
	EVT_CMD_SNAPSHOT,	/* a dump: flush every ring, one message per ring with its bound */
	__EVT_CMD_MAX,
};
#define EVT_CMD_MAX (__EVT_CMD_MAX - 1)

/*
 * Filters (TRACK): while any is set, an event is recorded only when the task
 * running on the CPU (current, also in interrupt context) is tracked: its
 * process ID was tracked, or its name is one of the names, or it lives in
 * one of the cgroups or below (one match is enough). An event about other
 * tasks goes by them instead: sched_switch is recorded when either of its
 * two tasks is tracked; a wakeup, a migration, an exit or a free when the
 * task it names is. Other events are counted per ring as FILTERED, not as
 * losses. The state dump is never filtered (it describes every task,
 * whoever records it). A process leaves the set when it ends (once freed:
 * its ID may be reused). With FOLLOW_FORK, a process forked by a tracked task
 * is tracked by its ID. A cgroup is tracked by its path: removed and created
 * again, the new one is. UNTRACK that leaves nothing tracked, or FILTER_ALL,
 * removes the filter.
 */
enum evt_genl_attr {
	EVT_A_UNSPEC,
	EVT_A_TRACING,		/* u8: 1 when tracing (STATUS) */
	EVT_A_MODE,		/* u8: enum evt_mode (0 discard, 1 overwrite) */
	EVT_A_HIGH_WATER,	/* u32: percent, 1..100 */
	EVT_A_FLUSH_MS,		/* u32: 0 (off) .. EVT_FLUSH_MS_MAX */
	EVT_A_SUBBUF_SIZE,	/* u64, STATUS only */
	EVT_A_NUM_SUBBUF,	/* u64, STATUS only */
	EVT_A_EVENTS,		/* nested: EVT_A_EVENT... */
	EVT_A_EVENT,		/* nested: EVT_EV_* */
	EVT_A_RINGS,		/* nested: EVT_A_RING... (STATUS) */
	EVT_A_RING,		/* nested: EVT_R_* */
	EVT_A_GEN_EVENTS,	/* u64: events per CPU, >= 1 */
	EVT_A_GEN_RATE,		/* u32: events per second per CPU, 0 = flat out */
	EVT_A_GEN_CHANNELS,	/* u8: bit 0 compact, bit 1 normal */
	EVT_A_GEN_SIZES,	/* u8: 0 fixed, 1 a mix of payload sizes */
	EVT_A_GEN_CPUS,		/* string: CPU list "0-3,6" or "all" */
	EVT_A_GENS,		/* nested: EVT_A_GEN... (STATUS) */
	EVT_A_GEN,		/* nested: EVT_G_* */
	EVT_A_NOTIFY_REASON,	/* u8: enum evt_notify */
	EVT_A_CHANNEL,		/* u8: enum evt_channel */
	EVT_A_CPU,		/* u32 */
	EVT_A_FILL,		/* u32: percent */
	EVT_A_PAD,
	EVT_A_FAKE_RINGS,	/* nested: EVT_A_RING with EVT_R_FAKE (STATUS, test hook) */
	EVT_A_TIMER_PERIOD_US,	/* u32: EVT_TIMER_PERIOD_US_MIN..MAX (TIMER, required) */
	EVT_A_FILTER_PIDS,	/* nested: EVT_A_FILTER_PID... (TRACK, UNTRACK) */
	EVT_A_FILTER_PID,	/* u32: a process ID in the caller's PID namespace */
	EVT_A_FILTER_COMMS,	/* nested: EVT_A_FILTER_COMM... (TRACK, UNTRACK, STATUS: CAP_NET_ADMIN only) */
	EVT_A_FILTER_COMM,	/* string: a process name, <= EVT_FILTER_COMM_MAX bytes */
	EVT_A_FILTER_CGROUPS,	/* nested: EVT_A_FILTER_CGROUP... (TRACK, UNTRACK, STATUS: CAP_NET_ADMIN only) */
	EVT_A_FILTER_CGROUP,	/* string: a cgroup v2 path, as /proc/PID/cgroup shows it */
	EVT_A_FILTER_FOLLOW_FORK, /* u8: children of tracked tasks are tracked (TRACK, STATUS) */
	EVT_A_FILTER_ALL,	/* flag: UNTRACK everything, recording every task again */
	EVT_A_FILTER,		/* nested, STATUS: FILTER_NR_PIDS, _FOLLOW_FORK, _NR_COMMS, _NR_CGROUPS, _COMMS, _CGROUPS */
	EVT_A_FILTER_NR_PIDS,	/* u32: process IDs tracked now (STATUS) */
	EVT_A_SNAPSHOT_SEQ,	/* u64: SNAPSHOT's bound, a packet_seq_num (see below) */
	EVT_A_TRIGGER_REASON,	/* u8: enum evt_trigger_reason (NOTIFY_TRIGGER; STATUS: the kept one's) */
	EVT_A_TRIGGER_SEQ,	/* u64: the trigger's number since load */
	EVT_A_TRIGGER_TS,	/* u64: when, on the trace's clock */
	/* Later additions to version 3: clients that do not know them skip them. */
	EVT_A_UNANSWERED_CPUS,	/* string, NOTIFY_TRIGGER: CPUs that did not answer its flush ("1,3-5") */
	EVT_A_SNAPSHOT_LEFT_OUT, /* u64, SNAPSHOT: the ring's CPU did not answer; its open sub-buffer's events are not below the bound */
	EVT_A_TRIGGER_RELEASE_TS, /* u64, STATUS: when the kept trigger's holds go unread (trace clock) */
	EVT_A_TRIGGER_EXPIRED,	/* u8, STATUS: 1 when they went (trigger_keep_ms) with a ring unread */
	EVT_A_FILTER_NR_COMMS,	/* u32, STATUS's FILTER: process names tracked */
	EVT_A_FILTER_NR_CGROUPS, /* u32, STATUS's FILTER: cgroups tracked */
	__EVT_A_MAX,
};
#define EVT_A_MAX (__EVT_A_MAX - 1)

/* Inside EVT_A_EVENT */
enum evt_event_attr {
	EVT_EV_UNSPEC,
	EVT_EV_NAME,		/* string */
	EVT_EV_ENABLED,		/* u8 */
	EVT_EV_CHANNEL,		/* u8, STATUS only */
	EVT_EV_STACK,		/* u8: recorded with its kernel stack (CONFIG, STATUS); CONFIG's ENABLED may go without it */
	__EVT_EV_MAX,
};
#define EVT_EV_MAX (__EVT_EV_MAX - 1)

/* Inside EVT_A_RING */
enum evt_ring_attr {
	EVT_R_UNSPEC,
	EVT_R_CHANNEL,		/* u8 */
	EVT_R_CPU,		/* u32 */
	EVT_R_ONLINE,		/* u8 */
	/* u64 each: EVT_R_RECORDED ... EVT_R_SKIPPED (<evtrace/abi.h>) */
#define EVT_R_COUNTER(field, attr, width) EVT_R_##attr,
	EVT_RING_COUNTERS_V2(EVT_R_COUNTER)
	EVT_R_FILL,		/* u32: percent */
	EVT_R_PAD,
	EVT_R_FAKE,		/* u8: 1 in a synthetic ring of the test hook */
	/* u64 each, version 3: EVT_R_FILTERED */
	EVT_RING_COUNTERS_V3(EVT_R_COUNTER)
#undef EVT_R_COUNTER
	EVT_R_HELD_SNAPSHOT,	/* u64: held by a SNAPSHOT since (trace clock); absent when not */
	EVT_R_HELD_TRIGGER,	/* u64: held by the kept trigger since; absent when not */
	EVT_R_UNANSWERED,	/* u64: flushes its CPU did not answer in time, since load */
	__EVT_R_MAX,
};
#define EVT_R_MAX (__EVT_R_MAX - 1)

/* Inside EVT_A_GEN */
enum evt_gen_attr {
	EVT_G_UNSPEC,
	EVT_G_CPU,		/* u32 */
	EVT_G_RUNNING,		/* u8 */
	EVT_G_DONE,		/* u8 */
	EVT_G_COMPACT,		/* u64: events offered on the compact channel */
	EVT_G_NORMAL,		/* u64: on the normal channel */
	EVT_G_TIMER,		/* u64: hrtimer events */
	EVT_G_PAD,
	__EVT_G_MAX,
};
#define EVT_G_MAX (__EVT_G_MAX - 1)

enum evt_notify {
	EVT_NOTIFY_NONE,
	EVT_NOTIFY_HIGH_WATER,	/* a ring's fill crossed high_water */
	EVT_NOTIFY_FLUSHED,	/* partial sub-buffers were closed: data waits */
	EVT_NOTIFY_DISCARDING,	/* first loss since the ring was below high_water */
	EVT_NOTIFY_CPU_ONLINE,
	EVT_NOTIFY_CPU_OFFLINE,
	EVT_NOTIFY_STOPPED,	/* tracing stopped, everything flushed */
	EVT_NOTIFY_NO_RING,	/* a CPU came online without its ring: events refused */
	EVT_NOTIFY_ROTATE,	/* ROTATE: a drainer that rotates cuts its chunk now */
	EVT_NOTIFY_TRIGGER,	/* a kernel report fired a trigger: TRIGGER_* attributes */
	__EVT_NOTIFY_MAX,
};

/* What fired a trigger (EVT_A_TRIGGER_REASON). */
enum evt_trigger_reason {
	EVT_TRIGGER_KFENCE,
	EVT_TRIGGER_KASAN,
	EVT_TRIGGER_WARN,
	EVT_TRIGGER_OOPS,
	EVT_NR_TRIGGERS,
};

#define EVT_GEN_CHANNEL_COMPACT	1
#define EVT_GEN_CHANNEL_NORMAL	2

/*
 * What the test generator does, as GENERATE carries it (the CPUs apart: a
 * list in EVT_A_GEN_CPUS). The module runs with these; evctl fills them from
 * its options; an attribute not sent keeps the default below.
 */
struct evt_gen_params {
	__u64 events;		/* per CPU: EVT_A_GEN_EVENTS */
	__u32 rate;		/* per second per CPU, 0 = flat out: EVT_A_GEN_RATE */
	__u8 channels;		/* EVT_GEN_CHANNEL_* bits: EVT_A_GEN_CHANNELS */
	__u8 mix;		/* 1 a mix of payload sizes, 0 fixed: EVT_A_GEN_SIZES */
};

#define EVT_GEN_PARAMS_DEFAULT {			\
	.events = EVT_GEN_EVENTS_DEFAULT,		\
	.rate = 0,					\
	.channels = EVT_GEN_CHANNEL_COMPACT,		\
	.mix = 1,					\
}

#endif /* EVTRACE_NETLINK_H */
