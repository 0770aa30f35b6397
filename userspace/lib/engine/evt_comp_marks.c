// SPDX-License-Identifier: GPL-2.0
/*
 * The marks computation: what a timeline needs besides the scheduler
 * (the state computation has that): per CPU the time of its first event
 * and the times of irq_handler_entry and softirq_entry. A window of any
 * width then counts a column's interrupts by binary search, exactly as
 * reading its events would.
 */
#include <stdlib.h>
#include <string.h>
#include "engine/evt_comp_marks.h"
#include "engine/evt_comp_util.h"

#define MARKS_MAX_CPUS 8192

struct evt_marks {
	struct evt_kinds kinds;
	struct evt_marks_cpu *cpus;
	unsigned int nr_cpus;
	int failed;			/* out of memory: not saved, not used */
};

static void *marks_create(struct evt_etrace *t)
{
	(void)t;
	return calloc(1, sizeof(struct evt_marks));
}

static void marks_destroy(void *r)
{
	struct evt_marks *m = r;

	for (unsigned int i = 0; i < m->nr_cpus; i++)
		for (int k = 0; k < EVT_MARK_KINDS; k++)
			free(m->cpus[i].t[k]);
	free(m->cpus);
	evt_kinds_free(&m->kinds);
	free(m);
}

static struct evt_marks_cpu *marks_cpu_get(struct evt_marks *m, unsigned int cpu)
{
	if (cpu >= MARKS_MAX_CPUS)
		return NULL;
	if (cpu >= m->nr_cpus) {
		struct evt_marks_cpu *c = realloc(m->cpus, (cpu + 1) * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + m->nr_cpus, 0, (cpu + 1 - m->nr_cpus) * sizeof(*c));
		m->cpus = c;
		m->nr_cpus = cpu + 1;
	}
	return &m->cpus[cpu];
}

static int marks_push(struct evt_marks_cpu *c, int k, uint64_t ts)
{
	if (c->n[k] == c->cap[k]) {
		size_t cap = c->cap[k] ? 2 * c->cap[k] : 256;
		uint64_t *t = realloc(c->t[k], cap * sizeof(*t));

		if (!t)
			return -1;
		c->t[k] = t;
		c->cap[k] = cap;
	}
	c->t[k][c->n[k]++] = ts;
	return 0;
}

int evt_marks_event_hook(void *data, void *call)
{
	struct evt_marks *m = data;
	const struct evt_engine_event *ev = call;
	const struct evt_kind_entry *ke;
	struct evt_marks_cpu *c;
	int k;

	if (m->failed)
		return 0;
	ke = evt_kind_of(&m->kinds, ev);
	c = marks_cpu_get(m, ev->cpu);
	if (!ke || !c) {
		m->failed = 1;
		return 0;
	}
	if (!c->seen) {
		c->seen = 1;
		c->first = ev->ts;
	}
	if (ke->kind == EVT_K_SWITCH && !c->switched && evt_kf_int(ev, ke, EVT_KF_PREV_TID) >= 0 &&
	    evt_kf_int(ev, ke, EVT_KF_NEXT_TID) >= 0) {
		c->switched = 1;
		c->first_switch = ev->ts;
		c->first_prev = (int32_t)evt_kf_int(ev, ke, EVT_KF_PREV_TID);
	}
	if (ke->kind == EVT_K_IRQ_ENTRY)
		k = EVT_MARK_IRQ;
	else if (ke->kind == EVT_K_SOFTIRQ_ENTRY)
		k = EVT_MARK_SOFTIRQ;
	else
		return 0;
	if (marks_push(c, k, ev->ts))
		m->failed = 1;
	return 0;
}

static int marks_adder(struct evt_ctx *ctx, void *r)
{
	return evt_hooks_add(&ctx->event, evt_marks_event_hook, r);
}

static void marks_remover(struct evt_ctx *ctx, void *r)
{
	evt_hooks_remove(&ctx->event, evt_marks_event_hook, r);
}

static int marks_save(const void *r, struct evt_buf *b)
{
	const struct evt_marks *m = r;

	if (m->failed)
		return -1;
	evt_buf_u64(b, m->nr_cpus);
	for (unsigned int i = 0; i < m->nr_cpus; i++) {
		const struct evt_marks_cpu *c = &m->cpus[i];

		evt_buf_u64(b, (uint64_t)c->seen);
		evt_buf_u64(b, c->first);
		evt_buf_u64(b, (uint64_t)c->switched);
		evt_buf_u64(b, c->first_switch);
		evt_buf_u64(b, (uint64_t)(uint32_t)c->first_prev);
		for (int k = 0; k < EVT_MARK_KINDS; k++) {
			evt_buf_u64(b, c->n[k]);
			for (size_t j = 0; j < c->n[k]; j++)
				evt_buf_u64(b, c->t[k][j]);
		}
	}
	return b->oom ? -1 : 0;
}

static int marks_load(void *r, const uint8_t *p, size_t n)
{
	struct evt_marks *m = r;
	struct evt_rbuf rb = { .p = p, .n = n };
	uint64_t ncpu, v;

	if (evt_rbuf_u64(&rb, &ncpu) || ncpu > MARKS_MAX_CPUS || ncpu > (n - rb.off) / 56)
		return -1;
	if (ncpu && !marks_cpu_get(m, (unsigned int)ncpu - 1))
		return -1;
	for (unsigned int i = 0; i < m->nr_cpus; i++) {
		struct evt_marks_cpu *c = &m->cpus[i];

		if (evt_rbuf_u64(&rb, &v) || v > 1 || evt_rbuf_u64(&rb, &c->first))
			return -1;
		c->seen = (int)v;
		if (evt_rbuf_u64(&rb, &v) || v > 1 || evt_rbuf_u64(&rb, &c->first_switch))
			return -1;
		c->switched = (int)v;
		if (evt_rbuf_u64(&rb, &v) || v > UINT32_MAX)
			return -1;
		c->first_prev = (int32_t)(uint32_t)v;
		for (int k = 0; k < EVT_MARK_KINDS; k++) {
			if (evt_rbuf_u64(&rb, &v) || v > (n - rb.off) / 8)
				return -1;
			c->t[k] = malloc((v ? v : 1) * sizeof(uint64_t));
			if (!c->t[k])
				return -1;
			c->n[k] = c->cap[k] = (size_t)v;
			for (size_t j = 0; j < c->n[k]; j++)
				if (evt_rbuf_u64(&rb, &c->t[k][j]) || (j && c->t[k][j] < c->t[k][j - 1]) ||
				    c->t[k][j] < c->first)
					return -1;
		}
	}
	return rb.off == n ? 0 : -1;
}

const struct evt_computation evt_comp_marks = {
	.name = "marks", .version = 1,
	.create = marks_create, .destroy = marks_destroy,
	.hook_adder = marks_adder, .hook_remover = marks_remover,
	.save = marks_save, .load = marks_load,
};

int evt_marks_complete(const struct evt_marks *m)
{
	return !m->failed;
}

unsigned int evt_marks_nr_cpus(const struct evt_marks *m)
{
	return m->failed ? 0 : m->nr_cpus;
}

const struct evt_marks_cpu *evt_marks_cpu(const struct evt_marks *m, unsigned int cpu)
{
	return cpu < evt_marks_nr_cpus(m) && m->cpus[cpu].seen ? &m->cpus[cpu] : NULL;
}

/* Times in @v[0..n) below @ts. */
static size_t below(const uint64_t *v, size_t n, uint64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t evt_marks_count(const struct evt_marks *m, unsigned int cpu, enum evt_mark_kind kind, uint64_t a,
		       uint64_t b)
{
	const struct evt_marks_cpu *c = evt_marks_cpu(m, cpu);

	if (!c || b <= a)
		return 0;
	return below(c->t[kind], c->n[kind], b) - below(c->t[kind], c->n[kind], a);
}
