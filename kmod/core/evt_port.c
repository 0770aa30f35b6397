// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace port's clock (evt_port.h), which the unit tests, the
 * synthesizer and the native benchmark swap; the module reads the kernel's
 * and does not build this file.
 */
#ifndef __KERNEL__
#include <time.h>
#include "evt_port.h"

static u64 evt_default_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

u64 (*evt_clock_fn)(void) = evt_default_clock;
#endif
