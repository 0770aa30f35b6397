// SPDX-License-Identifier: GPL-2.0
/*
 * evtrace's rings: the per-CPU rings of both channels (allocated when a CPU
 * comes online, kept when it goes away), their memory, CPU hotplug,
 * high-water wakeups, the tracing state and event enables, the statistics
 * and the CTF metadata. The recording API is evtrace_record.h's and
 * evtrace_record.c's; flushing the rings from another CPU is
 * evtrace_flush.c's. The reader devices, netlink, the probes and the
 * generator call in here; this unit calls none of them, only the listener the module's
 * init gives it (evtrace_main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include <linux/utsname.h>
#include <linux/time.h>
#include <linux/random.h>
#include <linux/irq_work.h>
#include <linux/smp.h>
#include <linux/mm.h>
#include <linux/kref.h>
#include <linux/delay.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"

#ifdef EVT_TEST_WINDOWS
static unsigned int test_window_ms;
module_param(test_window_ms, uint, 0644);
MODULE_PARM_DESC(test_window_ms, "test builds only: the next task context to reach test_window_at waits this long there");
static unsigned int test_window_at;
module_param(test_window_at, uint, 0644);
MODULE_PARM_DESC(test_window_at, "test builds only: 0 after the tracing check, 1 between reservation and commit, 2 a snapshot reader at its bound, 3 a trigger held not kept, 4 before NOTIFY_TRIGGER, 5 a state dump before its first event");

/**
 * evt_test_window() - test builds only: wait at @at once, if asked to
 * @at: where the caller is
 *
 * Task context asleep, else spinning, for test_window_ms, when
 * test_window_at is @at; never in interrupt context.
 */
void evt_test_window(enum evt_test_window_at at)
{
	unsigned int ms;

	if (READ_ONCE(test_window_at) != at || in_interrupt() || !READ_ONCE(test_window_ms))
		return;
	ms = xchg(&test_window_ms, 0);

	/*
	 * As a writer would be: preempted (here: asleep) where it may be,
	 * spinning where it may not.
	 */
	if (!ms)
		return;
	if (preemptible())
		msleep(ms);
	else
		mdelay(ms);
}
#endif

struct evt_state evt;
u8 evt_tracing;
DEFINE_PER_CPU(struct evt_cpu_ring *, evt_cpu_rings[EVT_NR_CHANNELS]);
DEFINE_PER_CPU(int, evt_nesting);
DEFINE_PER_CPU(unsigned long, evt_noring_refused[EVT_NR_CHANNELS]);

static u8 *evt_enabled;		/* per switch (evt_event_switch()) */

static const struct evt_rings_listener *evt_listener;

/**
 * evt_switch_on() - whether an enable switch is on
 * @sw: the switch (evt_event_switch())
 *
 * Return: its state.
 */
bool evt_switch_on(unsigned int sw)
{
	return READ_ONCE(evt_enabled[sw]);
}

/**
 * evt_event_enabled() - whether an event is enabled (its switch is on)
 * @d: the event, in evt_events[]
 *
 * Return: its switch's state.
 */
bool evt_event_enabled(const struct evt_event_desc *d)
{
	return evt_switch_on(evt_event_switch(d - evt_events));
}

/**
 * evt_set_switch() - turn an enable switch on or off
 * @sw: the switch (evt_event_switch())
 * @on: its new state
 *
 * The listener's events_changed() then attaches or detaches the probes.
 */
void evt_set_switch(unsigned int sw, bool on)
{
	WRITE_ONCE(evt_enabled[sw], on);
	evt_listener->events_changed(READ_ONCE(evt_tracing));
}

/**
 * evt_get_ring() - a CPU's ring of a channel
 * @channel: EVT_CHAN_COMPACT or EVT_CHAN_NORMAL
 * @cpu: the CPU
 *
 * Any context. A ring, once allocated, stays until the module's exit.
 *
 * Return: the ring, or NULL (no such channel or CPU, or no ring yet).
 */
struct evt_cpu_ring *evt_get_ring(unsigned int channel, int cpu)
{
	if (channel >= EVT_NR_CHANNELS || cpu < 0 || cpu >= nr_cpu_ids)
		return NULL;
	/* Pairs with the release in evt_cpu_online(): the ring is initialised. */
	return smp_load_acquire(&evt.rings[channel][cpu]);
}

/* irq_work: hard interrupt context, never NMI: wake readers, queue the netlink work. */
static void evt_hw_work_fn(struct irq_work *w)
{
	struct evt_cpu_ring *cr = container_of(w, struct evt_cpu_ring, hw_work);

	wake_up_interruptible(&cr->wq);
	if (READ_ONCE(cr->notify_pending))
		evt_listener->notify(cr, EVT_NOTIFY_NONE);
}

/* Called by the core from the probe path: record the reason, defer the rest. */
static void evt_notify(struct evt_ring *r, enum evt_ring_event why)
{
	struct evt_cpu_ring *cr = container_of(r, struct evt_cpu_ring, ring);

	set_bit(why == EVT_RING_HIGH_WATER ? EVT_NOTIFY_HIGH_WATER : EVT_NOTIFY_DISCARDING,
		&cr->notify_pending);
	irq_work_queue(&cr->hw_work);
}

/*
 * Ring memory: order-0 pages mapped contiguously. Pages, not slab memory,
 * because splice hands them to pipes, and a pipe's page reference must keep
 * them alive after the ring is freed (even after the module is gone).
 * Zeroed, so no byte of someone else's memory can reach a trace file; and a
 * shortage is an error for the caller, never a reason for OOM kills.
 */
static int evt_alloc_ring_mem(struct evt_cpu_ring *cr, unsigned long bytes, int node)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_RETRY_MAYFAIL | __GFP_NOWARN;
	unsigned long i;

	cr->nr_pages = bytes >> PAGE_SHIFT;
	cr->pages = kvmalloc_node(cr->nr_pages * sizeof(*cr->pages), gfp, node);
	if (!cr->pages)
		return -ENOMEM;
	for (i = 0; i < cr->nr_pages; i++) {
		cr->pages[i] = alloc_pages_node(node, gfp, 0);
		if (!cr->pages[i])
			return -ENOMEM;
	}
	cr->mem = vmap(cr->pages, cr->nr_pages, VM_MAP, PAGE_KERNEL);
	return cr->mem ? 0 : -ENOMEM;
}

static void evt_free_ring_mem(struct evt_cpu_ring *cr)
{
	unsigned long i;

	if (cr->mem)
		vunmap(cr->mem);
	if (cr->pages) {
		/* put_page, not free: a pipe may still hold some of them. */
		for (i = 0; i < cr->nr_pages && cr->pages[i]; i++)
			put_page(cr->pages[i]);
		kvfree(cr->pages);
	}
}

/* Ring bytes for @cpus CPUs, both channels. */
static u64 evt_ring_bytes(unsigned int cpus)
{
	return (u64)evt.subbuf_size * evt.num_subbuf * EVT_NR_CHANNELS * cpus;
}

/*
 * Like ftrace's ring buffer: refuse rings the machine cannot spare before
 * allocating any (leaving an eighth of what is available to everyone else).
 */
static int evt_check_memory(unsigned int cpus, const char *what)
{
	u64 need = evt_ring_bytes(cpus);
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;

	if (need <= avail - avail / 8)
		return 0;
	pr_err("%s: the rings need %llu MiB (subbuf_size=%lu x num_subbuf=%lu x %u channels x %u CPUs) but only %llu MiB of memory is available (at most 7/8 of it is used): choose smaller rings\n",
	       what, need >> 20, evt.subbuf_size, evt.num_subbuf, EVT_NR_CHANNELS, cpus,
	       avail >> 20);
	return -ENOMEM;
}

static struct evt_cpu_ring *evt_alloc_ring(unsigned int channel, int cpu)
{
	struct evt_ring_params p = {
		.subbuf_size = evt.subbuf_size,
		.num_subbuf = evt.num_subbuf,
		.channel = channel,
		.mode = evt.mode,
		.high_water = evt.high_water,
		.cpu = cpu,
		.uuid = evt.uuid,
		.notify = evt_notify,
	};
	unsigned long bytes = evt_ring_mem_size(&p);
	struct evt_cpu_ring *cr;

	cr = kzalloc_node(sizeof(*cr), GFP_KERNEL, cpu_to_node(cpu));
	if (!cr)
		return NULL;
	cr->sb = kcalloc_node(p.num_subbuf, sizeof(*cr->sb),
			      GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN, cpu_to_node(cpu));
	if (!cr->sb || evt_alloc_ring_mem(cr, bytes, cpu_to_node(cpu))) {
		pr_err("cannot allocate %lu bytes for the %s ring of CPU %d (subbuf_size=%lu x num_subbuf=%lu)\n",
		       bytes, evt_channel_name(channel), cpu, p.subbuf_size, p.num_subbuf);
		evt_free_ring_mem(cr);
		kfree(cr->sb);
		kfree(cr);
		return NULL;
	}
	p.priv = cr;
	evt_ring_init(&cr->ring, &p, cr->mem, cr->sb);
	cr->channel = channel;
	cr->cpu = cpu;
	mutex_init(&cr->reader_lock);
	mutex_init(&cr->flush_lock);
	init_completion(&cr->flush_answered);
	init_waitqueue_head(&cr->wq);
	init_irq_work(&cr->hw_work, evt_hw_work_fn);
	atomic_set(&cr->reader_open, 0);
	return cr;
}

static void evt_free_ring(struct evt_cpu_ring *cr)
{
	if (!cr)
		return;
	irq_work_sync(&cr->hw_work);
	evt_free_ring_mem(cr);
	kfree(cr->sb);
	kfree(cr);
}

/*
 * cpuhp: runs on the CPU coming up, in process context. A CPU whose rings
 * cannot be had still comes up: during module load that fails the load
 * (evtrace_init() checks), later its events are refused and counted.
 */
static int evt_cpu_online(unsigned int cpu)
{
	unsigned int ch;
	int ret = 0;

	mutex_lock(&evt.lock);
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		struct evt_cpu_ring *cr = evt.rings[ch][cpu];

		if (!cr) {
			ret = evt.loaded ? evt_check_memory(1, "CPU online") : 0;
			cr = ret ? NULL : evt_alloc_ring(ch, cpu);
			if (cr) {
				ret = evt_listener->ring_added(cr);
				if (ret) {
					evt_free_ring(cr);
					cr = NULL;
				}
			}
			if (!cr) {
				ret = ret ?: -ENOMEM;
				if (evt.loaded) {
					pr_warn("CPU %u is online without its %s ring (error %d): its events are refused and counted\n",
						cpu, evt_channel_name(ch), ret);
					evt_listener->no_ring(ch, cpu);
					ret = 0;
				}
				break;
			}
			/* Pairs with the acquire in evt_get_ring(). */
			smp_store_release(&evt.rings[ch][cpu], cr);
			smp_store_release(per_cpu_ptr(&evt_cpu_rings[ch], cpu), cr);
		}
		WRITE_ONCE(cr->online, true);
		evt_listener->notify(cr, EVT_NOTIFY_CPU_ONLINE);
	}
	mutex_unlock(&evt.lock);
	return ret;
}

/*
 * cpuhp: runs on the CPU going down. Its rings stay; its partial
 * sub-buffer is closed so that none of its events wait for a return.
 */
static int evt_cpu_offline(unsigned int cpu)
{
	unsigned int ch;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		struct evt_cpu_ring *cr = READ_ONCE(evt.rings[ch][cpu]);

		if (!cr)
			continue;
		preempt_disable();
		evt_ring_flush(&cr->ring);
		preempt_enable();
		WRITE_ONCE(cr->online, false);
		wake_up_interruptible(&cr->wq);
		evt_listener->notify(cr, EVT_NOTIFY_CPU_OFFLINE);
	}
	return 0;
}

static int evt_render_metadata(void);

/**
 * evt_start_tracing() - start recording
 *
 * Renders the metadata anew (the clock's offset as of now), sets the tracing
 * flag, then tells the listener: events_changed(true), then
 * tracing_started().
 */
void evt_start_tracing(void)
{
	/*
	 * The realtime offset as of now: a module loaded at boot, before NTP
	 * stepped the clock, would otherwise give wrong absolute times.
	 */
	if (evt_render_metadata())
		pr_warn_ratelimited("START: cannot render new metadata; the trace keeps the previous clock offset\n");
	WRITE_ONCE(evt_tracing, true);
	evt_listener->events_changed(true);
	evt_listener->tracing_started();
}

/**
 * evt_stop_tracing() - stop recording
 * @sync: wait for the writers (a grace period: every probe runs with
 *	preemption off, so once one has passed no event started before is
 *	still being written); else the caller waits (netlink STOP:
 *	evt_flush_wait_writers(), which a CPU stuck with interrupts off does
 *	not hang)
 */
void evt_stop_tracing(bool sync)
{
	WRITE_ONCE(evt_tracing, false);
	evt_listener->events_changed(false);
	evt_listener->tracing_stopped();
	if (sync)
		synchronize_rcu();
}

/**
 * evt_ring_notify() - tell the drainers about a ring (the listener's notify)
 * @cr: the ring
 * @reason: enum evt_notify
 */
void evt_ring_notify(struct evt_cpu_ring *cr, unsigned int reason)
{
	evt_listener->notify(cr, reason);
}

/**
 * evt_stats_show() - the statistics table (debugfs stats)
 * @m: where to print
 * @probes_attached: tracepoint probes attached now (evtrace_probes.c's count)
 */
void evt_stats_show(struct seq_file *m, unsigned int probes_attached)
{
	unsigned int ch;
	int cpu;

	seq_printf(m, "tracing %d mode %s subbuf_size %lu num_subbuf %lu high_water %u flush_ms %u probes_attached %u\n",
		   READ_ONCE(evt_tracing), evt.mode == EVT_MODE_OVERWRITE ? "overwrite" : "discard",
		   evt.subbuf_size, evt.num_subbuf, evt.high_water, evt.flush_ms,
		   probes_attached);
#define EVT_COUNTER_NAME(field, attr, width) " " #field
	seq_puts(m, "channel cpu online" EVT_RING_COUNTERS(EVT_COUNTER_NAME) " fill_pct\n");
#undef EVT_COUNTER_NAME
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct evt_cpu_ring *cr = evt_get_ring(ch, cpu);
			struct evt_ring_stats st = {};

			if (cr) {
				evt_ring_stats(&cr->ring, &st);
				st.online = READ_ONCE(cr->online);
			} else {
				/* Online without its ring: every event refused. */
				st.refused = per_cpu(evt_noring_refused[ch], cpu);
				st.online = cpu_online(cpu);
				if (!st.online && !st.refused)
					continue;
			}
			seq_printf(m, "%s %d %u", evt_channel_name(ch), cpu, st.online);
#define EVT_COUNTER_VALUE(field, attr, width) seq_printf(m, " %llu", st.field);
			EVT_RING_COUNTERS(EVT_COUNTER_VALUE)
#undef EVT_COUNTER_VALUE
			seq_printf(m, " %u\n", st.fill_pct);
		}
	}
}

static void evt_for_each_ring(void (*fn)(struct evt_cpu_ring *cr, unsigned long arg),
			      unsigned long arg)
{
	unsigned int ch;
	int cpu;

	mutex_lock(&evt.lock);
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (evt.rings[ch][cpu])
				fn(evt.rings[ch][cpu], arg);
	mutex_unlock(&evt.lock);
}

static void evt_ring_mode_fn(struct evt_cpu_ring *cr, unsigned long mode)
{
	evt_ring_set_mode(&cr->ring, mode);
}

static void evt_ring_hw_fn(struct evt_cpu_ring *cr, unsigned long pct)
{
	evt_ring_set_high_water(&cr->ring, pct);
}

/**
 * evt_set_mode() - set every ring's mode
 * @mode: EVT_MODE_DISCARD or EVT_MODE_OVERWRITE
 *
 * Only while stopped (writers gone): the caller checks.
 */
void evt_set_mode(unsigned int mode)
{
	evt.mode = mode;
	evt_for_each_ring(evt_ring_mode_fn, mode);
}

/**
 * evt_set_high_water() - set every ring's high-water mark
 * @pct: the fill, in percent, at which a ring wakes its reader
 */
void evt_set_high_water(unsigned int pct)
{
	evt.high_water = pct;
	evt_for_each_ring(evt_ring_hw_fn, pct);
}

static DEFINE_SPINLOCK(evt_meta_lock);

static void evt_meta_free(struct kref *ref)
{
	kvfree(container_of(ref, struct evt_meta, ref));
}

/**
 * evt_meta_get() - the current metadata, referenced
 *
 * Return: the text, to be released with evt_meta_put().
 */
struct evt_meta *evt_meta_get(void)
{
	struct evt_meta *m;

	spin_lock(&evt_meta_lock);
	m = evt.metadata;
	kref_get(&m->ref);
	spin_unlock(&evt_meta_lock);
	return m;
}

/**
 * evt_meta_put() - release metadata taken with evt_meta_get()
 * @m: the text
 */
void evt_meta_put(struct evt_meta *m)
{
	kref_put(&m->ref, evt_meta_free);
}

/* Render the metadata with the realtime clock's offset as of now. */
static int evt_render_metadata(void)
{
	struct evt_meta_params mp = {
		.hostname = utsname()->nodename,
		.kernel_release = utsname()->release,
		.kernel_version = utsname()->version,
		.tracer_version = EVT_VERSION,
	};
	u64 offset = ktime_get_real_ns() - ktime_get_mono_fast_ns();
	char name[32], created[32];
	struct evt_meta_strings sys;
	struct evt_meta *m, *old;
	unsigned long need;
	struct tm tm;
	u32 ns;

	/* When tracing started, in UTC; the name is LTTng's session style. */
	time64_to_tm(ktime_get_real_seconds(), 0, &tm);
	snprintf(created, sizeof(created), "%04ld%02d%02dT%02d%02d%02d+0000", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	snprintf(name, sizeof(name), "evtrace-%04ld%02d%02d-%02d%02d%02d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	mp.trace_name = name;
	mp.trace_creation_datetime = created;

	memcpy(mp.uuid, evt.uuid, sizeof(mp.uuid));
	mp.clock_offset_s = div_u64_rem(offset, NSEC_PER_SEC, &ns);
	mp.clock_offset_ns = ns;
	/*
	 * Two passes, one to size and one to write: both must see the same
	 * hostname, which sethostname() may change in between (the text then
	 * outgrew its buffer, and a reader of /dev/evtrace/metadata was served
	 * what lay past it).
	 */
	evt_meta_params_copy(&mp, &sys);
	need = evt_meta_render(NULL, 0, &mp);
	m = kvmalloc(struct_size(m, text, need + 1), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	kref_init(&m->ref);
	m->len = evt_meta_render_sized(m->text, need + 1, &mp);
	if (!m->len) {
		kvfree(m);
		return -EAGAIN;
	}
	spin_lock(&evt_meta_lock);
	old = evt.metadata;
	evt.metadata = m;
	spin_unlock(&evt_meta_lock);
	if (old)
		evt_meta_put(old);
	return 0;
}

static void evt_free_rings(void)
{
	unsigned int ch;
	int cpu;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		if (!evt.rings[ch])
			continue;
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct evt_cpu_ring *cr = evt.rings[ch][cpu];

			if (!cr)
				continue;
			per_cpu(evt_cpu_rings[ch], cpu) = NULL;
			evt_listener->ring_removed(cr);
			evt_free_ring(cr);
		}
		kfree(evt.rings[ch]);
		evt.rings[ch] = NULL;
	}
}

static void evt_irq_work_sync_fn(struct evt_cpu_ring *cr, unsigned long unused)
{
	irq_work_sync(&cr->hw_work);
}

/**
 * evt_rings_init() - set up the rings' state, before any ring exists
 * @cfg: the module parameters, checked
 * @listener: told about rings coming and going, notifications and tracing
 *	changes (the reader devices, netlink, the probes)
 *
 * Refuses rings the machine cannot spare for every online CPU, renders the
 * metadata and enables every event.
 *
 * Return: 0, or -ENOMEM.
 */
int evt_rings_init(const struct evt_rings_config *cfg,
		   const struct evt_rings_listener *listener)
{
	unsigned int ch;
	int ret;

	evt_listener = listener;
	evt.subbuf_size = cfg->subbuf_size;
	evt.num_subbuf = cfg->num_subbuf;
	evt.mode = cfg->mode;
	evt.high_water = cfg->high_water;
	evt.flush_ms = cfg->flush_ms;
	mutex_init(&evt.lock);
	generate_random_uuid(evt.uuid);
	ret = evt_check_memory(num_online_cpus(), "cannot load");
	if (ret)
		return ret;
	ret = evt_render_metadata();
	if (ret)
		return ret;
	ret = -ENOMEM;
	evt_enabled = kmalloc(evt_nr_switches, GFP_KERNEL);
	if (!evt_enabled)
		goto err;
	memset(evt_enabled, 1, evt_nr_switches);
	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		evt.rings[ch] = kcalloc(nr_cpu_ids, sizeof(*evt.rings[ch]), GFP_KERNEL);
		if (!evt.rings[ch])
			goto err;
	}
	return 0;
err:
	evt_rings_exit();
	return ret;
}

/**
 * evt_rings_hotplug_init() - give every online CPU its rings, follow hotplug
 *
 * The listener's ring_added() must work by now.
 *
 * Return: 0, or a CPU's allocation error.
 */
int evt_rings_hotplug_init(void)
{
	int ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "evtrace:online",
				    evt_cpu_online, evt_cpu_offline);

	if (ret < 0)
		return ret;
	evt.cpuhp_state = ret;
	return 0;
}

/**
 * evt_rings_loaded() - the module is up
 *
 * From now on a CPU whose rings cannot be had comes up without them (its
 * events refused and counted) instead of failing.
 */
void evt_rings_loaded(void)
{
	mutex_lock(&evt.lock);
	evt.loaded = true;
	mutex_unlock(&evt.lock);
}

/**
 * evt_rings_hotplug_exit() - stop hotplug, let the last notifications run
 *
 * After every writer is gone (tracing stopped, probes and generator exited)
 * and the flush timer stopped (evt_flush_timer_stop()).
 */
void evt_rings_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(evt.cpuhp_state);
	/* Nothing can raise a notification any more; let the last ones finish. */
	evt_for_each_ring(evt_irq_work_sync_fn, 0);
}

/**
 * evt_rings_exit() - free the rings (telling the listener), the metadata
 * and the event enables
 */
void evt_rings_exit(void)
{
	evt_free_rings();
	if (evt.metadata)
		evt_meta_put(evt.metadata);
	evt.metadata = NULL;
	kfree(evt_enabled);
	evt_enabled = NULL;
}
