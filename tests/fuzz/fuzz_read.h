/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an opened trace in the fuzz targets (fuzz_dir, fuzz_run): events
 * counted by a merge from the start, and the check that a message is
 * printable text.
 */
#ifndef FUZZ_READ_H
#define FUZZ_READ_H

#include <stdio.h>
#include <string.h>
#include "fuzz_common.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_stream.h"

/* Events the merge counts (tree or list) from the start, and its error: the count, or -1 - count. */
static inline long fz_count_events(struct evt_trace *t, enum evt_merge_kind kind, char *err, size_t len)
{
	struct evt_merged mt;
	long n, total = 0;
	unsigned int i;

	for (i = 0; i < t->nr_streams; i++)
		evt_stream_seek(&t->streams[i], 0);
	FZ_ASSERT(evt_merged_init(&mt, t, kind) == 0);
	while ((n = evt_merged_count(&mt, 1U << 16)) > 0)
		total += n;
	err[0] = 0;
	if (n < 0)
		snprintf(err, len, "%s", mt.errmsg);
	evt_merged_free(&mt);
	return n < 0 ? -1 - total : total;
}

static inline void fz_printable(const char *s)
{
	for (; *s; s++)
		FZ_ASSERT((unsigned char)*s >= 0x20 && *s != 0x7f);
}

/* A reader's warning (an index file ignored): one printable line, kept quiet. */
static inline void fz_warn(void *data, const char *msg)
{
	(void)data;
	FZ_ASSERT(*msg && !strchr(msg, '\n'));
	fz_printable(msg);
}

#endif
