/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rings unit (evtrace_rings.c): the per-CPU rings around the portable
 * core, the module's state, the tracing state and event enables, and the
 * listener through which it tells the rest of the module what happened.
 * Every other unit calls in here; it calls only its listener.
 */
#ifndef EVTRACE_RINGS_H
#define EVTRACE_RINGS_H

#include <linux/types.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <linux/percpu.h>
#include <linux/uuid.h>
#include <linux/irq_work.h>
#include <linux/wait.h>
#include <linux/mutex.h>
#include <linux/cdev.h>
#include <linux/kref.h>
#include <linux/jump_label.h>
#include <linux/completion.h>
#include <linux/smp.h>
#include "core/evt_ring.h"
#include <evtrace/events.h>
#include <evtrace/event-layout.h>
#include <evtrace/netlink.h>

/*
 * Positions are free-running unsigned longs: on 32 bits the consumed word
 * would wrap at 2 GiB and the first-lap test after 4 GiB. Refuse to build.
 */
#if BITS_PER_LONG != 64
#error "evtrace needs a 64-bit kernel: ring positions are unsigned long byte counts"
#endif

/*
 * Writers nest up to NMI and reserve with cmpxchg: where cmpxchg is not
 * NMI-safe, an NMI writer is refused (and counted), as ftrace does.
 */
#ifdef CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG
#define evt_nmi_refused()	false
#else
#define evt_nmi_refused()	in_nmi()
#endif

/* Nesting levels a CPU may record at: task, softirq, hardirq, NMI. */
#define EVT_MAX_NESTING	4

/* What a flush found (evt_flush_ring_hold()). */
struct evt_flush_result {
	int flushed;		/* a sub-buffer was closed */
	u64 bound;		/* packet_seq_num of the sub-buffer open after it */
	bool unanswered;	/* the CPU did not answer: nothing closed, read as it is */
	u64 left_out;		/* then: the events of its open sub-buffer, not below the bound */
};

struct evt_cpu_ring {
	struct evt_ring ring;		/* first: the fast path starts here */
	char *mem;			/* vmap() of pages[] */
	struct page **pages;		/* refcounted: a pipe may outlive the ring */
	unsigned long nr_pages;
	struct evt_subbuf *sb;
	unsigned int channel;
	int cpu;
	u8 online;			/* u8: see evt_tracing */
	atomic_t reader_open;
	struct mutex reader_lock;	/* serialises the reader's ioctls */
	bool holding;			/* the reader holds held_pos */
	unsigned long held_pos;
	wait_queue_head_t wq;
	u64 quiescent_ts;		/* last bound GET_QUIESCENT gave (reader_lock) */
	/*
	 * The flush IPI (evt_flush_ring_hold()), sent without waiting and
	 * waited for a bounded time: one request in flight per ring.
	 */
	struct mutex flush_lock;	/* one requester at a time */
	call_single_data_t flush_csd;
	struct completion flush_answered;
	u64 flush_req, flush_done;	/* requests sent, answered */
	int flush_hold;			/* the hold the request takes (evt_hold_kind), or -1 */
	int flush_flushed;		/* the answer: evt_ring_flush_hold()'s */
	unsigned long flush_bound;
	u64 flush_ts;
	atomic64_t flush_unanswered;	/* flushes its CPU did not answer in time */
	atomic_t flush_abandoned;	/* the request in flight was given up on: holds the module */
	/* Holds, as evtrace_snapshot.c keeps them (under its lock). */
	u64 held_since[EVT_NR_HOLDS];	/* trace clock; 0: not held */
	struct evt_flush_result trigger_res;	/* the kept trigger's flush here */
	bool trigger_has;		/* the kept trigger took a bound here */
	struct irq_work hw_work;	/* ring events from the probe path, NMI-safe */
	unsigned long notify_pending;	/* BIT(enum evt_notify) to send */
	struct device *dev;
};

/* Module state; one instance. */
struct evt_state {
	unsigned long subbuf_size;
	unsigned long num_subbuf;
	unsigned int high_water;
	unsigned int flush_ms;
	enum evt_mode mode;
	unsigned char uuid[UUID_SIZE];	/* the trace UUID, RFC 4122 version 4 */
	struct evt_meta *metadata;	/* RCU-free; replaced at every START */
	/* rings[channel][cpu], allocated when a CPU first comes online */
	struct evt_cpu_ring **rings[EVT_NR_CHANNELS];
	struct mutex lock;		/* ring allocation, devices, hotplug */
	int cpuhp_state;
	bool loaded;			/* init done: a CPU without rings is survivable */
};

/* The CTF metadata text; a reader keeps the version it opened. */
struct evt_meta {
	struct kref ref;
	size_t len;
	char text[];
};

struct evt_meta *evt_meta_get(void);
void evt_meta_put(struct evt_meta *m);

extern struct evt_state evt;
/*
 * Flags read with READ_ONCE() in one context and written in another are u8,
 * not bool: with UBSAN's bool check a READ_ONCE() of a bool compiles to a
 * plain load (gcc 12), which KCSAN then reports as a data race.
 */
extern u8 evt_tracing;
DECLARE_PER_CPU(struct evt_cpu_ring *, evt_cpu_rings[EVT_NR_CHANNELS]);
DECLARE_PER_CPU(int, evt_nesting);

/*
 * Events of an online CPU whose rings could not be allocated: refused,
 * counted per CPU and channel, shown as that CPU's "refused" figure.
 */
DECLARE_PER_CPU(unsigned long, evt_noring_refused[EVT_NR_CHANNELS]);

/*
 * Test builds only (Kbuild EVT_TEST_WINDOWS=y, the VM tests' fault
 * injection): widen the window between a writer's tracing check and its
 * reservation, once, by the test_window_ms parameter.
 */
enum evt_test_window_at {
	EVT_WINDOW_AFTER_TRACING_CHECK = 0,
	EVT_WINDOW_BEFORE_COMMIT = 1,	/* reserved and written, not committed */
	EVT_WINDOW_READER_REACHED = 2,	/* a snapshot reader at its bound (ENODATA), holds not released */
	EVT_WINDOW_TRIGGER_KEPT = 3,	/* a trigger's rings flushed and held, not yet kept */
	EVT_WINDOW_NOTIFY_TRIGGER = 4,	/* NOTIFY_TRIGGER: about to multicast */
	EVT_WINDOW_STATEDUMP = 5,	/* a state dump's work, before its first event */
};

#ifdef EVT_TEST_WINDOWS
void evt_test_window(enum evt_test_window_at at);
#else
static __always_inline void evt_test_window(enum evt_test_window_at at) { }
#endif

struct seq_file;

struct evt_rings_config {
	unsigned long subbuf_size;
	unsigned long num_subbuf;
	unsigned int mode;		/* EVT_MODE_* */
	unsigned int high_water;
	unsigned int flush_ms;
};

struct evt_rings_listener {
	/* A ring was allocated (CPU online); an error frees it again. */
	int (*ring_added)(struct evt_cpu_ring *cr);
	/* A ring is about to be freed (exit). */
	void (*ring_removed)(struct evt_cpu_ring *cr);
	/* Hard interrupt or process context: tell the drainers (EVT_NOTIFY_*). */
	void (*notify)(struct evt_cpu_ring *cr, unsigned int reason);
	/* A CPU came online without its ring of @channel. */
	void (*no_ring)(unsigned int channel, unsigned int cpu);
	/* Tracing started or stopped, or an event's enable changed. */
	void (*events_changed)(bool tracing);
	/* Tracing started, after events_changed(true): the state dump begins. */
	void (*tracing_started)(void);
	/* Tracing stopped, after events_changed(false): a dump running ends. */
	void (*tracing_stopped)(void);
};

int evt_rings_init(const struct evt_rings_config *cfg,
		   const struct evt_rings_listener *listener);
int evt_rings_hotplug_init(void);
void evt_rings_loaded(void);
void evt_rings_hotplug_exit(void);
void evt_rings_exit(void);
struct evt_cpu_ring *evt_get_ring(unsigned int channel, int cpu);
void evt_ring_notify(struct evt_cpu_ring *cr, unsigned int reason);
void evt_start_tracing(void);
void evt_stop_tracing(bool sync);
void evt_set_mode(unsigned int mode);
void evt_set_high_water(unsigned int pct);
bool evt_event_enabled(const struct evt_event_desc *d);
bool evt_switch_on(unsigned int sw);
void evt_set_switch(unsigned int sw, bool on);
void evt_stats_show(struct seq_file *m, unsigned int probes_attached);

#endif /* EVTRACE_RINGS_H */
