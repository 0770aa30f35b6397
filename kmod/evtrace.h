/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evtrace module internals: per-CPU rings around the portable core, the
 * reader devices, the generator, and the glue between them.
 */
#ifndef EVTRACE_H
#define EVTRACE_H

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

int evtrace_record(unsigned int channel, unsigned int id, const void *payload,
		   unsigned int len);

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

/* evt_record_copy() with the test build's window before the commit. */
static __always_inline int evt_record_copy_windowed(struct evt_ring *r, unsigned int chan, unsigned int id,
						    const void *payload, unsigned int len)
{
#ifdef EVT_TEST_WINDOWS
	struct evt_rctx c;
	int ret = evt_reserve_ch(r, chan, id, len, &c);

	if (unlikely(ret))
		return ret;
	memcpy(evt_write_header_ch(r, chan, &c, id, len), payload, len);
	evt_test_window(EVT_WINDOW_BEFORE_COMMIT);
	evt_commit(r, &c);
	return 0;
#else
	return evt_record_copy_ch(r, chan, id, payload, len);
#endif
}

/*
 * The task filter (evtrace_filter.c): one static branch while none is set.
 * An event is filtered by the task running, except the state dump (never
 * filtered: it describes every task, whoever records it) and events about
 * other tasks, which their probes filter by those tasks (evt_probes.c).
 * @id is a constant at most call sites, so that test folds.
 */
DECLARE_STATIC_KEY_FALSE(evt_filter_key);
bool evt_filter_pass(struct task_struct *t);

static __always_inline bool evt_filter_not_by_current(unsigned int channel, unsigned int id)
{
	/* Each event's "by" in <evtrace/event-defs.h>: CURRENT, SUBJECT or NONE. */
#define EVT_BY_CURRENT_IS_FALSE_CURRENT 0
#define EVT_BY_CURRENT_IS_FALSE_SUBJECT 1
#define EVT_BY_CURRENT_IS_FALSE_NONE 1
#define EVT_NOT_BY_CURRENT(ev, cls, ch, ID, num, by)				\
	if (EVT_BY_CURRENT_IS_FALSE_##by && channel == EVT_CHAN_##ch && id == EVT_ID_##ID) \
		return true;
	EVT_EVENTS(EVT_NOT_BY_CURRENT)
#undef EVT_NOT_BY_CURRENT
	return false;
}

static __always_inline bool evt_filtered_out(struct evt_ring *r, unsigned int channel,
					     unsigned int id)
{
	if (!static_branch_unlikely(&evt_filter_key))
		return false;
	if (evt_filter_not_by_current(channel, id) || evt_filter_pass(current))
		return false;
	evt_local_inc(&r->filtered);
	return true;
}

/*
 * Kernel stacks (evtrace_stacks.c): whether event @id of @channel is to be
 * followed by its kernel_stack (one patched jump while no stack is on; @id
 * and @channel are constants at most call sites), and the recording.
 */
DECLARE_STATIC_KEY_FALSE(evt_stack_key);
extern unsigned long evt_stack_on;
void evt_record_stack(struct evt_ring *r, unsigned int id);

static __always_inline bool evt_stack_wanted(unsigned int channel, unsigned int id)
{
	return static_branch_unlikely(&evt_stack_key) && channel == EVT_CHAN_COMPACT &&
	       id < EVT_COMPACT_ID_WIDE && test_bit(id, &evt_stack_on);
}

static __always_inline int evt_no_ring(unsigned int channel)
{
	this_cpu_inc(evt_noring_refused[channel]);
	return -ENOMEM;
}

/**
 * evtrace_record_inline() - the fast path, for callers inside the module
 * @channel: EVT_CHAN_COMPACT or EVT_CHAN_NORMAL
 * @id: event id within the channel
 * @payload: bytes to copy
 * @len: their number
 *
 * Return: 0, -ENODATA when not tracing, -ESRCH when the task filter left
 * the event out (counted as filtered), or a counted loss (-ENOBUFS,
 * -E2BIG, -EBUSY for nesting too deep or an NMI where cmpxchg is not
 * NMI-safe, -ENOMEM when this CPU has no ring).
 */
static __always_inline int evtrace_record_inline(unsigned int channel, unsigned int id,
						 const void *payload, unsigned int len)
{
	struct evt_cpu_ring *cr;
	int ret;

	/*
	 * The tracing flag is read with preemption off: STOP clears it, then
	 * waits a grace period, so a writer that saw it set has committed by
	 * the time STOP flushes.
	 */
	preempt_disable_notrace();
	if (unlikely(!READ_ONCE(evt_tracing))) {
		ret = -ENODATA;
		goto out;
	}
	evt_test_window(EVT_WINDOW_AFTER_TRACING_CHECK);
	cr = this_cpu_read(evt_cpu_rings[channel]);
	if (unlikely(!cr)) {
		ret = evt_no_ring(channel);
	} else if (evt_filtered_out(&cr->ring, channel, id)) {
		ret = -ESRCH;
	} else if (unlikely(this_cpu_inc_return(evt_nesting) > EVT_MAX_NESTING ||
			    evt_nmi_refused())) {
		evt_local_inc(&cr->ring.refused);
		ret = -EBUSY;
		this_cpu_dec(evt_nesting);
	} else {
		ret = evt_record_copy_windowed(&cr->ring, channel, id, payload, len);
		if (evt_stack_wanted(channel, id) && !ret)
			evt_record_stack(&cr->ring, id);
		this_cpu_dec(evt_nesting);
	}
out:
	preempt_enable_notrace();
	return ret;
}

/**
 * evtrace_begin_inline() - reserve one event and write its header, for probes
 * that fill their payload in place (no staging copy)
 * @channel: EVT_CHAN_COMPACT or EVT_CHAN_NORMAL
 * @id: event id within the channel
 * @len: payload bytes the caller will write
 * @crp: set to the ring, for evtrace_end_inline()
 * @c: the reservation, for evtrace_end_inline()
 *
 * On success preemption stays disabled and the nesting level raised until
 * evtrace_end_inline(), which the caller must reach without sleeping.
 *
 * Return: where the @len payload bytes go, or NULL (not tracing, filtered
 * out, or a counted loss); after NULL there is nothing to end.
 */
static __always_inline char *evtrace_begin_inline(unsigned int channel, unsigned int id,
						  unsigned int len, struct evt_cpu_ring **crp,
						  struct evt_rctx *c)
{
	struct evt_cpu_ring *cr;

	preempt_disable_notrace();
	/* Under disabled preemption: see evtrace_record_inline(). */
	if (unlikely(!READ_ONCE(evt_tracing)))
		goto out;
	cr = this_cpu_read(evt_cpu_rings[channel]);
	if (unlikely(!cr)) {
		evt_no_ring(channel);
		goto out;
	}
	if (evt_filtered_out(&cr->ring, channel, id))
		goto out;
	if (unlikely(this_cpu_inc_return(evt_nesting) > EVT_MAX_NESTING ||
		     evt_nmi_refused())) {
		evt_local_inc(&cr->ring.refused);
		goto out_nesting;
	}
	if (unlikely(evt_reserve_ch(&cr->ring, channel, id, len, c)))
		goto out_nesting;
	*crp = cr;
	return evt_write_header_ch(&cr->ring, channel, c, id, len);
out_nesting:
	this_cpu_dec(evt_nesting);
out:
	preempt_enable_notrace();
	return NULL;
}

/**
 * evtrace_end_inline() - publish an event begun with evtrace_begin_inline()
 * @cr: the ring it returned
 * @c: the reservation it filled in
 * @channel: the event's channel, as given to evtrace_begin_inline()
 * @id: its id, likewise
 */
static __always_inline void evtrace_end_inline(struct evt_cpu_ring *cr, struct evt_rctx *c,
					       unsigned int channel, unsigned int id)
{
	evt_commit(&cr->ring, c);
	if (evt_stack_wanted(channel, id))
		evt_record_stack(&cr->ring, id);
	this_cpu_dec(evt_nesting);
	preempt_enable_notrace();
}

/*
 * Record event EVT_ID_<ev> from @pl, a pointer to its class's payload struct
 * (<evtrace/event-layout.h>): the channel and the id come from the event's
 * one definition, and a payload of another class does not compile.
 * EVT_RECORD_FIXED() records the fixed part alone, EVT_RECORD() @len bytes
 * (the fixed part and what the probe wrote into pl->var).
 */
#define EVT_RECORD(ev, pl, len) ({						\
	BUILD_BUG_ON(!__same_type(*(pl), evt_pl_of_##ev));			\
	evtrace_record_inline(EVT_CHAN_OF_##ev, EVT_ID_##ev, (pl), (len));	\
})
#define EVT_RECORD_FIXED(ev, pl) EVT_RECORD(ev, pl, sizeof(*(pl)))

/*
 * Copy string @s into a payload's variable part at @dst, at most @max
 * bytes with its NUL (truncated, still NUL-terminated): the bytes taken.
 */
static __always_inline unsigned int evt_pl_string(char *dst, const char *s, unsigned int max)
{
	ssize_t n = strscpy(dst, s ? s : "", max);

	return n < 0 ? max : (unsigned int)n + 1;
}

/* evtrace_rings.c: the unit every other one calls; it calls only its listener. */
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

/* evtrace_flush.c: flushing a ring from another CPU, never waiting for good */
/* How long a flush waits for the ring's CPU to answer. */
#define EVT_FLUSH_ANSWER_MS	2000
int evt_flush_ring(struct evt_cpu_ring *cr);
void evt_flush_all(void);
void evt_flush_ring_hold(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res);
bool evt_flush_ring_hold_start(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res);
void evt_flush_ring_hold_finish(struct evt_cpu_ring *cr, int hold, struct evt_flush_result *res,
				unsigned long deadline);
void evt_ring_quiescent(struct evt_cpu_ring *cr, struct evt_quiescent *q);
void evt_flush_wait_writers(void);
void evt_set_flush_ms(unsigned int ms);
void evt_flush_timer_start(void);
void evt_flush_timer_stop(void);

/* evtrace_dev.c */
int evt_dev_init(void);
void evt_dev_exit(void);
int evt_dev_add_ring(struct evt_cpu_ring *cr);
void evt_dev_remove_ring(struct evt_cpu_ring *cr);

/* evtrace_gen.c */
struct evt_gen_info {
	bool running;
	u8 done;			/* u8: see evt_tracing */
	u64 generated[EVT_NR_CHANNELS];
	u64 timer;
};

int evt_gen_init(struct dentry *dir);
void evt_gen_exit(void);
void evt_gen_stats_show(struct seq_file *m);
int evt_gen_start(const struct evt_gen_params *p, const struct cpumask *cpus);
void evt_gen_stop(void);
void evt_timer_start(unsigned int period_us);
void evt_timer_stop(void);
void evt_gen_info(int cpu, struct evt_gen_info *g);

/* evtrace_probes.c */
int evt_probes_init(void);
void evt_probes_exit(void);
void evt_probes_sync(bool tracing);
unsigned int evt_probes_attached(void);

/* evtrace_statedump.c */
void evt_statedump_start(void);
void evt_statedump_finish(void);
void evt_statedump_stop(void);

/* evtrace_nl.c */
int evt_nl_init(void);
void evt_nl_exit(void);
void evt_nl_exit_notify(void);
void evt_nl_notify(struct evt_cpu_ring *cr, unsigned int reason);
void evt_nl_notify_no_ring(unsigned int channel, unsigned int cpu);
struct evt_trigger_info;
int evt_nl_notify_trigger(const struct evt_trigger_info *t, const struct cpumask *unanswered);

/* evtrace_trigger.c */
int evt_trigger_init(struct dentry *dir);
void evt_trigger_exit(void);

/* evtrace_filter.c */
struct nlattr;
struct netlink_ext_ack;
struct sk_buff;
void evt_filter_init(struct dentry *dir);
void evt_filter_exit(void);
int evt_filter_track(struct nlattr **a, struct netlink_ext_ack *extack);
int evt_filter_untrack(struct nlattr **a, struct netlink_ext_ack *extack);
int evt_filter_put_status(struct sk_buff *skb, bool names);
bool evt_filter_active(void);

/* evtrace_stacks.c */
int evt_stacks_init(void);
void evt_stacks_exit(void);
bool evt_stack_allowed(const struct evt_event_desc *d);
bool evt_stack_of(const struct evt_event_desc *d);
int evt_set_stack(const struct evt_event_desc *d, bool on);

/* evtrace_bench.c */
int evt_bench_init(struct dentry *dir);
void evt_bench_exit(void);

#endif /* EVTRACE_H */
