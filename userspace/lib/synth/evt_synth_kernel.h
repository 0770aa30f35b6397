/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The synthesizer's kernel mode (evt_synth_kernel.c), private to lib/synth:
 * evt_synth_write() with p->kernel set comes here.
 */
#ifndef EVT_SYNTH_KERNEL_H
#define EVT_SYNTH_KERNEL_H

#include <stddef.h>
#include "synth/evt_synth.h"

/* The simulated machine's trace into @dir/kernel (res zeroed by the caller): 0, or -1 with @err. */
int evt_synth_kernel_write(const char *dir, const struct evt_synth_params *p,
			   struct evt_synth_result *res, char *err, size_t errlen);

#endif /* EVT_SYNTH_KERNEL_H */
