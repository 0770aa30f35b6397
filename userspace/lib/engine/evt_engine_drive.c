// SPDX-License-Identifier: GPL-2.0
/* Driving the engine: a step is a chunk of the foreground or the background, taking turns. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_engine_priv.h"

int evt_engine_busy(const struct evt_engine *e)
{
	const struct evt_traceset *ts;
	const struct evt_etrace *t;

	for (ts = e->tracesets; ts; ts = ts->next)
		if (ts->pending)
			return 1;
	for (t = e->traces; t; t = t->next)
		if (evt_bg_has_work(t))
			return 1;
	return 0;
}

int evt_engine_step(struct evt_engine *e)
{
	struct evt_traceset *ts;
	struct evt_etrace *t;
	unsigned int i, n;

	/* Ad hoc first: no background chunk runs while any is pending (tracesets in turn). */
	for (n = 0, ts = e->tracesets; ts; ts = ts->next)
		n++;
	for (i = 0; i < n; i++) {
		unsigned int k = (e->fg_turn + i) % n, j;

		for (j = 0, ts = e->tracesets; j < k; j++)
			ts = ts->next;
		if (ts->pending) {
			e->fg_turn = k + 1;
			evt_fg_chunk(ts);
			return evt_engine_busy(e);
		}
	}
	for (n = 0, t = e->traces; t; t = t->next)
		n++;
	for (i = 0; i < n; i++) {
		unsigned int k = (e->bg_turn + i) % n, j;

		for (j = 0, t = e->traces; j < k; j++)
			t = t->next;
		if (evt_bg_has_work(t)) {
			e->bg_turn = k + 1;
			evt_bg_step(t);
			return evt_engine_busy(e);
		}
	}
	return 0;
}

void evt_engine_run(struct evt_engine *e)
{
	while (evt_engine_step(e))
		;
}
