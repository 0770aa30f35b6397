// SPDX-License-Identifier: GPL-2.0
/* The "power" computation: see evt_comp_power.h. */
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "engine/evt_comp_power.h"
#include "engine/evt_comp_util.h"
#include "ctf/evt_decode.h"

#define POWER_MAGIC 0x57505345u		/* "ESPW" */
#define POWER_VERSION 1

static struct evt_power_cpu *cpu_of(struct evt_power *p, uint32_t cpu)
{
	uint32_t i;

	for (i = 0; i < p->nr_cpus && p->cpus[i].cpu <= cpu; i++)
		if (p->cpus[i].cpu == cpu)
			return &p->cpus[i];
	if (cpu >= EVT_MAX_CPUS ||
	    evt_grow(&p->cpus, &p->cap_cpus, (size_t)p->nr_cpus + 1, sizeof(*p->cpus)))
		return NULL;
	memmove(&p->cpus[i + 1], &p->cpus[i], (p->nr_cpus - i) * sizeof(*p->cpus));
	p->nr_cpus++;
	memset(&p->cpus[i], 0, sizeof(p->cpus[i]));
	p->cpus[i].cpu = cpu;
	return &p->cpus[i];
}

const struct evt_power_cpu *evt_power_cpu(const struct evt_power *p, uint32_t cpu)
{
	uint32_t i;

	for (i = 0; i < p->nr_cpus; i++)
		if (p->cpus[i].cpu == cpu)
			return &p->cpus[i];
	return NULL;
}

/* The index of the last change at or before @ts, or -1. */
static long last_at(const struct evt_power_change *c, uint32_t n, uint64_t ts)
{
	long lo = -1, hi = (long)n;

	while (lo + 1 < hi) {
		long mid = lo + (hi - lo) / 2;

		if (c[mid].ts <= ts)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint32_t evt_power_at(const struct evt_power_change *changes, uint32_t n, uint64_t ts)
{
	long i = last_at(changes, n, ts);

	return i < 0 ? EVT_POWER_UNKNOWN : changes[i].value;
}

/* Add @ns at @value to a small table sorted by value: 0, or -1 (no memory). */
static int time_add(struct evt_power_time **t, uint32_t *n, uint32_t value, uint64_t ns)
{
	uint32_t i;

	for (i = 0; i < *n && (*t)[i].value < value; i++)
		;
	if (i < *n && (*t)[i].value == value) {
		(*t)[i].ns += ns;
		return 0;
	}
	if (!(*n & (*n + 1)) || !*t) {
		/* Capacities of 2^k - 1 entries: grow when full. */
		struct evt_power_time *g = realloc(*t, (size_t)(*n * 2 + 2) * sizeof(**t));

		if (!g)
			return -1;
		*t = g;
	}
	memmove(&(*t)[i + 1], &(*t)[i], (*n - i) * sizeof(**t));
	(*t)[i].value = value;
	(*t)[i].ns = ns;
	(*n)++;
	return 0;
}

uint32_t evt_power_mostly(const struct evt_power_change *c, uint32_t n, uint64_t end, uint64_t from,
			  uint64_t to, double *mean)
{
	struct evt_power_time *t = NULL;
	uint32_t nt = 0, best = EVT_POWER_UNKNOWN, k;
	uint64_t best_ns = 0, wsum = 0, wns = 0;
	long i = last_at(c, n, from);

	if (i < 0)
		i = 0;
	for (; (uint32_t)i < n && c[i].ts < to; i++) {
		uint64_t a = c[i].ts > from ? c[i].ts : from;
		uint64_t z = (uint32_t)i + 1 < n ? c[i + 1].ts : end;

		if (z > to)
			z = to;
		if (z <= a)
			continue;
		if (time_add(&t, &nt, c[i].value, z - a))
			break;
		if (c[i].value != EVT_POWER_RUNNING) {
			wsum += (uint64_t)c[i].value * (z - a);
			wns += z - a;
		}
	}
	for (k = 0; k < nt; k++)
		if (t[k].ns > best_ns) {
			best_ns = t[k].ns;
			best = t[k].value;
		}
	free(t);
	if (mean)
		*mean = wns ? (double)wsum / (double)wns : 0.0;
	return best;
}

/* ---- Hooks ---- */

static int on_power(void *data, void *call)
{
	struct evt_power *p = data;
	const struct evt_engine_event *ev = call;
	const int idle = !strcmp(ev->desc->name, "power_cpu_idle");
	struct evt_field_val st, cpu;
	struct evt_power_cpu *c;
	struct evt_power_change **v;
	uint32_t *n, *cap;

	if (evt_payload_field(ev->desc, ev->payload, ev->len, "state", &st) ||
	    evt_payload_field(ev->desc, ev->payload, ev->len, "cpu_id", &cpu) || cpu.u >= EVT_MAX_CPUS)
		return 0;
	c = cpu_of(p, (uint32_t)cpu.u);
	if (!c) {
		p->failed = 1;
		return 0;
	}
	v = idle ? &c->idle : &c->freq;
	n = idle ? &c->nr_idle : &c->nr_freq;
	cap = idle ? &c->cap_idle : &c->cap_freq;
	/* Events of one CPU may come from another CPU's stream: keep time order. */
	if (*n && (*v)[*n - 1].ts > ev->ts)
		return 0;
	if (*n && (*v)[*n - 1].value == (uint32_t)st.u)
		return 0;
	if (evt_grow(v, cap, (size_t)*n + 1, sizeof(**v))) {
		p->failed = 1;
		return 0;
	}
	(*v)[*n].ts = ev->ts;
	(*v)[(*n)++].value = (uint32_t)st.u;
	return 0;
}

/* ---- The computation ---- */

static void *power_create(struct evt_etrace *t)
{
	(void)t;
	return calloc(1, sizeof(struct evt_power));
}

static void power_destroy(void *r)
{
	struct evt_power *p = r;
	uint32_t i;

	for (i = 0; i < p->nr_cpus; i++) {
		free(p->cpus[i].idle);
		free(p->cpus[i].freq);
		free(p->cpus[i].idle_ns);
		free(p->cpus[i].freq_ns);
	}
	free(p->cpus);
	free(p);
}

static int power_adder(struct evt_ctx *ctx, void *r)
{
	return evt_ctx_add_event(ctx, "power_cpu_idle", on_power, r) ||
	       evt_ctx_add_event(ctx, "power_cpu_frequency", on_power, r) ? -1 : 0;
}

static void power_remover(struct evt_ctx *ctx, void *r)
{
	evt_ctx_remove_event(ctx, "power_cpu_idle", on_power, r);
	evt_ctx_remove_event(ctx, "power_cpu_frequency", on_power, r);
}

/* The time per value of @c's changes, each until the next (the last until @end). */
static int totals(const struct evt_power_change *c, uint32_t n, uint64_t end, struct evt_power_time **t,
		  uint32_t *nt)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t z = i + 1 < n ? c[i + 1].ts : end;

		if (z > c[i].ts && time_add(t, nt, c[i].value, z - c[i].ts))
			return -1;
	}
	return 0;
}

static int power_totals(struct evt_power *p)
{
	uint32_t i;

	for (i = 0; i < p->nr_cpus; i++) {
		struct evt_power_cpu *c = &p->cpus[i];

		if (totals(c->idle, c->nr_idle, p->end, &c->idle_ns, &c->nr_idle_ns) ||
		    totals(c->freq, c->nr_freq, p->end, &c->freq_ns, &c->nr_freq_ns))
			return -1;
	}
	return 0;
}

static void power_finish(void *r, const struct evt_where *w)
{
	struct evt_power *p = r;

	/* The states last until the trace's last event, whatever it is. */
	if (w && w->trace && w->rt > evt_etrace_offset_ns(w->trace))
		p->end = w->rt - evt_etrace_offset_ns(w->trace);
	if (power_totals(p))
		p->failed = 1;
}

static void put_changes(struct evt_buf *b, const struct evt_power_change *c, uint32_t n)
{
	uint32_t i;

	evt_buf_u64(b, n);
	for (i = 0; i < n; i++) {
		evt_buf_u64(b, c[i].ts);
		evt_buf_u64(b, c[i].value);
	}
}

static int get_changes(struct evt_rbuf *rb, struct evt_power_change **c, uint32_t *n, uint32_t *cap)
{
	uint64_t cnt, v;
	uint32_t i;

	if (evt_rbuf_u64(rb, &cnt) || cnt > (rb->n - rb->off) / 16 ||
	    evt_grow(c, cap, (size_t)cnt + 1, sizeof(**c)))
		return -1;
	for (i = 0; i < cnt; i++) {
		if (evt_rbuf_u64(rb, &(*c)[i].ts) || evt_rbuf_u64(rb, &v) || v > UINT32_MAX ||
		    (i && (*c)[i].ts < (*c)[i - 1].ts))
			return -1;
		(*c)[i].value = (uint32_t)v;
	}
	*n = (uint32_t)cnt;
	return 0;
}

static int power_save(const void *r, struct evt_buf *b)
{
	const struct evt_power *p = r;
	uint32_t i;

	if (p->failed)
		return -1;
	evt_buf_u64(b, POWER_MAGIC);
	evt_buf_u64(b, p->end);
	evt_buf_u64(b, p->nr_cpus);
	for (i = 0; i < p->nr_cpus; i++) {
		evt_buf_u64(b, p->cpus[i].cpu);
		put_changes(b, p->cpus[i].idle, p->cpus[i].nr_idle);
		put_changes(b, p->cpus[i].freq, p->cpus[i].nr_freq);
	}
	return b->oom ? -1 : 0;
}

static int power_load(void *res, const uint8_t *buf, size_t n)
{
	struct evt_power *p = res;
	struct evt_rbuf rb = { .p = buf, .n = n };
	uint64_t v, cnt;
	uint32_t i;

	if (evt_rbuf_u64(&rb, &v) || v != POWER_MAGIC || evt_rbuf_u64(&rb, &p->end) || evt_rbuf_u64(&rb, &cnt) ||
	    cnt > EVT_MAX_CPUS)
		return -1;
	for (i = 0; i < cnt; i++) {
		struct evt_power_cpu *c;

		if (evt_rbuf_u64(&rb, &v) || v >= EVT_MAX_CPUS || !(c = cpu_of(p, (uint32_t)v)) || c->nr_idle ||
		    c->nr_freq || get_changes(&rb, &c->idle, &c->nr_idle, &c->cap_idle) ||
		    get_changes(&rb, &c->freq, &c->nr_freq, &c->cap_freq))
			return -1;
	}
	return rb.off == n && !power_totals(p) ? 0 : -1;
}

const struct evt_computation evt_comp_power = {
	.name = "power", .version = POWER_VERSION,
	.create = power_create, .destroy = power_destroy,
	.hook_adder = power_adder, .hook_remover = power_remover, .finish = power_finish,
	.save = power_save, .load = power_load,
};
