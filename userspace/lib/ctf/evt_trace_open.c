// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a trace (a directory, or a run of chunks through
 * evt_trace_run.c) with its streams opened and indexed on threads, and
 * closing it; see evt_trace.h. The files, names and stream table are
 * evt_trace.c's, the packet index evt_trace_pk.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctf/evt_trace_priv.h"
#include "util/evt_io.h"

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

static int stream_cmp(const void *a, const void *b)
{
	const struct evt_stream *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->channel < y->channel ? -1 : x->channel > y->channel;
}

/* What every stream's packets must say: the trace's uuid (when the metadata has one), channel and CPU. */
static void stream_ident(const struct evt_trace *t, struct evt_stream *s)
{
	memcpy(s->ident.uuid, t->md.uuid, 16);
	s->ident.has_uuid = t->md.has_uuid;
	s->ident.channel = s->channel;
	s->ident.cpu = s->cpu;
}

/* Map a stream file and index its packets: 0, or -1 with @err; an index file ignored in @warn. */
static int open_stream(const struct evt_trace *t, struct evt_stream *s, char *err, char *warn, size_t wlen)
{
	char path[4096];
	struct stat st;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", t->dir, s->name);
	if (evt_trace_open_regular(err, path, &fd, &st))
		return -1;
	s->size = (size_t)st.st_size;
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
	s->npk = 0;
	s->min_end = s->max_end = 0;
	ret = evt_trace_index_file(t, s, fd, &st, t->dir, t->md_mode, t->md_gid, 0, NULL, err, warn, wlen);
	close(fd);
	return ret;
}

/*
 * Opening the streams on threads: each takes the next stream not taken;
 * a stream's failure is kept in its own slot of errs[], and the first
 * stream (in order) that failed is the one reported, as one thread would.
 * Warnings likewise wait in their slots, said in stream order.
 */
struct open_work {
	const struct evt_trace *t;
	char (*errs)[EVT_TRACE_ERRLEN];
	char (*warns)[EVT_TRACE_ERRLEN];
	int *failed;
	atomic_uint next;
};

static void *open_worker(void *arg)
{
	struct open_work *w = arg;
	unsigned int i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->t->nr_streams) {
		struct evt_stream *s = &w->t->streams[i];

		stream_ident(w->t, s);
		w->failed[i] = s->segs ? evt_trace_open_run_stream(w->t, s, w->errs[i], w->warns[i],
								    sizeof(w->warns[i])) :
			       open_stream(w->t, s, w->errs[i], w->warns[i], sizeof(w->warns[i]));
	}
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
	w.warns = calloc(t->nr_streams, sizeof(*w.warns));
	w.failed = calloc(t->nr_streams, sizeof(*w.failed));
	if (!w.errs || !w.warns || !w.failed) {
		free(w.errs);
		free(w.warns);
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
	for (i = 0; i < t->nr_streams; i++)
		if (w.warns[i][0])
			evt_trace_warn(t, w.warns[i]);
	for (i = 0; i < t->nr_streams; i++) {
		if (w.failed[i]) {
			memcpy(t->err, w.errs[i], sizeof(t->err));
			ret = -1;
			break;
		}
	}
	free(w.errs);
	free(w.warns);
	free(w.failed);
	return ret;
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

		t->pidx_loaded += s->pidx_loaded;
		t->pidx_walked += s->pidx_walked;
		t->pidx_saved += s->pidx_saved;
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

int evt_trace_open(struct evt_trace *t, const char *dir, const struct evt_trace_opts *o)
{
	struct dirent *de;
	DIR *d;
	unsigned int cap = 0;
	uint8_t cpus_seen[EVT_MAX_CPUS / 8] = { 0 };	/* of every stream file, before --cpu */
	int any_stream = 0;

	memset(t, 0, sizeof(*t));
	if (o) {
		t->o = *o;
		t->o.cpu_set = NULL;	/* the caller's: not kept */
		t->o.cpu_set_bits = 0;
	}
	switch (evt_trace_open_run(t, dir, o)) {
	case 1:
		if (open_indexed(t, o))
			goto fail;
		return 0;
	case -1:
		goto fail;
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
	if (evt_trace_read_metadata_of(t, t->dir, NULL, NULL)) {
		closedir(d);
		goto fail;
	}
	while ((de = readdir(d))) {
		unsigned int chan, cpu;
		struct evt_stream *s;
		int r = evt_trace_parse_stream_name(de->d_name, &chan, &cpu);

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
		s = evt_trace_stream_of(t, &cap, chan, cpu);
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

		/* A clone gives its files back to the run; the original frees the lot. */
		if (s->segs && t->is_clone)
			evt_trace_run_release(t, s);
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
	if (!t->is_clone) {
		evt_metadata_free(&t->md);
		evt_trace_run_free(t);
	}
	t->streams = NULL;
	t->dir = NULL;
	t->nr_streams = 0;
}
