// SPDX-License-Identifier: GPL-2.0
/* What the built-in computations share (evt_comp_util.h). */
#include <stdlib.h>
#include <string.h>
#include "engine/evt_comp_util.h"

/* ---- Event kinds ---- */

static const struct {
	const char *name;
	enum evt_kind kind;
	const char *fields[EVT_KF_MAX];
} kind_names[] = {
	{ "exit_syscall", EVT_K_SYS_EXIT, { "ret" } },
	{ "irq_handler_entry", EVT_K_IRQ_ENTRY, { "irq", "name" } },
	{ "irq_handler_exit", EVT_K_IRQ_EXIT, { "irq" } },
	{ "softirq_entry", EVT_K_SOFTIRQ_ENTRY, { "vec" } },
	{ "softirq_exit", EVT_K_SOFTIRQ_EXIT, { "vec" } },
	{ "softirq_raise", EVT_K_SOFTIRQ_RAISE, { "vec" } },
	{ "sched_switch", EVT_K_SWITCH,
	  { "prev_comm", "prev_tid", "prev_state", "next_comm", "next_tid", "prev_prio", "next_prio" } },
	{ "sched_wakeup", EVT_K_WAKEUP, { "comm", "tid", "prio" } },
	{ "sched_wakeup_new", EVT_K_WAKEUP, { "comm", "tid", "prio" } },
	{ "sched_waking", EVT_K_WAKING, { "comm", "tid", "prio" } },
	{ "sched_migrate_task", EVT_K_MIGRATE, { "comm", "tid", "prio", "orig_cpu", "dest_cpu" } },
	{ "sched_process_fork", EVT_K_FORK,
	  { "parent_tid", "parent_pid", "child_comm", "child_tid", "child_pid" } },
	{ "sched_process_exec", EVT_K_EXEC, { "tid", "filename" } },
	{ "sched_process_exit", EVT_K_EXIT, { "comm", "tid", "prio" } },
	{ "sched_process_free", EVT_K_FREE, { "comm", "tid", "prio" } },
	{ "lttng_statedump_process_state", EVT_K_SD_PROCESS, { "tid", "pid", "ppid", "name", "status" } },
};

static void classify(struct evt_kind_entry *e, const struct evt_event_desc *d)
{
	size_t i;
	unsigned int f;

	memset(e, 0, sizeof(*e));
	memset(e->off, 0xff, sizeof(e->off));
	e->kind = EVT_K_OTHER;
	if (!strncmp(d->name, "sys_", 4) || !strncmp(d->name, "compat_sys_", 11)) {
		e->kind = EVT_K_SYS_ENTRY;
		return;
	}
	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
		if (strcmp(d->name, kind_names[i].name))
			continue;
		e->kind = (uint8_t)kind_names[i].kind;
		for (f = 0; f < EVT_KF_MAX && kind_names[i].fields[f]; f++) {
			enum evt_field_type t;
			int off = evt_field_offset(d, kind_names[i].fields[f], &t);

			/* Offsets past int16 are no layout of ours: the field is "absent". */
			if (off >= 0 && off < INT16_MAX) {
				e->off[f] = (int16_t)off;
				e->type[f] = (uint8_t)t;
			}
		}
		return;
	}
}

const struct evt_kind_entry *evt_kind_slow(struct evt_kinds *k, const struct evt_engine_event *ev)
{
	const struct evt_catalogue *cat = ev->tr->md.cat;

	if (k->cat != cat) {
		struct evt_kind_entry *e = calloc(cat->nr_events ? cat->nr_events : 1, sizeof(*e));

		if (!e)
			return NULL;
		free(k->e);
		k->e = e;
		k->n = cat->nr_events;
		k->cat = cat;
	}
	if (ev->idx >= k->n)
		return NULL;
	classify(&k->e[ev->idx], &cat->events[ev->idx]);
	return &k->e[ev->idx];
}

void evt_kinds_free(struct evt_kinds *k)
{
	free(k->e);
	memset(k, 0, sizeof(*k));
}

int evt_kf_str(const struct evt_engine_event *ev, const struct evt_kind_entry *ke, unsigned int f,
	       char *out, size_t size)
{
	size_t off, max, n;
	const uint8_t *p, *nul;

	out[0] = '\0';
	if (ke->off[f] < 0 || (size_t)ke->off[f] >= ev->len)
		return 0;
	off = (size_t)ke->off[f];
	max = ev->len - off;
	if (ke->type[f] == EVT_F_COMM && max > 16)
		max = 16;
	p = ev->payload + off;
	nul = memchr(p, 0, max);
	n = nul ? (size_t)(nul - p) : max;
	if (n > size - 1)
		n = size - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 1;
}

int evt_kf_exec_comm(const struct evt_engine_event *ev, const struct evt_kind_entry *ke, int32_t *tid, char *comm)
{
	char file[256];
	const char *base;

	*tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_X_TID);
	if (*tid <= 0 || !evt_kf_str(ev, ke, EVT_KF_X_FILENAME, file, sizeof(file)))
		return -1;
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	/* No name in it ("dir/", ""): nothing to rename to (nothing can be exec'd so). */
	if (!*base)
		return -1;
	memset(comm, 0, 16);
	memcpy(comm, base, strnlen(base, 15));
	return 0;
}

/* ---- tid -> index ---- */

static uint32_t tid_hash(int32_t tid)
{
	return (uint32_t)tid * 2654435761U;
}

long evt_tidmap_get(const struct evt_tidmap *m, int32_t tid)
{
	uint32_t i;

	if (!m->cap)
		return -1;
	for (i = tid_hash(tid) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->v[i].idx == UINT32_MAX)
			return -1;
		if (m->v[i].tid == tid)
			return m->v[i].idx;
	}
}

static void tidmap_put(struct evt_tidslot *v, uint32_t cap, int32_t tid, uint32_t idx)
{
	uint32_t i;

	for (i = tid_hash(tid) & (cap - 1); v[i].idx != UINT32_MAX && v[i].tid != tid;
	     i = (i + 1) & (cap - 1))
		;
	v[i].tid = tid;
	v[i].idx = idx;
}

int evt_tidmap_set(struct evt_tidmap *m, int32_t tid, uint32_t idx)
{
	long old = evt_tidmap_get(m, tid);

	if (old < 0 && (m->n + 1) * 2 > m->cap) {
		/* At most half full: probes stay short. */
		uint32_t cap = m->cap ? m->cap * 2 : 64, i;
		struct evt_tidslot *v = malloc(cap * sizeof(*v));

		if (!v)
			return -1;
		for (i = 0; i < cap; i++)
			v[i].idx = UINT32_MAX;
		for (i = 0; i < m->cap; i++)
			if (m->v[i].idx != UINT32_MAX)
				tidmap_put(v, cap, m->v[i].tid, m->v[i].idx);
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	if (old < 0)
		m->n++;
	tidmap_put(m->v, m->cap, tid, idx);
	return 0;
}

void evt_tidmap_free(struct evt_tidmap *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* ---- Arrays ---- */

int evt_grow(void *vp, uint32_t *cap, size_t need, size_t size)
{
	void **v = vp;
	size_t c = *cap;
	void *n;

	if (need <= c)
		return 0;
	if (need > UINT32_MAX)
		return -1;
	while (c < need)
		c = c ? c * 2 : 16;
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	n = realloc(*v, c * size);
	if (!n)
		return -1;
	*v = n;
	*cap = (uint32_t)c;
	return 0;
}

/* ---- Saved forms ---- */

int evt_put_u8(struct evt_buf *b, uint8_t v)
{
	return evt_buf_put(b, &v, 1);
}

int evt_put_u32(struct evt_buf *b, uint32_t v)
{
	uint8_t p[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return evt_buf_put(b, p, sizeof(p));
}

int evt_put_u64(struct evt_buf *b, uint64_t v)
{
	uint8_t p[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return evt_buf_put(b, p, sizeof(p));
}

int evt_put_str(struct evt_buf *b, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return -1;
	return evt_put_u32(b, (uint32_t)len) || evt_buf_put(b, s, len) ? -1 : 0;
}

int evt_get_u8(struct evt_rbuf *r, uint8_t *v)
{
	return evt_rbuf_get(r, v, 1);
}

int evt_get_u32(struct evt_rbuf *r, uint32_t *v)
{
	uint8_t p[4];

	if (evt_rbuf_get(r, p, sizeof(p)))
		return -1;
	*v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return 0;
}

int evt_get_u64(struct evt_rbuf *r, uint64_t *v)
{
	uint8_t p[8];
	unsigned int i;

	if (evt_rbuf_get(r, p, sizeof(p)))
		return -1;
	*v = 0;
	for (i = 0; i < 8; i++)
		*v |= (uint64_t)p[i] << (8 * i);
	return 0;
}

int evt_get_count(struct evt_rbuf *r, uint32_t *n, size_t min_bytes, uint32_t max)
{
	if (evt_get_u32(r, n) || *n > max)
		return -1;
	/* Each element takes min_bytes: a count the bytes left cannot hold is a lie. */
	if (min_bytes && *n > evt_rbuf_left(r) / min_bytes)
		return -1;
	return 0;
}

int evt_get_str(struct evt_rbuf *r, char **s, uint32_t max)
{
	uint32_t len;
	char *p;

	if (evt_get_count(r, &len, 1, max))
		return -1;
	p = malloc((size_t)len + 1);
	if (!p)
		return -1;
	if (evt_rbuf_get(r, p, len) || memchr(p, 0, len)) {
		free(p);
		return -1;
	}
	p[len] = '\0';
	*s = p;
	return 0;
}
