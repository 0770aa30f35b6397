// SPDX-License-Identifier: GPL-2.0
/*
 * A run of chunks read as one trace (evt_trace.h): each stream is its
 * chunks' files one after another, each at a page boundary of one address
 * reservation, so that the rest of the reader sees one file per stream.
 *
 * A process may have vm.max_map_count mappings (65530 by default: 64 CPUs
 * in 1024 chunks), and a run may have more files than that. So the files
 * are indexed at open (their index files, or their headers by pread) and
 * mapped only when a reader first reads a packet of theirs: each reader
 * (a stream's cursor, in a clone on another thread too) holds the last two
 * files it read, and files nobody holds are given back, oldest first,
 * while more are mapped than the limit leaves room for (its reservation
 * made PROT_NONE again, which the kernel merges with its neighbours).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctf/evt_trace_priv.h"
#include "chunk/evt_chunk.h"
#include "util/evt_io.h"

struct evt_run_maps {
	pthread_mutex_t lock;
	unsigned long mapped;		/* files mapped now */
	unsigned long budget;		/* files mapped at most, while some are not held */
	unsigned long peak;		/* the most mapped at once (tests) */
	struct evt_seg *lru_head, *lru_tail;	/* mapped, held by nobody: the head goes first */
	const struct evt_trace *t;	/* the original (its chunks' directories) */
};

static int chunk_seq_cmp(const void *a, const void *b)
{
	const struct evt_chunk_ref *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The complete chunks in @dir (a name BEGIN-END-SEQ with a kernel/ in it),
 * by sequence number: how many (*@out malloc'd), or -1 with errno (EINVAL:
 * a name that starts like a chunk's and is not one, into @bad).
 */
static int list_chunks(const char *dir, struct evt_chunk_ref **out, char *bad, size_t badlen)
{
	struct evt_chunk_ref *v = NULL;
	struct dirent *de;
	unsigned int n = 0, cap = 0;
	DIR *d = opendir(dir);

	*out = NULL;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct evt_chunk_ref c = { 0 };
		char path[4096 + 300];
		struct stat st;

		if (strlen(de->d_name) >= sizeof(c.name) ||
		    evt_chunk_parse(de->d_name, &c.begin_rt, &c.end_rt, &c.seq)) {
			/* Refused, not skipped: its events would be missing and nothing would say so. */
			if (evt_chunk_like(de->d_name)) {
				snprintf(bad, badlen, "%s", de->d_name);
				errno = EINVAL;
				goto fail;
			}
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s/kernel", dir, de->d_name);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		memcpy(c.name, de->d_name, strlen(de->d_name) + 1);
		c.dir = strdup(path);
		if (!c.dir)
			goto nomem;
		if (n == cap) {
			struct evt_chunk_ref *m = realloc(v, (cap ? cap * 2 : 32) * sizeof(*m));

			if (!m) {
				free(c.dir);
				goto nomem;
			}
			v = m;
			cap = cap ? cap * 2 : 32;
		}
		v[n++] = c;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), chunk_seq_cmp);
	*out = v;
	return (int)n;
nomem:
	errno = ENOMEM;
fail:
	{
		int e = errno;

		while (n)
			free(v[--n].dir);
		free(v);
		closedir(d);
		errno = e;
	}
	return -1;
}

/* @dir holds a trace of its own (DIR/metadata or DIR/kernel/metadata). */
int evt_trace_has_own(const char *dir)
{
	char path[4096 + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (!lstat(path, &st))
		return 1;
	snprintf(path, sizeof(path), "%s/kernel/metadata", dir);
	return !lstat(path, &st);
}

char *evt_trace_run_first(const char *dir)
{
	char bad[256];
	struct evt_chunk_ref *v;
	char *first = NULL;
	int n, i;

	if (evt_trace_has_own(dir))
		return NULL;
	n = list_chunks(dir, &v, bad, sizeof(bad));
	if (n > 0) {
		first = v[0].dir;
		v[0].dir = NULL;
	}
	for (i = 0; i < n; i++)
		free(v[i].dir);
	free(v);
	return first;
}

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

/* Open @v[0..n) (the run's chunks by sequence number) as one trace. */
static int open_run(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o,
		    struct evt_chunk_ref *v, unsigned int n)
{
	const uint64_t from = o ? o->from_rt : 0, to = o && o->to_rt ? o->to_rt : UINT64_MAX;
	char *first_text = NULL;
	size_t first_len = 0;
	unsigned int i, kept = 0, cap = 0;
	int ret = -1;

	t->run_chunks = n;
	/* Names keep microseconds: a chunk may end up to 999 ns after its name says. */
	for (i = 0; i < n; i++) {
		if ((from || (o && o->to_rt)) && (v[i].end_rt + 1000 <= from || v[i].begin_rt > to)) {
			free(v[i].dir);
			continue;
		}
		v[kept++] = v[i];
	}
	t->chunks = v;
	t->nr_chunks = kept;
	if (!kept) {
		evt_errf(t->err, sizeof(t->err), "%s: none of its %u chunks overlaps the times asked for", dir, n);
		return -1;
	}
	if (evt_trace_read_metadata_of(t, v[0].dir, &first_text, &first_len))
		return -1;
	v[0].md_mode = t->md_mode;
	v[0].md_gid = t->md_gid;
	for (i = 0; i < kept; i++) {
		struct dirent *de;
		struct stat mst;
		DIR *d;

		if (i) {
			char *text;
			size_t len;

			if (evt_trace_read_metadata_text(v[i].dir, &text, &len, &mst, t->err))
				goto out;
			if (len != first_len || memcmp(text, first_text, len)) {
				char end[80], begin[80];

				/* The module was started again (a service restart): read one session at a time. */
				evt_chunk_iso_time(end, sizeof(end), v[i - 1].end_rt, 0);
				evt_chunk_iso_time(begin, sizeof(begin), v[i].begin_rt, 0);
				evt_errf(t->err, sizeof(t->err),
					 "%s: chunks of more than one tracing session: from %s on the metadata "
					 "is not %s's; read one session at a time (--to %s, --from %s)",
					 dir, v[i].name, v[0].name, end, begin);
				free(text);
				goto out;
			}
			free(text);
			v[i].md_mode = mst.st_mode & 0777;
			v[i].md_gid = mst.st_gid;
		}
		d = opendir(v[i].dir);
		if (!d) {
			evt_errf(t->err, sizeof(t->err), "%s: %s", v[i].dir, strerror(errno));
			goto out;
		}
		while ((de = readdir(d))) {
			unsigned int chan, cpu;
			struct evt_stream *s;
			struct evt_seg *g;
			struct stat st;
			int r = evt_trace_parse_stream_name(de->d_name, &chan, &cpu);

			if (r == -2) {
				evt_errf(t->err, sizeof(t->err),
					 "%s/%.64s: not a stream file name evtrace writes (compact_N or normal_N, "
					 "N a CPU below %u without leading zeros): rename or remove it",
					 v[i].dir, de->d_name, EVT_MAX_CPUS);
				closedir(d);
				goto out;
			}
			if (r || (o && o->cpu_set && (cpu >= o->cpu_set_bits ||
						      !(o->cpu_set[cpu / 8] & (1U << (cpu % 8))))))
				continue;
			if (fstatat(dirfd(d), de->d_name, &st, 0) || !S_ISREG(st.st_mode)) {
				evt_errf(t->err, sizeof(t->err), "%s/%s: not a regular file", v[i].dir, de->d_name);
				closedir(d);
				goto out;
			}
			s = evt_trace_stream_of(t, &cap, chan, cpu);
			g = s ? realloc(s->segs, (s->nsegs + 1) * sizeof(*g)) : NULL;
			if (!g) {
				evt_errf(t->err, sizeof(t->err), "out of memory");
				closedir(d);
				goto out;
			}
			s->segs = g;
			g = &s->segs[s->nsegs++];
			memset(g, 0, sizeof(*g));
			g->chunk = i;
			g->size = (uint64_t)st.st_size;
			g->dev = (uint64_t)st.st_dev;
			g->ino = (uint64_t)st.st_ino;
			g->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec;
		}
		closedir(d);
	}
	if (!t->nr_streams) {
		evt_errf(t->err, sizeof(t->err), "%s: no stream file of the CPUs asked for in its chunks", dir);
		goto out;
	}
	t->maps = calloc(1, sizeof(*t->maps));
	if (!t->maps) {
		evt_errf(t->err, sizeof(t->err), "out of memory");
		goto out;
	}
	pthread_mutex_init(&t->maps->lock, NULL);
	t->maps->t = t;
	if (map_budget(t, dir, &t->maps->budget))
		goto out;
	ret = evt_trace_open_indexed(t, o);
out:
	free(first_text);
	return ret;
}

int evt_trace_open_run(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o)
{
	struct evt_chunk_ref *v;
	char bad[256];
	int n;

	if (evt_trace_has_own(dir))
		return 0;
	n = list_chunks(dir, &v, bad, sizeof(bad));
	if (n < 0 && errno == EINVAL) {
		evt_errf(t->err, sizeof(t->err),
			 "%s/%.80s: not a chunk name evdrain writes (BEGIN-END-SEQ, SEQ without leading "
			 "zeros): rename or remove it", dir, bad);
		return -1;
	}
	if (n <= 0)
		return 0;
	t->dir = strdup(dir);
	if (!t->dir) {
		evt_errf(t->err, sizeof(t->err), "out of memory");
		while (n)
			free(v[--n].dir);
		free(v);
		return -1;
	}
	return open_run(t, dir, o, v, (unsigned int)n) ? -1 : 1;
}

/* The file is the one listed when the run was opened: 0, or -1 with @err. */
static int same_file(const struct evt_seg *g, const struct stat *st, const char *path, char *err, size_t len)
{
	if ((uint64_t)st->st_size == g->size && (uint64_t)st->st_dev == g->dev && (uint64_t)st->st_ino == g->ino &&
	    (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec == g->mtime_ns)
		return 0;
	evt_errf(err, len, "%s: it changed since the run was opened (size, inode or mtime): read the run again",
		 path);
	return -1;
}

int evt_trace_open_run_stream(const struct evt_trace *t, struct evt_stream *s, char *err, char *warn,
			      size_t warnlen)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t total = 0;
	unsigned int i;
	uint8_t *base;

	for (i = 0; i < s->nsegs; i++) {
		s->segs[i].off = total;
		s->segs[i].stream = s->id;
		total += ((size_t)s->segs[i].size + page - 1) & ~(page - 1);
	}
	s->size = s->nsegs ? (size_t)(s->segs[s->nsegs - 1].off + s->segs[s->nsegs - 1].size) : 0;
	s->npk = 0;
	s->hold[0] = s->hold[1] = -1;
	if (!total)
		return 0;
	/* One reservation, nothing mapped in it yet: one mapping however many files. */
	base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		evt_errf(err, EVT_TRACE_ERRLEN, "%s/%s: mmap of %zu bytes: %s", t->dir, s->name, total,
			 strerror(errno));
		return -1;
	}
	s->map = base;
	s->map_len = total;
	for (i = 0; i < s->nsegs; i++) {
		struct evt_seg *g = &s->segs[i];
		const struct evt_chunk_ref *c = &t->chunks[g->chunk];
		char path[4096 + 64], w[EVT_TRACE_ERRLEN];
		struct stat st;
		int fd, ret;

		snprintf(path, sizeof(path), "%s/%s", c->dir, s->name);
		if (evt_trace_open_regular(err, path, &fd, &st))
			return -1;
		if (same_file(g, &st, path, err, EVT_TRACE_ERRLEN)) {
			close(fd);
			return -1;
		}
		g->first_pk = s->npk;
		w[0] = 0;
		ret = evt_trace_index_file(t, s, fd, &st, c->dir, c->md_mode, c->md_gid, (size_t)g->off,
					   &g->seam_lost, err, w, sizeof(w));
		g->npk = s->npk - g->first_pk;
		close(fd);
		/* The first index ignored is said (a run's are all alike). */
		if (w[0] && !warn[0])
			snprintf(warn, warnlen, "%s", w);
		if (ret)
			return -1;
	}
	return 0;
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
	if (same_file(g, &st, path, err, len)) {
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
