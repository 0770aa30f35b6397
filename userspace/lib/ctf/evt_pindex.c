// SPDX-License-Identifier: GPL-2.0
/* Packet index files: see evt_pindex.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "ctf/evt_pindex.h"
#include "util/evt_safedir.h"

static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32_z(0, p, n);
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

uint64_t evt_pidx_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void put_head(uint8_t *b, const struct evt_pidx_ident *id, const struct stat *sealed, uint64_t sealed_at,
		     int stopped)
{
	memset(b, 0, EVT_PIDX_HEAD);
	memcpy(b, EVT_PIDX_MAGIC, 8);
	put32(b + 8, EVT_PIDX_VERSION);
	put32(b + 12, EVT_PIDX_ENTRY);
	memcpy(b + 16, id->uuid, 16);
	put32(b + 32, id->channel);
	put32(b + 36, id->cpu);
	if (sealed) {
		put64(b + 40, (uint64_t)sealed->st_size);
		put64(b + 48, mtime_ns(sealed));
		put64(b + 56, sealed_at);
		put32(b + 64, EVT_PIDX_SEALED | (stopped ? EVT_PIDX_STOPPED : 0));
	}
	put32(b + 76, crc(b, 76));
}

int evt_pidx_settled(const struct stat *st, uint64_t at)
{
	return at >= mtime_ns(st) + EVT_PIDX_SETTLE_NS;
}

static void put_entry(uint8_t *b, uint32_t packet_bytes, uint32_t content_bytes, uint64_t begin, uint64_t end,
		      uint64_t seq, uint64_t discarded)
{
	put32(b, packet_bytes);
	put32(b + 4, content_bytes);
	put64(b + 8, begin);
	put64(b + 16, end);
	put64(b + 24, seq);
	put64(b + 32, discarded);
	put32(b + 40, crc(b, 40));
	put32(b + 44, 0);
}

/* Bytes an index of a stream of @size bytes can be, at most: a packet is at least its header. */
static uint64_t max_len(uint64_t size)
{
	return EVT_PIDX_HEAD + EVT_PIDX_ENTRY * (size / EVT_PACKET_HEADER_SIZE + 1);
}

/*
 * Parse the index @b (@len bytes) against the stream @st: EVT_PIDX_OK with
 * @out, else the reason in @why (NONE: another version).
 */
static enum evt_pidx_status parse(const uint8_t *b, size_t len, const struct stat *st,
				  const struct evt_pidx_ident *id, struct evt_pidx *out, char *why, size_t wl)
{
	const uint64_t size = (uint64_t)st->st_size;
	uint64_t n, k, off = 0;
	uint32_t flags;
	int stopped;

	if (len < EVT_PIDX_HEAD || memcmp(b, EVT_PIDX_MAGIC, 8)) {
		snprintf(why, wl, "not a packet index");
		return EVT_PIDX_BAD;
	}
	if (get32(b + 8) != EVT_PIDX_VERSION || get32(b + 12) != EVT_PIDX_ENTRY)
		return EVT_PIDX_NONE;
	if (get32(b + 76) != crc(b, 76)) {
		snprintf(why, wl, "its header's checksum does not match");
		return EVT_PIDX_BAD;
	}
	if ((id->has_uuid && memcmp(b + 16, id->uuid, 16)) || get32(b + 32) != id->channel || get32(b + 36) != id->cpu) {
		snprintf(why, wl, "the index of another stream (uuid, channel or CPU)");
		return EVT_PIDX_BAD;
	}
	flags = get32(b + 64);
	out->sealed = !!(flags & EVT_PIDX_SEALED);
	stopped = out->sealed && (flags & EVT_PIDX_STOPPED);
	/* Sealed before the stream settled: a rewrite in the same clock tick would not show. Walked again. */
	if (out->sealed && get64(b + 56) < get64(b + 48) + EVT_PIDX_SETTLE_NS)
		return EVT_PIDX_NONE;
	if (out->sealed && (get64(b + 40) != size || get64(b + 48) != mtime_ns(st))) {
		snprintf(why, wl, "the stream file changed since it was indexed (%llu bytes then, %llu now%s)",
			 (unsigned long long)get64(b + 40), (unsigned long long)size,
			 get64(b + 40) == size ? "; its mtime differs" : "");
		return EVT_PIDX_BAD;
	}
	n = (len - EVT_PIDX_HEAD) / EVT_PIDX_ENTRY;
	if (out->sealed && (len - EVT_PIDX_HEAD) % EVT_PIDX_ENTRY) {
		snprintf(why, wl, "cut inside an entry (%zu bytes)", len);
		return EVT_PIDX_BAD;
	}
	out->pk = malloc((n ? n : 1) * sizeof(*out->pk));
	if (!out->pk) {
		snprintf(why, wl, "out of memory");
		return EVT_PIDX_BAD;
	}
	for (k = 0; k < n; k++) {
		const uint8_t *e = b + EVT_PIDX_HEAD + k * EVT_PIDX_ENTRY;
		struct evt_pidx_pkt *p = &out->pk[k];

		if (get32(e + 40) != crc(e, 40)) {
			/* The last entry of an index still being written may be half there. */
			if (!out->sealed && k + 1 == n)
				break;
			snprintf(why, wl, "the checksum of entry %llu does not match", (unsigned long long)k);
			goto bad;
		}
		p->off = off;
		p->packet_bytes = get32(e);
		p->content_bytes = get32(e + 4);
		p->begin = get64(e + 8);
		p->end = get64(e + 16);
		p->seq = get64(e + 24);
		p->discarded = get64(e + 32);
		if (p->packet_bytes < EVT_PACKET_HEADER_SIZE || p->content_bytes < EVT_PACKET_HEADER_SIZE ||
		    p->content_bytes > p->packet_bytes || p->begin > p->end) {
			snprintf(why, wl, "entry %llu is no packet's", (unsigned long long)k);
			goto bad;
		}
		if (p->packet_bytes > size - off) {
			snprintf(why, wl, "entry %llu lies beyond the stream file's %llu bytes", (unsigned long long)k,
				 (unsigned long long)size);
			goto bad;
		}
		off += p->packet_bytes;
	}
	out->n = (uint32_t)k;
	/* Whole, or (stopped) short of a bad header, which the walk then meets again. */
	if (out->sealed && (stopped ? off >= size : off != size)) {
		snprintf(why, wl, "it covers %llu of the stream file's %llu bytes", (unsigned long long)off,
			 (unsigned long long)size);
		goto bad;
	}
	return EVT_PIDX_OK;
bad:
	free(out->pk);
	out->pk = NULL;
	out->n = 0;
	return EVT_PIDX_BAD;
}

/* The file @fname in the directory @dfd: NONE when there is none. */
static enum evt_pidx_status load_at(int dfd, const char *fname, const struct stat *st,
				    const struct evt_pidx_ident *id, struct evt_pidx *out, char *why, size_t wl)
{
	struct stat ist;
	uint8_t *b;
	size_t got = 0;
	enum evt_pidx_status r;
	int fd = openat(dfd, fname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return EVT_PIDX_NONE;
		snprintf(why, wl, errno == ELOOP ? "a symbolic link" : "%s", strerror(errno));
		return EVT_PIDX_BAD;
	}
	if (fstat(fd, &ist) || !S_ISREG(ist.st_mode)) {
		close(fd);
		snprintf(why, wl, "not a regular file");
		return EVT_PIDX_BAD;
	}
	/* Made, and its writer gone before its first packet's entry: as none. */
	if (!ist.st_size) {
		close(fd);
		return EVT_PIDX_NONE;
	}
	/* Bounded by what it indexes: a sparse 2 GB file is not read. */
	if ((uint64_t)ist.st_size > max_len((uint64_t)st->st_size)) {
		close(fd);
		snprintf(why, wl, "%llu bytes, more than the index of a %llu-byte stream can be",
			 (unsigned long long)ist.st_size, (unsigned long long)st->st_size);
		return EVT_PIDX_BAD;
	}
	b = malloc((size_t)ist.st_size + 1);
	if (!b) {
		close(fd);
		snprintf(why, wl, "out of memory");
		return EVT_PIDX_BAD;
	}
	/* One sequential read. */
	while (got < (size_t)ist.st_size) {
		ssize_t n = pread(fd, b + got, (size_t)ist.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	r = parse(b, got, st, id, out, why, wl);
	free(b);
	return r;
}

enum evt_pidx_status evt_pidx_load(const struct evt_pidx_place *pl, const char *name, const struct stat *st,
				   const struct evt_pidx_ident *id, struct evt_pidx *out, char *why,
				   size_t whylen)
{
	char fname[300], where[4096], msg[512];
	enum evt_pidx_status ret = EVT_PIDX_NONE;
	int place;

	memset(out, 0, sizeof(*out));
	if ((size_t)snprintf(fname, sizeof(fname), "%s.idx", name) >= sizeof(fname))
		return EVT_PIDX_NONE;
	for (place = 0; place < 2; place++) {
		enum evt_pidx_status r;
		int dfd;

		if (!place) {
			snprintf(where, sizeof(where), "%s/" EVT_PIDX_DIR, pl->dir);
			dfd = evt_beside_subdir(pl->dir, EVT_PIDX_DIR, pl->trace_mode, pl->trace_gid, 0);
			/* A link where the directory should be is someone's trap: said, not read. */
			if (dfd < 0 && (errno == ELOOP || errno == ENOTDIR) && ret == EVT_PIDX_NONE) {
				snprintf(why, whylen, "%s: a symbolic link or not a directory, not read", where);
				ret = EVT_PIDX_BAD;
			}
		} else {
			char *real = realpath(pl->dir, NULL);

			dfd = real ? evt_cache_subdir(pl->cache_base, "index", real, 0, where, sizeof(where)) : -1;
			free(real);
		}
		if (dfd < 0)
			continue;
		r = load_at(dfd, fname, st, id, out, msg, sizeof(msg));
		close(dfd);
		if (r == EVT_PIDX_OK) {
			snprintf(out->where, sizeof(out->where), "%s/%s", where, fname);
			return r;
		}
		if (r == EVT_PIDX_BAD && ret == EVT_PIDX_NONE) {
			snprintf(why, whylen, "%s/%s: %s", where, fname, msg);
			ret = r;
		}
	}
	return ret;
}

void evt_pidx_free(struct evt_pidx *x)
{
	free(x->pk);
	x->pk = NULL;
	x->n = 0;
}

int evt_pidx_matches(const struct evt_pidx_pkt *p, const struct evt_packet_header *h,
		     const struct evt_pidx_ident *id)
{
	return h->magic == EVT_CTF_MAGIC && (!id->has_uuid || !memcmp(h->uuid, id->uuid, 16)) && h->stream_id == id->channel &&
	       h->stream_instance_id == id->cpu && h->cpu_id == id->cpu && h->timestamp_begin == p->begin &&
	       h->timestamp_end == p->end && h->content_size == (uint64_t)p->content_bytes * 8 &&
	       h->packet_size == (uint64_t)p->packet_bytes * 8 && h->packet_seq_num == p->seq &&
	       h->events_discarded == p->discarded;
}

int evt_pidx_save(const struct evt_pidx_place *pl, const char *name, const struct evt_pidx_ident *id,
		  const struct evt_pidx_pkt *pk, uint32_t n, const struct stat *st, uint64_t st_time,
		  int stopped)
{
	char fname[300], where[4096];
	size_t len = EVT_PIDX_HEAD + (size_t)n * EVT_PIDX_ENTRY;
	uint8_t *b = malloc(len);
	int place, ret = -1, e = ENOENT;
	uint32_t k;

	if (!b)
		return -1;
	/* Only a settled stream's: one sealed sooner could miss a rewrite in the same clock tick. */
	if (!evt_pidx_settled(st, st_time)) {
		free(b);
		errno = EAGAIN;
		return -1;
	}
	if ((size_t)snprintf(fname, sizeof(fname), "%s.idx", name) >= sizeof(fname)) {
		free(b);
		errno = ENAMETOOLONG;
		return -1;
	}
	put_head(b, id, st, st_time, stopped);
	for (k = 0; k < n; k++)
		put_entry(b + EVT_PIDX_HEAD + (size_t)k * EVT_PIDX_ENTRY, pk[k].packet_bytes, pk[k].content_bytes,
			  pk[k].begin, pk[k].end, pk[k].seq, pk[k].discarded);
	for (place = 0; place < 2 && ret; place++) {
		int dfd;

		if (!place) {
			dfd = evt_beside_subdir(pl->dir, EVT_PIDX_DIR, pl->trace_mode, pl->trace_gid, 1);
		} else {
			char *real = realpath(pl->dir, NULL);

			dfd = real ? evt_cache_subdir(pl->cache_base, "index", real, 1, where, sizeof(where)) : -1;
			free(real);
		}
		if (dfd < 0) {
			e = errno;
			continue;
		}
		/* Beside: the trace's mode and group (nothing wider); in the cache: the user's alone. */
		if (!evt_safe_write_at(dfd, fname, b, len,
				       place ? 0600 : (mode_t)(pl->trace_mode & 0666) | 0600,
				       place ? (gid_t)-1 : pl->trace_gid))
			ret = 0;
		else
			e = errno;
		close(dfd);
	}
	free(b);
	if (ret)
		errno = e;
	return ret;
}

/* ---- Writing as the stream is written ---- */

int evt_pidx_writer_open(struct evt_pidx_writer *w, const char *dir, const char *name, unsigned int channel,
			 unsigned int cpu, mode_t mode, gid_t gid, int stream_fd, uint64_t size)
{
	char fname[300];
	int dfd;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->id.channel = channel;
	w->id.cpu = cpu;
	if ((size_t)snprintf(fname, sizeof(fname), "%s.idx", name) >= sizeof(fname)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	dfd = evt_beside_subdir(dir, EVT_PIDX_DIR, mode, gid, 1);
	if (dfd < 0)
		return -1;
	/* Never through a link: an index another run left is replaced, not followed. */
	if (unlinkat(dfd, fname, 0) && errno != ENOENT) {
		close(dfd);
		return -1;
	}
	w->fd = openat(dfd, fname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0666);
	close(dfd);
	if (w->fd < 0)
		return -1;
	if (gid != (gid_t)-1 && fchown(w->fd, (uid_t)-1, gid))
		fchmod(w->fd, mode & 0600);
	/* Appending: the whole packets already there first. */
	while (w->size < size) {
		struct evt_packet_header h;
		uint64_t bytes;

		if (pread(stream_fd, &h, sizeof(h), (off_t)w->size) != (ssize_t)sizeof(h) || h.magic != EVT_CTF_MAGIC)
			break;
		bytes = h.packet_size / 8;
		if (bytes < EVT_PACKET_HEADER_SIZE || h.packet_size % 8 || bytes > size - w->size)
			break;
		evt_pidx_writer_add(w, &h, (uint32_t)bytes);
	}
	return evt_pidx_writer_flush(w);
}

void evt_pidx_writer_add(struct evt_pidx_writer *w, const struct evt_packet_header *h, uint32_t packet_bytes)
{
	if (w->fd < 0 || w->failed)
		return;
	if (w->sealed) {
		uint8_t head[EVT_PIDX_HEAD];

		/* The stream grows again: its index is no longer the whole of it. */
		put_head(head, &w->id, NULL, 0, 0);
		if (pwrite(w->fd, head, EVT_PIDX_HEAD, 0) != EVT_PIDX_HEAD) {
			w->failed = 1;
			return;
		}
		w->sealed = 0;
	}
	if (!w->have_id) {
		uint8_t head[EVT_PIDX_HEAD];

		/* The uuid every packet of the stream carries: the first one's. */
		memcpy(w->id.uuid, h->uuid, 16);
		w->id.has_uuid = 1;
		put_head(head, &w->id, NULL, 0, 0);
		if (w->n + EVT_PIDX_HEAD > w->cap) {
			uint8_t *b = realloc(w->buf, w->cap + 4096);

			if (!b) {
				w->failed = 1;
				return;
			}
			w->buf = b;
			w->cap += 4096;
		}
		memcpy(w->buf + w->n, head, EVT_PIDX_HEAD);
		w->n += EVT_PIDX_HEAD;
		w->have_id = 1;
	}
	if (w->n + EVT_PIDX_ENTRY > w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 4096;
		uint8_t *b = realloc(w->buf, cap);

		if (!b) {
			w->failed = 1;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	put_entry(w->buf + w->n, packet_bytes, (uint32_t)(h->content_size / 8), h->timestamp_begin,
		  h->timestamp_end, h->packet_seq_num, h->events_discarded);
	w->n += EVT_PIDX_ENTRY;
	w->size += packet_bytes;
}

int evt_pidx_writer_flush(struct evt_pidx_writer *w)
{
	size_t done = 0;

	if (w->fd < 0)
		return -1;
	if (w->failed)
		return -1;
	while (done < w->n) {
		ssize_t n = write(w->fd, w->buf + done, w->n - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* Left as it is: unsealed, its whole entries a prefix; readers walk the rest. */
			w->failed = 1;
			return -1;
		}
		done += (size_t)n;
	}
	w->n = 0;
	return 0;
}

int evt_pidx_backdate(int fd, struct stat *st, uint64_t *last)
{
	struct timespec times[2] = { { .tv_sec = 0, .tv_nsec = UTIME_OMIT } };
	uint64_t back;

	/*
	 * Settled at once: the stream's mtime set EVT_PIDX_SETTLE_NS (and a
	 * millisecond) before its last write's, as the file system stamped
	 * it. Any later write is stamped at least that by the same clock, so
	 * it shows; no wait, and no trust in this machine's clock against the
	 * file system's (a network file system, a VM's shared directory:
	 * their clocks differ by more than the settling).
	 */
	if (fstat(fd, st))
		return -1;
	*last = mtime_ns(st);
	if (*last < EVT_PIDX_SETTLE_NS + 1000000) {
		errno = EINVAL;
		return -1;
	}
	back = *last - EVT_PIDX_SETTLE_NS - 1000000;
	times[1].tv_sec = (time_t)(back / 1000000000ULL);
	times[1].tv_nsec = (long)(back % 1000000000ULL);
	/* A coarser file system keeps less of it: a stamp at or before @back still does. */
	if (futimens(fd, times) || fstat(fd, st) || mtime_ns(st) > back)
		return -1;
	return 0;
}

int evt_pidx_writer_seal(struct evt_pidx_writer *w, int stream_fd)
{
	uint8_t head[EVT_PIDX_HEAD];
	struct stat st;
	uint64_t last;

	if (evt_pidx_writer_flush(w) || fstat(stream_fd, &st))
		return -1;
	/* The index must say all of the stream and nothing else. */
	if ((uint64_t)st.st_size != w->size) {
		errno = EINVAL;
		return -1;
	}
	/* (An empty stream's has no uuid: readers need no index of nothing.) */
	if (!w->have_id)
		return 0;
	if (evt_pidx_backdate(stream_fd, &st, &last))
		return -1;
	put_head(head, &w->id, &st, last, 0);
	if (pwrite(w->fd, head, EVT_PIDX_HEAD, 0) != EVT_PIDX_HEAD)
		return -1;
	w->sealed = 1;
	return 0;
}

void evt_pidx_writer_close(struct evt_pidx_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}
