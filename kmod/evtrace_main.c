// SPDX-License-Identifier: GPL-2.0
/*
 * evtrace: per-CPU compact event recorder.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>

static int __init evtrace_init(void)
{
	pr_info("loaded, %u CPUs\n", num_online_cpus());
	return 0;
}

static void __exit evtrace_exit(void)
{
	pr_info("unloaded\n");
}

module_init(evtrace_init);
module_exit(evtrace_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("evtrace per-CPU compact event recorder");
