// SPDX-License-Identifier: GPL-2.0
/* The task running on each CPU while a trace is read: see evt_curtask.h. */
#include <stdlib.h>
#include <string.h>
#include <evtrace/limits.h>
#include "engine/evt_comp_util.h"
#include "engine/evt_curtask.h"
#include "ctf/evt_stream.h"

#define CURTASK_MAGIC 0x4b534154u	/* "TASK" */
#define CURTASK_VERSION 1

struct ct_cpu {
	int32_t cur;		/* -1: unknown */
	uint64_t since;
};

struct ct_thread {
	int32_t tid, pid;
	char comm[16];
	uint8_t freed;		/* sched_process_free seen: not saved, the tid may come back as another */
};

struct evt_curtask {
	struct ct_cpu *cpus;
	uint32_t nr_cpus, cap_cpus;
	struct ct_thread *th;
	uint32_t nr_th, cap_th;
	struct evt_tidmap map;
	struct evt_kinds kinds;
	uint64_t first_ts;
	int seen;
	evt_slice_fn slice_fn;
	void *slice_data;
	evt_thread_fn thread_fn;
	void *thread_data;
};

struct evt_curtask *evt_curtask_new(void)
{
	return calloc(1, sizeof(struct evt_curtask));
}

void evt_curtask_free(struct evt_curtask *c)
{
	if (!c)
		return;
	free(c->cpus);
	free(c->th);
	evt_tidmap_free(&c->map);
	evt_kinds_free(&c->kinds);
	free(c);
}

void evt_curtask_on_slice(struct evt_curtask *c, evt_slice_fn fn, void *data)
{
	c->slice_fn = fn;
	c->slice_data = data;
}

void evt_curtask_on_thread(struct evt_curtask *c, evt_thread_fn fn, void *data)
{
	c->thread_fn = fn;
	c->thread_data = data;
}

static void tell_thread(const struct evt_curtask *c, const struct ct_thread *t)
{
	struct evt_task out;

	if (!c->thread_fn)
		return;
	out.tid = t->tid;
	out.pid = t->pid;
	memcpy(out.comm, t->comm, sizeof(out.comm));
	c->thread_fn(c->thread_data, &out);
}

int32_t evt_curtask_cur(const struct evt_curtask *c, unsigned int cpu)
{
	return cpu < c->nr_cpus ? c->cpus[cpu].cur : -1;
}

void evt_curtask_threads(const struct evt_curtask *c, evt_thread_fn fn, void *data)
{
	uint32_t i;

	for (i = 0; i < c->nr_th; i++) {
		struct evt_task out = { c->th[i].tid, c->th[i].pid, "" };

		memcpy(out.comm, c->th[i].comm, sizeof(out.comm));
		fn(data, &out);
	}
}

static struct ct_cpu *get_cpu(struct evt_curtask *c, unsigned int cpu)
{
	if (cpu >= EVT_MAX_CPUS)
		return NULL;
	if (cpu >= c->nr_cpus) {
		uint32_t i;

		if (evt_grow(&c->cpus, &c->cap_cpus, (size_t)cpu + 1, sizeof(*c->cpus)))
			return NULL;
		for (i = c->nr_cpus; i <= cpu; i++) {
			c->cpus[i].cur = -1;
			c->cpus[i].since = 0;
		}
		c->nr_cpus = cpu + 1;
	}
	return &c->cpus[cpu];
}

/* @tid's record, made when new; its name set from @comm when given. NULL: no memory. */
static struct ct_thread *get_thread(struct evt_curtask *c, int32_t tid, const char *comm)
{
	long i = evt_tidmap_get(&c->map, tid);
	struct ct_thread *t;

	int changed = i < 0;

	if (i < 0) {
		if (evt_grow(&c->th, &c->cap_th, (size_t)c->nr_th + 1, sizeof(*c->th)) ||
		    evt_tidmap_set(&c->map, tid, c->nr_th))
			return NULL;
		i = c->nr_th++;
		t = &c->th[i];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->pid = tid ? -1 : 0;
		if (!tid)
			strcpy(t->comm, "swapper");
	}
	t = &c->th[i];
	/* Every CPU's idle task is tid 0, whatever its name says (swapper/N). */
	if (comm && comm[0] && tid && strncmp(t->comm, comm, sizeof(t->comm) - 1)) {
		strncpy(t->comm, comm, sizeof(t->comm) - 1);
		changed = 1;
	}
	if (changed)
		tell_thread(c, t);
	return t;
}

/* @t's pid is @pid now. */
static void set_pid(struct evt_curtask *c, struct ct_thread *t, int32_t pid)
{
	/* A negative pid is no pid (a damaged event): what was known stays. */
	if (pid < 0 || t->pid == pid)
		return;
	t->pid = pid;
	tell_thread(c, t);
}

static void tell_slice(struct evt_curtask *c, unsigned int cpu, int32_t tid, uint64_t begin, uint64_t end,
		       int64_t end_state)
{
	struct evt_slice s = { cpu, tid, begin, end > begin ? end : begin, end_state };

	if (c->slice_fn)
		c->slice_fn(c->slice_data, &s);
}

static void on_switch(struct evt_curtask *c, struct ct_cpu *k, const struct evt_engine_event *ev,
		      const struct evt_kind_entry *ke)
{
	const int32_t prev = (int32_t)evt_kf_int(ev, ke, EVT_KF_PREV_TID);
	const int32_t next = (int32_t)evt_kf_int(ev, ke, EVT_KF_NEXT_TID);
	char prev_comm[16], next_comm[16];

	if (prev < 0 || next < 0)
		return;
	evt_kf_str(ev, ke, EVT_KF_PREV_COMM, prev_comm, sizeof(prev_comm));
	evt_kf_str(ev, ke, EVT_KF_NEXT_COMM, next_comm, sizeof(next_comm));
	get_thread(c, prev, prev_comm);
	get_thread(c, next, next_comm);
	/*
	 * The CPU's first switch: prev ran since the first event (the state
	 * computation's rule; it counts no time for the idle task, tid 0,
	 * which it leaves out of its threads: here it is the idle slice).
	 */
	if (k->cur < 0 && prev >= 0) {
		k->cur = prev;
		k->since = c->first_ts;
	}
	if (k->cur >= 0)
		tell_slice(c, ev->cpu, k->cur, k->since, ev->ts, evt_kf_int(ev, ke, EVT_KF_PREV_STATE));
	k->cur = next;
	k->since = ev->ts;
}

static void on_fork(struct evt_curtask *c, const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	const int32_t ctid = (int32_t)evt_kf_int(ev, ke, EVT_KF_F_CHILD_TID);
	char comm[16];
	struct ct_thread *t;

	if (ctid <= 0)
		return;
	evt_kf_str(ev, ke, EVT_KF_F_CHILD_COMM, comm, sizeof(comm));
	t = get_thread(c, ctid, comm);
	if (t) {
		set_pid(c, t, (int32_t)evt_kf_int(ev, ke, EVT_KF_F_CHILD_PID));
		t->freed = 0;
	}
}

static void on_exec(struct evt_curtask *c, const struct evt_engine_event *ev, const struct evt_kind_entry *ke)
{
	struct ct_thread *t;
	char comm[16];
	int32_t tid;

	if (evt_kf_exec_comm(ev, ke, &tid, comm) || !(t = get_thread(c, tid, NULL)))
		return;
	if (memcmp(t->comm, comm, sizeof(t->comm))) {
		memcpy(t->comm, comm, sizeof(t->comm));
		tell_thread(c, t);
	}
}

static void on_statedump(struct evt_curtask *c, const struct evt_engine_event *ev,
			 const struct evt_kind_entry *ke)
{
	const int32_t tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_SD_TID);
	char comm[16];
	struct ct_thread *t;

	if (tid <= 0)
		return;
	evt_kf_str(ev, ke, EVT_KF_SD_NAME, comm, sizeof(comm));
	t = get_thread(c, tid, comm);
	if (t)
		set_pid(c, t, (int32_t)evt_kf_int(ev, ke, EVT_KF_SD_PID));
}

int evt_curtask_event(void *data, void *call_data)
{
	struct evt_curtask *c = data;
	const struct evt_engine_event *ev = call_data;
	const struct evt_kind_entry *ke;
	struct ct_cpu *k;
	char comm[16];
	int32_t tid;
	long i;

	if (!c->seen) {
		c->seen = 1;
		c->first_ts = ev->ts;
	}
	ke = evt_kind_of(&c->kinds, ev);
	if (!ke)
		return 0;
	switch (ke->kind) {
	case EVT_K_SWITCH:
		if ((k = get_cpu(c, ev->cpu)))
			on_switch(c, k, ev, ke);
		break;
	case EVT_K_WAKEUP:
	case EVT_K_WAKING:
		tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_W_TID);
		evt_kf_str(ev, ke, EVT_KF_W_COMM, comm, sizeof(comm));
		if (tid > 0)
			get_thread(c, tid, comm);
		break;
	case EVT_K_FORK:
		on_fork(c, ev, ke);
		break;
	case EVT_K_EXEC:
		on_exec(c, ev, ke);
		break;
	case EVT_K_FREE:
		tid = (int32_t)evt_kf_int(ev, ke, EVT_KF_W_TID);
		if (tid > 0 && (i = evt_tidmap_get(&c->map, tid)) >= 0)
			c->th[i].freed = 1;
		break;
	case EVT_K_SD_PROCESS:
		on_statedump(c, ev, ke);
		break;
	default:
		break;
	}
	return 0;
}

int evt_curtask_thread(const struct evt_curtask *c, int32_t tid, struct evt_task *out)
{
	long i = tid >= 0 ? evt_tidmap_get(&c->map, tid) : -1;

	out->tid = tid;
	if (i < 0) {
		out->pid = tid ? -1 : 0;
		strcpy(out->comm, tid ? "" : "swapper");
		return tid ? -1 : 0;
	}
	out->pid = c->th[i].pid;
	memcpy(out->comm, c->th[i].comm, sizeof(out->comm));
	return 0;
}

int evt_curtask_on_cpu(const struct evt_curtask *c, unsigned int cpu, struct evt_task *out)
{
	if (cpu >= c->nr_cpus || c->cpus[cpu].cur < 0) {
		out->tid = out->pid = -1;
		out->comm[0] = '\0';
		return -1;
	}
	evt_curtask_thread(c, c->cpus[cpu].cur, out);
	return 0;
}

int evt_curtask_event_task(struct evt_curtask *c, const struct evt_engine_event *ev, struct evt_task *out)
{
	const struct evt_kind_entry *ke = evt_kind_of(&c->kinds, ev);

	if (ke && ke->kind == EVT_K_SWITCH) {
		const int32_t prev = (int32_t)evt_kf_int(ev, ke, EVT_KF_PREV_TID);

		if (prev >= 0 && evt_kf_int(ev, ke, EVT_KF_NEXT_TID) >= 0) {
			char comm[16];

			evt_curtask_thread(c, prev, out);
			/* Its name as the switch gives it (the tracker learns it only when fed). */
			if (evt_kf_str(ev, ke, EVT_KF_PREV_COMM, comm, sizeof(comm)) && comm[0] && prev)
				memcpy(out->comm, comm, sizeof(comm));
			return 0;
		}
	}
	return evt_curtask_on_cpu(c, ev->cpu, out);
}

int evt_curtask_set_cur(struct evt_curtask *c, unsigned int cpu, int32_t tid)
{
	struct ct_cpu *k = get_cpu(c, cpu);

	if (!k || tid < 0 || !get_thread(c, tid, NULL))
		return -1;
	k->cur = tid;
	return 0;
}

int evt_curtask_set_thread(struct evt_curtask *c, const struct evt_task *t)
{
	struct ct_thread *th = t->tid >= 0 ? get_thread(c, t->tid, t->comm) : NULL;

	if (!th)
		return -1;
	if (t->pid >= 0)
		set_pid(c, th, t->pid);
	return 0;
}

void evt_curtask_cut(struct evt_curtask *c, uint64_t ts)
{
	uint32_t i;

	for (i = 0; i < c->nr_cpus; i++) {
		struct ct_cpu *k = &c->cpus[i];

		if (k->cur < 0)
			continue;
		tell_slice(c, i, k->cur, k->since, ts, -1);
		if (ts > k->since)
			k->since = ts;
	}
}

uint64_t evt_curtask_first_ts(const struct evt_curtask *c)
{
	return c->first_ts;
}

/* ---- Look-ahead ---- */

/* The first valid sched_switch of stream @si on the clone @t (in @max packets, 0: all): 1 with its prev, 0 none. */
static int first_switch(struct evt_curtask *c, struct evt_trace *t, unsigned int si, int32_t *prev, char *comm,
			uint32_t max)
{
	struct evt_stream *s = &t->streams[si];
	int rc;

	while ((rc = evt_stream_has(t, s)) == 1 && (!max || s->ipk <= max)) {
		const struct evt_decoded *d = &s->ev[s->i++];
		struct evt_engine_event ev = {
			.tr = t, .ts = d->ts, .idx = EVT_DMETA_DESC(d->meta), .stream = si, .cpu = s->cpu,
			.channel = s->channel, .payload = s->map + s->pkt_off + EVT_DMETA_OFF(d->meta),
			.len = EVT_DMETA_LEN(d->meta),
		};
		const struct evt_kind_entry *ke;

		if (ev.idx >= t->md.cat->nr_events)
			continue;
		ev.desc = &t->md.cat->events[ev.idx];
		ke = evt_kind_of(&c->kinds, &ev);
		if (!ke)
			return -1;
		if (ke->kind != EVT_K_SWITCH)
			continue;
		*prev = (int32_t)evt_kf_int(&ev, ke, EVT_KF_PREV_TID);
		if (*prev < 0 || evt_kf_int(&ev, ke, EVT_KF_NEXT_TID) < 0)
			continue;	/* ignored by on_switch() too */
		evt_kf_str(&ev, ke, EVT_KF_PREV_COMM, comm, 16);
		return 1;
	}
	/* A decoding error ends the look-ahead there: the reading proper will say it. */
	return 0;
}

int evt_curtask_look_ahead(struct evt_curtask *c, const struct evt_trace *tr, uint64_t since)
{
	return evt_curtask_look_ahead_n(c, tr, since, 0);
}

int evt_curtask_look_ahead_n(struct evt_curtask *c, const struct evt_trace *tr, uint64_t since,
			     uint32_t max_packets)
{
	int has_switch[EVT_NR_CHANNELS] = { 0 };
	struct evt_trace t;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < tr->md.cat->nr_events; i++)
		if (!strcmp(tr->md.cat->events[i].name, "sched_switch") &&
		    tr->md.cat->events[i].channel < EVT_NR_CHANNELS)
			has_switch[tr->md.cat->events[i].channel] = 1;
	if (evt_trace_clone(&t, tr))
		return -1;
	for (i = 0; i < t.nr_streams && !ret; i++) {
		const struct evt_stream *s = &t.streams[i];
		struct ct_cpu *k;
		char comm[16];
		int32_t prev;
		int rc;

		if (s->channel >= EVT_NR_CHANNELS || !has_switch[s->channel] ||
		    (s->cpu < c->nr_cpus && c->cpus[s->cpu].cur >= 0))
			continue;
		rc = first_switch(c, &t, i, &prev, comm, max_packets);
		if (rc < 0) {
			ret = -1;
		} else if (rc) {
			if (!(k = get_cpu(c, s->cpu)) || !get_thread(c, prev, comm)) {
				ret = -1;
			} else if (k->cur < 0) {
				k->cur = prev;
				k->since = since;
			}
		}
	}
	evt_trace_close(&t);
	return ret;
}

/* ---- Saved form ---- */

/*
 * magic, version, first_ts, seen; the CPUs (u32 count; each s32 cur, u64
 * since); the threads not freed (u32 count; each s32 tid, s32 pid, comm[16]).
 */
int evt_curtask_save(const struct evt_curtask *c, struct evt_buf *b)
{
	uint32_t i, n = 0;
	int err = 0;

	err |= evt_put_u32(b, CURTASK_MAGIC) | evt_put_u32(b, CURTASK_VERSION);
	err |= evt_put_u64(b, c->first_ts) | evt_put_u8(b, (uint8_t)c->seen);
	err |= evt_put_u32(b, c->nr_cpus);
	for (i = 0; i < c->nr_cpus; i++)
		err |= evt_put_s32(b, c->cpus[i].cur) | evt_put_u64(b, c->cpus[i].since);
	for (i = 0; i < c->nr_th; i++)
		n += !c->th[i].freed;
	err |= evt_put_u32(b, n);
	for (i = 0; i < c->nr_th; i++) {
		if (c->th[i].freed)
			continue;
		err |= evt_put_s32(b, c->th[i].tid) | evt_put_s32(b, c->th[i].pid);
		err |= evt_buf_put(b, c->th[i].comm, sizeof(c->th[i].comm));
	}
	return err || b->oom ? -1 : 0;
}

static void curtask_reset(struct evt_curtask *c)
{
	evt_slice_fn fn = c->slice_fn;
	void *data = c->slice_data;
	evt_thread_fn tfn = c->thread_fn;
	void *tdata = c->thread_data;

	free(c->cpus);
	free(c->th);
	evt_tidmap_free(&c->map);
	evt_kinds_free(&c->kinds);
	memset(c, 0, sizeof(*c));
	c->slice_fn = fn;
	c->slice_data = data;
	c->thread_fn = tfn;
	c->thread_data = tdata;
}

int evt_curtask_load(struct evt_curtask *c, struct evt_rbuf *r)
{
	uint32_t magic, version, n, i;
	uint8_t seen;

	curtask_reset(c);
	if (evt_get_u32(r, &magic) || magic != CURTASK_MAGIC || evt_get_u32(r, &version) ||
	    version != CURTASK_VERSION || evt_get_u64(r, &c->first_ts) || evt_get_u8(r, &seen) ||
	    evt_get_count(r, &n, 12, EVT_MAX_CPUS) || (n && !get_cpu(c, n - 1)))
		goto bad;
	c->seen = seen != 0;
	for (i = 0; i < n; i++)
		if (evt_get_s32(r, &c->cpus[i].cur) || c->cpus[i].cur < -1 || evt_get_u64(r, &c->cpus[i].since))
			goto bad;
	if (evt_get_count(r, &n, 24, UINT32_MAX - 1))
		goto bad;
	for (i = 0; i < n; i++) {
		int32_t tid, pid;
		char comm[16];
		struct ct_thread *t;

		if (evt_get_s32(r, &tid) || tid < 0 || evt_get_s32(r, &pid) || evt_rbuf_get(r, comm, sizeof(comm)) ||
		    !memchr(comm, 0, sizeof(comm)) || evt_tidmap_get(&c->map, tid) >= 0 ||
		    !(t = get_thread(c, tid, NULL)))
			goto bad;
		t->pid = pid;
		memcpy(t->comm, comm, sizeof(comm));
	}
	return 0;
bad:
	curtask_reset(c);
	return -1;
}
