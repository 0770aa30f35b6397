// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
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
	size_t i, o = 0;
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/*
	 * A message quotes what it read (a metadata value, a file name): its
	 * control bytes are written as \xNN, never sent raw to a terminal.
	 */
	for (i = 0; raw[i] && o + 1 < len; i++) {
		const unsigned char ch = (unsigned char)raw[i];

		if (ch >= 0x20 && ch != 0x7f) {
			buf[o++] = (char)ch;
		} else if (o + 4 < len) {
			snprintf(buf + o, len - o, "\\x%02x", ch);
			o += 4;
		} else {
			break;
		}
	}
	buf[o] = 0;
}
