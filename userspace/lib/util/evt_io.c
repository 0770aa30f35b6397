// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "util/evt_esc.h"
#include "util/evt_io.h"

int evt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			/* Nothing taken of a non-empty write: it would loop for ever. */
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int evt_writev_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int evt_write_file_atomic(const char *path, const void *buf, size_t len, mode_t mode, int sync)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	int fd, e;

	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".XXXXXX", 8);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	if (evt_write_all(fd, buf, len) || fchmod(fd, mode) || (sync && fsync(fd))) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) || rename(tmp, path)) {
		e = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	errno = e;
	return -1;
}

void evt_errf(char *buf, size_t len, const char *fmt, ...)
{
	char raw[1024];
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/*
	 * A message quotes what it read (a metadata value, a file name): the
	 * programs' escaper (evt_fmt_esc) writes its control bytes as \xNN,
	 * never raw to a terminal.
	 */
	evt_fmt_esc(buf, len, raw);
}
