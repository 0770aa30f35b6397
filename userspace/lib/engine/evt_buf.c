// SPDX-License-Identifier: GPL-2.0
/* The serialisation buffers of saved results (evt_buf.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine/evt_buf.h"

int evt_buf_put(struct evt_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return -1;
	if (b->cap - b->n < n) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *q;

		while (cap - b->n < n) {
			if (cap > SIZE_MAX / 2) {
				b->oom = 1;
				return -1;
			}
			cap *= 2;
		}
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return -1;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

void evt_buf_free(struct evt_buf *b)
{
	free(b->p);
	*b = (struct evt_buf){ 0 };
}

int evt_rbuf_get(struct evt_rbuf *r, void *out, size_t n)
{
	if (r->n - r->off < n)
		return -1;
	memcpy(out, r->p + r->off, n);
	r->off += n;
	return 0;
}
