// SPDX-License-Identifier: GPL-2.0
/*
 * The "state" computation's queries (a CPU's thread, a thread's state at a
 * time, the busiest threads), its saved form and its entry in the engine;
 * the building is evt_comp_state.c.
 */
#include <stdlib.h>
#include <string.h>
#include "engine/evt_comp_state_int.h"

/* ---- Queries ---- */

void evt_state_span(const struct evt_state *st, uint64_t *first, uint64_t *last)
{
	*first = st->first_ts;
	*last = st->last_ts;
}

unsigned int evt_state_nr_cpus(const struct evt_state *st)
{
	return st->nr_cpus;
}

size_t evt_state_cpu_nr_intervals(const struct evt_state *st, unsigned int cpu)
{
	return cpu < st->nr_cpus ? st->cpus[cpu].n : 0;
}

int evt_state_cpu_interval(const struct evt_state *st, unsigned int cpu, size_t i,
			   struct evt_state_interval *iv)
{
	const struct state_cpu *c;

	if (cpu >= st->nr_cpus || i >= st->cpus[cpu].n)
		return -1;
	c = &st->cpus[cpu];
	iv->begin = c->begin[i];
	iv->end = i + 1 < c->n ? c->begin[i + 1] : st->last_ts;
	iv->tid = c->tid[i];
	iv->state = EVT_TSTATE_UNKNOWN;
	return 0;
}

/* The last of @n sorted times that is <= @ts, or -1. */
static long last_at_or_before(const uint64_t *v, uint32_t n, uint64_t ts)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

int32_t evt_state_cpu_tid_at(const struct evt_state *st, unsigned int cpu, uint64_t ts)
{
	long i;

	if (cpu >= st->nr_cpus || ts > st->last_ts)
		return -1;
	i = last_at_or_before(st->cpus[cpu].begin, st->cpus[cpu].n, ts);
	return i < 0 ? -1 : st->cpus[cpu].tid[i];
}

const struct evt_state_thread *evt_state_thread(const struct evt_state *st, int32_t tid)
{
	long i = evt_tidmap_get(&st->map, tid);

	return i < 0 ? NULL : &st->th[i];
}

size_t evt_state_nr_threads(const struct evt_state *st)
{
	return st->nr_th;
}

const struct evt_state_thread *evt_state_thread_nth(const struct evt_state *st, size_t i)
{
	return i < st->nr_th ? &st->th[i] : NULL;
}

enum evt_tstate evt_state_thread_at(const struct evt_state_thread *t, uint64_t ts)
{
	uint32_t lo = 0, hi = t->nblk, end;
	uint64_t d;

	/* The last block based at or before @ts, then its last change at or before it. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->blk[mid].base <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return EVT_TSTATE_UNKNOWN;
	d = ts - t->blk[lo - 1].base;
	end = lo < t->nblk ? t->blk[lo].first : t->nch;
	hi = end;
	lo = t->blk[lo - 1].first;
	if (d >= DELTA_LIMIT)
		return (enum evt_tstate)change_state(t, end - 1);
	/* The block's first change has delta 0 <= d: the answer is in [lo, end). */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((t->ch[mid] >> STATE_BITS) <= d)
			lo = mid;
		else
			hi = mid;
	}
	return (enum evt_tstate)change_state(t, lo);
}

int evt_state_thread_interval(const struct evt_state *st, const struct evt_state_thread *t, size_t i,
			      struct evt_state_interval *iv)
{
	if (i >= t->nch)
		return -1;
	iv->begin = change_ts(t, (uint32_t)i);
	iv->end = i + 1 < t->nch ? change_ts(t, (uint32_t)i + 1) : st->last_ts;
	iv->tid = t->tid;
	iv->state = change_state(t, (uint32_t)i);
	return 0;
}

static int by_cpu_time(const void *a, const void *b)
{
	const struct evt_state_thread *x = *(const struct evt_state_thread *const *)a;
	const struct evt_state_thread *y = *(const struct evt_state_thread *const *)b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

size_t evt_state_top_threads(const struct evt_state *st, const struct evt_state_thread **out, size_t max)
{
	const struct evt_state_thread **all;
	size_t n = 0, i;

	if (!max || !st->nr_th)
		return 0;
	all = malloc(st->nr_th * sizeof(*all));
	if (!all)
		return 0;
	for (i = 0; i < st->nr_th; i++)
		if (st->th[i].tid)
			all[n++] = &st->th[i];
	qsort(all, n, sizeof(*all), by_cpu_time);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*all));
	free(all);
	return n;
}

/* ---- The computation ---- */

static void *state_create(struct evt_etrace *t)
{
	(void)t;
	return evt_state_new();
}

static void state_destroy(void *r)
{
	evt_state_free(r);
}

static int state_add(struct evt_ctx *ctx, void *r)
{
	return evt_hooks_add(&ctx->event, evt_state_event_hook, r);
}

static void state_remove(struct evt_ctx *ctx, void *r)
{
	evt_hooks_remove(&ctx->event, evt_state_event_hook, r);
}

static void state_finish(void *r, const struct evt_where *w)
{
	(void)w;
	evt_state_close(r);
}

/*
 * The saved form (little-endian): magic, version, first and last times;
 * the CPUs, each its change points (u64 begin, s32 tid); the threads in
 * order of first sight, each tid, pid, ppid, comm[16], cpu_ns, cpu_lossy_ns and its
 * history as it is in memory: its blocks (u64 base, u32 first change)
 * and its changes (u32 each).
 */
static int state_save(const void *r, struct evt_buf *b)
{
	const struct evt_state *st = r;
	uint32_t i, j;
	int err = 0;

	err |= evt_put_u32(b, STATE_MAGIC) | evt_put_u32(b, STATE_VERSION);
	err |= evt_put_u64(b, st->first_ts) | evt_put_u64(b, st->last_ts);
	err |= evt_put_u32(b, st->nr_cpus);
	for (i = 0; i < st->nr_cpus && !err; i++) {
		const struct state_cpu *c = &st->cpus[i];

		err |= evt_put_u32(b, c->n);
		for (j = 0; j < c->n; j++)
			err |= evt_put_u64(b, c->begin[j]) | evt_put_s32(b, c->tid[j]);
	}
	err |= evt_put_u32(b, st->nr_th);
	for (i = 0; i < st->nr_th && !err; i++) {
		const struct evt_state_thread *t = &st->th[i];

		err |= evt_put_s32(b, t->tid) | evt_put_s32(b, t->pid) | evt_put_s32(b, t->ppid);
		err |= evt_buf_put(b, t->comm, sizeof(t->comm));
		err |= evt_put_u64(b, t->cpu_ns) | evt_put_u64(b, t->cpu_lossy_ns) | evt_put_u32(b, t->nblk);
		for (j = 0; j < t->nblk; j++)
			err |= evt_put_u64(b, t->blk[j].base) | evt_put_u32(b, t->blk[j].first);
		err |= evt_put_u32(b, t->nch);
		for (j = 0; j < t->nch; j++)
			err |= evt_put_u32(b, t->ch[j]);
	}
	return err || b->oom ? -1 : 0;
}

/*
 * A thread's history as saved: its blocks, then its changes, checked so
 * that the queries' binary searches hold: blocks start at 0 and go up,
 * their bases go up past the block before's last change, and within a
 * block the first change is at its base and times go up.
 */
static int load_history(struct evt_state_thread *t, struct evt_rbuf *r)
{
	uint32_t nblk, n, b, i;

	if (evt_get_count(r, &nblk, 12, UINT32_MAX) ||
	    (nblk && evt_grow(&t->blk, &t->cap_blk, nblk, sizeof(*t->blk))))
		return -1;
	for (b = 0; b < nblk; b++)
		if (evt_get_u64(r, &t->blk[b].base) || evt_get_u32(r, &t->blk[b].first) ||
		    t->blk[b].base > UINT64_MAX - DELTA_LIMIT ||
		    (b ? t->blk[b].first <= t->blk[b - 1].first : t->blk[b].first != 0))
			return -1;
	if (evt_get_count(r, &n, 4, UINT32_MAX) || (n && evt_grow(&t->ch, &t->cap_ch, n, sizeof(*t->ch))) ||
	    (!n != !nblk) || (n && (!t->tid || t->blk[nblk - 1].first >= n)))
		return -1;
	for (i = 0; i < n; i++) {
		if (evt_get_u32(r, &t->ch[i]) || (t->ch[i] & ((1u << STATE_BITS) - 1)) >= EVT_TSTATE_COUNT)
			return -1;
	}
	for (b = 0, i = 0; b < nblk; b++) {
		const uint32_t end = b + 1 < nblk ? t->blk[b + 1].first : n;

		if (t->ch[i] >> STATE_BITS ||
		    (b && t->blk[b].base <= t->blk[b - 1].base + (t->ch[i - 1] >> STATE_BITS)))
			return -1;
		for (i++; i < end; i++)
			if (t->ch[i] >> STATE_BITS <= t->ch[i - 1] >> STATE_BITS)
				return -1;
	}
	t->nblk = nblk;
	t->nch = n;
	t->last_ch = n ? change_ts(t, n - 1) : 0;
	return 0;
}

static int load_into(struct evt_state *st, struct evt_rbuf *r)
{
	uint32_t magic, version, ncpu, nth, i, j;

	if (evt_get_u32(r, &magic) || magic != STATE_MAGIC || evt_get_u32(r, &version) ||
	    version != STATE_VERSION || evt_get_u64(r, &st->first_ts) || evt_get_u64(r, &st->last_ts) ||
	    st->first_ts > st->last_ts)
		return -1;
	if (evt_get_count(r, &ncpu, 4, EVT_MAX_CPUS))
		return -1;
	if (ncpu && !evt_state_get_cpu(st, ncpu - 1))
		return -1;
	for (i = 0; i < ncpu; i++) {
		struct state_cpu *c = &st->cpus[i];
		uint32_t n;

		if (evt_get_count(r, &n, 12, UINT32_MAX))
			return -1;
		if (evt_grow(&c->begin, &c->cap_begin, n, sizeof(*c->begin)) ||
		    evt_grow(&c->tid, &c->cap_tid, n, sizeof(*c->tid)))
			return -1;
		for (j = 0; j < n; j++) {
			if (evt_get_u64(r, &c->begin[j]) || evt_get_s32(r, &c->tid[j]) || c->tid[j] < -1 ||
			    (j && c->begin[j] <= c->begin[j - 1]) || c->begin[j] < st->first_ts ||
			    c->begin[j] > st->last_ts)
				return -1;
		}
		c->n = n;
	}
	/* tid, pid, ppid, comm, cpu_ns, cpu_lossy_ns, nblk, nch: 52 bytes at least. */
	if (evt_get_count(r, &nth, 52, UINT32_MAX - 1))
		return -1;
	for (i = 0; i < nth; i++) {
		struct evt_state_thread *t;
		int32_t tid;
		uint32_t n;

		if (evt_get_s32(r, &tid) || tid < 0 || !(t = evt_state_new_thread(st, tid)))
			return -1;
		if (evt_get_s32(r, &t->pid) || evt_get_s32(r, &t->ppid) ||
		    evt_rbuf_get(r, t->comm, sizeof(t->comm)) || !memchr(t->comm, 0, sizeof(t->comm)) ||
		    evt_get_u64(r, &t->cpu_ns) || evt_get_u64(r, &t->cpu_lossy_ns) || load_history(t, r))
			return -1;
		n = t->nch;
		t->state = n ? change_state(t, n - 1) : EVT_TSTATE_UNKNOWN;
	}
	return r->off == r->n ? 0 : -1;
}

static int state_load(void *res, const uint8_t *p, size_t n)
{
	struct evt_state *st = res, tmp;
	struct evt_rbuf r = { p, n, 0 };

	memset(&tmp, 0, sizeof(tmp));
	if (load_into(&tmp, &r)) {
		evt_state_clear(&tmp);
		return -1;
	}
	evt_state_clear(st);
	*st = tmp;
	st->seen = st->nr_cpus || st->nr_th || st->last_ts;
	return 0;
}

static int32_t state_running_tid(const void *r, unsigned int cpu, uint64_t ts)
{
	int32_t tid = evt_state_cpu_tid_at(r, cpu, ts);

	return tid < 0 ? -2 : tid;
}

const struct evt_computation evt_comp_state = {
	.name = "state",
	.version = STATE_VERSION,
	.create = state_create,
	.destroy = state_destroy,
	.hook_adder = state_add,
	.hook_remover = state_remove,
	.finish = state_finish,
	.save = state_save,
	.load = state_load,
	.running_tid = state_running_tid,
};
