// SPDX-License-Identifier: GPL-2.0
/*
 * The trace reader's ground floor (see evt_trace.h): stream file names,
 * opening a file of the trace, its metadata, the stream table, messages
 * that name a stream's file and offset, clones, a file cut while mapped,
 * the writer at work. It calls none of the reader's other files: opening
 * is evt_trace_open.c's, the packet index and decoding evt_trace_pk.c's,
 * runs of chunks evt_trace_run.c's, their mappings evt_trace_maps.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "ctf/evt_trace_priv.h"
#include "format/evt_format.h"
#include "util/evt_io.h"

/* ---- Names, files, metadata ---- */

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

/* ---- Messages ---- */

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

