// SPDX-License-Identifier: GPL-2.0
/*
 * evsplicekeep: splice a sub-buffer into a pipe, close the device, keep the
 * pipe; read it only after the module is gone.
 *
 *   evsplicekeep DEVICE READY_FILE GO_FILE
 *
 * Flushes the ring, takes its first sub-buffer, splices it whole into a
 * pipe, releases it and closes the device (so rmmod can proceed), creates
 * READY_FILE, waits for GO_FILE to appear, then reads the pipe to the end
 * and checks the packet magic. The pipe's buffers point at the ring's pages
 * and at operations the kernel calls back: neither may belong to an
 * unloaded module. Exit 0 when the packet came back whole, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <evtrace/abi.h>

static int fail(const char *what)
{
	fprintf(stderr, "evsplicekeep: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	uint64_t padded;
	uint32_t magic;
	char buf[65536];
	size_t got = 0;
	ssize_t n;
	int fd, p[2], ready;
	struct stat st;

	if (argc != 4) {
		fprintf(stderr, "usage: evsplicekeep DEVICE READY_FILE GO_FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(argv[1]);
	if (ioctl(fd, EVT_IOC_FLUSH) && errno != ENOTTY)
		return fail("FLUSH");
	if (ioctl(fd, EVT_IOC_GET_NEXT_SUBBUF))
		return fail("GET_NEXT_SUBBUF");
	if (ioctl(fd, EVT_IOC_GET_PADDED_SUBBUF_SIZE, &padded))
		return fail("GET_PADDED_SUBBUF_SIZE");
	if (padded > sizeof(buf)) {
		fprintf(stderr, "evsplicekeep: sub-buffer of %llu bytes is too big for this test\n",
			(unsigned long long)padded);
		return 1;
	}
	if (pipe(p))
		return fail("pipe");
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	while (got < padded) {
		n = splice(fd, NULL, p[1], NULL, padded - got, 0);
		if (n <= 0)
			return fail("splice");
		got += (size_t)n;
	}
	if (ioctl(fd, EVT_IOC_PUT_NEXT_SUBBUF))
		return fail("PUT_NEXT_SUBBUF");
	close(fd);
	close(p[1]);
	ready = open(argv[2], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (ready < 0)
		return fail(argv[2]);
	close(ready);
	while (stat(argv[3], &st))
		usleep(10000);
	got = 0;
	while ((n = read(p[0], buf + got, sizeof(buf) - got)) > 0)
		got += (size_t)n;
	if (n < 0)
		return fail("read pipe");
	memcpy(&magic, buf, sizeof(magic));
	printf("evsplicekeep: read %zu bytes from the pipe after the module went, magic 0x%08x\n",
	       got, magic);
	return got == padded && magic == EVT_CTF_MAGIC ? 0 : 1;
}
