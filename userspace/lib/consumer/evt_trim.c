// SPDX-License-Identifier: GPL-2.0
/*
 * Trimming a saved trace to its newest packets. See evt_trim.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "consumer/evt_consumer.h"
#include "util/evt_io.h"
#include "ctf/evt_pindex.h"
#include "util/evt_safedir.h"
#include "consumer/evt_trim.h"

#define SHIFT_BUF	(1 << 20)

struct trim_pkt {
	uint64_t ts_end, bytes;
};

struct trim_stream {
	char *name;
	int fd;
	off_t size, whole;	/* the file's bytes, and those of its whole packets */
	struct trim_pkt *pkt;
	size_t n, cap;
	size_t first;		/* the first packet kept */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct trim_stream *)a)->name, ((const struct trim_stream *)b)->name);
}

/* Read one stream's packet list: 0, or -1 with err. */
static int scan_stream(const char *dir, struct trim_stream *s, char *err, size_t errlen)
{
	struct evt_packet_header h;
	struct stat st;
	uint64_t bytes;
	uint32_t magic;

	if (fstat(s->fd, &st)) {
		evt_errf(err, errlen, "%s/%s: %s", dir, s->name, strerror(errno));
		return -1;
	}
	s->size = st.st_size;
	/*
	 * Whatever does not start with a packet is no stream file: cutting it
	 * to its (no) whole packets would erase it.
	 */
	if (s->size >= (off_t)sizeof(magic) &&
	    (pread(s->fd, &magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	     magic != EVT_CTF_MAGIC)) {
		evt_errf(err, errlen, "%s/%s: not a stream file (no packet header at its start)",
			 dir, s->name);
		return -1;
	}
	while ((bytes = evt_packet_at(s->fd, s->whole, s->size, &h))) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 64;
			struct trim_pkt *p = realloc(s->pkt, cap * sizeof(*p));

			if (!p) {
				evt_errf(err, errlen, "%s/%s: out of memory", dir, s->name);
				return -1;
			}
			s->pkt = p;
			s->cap = cap;
		}
		s->pkt[s->n].ts_end = h.timestamp_end;
		s->pkt[s->n++].bytes = bytes;
		s->whole += (off_t)bytes;
	}
	return 0;
}

/* Open and scan every stream file of @dir into *@v (sorted by name): 0, or -1 with err. */
static int scan_dir(const char *dir, struct trim_stream **v, size_t *nr, char *err, size_t errlen)
{
	size_t cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		evt_errf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((errno = 0, de = readdir(d))) {
		struct trim_stream *s;
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			evt_errf(err, errlen, "%s/%s: %s", dir, de->d_name, strerror(errno));
			goto fail;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		if (*nr == cap) {
			size_t c = cap ? cap * 2 : 16;
			struct trim_stream *m = realloc(*v, c * sizeof(*m));

			if (!m) {
				evt_errf(err, errlen, "%s: out of memory", dir);
				goto fail;
			}
			*v = m;
			cap = c;
		}
		s = &(*v)[*nr];
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		s->name = strdup(de->d_name);
		if (!s->name) {
			evt_errf(err, errlen, "%s: out of memory", dir);
			goto fail;
		}
		(*nr)++;
		s->fd = openat(dirfd(d), de->d_name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (s->fd < 0) {
			evt_errf(err, errlen, "%s/%s: %s", dir, s->name, strerror(errno));
			goto fail;
		}
		if (scan_stream(dir, s, err, errlen))
			goto fail;
	}
	if (errno) {
		evt_errf(err, errlen, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	closedir(d);
	/* Ties in timestamp_end go by name: the same cut every time. */
	if (*nr)
		qsort(*v, *nr, sizeof(**v), by_name);
	return 0;
fail:
	closedir(d);
	return -1;
}

/* Move @len bytes at @from to the start of the file: 0, or -1 with errno. */
static int shift_down(int fd, off_t from, off_t len, uint8_t *buf)
{
	off_t done = 0;
	ssize_t n, m, w;

	while (done < len) {
		size_t want = (size_t)(len - done < SHIFT_BUF ? len - done : SHIFT_BUF);

		n = pread(fd, buf, want, from + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;	/* the file shrank under us */
			return -1;
		}
		for (w = 0; w < n;) {
			m = pwrite(fd, buf + w, (size_t)(n - w), done + w);
			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				if (!m)
					errno = EIO;
				return -1;
			}
			w += m;
		}
		done += n;
	}
	return 0;
}

/* Rewrite @s to its packets from s->first on: 0, or -1 with err. */
static int cut_stream(const char *dir, struct trim_stream *s, uint8_t **buf, char *err,
		      size_t errlen)
{
	off_t drop = 0;
	size_t i;

	for (i = 0; i < s->first; i++)
		drop += (off_t)s->pkt[i].bytes;
	/* Left alone: nothing to drop, not even a partial tail. */
	if (!drop && s->whole == s->size)
		return 0;
	if (drop && s->whole > drop) {
		if (!*buf && !(*buf = malloc(SHIFT_BUF))) {
			evt_errf(err, errlen, "%s/%s: out of memory", dir, s->name);
			return -1;
		}
		if (shift_down(s->fd, drop, s->whole - drop, *buf))
			goto fail;
	}
	if (ftruncate(s->fd, s->whole - drop) || fsync(s->fd))
		goto fail;
	/* Its packet index says what was there before: gone (the next reader makes one). */
	{
		char idx[320];
		int dfd = evt_beside_subdir(dir, EVT_PIDX_DIR, 0, (gid_t)-1, 0);

		snprintf(idx, sizeof(idx), "%s.idx", s->name);
		if (dfd >= 0) {
			unlinkat(dfd, idx, 0);
			close(dfd);
		}
	}
	return 0;
fail:
	evt_errf(err, errlen, "%s/%s: %s", dir, s->name, strerror(errno));
	return -1;
}

int evt_trim_trace(const char *dir, uint64_t not_before, uint64_t max_bytes,
		   struct evt_trim_result *res, char *err, size_t errlen)
{
	struct trim_stream *v = NULL;
	size_t nr = 0, i;
	uint64_t total = 0;
	uint8_t *buf = NULL;
	char path[4096];
	struct stat st;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		evt_errf(err, errlen, "%s: no metadata file: not a saved trace directory", dir);
		return -1;
	}
	if (scan_dir(dir, &v, &nr, err, errlen))
		goto out;

	/* The time cut: a stream keeps what follows its last packet ended too early. */
	for (i = 0; i < nr; i++) {
		size_t j;

		for (j = 0; j < v[i].n; j++)
			if (v[i].pkt[j].ts_end < not_before)
				v[i].first = j + 1;
		for (j = v[i].first; j < v[i].n; j++)
			total += v[i].pkt[j].bytes;
	}
	/* The size cut: the oldest first packet of any stream goes first. */
	while (max_bytes && total > max_bytes) {
		struct trim_stream *old = NULL;

		for (i = 0; i < nr; i++)
			if (v[i].first < v[i].n &&
			    (!old || v[i].pkt[v[i].first].ts_end < old->pkt[old->first].ts_end))
				old = &v[i];
		total -= old->pkt[old->first++].bytes;
	}

	for (i = 0; i < nr; i++) {
		const struct trim_stream *s = &v[i];
		uint64_t kept = 0;
		size_t j;

		if (cut_stream(dir, &v[i], &buf, err, errlen))
			goto out;
		for (j = s->first; j < s->n; j++)
			kept += s->pkt[j].bytes;
		res->packets_kept += s->n - s->first;
		res->packets_dropped += s->first;
		res->bytes_kept += kept;
		res->bytes_dropped += (uint64_t)s->size - kept;
	}
	ret = 0;
out:
	for (i = 0; i < nr; i++) {
		if (v[i].fd >= 0)
			close(v[i].fd);
		free(v[i].name);
		free(v[i].pkt);
	}
	free(v);
	free(buf);
	return ret;
}
