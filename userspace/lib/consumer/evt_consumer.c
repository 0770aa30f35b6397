// SPDX-License-Identifier: GPL-2.0
/*
 * The consumer: ring devices to stream files, whole packets only. See
 * evt_consumer.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>
#include <evtrace/events.h>
#include "consumer/evt_consumer.h"
#include "format/evt_symbols.h"
#include "util/evt_io.h"
#include "ctf/evt_metadata.h"

#define SPLICE_PIPE_BYTES	(1 << 20)

static const char *dev_dir(const struct evt_consumer *c)
{
	return c->o.dev_dir ? c->o.dev_dir : "/dev/evtrace";
}

int evt_consumer_init(struct evt_consumer *c, const struct evt_consumer_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->o = *o;
	if (!c->o.channels)
		c->o.channels = (1U << EVT_NR_CHANNELS) - 1;
	c->pipefd[0] = c->pipefd[1] = -1;
	if (c->o.xfer == EVT_XFER_SPLICE) {
		if (pipe2(c->pipefd, O_CLOEXEC))
			return -1;
		/* A bigger pipe: fewer round trips per packet (best effort). */
		fcntl(c->pipefd[1], F_SETPIPE_SZ, SPLICE_PIPE_BYTES);
	}
	return 0;
}

static void index_flush(struct evt_consumer_ring *r);

void evt_consumer_close(struct evt_consumer *c)
{
	int i;

	for (i = 0; i < c->nr_rings; i++) {
		struct evt_consumer_ring *r = &c->rings[i];

		if (r->holding)
			ioctl(r->fd, EVT_IOC_PUT_NEXT_SUBBUF);
		index_flush(r);
		evt_pidx_writer_close(&r->idx);
		close(r->fd);
		if (r->out >= 0)
			close(r->out);
	}
	if (c->pipefd[0] >= 0) {
		close(c->pipefd[0]);
		close(c->pipefd[1]);
	}
	free(c->rings);
	free(c->buf);
	c->rings = NULL;
	c->buf = NULL;
	c->nr_rings = c->cap_rings = 0;
}

struct evt_consumer_ring *evt_consumer_find(struct evt_consumer *c, unsigned int channel, int cpu)
{
	int i;

	for (i = 0; i < c->nr_rings; i++)
		if (c->rings[i].channel == channel && c->rings[i].cpu == cpu)
			return &c->rings[i];
	return NULL;
}

uint64_t evt_packet_at(int fd, off_t pos, off_t size, struct evt_packet_header *h)
{
	uint64_t bytes;

	if (size - pos < EVT_PACKET_HEADER_SIZE ||
	    pread(fd, h, sizeof(*h), pos) != (ssize_t)sizeof(*h) || h->magic != EVT_CTF_MAGIC)
		return 0;
	bytes = h->packet_size / 8;
	if (bytes < EVT_PACKET_HEADER_SIZE || h->packet_size % 8 || bytes > (uint64_t)(size - pos))
		return 0;
	return bytes;
}

off_t evt_whole_packets(int fd, off_t size)
{
	struct evt_packet_header h;
	off_t pos = 0;
	uint64_t bytes;

	while ((bytes = evt_packet_at(fd, pos, size, &h)))
		pos += (off_t)bytes;
	return pos;
}

/* A file it writes to the options' group: 0, or -1 with errno. */
static int give_to_group(const struct evt_consumer *c, int fd)
{
	return c->o.has_group ? fchown(fd, (uid_t)-1, c->o.group) : 0;
}

/* The ring's stream file; appending keeps the whole packets already there. */
static int open_stream_file(struct evt_consumer *c, struct evt_consumer_ring *r)
{
	char path[4096];
	struct stat st;
	/* Read too: a spliced packet's header is read back for the packet index. */
	int flags = O_CLOEXEC | O_CREAT | O_RDWR | (c->o.append ? 0 : O_TRUNC);

	snprintf(path, sizeof(path), "%s/%s", c->o.out_dir, r->name);
	r->out = open(path, flags, EVT_CONSUMER_FILE_MODE);
	if (r->out < 0 || fstat(r->out, &st) || give_to_group(c, r->out)) {
		evt_errf(c->err, sizeof(c->err), "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	r->size = evt_whole_packets(r->out, st.st_size);
	if (r->size != st.st_size && ftruncate(r->out, r->size)) {
		evt_errf(c->err, sizeof(c->err), "cannot cut %s back to its last whole packet: %s",
			 path, strerror(errno));
		return -1;
	}
	if (lseek(r->out, r->size, SEEK_SET) < 0) {
		evt_errf(c->err, sizeof(c->err), "cannot seek in %s: %s", path, strerror(errno));
		return -1;
	}
	/* Its packet index, as it is written (appending: the packets there first). Best effort: readers walk. */
	if (!c->o.no_index)
		evt_pidx_writer_open(&r->idx, c->o.out_dir, r->name, r->channel, (unsigned int)r->cpu,
				     EVT_CONSUMER_FILE_MODE, c->o.has_group ? c->o.group : (gid_t)-1, r->out,
				     (uint64_t)r->size);
	return 0;
}

/* The ring's index entries not yet written, out to its file. */
static void index_flush(struct evt_consumer_ring *r)
{
	if (r->idx_added) {
		evt_pidx_writer_flush(&r->idx);
		r->idx_added = 0;
	}
}

/* The packet just written at @at of the ring's file (@pkt: its bytes when copied, else NULL) indexed. */
static void index_packet(struct evt_consumer_ring *r, const uint8_t *pkt, off_t at, size_t len)
{
	struct evt_packet_header h;

	if (r->idx.fd < 0 || r->idx.failed)
		return;
	/* Spliced: its header is read back (the page cache has it). */
	if (pkt)
		memcpy(&h, pkt, sizeof(h));
	else if (pread(r->out, &h, sizeof(h), at) != (ssize_t)sizeof(h))
		return;
	evt_pidx_writer_add(&r->idx, &h, (uint32_t)len);
	r->idx_added++;
}

static int open_ring(struct evt_consumer *c, unsigned int ch, int cpu, const char *path)
{
	struct evt_consumer_ring *r;

	if (c->nr_rings == c->cap_rings) {
		int cap = c->cap_rings ? 2 * c->cap_rings : 16;
		struct evt_consumer_ring *more = realloc(c->rings, (size_t)cap * sizeof(*more));

		if (!more) {
			evt_errf(c->err, sizeof(c->err), "out of memory");
			return -1;
		}
		c->rings = more;
		c->cap_rings = cap;
	}
	r = &c->rings[c->nr_rings];
	memset(r, 0, sizeof(*r));
	r->out = -1;
	r->idx.fd = -1;
	r->channel = ch;
	r->cpu = cpu;
	r->index = c->nr_rings;
	r->xfer = c->o.on_packet ? EVT_XFER_COPY : c->o.xfer;
	snprintf(r->name, sizeof(r->name), "%s_%d", evt_channel_name(ch), cpu);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		evt_errf(c->err, sizeof(c->err), "cannot open %s: %s%s", path, strerror(errno),
			 errno == EBUSY ? " (another reader has it)" : "");
		return -1;
	}
	if (c->o.out_dir && open_stream_file(c, r)) {
		if (r->out >= 0)
			close(r->out);
		close(r->fd);
		return -1;
	}
	c->nr_rings++;
	return 0;
}

int evt_consumer_open_rings(struct evt_consumer *c)
{
	int opened = 0;
	unsigned int ch;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		char dir[4096];
		struct dirent *de;
		DIR *d;

		if (!(c->o.channels & (1U << ch)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", dev_dir(c), evt_channel_name(ch));
		d = opendir(dir);
		if (!d)
			continue;	/* the module has no such channel (yet) */
		while ((de = readdir(d))) {
			char path[4096 + 256 + 2], tail;
			int cpu;

			if (sscanf(de->d_name, "cpu%d%c", &cpu, &tail) != 1 || cpu < 0 ||
			    cpu >= EVT_MAX_CPUS || evt_consumer_find(c, ch, cpu))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (open_ring(c, ch, cpu, path)) {
				closedir(d);
				return -1;
			}
			opened++;
		}
		closedir(d);
	}
	return opened;
}

int evt_consumer_metadata(struct evt_consumer *c, struct evt_metadata *md)
{
	char src[4096], path[4096], tmp[4200], err[256];
	char *text = NULL;
	size_t len = 0;
	int in, out, dfd, ret = -1;

	snprintf(src, sizeof(src), "%s/metadata", dev_dir(c));
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		evt_errf(c->err, sizeof(c->err), "cannot open %s: %s", src, strerror(errno));
		return -1;
	}
	if (evt_metadata_read(in, &text, &len, err, sizeof(err))) {
		evt_errf(c->err, sizeof(c->err), "%s: %s", src, err);
		close(in);
		return -1;
	}
	close(in);
	if (md && evt_metadata_parse(text, len, md, err, sizeof(err))) {
		evt_errf(c->err, sizeof(c->err), "%s: %s", src, err);
		goto out;
	}
	if (!c->o.out_dir) {
		ret = 0;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/metadata", c->o.out_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, EVT_CONSUMER_FILE_MODE);
	if (out >= 0 && give_to_group(c, out)) {
		evt_errf(c->err, sizeof(c->err), "cannot give %s to group %u: %s", tmp,
			 (unsigned int)c->o.group, strerror(errno));
		close(out);
		unlink(tmp);
		goto out;
	}
	if (out < 0) {
		evt_errf(c->err, sizeof(c->err), "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (evt_write_all(out, text, len) || fsync(out)) {
		evt_errf(c->err, sizeof(c->err), "cannot write %s: %s", tmp, strerror(errno));
		close(out);
		unlink(tmp);
		goto out;
	}
	close(out);
	if (rename(tmp, path)) {
		evt_errf(c->err, sizeof(c->err), "cannot rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	/* The rename itself survives a crash only once the directory is synced. */
	dfd = open(c->o.out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	ret = 0;
out:
	if (ret && md)
		evt_metadata_free(md);
	free(text);
	return ret;
}

/* Copy @src (a /proc file: its size unknown) to @name in directory @dfd, atomically. 0 or -1. */
static int copy_proc_file(struct evt_consumer *c, int dfd, const char *src, const char *name, int *addresses)
{
	char tmp[64], buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, ret = -1, in_addr = 1;
	ssize_t n;

	if (in < 0) {
		evt_errf(c->err, sizeof(c->err), "cannot read %s: %s", src, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	unlinkat(dfd, tmp, 0);
	out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, EVT_CONSUMER_FILE_MODE);
	if (out < 0 || give_to_group(c, out)) {
		evt_errf(c->err, sizeof(c->err), "cannot write symbols/%s: %s", tmp, strerror(errno));
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		/*
		 * A line whose address is not all zeros: this process sees
		 * them (kptr_restrict shows every one as zeros; per-CPU
		 * variables are at 0 anyway).
		 */
		for (ssize_t i = 0; addresses && !*addresses && i < n; i++) {
			if (buf[i] == '\n')
				in_addr = 1;
			else if (buf[i] == ' ')
				in_addr = 0;
			else if (in_addr && buf[i] != '0')
				*addresses = 1;
		}
		if (evt_write_all(out, buf, (size_t)n)) {
			evt_errf(c->err, sizeof(c->err), "cannot write symbols/%s: %s", tmp, strerror(errno));
			goto out;
		}
	}
	if (n < 0 || fsync(out)) {
		evt_errf(c->err, sizeof(c->err), "cannot copy %s: %s", src, strerror(errno));
		goto out;
	}
	if (addresses && !*addresses) {
		ret = 1;
		goto out;
	}
	if (renameat(dfd, tmp, dfd, name)) {
		evt_errf(c->err, sizeof(c->err), "cannot rename symbols/%s: %s", tmp, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret)
		unlinkat(dfd, tmp, 0);
	if (out >= 0)
		close(out);
	close(in);
	return ret;
}

int evt_consumer_symbols(struct evt_consumer *c, int end)
{
	char path[4200], *slash;
	int dfd, r, addresses = 0;

	if (!c->o.out_dir) {
		evt_errf(c->err, sizeof(c->err), "no output directory for the symbols");
		return -1;
	}
	evt_symbols_path(c->o.out_dir, path, sizeof(path));
	slash = strrchr(path, '/');
	*slash = '\0';		/* TRACE/symbols */
	if (mkdir(path, 0750) && errno != EEXIST) {
		evt_errf(c->err, sizeof(c->err), "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || (c->o.has_group && fchown(dfd, (uid_t)-1, c->o.group))) {
		evt_errf(c->err, sizeof(c->err), "%s: %s", path, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	r = copy_proc_file(c, dfd, "/proc/kallsyms", end ? "kallsyms-end" : "kallsyms", &addresses);
	if (!r)
		r = copy_proc_file(c, dfd, "/proc/modules", end ? "modules-end" : "modules", NULL);
	if (!r)
		fsync(dfd);
	close(dfd);
	return r;
}

/*
 * A sub-buffer was just taken: note it held, and learn the packet size once
 * (every packet is a whole sub-buffer, padding included). 1, or -1 with the
 * sub-buffer released.
 */
static int took_subbuf(struct evt_consumer *c, struct evt_consumer_ring *r)
{
	r->holding = 1;
	if (!r->packet && ioctl(r->fd, EVT_IOC_GET_PADDED_SUBBUF_SIZE, &r->packet) < 0) {
		evt_errf(c->err, sizeof(c->err), "sub-buffer size of %s: %s", r->name, strerror(errno));
		r->packet = 0;
		r->holding = 0;
		ioctl(r->fd, EVT_IOC_PUT_NEXT_SUBBUF);
		return -1;
	}
	return 1;
}

int evt_consumer_take(struct evt_consumer *c, struct evt_consumer_ring *r)
{
	if (ioctl(r->fd, r->holding ? EVT_IOC_PUT_GET_NEXT_SUBBUF : EVT_IOC_GET_NEXT_SUBBUF) < 0) {
		/* PUT_GET releases even when it finds nothing to take. */
		r->holding = 0;
		if (errno == EAGAIN)
			return 0;
		evt_errf(c->err, sizeof(c->err), "taking a sub-buffer of %s: %s", r->name,
			 strerror(errno));
		return -1;
	}
	return took_subbuf(c, r);
}

int evt_consumer_take_below(struct evt_consumer *c, struct evt_consumer_ring *r, uint64_t bound)
{
	/* A writer finishes its commit in microseconds: 1 s means a wedged ring. */
	int tries = 1000;

	for (;;) {
		if (ioctl(r->fd, EVT_IOC_PUT_GET_SUBBUF_BELOW, &bound) == 0)
			break;
		r->holding = 0;
		if (errno == ENODATA)
			return 0;
		if (errno != EAGAIN || --tries == 0) {
			evt_errf(c->err, sizeof(c->err), "taking a sub-buffer of %s below packet %llu: %s",
				 r->name, (unsigned long long)bound,
				 errno == EAGAIN ? "it stayed incomplete for 1 s" : strerror(errno));
			return -1;
		}
		usleep(1000);
	}
	return took_subbuf(c, r);
}

int evt_consumer_drain_below(struct evt_consumer *c, struct evt_consumer_ring *r, uint64_t bound)
{
	int got = 0, rc;

	while (!c->write_failed) {
		rc = evt_consumer_take_below(c, r, bound);
		if (rc <= 0) {
			index_flush(r);
			return rc < 0 ? -1 : got;
		}
		if (evt_consumer_write(c, r))
			return -1;
		got++;
	}
	evt_consumer_release(c, r);
	return -1;
}

int evt_consumer_release(struct evt_consumer *c, struct evt_consumer_ring *r)
{
	if (!r->holding)
		return 0;
	r->holding = 0;
	if (ioctl(r->fd, EVT_IOC_PUT_NEXT_SUBBUF) < 0) {
		evt_errf(c->err, sizeof(c->err), "releasing a sub-buffer of %s: %s", r->name,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* sendfile(): the kernel splices the device's pages into the file. */
static int move_sendfile(struct evt_consumer_ring *r, size_t len)
{
	size_t left = len;

	while (left) {
		ssize_t n = sendfile(r->out, r->fd, NULL, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EINVAL || errno == ENOSYS) && left == len)
			return 1;	/* the file system cannot: copy */
		if (n == 0)
			errno = EIO;	/* the device had less than a packet */
		if (n <= 0)
			return -1;
		left -= (size_t)n;
	}
	return 0;
}

/*
 * splice() device -> pipe -> file. 1 when the file refuses the pipe's pages
 * before any byte of the packet reached it: *@in_pipe bytes wait in the pipe.
 */
static int move_splice(struct evt_consumer *c, struct evt_consumer_ring *r, size_t len,
		       size_t *in_pipe)
{
	size_t left = len;

	*in_pipe = 0;
	while (left) {
		ssize_t n = splice(r->fd, NULL, c->pipefd[1], NULL, left, SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EINVAL || errno == ENOSYS) && left == len)
			return 1;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			return -1;
		left -= (size_t)n;
		while (n > 0) {
			ssize_t m = splice(c->pipefd[0], NULL, r->out, NULL, (size_t)n, SPLICE_F_MOVE);

			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0 && (errno == EINVAL || errno == ENOSYS) && left + (size_t)n == len) {
				*in_pipe = (size_t)n;
				return 1;
			}
			if (m == 0)
				errno = EIO;
			if (m <= 0)
				return -1;
			n -= m;
		}
	}
	return 0;
}

static int grow_buf(struct evt_consumer *c, size_t len)
{
	uint8_t *bigger;

	if (len <= c->buf_size)
		return 0;
	bigger = realloc(c->buf, len);
	if (!bigger)
		return -1;
	c->buf = bigger;
	c->buf_size = len;
	return 0;
}

/* Read @len bytes from @fd (the device or the splice pipe) into c->buf + @at. */
static int read_full(struct evt_consumer *c, int fd, size_t at, size_t len)
{
	size_t got = 0;

	if (grow_buf(c, at + len))
		return -1;
	while (got < len) {
		ssize_t n = read(fd, c->buf + at + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;	/* the device had less than a packet */
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* The held packet into the ring's file (and c->buf when copied). 0 or -1 with errno. */
static int move_packet(struct evt_consumer *c, struct evt_consumer_ring *r, size_t len)
{
	size_t in_pipe = 0;
	int rc;

	if (r->out >= 0 && r->xfer != EVT_XFER_COPY) {
		rc = r->xfer == EVT_XFER_SENDFILE ? move_sendfile(r, len) :
		     move_splice(c, r, len, &in_pipe);
		if (rc <= 0)
			return rc;
		/* The file system cannot take pages: copy, from now on. */
		r->xfer = EVT_XFER_COPY;
	}
	if (read_full(c, c->pipefd[0], 0, in_pipe) || read_full(c, r->fd, in_pipe, len - in_pipe))
		return -1;
	return r->out < 0 ? 0 : evt_write_all(r->out, c->buf, len);
}

int evt_consumer_write(struct evt_consumer *c, struct evt_consumer_ring *r)
{
	const size_t len = (size_t)r->packet;

	if (move_packet(c, r, len)) {
		int err = errno;

		if (r->out >= 0) {
			/* Keep whole packets only: cut the half-written one off. */
			if (ftruncate(r->out, r->size) == 0)
				lseek(r->out, r->size, SEEK_SET);
			evt_errf(c->err, sizeof(c->err), "writing %s/%s: %s", c->o.out_dir, r->name,
				 strerror(err));
			c->write_failed = 1;
		} else {
			evt_errf(c->err, sizeof(c->err), "reading %s: %s", r->name, strerror(err));
		}
		evt_consumer_release(c, r);
		return -1;
	}
	if (c->o.on_packet)
		c->o.on_packet(c->o.arg, r, c->buf, len);
	if (r->out >= 0) {
		index_packet(r, r->xfer == EVT_XFER_COPY ? c->buf : NULL, r->size, len);
		r->size += (off_t)len;
		c->bytes_written += len;
	}
	r->packets++;
	return 0;
}

int evt_consumer_drain(struct evt_consumer *c, struct evt_consumer_ring *r)
{
	int got = 0, rc;

	r->busy = 0;
	if (r->holding)
		return 0;	/* the program holds it on purpose */
	while (!c->write_failed) {
		rc = evt_consumer_take(c, r);
		if (rc <= 0) {
			r->busy = got > 0;
			index_flush(r);
			return rc < 0 ? -1 : got;
		}
		/* Taken with PUT_GET: the next take releases this one. */
		if (evt_consumer_write(c, r))
			return -1;
		got++;
	}
	evt_consumer_release(c, r);
	return -1;
}

int evt_consumer_drain_all(struct evt_consumer *c)
{
	int i, ret = 0;

	for (i = 0; i < c->nr_rings && !c->write_failed; i++)
		if (evt_consumer_drain(c, &c->rings[i]) < 0)
			ret = -1;
	return c->write_failed ? -1 : ret;
}

int evt_consumer_drain_final(struct evt_consumer *c)
{
	int i, ret;

	ret = evt_consumer_drain_all(c);
	if (c->write_failed)
		return -1;
	for (i = 0; i < c->nr_rings; i++)
		ioctl(c->rings[i].fd, EVT_IOC_FLUSH);
	return evt_consumer_drain_all(c) || ret ? -1 : 0;
}

int evt_consumer_quiescent(struct evt_consumer *c, struct evt_consumer_ring *r,
			   struct evt_quiescent *q)
{
	if (ioctl(r->fd, EVT_IOC_GET_QUIESCENT, q) < 0) {
		evt_errf(c->err, sizeof(c->err), "quiescent time of %s: %s", r->name, strerror(errno));
		return -1;
	}
	return 0;
}

int evt_consumer_switch_dir(struct evt_consumer *c, const char *dir)
{
	int i, ret = 0;

	if (strlen(dir) >= sizeof(c->out_dir_buf)) {
		evt_errf(c->err, sizeof(c->err), "%s: the directory name is too long", dir);
		return -1;
	}
	memmove(c->out_dir_buf, dir, strlen(dir) + 1);
	c->o.out_dir = c->out_dir_buf;
	/* A new chunk starts empty, whatever the first one did. */
	c->o.append = 0;
	for (i = 0; i < c->nr_rings; i++) {
		struct evt_consumer_ring *r = &c->rings[i];

		/* The old chunk's index as it is: its finisher seals one once the chunk is on the disk. */
		index_flush(r);
		evt_pidx_writer_close(&r->idx);
		if (r->out >= 0)
			close(r->out);
		r->out = -1;
		r->size = 0;
		if (open_stream_file(c, r)) {
			if (r->out >= 0)
				close(r->out);
			r->out = -1;
			/* No packet may be taken without a file to keep it: as a failed write. */
			c->write_failed = 1;
			ret = -1;
		}
	}
	return ret;
}

int evt_consumer_sync(struct evt_consumer *c)
{
	int i, dfd, ret = 0;

	if (!c->o.out_dir)
		return 0;
	for (i = 0; i < c->nr_rings; i++) {
		struct evt_consumer_ring *r = &c->rings[i];

		if (r->out >= 0 && fsync(r->out)) {
			evt_errf(c->err, sizeof(c->err), "fsync %s/%s: %s", c->o.out_dir,
				 r->name, strerror(errno));
			ret = -1;
		}
		/*
		 * Complete as of now, its data on the disk (a network file
		 * system stamps the mtime when the data reaches it): its index
		 * sealed with its size and mtime, which readers then trust
		 * without a writer at work; the mtime set back made durable too.
		 */
		if (r->out >= 0) {
			r->idx_added = 0;
			if (!evt_pidx_writer_seal(&r->idx, r->out))
				fsync(r->out);
		}
	}
	dfd = open(c->o.out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd)) {
		evt_errf(c->err, sizeof(c->err), "fsync %s: %s", c->o.out_dir, strerror(errno));
		ret = -1;
	}
	if (dfd >= 0)
		close(dfd);
	return ret;
}
