/* SPDX-License-Identifier: GPL-2.0 */
/* evstat --stacks and --folded EVENT (evs_stacks.c). */
#ifndef EVS_STACKS_H
#define EVS_STACKS_H

#include <stdio.h>
#include "engine/evt_engine.h"

/*
 * The trace's kernel stacks named by its saved symbols: with @folded NULL,
 * a text section (each event's @top most frequent stacks, innermost frame
 * first; 0: all); else @folded's stacks in flamegraph.pl's folded format
 * ("EVENT;outermost;...;innermost COUNT" per distinct stack). 0, or -1
 * with @err (no symbols, no such event, a trace error).
 */
int evs_stacks_report(struct evt_engine *e, struct evt_etrace *t, const char *folded, unsigned long top,
		      FILE *out, char *err, size_t errlen);

#endif /* EVS_STACKS_H */
