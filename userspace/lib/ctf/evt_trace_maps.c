// SPDX-License-Identifier: GPL-2.0
/*
 * A run's stream files mapped lazily (evt_trace_run.c lays them out):
 * a process may have vm.max_map_count mappings (65530 by default: 64
 * CPUs in 1024 chunks), and a run may have more files than that. So the
 * files are mapped only when a reader first reads a packet of theirs:
 * each reader (a stream's cursor, in a clone on another thread too)
 * holds the last two files it read, and files nobody holds are given
 * back, oldest first, while more are mapped than the limit leaves room
 * for (its reservation made PROT_NONE again, which the kernel merges
 * with its neighbours).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctf/evt_trace_priv.h"
#include "util/evt_io.h"

struct evt_run_maps {
	pthread_mutex_t lock;
	unsigned long mapped;		/* files mapped now */
	unsigned long budget;		/* files mapped at most, while some are not held */
	unsigned long peak;		/* the most mapped at once (tests) */
	struct evt_seg *lru_head, *lru_tail;	/* mapped, held by nobody: the head goes first */
	const struct evt_trace *t;	/* the original (its chunks' directories) */
};

/*
 * Mappings a process may still make: vm.max_map_count (or the
 * EVTRACE_MAX_MAP_COUNT environment variable, lower, for tests) less those
 * it has now.
 */
static void map_count(long *limit, long *used)
{
	const char *env = getenv("EVTRACE_MAX_MAP_COUNT");
	char line[256];
	FILE *f;

	*limit = 65530;
	*used = 0;
	f = fopen("/proc/sys/vm/max_map_count", "re");
	if (f) {
		if (!fgets(line, sizeof(line), f) || (*limit = strtol(line, NULL, 10)) <= 0)
			*limit = 65530;
		fclose(f);
	}
	if (env && *env && strtol(env, NULL, 10) > 0 && strtol(env, NULL, 10) < *limit)
		*limit = strtol(env, NULL, 10);
	f = fopen("/proc/self/maps", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (strchr(line, '\n'))
				(*used)++;
		fclose(f);
	}
}


/*
 * Of what the limit leaves, a reserve for the rest of the program
 * (threads' stacks, the allocator, an HTTP server's connections): 512
 * mappings, or a quarter of what is left when that is little.
 */
#define EVT_MAP_RESERVE 512

/*
 * How many of the run's files may be mapped at once: each splits its
 * stream's reservation (two mappings more). A reader holds two files per
 * stream; a limit that leaves less than that for one reader is refused
 * before anything is read, with what to do. 0, or -1 with t->err.
 */
/* Files that may be mapped at once with @left mappings to spare. */
static unsigned long files_for(long left)
{
	long reserve = left / 4 < EVT_MAP_RESERVE ? left / 4 : EVT_MAP_RESERVE;

	return left - reserve > 0 ? (unsigned long)(left - reserve) / 2 : 0;
}

static int map_budget(struct evt_trace *t, const char *dir, unsigned long *budget)
{
	unsigned long files = 0, need = 2UL * t->nr_streams + 2;
	long limit, used, left;
	unsigned int i, j;

	for (i = 0; i < t->nr_streams; i++)
		for (j = 0; j < t->streams[i].nsegs; j++)
			files += t->streams[i].segs[j].size ? 1 : 0;
	if (need > files)
		need = files;
	map_count(&limit, &used);
	/* Each stream's reservation is one mapping. */
	left = limit - used - (long)t->nr_streams;
	*budget = files_for(left);
	if (*budget >= need) {
		if (*budget > files)
			*budget = files;
		return 0;
	}
	/* The least limit that would do. */
	for (left = 0; files_for(left) < need; left++)
		;
	evt_errf(t->err, sizeof(t->err),
		 "%s: reading its %u chunks needs %lu of its %lu stream files mapped at once (two mappings "
		 "each), more than vm.max_map_count (%ld) leaves with the %ld mappings in use: raise the limit "
		 "(sysctl -w vm.max_map_count=%ld), or read fewer CPUs (--cpu)", dir, t->nr_chunks, need, files,
		 limit, used, used + (long)t->nr_streams + left);
	return -1;
}

int evt_trace_run_maps_init(struct evt_trace *t, const char *dir)
{
	t->maps = calloc(1, sizeof(*t->maps));
	if (!t->maps) {
		evt_errf(t->err, sizeof(t->err), "out of memory");
		return -1;
	}
	pthread_mutex_init(&t->maps->lock, NULL);
	t->maps->t = t;
	return map_budget(t, dir, &t->maps->budget);
}

int evt_trace_run_same_file(const struct evt_seg *g, const struct stat *st, const char *path, char *err,
			    size_t len)
{
	if ((uint64_t)st->st_size == g->size && (uint64_t)st->st_dev == g->dev && (uint64_t)st->st_ino == g->ino &&
	    (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec == g->mtime_ns)
		return 0;
	evt_errf(err, len, "%s: it changed since the run was opened (size, inode or mtime): read the run again",
		 path);
	return -1;
}

unsigned int evt_trace_run_seg_of(const struct evt_stream *s, uint64_t off)
{
	unsigned int lo = 0, hi = s->nsegs;

	/* The last file that starts at or before @off. */
	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (s->segs[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void lru_unlink(struct evt_run_maps *m, struct evt_seg *g)
{
	if (g->lru_prev)
		g->lru_prev->lru_next = g->lru_next;
	else
		m->lru_head = g->lru_next;
	if (g->lru_next)
		g->lru_next->lru_prev = g->lru_prev;
	else
		m->lru_tail = g->lru_prev;
	g->lru_prev = g->lru_next = NULL;
}

static void lru_append(struct evt_run_maps *m, struct evt_seg *g)
{
	g->lru_next = NULL;
	g->lru_prev = m->lru_tail;
	if (m->lru_tail)
		m->lru_tail->lru_next = g;
	else
		m->lru_head = g;
	m->lru_tail = g;
}

/* Give the file's place back to the reservation (the kernel merges it with its neighbours). */
static void unmap_seg(struct evt_run_maps *m, struct evt_seg *g)
{
	const struct evt_stream *s = &m->t->streams[g->stream];
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);

	lru_unlink(m, g);
	mmap((void *)(uintptr_t)(s->map + g->off), ((size_t)g->size + page - 1) & ~(page - 1), PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	g->mapped = 0;
	m->mapped--;
}

/* One reader less in @g: nobody left, it may go. */
static void seg_put(struct evt_run_maps *m, struct evt_seg *g)
{
	if (--g->refs == 0)
		lru_append(m, g);
}

/* Map @g of @s at its place: 0, or -1 with @err. */
static int map_seg(const struct evt_trace *t, const struct evt_stream *s, struct evt_seg *g, char *err,
		   size_t len)
{
	char path[4096 + 64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->chunks[g->chunk].dir, s->name);
	if (evt_trace_open_regular(err, path, &fd, &st))
		return -1;
	if (evt_trace_run_same_file(g, &st, path, err, len)) {
		close(fd);
		return -1;
	}
	if (mmap((void *)(uintptr_t)(s->map + g->off), (size_t)g->size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
		 0) == MAP_FAILED) {
		evt_errf(err, len, "%s: mmap: %s%s", path, strerror(errno),
			 errno == ENOMEM ? " (the process's mappings reached vm.max_map_count: raise it with "
			 "sysctl -w vm.max_map_count=N)" : "");
		close(fd);
		return -1;
	}
	close(fd);
	madvise((void *)(uintptr_t)(s->map + g->off), (size_t)g->size, MADV_SEQUENTIAL);
	return 0;
}

int evt_trace_run_hold(const struct evt_trace *t, struct evt_stream *s, unsigned int gi)
{
	struct evt_run_maps *m = t->maps;
	struct evt_seg *g = &s->segs[gi];
	int ret = 0;

	if (s->hold[0] == (int)gi)
		return 0;
	if (s->hold[1] == (int)gi) {
		s->hold[1] = s->hold[0];
		s->hold[0] = (int)gi;
		return 0;
	}
	pthread_mutex_lock(&m->lock);
	if (!g->mapped) {
		if (map_seg(m->t, s, g, s->errmsg, sizeof(s->errmsg))) {
			ret = -1;
			goto out;
		}
		g->mapped = 1;
		if (++m->mapped > m->peak)
			m->peak = m->mapped;
	} else if (!g->refs) {
		lru_unlink(m, g);
	}
	g->refs++;
	if (s->hold[1] >= 0)
		seg_put(m, &s->segs[s->hold[1]]);
	s->hold[1] = s->hold[0];
	s->hold[0] = (int)gi;
	/* Over the budget: the files nobody reads go, oldest first (held ones stay, whatever it costs). */
	while (m->mapped > m->budget && m->lru_head)
		unmap_seg(m, m->lru_head);
out:
	pthread_mutex_unlock(&m->lock);
	return ret;
}

void evt_trace_run_release(const struct evt_trace *t, struct evt_stream *s)
{
	struct evt_run_maps *m = t->maps;
	int i;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	for (i = 0; i < 2; i++) {
		if (s->hold[i] >= 0)
			seg_put(m, &s->segs[s->hold[i]]);
		s->hold[i] = -1;
	}
	pthread_mutex_unlock(&m->lock);
}

void evt_trace_run_free(struct evt_trace *t)
{
	if (!t->maps)
		return;
	pthread_mutex_destroy(&t->maps->lock);
	free(t->maps);
	t->maps = NULL;
}

unsigned long evt_trace_run_peak(const struct evt_trace *t)
{
	return t->maps ? t->maps->peak : 0;
}
