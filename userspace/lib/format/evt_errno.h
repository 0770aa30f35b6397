/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the errno values a syscall's exit returns, as the kernel's
 * headers spell them ("EAGAIN", "ERESTARTSYS"): one table for every tool,
 * independent of the C library that reads the trace (strerrorname_np()
 * knows neither the kernel's internal values nor a newer kernel's).
 */
#ifndef EVT_ERRNO_H
#define EVT_ERRNO_H

#include <stdint.h>

/* "EAGAIN" for -11; NULL when @ret is not a known -errno (ret >= 0 included; 41 and 58 are unused). */
const char *evt_errno_name(int64_t ret);

#endif /* EVT_ERRNO_H */
