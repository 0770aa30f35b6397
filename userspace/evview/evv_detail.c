// SPDX-License-Identifier: GPL-2.0
/*
 * evview's details (see evview(1)): what the trace lost and when
 * (/api/trace's "losses", from the packet index: no event read), the whole
 * trace's scheduling latency and worst latencies (/api/latency, from the
 * stats result: the engine's worst lists, the ones evstat reports), and a
 * CPU's slice at a time (/api/slice, from the state result).
 */
#include <stdio.h>
#include <string.h>
#include <microhttpd.h>
#include "json/evt_json.h"
#include "report/evt_report.h"
#include "view/evt_view.h"
#include "evv.h"

/* Windows and records sent at most: a page shades and lists these, and says how many more. */
#define MAX_LOSS_WINDOWS 10000
#define MAX_LOSS_RECORDS 1000

json_t *evv_losses_json(const struct evv *s)
{
	const struct evt_stats *l = s->losses;
	json_t *o = json_object(), *windows = json_array(), *records = json_array();
	uint64_t discarded = 0, packets = 0;
	uint32_t i;

	if (!o || !windows || !records) {
		json_decref(o);
		json_decref(windows);
		json_decref(records);
		return NULL;
	}
	for (i = 0; i < l->nr_losses; i++) {
		const struct evt_stats_loss *x = &l->losses[i];
		const struct evt_stats_stream *st = x->stream < l->nr_streams ? &l->streams[x->stream] : NULL;

		discarded += x->discarded;
		packets += x->lost_packets;
		if (i < MAX_LOSS_RECORDS)
			json_array_append_new(records, json_pack("{s:o,s:o,s:o,s:I,s:s,s:o,s:o}",
						"ts", evv_json_u64(x->ts + s->offset_ns),
						"from", evv_json_u64(x->from + s->offset_ns),
						"to", evv_json_u64(x->to + s->offset_ns),
						"cpu", (json_int_t)(st ? st->cpu : 0),
						"channel", st ? evt_channel_name(st->channel) : "?",
						"discarded", evv_json_u64(x->discarded),
						"lost_packets", evv_json_u64(x->lost_packets)));
	}
	/* Merged: the page shades each in every lane. */
	for (i = 0; i < s->lossmap.n && i < MAX_LOSS_WINDOWS; i++)
		json_array_append_new(windows, json_pack("{s:o,s:o}",
					"from", evv_json_u64(s->lossmap.w[2 * i] + s->offset_ns),
					"to", evv_json_u64(s->lossmap.w[2 * i + 1] + s->offset_ns)));
	/* As evstat's header: complete, discarded, lost_packets, loss_ranges. */
	json_object_set_new(o, "complete", json_boolean(!l->nr_losses));
	json_object_set_new(o, "discarded", evv_json_u64(discarded));
	json_object_set_new(o, "lost_packets", evv_json_u64(packets));
	json_object_set_new(o, "loss_ranges", json_integer(l->nr_losses));
	json_object_set_new(o, "windows", windows);
	json_object_set_new(o, "windows_total", json_integer(s->lossmap.n));
	json_object_set_new(o, "records", records);
	return o;
}

/* A comm (at most @len bytes, at most 16) as JSON: any bytes a task chose, as every document writes them. */
static json_t *comm_json(const char *comm, size_t len)
{
	return evt_json_bytes(comm, len < 16 ? len : 16);
}

/* ---- /api/latency ---- */

static json_t *lat_json(const struct evt_lat *l)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "count", evv_json_u64(l->count),
			 "total_ns", evv_json_u64(l->total_ns), "min_ns", evv_json_u64(l->count ? l->min_ns : 0),
			 "max_ns", evv_json_u64(l->max_ns), "spans_loss", evv_json_u64(l->spans_loss));
}

/* What a worst record of @kind is: a syscall's, an IRQ's or a softirq's name ("" for scheduling). */
static const char *worst_what(const struct evt_stats *st, enum evt_worst_kind kind, int32_t what, char *buf,
			      size_t len)
{
	const struct evt_stats_irq *q;

	switch (kind) {
	case EVT_WORST_SYSCALL:
		return what >= 0 && (uint32_t)what < st->nr_sys ? st->sys[what].name : "?";
	case EVT_WORST_IRQ:
		q = evt_stats_irq(st, what);
		snprintf(buf, len, "%d %s", what, q ? q->name : "?");
		return buf;
	case EVT_WORST_SOFTIRQ:
		return what >= 0 ? evt_softirq_name((unsigned int)what, buf, len) : "?";
	default:
		return "";
	}
}

unsigned int evv_api_latency(struct evv *s, struct MHD_Connection *c, char **body)
{
	uint64_t limit = 10;
	const struct evt_stats *st;
	json_t *o, *worst;
	unsigned int status;
	char buf[64];

	if ((status = evv_get_u64(c, "limit", &limit, body)))
		return status;
	if (limit < 1 || limit > EVT_STATS_WORST)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "limit: 1..%d of each kind", EVT_STATS_WORST);
	evv_enter(s);
	if (!s->ready_stats)
		return evv_reply_computing(s, body);
	st = evt_comp_result(s->t, "stats");
	o = json_object();
	worst = json_object();
	if (!st || !o || !worst) {
		evv_leave(s);
		json_decref(o);
		json_decref(worst);
		return evv_error(MHD_HTTP_INTERNAL_SERVER_ERROR, body, "%s",
				 evt_comp_error(s->t) ? evt_comp_error(s->t) : "out of memory");
	}
	json_object_set_new(o, "sched_latency", lat_json(&st->sched_lat));
	for (unsigned int k = 0; k < EVT_WORST_KINDS; k++) {
		const struct evt_stats_worstlist *l = &st->worst[k];
		json_t *a = json_array();

		for (uint32_t i = 0; a && i < l->n && i < limit; i++) {
			const struct evt_stats_worst *w = &l->v[i];
			json_t *e = json_pack("{s:o,s:o,s:o,s:I,s:I,s:o,s:s}",
					      "begin", evv_json_u64(w->begin + s->offset_ns),
					      "end", evv_json_u64(w->end + s->offset_ns),
					      "duration_ns", evv_json_u64(w->end - w->begin), "cpu", (json_int_t)w->cpu,
					      "tid", (json_int_t)w->tid, "comm", comm_json(w->comm, sizeof(w->comm)),
					      "what", worst_what(st, (enum evt_worst_kind)k, w->what, buf, sizeof(buf)));

			if (e && k == EVT_WORST_SYSCALL)
				json_object_set_new(e, "ret", json_integer(w->ret));
			if (e && k == EVT_WORST_SCHED) {
				json_object_set_new(e, "waker", json_integer(w->waker));
				json_object_set_new(e, "waker_comm", comm_json(w->waker_comm, sizeof(w->waker_comm)));
				json_object_set_new(e, "prio", json_integer(w->prio));
			}
			json_array_append_new(a, e);
		}
		json_object_set_new(worst, evt_worst_kind_name((enum evt_worst_kind)k), a);
	}
	json_object_set_new(o, "worst", worst);
	evv_leave(s);
	return evv_reply(o, body);
}

/* ---- /api/slice ---- */

unsigned int evv_api_slice(struct evv *s, struct MHD_Connection *c, char **body)
{
	uint64_t cpu = UINT64_MAX, at = UINT64_MAX, from, to;
	const struct evt_state_thread *t = NULL;
	struct evt_state_interval iv;
	const struct evt_state *st;
	unsigned int status;
	json_t *o;
	long i;

	if ((status = evv_get_u64(c, "cpu", &cpu, body)) || (status = evv_get_u64(c, "at", &at, body)))
		return status;
	if (cpu == UINT64_MAX || at == UINT64_MAX)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "cpu and at (realtime ns) are needed");
	if (cpu >= s->nr_slot_of || s->slot_of[cpu] < 0)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "cpu: the trace has no CPU %llu", (unsigned long long)cpu);
	if (at < s->first_rt || at > s->last_rt)
		return evv_error(MHD_HTTP_BAD_REQUEST, body, "at: %llu is outside the trace's span [%llu, %llu]",
				 (unsigned long long)at, (unsigned long long)s->first_rt,
				 (unsigned long long)s->last_rt);
	evv_enter(s);
	if (!s->ready_state)
		return evv_reply_computing(s, body);
	st = evt_comp_result(s->t, "state");
	i = st && cpu < evt_state_nr_cpus(st) ? evt_window_iv_find(st, (unsigned int)cpu, at - s->offset_ns) : -1;
	if (i < 0 || evt_state_cpu_interval(st, (unsigned int)cpu, (size_t)i, &iv) || at - s->offset_ns >= iv.end) {
		evv_leave(s);
		return evv_reply(json_pack("{s:b,s:I}", "known", 0, "cpu", (json_int_t)cpu), body);
	}
	if (iv.tid > 0)
		t = evt_state_thread(st, iv.tid);
	from = iv.begin + s->offset_ns;
	to = iv.end + s->offset_ns;
	o = json_pack("{s:b,s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:b,s:o}", "known", iv.tid >= 0, "cpu", (json_int_t)cpu,
		      "tid", (json_int_t)iv.tid, "pid", (json_int_t)(t ? t->pid : iv.tid ? -1 : 0),
		      "ppid", (json_int_t)(t ? t->ppid : -1),
		      "comm", comm_json(t ? t->comm : iv.tid == 0 ? "idle" : "?", 16), "from", evv_json_u64(from),
		      "to", evv_json_u64(to), "duration_ns", evv_json_u64(iv.end - iv.begin),
		      "spans_loss", evt_lossmap_spans(&s->lossmap, iv.begin, iv.end),
		      "lossy_ns", evv_json_u64(evt_lossmap_overlap(&s->lossmap, iv.begin, iv.end)));
	evv_leave(s);
	return evv_reply(o, body);
}
