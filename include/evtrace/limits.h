/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Every limit and default of evtrace's interfaces, in one place: the module's
 * parameters and their messages, the netlink policy, the ring core and evctl
 * all take them from here. Plain integers (no suffix), so that EVT_STR() turns
 * them into the text of a help or an error message.
 */
#ifndef EVTRACE_LIMITS_H
#define EVTRACE_LIMITS_H

#define EVT_STR_(x)	#x
#define EVT_STR(x)	EVT_STR_(x)

/*
 * Sub-buffer (packet) size, bytes, a power of two. The module's rings are
 * page-backed and spliced page by page, so it also wants at least PAGE_SIZE;
 * the core (and the unit tests' small rings) go down to the minimum here.
 */
#define EVT_SUBBUF_SIZE_MIN	1024
#define EVT_SUBBUF_SIZE_MAX	4194304
#define EVT_SUBBUF_SIZE_DEFAULT	16384

/* Sub-buffers per ring, a power of two. */
#define EVT_NUM_SUBBUF_MIN	2
#define EVT_NUM_SUBBUF_MAX	4096
#define EVT_NUM_SUBBUF_DEFAULT	32

/* Ring fill (percent) that wakes the drainer. */
#define EVT_HIGH_WATER_MIN	1
#define EVT_HIGH_WATER_MAX	100
#define EVT_HIGH_WATER_DEFAULT	70

/* Periodic flush of partial sub-buffers, ms; 0 = never. */
#define EVT_FLUSH_MS_MAX	3600000
#define EVT_FLUSH_MS_DEFAULT	1000

/* How long an unwanted tracepoint probe stays attached, ms. */
#define EVT_PROBE_LINGER_MS_MAX		3600000
#define EVT_PROBE_LINGER_MS_DEFAULT	10000

/*
 * CPU numbers in a CPU list are below this: the largest NR_CPUS x86_64
 * allows. One limit for evctl, evcat and the reader's stream names.
 */
#define EVT_MAX_CPUS		8192
/* Bytes of a CPU list sent to the module, NUL included. */
#define EVT_CPULIST_MAX		256

/* The test generator: events per CPU, 1 .. 2^40. */
#define EVT_GEN_EVENTS_MAX	(1ULL << 40)
#define EVT_GEN_EVENTS_DEFAULT	1000000

/* The test hrtimer source: one event per CPU every period, microseconds. */
#define EVT_TIMER_PERIOD_US_MIN	10
#define EVT_TIMER_PERIOD_US_MAX	1000000

/* Longest marker text (bytes, NUL excluded); longer writes get -EINVAL. */
#define EVT_MARKER_MAX		1024

/*
 * Kernel stacks (evctl enable --stack): return addresses kept at most (the
 * module parameter stack_depth), and evtrace's own frames looked at first
 * and left out.
 */
#define EVT_STACK_DEPTH_MAX	64
#define EVT_STACK_DEPTH_DEFAULT	32
#define EVT_STACK_SKIP_MAX	8

/* An event name, bytes, NUL included. */
#define EVT_EVENT_NAME_MAX	64

/*
 * In-kernel filters (evctl track): a process name is compared as the kernel
 * keeps it, at most 15 bytes (TASK_COMM_LEN - 1); so many names and cgroups
 * may be tracked at once; a cgroup's path, bytes, NUL included. Process IDs
 * have no limit of their own (a bitmap of the kernel's PID_MAX_LIMIT).
 */
#define EVT_FILTER_COMM_MAX		15
#define EVT_FILTER_COMMS_MAX		16
#define EVT_FILTER_CGROUPS_MAX		4
#define EVT_FILTER_CGROUP_PATH_MAX	512

#endif /* EVTRACE_LIMITS_H */
