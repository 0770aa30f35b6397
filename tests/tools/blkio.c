// SPDX-License-Identifier: GPL-2.0
/*
 * blkio DEV GO: block I/O of known sizes on DEV for the VM tests (block
 * events, lttng-iolatencytop, lttng-iousagetop, evstat's I/O section).
 * Opens DEV twice before it starts (so that a state dump taken meanwhile
 * names both descriptors): fd 3 O_DIRECT, fd 4 buffered. Prints "ready",
 * waits until the file GO exists, then on fd 3: 16 writes of 64 KiB, 64
 * reads of 4 KiB, 8 reads of 128 KiB (each a request of that size: no
 * page cache in between); on fd 4: one read of 256 KiB (read-ahead's
 * requests, whatever their sizes). Prints what it did, one line per kind:
 * "write|read FD COUNT BYTES".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void io(int fd, int write_, size_t size, unsigned int count, off_t *off, char *buf)
{
	unsigned int i;

	for (i = 0; i < count; i++, *off += (off_t)size) {
		ssize_t n = write_ ? pwrite(fd, buf, size, *off) : pread(fd, buf, size, *off);

		if (n != (ssize_t)size)
			die(write_ ? "pwrite" : "pread");
	}
	printf("%s %d %u %zu\n", write_ ? "write" : "read", fd, count, size * count);
}

int main(int argc, char **argv)
{
	char *buf;
	off_t off = 0;
	int d, b;

	if (argc != 3) {
		fprintf(stderr, "usage: blkio DEV GO\n");
		return 2;
	}
	/* Descriptors 3 and 4, named in the tests' expectations. */
	d = open(argv[1], O_RDWR | O_DIRECT);
	b = open(argv[1], O_RDONLY);
	if (d != 3 || b != 4)
		die("open (want descriptors 3 and 4)");
	if (posix_memalign((void **)&buf, 4096, 256 << 10))
		die("posix_memalign");
	memset(buf, 0xa5, 256 << 10);
	printf("ready\n");
	fflush(stdout);
	while (access(argv[2], F_OK))
		usleep(20000);
	io(d, 1, 64 << 10, 16, &off, buf);
	off = 0;
	io(d, 0, 4 << 10, 64, &off, buf);
	io(d, 0, 128 << 10, 8, &off, buf);
	off = 4 << 20;
	io(b, 0, 256 << 10, 1, &off, buf);
	return 0;
}
