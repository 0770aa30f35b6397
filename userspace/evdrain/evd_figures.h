/* SPDX-License-Identifier: GPL-2.0 */
/* evdrain's figures (evd_figures.c): the summary, --stats-json, the progress line. */
#ifndef EVD_FIGURES_H
#define EVD_FIGURES_H

#include <stdint.h>
#include "evd_options.h"
#include "evd_rotate.h"
#include "consumer/evt_consumer.h"
#include "control/evt_ctl.h"

/*
 * The summary (unless --quiet) and --stats-json. Returns the events lost
 * (discarded, too big, refused or overwritten), or -1 when the module gave
 * no figures.
 */
long long evd_summary(struct evt_ctl *ctl, struct evt_consumer *con, const struct options *o,
		      double secs, const struct evd_rot_stats *rs);

/* The progress line on a terminal, once a second. */
struct evd_progress {
	uint64_t last_ms, last_rec, last_bytes;
};

void evd_progress(struct evt_ctl *ctl, const struct evt_consumer *con, unsigned int channels,
		  struct evd_progress *p, uint64_t t);

#endif /* EVD_FIGURES_H */
