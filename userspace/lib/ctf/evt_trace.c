// SPDX-License-Identifier: GPL-2.0
/*
 * Trace directory reader: opening a directory, the streams on threads,
 * per-stream decoding, cut files, writers; see evt_trace.h. The packet
 * index is evt_trace_pk.c's, runs of chunks evt_trace_run.c's.
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
#include "ctf/evt_trace_priv.h"
#include "chunk/evt_chunk.h"
#include "format/evt_format.h"
#include "util/evt_io.h"

/* ---- Opening ---- */

/*
 * A stream file's name, CHANNEL_CPU as evdrain writes it (the CPU in
 * decimal without leading zeros, below EVT_MAX_CPUS): 0 with *@chan and
 * *@cpu; -1 for a name that is not a stream's; -2 for one that starts
 * like a stream's and is not one (compact_00, normal_99999999,
 * compact_1.bak): the reader refuses those rather than skip a stream.
 */
int evt_trace_parse_stream_name(const char *name, unsigned int *chan, unsigned int *cpu)
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

static int stream_cmp(const void *a, const void *b)
{
	const struct evt_stream *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->channel < y->channel ? -1 : x->channel > y->channel;
}

/*
 * Open a file of the trace for reading: 0 with *@fd and *@st, or -1 with
 * @err. O_NONBLOCK: a FIFO in its place must not hang the open.
 */
int evt_trace_open_regular(char *err, const char *path, int *fd, struct stat *st)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		evt_errf(err, EVT_TRACE_ERRLEN, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(*fd, st) || !S_ISREG(st->st_mode)) {
		evt_errf(err, EVT_TRACE_ERRLEN, "%s: not a regular file", path);
		close(*fd);
		return -1;
	}
	return 0;
}

int evt_trace_read_metadata_text(const char *dir, char **text, size_t *len, struct stat *st, char *err)
{
	char path[4096], msg[EVT_TRACE_ERRLEN];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (evt_trace_open_regular(err, path, &fd, st))
		return -1;
	ret = evt_metadata_read(fd, text, len, msg, sizeof(msg));
	close(fd);
	if (ret)
		evt_errf(err, EVT_TRACE_ERRLEN, "%s: %s", path, msg);
	return ret;
}

int evt_trace_read_metadata_of(struct evt_trace *t, const char *dir, char **keep, size_t *keep_len)
{
	char msg[EVT_TRACE_ERRLEN];
	struct stat st;
	char *text;
	size_t len;
	int ret;

	if (evt_trace_read_metadata_text(dir, &text, &len, &st, t->err))
		return -1;
	t->md_mode = st.st_mode & 0777;
	t->md_gid = st.st_gid;
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

void evt_trace_warn(const struct evt_trace *t, const char *msg)
{
	char esc[2 * EVT_TRACE_ERRLEN];

	if (t->o.warn) {
		t->o.warn(t->o.warn_data, msg);
		return;
	}
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, evt_fmt_esc(esc, sizeof(esc), msg));
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
int evt_trace_open_indexed(struct evt_trace *t, const struct evt_trace_opts *o)
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

/* The stream (@chan, @cpu) of t->streams, added if new: NULL when out of memory. */
struct evt_stream *evt_trace_stream_of(struct evt_trace *t, unsigned int *cap, unsigned int chan, unsigned int cpu)
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
	if (evt_trace_open_indexed(t, o))
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
		d->hold[0] = d->hold[1] = -1;
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
		if (evt_stream_load_packet(t, s) || decode_packet(t, s))
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

