// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the shapes of a trace directory. The files' bytes are
 * a real trace's (evsynth's, made once); the input decides which names
 * there are, what kind of file each is and how much of it is there:
 *
 *   byte 0        flags: bit 0 open on 3 threads too, bit 1 grow the
 *                 files after opening, bit 2 --cpu 0 only
 *   entries       [name][kind][size: u16 LE], at most 12:
 *     name  % 14  metadata, compact_0, compact_1, normal_0, normal_1,
 *                 compact_00, compact_99999999, compact_8192, normal_,
 *                 metadata.tmp, compact_1.bak, notes, compact_7, normal_7
 *     kind  % 6   0 a regular file: the template's file of that name,
 *                 whole for size 0xffff, else cut to size % (its length
 *                 + 1) (a name the template lacks: size zero bytes); 1 empty; 2 a FIFO; 3 a directory;
 *                 4 a symlink to compact_0; 5 a symlink to /dev/null
 *                 (a later entry of the same name replaces an earlier one)
 *
 * Checked with FZ_ASSERT: the open never hangs (a FIFO, a device); on
 * one thread and on three it gives the same result and the same message;
 * a failure is one line of printable text naming the directory; an open
 * trace has only canonical stream names, and the tree and the list merge
 * count the same events (with the same error); with the files grown after
 * the open, the same count (the reader reads what it mapped).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "fuzz_read.h"
#include "synth/evt_synth.h"

#define FD_NAMES 14
#define FD_ENTRIES 12

static const char *const fd_names[FD_NAMES] = {
	"metadata", "compact_0", "compact_1", "normal_0", "normal_1", "compact_00",
	"compact_99999999", "compact_8192", "normal_", "metadata.tmp", "compact_1.bak", "notes",
	"compact_7", "normal_7",
};

/* The template trace's files, by name index (NULL: none of that name). */
static struct {
	uint8_t *p;
	size_t len;
} fd_tmpl[FD_NAMES];
static char fd_dir[256];

static void fd_remove(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", fd_dir, name);
	if (unlink(path) && errno == EISDIR)
		rmdir(path);
	rmdir(path);
}

static void fd_clean(void)
{
	unsigned int i;

	for (i = 0; i < FD_NAMES; i++)
		fd_remove(fd_names[i]);
}

static void fd_atexit(void)
{
	if (fd_dir[0]) {
		fd_clean();
		rmdir(fd_dir);
	}
}

/* The template (once) and the working directory. */
static void fd_setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	struct evt_synth_params p;
	struct evt_synth_result r;
	char tdir[256], path[512], err[256];
	unsigned int i;

	if (fd_dir[0])
		return;
	snprintf(tdir, sizeof(tdir), "%s/evt-fuzzdir-tmpl-XXXXXX", base);
	FZ_ASSERT(mkdtemp(tdir));
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 3000;
	p.normal_pct = 20;
	p.subbuf_size = 4096;
	FZ_ASSERT(evt_synth_write(tdir, &p, &r, err, sizeof(err)) == 0);
	for (i = 0; i < FD_NAMES; i++) {
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/%s", tdir, fd_names[i]);
		f = fopen(path, "rb");
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		fd_tmpl[i].p = malloc((size_t)n + 1);
		FZ_ASSERT(fd_tmpl[i].p);
		FZ_ASSERT(fread(fd_tmpl[i].p, 1, (size_t)n, f) == (size_t)n);
		fd_tmpl[i].len = (size_t)n;
		fclose(f);
		unlink(path);
	}
	rmdir(tdir);
	snprintf(fd_dir, sizeof(fd_dir), "%s/evt-fuzzdir-XXXXXX", base);
	FZ_ASSERT(mkdtemp(fd_dir));
	atexit(fd_atexit);
}

static void fd_make(unsigned int name, unsigned int kind, size_t size)
{
	char path[512];
	int fd;

	fd_remove(fd_names[name]);
	snprintf(path, sizeof(path), "%s/%s", fd_dir, fd_names[name]);
	switch (kind) {
	case 0:
	case 1:
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		FZ_ASSERT(fd >= 0);
		if (kind == 0 && fd_tmpl[name].p) {
			size = size == 0xffff ? fd_tmpl[name].len : size % (fd_tmpl[name].len + 1);
			FZ_ASSERT(write(fd, fd_tmpl[name].p, size) == (ssize_t)size);
		} else if (kind == 0) {
			FZ_ASSERT(ftruncate(fd, (off_t)size) == 0);
		}
		close(fd);
		break;
	case 2:
		FZ_ASSERT(mkfifo(path, 0600) == 0);
		break;
	case 3:
		FZ_ASSERT(mkdir(path, 0700) == 0);
		break;
	case 4:
		FZ_ASSERT(symlink("compact_0", path) == 0);
		break;
	default:
		FZ_ASSERT(symlink("/dev/null", path) == 0);
		break;
	}
}

int fz_dir_one(const uint8_t *data, size_t size)
{
	static uint8_t cpu0[1] = { 1 };
	struct evt_trace_opts o1 = { .threads = 1, .warn = fz_warn }, o3 = { .threads = 3, .warn = fz_warn };
	struct evt_trace t1, t3;
	char e1[EVT_TRACE_ERRLEN], e2[EVT_TRACE_ERRLEN];
	unsigned int i, n = 0;
	int r1, r3;

	if (size < 1)
		return 0;
	fd_setup();
	fd_clean();
	for (i = 1; i + 4 <= size && n < FD_ENTRIES; i += 4, n++)
		fd_make(data[i] % FD_NAMES, data[i + 1] % 6, (size_t)data[i + 2] | (size_t)data[i + 3] << 8);
	if (data[0] & 4) {
		o1.cpu_set = o3.cpu_set = cpu0;
		o1.cpu_set_bits = o3.cpu_set_bits = 8;
	}
	r1 = evt_trace_open(&t1, fd_dir, &o1);
	if (r1) {
		FZ_ASSERT(strstr(t1.err, fd_dir) && !strchr(t1.err, '\n'));
		fz_printable(t1.err);
	}
	if (data[0] & 1) {
		r3 = evt_trace_open(&t3, fd_dir, &o3);
		FZ_ASSERT(r3 == r1);
		if (r3)
			FZ_ASSERT(!strcmp(t3.err, t1.err));
		else
			evt_trace_close(&t3);
	}
	if (!r1) {
		long a, b;

		for (i = 0; i < t1.nr_streams; i++) {
			char name[32];

			snprintf(name, sizeof(name), "%s_%u", evt_channel_name(t1.streams[i].channel),
				 t1.streams[i].cpu);
			FZ_ASSERT(!strcmp(name, t1.streams[i].name));
		}
		a = fz_count_events(&t1, EVT_MERGE_TREE, e1, sizeof(e1));
		b = fz_count_events(&t1, EVT_MERGE_LIST, e2, sizeof(e2));
		FZ_ASSERT(a == b && !strcmp(e1, e2));
		fz_printable(e1);
		if (data[0] & 2) {
			/* Appended after the mapping: not read, nothing changes. */
			for (i = 0; i < t1.nr_streams; i++) {
				char path[512];
				int fd;

				snprintf(path, sizeof(path), "%s/%s", fd_dir, t1.streams[i].name);
				fd = open(path, O_WRONLY | O_APPEND);
				if (fd >= 0) {
					FZ_ASSERT(write(fd, "grown", 5) == 5 || errno == EBADF);
					close(fd);
				}
			}
			b = fz_count_events(&t1, EVT_MERGE_TREE, e2, sizeof(e2));
			FZ_ASSERT(a == b && !strcmp(e1, e2));
		}
		evt_trace_close(&t1);
	}
	return 0;
}

FZ_TARGET(fz_dir_one)
