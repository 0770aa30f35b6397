// SPDX-License-Identifier: GPL-2.0
/*
 * A run of chunks read as one trace (evt_trace.h): each stream is its
 * chunks' files one after another, each at a page boundary of one address
 * reservation, so that the rest of the reader sees one file per stream.
 * The files are indexed at open (their index files, or their headers by
 * pread) and mapped only when a reader first reads a packet of theirs
 * (evt_trace_maps.c), within vm.max_map_count.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctf/evt_trace_priv.h"
#include "chunk/evt_chunk.h"
#include "util/evt_io.h"

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
	if (evt_trace_run_maps_init(t, dir))
		goto out;
	ret = 0;
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
		if (evt_trace_run_same_file(g, &st, path, err, EVT_TRACE_ERRLEN)) {
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

