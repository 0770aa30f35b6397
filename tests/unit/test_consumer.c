// SPDX-License-Identifier: GPL-2.0
/*
 * The consumer library without a kernel: a directory that looks like
 * /dev/evtrace (regular files for the ring devices and the metadata) and a
 * trace directory. What needs the ring ioctls (take, release, quiescent) is
 * proven in the VM tests (evdrain, evtest drain).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "consumer/evt_consumer.h"
#include "ctf/evt_metadata.h"
#include "consumer/evt_trim.h"

struct tmpdirs {
	char dev[64], out[64];
};

static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static off_t file_size(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : st.st_size;
}

static void make_dirs(struct tmpdirs *d)
{
	strcpy(d->dev, "/tmp/evt-cdev-XXXXXX");
	strcpy(d->out, "/tmp/evt-cout-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d->dev));
	ck_assert_ptr_nonnull(mkdtemp(d->out));
}

static void remove_dirs(struct tmpdirs *d)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", d->dev, d->out);
	ck_assert_int_eq(system(cmd), 0);
}

/* The two directories, with one ring device compact/cpu@cpu holding @len bytes. */
static void one_ring(struct tmpdirs *d, struct evt_consumer_opts *o, int cpu, const void *data,
		     size_t len)
{
	char path[128];

	make_dirs(d);
	snprintf(path, sizeof(path), "%s/compact", d->dev);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "compact/cpu%d", cpu);
	put_file(d->dev, path, data, len);
	o->dev_dir = d->dev;
	o->out_dir = d->out;
}

/* @n packets of @bytes each, with headers a reader (and the append walk) accepts. */
static uint8_t *packets(unsigned int n, size_t bytes)
{
	uint8_t *p = calloc(n, bytes);
	unsigned int i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++) {
		struct evt_packet_header h = { .magic = EVT_CTF_MAGIC, .packet_seq_num = i,
					       .packet_size = bytes * 8,
					       .content_size = EVT_PACKET_HEADER_SIZE * 8 };

		memcpy(p + i * bytes, &h, sizeof(h));
		memset(p + i * bytes + sizeof(h), 'a' + (int)i, bytes - sizeof(h));
	}
	return p;
}

/* The metadata, 300 KiB, arrives whole under its name; nothing is left aside. */
START_TEST(consumer_copies_metadata_whole)
{
	const size_t len = 300 * 1024;
	struct evt_consumer_opts o = { 0 };
	struct evt_consumer c;
	struct tmpdirs d;
	char *text = malloc(len), *back = malloc(len), path[128];
	FILE *f;
	size_t i;

	make_dirs(&d);
	for (i = 0; i < len; i++)
		text[i] = (char)('a' + i % 26);
	put_file(d.dev, "metadata", text, len);
	o.dev_dir = d.dev;
	o.out_dir = d.out;
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_metadata(&c, NULL), 0);
	snprintf(path, sizeof(path), "%s/metadata", d.out);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(back, 1, len, f), len);
	ck_assert_int_eq(fgetc(f), EOF);
	fclose(f);
	ck_assert_int_eq(memcmp(text, back, len), 0);
	ck_assert_int_eq(file_size(d.out, "metadata.tmp"), -1);
	/* Metadata that does not parse is refused when it is to be parsed. */
	{
		struct evt_metadata md;

		ck_assert_int_eq(evt_consumer_metadata(&c, &md), -1);
		ck_assert_ptr_nonnull(strstr(c.err, "metadata"));
	}
	/* No metadata: an error naming it. */
	snprintf(path, sizeof(path), "%s/metadata", d.dev);
	unlink(path);
	ck_assert_int_eq(evt_consumer_metadata(&c, NULL), -1);
	ck_assert_ptr_nonnull(strstr(c.err, path));
	evt_consumer_close(&c);
	remove_dirs(&d);
	free(text);
	free(back);
}
END_TEST

/* Ring devices by channel and name; a second look opens only new ones. */
START_TEST(consumer_opens_rings)
{
	struct evt_consumer_opts o = { 0 };
	struct evt_consumer c;
	struct tmpdirs d;
	char path[128];
	const char *const names[] = { "compact/cpu0", "compact/cpu3", "compact/cpuX", "compact/cpu3x",
				      "compact/metadata", "normal/cpu1" };
	unsigned int i;

	make_dirs(&d);
	snprintf(path, sizeof(path), "%s/compact", d.dev);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/normal", d.dev);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		put_file(d.dev, names[i], "", 0);
	o.dev_dir = d.dev;
	o.out_dir = d.out;
	o.channels = 1U << EVT_CHAN_COMPACT;
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 2);
	ck_assert_ptr_nonnull(evt_consumer_find(&c, EVT_CHAN_COMPACT, 0));
	ck_assert_ptr_nonnull(evt_consumer_find(&c, EVT_CHAN_COMPACT, 3));
	ck_assert_ptr_null(evt_consumer_find(&c, EVT_CHAN_NORMAL, 1));
	ck_assert_str_eq(evt_consumer_find(&c, EVT_CHAN_COMPACT, 3)->name, "compact_3");
	ck_assert_int_eq(file_size(d.out, "compact_0"), 0);
	ck_assert_int_eq(file_size(d.out, "compact_3"), 0);
	ck_assert_int_eq(file_size(d.out, "normal_1"), -1);
	/* A CPU that comes online later. */
	ck_assert_int_eq(evt_consumer_open_rings(&c), 0);
	put_file(d.dev, "compact/cpu17", "", 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	for (i = 0; i < (unsigned int)c.nr_rings; i++)
		ck_assert_int_eq(c.rings[i].index, (int)i);
	evt_consumer_close(&c);

	/* A stream file that cannot be written: an error naming it. */
	o.channels = 0;
	o.out_dir = "/proc/nonexistent";
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), -1);
	ck_assert_ptr_nonnull(strstr(c.err, "/proc/nonexistent/"));
	evt_consumer_close(&c);
	remove_dirs(&d);
}
END_TEST

/* Mode @mode and group @gid: the file @name in @dir. */
static void assert_mode_group(const char *dir, const char *name, mode_t mode, gid_t gid)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == mode, "%s: mode %o, not %o", path,
		      (unsigned int)(st.st_mode & 07777), (unsigned int)mode);
	ck_assert_uint_eq(st.st_gid, gid);
}

/*
 * The trace's files are 0640 under a umask of 022 (they were 0644: every
 * local user could read every process's system calls), less under a
 * narrower umask, and belong to the group asked for.
 */
START_TEST(consumer_files_are_private)
{
	struct evt_consumer_opts o = { 0 };
	struct evt_consumer c;
	struct tmpdirs d;
	gid_t other = getgid();
	gid_t groups[64];
	int n = getgroups(64, groups), i;
	mode_t old = umask(022);

	/* Another group of ours (any, as root): the files must move to it. */
	for (i = 0; i < n; i++)
		if (groups[i] != getgid())
			other = groups[i];
	if (!geteuid())
		other = 4242;
	one_ring(&d, &o, 0, "", 0);
	put_file(d.dev, "metadata", "/* CTF 1.8 */", 12);
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	ck_assert_int_eq(evt_consumer_metadata(&c, NULL), 0);
	assert_mode_group(d.out, "compact_0", 0640, getgid());
	assert_mode_group(d.out, "metadata", 0640, getgid());
	evt_consumer_close(&c);
	remove_dirs(&d);

	umask(077);
	one_ring(&d, &o, 0, "", 0);
	put_file(d.dev, "metadata", "/* CTF 1.8 */", 12);
	o.has_group = 1;
	o.group = other;
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	ck_assert_int_eq(evt_consumer_metadata(&c, NULL), 0);
	assert_mode_group(d.out, "compact_0", 0600, other);
	assert_mode_group(d.out, "metadata", 0600, other);
	evt_consumer_close(&c);
	remove_dirs(&d);
	umask(old);
}
END_TEST

/*
 * Appending keeps the whole packets already there, whatever their size:
 * five 4 KiB packets and 100 bytes of a sixth keep 20480 bytes (cutting by
 * the module's current 16 KiB sub-buffer, as evdrain did, kept 16384 and
 * lost a whole packet). Without append the file starts empty.
 */
START_TEST(consumer_append_keeps_whole_packets)
{
	const size_t bytes = 4096;
	uint8_t *p = packets(6, bytes);
	struct evt_consumer_opts o = { 0 };
	struct evt_consumer c;
	struct tmpdirs d;

	one_ring(&d, &o, 0, "", 0);
	put_file(d.out, "compact_0", p, 5 * bytes + 100);
	o.append = 1;
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	ck_assert_int_eq(c.rings[0].size, 5 * bytes);
	ck_assert_int_eq(file_size(d.out, "compact_0"), 5 * bytes);
	evt_consumer_close(&c);

	/* A header that claims more than the file holds ends the walk there. */
	((struct evt_packet_header *)(p + 2 * bytes))->packet_size = 64 * bytes * 8;
	put_file(d.out, "compact_0", p, 4 * bytes);
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	ck_assert_int_eq(c.rings[0].size, 2 * bytes);
	evt_consumer_close(&c);

	o.append = 0;
	put_file(d.out, "compact_0", p, 3 * bytes);
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	ck_assert_int_eq(c.rings[0].size, 0);
	ck_assert_int_eq(file_size(d.out, "compact_0"), 0);
	evt_consumer_close(&c);
	remove_dirs(&d);
	free(p);
}
END_TEST

static size_t seen_bytes;
static unsigned int seen_packets;

static void count_packet(void *arg, struct evt_consumer_ring *r, const uint8_t *pkt, size_t len)
{
	const uint8_t *want = arg;

	ck_assert_int_eq(memcmp(pkt, want + r->packets * len, len), 0);
	seen_bytes += len;
	seen_packets++;
}

/*
 * Each way of moving a packet (sendfile, splice through a pipe, copy) writes
 * the device's bytes from its file position to the stream file, packet after
 * packet; with on_packet the bytes are also handed over (a copy).
 */
START_TEST(consumer_moves_packets)
{
	static const enum evt_xfer ways[] = { EVT_XFER_SENDFILE, EVT_XFER_SPLICE, EVT_XFER_COPY };
	const size_t bytes = 8192;
	const enum evt_xfer way = ways[_i % 3];
	const int with_callback = _i >= 3;
	uint8_t *p = packets(3, bytes), *back = malloc(3 * bytes);
	struct evt_consumer_opts o = { 0 };
	struct evt_consumer c;
	struct tmpdirs d;
	char path[128];
	int fd, i;

	one_ring(&d, &o, 2, p, 3 * bytes);
	o.xfer = way;
	if (with_callback) {
		o.on_packet = count_packet;
		o.arg = p;
	}
	seen_bytes = seen_packets = 0;
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	ck_assert_int_eq(c.rings[0].xfer, with_callback ? EVT_XFER_COPY : way);
	c.rings[0].packet = bytes;
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(evt_consumer_write(&c, &c.rings[0]), 0);
	ck_assert_uint_eq(c.rings[0].packets, 3);
	ck_assert_int_eq(c.rings[0].size, 3 * bytes);
	ck_assert_uint_eq(c.bytes_written, 3 * bytes);
	ck_assert_uint_eq(seen_packets, with_callback ? 3 : 0);
	ck_assert_int_eq(evt_consumer_sync(&c), 0);
	/* The device is spent: a short packet is an error, the file stays whole. */
	ck_assert_int_eq(evt_consumer_write(&c, &c.rings[0]), -1);
	ck_assert_int_eq(c.write_failed, 1);
	evt_consumer_close(&c);
	ck_assert_int_eq(file_size(d.out, "compact_2"), 3 * bytes);
	snprintf(path, sizeof(path), "%s/compact_2", d.out);
	fd = open(path, O_RDONLY);
	ck_assert_int_eq(read(fd, back, 3 * bytes), (ssize_t)(3 * bytes));
	close(fd);
	ck_assert_int_eq(memcmp(p, back, 3 * bytes), 0);
	remove_dirs(&d);
	free(p);
	free(back);
}
END_TEST

/*
 * A write that fails half-way (the file size limit stands in for a full
 * disk) cuts the file back to its last whole packet and says which file.
 */
START_TEST(consumer_failed_write_keeps_whole_packets)
{
	static const enum evt_xfer ways[] = { EVT_XFER_SENDFILE, EVT_XFER_SPLICE, EVT_XFER_COPY };
	const size_t bytes = 8192;
	uint8_t *p = packets(3, bytes);
	struct rlimit lim = { .rlim_cur = 2 * bytes + bytes / 2, .rlim_max = RLIM_INFINITY };
	struct evt_consumer_opts o = { 0 };
	struct evt_consumer c;
	struct tmpdirs d;

	one_ring(&d, &o, 0, p, 3 * bytes);
	o.xfer = ways[_i];
	ck_assert_int_eq(evt_consumer_init(&c, &o), 0);
	ck_assert_int_eq(evt_consumer_open_rings(&c), 1);
	c.rings[0].packet = bytes;
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ck_assert_int_eq(evt_consumer_write(&c, &c.rings[0]), 0);
	ck_assert_int_eq(evt_consumer_write(&c, &c.rings[0]), 0);
	ck_assert_int_eq(evt_consumer_write(&c, &c.rings[0]), -1);
	ck_assert_int_eq(c.write_failed, 1);
	ck_assert_ptr_nonnull(strstr(c.err, "compact_0: File too large"));
	ck_assert_int_eq(c.rings[0].size, 2 * bytes);
	ck_assert_int_eq(file_size(d.out, "compact_0"), 2 * bytes);
	/* Nothing more is taken once a write failed. */
	ck_assert_int_eq(evt_consumer_drain(&c, &c.rings[0]), -1);
	evt_consumer_close(&c);
	lim.rlim_cur = RLIM_INFINITY;
	setrlimit(RLIMIT_FSIZE, &lim);
	remove_dirs(&d);
	free(p);
}
END_TEST

/*
 * A saved stream file: one packet of @bytes per timestamp_end in @ts (each
 * begins 5 earlier), its payload filled with the low byte of its ts_end.
 */
static void trim_stream(const char *dir, const char *name, const uint64_t *ts, unsigned int n,
			size_t bytes)
{
	uint8_t *p = calloc(n ? n : 1, bytes);
	unsigned int i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++) {
		struct evt_packet_header h = { .magic = EVT_CTF_MAGIC, .packet_seq_num = i,
					       .timestamp_begin = ts[i] - 5, .timestamp_end = ts[i],
					       .packet_size = bytes * 8,
					       .content_size = EVT_PACKET_HEADER_SIZE * 8 };

		memcpy(p + i * bytes, &h, sizeof(h));
		memset(p + i * bytes + sizeof(h), (int)(ts[i] & 0xff), bytes - sizeof(h));
	}
	put_file(dir, name, p, n * bytes);
	free(p);
}

/* The file holds exactly the whole packets ending at @ts, in order, intact. */
static void assert_stream(const char *dir, const char *name, const uint64_t *ts, unsigned int n,
			  size_t bytes)
{
	uint8_t *p = malloc(n * bytes + 1);
	char path[256];
	unsigned int i;
	size_t j;
	FILE *f;

	ck_assert_ptr_nonnull(p);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(p, 1, n * bytes + 1, f), n * bytes);
	fclose(f);
	for (i = 0; i < n; i++) {
		struct evt_packet_header h;

		memcpy(&h, p + i * bytes, sizeof(h));
		ck_assert_uint_eq(h.magic, EVT_CTF_MAGIC);
		ck_assert_uint_eq(h.packet_size, bytes * 8);
		ck_assert_uint_eq(h.timestamp_end, ts[i]);
		for (j = sizeof(h); j < bytes; j++)
			ck_assert_uint_eq(p[i * bytes + j], ts[i] & 0xff);
	}
	free(p);
}

static void trim_metadata(const char *dir)
{
	put_file(dir, "metadata", "/* CTF 1.8 */\n", 14);
}

static void assert_trim(const struct evt_trim_result *r, uint64_t pk, uint64_t pd, uint64_t bk,
			uint64_t bd)
{
	ck_assert_uint_eq(r->packets_kept, pk);
	ck_assert_uint_eq(r->packets_dropped, pd);
	ck_assert_uint_eq(r->bytes_kept, bk);
	ck_assert_uint_eq(r->bytes_dropped, bd);
}

/*
 * The time cut drops what ended before not_before, in every stream: a
 * packet ending at it stays (it began before, so a cut by
 * timestamp_begin, or with <=, drops it).
 */
START_TEST(trim_time_cut)
{
	static const uint64_t c0[] = { 10, 20, 30, 40, 50 }, n1[] = { 15, 25, 35, 45 };
	struct evt_trim_result r;
	struct tmpdirs d;
	char err[256];

	make_dirs(&d);
	trim_metadata(d.out);
	trim_stream(d.out, "compact_0", c0, 5, 256);
	trim_stream(d.out, "normal_1", n1, 4, 512);
	ck_assert_int_eq(evt_trim_trace(d.out, 30, 0, &r, err, sizeof(err)), 0);
	assert_stream(d.out, "compact_0", c0 + 2, 3, 256);
	assert_stream(d.out, "normal_1", n1 + 2, 2, 512);
	assert_trim(&r, 5, 4, 3 * 256 + 2 * 512, 2 * 256 + 2 * 512);
	ck_assert_int_eq(file_size(d.out, "metadata"), 14);

	/* Again: nothing older is left. Past the newest: every packet goes. */
	ck_assert_int_eq(evt_trim_trace(d.out, 30, 0, &r, err, sizeof(err)), 0);
	assert_trim(&r, 5, 0, 3 * 256 + 2 * 512, 0);
	ck_assert_int_eq(evt_trim_trace(d.out, 51, 0, &r, err, sizeof(err)), 0);
	assert_trim(&r, 0, 5, 0, 3 * 256 + 2 * 512);
	ck_assert_int_eq(file_size(d.out, "compact_0"), 0);
	ck_assert_int_eq(file_size(d.out, "normal_1"), 0);
	remove_dirs(&d);
}
END_TEST

/*
 * The size cut keeps the newest packets of the whole trace: three streams
 * with interleaved timestamps, a budget of the 4 newest (two of them twice
 * the size) keeps 9-12, two of them in one stream and none in compact_1's
 * older ones. A cut per stream (a share of the budget each, or the budget
 * each) keeps others.
 */
START_TEST(trim_size_cut)
{
	static const uint64_t c0[] = { 1, 4, 7, 10 }, c1[] = { 2, 5, 8, 11 }, n2[] = { 3, 6, 9, 12 };
	const uint64_t all = 8 * 256 + 4 * 512, budget = 2 * 256 + 2 * 512;
	struct evt_trim_result r;
	struct tmpdirs d;
	char err[256];

	make_dirs(&d);
	trim_metadata(d.out);
	trim_stream(d.out, "compact_0", c0, 4, 256);
	trim_stream(d.out, "compact_1", c1, 4, 256);
	trim_stream(d.out, "normal_2", n2, 4, 512);
	ck_assert_int_eq(evt_trim_trace(d.out, 0, budget + 255, &r, err, sizeof(err)), 0);
	assert_trim(&r, 4, 8, budget, all - budget);
	assert_stream(d.out, "compact_0", c0 + 3, 1, 256);
	assert_stream(d.out, "compact_1", c1 + 3, 1, 256);
	assert_stream(d.out, "normal_2", n2 + 2, 2, 512);

	/* Both cuts: the time cut first, then the budget (one byte short of 11 and 12). */
	ck_assert_int_eq(evt_trim_trace(d.out, 10, 256 + 512 - 1, &r, err, sizeof(err)), 0);
	assert_trim(&r, 1, 3, 512, budget - 512);
	ck_assert_int_eq(file_size(d.out, "compact_0"), 0);
	ck_assert_int_eq(file_size(d.out, "compact_1"), 0);
	assert_stream(d.out, "normal_2", n2 + 3, 1, 512);
	remove_dirs(&d);
}
END_TEST

/* Set a file's mtime far back: a rewrite would move it to now. */
static void age_file(const char *dir, const char *name)
{
	struct timespec t[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

static void assert_aged(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000000);
}

/*
 * No cut (both 0, or a time before every packet and a budget above the
 * trace) changes nothing: the files are not even rewritten.
 */
START_TEST(trim_no_cut)
{
	static const uint64_t c0[] = { 10, 20, 30 }, n1[] = { 15, 25 };
	const uint64_t all = 3 * 256 + 2 * 512;
	struct evt_trim_result r;
	struct tmpdirs d;
	char err[256];

	make_dirs(&d);
	trim_metadata(d.out);
	trim_stream(d.out, "compact_0", c0, 3, 256);
	trim_stream(d.out, "normal_1", n1, 2, 512);
	age_file(d.out, "compact_0");
	age_file(d.out, "normal_1");
	ck_assert_int_eq(evt_trim_trace(d.out, 0, 0, &r, err, sizeof(err)), 0);
	assert_trim(&r, 5, 0, all, 0);
	ck_assert_int_eq(evt_trim_trace(d.out, 10, all, &r, err, sizeof(err)), 0);
	assert_trim(&r, 5, 0, all, 0);
	assert_stream(d.out, "compact_0", c0, 3, 256);
	assert_stream(d.out, "normal_1", n1, 2, 512);
	assert_aged(d.out, "compact_0");
	assert_aged(d.out, "normal_1");
	remove_dirs(&d);
}
END_TEST

/*
 * An empty stream stays empty; a partial last packet is dropped bytes (cut
 * even without a cut asked for), the whole ones before it stay. Hidden
 * files are not streams.
 */
START_TEST(trim_empty_and_partial)
{
	static const uint64_t c1[] = { 10, 20, 30, 40 };
	struct evt_trim_result r;
	struct tmpdirs d;
	char err[256];

	make_dirs(&d);
	trim_metadata(d.out);
	trim_stream(d.out, "compact_0", NULL, 0, 256);
	trim_stream(d.out, "compact_1", c1, 4, 256);
	ck_assert_int_eq(truncate(strcat(strcpy(err, d.out), "/compact_1"), 3 * 256 + 100), 0);
	put_file(d.out, ".lock", "x", 1);
	ck_assert_int_eq(evt_trim_trace(d.out, 0, 0, &r, err, sizeof(err)), 0);
	assert_trim(&r, 3, 0, 3 * 256, 100);
	ck_assert_int_eq(file_size(d.out, "compact_0"), 0);
	assert_stream(d.out, "compact_1", c1, 3, 256);
	ck_assert_int_eq(file_size(d.out, ".lock"), 1);

	/* A header cut short (less than a packet header) is a partial packet too. */
	trim_stream(d.out, "compact_1", c1, 4, 256);
	ck_assert_int_eq(truncate(strcat(strcpy(err, d.out), "/compact_1"), 3 * 256 + 40), 0);
	ck_assert_int_eq(evt_trim_trace(d.out, 0, 256, &r, err, sizeof(err)), 0);
	assert_trim(&r, 1, 2, 256, 2 * 256 + 40);
	assert_stream(d.out, "compact_1", c1 + 2, 1, 256);
	ck_assert_int_eq(file_size(d.out, "compact_0"), 0);
	remove_dirs(&d);
}
END_TEST

/*
 * Refused, nothing touched: a directory without metadata, and one with a
 * file that is no stream (cutting it to its whole packets would erase it).
 */
START_TEST(trim_refuses)
{
	static const uint64_t c0[] = { 10, 20 };
	struct evt_trim_result r;
	struct tmpdirs d;
	char err[256];

	make_dirs(&d);
	trim_stream(d.out, "compact_0", c0, 2, 256);
	ck_assert_int_eq(evt_trim_trace(d.out, 15, 0, &r, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "no metadata"));
	ck_assert_ptr_nonnull(strstr(err, d.out));
	assert_stream(d.out, "compact_0", c0, 2, 256);

	trim_metadata(d.out);
	put_file(d.out, "notes.txt", "not a packet", 12);
	ck_assert_int_eq(evt_trim_trace(d.out, 15, 0, &r, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "notes.txt: not a stream file"));
	assert_stream(d.out, "compact_0", c0, 2, 256);
	ck_assert_int_eq(file_size(d.out, "notes.txt"), 12);
	remove_dirs(&d);
}
END_TEST

Suite *consumer_suite(void)
{
	Suite *s = suite_create("consumer");
	TCase *tc = tcase_create("consumer");

	tcase_add_test(tc, consumer_copies_metadata_whole);
	tcase_add_test(tc, consumer_opens_rings);
	tcase_add_test(tc, consumer_files_are_private);
	tcase_add_test(tc, consumer_append_keeps_whole_packets);
	tcase_add_loop_test(tc, consumer_moves_packets, 0, 6);
	tcase_add_loop_test(tc, consumer_failed_write_keeps_whole_packets, 0, 3);
	tcase_add_test(tc, trim_time_cut);
	tcase_add_test(tc, trim_size_cut);
	tcase_add_test(tc, trim_no_cut);
	tcase_add_test(tc, trim_empty_and_partial);
	tcase_add_test(tc, trim_refuses);
	suite_add_tcase(s, tc);
	return s;
}
