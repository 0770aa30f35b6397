// SPDX-License-Identifier: GPL-2.0
/*
 * The task context of evcat's lines (see evcat.h): which task ran (the
 * current-task tracker of lib/engine, evt_curtask) and, for exit_syscall,
 * the syscall it ends (the entry its thread made last, else the number in
 * the kernel's 64-bit table).
 *
 * On one thread a final context reads the trace from its start and knows
 * what can be known when it prints a line. On several, each slice starts
 * in the middle knowing nothing: a line whose task, name, pid or syscall
 * the slice cannot know yet is formatted with holes and recorded (a
 * fixup), together with what the slice learned of every thread and when
 * (a log of the tracker's changes). The main thread, slices in order,
 * fills the holes from the final context of what came before (its
 * tracker and its threads' syscalls at the slice's start) and the slice's
 * own knowledge at that line, then takes in what the slice learned: the
 * lines are those one thread prints.
 *
 * A slice guesses nothing: the syscall state of the task a CPU ran since
 * the slice began is kept apart when its first switch there takes it off
 * (the task is the final context's, or that switch's prev_tid when that
 * did not know it either, as one thread would have it), and a later exit
 * of that task in the slice gets it at the resolution.
 *
 * Over 900 lines on purpose: the per-line path and the resolution of a
 * slice's holes are one state machine over the same private state (struct
 * ecpu, the fixups, the tracker's log) and share its static helpers
 * (get_cpu, pmap_get/pmap_set, sys_text), which the per-line path, evcat's
 * hottest, needs inlined.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "evcat.h"
#include "engine/evt_comp_util.h"
#include "ctf/evt_decode.h"
#include "engine/evt_engine.h"
#include "util/evt_io.h"

enum { CK_OTHER, CK_SWITCH, CK_NAMING, CK_SYS_ENTRY, CK_SYS_EXIT };

#define PEND_NONE (-1)		/* no syscall open */
#define PEND_UNKNOWN (-2)	/* not known here */
#define NO_PREV (-2)

/* What a line lacks, filled at its slice's resolution. */
enum { NEED_TID = 1, NEED_COMM = 2, NEED_PID = 4, NEED_SYS = 8, NEED_DELTA = 16, NEED_FILTER = 32 };

struct ecpu {
	int32_t cur;			/* the tracker's task here (-1: unknown) */
	int32_t pend;			/* its syscall: the entry's catalogue index, PEND_NONE, PEND_UNKNOWN */
	int cached;			/* id and task[] hold cur's identity */
	uint8_t plain_ok;		/* with cached: see task_plain_ok() */
	struct evt_task id;
	char task[EVT_FMT_TASK_MAX + EVT_FMT_CPU_MAX];	/* text: the CPU's part too (evt_fmt_ctx.task_cpu) */
	uint32_t task_len;
	/*
	 * A slice: its first switch with the task unknown (its prev_tid, and
	 * the syscall state the task had then, at event number first_seq).
	 */
	int32_t first_prev;		/* NO_PREV: none such */
	int32_t first_pend;
	uint64_t first_seq;
	/*
	 * A slice: lines before the CPU's first switch were printed with the
	 * task unknown ("?/?"), as the final context had it when the reading
	 * began (evcat_shared.unknown_cpu); the resolution checks that it
	 * still does, else the slice is read again on the main thread. A
	 * trace without switches so costs no fixup a line.
	 */
	int guessed;
};

struct logent {
	uint64_t seq;			/* 2 x the event's number + 1: after its own line */
	struct evt_task t;
};

struct fixup {
	size_t line, end;		/* the line in the slice's buffer */
	size_t delta_at, task_at, sys_at;
	uint64_t seq;			/* 2 x its event's number */
	uint64_t ts;
	int32_t tid;			/* -1: the CPU's task since the slice began */
	int64_t exit_nr;		/* exit_syscall's id, for the table */
	uint32_t cpu, stream, idx;
	uint8_t need;
	struct evt_task known;		/* what the line's event itself says (a switch's prev_comm) */
};

struct evcat_ctx {
	const struct evcat_shared *sh;
	int final;
	struct evt_curtask *ct;
	uint64_t seq;
	struct ecpu *cpu;
	uint32_t ncpu;
	/* Threads not running: their syscall state (PEND_NONE or an entry). */
	struct evt_tidmap pmap;
	struct pstate { int32_t pend; uint64_t seq; } *pv;	/* seq: 2 x the number of the event that set it */
	uint32_t npv, cappv;
	struct logent *log;
	uint32_t nlog, caplog;
	uint32_t nswitched;		/* a slice's CPUs past their first switch (all: no more log) */
	struct fixup *fx;
	uint32_t nfx, capfx;
	struct gather *gather;		/* a final context's: the slices' output */
	/* The last line shown that is no fixup (for the next slice's first delta). */
	uint64_t plain_ts, plain_seq;
	int have_plain;
	int oom;
};

/* ---- Shared ---- */

/* sh->nr_cpus: 0, or -1 (no memory). */
static int count_cpus(struct evcat_shared *sh, const struct evt_trace *t)
{
	uint8_t *seen = calloc(EVT_MAX_CPUS, 1);
	unsigned int i;

	if (!seen)
		return -1;
	for (i = 0; i < t->nr_streams; i++)
		if (t->streams[i].cpu < EVT_MAX_CPUS && !seen[t->streams[i].cpu]) {
			seen[t->streams[i].cpu] = 1;
			sh->nr_cpus++;
		}
	free(seen);
	return 0;
}

int evcat_shared_init(struct evcat_shared *sh, const struct evt_trace *t, enum evt_fmt_kind kind, int print)
{
	const struct evt_catalogue *cat = t->md.cat;
	unsigned int i;

	memset(sh, 0, sizeof(*sh));
	sh->t = t;
	sh->kind = kind;
	sh->print = print;
	sh->exit_id_off = -1;
	sh->sw_prev_off = sh->sw_next_off = -1;
	sh->kind_of = calloc(cat->nr_events ? cat->nr_events : 1, 1);
	sh->nr_sys = EVT_ID_COMPAT_SYS_BASE - EVT_ID_SYS_BASE;
	sh->sys_by_nr = calloc(sh->nr_sys, sizeof(*sh->sys_by_nr));
	if (!sh->kind_of || !sh->sys_by_nr || count_cpus(sh, t)) {
		evcat_shared_free(sh);
		return -1;
	}
	for (i = 0; i < cat->nr_events; i++) {
		const struct evt_event_desc *d = &cat->events[i];
		const char *n = d->name;

		if (!strcmp(n, "sched_switch")) {
			enum evt_field_type tp = EVT_F_S32, tn = EVT_F_S32;
			int op = evt_field_offset(d, "prev_tid", &tp), on = evt_field_offset(d, "next_tid", &tn);

			sh->kind_of[i] = CK_SWITCH;
			sh->sw_prev_off = op >= 0 && op < INT16_MAX ? (int16_t)op : -1;
			sh->sw_next_off = on >= 0 && on < INT16_MAX ? (int16_t)on : -1;
			sh->sw_prev_type = (uint8_t)tp;
			sh->sw_next_type = (uint8_t)tn;
		} else if (!strcmp(n, "exit_syscall")) {
			enum evt_field_type ty;
			int off = evt_field_offset(d, "id", &ty);

			sh->kind_of[i] = CK_SYS_EXIT;
			if (off >= 0 && off < INT16_MAX && ty != EVT_F_STRING && ty != EVT_F_COMM && ty != EVT_F_SEQ_U8) {
				sh->exit_id_off = (int16_t)off;
				sh->exit_id_type = (uint8_t)ty;
			}
		} else if (!strncmp(n, "sys_", 4) || !strncmp(n, "compat_sys_", 11)) {
			sh->kind_of[i] = CK_SYS_ENTRY;
			/* The kernel's 64-bit table: sys_<name> by number. */
			if (n[0] == 's' && d->id >= EVT_ID_SYS_BASE && d->id < EVT_ID_COMPAT_SYS_BASE)
				sh->sys_by_nr[d->id - EVT_ID_SYS_BASE] = n;
		} else if (!strcmp(n, "sched_wakeup") || !strcmp(n, "sched_wakeup_new") || !strcmp(n, "sched_waking") ||
			   !strcmp(n, "sched_process_fork") || !strcmp(n, "sched_process_exec") ||
			   !strcmp(n, "sched_process_free") || !strcmp(n, "lttng_statedump_process_state")) {
			sh->kind_of[i] = CK_NAMING;
		}
	}
	return 0;
}

void evcat_shared_free(struct evcat_shared *sh)
{
	free(sh->kind_of);
	free(sh->sys_by_nr);
	free(sh->unknown_cpu);
	sh->kind_of = NULL;
	sh->sys_by_nr = NULL;
	sh->unknown_cpu = NULL;
}

void evcat_shared_needs(const struct evcat_shared *sh, uint8_t *mask)
{
	unsigned int i;

	for (i = 0; i < sh->t->md.cat->nr_events; i++)
		if (sh->kind_of[i] != CK_OTHER)
			mask[i] = 1;
}

/* ---- A context ---- */

static void on_thread(void *data, const struct evt_task *t)
{
	struct evcat_ctx *x = data;
	/* In locals: a store to cached could be one to them, for all the compiler knows. */
	struct ecpu *const cpus = x->cpu;
	const uint32_t ncpu = x->ncpu;
	const int32_t tid = t->tid;
	uint32_t i;

	/* The CPUs running it say it anew. */
	for (i = 0; i < ncpu; i++)
		if (cpus[i].cur == tid)
			cpus[i].cached = 0;
	/* The log serves the lines before a CPU's first switch in the slice (fixup_task()). */
	if (x->final || x->nswitched >= x->sh->nr_cpus)
		return;
	if (evt_grow(&x->log, &x->caplog, (size_t)x->nlog + 1, sizeof(*x->log))) {
		x->oom = 1;
		return;
	}
	x->log[x->nlog].seq = 2 * x->seq + 1;
	x->log[x->nlog].t = *t;
	x->nlog++;
}

struct evcat_ctx *evcat_ctx_new(const struct evcat_shared *sh, int final)
{
	struct evcat_ctx *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->sh = sh;
	x->final = final;
	x->ct = evt_curtask_new();
	if (!x->ct) {
		free(x);
		return NULL;
	}
	evt_curtask_on_thread(x->ct, on_thread, x);
	return x;
}

void evcat_ctx_free(struct evcat_ctx *x)
{
	if (!x)
		return;
	evt_curtask_free(x->ct);
	free(x->cpu);
	evt_tidmap_free(&x->pmap);
	free(x->pv);
	free(x->log);
	free(x->fx);
	free(x->gather);
	free(x);
}

int evcat_shared_unknown_cpus(struct evcat_shared *sh, const struct evcat_ctx *g)
{
	uint32_t n = 0, i;

	for (i = 0; i < sh->t->nr_streams; i++)
		if (sh->t->streams[i].cpu < EVT_MAX_CPUS && sh->t->streams[i].cpu >= n)
			n = sh->t->streams[i].cpu + 1;
	free(sh->unknown_cpu);
	sh->unknown_cpu = calloc(n ? n : 1, 1);
	if (!sh->unknown_cpu)
		return -1;
	for (i = 0; i < n; i++)
		sh->unknown_cpu[i] = evt_curtask_cur(g->ct, i) < 0;
	sh->nr_unknown_cpu = n;
	return 0;
}

int evcat_ctx_look_ahead(struct evcat_ctx *x, const struct evt_trace *t, uint64_t since)
{
	/*
	 * Bounded: a trace without switches is not read twice (its tasks stay
	 * unknown); its first 8 packets a stream (64 took a quarter of the
	 * time of a 2M-event trace without switches, on the main thread).
	 */
	return evt_curtask_look_ahead_n(x->ct, t, since, 8);
}

static int32_t pmap_get(const struct evcat_ctx *x, int32_t tid)
{
	long i = tid >= 0 ? evt_tidmap_get(&x->pmap, tid) : -1;

	return i < 0 ? PEND_UNKNOWN : x->pv[i].pend;
}

static void pmap_set(struct evcat_ctx *x, int32_t tid, int32_t v)
{
	long i;

	if (tid < 0 || v == PEND_UNKNOWN)
		return;
	i = evt_tidmap_get(&x->pmap, tid);
	if (i < 0) {
		if (evt_grow(&x->pv, &x->cappv, (size_t)x->npv + 1, sizeof(*x->pv)) ||
		    evt_tidmap_set(&x->pmap, tid, x->npv)) {
			x->oom = 1;
			return;
		}
		i = x->npv++;
	}
	x->pv[i] = (struct pstate){ v, 2 * x->seq };
}

static struct ecpu *get_cpu(struct evcat_ctx *x, unsigned int cpu)
{
	if (cpu >= x->ncpu) {
		uint32_t cap = x->ncpu, i;

		if (cpu >= EVT_MAX_CPUS || evt_grow(&x->cpu, &cap, (size_t)cpu + 1, sizeof(*x->cpu)))
			return NULL;
		for (i = x->ncpu; i <= cpu; i++) {
			memset(&x->cpu[i], 0, sizeof(x->cpu[i]));
			x->cpu[i].cur = evt_curtask_cur(x->ct, i);
			x->cpu[i].pend = pmap_get(x, x->cpu[i].cur);
			x->cpu[i].first_prev = NO_PREV;
		}
		x->ncpu = cpu + 1;
	}
	return &x->cpu[cpu];
}

/* Every CPU's idle task is tid 0, named for its CPU as the kernel names it (swapper/N). */
static void idle_name(struct evt_task *id, unsigned int cpu)
{
	if (id->tid)
		return;
	id->pid = 0;
	snprintf(id->comm, sizeof(id->comm), "swapper/%u", cpu % 100000u);
}

/*
 * Whether a line of @c's task needs no hole: 1; 2, the same but the line
 * takes the task as unknown (ecpu.guessed); 0, it does (a slice that does
 * not know the task, its name or, for JSON, its pid).
 */
static uint8_t task_plain_ok(const struct evcat_ctx *x, const struct ecpu *c)
{
	const struct evcat_shared *sh = x->sh;
	const unsigned int cpu = (unsigned int)(c - x->cpu);
	const int32_t tid = c->id.tid;

	if (x->final)
		return 1;
	if (tid < 0 && cpu < sh->nr_unknown_cpu && sh->unknown_cpu[cpu])
		return 2;
	if (tid < 0 || (tid > 0 && (!c->id.comm[0] || (sh->kind == EVT_FMT_JSON && c->id.pid < 0))))
		return 0;
	return 1;
}

/* The identity of the task on @c, with its rendered text. */
static const struct ecpu *cpu_task(struct evcat_ctx *x, struct ecpu *c)
{
	if (c->cached)
		return c;
	if (c->cur < 0) {
		c->id = (struct evt_task){ -1, -1, "" };
	} else {
		evt_curtask_thread(x->ct, c->cur, &c->id);
		idle_name(&c->id, (unsigned int)(c - x->cpu));
	}
	c->task_len = (uint32_t)evt_fmt_task(c->task, x->sh->kind, c->id.tid, c->id.pid, c->id.comm);
	/* A line of this CPU copies its task and CPU at once. */
	if (x->sh->kind != EVT_FMT_JSON)
		c->task_len += (uint32_t)evt_fmt_cpu(c->task + c->task_len, (unsigned int)(c - x->cpu));
	c->plain_ok = task_plain_ok(x, c);
	c->cached = 1;
	return c;
}

static void make_event(struct evt_engine_event *ev, const struct evt_trace *t, const struct evt_ref *r)
{
	const unsigned int si = EVT_REF_STREAM(r);

	memset(ev, 0, sizeof(*ev));
	ev->tr = t;
	ev->ts = r->ts;
	ev->idx = EVT_REF_DESC(r);
	ev->desc = &t->md.cat->events[ev->idx];
	ev->stream = si;
	ev->cpu = t->streams[si].cpu;
	ev->channel = t->streams[si].channel;
	ev->payload = r->payload;
	ev->len = EVT_REF_LEN(r);
}

/* The exit's number (id), -1 when it has none. */
static int64_t exit_nr(const struct evcat_shared *sh, const struct evt_engine_event *ev)
{
	if (sh->exit_id_off < 0)
		return -1;
	return evt_event_int(ev, sh->exit_id_off, (enum evt_field_type)sh->exit_id_type);
}

/* The syscall an exit ends: by its entry (@pend), else by its number. Its text into @buf. */
static size_t sys_text(const struct evcat_shared *sh, int32_t pend, int64_t nr, char *buf)
{
	if (pend >= 0)
		return evt_fmt_sysname(buf, sh->kind, sh->t->md.cat->events[pend].name, 1);
	if (nr >= 0 && nr < sh->nr_sys && sh->sys_by_nr[nr])
		return evt_fmt_sysname(buf, sh->kind, sh->sys_by_nr[nr], 0);
	return 0;
}

static int add_fixup(struct evcat_ctx *x, const struct fixup *f)
{
	if (evt_grow(&x->fx, &x->capfx, (size_t)x->nfx + 1, sizeof(*x->fx))) {
		x->oom = 1;
		return -1;
	}
	x->fx[x->nfx++] = *f;
	return 0;
}

size_t evcat_ctx_plain(struct evcat_ctx *x, const struct evt_ref *r, size_t n, struct evt_fmt *fmt,
		       struct evt_out *out, uint64_t from)
{
	const struct evcat_shared *sh = x->sh;
	const struct evt_stream *streams = sh->t->streams;
	const struct evt_event_desc *events = sh->t->md.cat->events;
	const uint8_t *const kind_of = sh->kind_of;
	/* In locals: the formatter writes through pointers the compiler cannot tell from @x's. */
	struct ecpu *const cpus = x->cpu;
	const uint32_t ncpu = x->ncpu;
	/* No hole on this path: only the task changes from line to line. */
	struct evt_fmt_ctx fc = { .task_cpu = 1 };
	size_t i;

	for (i = 0; i < n; i++) {
		const unsigned int idx = EVT_REF_DESC(&r[i]);
		const uint8_t k = kind_of[idx];
		const unsigned int cpu = streams[EVT_REF_STREAM(&r[i])].cpu;
		struct ecpu *c;

		if (r[i].ts < from || (k != CK_OTHER && k != CK_SYS_ENTRY) || cpu >= ncpu || !cpus[cpu].cached ||
		    !cpus[cpu].plain_ok)
			break;
		c = &cpus[cpu];
		if (c->plain_ok == 2)
			c->guessed = 1;
		fc.task = c->task;
		fc.task_len = c->task_len;
		if (evt_fmt_event_ctx(fmt, out, r[i].ts, cpu, &events[idx], r[i].payload, EVT_REF_LEN(&r[i]), 0, &fc))
			return (size_t)-1;
		if (k == CK_SYS_ENTRY)
			c->pend = (int32_t)idx;
	}
	x->seq += i;
	if (i) {
		x->plain_ts = r[i - 1].ts;
		x->plain_seq = 2 * x->seq;
		x->have_plain = 1;
	}
	return i;
}

int evcat_ctx_event(struct evcat_ctx *x, const struct evt_ref *r, struct evt_fmt *fmt, struct evt_out *out,
		    unsigned int flags, struct evcat_line *line)
{
	const struct evcat_shared *sh = x->sh;
	const unsigned int idx = EVT_REF_DESC(r);
	const uint8_t k = sh->kind_of[idx];
	const unsigned int cpu = sh->t->streams[EVT_REF_STREAM(r)].cpu;
	const int json = sh->kind == EVT_FMT_JSON;
	struct ecpu *c = cpu < x->ncpu ? &x->cpu[cpu] : get_cpu(x, cpu);
	struct evt_engine_event ev;
	int show, have_ev = 0;
	int32_t prev, next;

	x->seq++;
	line->show = line->fixup = 0;
	if (!c)
		return -1;
	show = !(flags & EVCAT_QUIET) && (!sh->show || sh->show[idx]) &&
	       (!sh->stream_show || sh->stream_show[EVT_REF_STREAM(r)]) &&
	       (!sh->where || evcat_where_match(sh->where, idx, r->payload, EVT_REF_LEN(r)));
	if (k == CK_SWITCH) {
		make_event(&ev, sh->t, r);
		have_ev = 1;
	}
	/*
	 * The common line, its task known (or taken as unknown, see
	 * ecpu.guessed), no selection by task, no hole: formatted straight.
	 */
	if (show && (k == CK_OTHER || k == CK_SYS_ENTRY || k == CK_NAMING) && !sh->taskf &&
	    !((flags & EVCAT_FIRST) && !json)) {
		const struct ecpu *cc = cpu_task(x, c);

		if (cc->plain_ok == 2)
			c->guessed = 1;
		else if (!cc->plain_ok)
			goto full;
		if (sh->print) {
			struct evt_fmt_ctx fc = { .task = cc->task, .task_len = cc->task_len, .task_cpu = 1 };

			if (evt_fmt_event_ctx(fmt, out, r->ts, cpu, &sh->t->md.cat->events[idx], r->payload,
					      EVT_REF_LEN(r), 0, &fc))
				return -1;
		}
		line->show = 1;
		x->plain_ts = r->ts;
		x->plain_seq = 2 * x->seq;
		x->have_plain = 1;
		goto effect;
	}
full:
	if (show) {
		struct fixup f = { .exit_nr = -1, .delta_at = SIZE_MAX, .task_at = SIZE_MAX, .sys_at = SIZE_MAX };
		struct evt_fmt_ctx fc = { 0 };
		struct evt_task id;
		char task[EVT_FMT_TASK_MAX], sys[EVT_FMT_SYSNAME_BYTES];
		int32_t pend = PEND_UNKNOWN;

		if (k == CK_SWITCH) {
			/* A switch happened in its prev_tid (what the event says, even after a loss). */
			evt_curtask_event_task(x->ct, &ev, &id);
			idle_name(&id, cpu);
			fc.task = task;
			fc.task_len = evt_fmt_task(task, sh->kind, id.tid, id.pid, id.comm);
		} else {
			const struct ecpu *cc = cpu_task(x, c);

			id = cc->id;
			fc.task = cc->task;
			fc.task_len = cc->task_len;
			fc.task_cpu = 1;
			pend = c->pend;
		}
		if (!x->final) {
			if (id.tid < 0 && k != CK_SWITCH && !sh->taskf && cpu < sh->nr_unknown_cpu &&
			    sh->unknown_cpu[cpu])
				c->guessed = 1;
			else if (id.tid < 0)
				f.need |= NEED_TID | NEED_COMM | NEED_PID;
			if (id.tid > 0 && !id.comm[0])
				f.need |= NEED_COMM;
			if (id.tid > 0 && id.pid < 0 && (json || (sh->taskf && sh->taskf->need_pid)))
				f.need |= NEED_PID;
		}
		if (k == CK_SYS_EXIT) {
			if (!have_ev) {
				make_event(&ev, sh->t, r);
				have_ev = 1;
			}
			f.exit_nr = exit_nr(sh, &ev);
			fc.has_sys = 1;
			if (pend == PEND_UNKNOWN && !x->final) {
				f.need |= NEED_SYS;
			} else {
				fc.sys = sys;
				fc.sys_len = sys_text(sh, pend, f.exit_nr, sys);
			}
		}
		if (sh->taskf && sh->taskf->active) {
			/*
			 * A slice decides nothing: the main thread does, and every
			 * line's delta is its own, to the line before it shown.
			 */
			if (!x->final)
				f.need |= NEED_FILTER | (json ? 0 : NEED_DELTA);
			else if (!evcat_taskf_match(sh->taskf, &id))
				show = 0;
		}
		if ((flags & EVCAT_FIRST) && !json && sh->print)
			f.need |= NEED_DELTA;
		if (show && sh->print) {
			f.line = out->len;
			if (f.need & (NEED_TID | NEED_COMM | NEED_PID)) {
				fc.task = NULL;
				fc.task_len = EVT_FMT_TASK_MAX;
			}
			if (f.need & NEED_SYS)
				fc.sys_len = EVT_FMT_SYSNAME_BYTES;
			fc.delta_hole = (f.need & NEED_DELTA) != 0;
			if (evt_fmt_event_ctx(fmt, out, r->ts, cpu, &sh->t->md.cat->events[idx], r->payload, EVT_REF_LEN(r),
					      0, &fc))
				return -1;
			f.end = out->len;
			f.task_at = fc.task ? SIZE_MAX : fc.task_at;
			f.sys_at = (f.need & NEED_SYS) ? fc.sys_at : SIZE_MAX;
			f.delta_at = fc.delta_hole ? fc.delta_at : SIZE_MAX;
		}
		if (show && f.need && !x->final) {
			f.seq = 2 * x->seq;
			f.ts = r->ts;
			f.tid = id.tid;
			f.known = id;
			f.cpu = cpu;
			f.stream = EVT_REF_STREAM(r);
			f.idx = idx;
			if (add_fixup(x, &f))
				return -1;
			line->fixup = 1;
		}
		line->show = show;
		if (show && !line->fixup) {
			x->plain_ts = r->ts;
			x->plain_seq = 2 * x->seq;
			x->have_plain = 1;
		}
	}
effect:
	/* The event's own effect, once its line says who ran before it. */
	switch (k) {
	case CK_SWITCH: {
		const int32_t before = c->cur;

		prev = (int32_t)evt_event_int(&ev, sh->sw_prev_off, (enum evt_field_type)sh->sw_prev_type);
		next = (int32_t)evt_event_int(&ev, sh->sw_next_off, (enum evt_field_type)sh->sw_next_type);
		evt_curtask_event(x->ct, &ev);
		if (sh->sw_prev_off < 0 || sh->sw_next_off < 0 || prev < 0 || next < 0)
			break;		/* the tracker takes no such switch either */
		/*
		 * Whose syscall state was on the CPU: its task's; a final context
		 * that did not know it takes the switch's prev (as evt_curtask
		 * does); a slice keeps it apart (the task is known at resolution).
		 */
		if (before >= 0 || x->final) {
			pmap_set(x, before >= 0 ? before : prev, c->pend);
		} else if (c->first_prev == NO_PREV) {
			c->first_prev = prev;
			c->first_pend = c->pend;
			c->first_seq = 2 * x->seq;
			x->nswitched++;
		}
		c->cur = evt_curtask_cur(x->ct, cpu);
		c->pend = pmap_get(x, c->cur);
		c->cached = 0;
		break;
	}
	case CK_NAMING:
		make_event(&ev, sh->t, r);
		evt_curtask_event(x->ct, &ev);
		break;
	case CK_SYS_ENTRY:
		c->pend = (int32_t)idx;
		break;
	case CK_SYS_EXIT:
		c->pend = PEND_NONE;
		break;
	default:
		break;
	}
	return x->oom ? -1 : 0;
}

/* ---- A slice's lines, in order ---- */

/* @n bytes of @p into @o's buffer: 0, or -1 (no memory, or an output error). */
static int emit(struct evt_out *o, const char *p, size_t n)
{
	char *dst = evt_out_room(o, n);

	if (!dst)
		return -1;
	memcpy(dst, p, n);
	o->len += n;
	return 0;
}

/*
 * A slice's output, its buffer not copied: runs of it and the holes' texts
 * gathered for writev() (copying the text of every slice took a tenth of
 * the main thread's time); into memory when the output has no file.
 */
#define GATHER_IOV 1024
#define HOLE_MAX (EVT_FMT_SYSNAME_BYTES + EVT_FMT_TASK_MAX)
#define GATHER_TEXT (256u << 10)

struct gather {
	struct evt_out *o;
	unsigned int n;
	size_t used;
	struct iovec iov[GATHER_IOV];
	char text[GATHER_TEXT];
};

static int gather_flush(struct gather *ga)
{
	if (ga->n && evt_writev_all(ga->o->fd, ga->iov, (int)ga->n)) {
		ga->o->err = errno ? errno : EIO;
		return -1;
	}
	ga->n = 0;
	ga->used = 0;
	return 0;
}

/* @n bytes at @p, which stay put until the next flush, to the output (a run that goes on the last joins it). */
static int gather_add(struct gather *ga, const char *p, size_t n)
{
	struct iovec *last = ga->n ? &ga->iov[ga->n - 1] : NULL;

	if (!n)
		return 0;
	if (ga->o->fd < 0)
		return emit(ga->o, p, n);
	if (last && (const char *)last->iov_base + last->iov_len == p) {
		last->iov_len += n;
		return 0;
	}
	if (ga->n == GATHER_IOV && gather_flush(ga))
		return -1;
	ga->iov[ga->n++] = (struct iovec){ .iov_base = (void *)p, .iov_len = n };
	return 0;
}

/*
 * Room for a hole's text (HOLE_MAX bytes), then gather_text() with its
 * length (which then flushes nothing: the text stays where it was put).
 * NULL: an output error.
 */
static char *gather_room(struct gather *ga)
{
	if ((ga->used + HOLE_MAX > GATHER_TEXT || ga->n == GATHER_IOV) && gather_flush(ga))
		return NULL;
	return ga->text + ga->used;
}

static int gather_text(struct gather *ga, size_t n)
{
	if (gather_add(ga, ga->text + ga->used, n))
		return -1;
	ga->used += n;
	return 0;
}

static const struct evt_task *log_lookup(const struct evcat_ctx *x, const uint32_t *ix, uint32_t nix, int32_t tid,
					 uint64_t seq)
{
	uint32_t lo = 0, hi = nix;

	/* The last entry of @tid at or before @seq: ix sorts (part of) the log by (tid, seq). */
	while (lo < hi) {
		const uint32_t mid = lo + (hi - lo) / 2;
		const struct logent *e = &x->log[ix[mid]];

		if (e->t.tid < tid || (e->t.tid == tid && e->seq <= seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || x->log[ix[lo - 1]].t.tid != tid)
		return NULL;
	return &x->log[ix[lo - 1]].t;
}

static const struct evcat_ctx *g_sort_ctx;

static int by_tid_seq(const void *a, const void *b)
{
	const struct logent *x = &g_sort_ctx->log[*(const uint32_t *)a], *y = &g_sort_ctx->log[*(const uint32_t *)b];

	if (x->t.tid != y->t.tid)
		return x->t.tid < y->t.tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * @f's task as one thread would have it: @g's at the slice's start, then
 * what the slice learned by then. A task the slice knew at the line is in
 * f->known already (the slice's tracker then: its log up to the line, and
 * a switch's prev_comm); the task @g's CPU ran before the slice's first
 * switch there is looked up in the log (@ix, @nix: its entries of such
 * tasks, see evcat_ctx_resolve()).
 */
static void fixup_task(const struct evcat_ctx *x, const struct evcat_ctx *g, const uint32_t *ix, uint32_t nix,
		       const struct fixup *f, struct evt_task *id)
{
	const int32_t tid = f->tid >= 0 ? f->tid : evt_curtask_cur(g->ct, f->cpu);
	const struct evt_task *le;

	if (tid < 0) {
		*id = (struct evt_task){ -1, -1, "" };
		return;
	}
	evt_curtask_thread(g->ct, tid, id);
	le = f->tid < 0 ? log_lookup(x, ix, nix, tid, f->seq) : NULL;
	if (le && le->pid >= 0)
		id->pid = le->pid;
	if (le && le->comm[0])
		memcpy(id->comm, le->comm, sizeof(id->comm));
	/* What the slice knew at the line (a switch's prev_comm too). */
	if (f->known.tid == tid && f->known.comm[0])
		memcpy(id->comm, f->known.comm, sizeof(id->comm));
	if (f->known.tid == tid && f->known.pid >= 0)
		id->pid = f->known.pid;
	idle_name(id, f->cpu);
}

/* The task a CPU ran since the slice began: @g's, or its first switch's prev when @g did not know. */
static int32_t start_task(const struct evcat_ctx *x, const struct evcat_ctx *g, uint32_t cpu)
{
	const int32_t gc = evt_curtask_cur(g->ct, cpu);

	return gc >= 0 || cpu >= x->ncpu || x->cpu[cpu].first_prev == NO_PREV ? gc : x->cpu[cpu].first_prev;
}

/* CPU @cpu's syscall state in @g (the final context, at the slice's start: before take_in()). */
static int32_t g_pend(const struct evcat_ctx *g, uint32_t cpu)
{
	return cpu < g->ncpu ? g->cpu[cpu].pend : PEND_UNKNOWN;
}

/* The syscall state CPU @i's task had at the slice's first switch there: the slice's, else @g's CPU's then. */
static int32_t first_pend(const struct evcat_ctx *x, const struct evcat_ctx *g, uint32_t i)
{
	return x->cpu[i].first_pend != PEND_UNKNOWN ? x->cpu[i].first_pend : g_pend(g, i);
}

/*
 * The syscall state of fixup @f's task @tid, which the slice did not know,
 * as one thread has it: before the CPU's first switch in the slice, that
 * CPU's in @g (a CPU's state is its own, even where a damaged trace has a
 * task on two CPUs at once); else what the task had when a CPU it ran on
 * since the slice began switched it off (if that was before), else @g's
 * map's at the slice's start.
 */
static int32_t start_pend(const struct evcat_ctx *x, const struct evcat_ctx *g, int32_t tid, const struct fixup *f)
{
	int32_t pend = PEND_UNKNOWN;
	uint64_t last = 0;
	uint32_t i;

	if (f->tid < 0)
		return g_pend(g, f->cpu);
	/* The last such switch (a damaged trace may have the task on two CPUs). */
	for (i = 0; i < x->ncpu; i++)
		if (x->cpu[i].first_prev != NO_PREV && x->cpu[i].first_seq < f->seq && x->cpu[i].first_seq >= last &&
		    start_task(x, g, i) == tid && first_pend(x, g, i) != PEND_UNKNOWN) {
			pend = first_pend(x, g, i);
			last = x->cpu[i].first_seq;
		}
	return pend != PEND_UNKNOWN ? pend : pmap_get(g, tid);
}

static void adopt_thread(void *data, const struct evt_task *t)
{
	struct evcat_ctx *g = data;

	if (evt_curtask_set_thread(g->ct, t))
		g->oom = 1;
}

/* @g takes in what slice @x learned. */
static void take_in(struct evcat_ctx *x, struct evcat_ctx *g)
{
	uint8_t *taken = calloc(x->ncpu ? x->ncpu : 1, 1);
	int32_t tid;
	uint32_t i;
	long k;

	if (!taken) {
		g->oom = 1;
		return;
	}

	/*
	 * The map's syscall states (of the threads not running, as one
	 * thread keeps it): of the tasks the CPUs ran since the slice began,
	 * taken off by their first switch; of the threads switched out since.
	 */
	for (i = 0; i < x->pmap.cap; i++)
		if (x->pmap.v && x->pmap.v[i].idx != UINT32_MAX)
			pmap_set(g, x->pmap.v[i].tid, x->pv[x->pmap.v[i].idx].pend);
	/* A first switch after the slice's own last word on its task (a damaged trace's): in their order. */
	for (;;) {
		uint32_t pick = UINT32_MAX;

		for (i = 0; i < x->ncpu; i++)
			if (x->cpu[i].first_prev != NO_PREV && !taken[i] &&
			    (pick == UINT32_MAX || x->cpu[i].first_seq < x->cpu[pick].first_seq))
				pick = i;
		if (pick == UINT32_MAX)
			break;
		taken[pick] = 1;
		tid = start_task(x, g, pick);
		k = tid >= 0 ? evt_tidmap_get(&x->pmap, tid) : -1;
		if (k < 0 || x->pv[k].seq < x->cpu[pick].first_seq)
			pmap_set(g, tid, first_pend(x, g, pick));
	}
	/* What it learned of each thread: its tracker's last word (the log's last entry of each). */
	evt_curtask_threads(x->ct, adopt_thread, g);
	for (i = 0; i < x->ncpu; i++)
		if (x->cpu[i].cur >= 0 && evt_curtask_set_cur(g->ct, i, x->cpu[i].cur))
			g->oom = 1;
	/*
	 * Each CPU's task and its syscall state: the slice's last word; a CPU
	 * without a switch in the slice keeps its state, one whose task came
	 * in with a state the slice did not know has the map's.
	 */
	for (i = 0; i < g->ncpu; i++) {
		struct ecpu *gc = &g->cpu[i];

		gc->cur = evt_curtask_cur(g->ct, i);
		gc->cached = 0;
		if (i >= x->ncpu)
			continue;
		if (x->cpu[i].pend != PEND_UNKNOWN)
			gc->pend = x->cpu[i].pend;
		else if (x->cpu[i].first_prev != NO_PREV)
			gc->pend = pmap_get(g, gc->cur);
	}
	free(taken);
}

/*
 * The log's entries of the tasks @g's CPUs ran where a fixup's CPU had no
 * switch yet in the slice (those whose task the slice did not know), by
 * (tid, seq), into *@ix (*@nix of them; NULL when none): 0, or -1 (no
 * memory). Only these: sorting the whole log took a third of the main
 * thread's time on mixed traces.
 */
static int log_index(const struct evcat_ctx *x, const struct evcat_ctx *g, uint32_t **ix, uint32_t *nix)
{
	struct evt_tidmap want = { 0 };
	uint8_t *blind = calloc(x->ncpu ? x->ncpu : 1, 1);
	uint32_t i, n = 0;
	int ret = -1;

	if (!blind)
		return -1;
	for (i = 0; i < x->nfx; i++)
		if (x->fx[i].tid < 0 && x->fx[i].cpu < x->ncpu)
			blind[x->fx[i].cpu] = 1;
	for (i = 0; i < x->ncpu; i++) {
		const int32_t tid = blind[i] ? evt_curtask_cur(g->ct, i) : -1;

		if (tid >= 0 && evt_tidmap_set(&want, tid, 0))
			goto out;
	}
	ret = 0;
	if (!want.n)
		goto out;
	ret = -1;
	*ix = malloc(x->nlog * sizeof(**ix));
	if (!*ix)
		goto out;
	for (i = 0; i < x->nlog; i++)
		if (evt_tidmap_get(&want, x->log[i].t.tid) >= 0)
			(*ix)[n++] = i;
	g_sort_ctx = x;	/* the main thread's alone */
	qsort(*ix, n, sizeof(**ix), by_tid_seq);
	*nix = n;
	ret = 0;
out:
	evt_tidmap_free(&want);
	free(blind);
	return ret;
}

int evcat_ctx_resolve(struct evcat_ctx *x, struct evcat_ctx *g, const struct evt_out *buf, struct evcat_sink *sk)
{
	const struct evcat_shared *sh = x->sh;
	struct gather *ga = NULL;
	uint32_t *ix = NULL, nix = 0, i;
	uint64_t last_fix_seq = 0, last_fix_ts = 0;
	int have_fix = 0;
	size_t pos = 0;

	if (x->oom)
		return -1;
	/* A CPU's task taken as unknown where the final context knows it: the slice again, through @g. */
	for (i = 0; i < x->ncpu; i++)
		if (x->cpu[i].guessed && evt_curtask_cur(g->ct, i) >= 0)
			return 1;
	/* @g's CPUs as one thread had them when the slice began (g_pend()). */
	if (x->ncpu && !get_cpu(g, x->ncpu - 1))
		return -1;
	if (x->nlog && x->nfx && log_index(x, g, &ix, &nix))
		return -1;
	if (sh->print && buf) {
		if (!g->gather && !(g->gather = malloc(sizeof(*g->gather))))
			goto fail;
		ga = g->gather;
		ga->o = sk->out;
		ga->n = 0;
		ga->used = 0;
		/* What the output holds goes first. */
		if (sk->out->fd >= 0 && evt_out_flush(sk->out))
			goto fail;
	}
	for (i = 0; i < x->nfx; i++) {
		const struct fixup *f = &x->fx[i];
		struct evt_task id;
		int keep = 1;

		fixup_task(x, g, ix, nix, f, &id);
		if (f->need & NEED_FILTER)
			keep = evcat_taskf_match(sh->taskf, &id);
		if (ga) {
			size_t at[3], n = 0, k;

			if (gather_add(ga, buf->buf + pos, f->line - pos))
				goto fail;
			pos = f->line;
			if (keep) {
				/* The holes in the order the line has them. */
				if (f->delta_at != SIZE_MAX)
					at[n++] = f->delta_at;
				if (f->task_at != SIZE_MAX)
					at[n++] = f->task_at;
				if (f->sys_at != SIZE_MAX)
					at[n++] = f->sys_at;
				for (k = 0; k < n; k++) {
					char *text;
					size_t len;

					if (gather_add(ga, buf->buf + pos, at[k] - pos) || !(text = gather_room(ga)))
						goto fail;
					pos = at[k];
					if (at[k] == f->delta_at)
						len = evt_fmt_delta(text, sk->prev_ts, sk->have_prev, f->ts);
					else if (at[k] == f->task_at)
						len = evt_fmt_task(text, sh->kind, id.tid, id.pid, id.comm);
					else
						len = sys_text(sh, start_pend(x, g, id.tid, f), f->exit_nr, text);
					if (gather_text(ga, len))
						goto fail;
				}
				if (gather_add(ga, buf->buf + pos, f->end - pos))
					goto fail;
			}
			pos = f->end;
		}
		if (!keep)
			continue;
		sk->prev_ts = f->ts;
		sk->have_prev = 1;
		last_fix_seq = f->seq;
		last_fix_ts = f->ts;
		have_fix = 1;
		if (!sk->count || f->ts < sk->first_ts)
			sk->first_ts = f->ts;
		if (f->ts > sk->last_ts)
			sk->last_ts = f->ts;
		sk->count++;
		if (sk->per_stream)
			sk->per_stream[f->stream]++;
		if (sk->per_event)
			sk->per_event[f->idx]++;
	}
	if (ga && (gather_add(ga, buf->buf + pos, buf->len - pos) || gather_flush(ga)))
		goto fail;
	/* The slice's last line shown: the next slice's first delta is to it. */
	if (x->have_plain && (!have_fix || x->plain_seq > last_fix_seq)) {
		sk->prev_ts = x->plain_ts;
		sk->have_prev = 1;
	} else if (have_fix) {
		sk->prev_ts = last_fix_ts;
		sk->have_prev = 1;
	}
	free(ix);
	take_in(x, g);
	return g->oom ? -1 : 0;
fail:
	free(ix);
	return -1;
}
