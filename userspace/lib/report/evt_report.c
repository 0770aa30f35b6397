// SPDX-License-Identifier: GPL-2.0
/* Statistics reports shared by evstat and evview: see evt_report.h. */
#include <stdio.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <string.h>
#include "engine/evt_comp_util.h"
#include "format/evt_format.h"
#include "json/evt_json.h"
#include "report/evt_report.h"

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

const char *evt_softirq_name(unsigned int vec, char *buf, size_t len)
{
	if (vec < sizeof(softirq_names) / sizeof(softirq_names[0]))
		return softirq_names[vec];
	snprintf(buf, len, "vec%u", vec);
	return buf;
}

/* A string from the trace, cut at 255 bytes as names are. */
static json_t *jstr(const char *s)
{
	return evt_json_bytes(s, 255);
}

static json_t *json_lat(const struct evt_lat *l)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "count", evt_json_u64(l->count), "total_ns",
			 evt_json_u64(l->total_ns), "min_ns", evt_json_u64(l->count ? l->min_ns : 0), "max_ns",
			 evt_json_u64(l->max_ns), "spans_loss", evt_json_u64(l->spans_loss));
}

/* A log2 histogram up to its last non-empty bucket. */
static json_t *json_hist(const uint64_t *h)
{
	json_t *a = json_array();
	int last = 63;

	while (last >= 0 && !h[last])
		last--;
	for (int b = 0; a && b <= last; b++)
		if (json_array_append_new(a, evt_json_u64(h[b]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

const unsigned int evt_report_pct_permille[EVT_REPORT_NPCT] = { 500, 900, 990, 999 };
const char *const evt_report_pct_names[EVT_REPORT_NPCT] = { "p50", "p90", "p99", "p99.9" };

/* The percentiles of @h (evt_lathist.h: at most 1/128 above the exact value, never below). */
static json_t *json_pct(const struct evt_lathist *h)
{
	json_t *o = json_object();

	for (unsigned int i = 0; o && h->count && i < EVT_REPORT_NPCT; i++)
		if (json_object_set_new(o, evt_report_pct_names[i],
					evt_json_u64(evt_lathist_pct(h, evt_report_pct_permille[i])))) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* Append @v to array @a; @v NULL (out of memory) or a failed append: -1, @a left to the caller. */
static int push(json_t *a, json_t *v)
{
	return json_array_append_new(a, v);
}

/* Return values: how many succeeded, and each -errno with its name (null: none known). */
static json_t *json_rets(const struct evt_stats_rets *r)
{
	json_t *errors = json_array();

	for (uint32_t i = 0; errors && i < r->n; i++)
		if (push(errors, json_pack("{s:I,s:o,s:o}", "ret", (json_int_t)r->v[i].ret, "name",
					   evt_json_str(evt_errno_name(r->v[i].ret)), "count",
					   evt_json_u64(r->v[i].count)))) {
			json_decref(errors);
			return NULL;
		}
	return json_pack("{s:o,s:o}", "success", evt_json_u64(r->success), "errors", errors);
}

static int id_in(const int32_t *v, uint32_t n, int32_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == id)
			return 1;
	return 0;
}

/* @comm matches a glob of the comma-separated @list. */
static int comm_in(const char *list, const char *comm)
{
	char glob[256];

	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");

		if (n < sizeof(glob)) {
			memcpy(glob, p, n);
			glob[n] = 0;
			if (!fnmatch(glob, comm, 0))
				return 1;
		}
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

int evt_report_task_match(const struct evt_report *r, int32_t tid, int32_t pid, const char *comm)
{
	uint32_t i;
	int ok = 0;

	if (r->nr_pids && (pid < 0 || !id_in(r->pids, r->nr_pids, pid)))
		return 0;
	if (r->nr_tids && !id_in(r->tids, r->nr_tids, tid))
		return 0;
	for (i = 0; i < r->nr_comms && !ok; i++)
		ok = comm_in(r->comms[i], comm);
	return ok || !r->nr_comms;
}

int32_t evt_report_pid(const struct evt_report *r, int32_t tid)
{
	const struct evt_state_thread *t = tid >= 0 ? evt_state_thread(r->state, tid) : NULL;

	if ((!t || t->pid < 0) && r->ids && tid >= 0) {
		const struct evt_state_thread *w = evt_state_thread(r->ids, tid);

		if (w && w->pid >= 0)
			return w->pid;
	}
	return t ? t->pid : -1;
}

/* One worst latency of @kind (evt_comps.h). */
static json_t *json_worst(const struct evt_report *r, enum evt_worst_kind kind, const struct evt_stats_worst *w)
{
	const struct evt_stats *s = r->st;
	char name[16];
	json_t *o = json_pack("{s:o,s:o,s:o,s:I,s:I,s:I,s:o}", "begin_ts", evt_json_u64(w->begin), "end_ts",
			      evt_json_u64(w->end), "duration_ns", evt_json_u64(w->end - w->begin), "cpu",
			      (json_int_t)w->cpu, "tid", (json_int_t)w->tid, "pid",
			      (json_int_t)evt_report_pid(r, w->tid), "comm", jstr(w->comm));
	json_t *more;

	if (!o)
		return NULL;
	switch (kind) {
	case EVT_WORST_SYSCALL:
		more = json_pack("{s:o,s:I,s:o}", "syscall",
				 jstr(w->what >= 0 && (uint32_t)w->what < s->nr_sys ? s->sys[w->what].name : "?"),
				 "ret", (json_int_t)w->ret, "errno", evt_json_str(evt_errno_name(w->ret)));
		break;
	case EVT_WORST_IRQ: {
		const struct evt_stats_irq *q = evt_stats_irq(s, w->what);

		more = json_pack("{s:I,s:o}", "irq", (json_int_t)w->what, "name", jstr(q ? q->name : ""));
		break;
	}
	case EVT_WORST_SOFTIRQ:
		more = json_pack("{s:I,s:s}", "vec", (json_int_t)w->what,
				 "name", evt_softirq_name((unsigned int)w->what, name, sizeof(name)));
		break;
	default:
		more = json_pack("{s:I,s:I,s:o}", "prio", (json_int_t)w->prio, "waker_tid", (json_int_t)w->waker,
				 "waker_comm", jstr(w->waker_comm));
		break;
	}
	if (!more || json_object_update(o, more)) {
		json_decref(more);
		json_decref(o);
		return NULL;
	}
	json_decref(more);
	return o;
}

static json_t *json_worst_lists(const struct evt_report *r)
{
	json_t *worst = json_object();

	for (unsigned int k = 0; worst && k < EVT_WORST_KINDS; k++) {
		const struct evt_stats_worstlist *l = &r->st->worst[k];
		json_t *a = json_array();

		for (uint32_t i = 0; a && i < l->n; i++) {
			if (!evt_report_task_match(r, l->v[i].tid, evt_report_pid(r, l->v[i].tid), l->v[i].comm))
				continue;
			if (push(a, json_worst(r, (enum evt_worst_kind)k, &l->v[i]))) {
				json_decref(a);
				a = NULL;
			}
		}
		if (json_object_set_new(worst, evt_worst_kind_name((enum evt_worst_kind)k), a)) {
			json_decref(worst);
			worst = NULL;
		}
	}
	return worst;
}

/* A syscall's figures (@name, @count entries, @lat, @pct, @rets). */
static json_t *json_sys_figures(const char *name, uint64_t count, const struct evt_lat *lat,
				const struct evt_lathist *pct, const struct evt_stats_rets *rets)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "name", jstr(name), "count", evt_json_u64(count), "latency",
			 json_lat(lat), "percentiles_ns", json_pct(pct), "returns", json_rets(rets));
}

/* A thread's own: priorities, migrations, wakeups (who woke it), syscalls; into @o. */
static int json_thread_more(json_t *o, const struct evt_stats *s, const struct evt_stats_thread *th)
{
	json_t *prios = json_array(), *wakeup, *wakers = NULL, *sys = json_array();
	uint32_t i;
	int bad = !prios || !sys;

	for (i = 0; !bad && th && i < th->nprios; i++)
		bad = push(prios, json_integer(th->prios[i]));
	if (th) {
		wakers = json_array();
		for (i = 0; wakers && i < th->nwakers; i++) {
			const struct evt_stats_thread *w = evt_stats_thread(s, th->wakers[i].tid);

			if (push(wakers, json_pack("{s:I,s:o,s:o}", "tid", (json_int_t)th->wakers[i].tid, "comm",
						   jstr(th->wakers[i].tid > 0 && w ? w->comm : ""), "count",
						   evt_json_u64(th->wakers[i].count)))) {
				json_decref(wakers);
				wakers = NULL;
			}
		}
		wakeup = json_pack("{s:o,s:o,s:o}", "latency", json_lat(&th->wake), "percentiles_ns",
				   json_pct(&th->wake_pct), "wakers", wakers);
	} else {
		wakeup = json_object();
	}
	for (i = 0; !bad && th && i < th->ntsys; i++) {
		const struct evt_stats_tsys *y = &th->tsys[i];

		bad = push(sys, json_sys_figures(s->sys[y->sys].name, y->count, &y->lat, &y->pct, &y->rets));
	}
	if (bad) {
		json_decref(prios);
		json_decref(sys);
		json_decref(wakeup);
		return -1;
	}
	return json_object_update_new(o, json_pack("{s:o,s:o,s:o,s:o,s:o}", "prios", prios, "migrations",
						   evt_json_u64(th ? th->migrations : 0), "cpu_changes",
						   evt_json_u64(th ? th->cpu_changes : 0), "wakeup", wakeup,
						   "syscalls", sys));
}

/* Syscalls per process: its threads' (evt_report_procs()). */
static json_t *json_processes(const struct evt_report *r)
{
	struct evt_report_procs ps;
	json_t *a;
	uint32_t i, k;

	if (evt_report_procs_build(&ps, r))
		return NULL;
	a = json_array();
	for (i = 0; a && i < ps.n; i++) {
		const struct evt_report_proc *p = &ps.v[i];
		json_t *sys = json_array();

		for (k = 0; sys && k < p->nsys; k++) {
			const struct evt_stats_tsys *y = &p->sys[k];

			if (push(sys, json_sys_figures(r->st->sys[y->sys].name, y->count, &y->lat, &y->pct, &y->rets))) {
				json_decref(sys);
				sys = NULL;
			}
		}
		if (push(a, json_pack("{s:I,s:o,s:I,s:o}", "pid", (json_int_t)p->pid, "comm", jstr(p->comm), "threads",
				      (json_int_t)p->nthreads, "syscalls", sys))) {
			json_decref(a);
			a = NULL;
		}
	}
	evt_report_procs_free(&ps);
	return a;
}

const char *evt_dev_name(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
	return buf;
}

const char *evt_io_size_name(unsigned int b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	snprintf(buf, len, "%llu %s", 1ULL << (b % 10), unit[b / 10 < 5 ? b / 10 : 4]);
	return buf;
}

static json_t *json_req(const struct evt_io_req_stats *q)
{
	return json_pack("{s:o,s:o,s:o}", "count", evt_json_u64(q->count), "bytes", evt_json_u64(q->bytes), "latency",
			 json_lat(&q->lat));
}

/* The io result: devices (with their request sizes), processes, files. */
static json_t *json_io(const struct evt_io *io)
{
	json_t *devs = json_array(), *procs = json_array(), *files = json_array();
	uint32_t i, k, b;
	char dev[32];
	int bad = !devs || !procs || !files;

	for (i = 0; !bad && i < io->nr_devs; i++) {
		const struct evt_io_dev *d = &io->devs[i];
		json_t *sizes = json_array();

		for (k = 0; sizes && k < 2; k++)
			for (b = 0; sizes && b < EVT_IO_SIZE_BUCKETS; b++) {
				json_t *one;

				if (!d->size[k][b].count)
					continue;
				one = json_pack("{s:s,s:o}", "op", k ? "write" : "read", "max_bytes", evt_json_u64(1ULL << b));
				if (!one || json_object_update_new(one, json_req(&d->size[k][b])) || push(sizes, one)) {
					json_decref(sizes);
					sizes = NULL;
				}
			}
		bad = push(devs, json_pack("{s:s,s:o,s:o,s:o,s:o}", "dev", evt_dev_name(d->dev, dev, sizeof(dev)), "name",
					   jstr(d->name), "reads", json_req(&d->rw[0]), "writes", json_req(&d->rw[1]),
					   "sizes", sizes));
	}
	for (i = 0; !bad && i < io->nr_procs; i++) {
		const struct evt_io_proc *p = &io->procs[i];

		bad = push(procs, json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "pid", (json_int_t)p->pid, "comm", jstr(p->comm),
					    "read", evt_json_u64(p->read), "write", evt_json_u64(p->write), "block_read",
					    evt_json_u64(p->blk_read), "block_write", evt_json_u64(p->blk_write)));
	}
	for (i = 0; !bad && i < io->nr_files; i++)
		bad = push(files, json_pack("{s:o,s:o,s:o}", "name", jstr(io->files[i].name), "read",
					    evt_json_u64(io->files[i].read), "write", evt_json_u64(io->files[i].write)));
	if (bad) {
		json_decref(devs);
		json_decref(procs);
		json_decref(files);
		return NULL;
	}
	return json_pack("{s:o,s:o,s:o,s:o}", "unmatched_completions", evt_json_u64(io->unmatched), "devices", devs,
			 "processes", procs, "files", files);
}

/* The power result: per CPU, the time per idle state and per frequency. */
static json_t *json_power(const struct evt_power *pw)
{
	json_t *cpus = json_array();
	uint32_t i, k;

	for (i = 0; cpus && i < pw->nr_cpus; i++) {
		const struct evt_power_cpu *c = &pw->cpus[i];
		json_t *idle = json_array(), *freq = json_array();
		int bad = !idle || !freq;

		for (k = 0; !bad && k < c->nr_idle_ns; k++)
			bad = push(idle, json_pack("{s:I,s:o}", "state", (json_int_t)c->idle_ns[k].value, "ns",
						   evt_json_u64(c->idle_ns[k].ns)));
		for (k = 0; !bad && k < c->nr_freq_ns; k++)
			bad = push(freq, json_pack("{s:I,s:o}", "khz", (json_int_t)c->freq_ns[k].value, "ns",
						   evt_json_u64(c->freq_ns[k].ns)));
		if (bad) {
			json_decref(idle);
			json_decref(freq);
		}
		if (bad || push(cpus, json_pack("{s:I,s:o,s:o}", "cpu", (json_int_t)c->cpu, "idle", idle, "frequency",
						freq))) {
			json_decref(cpus);
			cpus = NULL;
		}
	}
	return json_pack("{s:o}", "cpus", cpus);
}

/* The report's members after its header, into @o: 0 or -1 (out of memory). */
static int report_body(json_t *o, const struct evt_report *r)
{
	const struct evt_stats *s = r->st;
	size_t nthreads = evt_state_nr_threads(r->state), i;
	json_t *cpus = json_array(), *by_name = json_object(), *threads = json_array(), *sys = json_array();
	json_t *irqs = json_array(), *softirqs = json_array(), *streams = json_array(), *losses = json_array();
	uint32_t k;
	char name[16];
	int bad = !cpus || !by_name || !threads || !sys || !irqs || !softirqs || !streams || !losses;

	/* Where each CPU's time went (evt_comps.h); lossy: inside a loss window, no measurement. */
	for (k = 0; !bad && k < s->nr_cpus; k++) {
		const struct evt_stats_cpu *c = &s->cpus[k];

		bad = push(cpus, json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "cpu", (json_int_t)k, "events",
					   evt_json_u64(c->events), "busy_ns", evt_json_u64(c->busy_ns), "idle_ns",
					   evt_json_u64(c->idle_ns), "irq_ns", evt_json_u64(c->irq_ns), "softirq_ns",
					   evt_json_u64(c->softirq_ns), "lossy_ns", evt_json_u64(c->lossy_ns)));
	}
	for (k = 0; !bad && k < s->nr_ev; k++) {
		/* A key is a string like any other: the name as the other strings are written. */
		json_t *key = jstr(s->ev[k].name);

		bad = !key || json_object_set_new(by_name, json_string_value(key), evt_json_u64(s->ev[k].count));
		json_decref(key);
	}
	for (i = 0; !bad && i < nthreads; i++) {
		const struct evt_state_thread *t = evt_state_thread_nth(r->state, i);
		const struct evt_stats_thread *th = evt_stats_thread(s, t->tid);
		const int32_t pid = t->pid >= 0 ? t->pid : evt_report_pid(r, t->tid);
		json_t *one;

		if (!evt_report_task_match(r, t->tid, pid, t->comm))
			continue;
		one = json_pack("{s:I,s:I,s:I,s:o,s:o,s:o,s:o}", "tid", (json_int_t)t->tid, "pid", (json_int_t)pid,
				"ppid", (json_int_t)t->ppid, "comm", jstr(t->comm), "cpu_ns", evt_json_u64(t->cpu_ns),
				"cpu_lossy_ns", evt_json_u64(t->cpu_lossy_ns), "events",
				evt_json_u64(th ? th->events : 0));
		/* A tid used again after a free: its figures go with its latest thread. */
		bad = !one || json_thread_more(one, s, th && evt_state_thread(r->state, t->tid) == t ? th : NULL) ||
		      push(threads, json_incref(one));
		json_decref(one);
	}
	for (k = 0; !bad && k < s->nr_sys; k++) {
		const struct evt_stats_syscall *y = &s->sys[k];

		bad = push(sys, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name", jstr(y->name), "count",
					  evt_json_u64(y->count), "errors", evt_json_u64(y->errors), "latency",
					  json_lat(&y->lat), "percentiles_ns", json_pct(&y->pct), "returns",
					  json_rets(&y->rets), "hist_log2_ns", json_hist(y->hist)));
	}
	for (k = 0; !bad && k < s->nr_irqs; k++) {
		const struct evt_stats_irq *q = &s->irqs[k];

		bad = push(irqs, json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "irq", (json_int_t)q->irq, "name", jstr(q->name),
					   "count", evt_json_u64(q->count), "duration", json_lat(&q->dur),
					   "percentiles_ns", json_pct(&q->pct), "hist_log2_ns", json_hist(q->hist)));
	}
	for (k = 0; !bad && k < EVT_STATS_SOFTIRQS; k++) {
		const struct evt_stats_softirq *q = &s->softirq[k];

		if (!q->count && !q->raises)
			continue;
		bad = push(softirqs, json_pack("{s:I,s:s,s:o,s:o,s:o,s:o,s:o}", "vec", (json_int_t)k, "name",
					       evt_softirq_name(k, name, sizeof(name)), "count", evt_json_u64(q->count),
					       "raises", evt_json_u64(q->raises), "duration", json_lat(&q->dur),
					       "percentiles_ns", json_pct(&q->pct), "hist_log2_ns", json_hist(q->hist)));
	}
	for (k = 0; !bad && k < s->nr_streams; k++) {
		const struct evt_stats_stream *q = &s->streams[k];

		bad = push(streams, json_pack("{s:I,s:I,s:s,s:o,s:o}", "id", (json_int_t)q->id, "cpu", (json_int_t)q->cpu,
					      "channel", evt_channel_name(q->channel), "discarded",
					      evt_json_u64(q->discarded), "lost_packets", evt_json_u64(q->lost_packets)));
	}
	for (k = 0; !bad && k < s->nr_losses; k++) {
		const struct evt_stats_loss *l = &s->losses[k];

		bad = push(losses, json_pack("{s:o,s:I,s:o,s:o}", "ts", evt_json_u64(l->ts), "stream", (json_int_t)l->stream,
					     "discarded", evt_json_u64(l->discarded), "lost_packets",
					     evt_json_u64(l->lost_packets)));
	}
	if (bad) {
		json_decref(cpus);
		json_decref(by_name);
		json_decref(threads);
		json_decref(sys);
		json_decref(irqs);
		json_decref(softirqs);
		json_decref(streams);
		json_decref(losses);
		return -1;
	}
	if (json_object_update_new(o, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cpus", cpus,
						"events_by_name", by_name, "threads", threads, "syscalls", sys,
						"syscall_exits_unmatched", evt_json_u64(s->sys_unmatched), "irqs", irqs,
						"softirqs", softirqs, "sched_latency", json_lat(&s->sched_lat),
						"sched_latency_percentiles_ns", json_pct(&s->sched_pct),
						"sched_latency_hist_log2_ns", json_hist(s->sched_hist), "streams", streams,
						"losses", losses, "worst", json_worst_lists(r))))
		return -1;
	if (json_object_set_new(o, "processes", json_processes(r)))
		return -1;
	if (r->io && json_object_set_new(o, "io", json_io(r->io)))
		return -1;
	if (r->power && json_object_set_new(o, "power", json_power(r->power)))
		return -1;
	return 0;
}

int evt_report_json(FILE *f, const struct evt_report *r)
{
	const struct evt_stats *s = r->st;
	uint64_t disc = 0, lostp = 0;
	json_t *o;
	uint32_t k;

	for (k = 0; k < s->nr_losses; k++) {
		disc += s->losses[k].discarded;
		lostp += s->losses[k].lost_packets;
	}
	/* Whether the trace (the window) is whole, first. */
	o = json_pack("{s:s,s:b,s:o,s:o,s:I,s:o,s:b,s:o,s:o,s:o,s:o}", "schema", EVT_SCHEMA_STATS, "complete",
		      !s->nr_losses, "discarded", evt_json_u64(disc), "lost_packets", evt_json_u64(lostp), "loss_ranges",
		      (json_int_t)s->nr_losses, "trace", jstr(r->path), "window", r->window, "offset_ns",
		      evt_json_u64(r->offset_ns), "events", evt_json_u64(s->events), "first_ts",
		      evt_json_u64(s->first_ts), "last_ts", evt_json_u64(s->last_ts));
	if (o && report_body(o, r)) {
		json_decref(o);
		o = NULL;
	}
	return evt_json_write(f, o, JSON_COMPACT);
}

/* ---- Syscalls per process ---- */

static int proc_add_thread(struct evt_report_proc *p, const struct evt_stats_thread *th)
{
	for (uint32_t i = 0; i < th->ntsys; i++) {
		const struct evt_stats_tsys *y = &th->tsys[i];
		uint32_t k;

		for (k = 0; k < p->nsys && p->sys[k].sys != y->sys; k++)
			;
		if (k == p->nsys) {
			if (evt_grow(&p->sys, &p->cap, (size_t)p->nsys + 1, sizeof(*p->sys)))
				return -1;
			evt_stats_tsys_init(&p->sys[p->nsys++], y->sys);
		}
		if (evt_stats_tsys_merge(&p->sys[k], y))
			return -1;
		p->calls += y->count;
	}
	p->nthreads++;
	return 0;
}

static int by_calls(const void *a, const void *b)
{
	const struct evt_report_proc *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : (x->tid > y->tid) - (x->tid < y->tid);
}

int evt_report_procs_build(struct evt_report_procs *ps, const struct evt_report *r)
{
	const struct evt_stats *s = r->st;

	memset(ps, 0, sizeof(*ps));
	for (uint32_t i = 0; i < s->nr_threads; i++) {
		const struct evt_stats_thread *th = &s->threads[i];
		const int32_t pid = evt_report_pid(r, th->tid);
		struct evt_report_proc *p = NULL;
		uint32_t k;

		if (th->tid <= 0 || !th->ntsys || !evt_report_task_match(r, th->tid, pid, th->comm))
			continue;
		for (k = 0; pid >= 0 && k < ps->n && !p; k++)
			if (ps->v[k].pid == pid)
				p = &ps->v[k];
		if (!p) {
			if (evt_grow(&ps->v, &ps->cap, (size_t)ps->n + 1, sizeof(*ps->v)))
				goto oom;
			p = &ps->v[ps->n++];
			memset(p, 0, sizeof(*p));
			p->pid = pid;
			p->tid = th->tid;
			memcpy(p->comm, th->comm, sizeof(p->comm));
		}
		if (th->tid == pid)
			memcpy(p->comm, th->comm, sizeof(p->comm));
		if (proc_add_thread(p, th))
			goto oom;
	}
	if (ps->n)
		qsort(ps->v, ps->n, sizeof(*ps->v), by_calls);
	return 0;
oom:
	evt_report_procs_free(ps);
	return -1;
}

void evt_report_procs_free(struct evt_report_procs *ps)
{
	for (uint32_t i = 0; i < ps->n; i++) {
		for (uint32_t k = 0; k < ps->v[i].nsys; k++)
			evt_stats_tsys_release(&ps->v[i].sys[k]);
		free(ps->v[i].sys);
	}
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

/* ---- A window's statistics ---- */

int evt_report_window_init(struct evt_report_window *w, struct evt_engine *e, struct evt_etrace *t,
			    uint64_t from, uint64_t to, char *err, size_t errlen)
{
	struct evt_trace *tr = evt_etrace_reader(t);
	const struct evt_state *ready = evt_comp_result(t, "state");
	uint64_t off = evt_etrace_offset_ns(t);
	unsigned int cpu, nr_cpus = 0;

	memset(w, 0, sizeof(*w));
	evt_request_init(&w->req, w);
	w->from = from;
	w->to = to;
	if (!tr) {
		snprintf(err, errlen, "%s", evt_etrace_error(t));
		return -1;
	}
	w->ts = evt_traceset_new(e);
	w->st = evt_stats_new();
	w->state = evt_state_new();
	w->io = evt_comp_io.create(t);
	if (!w->ts || !w->st || !w->state || !w->io)
		goto oom;
	/* A ready state result says who runs where at the window's start. */
	for (unsigned int i = 0; i < tr->nr_streams; i++)
		if (tr->streams[i].cpu + 1 > nr_cpus)
			nr_cpus = tr->streams[i].cpu + 1;
	for (cpu = 0; ready && cpu < nr_cpus; cpu++) {
		int32_t tid = evt_state_cpu_tid_at(ready, cpu, from);

		if (tid >= 0 && (evt_state_seed_cpu(w->state, cpu, tid) || evt_stats_seed_cpu(w->st, cpu, tid)))
			goto oom;
	}
	w->req.from_rt = from > UINT64_MAX - off ? UINT64_MAX : from + off;
	w->req.to_rt = to >= EVT_TIME_END - off ? EVT_TIME_END : to + off;
	if (evt_traceset_add(w->ts, t) || evt_hooks_add(&w->req.ctx.event, evt_stats_event_hook, w->st) ||
	    evt_hooks_add(&w->req.ctx.event, evt_state_event_hook, w->state) ||
	    evt_comp_io.hook_adder(&w->req.ctx, w->io))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Losses of the whole trace, kept to those of the window. */
static void window_losses(struct evt_stats *s, uint64_t from, uint64_t to)
{
	uint32_t i, n = 0;

	for (i = 0; i < s->nr_streams; i++)
		s->streams[i].discarded = s->streams[i].lost_packets = 0;
	for (i = 0; i < s->nr_losses; i++) {
		struct evt_stats_loss *l = &s->losses[i];

		if (l->ts < from || l->ts > to)
			continue;
		if (l->stream < s->nr_streams) {
			s->streams[l->stream].discarded += l->discarded;
			s->streams[l->stream].lost_packets += l->lost_packets;
		}
		s->losses[n++] = *l;
	}
	s->nr_losses = n;
}

int evt_report_window_finish(struct evt_report_window *w, struct evt_etrace *t, char *err, size_t errlen)
{
	evt_state_close(w->state);
	evt_stats_close(w->st);
	evt_comp_io.finish(w->io, NULL);
	if (evt_stats_read_losses(w->st, evt_etrace_reader(t))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	window_losses(w->st, w->from, w->to);
	if (w->req.error) {
		snprintf(err, errlen, "%s", w->req.errmsg);
		return 1;
	}
	return 0;
}

void evt_report_window_free(struct evt_report_window *w)
{
	if (w->req.state == EVT_REQ_PENDING || w->req.state == EVT_REQ_RUNNING)
		evt_request_remove(&w->req);
	evt_request_release(&w->req);
	if (w->ts)
		evt_traceset_free(w->ts);
	if (w->st)
		evt_stats_free(w->st);
	if (w->state)
		evt_state_free(w->state);
	if (w->io)
		evt_comp_io.destroy(w->io);
	memset(w, 0, sizeof(*w));
}
