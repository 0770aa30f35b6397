// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "evt_format.h"
#include "evt_io.h"

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
