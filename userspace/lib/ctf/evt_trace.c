// SPDX-License-Identifier: GPL-2.0
/*
 * Trace directory reader: opening, the packet index, per-stream decoding;
 * see evt_trace.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "evt_trace.h"
#include "evt_chunk.h"
#include "evt_io.h"

/* ---- Opening ---- */

/*
 * A stream file's name, CHANNEL_CPU as evdrain writes it (the CPU in
 * decimal without leading zeros, below EVT_MAX_CPUS): 0 with *@chan and
 * *@cpu; -1 for a name that is not a stream's; -2 for one that starts
 * like a stream's and is not one (compact_00, normal_99999999,
 * compact_1.bak): the reader refuses those rather than skip a stream.
 */
static int parse_stream_name(const char *name, unsigned int *chan, unsigned int *cpu)
{
	const char *p;
	unsigned long v = 0;
	unsigned int c;

	for (c = 0; c < EVT_NR_CHANNELS; c++) {
		size_t l = strlen(evt_channel_name(c));

		if (!strncmp(name, evt_channel_name(c), l) && name[l] == '_')
			break;
	}
	if (c == EVT_NR_CHANNELS)
		return -1;
	p = name + strlen(evt_channel_name(c)) + 1;
	if (!*p || strlen(p) > 7 || (p[0] == '0' && p[1]))
		return -2;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -2;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v >= EVT_MAX_CPUS)
		return -2;
	*chan = c;
	*cpu = (unsigned int)v;
	return 0;
}

/* The CPUs of the bitmap @seen as ranges ("0-3,6"), for a message. */
static void list_cpus(const uint8_t *seen, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int c;

	buf[0] = 0;
	for (c = 0; c < EVT_MAX_CPUS && used + 24 < len; c++) {
		unsigned int e = c;

		if (!(seen[c / 8] & (1U << (c % 8))))
			continue;
		while (e + 1 < EVT_MAX_CPUS && (seen[(e + 1) / 8] & (1U << ((e + 1) % 8))))
			e++;
		used += (size_t)snprintf(buf + used, len - used, e > c ? "%s%u-%u" : "%s%u", used ? "," : "",
					 c, e);
		c = e;
	}
}

/* What a directory without a stream holds, for the message: "a, b, c (N entries)". */
static void list_entries(const char *dir, char *buf, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t used = 0;
	unsigned int n = 0;

	buf[0] = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n < 8 && used + 64 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%.40s", n ? ", " : "",
						 de->d_name);
		n++;
	}
	closedir(d);
	if (n > 8)
		snprintf(buf + used, len - used, ", ... (%u entries)", n);
	else if (!n)
		snprintf(buf, len, "nothing");
}

static int index_stream(const struct evt_trace *t, struct evt_stream *s, int fd, char *err);
static int index_range(const struct evt_trace *t, struct evt_stream *s, int fd, size_t base, size_t size,
		       uint64_t *seam_lost, char *err);

static int stream_cmp(const void *a, const void *b)
{
	const struct evt_stream *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->channel < y->channel ? -1 : x->channel > y->channel;
}

/*
 * Open a file of the trace for reading: 0 with *@fd and *@size, or -1 with
 * @err. O_NONBLOCK: a FIFO in its place must not hang the open.
 */
static int open_regular(char *err, const char *path, int *fd, size_t *size)
{
	struct stat st;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		evt_errf(err, EVT_TRACE_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode)) {
		evt_errf(err, EVT_TRACE_ERRLEN, "%s: not a regular file", path);
		close(*fd);
		return -1;
	}
	*size = (size_t)st.st_size;
	return 0;
}

/* DIR/metadata's text (malloc'd): 0, or -1 with @err. */
static int read_metadata_text(const char *dir, char **text, size_t *len, char *err)
{
	char path[4096], msg[EVT_TRACE_ERRLEN];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (open_regular(err, path, &fd, len))
		return -1;
	ret = evt_metadata_read(fd, text, len, msg, sizeof(msg));
	close(fd);
	if (ret)
		evt_errf(err, EVT_TRACE_ERRLEN, "%s: %s", path, msg);
	return ret;
}

/* @dir's metadata parsed into t->md; its text kept in *@keep when asked. */
static int read_metadata_of(struct evt_trace *t, const char *dir, char **keep, size_t *keep_len)
{
	char msg[EVT_TRACE_ERRLEN];
	char *text;
	size_t len;
	int ret;

	if (read_metadata_text(dir, &text, &len, t->err))
		return -1;
	ret = evt_metadata_parse(text, len, &t->md, msg, sizeof(msg));
	if (ret)
		evt_errf(t->err, sizeof(t->err), "%s/metadata: %s", dir, msg);
	if (keep && !ret) {
		*keep = text;
		*keep_len = len;
	} else {
		free(text);
	}
	return ret;
}

static int read_metadata(struct evt_trace *t)
{
	return read_metadata_of(t, t->dir, NULL, NULL);
}

/* Map a stream file and index its packets: 0, or -1 with @err. */
static int open_stream(const struct evt_trace *t, struct evt_stream *s, char *err)
{
	char path[4096];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", t->dir, s->name);
	if (open_regular(err, path, &fd, &s->size))
		return -1;
	if (s->size) {
		void *p = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			evt_errf(err, EVT_TRACE_ERRLEN, "%s: mmap: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		madvise(p, s->size, MADV_SEQUENTIAL);
		s->map = p;
	}
	ret = index_stream(t, s, fd, err);
	close(fd);
	return ret;
}

/*
 * A run's stream: its chunks' files mapped back to back, each at a page
 * boundary (a file's last page is zero-filled beyond its end), each
 * indexed apart. 0, or -1 with @err.
 */
static int open_run_stream(const struct evt_trace *t, struct evt_stream *s, char *err)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t total = 0;
	unsigned int i;
	uint8_t *base;

	for (i = 0; i < s->nsegs; i++) {
		s->segs[i].off = total;
		total += ((size_t)s->segs[i].size + page - 1) & ~(page - 1);
	}
	s->size = s->nsegs ? (size_t)(s->segs[s->nsegs - 1].off + s->segs[s->nsegs - 1].size) : 0;
	s->npk = 0;
	if (!total)
		return 0;
	base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		evt_errf(err, EVT_TRACE_ERRLEN, "%s/%s: mmap of %zu bytes: %s", t->dir, s->name, total,
			 strerror(errno));
		return -1;
	}
	s->map = base;
	s->map_len = total;
	for (i = 0; i < s->nsegs; i++) {
		struct evt_seg *g = &s->segs[i];
		char path[4096 + 64];
		size_t size;
		int fd, ret;

		snprintf(path, sizeof(path), "%s/%s", t->chunks[g->chunk].dir, s->name);
		if (open_regular(err, path, &fd, &size))
			return -1;
		if (size != g->size) {
			evt_errf(err, EVT_TRACE_ERRLEN, "%s: its size changed while the run was opened", path);
			close(fd);
			return -1;
		}
		if (size && mmap(base + g->off, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
			evt_errf(err, EVT_TRACE_ERRLEN, "%s: mmap: %s%s", path, strerror(errno),
				 errno == ENOMEM ? " (or the process's mappings reached vm.max_map_count)" : "");
			close(fd);
			return -1;
		}
		g->first_pk = s->npk;
		ret = index_range(t, s, fd, (size_t)g->off, size, &g->seam_lost, err);
		g->npk = s->npk - g->first_pk;
		close(fd);
		if (ret)
			return -1;
	}
	madvise(base, total, MADV_SEQUENTIAL);
	return 0;
}

/*
 * Opening the streams on threads: each takes the next stream not taken;
 * a stream's failure is kept in its own slot of errs[], and the first
 * stream (in order) that failed is the one reported, as one thread would.
 */
struct open_work {
	const struct evt_trace *t;
	char (*errs)[EVT_TRACE_ERRLEN];
	int *failed;
	atomic_uint next;
};

static void *open_worker(void *arg)
{
	struct open_work *w = arg;
	unsigned int i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->t->nr_streams)
		w->failed[i] = w->t->streams[i].segs ? open_run_stream(w->t, &w->t->streams[i], w->errs[i]) :
			       open_stream(w->t, &w->t->streams[i], w->errs[i]);
	return NULL;
}

/* Every stream opened and indexed, on up to @threads threads: 0, or -1 with t->err. */
static int open_streams(struct evt_trace *t, unsigned int threads)
{
	struct open_work w = { .t = t };
	pthread_t tid[EVT_TRACE_OPEN_THREADS];
	unsigned int n = 0, i;
	int ret = 0;

	if (!t->nr_streams)
		return 0;
	w.errs = calloc(t->nr_streams, sizeof(*w.errs));
	w.failed = calloc(t->nr_streams, sizeof(*w.failed));
	if (!w.errs || !w.failed) {
		free(w.errs);
		free(w.failed);
		evt_errf(t->err, sizeof(t->err), "out of memory");
		return -1;
	}
	atomic_init(&w.next, 0);
	if (threads > EVT_TRACE_OPEN_THREADS)
		threads = EVT_TRACE_OPEN_THREADS;
	if (threads > t->nr_streams)
		threads = t->nr_streams;
	/* This thread is one of them; a thread that cannot start is one fewer. */
	while (n + 1 < threads && !pthread_create(&tid[n], NULL, open_worker, &w))
		n++;
	open_worker(&w);
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < t->nr_streams; i++) {
		if (w.failed[i]) {
			memcpy(t->err, w.errs[i], sizeof(t->err));
			ret = -1;
			break;
		}
	}
	free(w.errs);
	free(w.failed);
	return ret;
}

char *evt_trace_dir(const char *dir)
{
	char path[4096];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s/metadata", dir);
	if ((size_t)n < sizeof(path) && lstat(path, &st) && errno == ENOENT) {
		n = snprintf(path, sizeof(path), "%s/kernel/metadata", dir);
		if ((size_t)n < sizeof(path) && !lstat(path, &st)) {
			path[n - strlen("/metadata")] = 0;
			return strdup(path);
		}
	}
	return strdup(dir);
}

/* The streams found: in order, opened, indexed, checked. 0, or -1 with t->err. */
static int open_indexed(struct evt_trace *t, const struct evt_trace_opts *o)
{
	unsigned int i;

	qsort(t->streams, t->nr_streams, sizeof(*t->streams), stream_cmp);
	t->base = UINT64_MAX;
	for (i = 0; i < t->nr_streams; i++)
		t->streams[i].id = i;
	if (open_streams(t, o ? o->threads : 1))
		return -1;
	for (i = 0; i < t->nr_streams; i++) {
		const struct evt_stream *s = &t->streams[i];

		if (s->npk && s->pk[0].begin < t->base)
			t->base = s->pk[0].begin;
		/* Times are printed as clock + offset: refuse what would wrap. */
		if (s->npk && s->max_end > UINT64_MAX - evt_trace_offset_ns(t)) {
			evt_errf(t->err, sizeof(t->err),
				 "%s/%s: timestamp_end %llu plus the clock offset %llu ns is beyond 2^64 ns",
				 t->dir, s->name, (unsigned long long)s->max_end,
				 (unsigned long long)evt_trace_offset_ns(t));
			return -1;
		}
	}
	return 0;
}

/* The stream (@chan, @cpu) of t->streams, added if new: NULL when out of memory. */
static struct evt_stream *stream_of(struct evt_trace *t, unsigned int *cap, unsigned int chan, unsigned int cpu)
{
	struct evt_stream *s;
	unsigned int i;

	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].channel == chan && t->streams[i].cpu == cpu)
			return &t->streams[i];
	if (t->nr_streams == *cap) {
		struct evt_stream *n;

		*cap = *cap ? *cap * 2 : 16;
		n = realloc(t->streams, *cap * sizeof(*n));
		if (!n)
			return NULL;
		t->streams = n;
	}
	s = &t->streams[t->nr_streams++];
	memset(s, 0, sizeof(*s));
	s->channel = chan;
	s->cpu = cpu;
	/* Canonical (no leading zeros): the same name as on disk. */
	snprintf(s->name, sizeof(s->name), "%s_%u", evt_channel_name(chan), cpu);
	return s;
}

/* ---- A run of chunks ---- */

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
static int has_own_trace(const char *dir)
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

	if (has_own_trace(dir))
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
 * it has now and a reserve for the rest of the program (threads' stacks,
 * the allocator, an HTTP server's connections).
 */
#define EVT_MAP_RESERVE 512

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
 * A run maps each chunk's stream file apart: one mapping each, and a
 * process has at most vm.max_map_count (65530 by default: 64 CPUs in 1024
 * chunks). A run that needs more is refused before anything is mapped,
 * with what to do, rather than failing on the way with ENOMEM. 0 or -1.
 */
static int check_map_count(struct evt_trace *t, const char *dir)
{
	unsigned long need = 0;
	long limit, used;
	unsigned int i, j;

	for (i = 0; i < t->nr_streams; i++)
		for (j = 0; j < t->streams[i].nsegs; j++)
			need += t->streams[i].segs[j].size ? 1 : 0;
	map_count(&limit, &used);
	if ((long)need + used + EVT_MAP_RESERVE <= limit)
		return 0;
	evt_errf(t->err, sizeof(t->err),
		 "%s: its %u chunks hold %lu stream files to map, more than vm.max_map_count (%ld) allows "
		 "with the %ld mappings in use and %d kept for the rest: read a part of the run (--from/--to, "
		 "--cpu), or raise the limit (sysctl -w vm.max_map_count=%lu)", dir, t->nr_chunks, need, limit,
		 used, EVT_MAP_RESERVE, need + (unsigned long)used + EVT_MAP_RESERVE);
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
	if (read_metadata_of(t, v[0].dir, &first_text, &first_len))
		return -1;
	for (i = 0; i < kept; i++) {
		struct dirent *de;
		DIR *d;

		if (i) {
			char *text;
			size_t len;

			if (read_metadata_text(v[i].dir, &text, &len, t->err))
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
			int r = parse_stream_name(de->d_name, &chan, &cpu);

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
			s = stream_of(t, &cap, chan, cpu);
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
		}
		closedir(d);
	}
	if (!t->nr_streams) {
		evt_errf(t->err, sizeof(t->err), "%s: no stream file of the CPUs asked for in its chunks", dir);
		goto out;
	}
	if (check_map_count(t, dir))
		goto out;
	ret = open_indexed(t, o);
out:
	free(first_text);
	return ret;
}

int evt_trace_open(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o)
{
	struct dirent *de;
	DIR *d;
	unsigned int cap = 0;
	uint8_t cpus_seen[EVT_MAX_CPUS / 8] = { 0 };	/* of every stream file, before --cpu */
	int any_stream = 0;

	memset(t, 0, sizeof(*t));
	if (!has_own_trace(dir)) {
		struct evt_chunk_ref *v;
		char bad[256];
		int n = list_chunks(dir, &v, bad, sizeof(bad));

		if (n < 0 && errno == EINVAL) {
			evt_errf(t->err, sizeof(t->err),
				 "%s/%.80s: not a chunk name evdrain writes (BEGIN-END-SEQ, SEQ without leading "
				 "zeros): rename or remove it", dir, bad);
			return -1;
		}

		if (n > 0) {
			t->dir = strdup(dir);
			if (!t->dir) {
				evt_errf(t->err, sizeof(t->err), "out of memory");
				while (n)
					free(v[--n].dir);
				free(v);
				return -1;
			}
			if (open_run(t, dir, o, v, (unsigned int)n))
				goto fail;
			return 0;
		}
	}
	t->dir = evt_trace_dir(dir);
	if (!t->dir) {
		evt_errf(t->err, sizeof(t->err), "out of memory");
		return -1;
	}
	dir = t->dir;
	d = opendir(dir);
	if (!d) {
		evt_errf(t->err, sizeof(t->err), "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (read_metadata(t)) {
		closedir(d);
		goto fail;
	}
	while ((de = readdir(d))) {
		unsigned int chan, cpu;
		struct evt_stream *s;
		int r = parse_stream_name(de->d_name, &chan, &cpu);

		if (r == -2) {
			evt_errf(t->err, sizeof(t->err),
				 "%s/%.64s: not a stream file name evtrace writes (compact_N or normal_N, "
				 "N a CPU below %u without leading zeros): rename or remove it",
				 dir, de->d_name, EVT_MAX_CPUS);
			closedir(d);
			goto fail;
		}
		if (r)
			continue;
		any_stream = 1;
		cpus_seen[cpu / 8] |= (uint8_t)(1U << (cpu % 8));
		if (o && o->cpu_set && (cpu >= o->cpu_set_bits ||
					!(o->cpu_set[cpu / 8] & (1U << (cpu % 8)))))
			continue;
		s = stream_of(t, &cap, chan, cpu);
		if (!s) {
			closedir(d);
			evt_errf(t->err, sizeof(t->err), "out of memory");
			goto fail;
		}
	}
	closedir(d);
	if (!t->nr_streams) {
		char found[512];

		if (any_stream) {
			list_cpus(cpus_seen, found, sizeof(found));
			evt_errf(t->err, sizeof(t->err), "%s: no stream file of the CPUs asked for (it has CPUs %s)",
				 dir, found);
		} else {
			list_entries(dir, found, sizeof(found));
			evt_errf(t->err, sizeof(t->err),
				 "%s: no stream files (compact_N, normal_N) beside the metadata; it holds %s",
				 dir, found);
		}
		goto fail;
	}
	t->writer_pid = evt_trace_writer(dir);
	if (open_indexed(t, o))
		goto fail;
	return 0;
fail:
	{
		char msg[EVT_TRACE_ERRLEN];

		memcpy(msg, t->err, sizeof(msg));
		evt_trace_close(t);
		memcpy(t->err, msg, sizeof(msg));
	}
	return -1;
}

void evt_trace_close(struct evt_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->nr_streams; i++) {
		struct evt_stream *s = &t->streams[i];

		if (s->map && !s->shared)
			munmap((void *)s->map, s->map_len ? s->map_len : s->size);
		if (!s->shared) {
			free(s->pk);
			free(s->segs);
		}
		free(s->ev);
	}
	free(t->streams);
	free(t->dir);
	if (!t->is_clone) {
		for (i = 0; i < t->nr_chunks; i++)
			free(t->chunks[i].dir);
		free(t->chunks);
	}
	t->chunks = NULL;
	t->nr_chunks = 0;
	if (!t->is_clone)
		evt_metadata_free(&t->md);
	t->streams = NULL;
	t->dir = NULL;
	t->nr_streams = 0;
}

int evt_trace_clone(struct evt_trace *dst, const struct evt_trace *src)
{
	unsigned int i;

	memcpy(dst, src, sizeof(*dst));
	dst->is_clone = 1;
	dst->streams = NULL;
	dst->dir = strdup(src->dir);
	if (src->nr_streams)
		dst->streams = calloc(src->nr_streams, sizeof(*dst->streams));
	if (!dst->dir || (src->nr_streams && !dst->streams)) {
		free(dst->dir);
		free(dst->streams);
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	for (i = 0; i < src->nr_streams; i++) {
		struct evt_stream *d = &dst->streams[i];
		const struct evt_stream *s = &src->streams[i];

		/* Identity, mapping, index and accounting; fresh cursors. */
		memcpy(d, s, offsetof(struct evt_stream, ipk));
		d->packets = s->packets;
		d->discarded = s->discarded;
		d->seq_first = s->seq_first;
		d->seq_gaps = s->seq_gaps;
		d->first_ts = s->first_ts;
		d->end_ts = s->end_ts;
		d->min_end = s->min_end;
		d->max_end = s->max_end;
		d->shared = 1;
	}
	return 0;
}

/* ---- Decoding a stream, one packet at a time ---- */

void evt_stream_error(const struct evt_trace *t, const struct evt_stream *s, char *buf, size_t len,
		      size_t off, const struct evt_decode_err *e)
{
	char file[4096 + 64];
	unsigned int i;

	snprintf(file, sizeof(file), "%s/%s", t->dir, s->name);
	/* A run of chunks: the chunk's file, and the offset in it. */
	for (i = s->nsegs; i-- > 0;) {
		if (off >= s->segs[i].off) {
			snprintf(file, sizeof(file), "%s/%s", t->chunks[s->segs[i].chunk].dir, s->name);
			off -= (size_t)s->segs[i].off;
			break;
		}
	}
	evt_decode_format(buf, len, file, off, e);
}

/* The index stops at a bad packet header: the error waits for the reader. */
static void index_stop(const struct evt_trace *t, struct evt_stream *s, size_t off,
		       const struct evt_decode_err *e)
{
	evt_stream_error(t, s, s->tail_errmsg, sizeof(s->tail_errmsg), off, e);
	s->tail_err = 1;
}

/* The same for what only a whole file can say (stream, CPU, uuid, sequence). */
static void index_fail(const struct evt_trace *t, struct evt_stream *s, size_t off,
		       enum evt_derr code, uint64_t a, uint64_t b)
{
	struct evt_decode_err e = { .code = code, .a = a, .b = b, .cpu = s->cpu, .desc = -1 };

	index_stop(t, s, off, &e);
}

/*
 * Pages this far behind the packet being read are given back, in pieces of
 * at least EVT_RELEASE_STEP: the reader's resident memory stays bounded on a
 * trace of any size (without it, every page read stays mapped until the
 * trace is closed: a 1 GB trace took 0.9 GB of RSS). A reference into a
 * page given back still reads right: the page faults in again from the file.
 */
#define EVT_RELEASE_LAG		(256UL << 10)
#define EVT_RELEASE_STEP	(2UL << 20)

static void release_behind(struct evt_stream *s, size_t off)
{
	if (off >= s->released + EVT_RELEASE_LAG + EVT_RELEASE_STEP) {
		const size_t upto = (off - EVT_RELEASE_LAG) & ~(size_t)(EVT_RELEASE_STEP - 1);

		/* Read-only and unmodified: dropping the pages loses nothing. */
		madvise((void *)(uintptr_t)(s->map + s->released), upto - s->released, MADV_DONTNEED);
		s->released = upto;
	}
}

/*
 * Index the packets of one file of a stream from their headers, the file
 * mapped at @base in the stream's mapping (0, or a run's chunk at its
 * place). Stops at the first bad one: the error is kept for when the
 * reader reaches it. 0, or -1 when out of memory (@err).
 */
static int index_range(const struct evt_trace *t, struct evt_stream *s, int fd, size_t base, size_t size,
		       uint64_t *seam_lost, char *err)
{
	size_t off = 0;
	const struct evt_packet_header *h;
	struct evt_packet_info pi;
	struct evt_decode_err e;

	h = &pi.h;
	while (off < size && !s->tail_err) {
		uint8_t hdr[EVT_PACKET_HEADER_SIZE];
		/* Headers are read, not mapped: the index leaves no page resident. */
		ssize_t got = pread(fd, hdr, sizeof(hdr), (off_t)off);
		size_t left = size - off;

		/* A file cut short since it was mapped ends here. */
		if (got < (ssize_t)sizeof(hdr) && (got < 0 || (size_t)got < left))
			left = got < 0 ? 0 : (size_t)got;
		if (evt_packet_check(hdr, left, &pi, &e)) {
			/* The file ends inside a packet that its writer is writing now. */
			if (t->writer_pid && (e.code == EVT_DERR_PKT_SHORT || e.code == EVT_DERR_PKT_TRUNCATED)) {
				s->partial_tail = left;
				break;
			}
			index_stop(t, s, base + off, &e);
			break;
		}
		if (h->stream_id != s->channel) {
			index_fail(t, s, base + off, EVT_DERR_PKT_WRONG_STREAM, h->stream_id, s->channel);
			break;
		}
		if (h->cpu_id != s->cpu || h->stream_instance_id != s->cpu) {
			index_fail(t, s, base + off, EVT_DERR_PKT_WRONG_CPU, h->cpu_id, h->stream_instance_id);
			break;
		}
		if (t->md.has_uuid && memcmp(h->uuid, t->md.uuid, 16)) {
			index_fail(t, s, base + off, EVT_DERR_PKT_UUID, 0, 0);
			break;
		}
		if (s->npk) {
			const struct evt_pkt *prev = &s->pk[s->npk - 1];

			if (h->packet_seq_num <= s->last_seq) {
				index_fail(t, s, base + off, EVT_DERR_PKT_SEQ, h->packet_seq_num, s->last_seq);
				break;
			}
			/* s->discarded: the previous packet's running total. */
			if (h->events_discarded < s->discarded) {
				index_fail(t, s, base + off, EVT_DERR_PKT_DISCARDED_BACK, h->events_discarded,
					   s->discarded);
				break;
			}
			/* Time never goes back in a stream: not across packets (or chunks) either. */
			if (h->timestamp_begin < prev->end) {
				index_fail(t, s, base + off, EVT_DERR_PKT_TIME_BACK, h->timestamp_begin, prev->end);
				break;
			}
			s->seq_gaps += h->packet_seq_num - s->last_seq - 1;
			if (seam_lost && !off)
				*seam_lost = h->packet_seq_num - s->last_seq - 1;
		} else {
			s->seq_first = h->packet_seq_num;
			s->first_ts = h->timestamp_begin;
		}
		if (s->npk == s->pk_cap) {
			uint32_t cap = s->pk_cap ? s->pk_cap * 2 : 64;
			struct evt_pkt *n = realloc(s->pk, cap * sizeof(*n));

			if (!n) {
				evt_errf(err, EVT_TRACE_ERRLEN, "%s/%s: out of memory", t->dir, s->name);
				return -1;
			}
			s->pk = n;
			s->pk_cap = cap;
		}
		s->pk[s->npk].off = base + off;
		s->pk[s->npk].begin = h->timestamp_begin;
		s->pk[s->npk].end = h->timestamp_end;
		s->pk[s->npk].content = pi.content_bytes;
		s->npk++;
		s->discarded = h->events_discarded;
		s->end_ts = h->timestamp_end;
		if (s->npk == 1 || h->timestamp_end < s->min_end)
			s->min_end = h->timestamp_end;
		if (h->timestamp_end > s->max_end)
			s->max_end = h->timestamp_end;
		s->last_seq = h->packet_seq_num;
		off += pi.packet_bytes;
	}
	s->packets = s->npk;
	return 0;
}

static int index_stream(const struct evt_trace *t, struct evt_stream *s, int fd, char *err)
{
	s->npk = 0;
	s->min_end = s->max_end = 0;
	return index_range(t, s, fd, 0, s->size, NULL, err);
}

void evt_stream_load_packet(struct evt_stream *s)
{
	const struct evt_pkt *k = &s->pk[s->ipk++];

	memcpy(&s->pi.h, s->map + k->off, sizeof(s->pi.h));
	s->pi.content_bytes = (size_t)k->content;
	s->pi.packet_bytes = (size_t)(s->pi.h.packet_size / 8);
	s->pkt_off = (size_t)k->off;
	release_behind(s, s->pkt_off);
}

void evt_stream_seek(struct evt_stream *s, uint64_t ts)
{
	uint32_t lo = 0, hi = s->npk;

	/* Packet ends never go back: the first one ending at or after ts. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->pk[mid].end < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	s->ipk = lo;
	s->n = s->i = 0;
	s->err = s->eof = 0;
}

/* Room for @need events (+ two look-ahead slots) in ev[]. */
static int grow(struct evt_stream *s, uint32_t need)
{
	struct evt_decoded *ev;

	if (need + 2 <= s->cap)
		return 0;
	ev = malloc(((size_t)need + 2) * sizeof(*ev));
	if (!ev)
		return -1;
	free(s->ev);
	s->ev = ev;
	s->cap = need + 2;
	return 0;
}

/*
 * Decode the current packet's events into s->ev[]: the rules of
 * evt_packet_next(), with a fast path for small compact headers of
 * fixed-size events. Returns 0, or -1 (s->n events decoded before the error).
 */
static int decode_packet(struct evt_trace *t, struct evt_stream *s)
{
	const uint8_t *pkt = s->map + s->pkt_off;
	const size_t end = s->pi.content_bytes;
	const uint64_t tend = s->pi.h.timestamp_end;
	const unsigned int chan = s->channel;
	const struct evt_catalogue *const cat = t->md.cat;
	size_t pos = EVT_PACKET_HEADER_SIZE;
	uint64_t prev = s->pi.h.timestamp_begin;
	struct evt_decoded *ev;
	uint32_t n = 0;
	int ret = 0;

	s->n = s->i = 0;
	if (grow(s, (uint32_t)((end - EVT_PACKET_HEADER_SIZE) / EVT_EVENT_ALIGN + 1))) {
		struct evt_decode_err e = { .code = EVT_DERR_NOMEM, .desc = -1 };

		evt_stream_error(t, s, s->errmsg, sizeof(s->errmsg), s->pkt_off, &e);
		return -1;
	}
	ev = s->ev;
	while (pos < end) {
		size_t next;

		struct evt_decoded *e = ev + n;

		pos = chan == EVT_CHAN_COMPACT ? evt_decode_compact_run(cat, pkt, pos, end, &prev, tend, &e) :
		      evt_decode_normal_run(cat, pkt, pos, end, &prev, tend, &e);
		n = (uint32_t)(e - ev);
		if (pos >= end)
			break;
		/* The general rules, for one event. */
		if (evt_stream_decode_one(t, s, pkt, pos, end, tend, prev, &ev[n], &next)) {
			ret = -1;
			break;
		}
		prev = ev[n].ts;
		n++;
		pos = next;
	}
	/* The merge's look-ahead reads two slots past the end. */
	memset(ev + n, 0, 2 * sizeof(*ev));
	s->n = n;
	s->events += n;
	return ret;
}

int evt_stream_fill(struct evt_trace *t, struct evt_stream *s)
{
	while (s->i >= s->n) {
		if (s->err)
			return -1;
		if (s->eof)
			return 0;
		s->n = s->i = 0;
		if (s->ipk >= s->npk) {
			if (s->tail_err) {
				memcpy(s->errmsg, s->tail_errmsg, sizeof(s->errmsg));
				s->err = 1;
				return -1;
			}
			s->eof = 1;
			return 0;
		}
		evt_stream_load_packet(s);
		if (decode_packet(t, s))
			s->err = 1;
	}
	return 1;
}

/* ---- A stream file cut while mapped ---- */

static const struct evt_trace *volatile bus_trace;
static const char *volatile bus_prog;

/* Async-signal-safe: @s to stderr. */
static void bus_put(const char *s)
{
	ssize_t r = write(STDERR_FILENO, s, strlen(s));

	(void)r;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const struct evt_trace *t = bus_trace;
	const uint8_t *a = si->si_addr;
	unsigned int i;

	(void)sig;
	(void)uc;
	for (i = 0; t && i < t->nr_streams; i++) {
		const struct evt_stream *s = &t->streams[i];

		if (s->map && a >= s->map && a < s->map + s->size) {
			char num[24], *q = num + sizeof(num) - 1;
			size_t off = (size_t)(a - s->map);

			*q = 0;
			do
				*--q = (char)('0' + off % 10);
			while ((off /= 10));
			bus_put(bus_prog);
			bus_put(": ");
			bus_put(t->dir);
			bus_put("/");
			bus_put(s->name);
			bus_put(": the file was cut while it was read (byte ");
			bus_put(q);
			bus_put(" is gone): it is being written over or truncated; read it again once "
				"it is complete\n");
			_exit(1);
		}
	}
	/* Not a trace file: the default action, as without the handler. */
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

int evt_trace_catch_cut(const struct evt_trace *t, const char *prog)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	bus_prog = prog;
	bus_trace = t;
	return sigaction(SIGBUS, &sa, NULL);
}

/* ---- A trace being written ---- */

/* Someone holds an flock on the file @st is of (/proc/locks): 1 or 0. */
static int flock_held(const struct stat *st)
{
	char line[256], dev[64];
	FILE *f = fopen("/proc/locks", "r");
	int held = 0;

	if (!f)
		return 0;
	snprintf(dev, sizeof(dev), " %02x:%02x:%llu ", major(st->st_dev), minor(st->st_dev),
		 (unsigned long long)st->st_ino);
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's has "->". */
	while (!held && fgets(line, sizeof(line), f))
		held = strstr(line, " FLOCK ") && !strstr(line, "->") && strstr(line, dev);
	fclose(f);
	return held;
}

long evt_trace_writer(const char *dir)
{
	static const char *const locks[] = EVT_WRITER_LOCKS;
	char want[4096], buf[4200], *nl;
	unsigned int i;

	if (!realpath(dir, want))
		return 0;
	for (i = 0; i < sizeof(locks) / sizeof(locks[0]); i++) {
		int fd = open(locks[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat st;
		ssize_t n;
		long pid;

		if (fd < 0)
			continue;
		/* Read, never locked here: a reader must not keep evdrain from starting. */
		n = fstat(fd, &st) || !S_ISREG(st.st_mode) ? -1 : read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		pid = strtol(buf, &nl, 10);
		if (pid <= 0 || *nl != '\n')
			continue;
		nl++;
		if (!strncmp(nl, want, strlen(want)) && nl[strlen(want)] == '\n' && flock_held(&st))
			return pid;
	}
	return 0;
}
