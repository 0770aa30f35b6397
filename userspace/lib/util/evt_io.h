/* SPDX-License-Identifier: GPL-2.0 */
/* Small I/O helpers shared by the programs. */
#ifndef EVT_IO_H
#define EVT_IO_H

#include <stddef.h>

/* write() until all of @len is out; retries EINTR. 0, or -1 with errno. */
int evt_write_all(int fd, const void *buf, size_t len);

#endif
