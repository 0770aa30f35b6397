// SPDX-License-Identifier: GPL-2.0
/* Statistics reports shared by evstat and evview: see evt_report.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	uint32_t k;
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
	for (k = 0; k < s->nr_cpus; k++)
		fprintf(f, "%s{\"cpu\":%u,\"events\":%llu}", k ? "," : "", k, (unsigned long long)s->cpus[k].events);
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

		fprintf(f, "%s{\"tid\":%d,\"pid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "", t->tid, t->pid, t->ppid);
		json_str(f, t->comm);
		fprintf(f, ",\"cpu_ns\":%llu,\"cpu_lossy_ns\":%llu,\"events\":%llu}", (unsigned long long)t->cpu_ns,
			(unsigned long long)t->cpu_lossy_ns, (unsigned long long)(th ? th->events : 0));
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
		fprintf(f, "}");
	}
	fprintf(f, "],");
	json_lat(f, "sched_latency", &s->sched_lat);
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
	if (r->io)
		json_io(f, r->io);
	if (r->power)
		json_power(f, r->power);
	fprintf(f, "}\n");
	return ferror(f) ? -1 : 0;
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
