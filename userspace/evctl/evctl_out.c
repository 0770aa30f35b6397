// SPDX-License-Identifier: GPL-2.0
/*
 * evctl's output formats: the status as text and as JSON, notification
 * lines. Names and strings from the kernel are escaped, as every program
 * escapes them (evt_fmt_esc(); JSON: lib/json). See evctl_cli.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <evtrace/events.h>
#include "format/evt_format.h"
#include "json/evt_json.h"
#include "evctl_cli.h"

static const char *chan_name(int ch)
{
	return ch == EVT_CHAN_COMPACT || ch == EVT_CHAN_NORMAL ? evt_channel_name((unsigned int)ch) : "?";
}

static const char *yes(int b)
{
	return b ? "yes" : "no";
}

/* Names hidden: the module gave counts only (its caller lacks CAP_NET_ADMIN). */
static int filter_names_hidden(const struct evt_status_filter *fl)
{
	return (fl->count_comms > 0 && (size_t)fl->count_comms > fl->nr_comms) ||
	       (fl->count_cgroups > 0 && (size_t)fl->count_cgroups > fl->nr_cgroups);
}

static void print_filter_text(FILE *f, const struct evt_status_filter *fl)
{
	char esc[1024];		/* a name, escaped as every program escapes them */
	size_t i;

	if (!fl->set) {
		fputs("filter       none (every task is recorded)\n", f);
		return;
	}
	fprintf(f, "filter       %" PRIu32 " process ID%s%s", fl->nr_pids, fl->nr_pids == 1 ? "" : "s",
		fl->follow_fork ? " (follow fork)" : "");
	if (filter_names_hidden(fl)) {
		fprintf(f, ", %" PRId64 " process name%s, %" PRId64 " cgroup%s (which: CAP_NET_ADMIN only)\n",
			fl->count_comms, fl->count_comms == 1 ? "" : "s",
			fl->count_cgroups, fl->count_cgroups == 1 ? "" : "s");
		return;
	}
	for (i = 0; i < fl->nr_comms; i++)
		fprintf(f, ", comm %s", evt_fmt_esc(esc, sizeof(esc), fl->comms[i]));
	for (i = 0; i < fl->nr_cgroups; i++)
		fprintf(f, ", cgroup %s", evt_fmt_esc(esc, sizeof(esc), fl->cgroups[i]));
	fputc('\n', f);
}

/* " (for 3.2 s)": how long since @since, when the time of reading is known. */
static void print_age(FILE *f, uint64_t now, uint64_t since)
{
	if (now && since && now >= since)
		fprintf(f, " (for %.1f s)", (double)(now - since) / 1e9);
}

/* The rings held by one kind of hold: "compact 0,1 normal 1", the oldest hold's age. */
static void print_held_kind(FILE *f, const struct evt_status *st, int trigger)
{
	uint64_t oldest = 0;
	unsigned int ch;
	size_t i;

	for (ch = 0; ch < EVT_NR_CHANNELS; ch++) {
		const char *sep = " ";
		int named = 0;

		for (i = 0; i < st->nr_rings; i++) {
			const struct evt_status_ring *r = &st->rings[i];
			uint64_t since = trigger ? r->held_trigger : r->held_snapshot;

			if (r->channel != ch || !since)
				continue;
			if (!named++)
				fprintf(f, " %s", chan_name((int)ch));
			fprintf(f, "%s%u", sep, r->cpu);
			sep = ",";
			if (!oldest || since < oldest)
				oldest = since;
		}
	}
	print_age(f, st->now, oldest);
}

static size_t nr_held(const struct evt_status *st, int trigger)
{
	size_t i, n = 0;

	for (i = 0; i < st->nr_rings; i++)
		n += (trigger ? st->rings[i].held_trigger : st->rings[i].held_snapshot) != 0;
	return n;
}

/* The kept trigger, which rings are held by what and since when, CPUs that did not answer. */
static void print_holds_text(FILE *f, const struct evt_status *st)
{
	const struct evt_status_trigger *t = &st->trigger;
	size_t i, held_t = nr_held(st, 1), held_s = nr_held(st, 0);
	const char *sep = "";

	if (!t->seq) {
		fputs("trigger      none kept\n", f);
	} else {
		fprintf(f, "trigger      %" PRIu64 " (%s) kept", t->seq, evt_trigger_name(t->reason));
		if (t->expired)
			fputs(": its holds went unread (trigger_keep_ms)", f);
		else if (!held_t)
			fputs(": read", f);
		else if (t->release_ts && st->now && t->release_ts > st->now)
			fprintf(f, ": held until read, or %.0f s more (trigger_keep_ms)",
				(double)(t->release_ts - st->now) / 1e9);
		else if (!t->release_ts)
			fputs(": held until read", f);
		fputc('\n', f);
	}
	if (!held_t && !held_s) {
		fputs("held         none\n", f);
	} else {
		fputs("held        ", f);
		if (held_t) {
			fprintf(f, " by trigger %" PRIu64 ":", t->seq);
			print_held_kind(f, st, 1);
			sep = ";";
		}
		if (held_s) {
			fprintf(f, "%s by a snapshot:", sep);
			print_held_kind(f, st, 0);
		}
		fputc('\n', f);
	}
	sep = "unanswered  ";
	for (i = 0; i < st->nr_rings; i++) {
		const struct evt_status_ring *r = &st->rings[i];

		if (!r->unanswered)
			continue;
		fprintf(f, "%s %s %u: %" PRIu64 " flush%s", sep, chan_name((int)r->channel), r->cpu,
			r->unanswered, r->unanswered == 1 ? "" : "es");
		sep = ",";
	}
	if (*sep == ',')
		fputs(" not answered in time (a CPU spinning with interrupts off?)\n", f);
}

void evt_status_print_text(FILE *f, const struct evt_status *st)
{
	char esc[1024];		/* a name, escaped as every program escapes them */
	size_t i;

	fprintf(f, "state        %s\n", st->tracing ? "tracing" : "stopped");
	fprintf(f, "mode         %s\n", st->mode < 0 ? "-" : evt_mode_name(st->mode));
	if (st->high_water >= 0)
		fprintf(f, "high_water   %" PRId64 "%%\n", st->high_water);
	if (st->flush_ms >= 0)
		fprintf(f, "flush_ms     %" PRId64 "%s\n", st->flush_ms, st->flush_ms ? "" : " (off)");
	if (st->subbuf_size || st->num_subbuf)
		fprintf(f, "sub-buffers  %" PRIu64 " x %" PRIu64 " bytes per channel and CPU\n",
			st->num_subbuf, st->subbuf_size);
	/* Only while a test has the module's hook on; never in the table. */
	if (st->nr_fake_rings)
		fprintf(f, "fake rings   %zu synthetic entries from the test hook (debugfs "
			"status_fake_cpus): not real, not in the table below\n", st->nr_fake_rings);

	print_filter_text(f, &st->filter);
	print_holds_text(f, st);

	fprintf(f, "\nevents\n  %-30s %-8s %-8s %s\n", "name", "channel", "enabled", "stack");
	for (i = 0; i < st->nr_events; i++) {
		const struct evt_status_event *e = &st->events[i];

		fprintf(f, "  %-30s %-8s %-8s %s\n", evt_fmt_esc(esc, sizeof(esc), e->name),
			e->channel < 0 ? "-" : chan_name(e->channel), yes(e->enabled), yes(e->stack));
	}

	/* Ring rows: the columns of debugfs "stats" (channel first). */
	fprintf(f, "\nrings\n%-7s %4s %-6s", "channel", "cpu", "online");
#define COUNTER_HEADING(field, attr, width) fprintf(f, " %*s", width, #field);
	EVT_RING_COUNTERS(COUNTER_HEADING)
#undef COUNTER_HEADING
	fprintf(f, " %4s\n", "fill");
	for (i = 0; i < st->nr_rings; i++) {
		const struct evt_status_ring *r = &st->rings[i];

		fprintf(f, "%-7s %4u %-6s", chan_name((int)r->channel), r->cpu, yes(r->online));
#define COUNTER_CELL(field, attr, width) fprintf(f, " %*" PRIu64, width, r->field);
		EVT_RING_COUNTERS(COUNTER_CELL)
#undef COUNTER_CELL
		fprintf(f, " %3u%%\n", r->fill);
	}

	fprintf(f, "\ngenerator\n%-7s %4s %-7s %-4s %12s %12s %12s\n", "", "cpu", "running", "done",
		"compact", "normal", "timer");
	for (i = 0; i < st->nr_gens; i++) {
		const struct evt_status_gen *g = &st->gens[i];

		fprintf(f, "%-7s %4u %-7s %-4s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", "gen",
			g->cpu, yes(g->running), yes(g->done), g->compact, g->normal, g->timer);
	}
}

/* A time or a position where 0 means none. */
static json_t *u64_or_null(uint64_t v)
{
	return v ? evt_json_u64(v) : json_null();
}

static json_t *channel_json(unsigned int ch)
{
	return ch == EVT_CHAN_COMPACT || ch == EVT_CHAN_NORMAL ? json_string(chan_name((int)ch)) :
								 json_integer(ch);
}

static json_t *rings_json(const struct evt_status_ring *rings, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++) {
		const struct evt_status_ring *r = &rings[i];
		json_t *o = json_pack("{s:o,s:I,s:b}", "channel", channel_json(r->channel), "cpu", (json_int_t)r->cpu,
				      "online", r->online);
		int bad = !o;

#define COUNTER_MEMBER(field, attr, width) bad = bad || json_object_set_new(o, #field, evt_json_u64(r->field));
		EVT_RING_COUNTERS(COUNTER_MEMBER)
#undef COUNTER_MEMBER
		bad = bad || json_object_update_new(o, json_pack("{s:I,s:o,s:o,s:o}", "fill", (json_int_t)r->fill,
								 "held_snapshot", u64_or_null(r->held_snapshot),
								 "held_trigger", u64_or_null(r->held_trigger),
								 "unanswered", evt_json_u64(r->unanswered)));
		if (bad || json_array_append_new(a, o)) {
			if (bad)
				json_decref(o);
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

/* A list of names (comms, cgroups) from the kernel. */
#define names_json(names, n) names_json_of((names)[0], sizeof((names)[0]), (n))
static json_t *names_json_of(const char *names, size_t size, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		if (json_array_append_new(a, evt_json_bytes(names + i * size, size))) {
			json_decref(a);
			a = NULL;
		}
	return a;
}

static json_t *filter_json(const struct evt_status_filter *fl)
{
	if (!fl->set)
		return json_null();
	/* Hidden from a caller without CAP_NET_ADMIN: null, not an empty list. */
	return json_pack("{s:I,s:b,s:I,s:I,s:o,s:o}", "pids", (json_int_t)fl->nr_pids, "follow_fork", fl->follow_fork,
			 "nr_comms", (json_int_t)(fl->count_comms >= 0 ? fl->count_comms : (int64_t)fl->nr_comms),
			 "nr_cgroups", (json_int_t)(fl->count_cgroups >= 0 ? fl->count_cgroups : (int64_t)fl->nr_cgroups),
			 "comms", filter_names_hidden(fl) ? json_null() : names_json(fl->comms, fl->nr_comms),
			 "cgroups", filter_names_hidden(fl) ? json_null() : names_json(fl->cgroups, fl->nr_cgroups));
}

/* docs/schemas/evtrace.status.json; NULL when out of memory. */
static json_t *status_json(const struct evt_status *st)
{
	json_t *events = json_array(), *gens = json_array(), *o;
	size_t i;
	int bad = !events || !gens;

	for (i = 0; !bad && i < st->nr_events; i++) {
		const struct evt_status_event *e = &st->events[i];

		bad = json_array_append_new(events, json_pack("{s:o,s:o,s:b,s:b}", "name",
							      evt_json_bytes(e->name, sizeof(e->name)), "channel",
							      e->channel == EVT_CHAN_COMPACT || e->channel == EVT_CHAN_NORMAL ?
							      json_string(chan_name(e->channel)) : json_null(),
							      "enabled", e->enabled, "stack", e->stack));
	}
	for (i = 0; !bad && i < st->nr_gens; i++) {
		const struct evt_status_gen *g = &st->gens[i];

		bad = json_array_append_new(gens, json_pack("{s:I,s:b,s:b,s:o,s:o,s:o}", "cpu", (json_int_t)g->cpu,
							    "running", g->running, "done", g->done, "compact",
							    evt_json_u64(g->compact), "normal", evt_json_u64(g->normal),
							    "timer", evt_json_u64(g->timer)));
	}
	if (bad) {
		json_decref(events);
		json_decref(gens);
		return NULL;
	}
	o = json_pack("{s:s,s:s,s:{s:o,s:o,s:o,s:o,s:o},s:o,s:o,s:o,s:o}", "schema", EVT_SCHEMA_STATUS,
		      "state", st->tracing ? "tracing" : "stopped", "config",
		      "mode", st->mode == 0 || st->mode == 1 ? json_string(evt_mode_name(st->mode)) : json_null(),
		      "high_water", st->high_water >= 0 ? json_integer(st->high_water) : json_null(),
		      "flush_ms", st->flush_ms >= 0 ? json_integer(st->flush_ms) : json_null(),
		      "subbuf_size", evt_json_u64(st->subbuf_size), "num_subbuf", evt_json_u64(st->num_subbuf),
		      "events", events, "filter", filter_json(&st->filter), "trigger",
		      st->trigger.seq ? json_pack("{s:o,s:s,s:o,s:o,s:b}", "seq", evt_json_u64(st->trigger.seq), "reason",
						  evt_trigger_name(st->trigger.reason), "ts", evt_json_u64(st->trigger.ts),
						  "release_ts", u64_or_null(st->trigger.release_ts), "expired",
						  st->trigger.expired) : json_null(),
		      "rings", rings_json(st->rings, st->nr_rings));
	/* Only while a test has the module's hook on: a member of its own. */
	if (o && st->nr_fake_rings && json_object_set_new(o, "fake_rings", rings_json(st->fake_rings, st->nr_fake_rings))) {
		json_decref(gens);
		json_decref(o);
		return NULL;
	}
	if (o && json_object_set_new(o, "generator", gens)) {
		json_decref(o);
		return NULL;
	}
	if (!o)
		json_decref(gens);
	return o;
}

void evt_status_print_json(FILE *f, const struct evt_status *st)
{
	if (evt_json_write_lines(f, status_json(st)) && !ferror(f))
		fputs("evctl: status --json: out of memory\n", stderr);
}

void evt_notification_print(FILE *f, const struct evt_notification *n)
{
	if (n->reason > EVT_NOTIFY_NONE && n->reason < __EVT_NOTIFY_MAX)
		fputs(evt_notify_name(n->reason), f);
	else
		fprintf(f, "REASON_%d", n->reason);
	fputs(" channel=", f);
	if (n->channel < 0)
		fputc('-', f);
	else if (n->channel == EVT_CHAN_COMPACT || n->channel == EVT_CHAN_NORMAL)
		fputs(chan_name(n->channel), f);
	else
		fprintf(f, "%d", n->channel);
	if (n->cpu < 0)
		fputs(" cpu=-", f);
	else
		fprintf(f, " cpu=%d", n->cpu);
	if (n->fill < 0)
		fputs(" fill=-", f);
	else
		fprintf(f, " fill=%d", n->fill);
	if (n->reason == EVT_NOTIFY_TRIGGER)
		fprintf(f, " trigger=%s seq=%" PRIu64 " ts=%" PRIu64, evt_trigger_name(n->trigger_reason),
			n->trigger_seq, n->trigger_ts);
	if (n->reason == EVT_NOTIFY_TRIGGER && n->unanswered_cpus[0])
		fprintf(f, " unanswered=%s", n->unanswered_cpus);
	fputc('\n', f);
}
