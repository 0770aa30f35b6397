// SPDX-License-Identifier: GPL-2.0
/* Statistics reports shared by evstat and evview: see evt_report.h. */
#include <stdio.h>
#include <stdlib.h>
#include <fnmatch.h>
#include <string.h>
#include "evt_comp_util.h"
#include "evt_format.h"
#include "evt_report.h"

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

static void json_str(FILE *f, const char *s)
{
	char buf[6 * 256 + 3];

	if (strlen(s) > 255) {
		char cut[256];

		memcpy(cut, s, 255);
		cut[255] = 0;
		evt_fmt_json_string(buf, cut);
	} else {
		evt_fmt_json_string(buf, s);
	}
	fputs(buf, f);
}

static void json_lat(FILE *f, const char *key, const struct evt_lat *l)
{
	fprintf(f, "\"%s\":{\"count\":%llu,\"total_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,\"spans_loss\":%llu}",
	           key, (unsigned long long)l->count, (unsigned long long)l->total_ns,
	           (unsigned long long)(l->count ? l->min_ns : 0), (unsigned long long)l->max_ns,
	           (unsigned long long)l->spans_loss);
}

static void json_hist(FILE *f, const uint64_t *h)
{
	int last = 63;

	while (last >= 0 && !h[last])
		last--;
	fprintf(f, "\"hist_log2_ns\":[");
	for (int b = 0; b <= last; b++)
		fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)h[b]);
	fprintf(f, "]");
}

const unsigned int evt_report_pct_permille[EVT_REPORT_NPCT] = { 500, 900, 990, 999 };
const char *const evt_report_pct_names[EVT_REPORT_NPCT] = { "p50", "p90", "p99", "p99.9" };

/* The percentiles of @h (evt_lathist.h: at most 1/128 above the exact value, never below). */
static void json_pct(FILE *f, const char *key, const struct evt_lathist *h)
{
	fprintf(f, "\"%s\":{", key);
	for (unsigned int i = 0; h->count && i < EVT_REPORT_NPCT; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", evt_report_pct_names[i],
			(unsigned long long)evt_lathist_pct(h, evt_report_pct_permille[i]));
	fprintf(f, "}");
}

/* Return values: how many succeeded, and each -errno with its name (null: none known). */
static void json_rets(FILE *f, const struct evt_stats_rets *r)
{
	fprintf(f, "\"returns\":{\"success\":%llu,\"errors\":[", (unsigned long long)r->success);
	for (uint32_t i = 0; i < r->n; i++) {
		const char *e = evt_errno_name(r->v[i].ret);

		fprintf(f, "%s{\"ret\":%lld,\"name\":%s%s%s,\"count\":%llu}", i ? "," : "", (long long)r->v[i].ret,
			e ? "\"" : "", e ? e : "null", e ? "\"" : "", (unsigned long long)r->v[i].count);
	}
	fprintf(f, "]}");
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
static void json_worst(FILE *f, const struct evt_report *r, enum evt_worst_kind kind, const struct evt_stats_worst *w)
{
	const struct evt_stats *s = r->st;
	char name[16];

	fprintf(f, "{\"begin_ts\":%llu,\"end_ts\":%llu,\"duration_ns\":%llu,\"cpu\":%u,\"tid\":%d,\"pid\":%d,\"comm\":",
		(unsigned long long)w->begin, (unsigned long long)w->end, (unsigned long long)(w->end - w->begin), w->cpu,
		w->tid, evt_report_pid(r, w->tid));
	json_str(f, w->comm);
	switch (kind) {
	case EVT_WORST_SYSCALL: {
		const char *e = evt_errno_name(w->ret);

		fprintf(f, ",\"syscall\":");
		json_str(f, w->what >= 0 && (uint32_t)w->what < s->nr_sys ? s->sys[w->what].name : "?");
		fprintf(f, ",\"ret\":%lld,\"errno\":%s%s%s", (long long)w->ret, e ? "\"" : "", e ? e : "null",
			e ? "\"" : "");
		break;
	}
	case EVT_WORST_IRQ: {
		const struct evt_stats_irq *q = evt_stats_irq(s, w->what);

		fprintf(f, ",\"irq\":%d,\"name\":", w->what);
		json_str(f, q ? q->name : "");
		break;
	}
	case EVT_WORST_SOFTIRQ:
		fprintf(f, ",\"vec\":%d,\"name\":\"%s\"", w->what,
			evt_softirq_name((unsigned int)w->what, name, sizeof(name)));
		break;
	default:
		fprintf(f, ",\"prio\":%d,\"waker_tid\":%d,\"waker_comm\":", w->prio, w->waker);
		json_str(f, w->waker_comm);
		break;
	}
	fprintf(f, "}");
}

static void json_worst_lists(FILE *f, const struct evt_report *r)
{
	fprintf(f, ",\"worst\":{");
	for (unsigned int k = 0; k < EVT_WORST_KINDS; k++) {
		const struct evt_stats_worstlist *l = &r->st->worst[k];
		int n = 0;

		fprintf(f, "%s\"%s\":[", k ? "," : "", evt_worst_kind_name((enum evt_worst_kind)k));
		for (uint32_t i = 0; i < l->n; i++) {
			if (!evt_report_task_match(r, l->v[i].tid, evt_report_pid(r, l->v[i].tid), l->v[i].comm))
				continue;
			fprintf(f, "%s", n++ ? "," : "");
			json_worst(f, r, (enum evt_worst_kind)k, &l->v[i]);
		}
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

/* A syscall's figures (@name, @count entries, @lat, @pct, @rets), the members of an object. */
static void json_sys_figures(FILE *f, const char *name, uint64_t count, const struct evt_lat *lat,
			     const struct evt_lathist *pct, const struct evt_stats_rets *rets)
{
	fprintf(f, "\"name\":");
	json_str(f, name);
	fprintf(f, ",\"count\":%llu,", (unsigned long long)count);
	json_lat(f, "latency", lat);
	fprintf(f, ",");
	json_pct(f, "percentiles_ns", pct);
	fprintf(f, ",");
	json_rets(f, rets);
}

/* A thread's own: priorities, migrations, wakeups (who woke it), syscalls. */
static void json_thread_more(FILE *f, const struct evt_stats *s, const struct evt_stats_thread *th)
{
	uint32_t i;

	fprintf(f, ",\"prios\":[");
	for (i = 0; th && i < th->nprios; i++)
		fprintf(f, "%s%d", i ? "," : "", th->prios[i]);
	fprintf(f, "],\"migrations\":%llu,\"cpu_changes\":%llu,\"wakeup\":{",
		(unsigned long long)(th ? th->migrations : 0), (unsigned long long)(th ? th->cpu_changes : 0));
	if (th) {
		json_lat(f, "latency", &th->wake);
		fprintf(f, ",");
		json_pct(f, "percentiles_ns", &th->wake_pct);
		fprintf(f, ",\"wakers\":[");
		for (i = 0; i < th->nwakers; i++) {
			const struct evt_stats_thread *w = evt_stats_thread(s, th->wakers[i].tid);

			fprintf(f, "%s{\"tid\":%d,\"comm\":", i ? "," : "", th->wakers[i].tid);
			json_str(f, th->wakers[i].tid > 0 && w ? w->comm : "");
			fprintf(f, ",\"count\":%llu}", (unsigned long long)th->wakers[i].count);
		}
		fprintf(f, "]");
	}
	fprintf(f, "},\"syscalls\":[");
	for (i = 0; th && i < th->ntsys; i++) {
		const struct evt_stats_tsys *y = &th->tsys[i];

		fprintf(f, "%s{", i ? "," : "");
		json_sys_figures(f, s->sys[y->sys].name, y->count, &y->lat, &y->pct, &y->rets);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

/* Syscalls per process: its threads' (evt_report_procs()). */
static int json_processes(FILE *f, const struct evt_report *r)
{
	struct evt_report_procs ps;
	uint32_t i, k;

	if (evt_report_procs_build(&ps, r))
		return -1;
	fprintf(f, ",\"processes\":[");
	for (i = 0; i < ps.n; i++) {
		const struct evt_report_proc *p = &ps.v[i];

		fprintf(f, "%s{\"pid\":%d,\"comm\":", i ? "," : "", p->pid);
		json_str(f, p->comm);
		fprintf(f, ",\"threads\":%u,\"syscalls\":[", p->nthreads);
		for (k = 0; k < p->nsys; k++) {
			const struct evt_stats_tsys *y = &p->sys[k];

			fprintf(f, "%s{", k ? "," : "");
			json_sys_figures(f, r->st->sys[y->sys].name, y->count, &y->lat, &y->pct, &y->rets);
			fprintf(f, "}");
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]");
	evt_report_procs_free(&ps);
	return 0;
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

static void json_req(FILE *f, const struct evt_io_req_stats *q)
{
	fprintf(f, "\"count\":%llu,\"bytes\":%llu,", (unsigned long long)q->count, (unsigned long long)q->bytes);
	json_lat(f, "latency", &q->lat);
}

/* The io result: devices (with their request sizes), processes, files. */
static void json_io(FILE *f, const struct evt_io *io)
{
	uint32_t i, k, b;
	char dev[32];

	fprintf(f, ",\"io\":{\"unmatched_completions\":%llu,\"devices\":[", (unsigned long long)io->unmatched);
	for (i = 0; i < io->nr_devs; i++) {
		const struct evt_io_dev *d = &io->devs[i];
		int n = 0;

		fprintf(f, "%s{\"dev\":\"%s\",\"name\":", i ? "," : "", evt_dev_name(d->dev, dev, sizeof(dev)));
		json_str(f, d->name);
		for (k = 0; k < 2; k++) {
			fprintf(f, ",\"%s\":{", k ? "writes" : "reads");
			json_req(f, &d->rw[k]);
			fprintf(f, "}");
		}
		fprintf(f, ",\"sizes\":[");
		for (k = 0; k < 2; k++)
			for (b = 0; b < EVT_IO_SIZE_BUCKETS; b++) {
				if (!d->size[k][b].count)
					continue;
				fprintf(f, "%s{\"op\":\"%s\",\"max_bytes\":%llu,", n++ ? "," : "", k ? "write" : "read",
					1ULL << b);
				json_req(f, &d->size[k][b]);
				fprintf(f, "}");
			}
		fprintf(f, "]}");
	}
	fprintf(f, "],\"processes\":[");
	for (i = 0; i < io->nr_procs; i++) {
		const struct evt_io_proc *p = &io->procs[i];

		fprintf(f, "%s{\"pid\":%d,\"comm\":", i ? "," : "", p->pid);
		json_str(f, p->comm);
		fprintf(f, ",\"read\":%llu,\"write\":%llu,\"block_read\":%llu,\"block_write\":%llu}",
			(unsigned long long)p->read, (unsigned long long)p->write, (unsigned long long)p->blk_read,
			(unsigned long long)p->blk_write);
	}
	fprintf(f, "],\"files\":[");
	for (i = 0; i < io->nr_files; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_str(f, io->files[i].name);
		fprintf(f, ",\"read\":%llu,\"write\":%llu}", (unsigned long long)io->files[i].read,
			(unsigned long long)io->files[i].write);
	}
	fprintf(f, "]}");
}

/* The power result: per CPU, the time per idle state and per frequency. */
static void json_power(FILE *f, const struct evt_power *pw)
{
	uint32_t i, k;

	fprintf(f, ",\"power\":{\"cpus\":[");
	for (i = 0; i < pw->nr_cpus; i++) {
		const struct evt_power_cpu *c = &pw->cpus[i];

		fprintf(f, "%s{\"cpu\":%u,\"idle\":[", i ? "," : "", c->cpu);
		for (k = 0; k < c->nr_idle_ns; k++)
			fprintf(f, "%s{\"state\":%u,\"ns\":%llu}", k ? "," : "", c->idle_ns[k].value,
				(unsigned long long)c->idle_ns[k].ns);
		fprintf(f, "],\"frequency\":[");
		for (k = 0; k < c->nr_freq_ns; k++)
			fprintf(f, "%s{\"khz\":%u,\"ns\":%llu}", k ? "," : "", c->freq_ns[k].value,
				(unsigned long long)c->freq_ns[k].ns);
		fprintf(f, "]}");
	}
	fprintf(f, "]}");
}

int evt_report_json(FILE *f, const struct evt_report *r)
{
	const struct evt_stats *s = r->st;
	size_t nthreads = evt_state_nr_threads(r->state), i;
	uint32_t k, n = 0;
	char name[16];

	uint64_t disc = 0, lostp = 0;

	for (k = 0; k < s->nr_losses; k++) {
		disc += s->losses[k].discarded;
		lostp += s->losses[k].lost_packets;
	}
	/* Whether the trace (the window) is whole, first. */
	fprintf(f, "{\"complete\":%s,\"discarded\":%llu,\"packets_lost\":%llu,\"loss_ranges\":%u,\"trace\":",
	           s->nr_losses ? "false" : "true", (unsigned long long)disc, (unsigned long long)lostp, s->nr_losses);
	json_str(f, r->path);
	fprintf(f, ",\"window\":%s,\"offset_ns\":%llu,\"events\":%llu,\"first_ts\":%llu,\"last_ts\":%llu",
	           r->window ? "true" : "false", (unsigned long long)r->offset_ns, (unsigned long long)s->events,
	           (unsigned long long)s->first_ts, (unsigned long long)s->last_ts);
	fprintf(f, ",\"cpus\":[");
	for (k = 0; k < s->nr_cpus; k++) {
		const struct evt_stats_cpu *c = &s->cpus[k];

		/* Where its time went (evt_comps.h); lossy: inside a loss window, no measurement. */
		fprintf(f, "%s{\"cpu\":%u,\"events\":%llu,\"busy_ns\":%llu,\"idle_ns\":%llu,\"irq_ns\":%llu,"
			   "\"softirq_ns\":%llu,\"lossy_ns\":%llu}", k ? "," : "", k, (unsigned long long)c->events,
			   (unsigned long long)c->busy_ns, (unsigned long long)c->idle_ns, (unsigned long long)c->irq_ns,
			   (unsigned long long)c->softirq_ns, (unsigned long long)c->lossy_ns);
	}
	fprintf(f, "],\"events_by_name\":{");
	for (k = 0; k < s->nr_ev; k++) {
		fprintf(f, "%s", k ? "," : "");
		json_str(f, s->ev[k].name);
		fprintf(f, ":%llu", (unsigned long long)s->ev[k].count);
	}
	fprintf(f, "},\"threads\":[");
	for (i = 0; i < nthreads; i++) {
		const struct evt_state_thread *t = evt_state_thread_nth(r->state, i);
		const struct evt_stats_thread *th = evt_stats_thread(s, t->tid);

		const int32_t pid = t->pid >= 0 ? t->pid : evt_report_pid(r, t->tid);

		if (!evt_report_task_match(r, t->tid, pid, t->comm))
			continue;
		fprintf(f, "%s{\"tid\":%d,\"pid\":%d,\"ppid\":%d,\"comm\":", n++ ? "," : "", t->tid, pid, t->ppid);
		json_str(f, t->comm);
		fprintf(f, ",\"cpu_ns\":%llu,\"cpu_lossy_ns\":%llu,\"events\":%llu", (unsigned long long)t->cpu_ns,
			(unsigned long long)t->cpu_lossy_ns, (unsigned long long)(th ? th->events : 0));
		/* A tid used again after a free: its figures go with its latest thread. */
		json_thread_more(f, s, th && evt_state_thread(r->state, t->tid) == t ? th : NULL);
		fprintf(f, "}");
	}
	fprintf(f, "],\"syscalls\":[");
	for (k = 0; k < s->nr_sys; k++) {
		const struct evt_stats_syscall *y = &s->sys[k];

		fprintf(f, "%s{\"name\":", k ? "," : "");
		json_str(f, y->name);
		fprintf(f, ",\"count\":%llu,\"errors\":%llu,", (unsigned long long)y->count,
			(unsigned long long)y->errors);
		json_lat(f, "latency", &y->lat);
		fprintf(f, ",");
		json_pct(f, "percentiles_ns", &y->pct);
		fprintf(f, ",");
		json_rets(f, &y->rets);
		fprintf(f, ",");
		json_hist(f, y->hist);
		fprintf(f, "}");
	}
	fprintf(f, "],\"syscall_exits_unmatched\":%llu,\"irqs\":[", (unsigned long long)s->sys_unmatched);
	for (k = 0; k < s->nr_irqs; k++) {
		const struct evt_stats_irq *q = &s->irqs[k];

		fprintf(f, "%s{\"irq\":%d,\"name\":", k ? "," : "", q->irq);
		json_str(f, q->name);
		fprintf(f, ",\"count\":%llu,", (unsigned long long)q->count);
		json_lat(f, "duration", &q->dur);
		fprintf(f, ",");
		json_pct(f, "percentiles_ns", &q->pct);
		fprintf(f, ",");
		json_hist(f, q->hist);
		fprintf(f, "}");
	}
	fprintf(f, "],\"softirqs\":[");
	for (k = 0, i = 0; k < EVT_STATS_SOFTIRQS; k++) {
		const struct evt_stats_softirq *q = &s->softirq[k];

		if (!q->count && !q->raises)
			continue;
		fprintf(f, "%s{\"vec\":%u,\"name\":\"%s\",\"count\":%llu,\"raises\":%llu,", i++ ? "," : "", k,
		           evt_softirq_name(k, name, sizeof(name)), (unsigned long long)q->count,
		           (unsigned long long)q->raises);
		json_lat(f, "duration", &q->dur);
		fprintf(f, ",");
		json_pct(f, "percentiles_ns", &q->pct);
		fprintf(f, ",");
		json_hist(f, q->hist);
		fprintf(f, "}");
	}
	fprintf(f, "],");
	json_lat(f, "sched_latency", &s->sched_lat);
	fprintf(f, ",");
	json_pct(f, "sched_latency_percentiles_ns", &s->sched_pct);
	fprintf(f, ",\"sched_latency_hist_log2_ns\":[");
	{
		int last = 63;

		while (last >= 0 && !s->sched_hist[last])
			last--;
		for (int b = 0; b <= last; b++)
			fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)s->sched_hist[b]);
	}
	fprintf(f, "],\"streams\":[");
	for (k = 0; k < s->nr_streams; k++) {
		const struct evt_stats_stream *q = &s->streams[k];

		fprintf(f, "%s{\"id\":%u,\"cpu\":%u,\"channel\":\"%s\",\"discarded\":%llu,\"lost_packets\":%llu}",
		           k ? "," : "", q->id, q->cpu, evt_channel_name(q->channel), (unsigned long long)q->discarded,
		           (unsigned long long)q->lost_packets);
	}
	fprintf(f, "],\"losses\":[");
	for (k = 0; k < s->nr_losses; k++) {
		const struct evt_stats_loss *l = &s->losses[k];

		fprintf(f, "%s{\"ts\":%llu,\"stream\":%u,\"discarded\":%llu,\"lost_packets\":%llu}", k ? "," : "",
		           (unsigned long long)l->ts, l->stream, (unsigned long long)l->discarded,
		           (unsigned long long)l->lost_packets);
	}
	fprintf(f, "]");
	json_worst_lists(f, r);
	if (json_processes(f, r))
		return -1;
	if (r->io)
		json_io(f, r->io);
	if (r->power)
		json_power(f, r->power);
	fprintf(f, "}\n");
	return ferror(f) ? -1 : 0;
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
