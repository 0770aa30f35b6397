/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel API differences between the kernels evtrace builds for. */
#ifndef EVT_COMPAT_H
#define EVT_COMPAT_H

#include <linux/version.h>
#include <linux/device.h>

/* 6.4 dropped class_create()'s owner argument. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define evt_class_create(name) class_create(name)
#else
#define evt_class_create(name) class_create(THIS_MODULE, name)
#endif

/* 6.2 made the device argument of class devnode callbacks const. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define EVT_DEVNODE_DEV const struct device
#else
#define EVT_DEVNODE_DEV struct device
#endif

#endif /* EVT_COMPAT_H */
