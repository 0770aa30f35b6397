/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the library and the programs. */
#ifndef EVT_IO_H
#define EVT_IO_H

#include <stddef.h>
#include <sys/types.h>

/* write() until all of @len is out; retries EINTR. 0, or -1 with errno. */
int evt_write_all(int fd, const void *buf, size_t len);

/* writev() until all of @iov (@n, none empty) is out; retries EINTR; @iov is used up. 0, or -1 with errno. */
struct iovec;
int evt_writev_all(int fd, struct iovec *iov, int n);

/*
 * @len bytes of @buf as the file @path: written aside (PATH.XXXXXX, made
 * with O_EXCL, then @mode; fsynced when @sync) and renamed over it, so that
 * a reader sees the old file or the new one whole. 0, or -1 with errno.
 */
int evt_write_file_atomic(const char *path, const void *buf, size_t len, mode_t mode, int sync);

/* printf into @buf (at most @len bytes, always terminated): the library's error texts. */
__attribute__((format(printf, 3, 4)))
void evt_errf(char *buf, size_t len, const char *fmt, ...);

#endif
