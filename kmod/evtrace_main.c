// SPDX-License-Identifier: GPL-2.0
/*
 * evtrace: per-CPU compact event recorder.
 *
 * The module's parameters, init and exit, and debugfs. The units, each
 * with its header evtrace_X.h:
 * evtrace_rings.c (the rings, hotplug, tracing state, metadata), which
 * every other unit calls and which calls none of them, only the listener
 * given here; evtrace_record.c (the exported recording API, around the
 * fast path of evtrace_record.h); evtrace_dev.c (reader and metadata
 * devices), evtrace_nl.c (generic netlink, the control plane),
 * evtrace_notify.c (notifications to the drainers),
 * evtrace_flush.c (flushing a ring from another CPU),
 * evtrace_snapshot.c (the holds of snapshots and triggers),
 * evtrace_trigger.c (triggers on kernel reports), evtrace_filter.c (task
 * filters), evtrace_statedump.c (the state dump), evtrace_stacks.c (kernel
 * stacks), evtrace_tp.c (the kernel's tracepoints, looked up and hooked),
 * evtrace_probes.c (tracepoint probes and the marker), evtrace_gen.c (the
 * test sources) and evtrace_bench.c (the in-kernel benchmark).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_dev.h"
#include "evtrace_flush.h"
#include "evtrace_gen.h"
#include "evtrace_probes.h"
#include "evtrace_statedump.h"
#include "evtrace_filter.h"
#include "evtrace_stacks.h"
#include "evtrace_trigger.h"
#include "evtrace_snapshot.h"
#include "evtrace_bench.h"
#include "evtrace_notify.h"
#include "evtrace_nl.h"

/* EVT_VERSION comes from the top-level VERSION file (Kbuild passes it). */
#ifndef EVT_VERSION
#error "EVT_VERSION is not defined: build through the top-level Kbuild"
#endif

static unsigned long subbuf_size = EVT_SUBBUF_SIZE_DEFAULT;
module_param(subbuf_size, ulong, 0444);
MODULE_PARM_DESC(subbuf_size, "sub-buffer (packet) size in bytes: a power of two from PAGE_SIZE to "
		 EVT_STR(EVT_SUBBUF_SIZE_MAX) " (default " EVT_STR(EVT_SUBBUF_SIZE_DEFAULT) ")");
static unsigned long num_subbuf = EVT_NUM_SUBBUF_DEFAULT;
module_param(num_subbuf, ulong, 0444);
MODULE_PARM_DESC(num_subbuf, "sub-buffers per CPU and channel: a power of two from "
		 EVT_STR(EVT_NUM_SUBBUF_MIN) " to " EVT_STR(EVT_NUM_SUBBUF_MAX)
		 " (default " EVT_STR(EVT_NUM_SUBBUF_DEFAULT) ")");
static char *mode = "discard";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "full-ring policy: discard (drop new events) or overwrite (flight recorder)");
static unsigned int high_water = EVT_HIGH_WATER_DEFAULT;
module_param(high_water, uint, 0444);
MODULE_PARM_DESC(high_water, "ring fill (percent, " EVT_STR(EVT_HIGH_WATER_MIN) " to "
		 EVT_STR(EVT_HIGH_WATER_MAX) ") that wakes the drainer (default "
		 EVT_STR(EVT_HIGH_WATER_DEFAULT) ")");
static unsigned int flush_ms = EVT_FLUSH_MS_DEFAULT;
module_param(flush_ms, uint, 0444);
MODULE_PARM_DESC(flush_ms, "close partial sub-buffers holding events every this many ms, 0 = never, at most "
		 EVT_STR(EVT_FLUSH_MS_MAX) " (default " EVT_STR(EVT_FLUSH_MS_DEFAULT) ")");
static bool autostart;
module_param(autostart, bool, 0444);
MODULE_PARM_DESC(autostart, "start tracing at load (default off)");

static struct dentry *evt_debugfs;

static int evt_stats_open_show(struct seq_file *m, void *v)
{
	evt_stats_show(m, evt_probes_attached());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(evt_stats_open);

static const struct evt_rings_listener evt_listener = {
	.ring_added = evt_dev_add_ring,
	.ring_removed = evt_dev_remove_ring,
	.notify = evt_notify_ring,
	.no_ring = evt_notify_no_ring,
	.events_changed = evt_probes_sync,
	.tracing_started = evt_statedump_start,
	.tracing_stopped = evt_statedump_stop,
};
static int evt_check_params(void)
{
	if (subbuf_size < PAGE_SIZE || subbuf_size > EVT_SUBBUF_SIZE_MAX ||
	    !is_power_of_2(subbuf_size)) {
		pr_err("subbuf_size=%lu is invalid: it must be a power of two from %lu (PAGE_SIZE) to "
		       EVT_STR(EVT_SUBBUF_SIZE_MAX) "\n", subbuf_size, PAGE_SIZE);
		return -EINVAL;
	}
	if (num_subbuf < EVT_NUM_SUBBUF_MIN || num_subbuf > EVT_NUM_SUBBUF_MAX ||
	    !is_power_of_2(num_subbuf)) {
		pr_err("num_subbuf=%lu is invalid: it must be a power of two from "
		       EVT_STR(EVT_NUM_SUBBUF_MIN) " to " EVT_STR(EVT_NUM_SUBBUF_MAX) "\n", num_subbuf);
		return -EINVAL;
	}
	if (high_water < EVT_HIGH_WATER_MIN || high_water > EVT_HIGH_WATER_MAX) {
		pr_err("high_water=%u is invalid: it must be a percentage from "
		       EVT_STR(EVT_HIGH_WATER_MIN) " to " EVT_STR(EVT_HIGH_WATER_MAX) "\n", high_water);
		return -EINVAL;
	}
	if (flush_ms > EVT_FLUSH_MS_MAX) {
		pr_err("flush_ms=%u is invalid: it must be from 0 (off) to " EVT_STR(EVT_FLUSH_MS_MAX) "\n",
		       flush_ms);
		return -EINVAL;
	}
	if (!mode || (strcmp(mode, "discard") && strcmp(mode, "overwrite"))) {
		pr_err("mode=%s is invalid: it must be discard or overwrite\n", mode ? mode : "");
		return -EINVAL;
	}
	return 0;
}

/*
 * Init and exit order. Every way into the module becomes reachable only once
 * what it uses exists, and goes away before what it uses does:
 * - the reader and metadata devices and the marker: their files hold a
 *   module reference (.owner), so none is open while exit runs; their
 *   pages may outlive the module in a pipe (evt_alloc_ring_mem());
 * - CPU hotplug callbacks allocate rings and devices: after the devices'
 *   region, removed before the rings are freed;
 * - debugfs (stats and generate, read-only; bench, the root-only in-kernel
 *   benchmark, records into the rings): after everything it reads, removed
 *   first but for netlink; its removal waits for handlers in flight;
 * - generic netlink: handlers hold no module reference and may START
 *   (attach probes), re-arm the flush work, GENERATE or read generator
 *   state: registered last, unregistered first (that waits for them);
 * - the exported evtrace_record(): its callers are modules that depend on
 *   this one, gone before exit can start;
 * - the probe path, generator threads and the hrtimer record until tracing
 *   stops and a grace period passes, and they are stopped;
 * - irq_work, the flush work and the notification work are raised by the
 *   above: synced or cancelled after their sources are gone.
 */
static int __init evtrace_init(void)
{
	struct evt_rings_config cfg = {
		.subbuf_size = subbuf_size,
		.num_subbuf = num_subbuf,
		.high_water = high_water,
		.flush_ms = flush_ms,
	};
	int ret;

	ret = evt_check_params();
	if (ret)
		return ret;
	cfg.mode = strcmp(mode, "overwrite") ? EVT_MODE_DISCARD : EVT_MODE_OVERWRITE;
	ret = evt_rings_init(&cfg, &evt_listener);
	if (ret)
		return ret;
	ret = evt_dev_init();
	if (ret)
		goto err_rings;
	ret = evt_rings_hotplug_init();
	if (ret)
		goto err_dev;
	ret = evt_probes_init();
	if (ret)
		goto err_cpuhp;

	evt_debugfs = debugfs_create_dir("evtrace", NULL);
	ret = evt_gen_init(evt_debugfs);
	if (ret)
		goto err_debugfs;
	ret = evt_bench_init(evt_debugfs);
	if (ret)
		goto err_gen;
	debugfs_create_file("stats", 0444, evt_debugfs, NULL, &evt_stats_open_fops);
	evt_filter_init(evt_debugfs);
	ret = evt_trigger_init(evt_debugfs);
	if (ret)
		goto err_trigger;

	evt_rings_loaded();
	evt_flush_timer_start();
	if (autostart)
		evt_start_tracing();
	ret = evt_nl_init();
	if (ret)
		goto err_started;
	pr_info("loaded, %u CPUs, %lu x %lu bytes per CPU and channel, mode %s\n",
		num_online_cpus(), evt.num_subbuf, evt.subbuf_size, mode);
	return 0;

err_started:
	debugfs_remove_recursive(evt_debugfs);
	evt_debugfs = NULL;
	evt_stop_tracing(true);
	evt_trigger_exit();
	evt_snapshot_exit();
err_trigger:
	evt_filter_exit();
	evt_bench_exit();
err_gen:
	evt_gen_exit();
err_debugfs:
	debugfs_remove_recursive(evt_debugfs);
	evt_probes_exit();
err_cpuhp:
	evt_flush_timer_stop();
	evt_rings_hotplug_exit();
err_dev:
	evt_rings_exit();
	evt_dev_exit();
	return ret;
err_rings:
	evt_rings_exit();
	return ret;
}

static void __exit evtrace_exit(void)
{
	/* Netlink first: see the order above evtrace_init(). */
	evt_nl_exit();
	debugfs_remove_recursive(evt_debugfs);
	evt_stop_tracing(true);
	evt_gen_exit();
	evt_bench_exit();
	evt_trigger_exit();
	evt_snapshot_exit();
	evt_probes_exit();
	evt_filter_exit();
	evt_flush_timer_stop();
	evt_rings_hotplug_exit();
	evt_notify_exit();
	evt_rings_exit();
	evt_dev_exit();
	pr_info("unloaded\n");
}

module_init(evtrace_init);
module_exit(evtrace_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(EVT_VERSION);
MODULE_DESCRIPTION("evtrace: per-CPU compact event recorder with CTF output");
