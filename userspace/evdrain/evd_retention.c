// SPDX-License-Identifier: GPL-2.0
/*
 * evdrain's retention: the oldest shipped chunks removed past --keep or
 * --max-total, called by the finisher and by the hook thread once a chunk
 * is shipped. See evd_rot_priv.h.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include "evd_rot_priv.h"

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

/* A chunk directory and everything in it. */
int evd_remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The chunk retention takes now (an index in r->done), or -1. The oldest
 * shipped one (its hook succeeded, or there is no hook); an unshipped one
 * only when --max-total is passed and every shipped one is gone: *@forced
 * then. Never the chunk whose hook runs. Under r->mu.
 */
static long retention_victim(const struct evd_rot *r, int over_total, int *forced)
{
	size_t i;

	*forced = 0;
	for (i = 0; i < r->ndone; i++)
		if (r->done[i].seq != r->hooking && r->done[i].shipped)
			return (long)i;
	for (i = 0; over_total && i < r->ndone; i++)
		if (r->done[i].seq != r->hooking) {
			*forced = 1;
			return (long)i;
		}
	return -1;
}

/* See retention_victim(). */
void evd_rot_retention(struct evd_rot *r)
{
	for (;;) {
		char from[DIR_LEN], to[DIR_LEN];
		uint64_t total = atomic_load(&r->current_bytes);
		struct done victim;
		size_t i;
		long v;
		int over_keep, over_total, forced;

		pthread_mutex_lock(&r->mu);
		for (i = 0; i < r->ndone; i++)
			total += r->done[i].bytes;
		over_keep = r->o.keep && r->ndone > r->o.keep;
		over_total = r->o.max_total && total > r->o.max_total;
		v = over_keep || over_total ? retention_victim(r, over_total, &forced) : -1;
		if (v < 0) {
			pthread_mutex_unlock(&r->mu);
			return;
		}
		victim = r->done[v];
		memmove(&r->done[v], &r->done[v + 1], (r->ndone - (size_t)v - 1) * sizeof(*r->done));
		r->ndone--;
		if (victim.hook_queued)
			r->st.hooks_skipped++;
		r->st.removed_unshipped += (uint64_t)forced;
		r->st.deleted++;
		pthread_mutex_unlock(&r->mu);
		/* Renamed first: nobody sees a half-removed chunk as complete. */
		snprintf(from, sizeof(from), "%s/%s", r->outdir, victim.name);
		snprintf(to, sizeof(to), "%s/" EVT_CHUNK_DEL_PREFIX "%llu", r->outdir,
			 (unsigned long long)victim.seq);
		if (rename(from, to) || evd_remove_tree(to))
			fprintf(stderr, "evdrain: retention: cannot remove %s: %s\n", from, strerror(errno));
		else if (forced)
			fprintf(stderr, "evdrain: retention: removed %s before its hook succeeded (--max-total)\n",
				victim.name);
		else if (!r->o.quiet)
			fprintf(stderr, "evdrain: retention: removed %s\n", victim.name);
	}
}
