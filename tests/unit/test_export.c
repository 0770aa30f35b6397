// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter (lib/export, evexport): a synthetic kernel trace cut into
 * chunks and exported one chunk at a time, as an --on-chunk hook does, adds
 * up to the engine's numbers on the whole trace exactly (no syscall pair
 * or wakeup lost at a seam, CPU time per thread, events, losses); every
 * events row names the task its CPU ran; a second export of a chunk writes
 * the same bytes; carries that do not fit are not used; names with control
 * bytes and bytes that are no UTF-8 come out as JSON that loads.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "unit.h"
#include "chunk/evt_chunk.h"
#include "engine/evt_comps.h"
#include "export/evt_export.h"
#include "export/evt_export_priv.h"
#include "ctf/evt_merged.h"
#include "synth/evt_synth.h"
#include "ctf/evt_trace.h"

#define NCHUNKS 6

/* The engine's stats and state over the whole trace @dir, in one reading. */
static void reference(const char *dir, struct evt_stats *s, struct evt_state *st)
{
	struct evt_trace t;
	struct evt_merged mt;
	struct evt_ref refs[512];
	long n, i;
	char *td = evt_trace_dir(dir);

	ck_assert_int_eq(evt_trace_open(&t, td, NULL), 0);
	ck_assert_int_eq(evt_merged_init(&mt, &t, EVT_MERGE_TREE), 0);
	while ((n = evt_merged_next(&mt, refs, 512)) > 0) {
		for (i = 0; i < n; i++) {
			const struct evt_stream *sm = &t.streams[EVT_REF_STREAM(&refs[i])];
			struct evt_engine_event ev = {
				.tr = &t, .ts = refs[i].ts, .idx = EVT_REF_DESC(&refs[i]), .stream = EVT_REF_STREAM(&refs[i]),
				.cpu = sm->cpu, .channel = sm->channel, .payload = refs[i].payload,
				.len = EVT_REF_LEN(&refs[i]),
			};

			ev.desc = &t.md.cat->events[ev.idx];
			evt_stats_event_hook(s, &ev);
			evt_state_event_hook(st, &ev);
		}
	}
	ck_assert_int_eq(n, 0);
	evt_state_close(st);
	ck_assert_int_eq(evt_stats_read_losses(s, &t), 0);
	evt_merged_free(&mt);
	evt_trace_close(&t);
	free(td);
}

/* The chunks of @run by sequence number. */
static void run_names(const char *run, char names[][EVT_CHUNK_NAME_MAX])
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(run);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		uint64_t b, e, seq;

		if (evt_chunk_parse(de->d_name, &b, &e, &seq))
			continue;
		ck_assert_uint_lt(seq, NCHUNKS);
		ck_assert_uint_lt(strlen(de->d_name), EVT_CHUNK_NAME_MAX);
		memcpy(names[seq], de->d_name, strlen(de->d_name) + 1);
		n++;
	}
	closedir(d);
	ck_assert_uint_eq(n, NCHUNKS);
}

/* What the tables of every chunk add up to. */
#define MAXN 512
struct sums {
	struct { char name[64]; uint64_t count, errors, lat_count, lat_sum, lat_min, lat_max, hist[64];
		 uint64_t rows, row_ns, row_errors; } sys[MAXN];
	unsigned int nsys;
	struct { int32_t tid; uint64_t ns; } th[4096];
	unsigned int nth;
	uint64_t wake_rows, wake_ns, sched_count, sched_sum, events_rows, chunk_events, discarded, lost;
	uint64_t pid_unknown_rows;
	struct erow *rows;		/* every events row, checked in time order at the end */
	size_t nrows, caprows;
};

/* An events row, for the check that each names the task its CPU ran. */
struct erow {
	uint64_t ts;
	uint32_t cpu, channel, seq, idx;
	int32_t tid, prev, next;	/* prev, next: a sched_switch's; -2 for other events */
};

static unsigned int sys_slot_of(struct sums *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->nsys && strcmp(m->sys[i].name, name); i++)
		;
	if (i == m->nsys) {
		ck_assert_uint_lt(m->nsys, MAXN);
		snprintf(m->sys[m->nsys++].name, sizeof(m->sys[0].name), "%s", name);
		m->sys[i].lat_min = UINT64_MAX;
	}
	return i;
}

static uint64_t ju(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	ck_assert_msg(json_is_integer(v), "no integer %s", k);
	return (uint64_t)json_integer_value(v);
}

static const char *js(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	ck_assert_msg(json_is_string(v), "no string %s", k);
	return json_string_value(v);
}

static void read_table(const char *dir, const char *table, struct sums *m, int first_chunk)
{
	char path[1024], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.ndjson", dir, table);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	while (getline(&line, &cap, f) > 0) {
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);

		ck_assert_msg(o != NULL, "%s: %s", path, je.text);
		ck_assert_uint_eq(ju(o, "schema"), EVT_EXPORT_SCHEMA);
		ck_assert_str_eq(js(o, "host"), "unit-host");
		if (!strcmp(table, "syscalls")) {
			unsigned int i = sys_slot_of(m, js(o, "name"));

			m->sys[i].rows++;
			m->sys[i].row_ns += ju(o, "duration_ns");
			ck_assert_uint_eq(ju(o, "duration_ns"), ju(o, "exit_ts") - ju(o, "entry_ts"));
			m->sys[i].row_errors += (int64_t)ju(o, "ret") < 0;
			ck_assert_int_eq((int64_t)ju(o, "ret") < 0, js(o, "errno")[0] != 0);
		} else if (!strcmp(table, "wakeups")) {
			m->wake_rows++;
			m->wake_ns += ju(o, "latency_ns");
		} else if (!strcmp(table, "sched_slices")) {
			int32_t tid = (int32_t)ju(o, "tid");
			unsigned int i;

			for (i = 0; i < m->nth && m->th[i].tid != tid; i++)
				;
			if (i == m->nth) {
				ck_assert_uint_lt(m->nth, 4096);
				m->th[m->nth].tid = tid;
				m->th[m->nth++].ns = 0;
			}
			m->th[i].ns += ju(o, "duration_ns");
		} else if (!strcmp(table, "events")) {
			const int32_t tid = (int32_t)ju(o, "tid");
			const struct evt_event_desc *d = evt_catalogue_find(evt_builtin, js(o, "event"));
			struct erow *e;

			ck_assert_ptr_nonnull(d);
			m->events_rows++;
			if (tid > 0 && (int32_t)ju(o, "pid") < 0 && !first_chunk)
				m->pid_unknown_rows++;
			if (m->nrows == m->caprows) {
				m->caprows = m->caprows ? 2 * m->caprows : 65536;
				m->rows = realloc(m->rows, m->caprows * sizeof(*m->rows));
				ck_assert_ptr_nonnull(m->rows);
			}
			e = &m->rows[m->nrows++];
			*e = (struct erow){ ju(o, "ts"), (uint32_t)ju(o, "cpu"), d->channel, (uint32_t)ju(o, "seq"),
					    (uint32_t)ju(o, "idx"), tid, -2, -2 };
			if (!strcmp(d->name, "sched_switch")) {
				json_t *fl = json_loads(js(o, "fields"), 0, NULL);

				ck_assert_ptr_nonnull(fl);
				e->prev = (int32_t)ju(fl, "prev_tid");
				e->next = (int32_t)ju(fl, "next_tid");
				json_decref(fl);
			}
		} else if (!strcmp(js(o, "kind"), "syscall")) {
			unsigned int i = sys_slot_of(m, js(o, "name")), b;
			json_t *h = json_object_get(o, "hist");

			m->sys[i].count += ju(o, "count");
			m->sys[i].errors += ju(o, "errors");
			m->sys[i].lat_count += ju(o, "lat_count");
			m->sys[i].lat_sum += ju(o, "lat_sum_ns");
			if (ju(o, "lat_count") && ju(o, "lat_min_ns") < m->sys[i].lat_min)
				m->sys[i].lat_min = ju(o, "lat_min_ns");
			if (ju(o, "lat_max_ns") > m->sys[i].lat_max)
				m->sys[i].lat_max = ju(o, "lat_max_ns");
			ck_assert_uint_eq(json_array_size(h), 64);
			for (b = 0; b < 64; b++)
				m->sys[i].hist[b] += (uint64_t)json_integer_value(json_array_get(h, b));
		} else if (!strcmp(js(o, "kind"), "sched_latency")) {
			m->sched_count += ju(o, "lat_count");
			m->sched_sum += ju(o, "lat_sum_ns");
		} else if (!strcmp(js(o, "kind"), "chunk")) {
			m->chunk_events += ju(o, "count");
			m->discarded += ju(o, "discarded");
			m->lost += ju(o, "lost_packets");
		}
		json_decref(o);
	}
	free(line);
	fclose(f);
}

/* A CPU's events in the merge's order: time, then channel (buffer ids), then where they were recorded. */
static int by_cpu_time(const void *a, const void *b)
{
	const struct erow *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->channel != y->channel)
		return x->channel < y->channel ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Every events row names the task its CPU ran: a switch happens in its
 * prev, any other event in the last switch's next (each CPU in time
 * order, across the chunks). Rows before a CPU's first switch name its prev.
 */
static void check_event_tasks(struct sums *m)
{
	int32_t cur = -1;
	uint32_t cpu = UINT32_MAX;
	size_t i;

	qsort(m->rows, m->nrows, sizeof(*m->rows), by_cpu_time);
	for (i = 0; i < m->nrows; i++) {
		const struct erow *e = &m->rows[i];

		if (e->cpu != cpu) {
			size_t k;

			cpu = e->cpu;
			/* Before the first switch: its prev (the look-ahead). */
			for (k = i, cur = -1; k < m->nrows && m->rows[k].cpu == cpu; k++)
				if (m->rows[k].prev >= 0) {
					cur = m->rows[k].prev;
					break;
				}
		}
		if (e->prev >= -1) {
			ck_assert_msg(e->tid == e->prev, "cpu %u ts %llu: switch row tid %d, prev_tid %d", cpu,
				      (unsigned long long)e->ts, e->tid, e->prev);
			cur = e->next;
		} else {
			ck_assert_msg(e->tid == cur, "cpu %u ts %llu (chunk %u row %u): tid %d, the last switch ran %d",
				      cpu, (unsigned long long)e->ts, e->seq, e->idx, e->tid, cur);
		}
	}
}

static unsigned int warnings;
static char last_warning[1024];

static void count_warning(void *data, const char *msg)
{
	(void)data;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static int export_one(const char *chunk, const char *out, const char *state, struct evt_export_result *r)
{
	struct evt_export_opts o = { .chunk_dir = chunk, .out_dir = out, .state_dir = state, .final = -1,
				     .warn = count_warning };
	char err[EVT_EXPORT_ERRLEN];
	int rc;

	mkdir(out, 0750);
	rc = evt_export_chunk(&o, r, err, sizeof(err));
	ck_assert_msg(rc == 0, "export %s: %s", chunk, err);
	return rc;
}

static int same_file(const char *a, const char *b)
{
	char cmd[2200];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

START_TEST(seams_lose_nothing)
{
	static const char *const tables[] = { "events", "syscalls", "sched_slices", "wakeups", "stats" };
	struct evt_synth_params p;
	struct evt_synth_result sr;
	char dir[64], run[128], state[128], out[1024], chunk[1024], err[1024];
	char names[NCHUNKS][EVT_CHUNK_NAME_MAX];
	struct evt_stats *ref = evt_stats_new();
	struct evt_state *refst = evt_state_new();
	struct evt_export_result r;
	struct sums *m = calloc(1, sizeof(*m)), *alone = calloc(1, sizeof(*alone));
	uint64_t deferred = 0, ref_pairs = 0, alone_pairs = 0, ref_disc = 0, ref_lost = 0;
	unsigned int k, i, t;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(alone);
	snprintf(dir, sizeof(dir), "/tmp/evt-export-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	evt_synth_defaults(&p);
	p.kernel = 1;
	p.cpus = 3;
	p.events = 90000;
	p.subbuf_size = 4096;
	p.seed = 7 + (uint64_t)_i;
	/* The second run loses events and packets (a stalled drainer). */
	p.stall_every = _i ? 20000 : 0;
	p.overwrite = _i;
	/* Every ring flushed at the cuts, as evdrain's cut does (the exporter's exactness rests on it). */
	if (evt_synth_write_chunks(run, &p, NCHUNKS, "unit-host", "unit-kernel", &sr, err, sizeof(err)))
		ck_abort_msg("synth: %s", err);
	run_names(run, names);
	/* evstat's view: the run of chunks as one trace. */
	reference(run, ref, refst);

	for (k = 0; k < NCHUNKS; k++) {
		snprintf(chunk, sizeof(chunk), "%s/%s", run, names[k]);
		snprintf(out, sizeof(out), "%s/out-%u", dir, k);
		export_one(chunk, out, state, &r);
		ck_assert_int_eq(r.carry, k > 0);
		ck_assert_uint_eq(r.seq, k);
		deferred += r.deferred;
		if (k + 1 == NCHUNKS)
			ck_assert_uint_eq(r.deferred, 0);	/* summary.json: final */
		for (t = 0; t < 5; t++)
			read_table(out, tables[t], m, k == 0);
		/* Each chunk alone (no state): what summing per-chunk figures used to lose. */
		snprintf(out, sizeof(out), "%s/alone-%u", dir, k);
		export_one(chunk, out, NULL, &r);
		read_table(out, "syscalls", alone, 1);
	}
	/* Every syscall as the engine has it on the whole trace. */
	for (i = 0; i < ref->nr_sys; i++) {
		const struct evt_stats_syscall *q = &ref->sys[i];
		unsigned int j = sys_slot_of(m, q->name);

		ck_assert_msg(m->sys[j].count == q->count && m->sys[j].errors == q->errors &&
			      m->sys[j].lat_count == q->lat.count && m->sys[j].lat_sum == q->lat.total_ns &&
			      (!q->lat.count || (m->sys[j].lat_min == q->lat.min_ns && m->sys[j].lat_max == q->lat.max_ns)),
			      "%s: chunks %llu %llu %llu %llu, whole %llu %llu %llu %llu", q->name,
			      (unsigned long long)m->sys[j].count, (unsigned long long)m->sys[j].errors,
			      (unsigned long long)m->sys[j].lat_count, (unsigned long long)m->sys[j].lat_sum,
			      (unsigned long long)q->count, (unsigned long long)q->errors,
			      (unsigned long long)q->lat.count, (unsigned long long)q->lat.total_ns);
		ck_assert(!memcmp(m->sys[j].hist, q->hist, sizeof(q->hist)));
		ck_assert_uint_eq(m->sys[j].rows, q->lat.count);
		ck_assert_uint_eq(m->sys[j].row_ns, q->lat.total_ns);
		ck_assert_uint_eq(m->sys[j].row_errors, q->errors);
		ref_pairs += q->lat.count;
		alone_pairs += alone->sys[sys_slot_of(alone, q->name)].rows;
	}
	ck_assert_uint_eq(m->nsys, ref->nr_sys);
	/*
	 * Cut alone, the chunks lose the pairs across their seams; with
	 * losses they also miss the windows of losses at a seam (what the
	 * carry's seams and windows give), so that they may count more.
	 */
	ck_assert_uint_gt(ref_pairs, 10000);
	if (_i)
		ck_assert_uint_ne(alone_pairs, ref_pairs);
	else
		ck_assert_uint_lt(alone_pairs, ref_pairs);
	ck_assert_uint_eq(m->wake_rows, ref->sched_lat.count);
	ck_assert_uint_eq(m->wake_ns, ref->sched_lat.total_ns);
	ck_assert_uint_eq(m->sched_count, ref->sched_lat.count);
	ck_assert_uint_eq(m->sched_sum, ref->sched_lat.total_ns);
	/*
	 * CPU time per thread: the state computation's, what lies in loss
	 * windows included (the slices are the trace's; evstat keeps that
	 * part apart).
	 */
	for (i = 0; i < m->nth; i++) {
		const struct evt_state_thread *th = evt_state_thread(refst, m->th[i].tid);

		if (m->th[i].tid)
			ck_assert_msg(th && th->cpu_ns + th->cpu_lossy_ns == m->th[i].ns,
				      "tid %d: slices %llu ns, state %llu + %llu", m->th[i].tid,
				      (unsigned long long)m->th[i].ns, (unsigned long long)(th ? th->cpu_ns : 0),
				      (unsigned long long)(th ? th->cpu_lossy_ns : 0));
	}
	for (i = 0; i < evt_state_nr_threads(refst); i++) {
		const struct evt_state_thread *th = evt_state_thread_nth(refst, i);
		const uint64_t ns = th->cpu_ns + th->cpu_lossy_ns;

		for (k = 0; th->tid && ns && k < m->nth && m->th[k].tid != th->tid; k++)
			;
		ck_assert(!th->tid || !ns || k < m->nth);
	}
	ck_assert_uint_eq(m->events_rows, ref->events);
	check_event_tasks(m);
	/* (the seams' deferral was put to work) */
	ck_assert_uint_gt(deferred, 0);
	ck_assert_uint_eq(m->chunk_events, ref->events);
	ck_assert_uint_eq(m->pid_unknown_rows, 0);
	for (i = 0; i < ref->nr_streams; i++) {
		ref_disc += ref->streams[i].discarded;
		ref_lost += ref->streams[i].lost_packets;
	}
	ck_assert_uint_eq(m->discarded, ref_disc);
	ck_assert_uint_eq(m->lost, ref_lost);
	if (_i)
		ck_assert_uint_gt(ref_disc + ref_lost, 0);

	/* A second export of a chunk (a hook run again) writes the same rows. */
	snprintf(chunk, sizeof(chunk), "%s/%s", run, names[3]);
	snprintf(out, sizeof(out), "%s/again", dir);
	export_one(chunk, out, state, &r);
	for (t = 0; t < 5; t++) {
		char a[300], b[300];

		snprintf(a, sizeof(a), "%s/out-3/%s.ndjson", dir, tables[t]);
		snprintf(b, sizeof(b), "%s/again/%s.ndjson", dir, tables[t]);
		ck_assert_msg(same_file(a, b), "%s: another export of chunk 3 differs", tables[t]);
	}

	/* A chunk whose chunk before is missing: the carry of two before is not used. */
	snprintf(out, sizeof(out), "cp '%s/unit-host/%020u.carry' '%s/unit-host/%020u.carry'", state, 1, state, 2);
	ck_assert_int_eq(system(out), 0);
	snprintf(chunk, sizeof(chunk), "%s/%s", run, names[3]);
	snprintf(out, sizeof(out), "%s/gap", dir);
	export_one(chunk, out, state, &r);
	ck_assert_int_eq(r.carry, 0);
	/* A damaged carry: said, and the chunk read as the first of a run. */
	snprintf(out, sizeof(out), "%s/unit-host/%020u.carry", state, 2);
	{
		FILE *f = fopen(out, "w");

		ck_assert_ptr_nonnull(f);
		fputs("EVXC but not one\n", f);
		fclose(f);
	}
	snprintf(out, sizeof(out), "%s/damaged", dir);
	warnings = 0;
	export_one(chunk, out, state, &r);
	ck_assert_int_eq(r.carry, 0);
	ck_assert_uint_eq(warnings, 1);
	ck_assert_msg(strstr(last_warning, "not a carry of this version, or damaged; the chunk is read as the first"),
		      "%s", last_warning);

	/* A state directory that is a symbolic link (to someone else's): refused, no carry written through it. */
	{
		struct evt_export_opts o = { .chunk_dir = chunk, .out_dir = out, .final = -1, .warn = count_warning };
		char link[1100], target[1100];

		snprintf(link, sizeof(link), "%s/state-link", dir);
		snprintf(target, sizeof(target), "%s/elsewhere", dir);
		ck_assert_int_eq(mkdir(target, 0700), 0);
		ck_assert_int_eq(symlink(target, link), 0);
		o.state_dir = link;
		ck_assert_int_eq(evt_export_chunk(&o, &r, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, "not a directory of this user's"), "%s", err);
		snprintf(target, sizeof(target), "%s/elsewhere/unit-host", dir);
		ck_assert_int_eq(access(target, F_OK), -1);
	}

	snprintf(out, sizeof(out), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(out), 0);
	evt_stats_free(ref);
	evt_state_free(refst);
	free(m->rows);
	free(m);
	free(alone->rows);
	free(alone);
}
END_TEST

/* A run of chunks is refused (one chunk at a time); a chunk without a host too. */
START_TEST(refusals)
{
	struct evt_synth_params p;
	struct evt_synth_result sr;
	struct evt_chunk_split_opts so = { .nchunks = 2, .host = "" };
	struct evt_export_opts o = { .final = -1 };
	struct evt_export_result r;
	char dir[64], run[128], err[EVT_EXPORT_ERRLEN], names[2][EVT_CHUNK_NAME_MAX], chunk[256];

	snprintf(dir, sizeof(dir), "/tmp/evt-export-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(run, sizeof(run), "%s/run", dir);
	evt_synth_defaults(&p);
	p.kernel = 1;
	p.cpus = 2;
	p.events = 5000;
	p.subbuf_size = 4096;
	snprintf(chunk, sizeof(chunk), "%s/whole", dir);
	ck_assert_int_eq(evt_synth_write(chunk, &p, &sr, err, sizeof(err)), 0);
	ck_assert_int_eq(evt_chunk_split(chunk, run, &so, names, err, sizeof(err)), 0);
	o.out_dir = dir;
	o.chunk_dir = run;
	o.host = "h";
	ck_assert_int_eq(evt_export_chunk(&o, &r, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "is a run of 2 chunks"), "%s", err);
	snprintf(chunk, sizeof(chunk), "%s/%s", run, names[0]);
	o.chunk_dir = chunk;
	o.host = NULL;
	ck_assert_int_eq(evt_export_chunk(&o, &r, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "which host?"), "%s", err);
	o.host = "h";
	o.out_dir = "/nonexistent/dir";
	ck_assert_int_eq(evt_export_chunk(&o, &r, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "cannot write /nonexistent/dir/events.ndjson"), "%s", err);
	snprintf(chunk, sizeof(chunk), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(chunk), 0);
}
END_TEST

/* Names from a trace (control bytes, bytes that are no UTF-8) come out as JSON text that loads back. */
START_TEST(rows_escape_names)
{
	static const struct evt_task task = { 42, 42, "\x1b[2J\xff\xc3\xa9z" };
	const struct rows_id id = { "h'ost\n\\", "c", 1, "" };
	struct rows rows;
	char dir[64], path[128], err[256], buf[4096];
	json_t *o;
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/evt-export-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(rows_open(&rows, dir, 1u << EVT_EXPORT_SLICES, err, sizeof(err)), 0);
	rows_slice(&rows, &id, "00", 1, &task, 10, 20, 0);
	ck_assert_int_eq(rows_close(&rows, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/sched_slices.ndjson", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	/* No raw control byte in the text; the values load back. */
	for (const char *p = buf; *p != '\n'; p++)
		ck_assert_int_ge((unsigned char)*p, 0x20);
	ck_assert(strcasestr(buf, "\\u001b[2J"));
	o = json_loads(buf, 0, NULL);
	ck_assert_ptr_nonnull(o);
	/* 0xff as U+00FF (as evcat's JSON has it), the valid é kept. */
	ck_assert_str_eq(js(o, "comm"), "\x1b[2J\xc3\xbf\xc3\xa9z");
	ck_assert_str_eq(js(o, "host"), "h'ost\n\\");
	ck_assert_uint_eq(ju(o, "duration_ns"), 10);
	json_decref(o);
	/* The partition as a SQL literal of the same strings. */
	ck_assert_int_eq(rows_write_partition(dir, &id, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/partition.sql", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "('h\\'ost\\x0A\\\\', 'c')\n");
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("export");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, seams_lose_nothing, 0, 2);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, rows_escape_names);
	suite_add_tcase(s, tc);
	return s;
}
