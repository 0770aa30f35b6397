// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the watermark reorderer (evt_reorder) and the k-way
 * merges (evt_merge.h) fed event sequences derived from the input.
 *
 *   byte 0    sources - 1 (low 3 bits: 1..8), bit 3: wide timestamps
 *             (jumps up to 2^62, keys clamped), bits 4-5: delay in ticks
 *   then      operations, one byte each (op = b >> 5, a = b & 31) with
 *             operands from the following bytes:
 *     0, 1    push to source a % k at its clock + a signed step (next byte)
 *     2       push with a payload (push_event): the next byte's low bits
 *             the length, the bytes after it the payload
 *     3       quiescent time for source a % k (its clock + next byte)
 *     4       source a % k done (a & 8: added again)
 *     5       tick
 *     6       pull up to a + 1 events
 *     7       a jump of source a % k's clock (next byte, shifted)
 *   at the end: finish, pull everything.
 *
 * The same operations drive a reorderer with the tree and one with the
 * list; a model checks, with FZ_ASSERT, at every pull: each pushed event
 * comes out exactly once with its timestamp, source, value and payload; an
 * event is flagged late exactly when it was pushed at or before the newest
 * timestamp emitted then; every event not flagged late is not before any
 * event emitted earlier, and equal timestamps come in (source, arrival)
 * order; nothing after the flush bound comes out before the finish, and a
 * pull that gives nothing leaves nothing at or before the bound queued; the
 * statistics add up (pushed = emitted + queued; late and inserted counted).
 * Both merges give the same sequence. Then the merges on their own: sorted
 * sources cut from the input, merged by the tree and by the list, against a
 * sort of all keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "consumer/evt_reorder.h"

#define FZ_MAX_SRC 8

struct pushed {
	uint64_t ts;
	uint32_t src;
	uint32_t len;
	const uint8_t *payload;	/* NULL: a plain push */
	int late;		/* expected flag */
	int out;		/* emitted */
};

struct model {
	struct evt_reorder r;
	struct pushed *p;	/* by arrival (the reorderer's seq) */
	size_t n, cap;
	uint64_t newest;	/* max ts emitted */
	int any;
	uint64_t emitted, late, wide;
	uint64_t prev_ts;	/* last emitted, not late */
	uint32_t prev_src;
	uint64_t prev_seq;
	int have_prev;
	uint64_t *order;	/* seq of each emitted event */
	size_t norder, ocap;
};

static void model_push(struct model *m, uint64_t ts, uint32_t src, const uint8_t *payload, uint32_t len)
{
	struct pushed *e;
	int rc;

	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->p = realloc(m->p, m->cap * sizeof(*m->p));
		FZ_ASSERT(m->p);
	}
	if (payload) {
		struct evt_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.ts = ts;
		ev.desc_index = (len + src) % evt_nr_events;
		ev.desc = &evt_events[ev.desc_index];
		ev.payload = payload;
		ev.payload_len = len;
		rc = evt_reorder_push_event(&m->r, src, src + 100, &ev);
	} else {
		rc = evt_reorder_push(&m->r, src, ts, ts ^ 0x5555aaaa5555aaaaULL ^ m->n);
	}
	FZ_ASSERT(rc == 0);
	e = &m->p[m->n];
	e->ts = ts;
	e->src = src;
	e->payload = payload;
	e->len = len;
	e->late = m->any && ts <= m->newest;
	e->out = 0;
	m->late += (uint64_t)e->late;
	m->n++;
	FZ_ASSERT(m->r.st.pushed == m->n);
	FZ_ASSERT(m->r.st.late == m->late);
	FZ_ASSERT(m->r.st.pushed == m->r.st.emitted + m->r.st.queued);
}

/* Pull up to @max events (0: all there are); returns how many. */
static size_t model_pull(struct model *m, size_t max)
{
	struct evt_reorder_item it;
	size_t got = 0;
	uint64_t bound = 0;
	int bv, rc;

	bv = evt_reorder_bound(&m->r, &bound);
	while (!max || got < max) {
		struct pushed *e;

		rc = evt_reorder_pull(&m->r, &it);
		FZ_ASSERT(rc == 0 || rc == 1);
		if (!rc) {
			size_t i;

			/* Nothing left at or before the bound (finished: nothing at all). */
			for (i = 0; i < m->n; i++)
				if (!m->p[i].out && bv)
					FZ_ASSERT(!m->r.finished && m->p[i].ts > bound);
			break;
		}
		FZ_ASSERT(it.seq < m->n);
		e = &m->p[it.seq];
		FZ_ASSERT(!e->out);
		e->out = 1;
		FZ_ASSERT(bv && it.ts <= bound);
		FZ_ASSERT(it.ts == e->ts && it.src == e->src);
		FZ_ASSERT(!!(it.flags & EVT_REORDER_LATE) == e->late);
		if (e->payload) {
			FZ_ASSERT(it.len == e->len && it.cpu == e->src + 100);
			FZ_ASSERT(it.data && (!e->len || !memcmp(it.data, e->payload, e->len)));
			FZ_ASSERT(((uintptr_t)it.data & 7) == 0);
		} else {
			FZ_ASSERT(it.user == (e->ts ^ 0x5555aaaa5555aaaaULL ^ it.seq));
		}
		if (!e->late) {
			/*
			 * In time order after everything emitted before (keys that are
			 * clamped, 2^61 ns apart and more, are ordered by source only).
			 */
			if (!m->wide) {
				FZ_ASSERT(!m->any || it.ts >= m->newest);
				if (m->have_prev && it.ts == m->prev_ts)
					FZ_ASSERT(m->prev_src < it.src ||
						  (m->prev_src == it.src && m->prev_seq < it.seq));
			}
			m->prev_ts = it.ts;
			m->prev_src = it.src;
			m->prev_seq = it.seq;
			m->have_prev = 1;
		}
		if (!m->any || it.ts > m->newest)
			m->newest = it.ts;
		m->any = 1;
		m->emitted++;
		if (m->norder == m->ocap) {
			m->ocap = m->ocap ? m->ocap * 2 : 256;
			m->order = realloc(m->order, m->ocap * sizeof(*m->order));
			FZ_ASSERT(m->order);
		}
		m->order[m->norder++] = it.seq;
		got++;
		FZ_ASSERT(m->r.st.emitted == m->emitted);
		FZ_ASSERT(m->r.st.pushed == m->r.st.emitted + m->r.st.queued);
	}
	return got;
}

/* ---- The merges on their own, against a sort ---- */

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void merge_check(const uint8_t *data, size_t size)
{
	uint32_t k = 1 + (size ? data[0] % 37 : 0), i, *len, *pos, *at;
	uint64_t *keys, *all, *ts;
	unsigned char *has;
	size_t n = 0, j, total = 0;
	int kind;

	/* Byte j goes to source data[j] % k, its key growing by data[j] / k. */
	len = calloc(k, sizeof(*len));
	pos = calloc(k, sizeof(*pos));
	at = calloc(k, sizeof(*at));
	ts = calloc(k, sizeof(*ts));
	has = calloc(k, 1);
	keys = malloc((size + 1) * sizeof(*keys));
	all = malloc((size + 1) * sizeof(*all));
	FZ_ASSERT(len && pos && at && ts && has && keys && all);
	for (j = 1; j < size; j++)
		len[data[j] % k]++;
	for (i = 1; i < k; i++)
		at[i] = at[i - 1] + len[i - 1];
	for (j = 1; j < size; j++) {
		uint32_t s = data[j] % k;
		uint64_t prev = pos[s] ? keys[at[s] + pos[s] - 1] : 0;

		keys[at[s] + pos[s]++] = prev + data[j] / k;
	}
#define SRC(s, q) keys[at[s] + (q)]
	for (kind = 0; kind < 2; kind++) {
		struct evt_merge m;

		FZ_ASSERT(evt_merge_init(&m, kind ? EVT_MERGE_LIST : EVT_MERGE_TREE, k) == 0);
		for (i = 0; i < k; i++) {
			pos[i] = 0;
			has[i] = len[i] > 0;
			ts[i] = has[i] ? SRC(i, 0) : 0;
		}
		evt_merge_build(&m, ts, has);
		n = 0;
		for (;;) {
			evt_mkey_t top = evt_merge_top(&m);
			uint32_t s;

			if (top == EVT_MKEY_NONE)
				break;
			s = evt_mkey_src(&m, top);
			FZ_ASSERT(s < k && pos[s] < len[s]);
			FZ_ASSERT(evt_mkey_rel(&m, top) == SRC(s, pos[s]));
			FZ_ASSERT(n < size);
			all[n++] = top;
			pos[s]++;
			evt_merge_replace(&m, pos[s] < len[s] ? evt_mkey(&m, SRC(s, pos[s]), s) : EVT_MKEY_NONE);
		}
		if (!kind) {
			total = n;
			/* Sorted, and every key there: the same as sorting them all. */
			for (j = 1; j < n; j++)
				FZ_ASSERT(all[j - 1] <= all[j]);
			FZ_ASSERT(n == (size ? size - 1 : 0));
		} else {
			uint64_t *sorted = malloc((n + 1) * sizeof(*sorted));
			size_t q = 0;

			FZ_ASSERT(sorted && n == total);
			for (i = 0; i < k; i++)
				for (j = 0; j < len[i]; j++)
					sorted[q++] = evt_mkey(&m, SRC(i, j), i);
			qsort(sorted, q, sizeof(*sorted), key_cmp);
			FZ_ASSERT(!memcmp(sorted, all, n * sizeof(*all)));
			free(sorted);
		}
		evt_merge_free(&m);
	}
#undef SRC
	free(len);
	free(pos);
	free(at);
	free(ts);
	free(has);
	free(keys);
	free(all);
}

int fz_reorder_one(const uint8_t *data, size_t size)
{
	struct model m[2];
	uint64_t clock[FZ_MAX_SRC];
	uint32_t k, delay, i;
	size_t pos = 1;
	int wide, x;

	if (size < 1)
		return 0;
	merge_check(data, size);
	k = (data[0] & 7) + 1;
	wide = !!(data[0] & 8);
	delay = (data[0] >> 4) & 3;
	memset(m, 0, sizeof(m));
	for (x = 0; x < 2; x++)
		FZ_ASSERT(evt_reorder_init(&m[x].r, k, delay, x ? EVT_MERGE_LIST : EVT_MERGE_TREE) == 0);
	for (i = 0; i < k; i++)
		clock[i] = 1000 + (uint64_t)i * 7;
	while (pos < size) {
		uint8_t b = data[pos++], op = b >> 5, a = b & 31, nb = 0;
		uint32_t s = a % k;

		/* The operand byte, if the op takes one (0 past the end). */
		if (op != 4 && op != 5 && op != 6 && pos < size)
			nb = data[pos++];

		switch (op) {
		case 0:
		case 1: {
			int8_t step = (int8_t)nb;

			/* Steps back make out-of-order and late events. */
			if (step < 0 && clock[s] < (uint64_t)-step)
				clock[s] = 0;
			else
				clock[s] += (uint64_t)(int64_t)step;
			for (x = 0; x < 2; x++)
				model_push(&m[x], clock[s], s, NULL, 0);
			break;
		}
		case 2: {
			uint32_t len = nb & 63;

			if (len > size - pos)
				len = (uint32_t)(size - pos);
			clock[s] += a & 3;
			for (x = 0; x < 2; x++)
				model_push(&m[x], clock[s], s, data + pos, len);
			pos += len;
			break;
		}
		case 3:
			for (x = 0; x < 2; x++)
				evt_reorder_quiescent(&m[x].r, s, clock[s] + nb);
			break;
		case 4:
			for (x = 0; x < 2; x++) {
				if (a & 8)
					evt_reorder_source_add(&m[x].r, s);
				else
					evt_reorder_source_done(&m[x].r, s);
			}
			break;
		case 5:
			for (x = 0; x < 2; x++)
				evt_reorder_tick(&m[x].r);
			break;
		case 6:
			for (x = 0; x < 2; x++)
				FZ_ASSERT(model_pull(&m[x], (size_t)a + 1) <= (size_t)a + 1);
			FZ_ASSERT(m[0].norder == m[1].norder);
			break;
		case 7:
			if (wide) {
				clock[s] += (uint64_t)nb << (nb & 63) % 55;
				for (x = 0; x < 2; x++)
					m[x].wide = 1;
			} else {
				clock[s] += (uint64_t)nb << 16;
			}
			break;
		}
	}
	for (x = 0; x < 2; x++) {
		evt_reorder_finish(&m[x].r);
		model_pull(&m[x], 0);
		/* Everything came out, once. */
		FZ_ASSERT(m[x].emitted == m[x].n);
		FZ_ASSERT(m[x].r.st.queued == 0 && m[x].r.st.pushed == m[x].n);
		FZ_ASSERT(m[x].r.st.late == m[x].late);
		FZ_ASSERT(m[x].r.st.inserted <= m[x].n);
		FZ_ASSERT(m[x].r.st.max_queued <= m[x].n);
	}
	/* The tree and the list: the same sequence. */
	FZ_ASSERT(m[0].norder == m[1].norder);
	FZ_ASSERT(!m[0].norder || !memcmp(m[0].order, m[1].order, m[0].norder * sizeof(*m[0].order)));
	for (x = 0; x < 2; x++) {
		evt_reorder_free(&m[x].r);
		free(m[x].p);
		free(m[x].order);
	}
	return 0;
}

FZ_TARGET(fz_reorder_one)
