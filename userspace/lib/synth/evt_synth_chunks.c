// SPDX-License-Identifier: GPL-2.0
/*
 * A synthetic trace cut into chunks as a rotating evdrain writes them
 * (evsynth --chunks, the tests): see evt_synth_write_chunks() in
 * evt_synth.h. Apart from evt_synth.c so that what links the synthesizer
 * alone (the fuzz targets) needs no chunk cutter.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "chunk/evt_chunk.h"
#include "synth/evt_synth.h"

/* Between two rings' flushes at a cut (a 2-vCPU guest's evdrain took 1 to 18 ms for its four). */
#define FLUSH_STEP_NS 20000

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int evt_synth_write_chunks(const char *dir, struct evt_synth_params *p, unsigned int nchunks, const char *host,
			   const char *kernel, struct evt_synth_result *res, char *err, size_t errlen)
{
	struct evt_chunk_split_opts so = { .nchunks = nchunks, .host = host, .kernel = kernel };
	char whole[4200];
	uint64_t *cuts;
	unsigned int k;
	int rc;

	if (nchunks < 2) {
		snprintf(err, errlen, "at least two chunks");
		return -1;
	}
	if (mkdir(dir, 0750) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(whole, sizeof(whole), "%s/.evsynth-whole", dir);
	/* Once for the time span (the same seed: the same events), then with the rings flushed at the cuts. */
	p->flush_at = NULL;
	p->nr_flush = 0;
	if (evt_synth_write(whole, p, res, err, errlen))
		return -1;
	nftw(whole, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	cuts = calloc(nchunks, sizeof(*cuts));
	if (!cuts) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (k = 0; k + 1 < nchunks; k++)
		cuts[k] = res->first_ts + (res->last_ts - res->first_ts) * (k + 1) / nchunks;
	p->flush_at = cuts;
	p->nr_flush = nchunks - 1;
	p->flush_step_ns = FLUSH_STEP_NS;
	rc = evt_synth_write(whole, p, res, err, errlen);
	/* Each chunk ends after its cut's last flush (ring 2 cpus - 1). */
	for (k = 0; k + 1 < nchunks; k++)
		cuts[k] += (2 * (uint64_t)p->cpus - 1) * FLUSH_STEP_NS;
	so.cuts = cuts;
	if (!rc)
		rc = evt_chunk_split(whole, dir, &so, NULL, err, errlen);
	nftw(whole, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	p->flush_at = NULL;
	p->nr_flush = 0;
	p->flush_step_ns = 0;
	free(cuts);
	return rc;
}
