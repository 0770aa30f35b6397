/* SPDX-License-Identifier: GPL-2.0 */
/* A growable byte buffer and its reader: the saved forms of results (evt_buf.c). */
#ifndef EVT_BUF_H
#define EVT_BUF_H

#include <stddef.h>
#include <stdint.h>

struct evt_buf {
	uint8_t *p;
	size_t n, cap;
	int oom;
};
int evt_buf_put(struct evt_buf *b, const void *p, size_t n);
static inline int evt_buf_u64(struct evt_buf *b, uint64_t v)
{
	return evt_buf_put(b, &v, sizeof(v));
}
void evt_buf_free(struct evt_buf *b);
/* Reading a saved form: each get fails (-1) past the end. */
struct evt_rbuf {
	const uint8_t *p;
	size_t n, off;
};
int evt_rbuf_get(struct evt_rbuf *r, void *out, size_t n);
static inline int evt_rbuf_u64(struct evt_rbuf *r, uint64_t *v)
{
	return evt_rbuf_get(r, v, sizeof(*v));
}

#endif /* EVT_BUF_H */
