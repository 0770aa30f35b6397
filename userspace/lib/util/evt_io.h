/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the library and the programs. */
#ifndef EVT_IO_H
#define EVT_IO_H

#include <stddef.h>

/* write() until all of @len is out; retries EINTR. 0, or -1 with errno. */
int evt_write_all(int fd, const void *buf, size_t len);

/* printf into @buf (at most @len bytes, always terminated): the library's error texts. */
__attribute__((format(printf, 3, 4)))
void evt_errf(char *buf, size_t len, const char *fmt, ...);

#endif
