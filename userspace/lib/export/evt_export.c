// SPDX-License-Identifier: GPL-2.0
/* A chunk as flat tables: see evt_export.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
#include <zlib.h>
#include <evtrace/limits.h>
#include "chunk/evt_chunk.h"
#include "engine/evt_comp_util.h"
#include "export/evt_export_priv.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_trace.h"

/* Carries kept per host: enough to export any of the last chunks again as it was. */
#define CARRIES_KEPT 64
#define BATCH 4096

struct thread_ns {
	int32_t tid;
	uint64_t ns;
};

/*
 * What the derived tables are computed by: the tracker and the stats
 * computation of one tracing session, fed in one time order.
 */
struct unit {
	struct evt_curtask *ct;
	struct evt_stats *st;
	struct rows *rows;
	const struct rows_id *id;
	char trace_id[33];
	uint64_t offset;		/* realtime = clock + this */
	uint64_t first_ts, last_ts;
	int fed, slices_on;
	struct thread_ns *th;		/* CPU time per thread, from the slices */
	uint32_t nr_th, cap_th;
	struct evt_tidmap map;
};

static void warnf(const struct evt_export_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(const struct evt_export_opts *o, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o->warn)
		o->warn(o->warn_data, msg);
	else
		fprintf(stderr, "evexport: %s\n", msg);
}

static void uuid_hex(const uint8_t *u, char *out)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i;

	for (i = 0; i < 16; i++) {
		out[2 * i] = hex[u[i] >> 4];
		out[2 * i + 1] = hex[u[i] & 15];
	}
	out[32] = '\0';
}

/* ---- A unit's rows ---- */

static void on_slice(void *data, const struct evt_slice *s)
{
	struct unit *u = data;
	struct evt_task t;
	long i;

	if (!u->slices_on)
		return;
	evt_curtask_thread(u->ct, s->tid, &t);
	rows_slice(u->rows, u->id, u->trace_id, s->cpu, &t, s->begin + u->offset, s->end + u->offset, s->end_state);
	i = evt_tidmap_get(&u->map, s->tid);
	if (i < 0) {
		if (evt_grow(&u->th, &u->cap_th, (size_t)u->nr_th + 1, sizeof(*u->th)) ||
		    evt_tidmap_set(&u->map, s->tid, u->nr_th))
			return;
		i = u->nr_th++;
		u->th[i].tid = s->tid;
		u->th[i].ns = 0;
	}
	/* CPU time as evstat counts it: not what lies in a loss window. */
	u->th[i].ns += s->end - s->begin - evt_stats_loss_overlap(u->st, s->begin, s->end);
}

static void on_syscall(void *data, const struct evt_engine_event *ev, int32_t tid, const char *name,
		       uint64_t entry_ts, int64_t ret)
{
	struct unit *u = data;
	struct evt_task t;

	evt_curtask_thread(u->ct, tid, &t);
	rows_syscall(u->rows, u->id, u->trace_id, ev->cpu, &t, name, entry_ts + u->offset, ev->ts + u->offset, ret);
}

static void on_sched_latency(void *data, const struct evt_engine_event *ev, int32_t tid, uint64_t wakeup_ts)
{
	struct unit *u = data;
	struct evt_task t;

	evt_curtask_thread(u->ct, tid, &t);
	rows_wakeup(u->rows, u->id, u->trace_id, ev->cpu, &t, wakeup_ts + u->offset, ev->ts + u->offset);
}

static int unit_init(struct unit *u, struct rows *rows, const struct rows_id *id, const uint8_t *uuid,
		     uint64_t offset)
{
	struct evt_stats_observer obs = { on_syscall, on_sched_latency, u };

	memset(u, 0, sizeof(*u));
	u->rows = rows;
	u->id = id;
	u->offset = offset;
	u->slices_on = 1;
	uuid_hex(uuid, u->trace_id);
	u->ct = evt_curtask_new();
	u->st = evt_stats_new();
	if (!u->ct || !u->st)
		return -1;
	evt_curtask_on_slice(u->ct, on_slice, u);
	evt_stats_set_observer(u->st, &obs);
	return 0;
}

static void unit_free(struct unit *u)
{
	evt_curtask_free(u->ct);
	evt_stats_free(u->st);
	free(u->th);
	evt_tidmap_free(&u->map);
	memset(u, 0, sizeof(*u));
}

/* What the chunk before had in flight: 0, or -1 (the carry does not fit). */
static int unit_seed(struct unit *u, const struct carry *c)
{
	struct evt_rbuf r = { c->tracker.p, c->tracker.n, 0 };
	uint32_t i;

	if (evt_curtask_load(u->ct, &r) || r.off != r.n)
		return -1;
	if (c->nr_streams || c->nr_windows) {
		struct evt_loss_seam *seams = calloc(c->nr_streams + 1, sizeof(*seams));
		int rc;

		if (!seams)
			return -1;
		for (i = 0; i < c->nr_streams; i++)
			seams[i] = (struct evt_loss_seam){ c->streams[i].cpu, c->streams[i].channel, c->streams[i].end,
							   c->streams[i].discarded, c->streams[i].next_seq };
		rc = evt_stats_prior_losses(u->st, seams, c->nr_streams, c->windows, c->nr_windows);
		free(seams);
		if (rc)
			return -1;
	}
	for (i = 0; i < c->nr_stats_cpu; i++)
		if (c->stats_cpu[i] >= 0 && evt_stats_seed_cpu(u->st, i, c->stats_cpu[i]))
			return -1;
	for (i = 0; i < c->nr_sys; i++)
		if (evt_stats_seed_syscall(u->st, c->sys[i].tid, c->sys[i].name, c->sys[i].ts))
			return -1;
	for (i = 0; i < c->nr_woken; i++)
		if (evt_stats_seed_wakeup(u->st, c->woken[i].tid, c->woken[i].ts))
			return -1;
	return 0;
}

/*
 * What is in flight now, for the next chunk: 0 or -1 (no memory). @open:
 * the time the deferred events start at; the loss windows that end after
 * it or after an interval still open began go too.
 */
static int unit_carry_out(const struct unit *u, struct carry *c, uint64_t open)
{
	const struct evt_stats *s = u->st;
	const uint64_t *w;
	uint32_t i;

	if (evt_curtask_save(u->ct, &c->tracker))
		return -1;
	if (s->nr_cpus && !(c->stats_cpu = calloc(s->nr_cpus, sizeof(*c->stats_cpu))))
		return -1;
	c->nr_stats_cpu = s->nr_cpus;
	for (i = 0; i < s->nr_cpus; i++)
		c->stats_cpu[i] = s->cpus[i].cur;
	if (s->nr_threads && (!(c->sys = calloc(s->nr_threads, sizeof(*c->sys))) ||
			      !(c->woken = calloc(s->nr_threads, sizeof(*c->woken)))))
		return -1;
	for (i = 0; i < s->nr_threads; i++) {
		const struct evt_stats_thread *t = &s->threads[i];

		if (t->tid >= 0 && t->sys >= 0) {
			c->sys[c->nr_sys].tid = t->tid;
			c->sys[c->nr_sys].ts = t->sys_ts;
			if (!(c->sys[c->nr_sys].name = strdup(s->sys[t->sys].name)))
				return -1;
			c->nr_sys++;
		}
		if (t->tid > 0 && t->wakeup_pending) {
			c->woken[c->nr_woken].tid = t->tid;
			c->woken[c->nr_woken].ts = t->wakeup_ts;
			c->nr_woken++;
		}
		if (t->tid >= 0 && t->sys >= 0 && t->sys_ts < open)
			open = t->sys_ts;
		if (t->tid > 0 && t->wakeup_pending && t->wakeup_ts < open)
			open = t->wakeup_ts;
	}
	for (i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].since < open)
			open = s->cpus[i].since;
	c->nr_windows = evt_stats_windows_after(s, open, &w);
	if (c->nr_windows) {
		c->windows = malloc(2 * (size_t)c->nr_windows * sizeof(*c->windows));
		if (!c->windows)
			return -1;
		memcpy(c->windows, w, 2 * (size_t)c->nr_windows * sizeof(*c->windows));
	}
	return 0;
}

static void unit_feed(struct unit *u, const struct evt_engine_event *ev)
{
	if (!u->fed) {
		u->fed = 1;
		u->first_ts = ev->ts;
	}
	u->last_ts = ev->ts;
	/* The slices the tracker ends now are checked against this reader's loss windows too. */
	evt_stats_use_reader(u->st, ev->tr);
	evt_curtask_event(u->ct, (void *)ev);
	evt_stats_event_hook(u->st, (void *)ev);
}

/* The unit's aggregates as stats rows (its slices cut at its last event first). */
static void unit_stats_rows(struct unit *u)
{
	const struct evt_stats *s = u->st;
	const uint64_t b = u->fed ? u->first_ts + u->offset : 0, e = u->fed ? u->last_ts + u->offset : 0;
	struct stats_row row;
	uint32_t i;

	if (u->fed)
		evt_curtask_cut(u->ct, u->last_ts);
	if (!rows_want(u->rows, EVT_EXPORT_STATS))
		return;
	for (i = 0; i < s->nr_ev; i++) {
		memset(&row, 0, sizeof(row));
		row = (struct stats_row){ .kind = "event", .name = s->ev[i].name, .begin = b, .end = e, .cpu = -1,
					  .count = s->ev[i].count };
		rows_stats(u->rows, u->id, u->trace_id, &row);
	}
	for (i = 0; i < s->nr_cpus; i++) {
		if (!s->cpus[i].events)
			continue;
		row = (struct stats_row){ .kind = "cpu", .begin = b, .end = e, .cpu = i, .count = s->cpus[i].events };
		rows_stats(u->rows, u->id, u->trace_id, &row);
	}
	for (i = 0; i < s->nr_sys; i++) {
		const struct evt_stats_syscall *q = &s->sys[i];

		if (!q->count && !q->lat.count)
			continue;
		row = (struct stats_row){ .kind = "syscall", .name = q->name, .begin = b, .end = e, .cpu = -1,
					  .count = q->count, .errors = q->errors, .lat = &q->lat, .hist = q->hist };
		rows_stats(u->rows, u->id, u->trace_id, &row);
	}
	if (s->sched_lat.count) {
		row = (struct stats_row){ .kind = "sched_latency", .begin = b, .end = e, .cpu = -1,
					  .count = s->sched_lat.count, .lat = &s->sched_lat, .hist = s->sched_hist };
		rows_stats(u->rows, u->id, u->trace_id, &row);
	}
	/* Threads: CPU time from the slices, events from the stats (tid -1: a CPU's task unknown). */
	for (i = 0; i < s->nr_threads; i++) {
		const struct evt_stats_thread *t = &s->threads[i];
		long k = evt_tidmap_get(&u->map, t->tid);
		struct evt_task task;

		if (!t->events && (k < 0 || !u->th[k].ns))
			continue;
		evt_curtask_thread(u->ct, t->tid, &task);
		row = (struct stats_row){ .kind = "thread", .begin = b, .end = e, .cpu = -1, .task = &task,
					  .count = t->events, .cpu_ns = k >= 0 ? u->th[k].ns : 0 };
		rows_stats(u->rows, u->id, u->trace_id, &row);
	}
	for (i = 0; i < u->nr_th; i++) {
		struct evt_task task;

		if (evt_stats_thread(s, u->th[i].tid) || !u->th[i].ns)
			continue;
		evt_curtask_thread(u->ct, u->th[i].tid, &task);
		row = (struct stats_row){ .kind = "thread", .begin = b, .end = e, .cpu = -1, .task = &task,
					  .cpu_ns = u->th[i].ns };
		rows_stats(u->rows, u->id, u->trace_id, &row);
	}
}

/* ---- The chunk ---- */

/* An event of the merge as the computations take it. */
static void make_event(struct evt_engine_event *ev, const struct evt_trace *tr, uint64_t ts, uint32_t idx,
		       unsigned int stream, unsigned int cpu, unsigned int channel, const uint8_t *payload, uint32_t len)
{
	memset(ev, 0, sizeof(*ev));
	ev->tr = tr;
	ev->ts = ts;
	ev->idx = idx;
	ev->desc = &tr->md.cat->events[idx];
	ev->stream = stream;
	ev->cpu = cpu;
	ev->channel = channel;
	ev->payload = payload;
	ev->len = len;
}

/* The chunk's summary.json (evdrain's): its host, sequence number, whether it ends a session. */
static void read_summary(const char *chunk_dir, char *host, size_t hlen, char *kernel, size_t klen, uint64_t *seq,
			 int *has_seq, int *final)
{
	char path[4200];
	json_t *j, *v;

	snprintf(path, sizeof(path), "%s/%s", chunk_dir, EVT_CHUNK_SUMMARY);
	j = json_load_file(path, 0, NULL);
	/* No summary: a whole trace, not a chunk; nothing follows it. */
	*final = !j;
	if (!j)
		return;
	v = json_object_get(j, "host");
	if (json_is_string(v) && json_string_length(v) < hlen && !memchr(json_string_value(v), 0, json_string_length(v)))
		snprintf(host, hlen, "%s", json_string_value(v));
	v = json_object_get(j, "kernel");
	if (json_is_string(v) && json_string_length(v) < klen && !memchr(json_string_value(v), 0, json_string_length(v)))
		snprintf(kernel, klen, "%s", json_string_value(v));
	v = json_object_get(j, "seq");
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*seq = (uint64_t)json_integer_value(v);
		*has_seq = 1;
	}
	v = json_object_get(j, "final");
	if (json_is_boolean(v))
		*final = json_is_true(v);
	json_decref(j);
}

static int metadata_crc(const char *tdir, uint32_t *crc)
{
	char path[4200], buf[65536];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/metadata", tdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	*crc = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*crc = (uint32_t)crc32_z(*crc, (const unsigned char *)buf, (size_t)n);
	close(fd);
	return n < 0 ? -1 : 0;
}

/*
 * @dir made 0750 if absent; a directory of ours, not a symbolic link (the
 * carries hold trace data: nobody else's directory gets them). 0, or -1
 * with @err.
 */
static int own_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (mkdir(dir, 0750) && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: not a directory of this user's (a symbolic link, or another owner's): "
			 "no carry goes there", dir);
		return -1;
	}
	return 0;
}

/* DIR/HOST for a host's carries (HOST with its unusual bytes as %XX), made 0750: 0 or -1 with @err. */
static int host_state_dir(const char *state_dir, const char *host, char *out, size_t len, char *err, size_t errlen)
{
	size_t n;
	const char *p;

	if (own_dir(state_dir, err, errlen))
		return -1;
	n = (size_t)snprintf(out, len, "%s/", state_dir);
	for (p = host; *p && n + 4 < len; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		    c == '_' || (c == '.' && p != host))
			out[n++] = (char)c;
		else
			n += (size_t)snprintf(out + n, len - n, "%%%02X", c);
	}
	out[n] = '\0';
	return own_dir(out, err, errlen);
}

static void carry_path(char *out, size_t len, const char *hdir, uint64_t seq)
{
	snprintf(out, len, "%s/%020llu.carry", hdir, (unsigned long long)seq);
}

/* Only the newest CARRIES_KEPT carries of a host stay. */
static void prune_carries(const char *hdir, uint64_t seq)
{
	struct dirent *de;
	DIR *d;

	if (seq < CARRIES_KEPT || !(d = opendir(hdir)))
		return;
	while ((de = readdir(d))) {
		char *end;
		unsigned long long s = strtoull(de->d_name, &end, 10);

		if (end != de->d_name && !strcmp(end, ".carry") && s + CARRIES_KEPT <= seq)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/*
 * The carry goes on into this chunk: same session (uuid), same metadata,
 * every stream's packets going on from where the carry left them.
 */
static int carry_fits(const struct carry *c, const struct evt_trace *tr, uint32_t crc, uint64_t seq)
{
	unsigned int i, k;

	if (memcmp(c->uuid, tr->md.uuid, 16) || c->metadata_crc != crc || c->seq + 1 != seq)
		return 0;
	for (i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *s = &tr->streams[i];

		if (!s->npk)
			continue;
		for (k = 0; k < c->nr_streams; k++)
			if (c->streams[k].channel == s->channel && c->streams[k].cpu == s->cpu)
				break;
		if (k < c->nr_streams && s->seq_first < c->streams[k].next_seq)
			return 0;
	}
	return 1;
}

/*
 * The chunk's own accounting (not deferred: it is the chunk's): events
 * and losses per stream against the carry's, the chunk row, and the
 * streams as the next carry has them. 0 or -1 (no memory).
 */
static int chunk_rows(struct rows *rows, const struct rows_id *id, const char *trace_id, const struct evt_trace *tr,
		      const struct carry *in, struct carry *out, uint64_t first, uint64_t last, uint64_t events)
{
	const uint64_t off = evt_trace_offset_ns(tr);
	uint64_t discarded = 0, lost = 0;
	unsigned int i, k;

	out->streams = calloc((size_t)(in ? in->nr_streams : 0) + tr->nr_streams + 1, sizeof(*out->streams));
	if (!out->streams)
		return -1;
	for (k = 0; in && k < in->nr_streams; k++)
		out->streams[out->nr_streams++] = in->streams[k];
	for (i = 0; i < tr->nr_streams; i++) {
		const struct evt_stream *s = &tr->streams[i];
		struct carry_stream *cs = NULL;
		uint64_t d, l;
		struct stats_row row;

		if (!s->npk)
			continue;
		for (k = 0; k < out->nr_streams; k++)
			if (out->streams[k].channel == s->channel && out->streams[k].cpu == s->cpu)
				cs = &out->streams[k];
		/* No carry: the running total counts from the stream's start, as evstat has it. */
		d = cs && s->discarded >= cs->discarded ? s->discarded - cs->discarded : s->discarded;
		l = s->seq_gaps + (cs && s->seq_first > cs->next_seq ? s->seq_first - cs->next_seq : 0);
		if (!cs) {
			cs = &out->streams[out->nr_streams++];
			cs->channel = s->channel;
			cs->cpu = s->cpu;
		}
		cs->next_seq = s->seq_first + s->packets + s->seq_gaps;
		cs->discarded = s->discarded;
		cs->end = s->end_ts;
		discarded += d;
		lost += l;
		row = (struct stats_row){ .kind = "stream", .name = evt_channel_name(s->channel),
					  .begin = s->first_ts + off, .end = s->end_ts + off, .cpu = s->cpu,
					  .count = s->events, .discarded = d, .lost_packets = l };
		rows_stats(rows, id, trace_id, &row);
	}
	{
		struct stats_row row = { .kind = "chunk", .begin = events ? first + off : 0,
					 .end = events ? last + off : 0, .cpu = -1, .count = events,
					 .discarded = discarded, .lost_packets = lost };

		rows_stats(rows, id, trace_id, &row);
	}
	return 0;
}

/* Its events row (the task its CPU runs before it), then the computations. */
static void unit_event(struct unit *u, const struct evt_engine_event *ev, uint64_t idx)
{
	if (rows_want(u->rows, EVT_EXPORT_EVENTS)) {
		struct evt_task t;

		evt_curtask_event_task(u->ct, ev, &t);
		rows_event(u->rows, u->id, u->trace_id, idx, ev->ts + u->offset, ev->cpu, &t, ev->desc, ev->payload,
			   ev->len);
	}
	unit_feed(u, ev);
}

/* The deferred events of @c read through @u alone (another session's tail): their own rows. */
static uint64_t flush_carry(struct unit *u, const struct evt_trace *tr, const struct carry *c)
{
	uint32_t i;

	for (i = 0; i < c->nr_ev; i++) {
		const struct deferred *d = &c->ev[i];
		struct evt_engine_event ev;

		make_event(&ev, tr, d->ts, d->idx, 0, d->cpu, d->channel, d->payload, d->len);
		unit_event(u, &ev, i);
	}
	unit_stats_rows(u);
	return c->nr_ev;
}

struct source {
	/* the chunk's merge */
	struct evt_merged mt;
	struct evt_ref refs[BATCH];
	long n, i;
	int done, err;
	/* the deferred events carried in */
	const struct carry *in;
	uint32_t k;
};

/* 1: the next event is the chunk's (*@ref), 2: a carried one (*@d), 0: none left, -1: a decoding error. */
static int next_event(struct source *s, const struct evt_trace *tr, const struct evt_ref **ref,
		      const struct deferred **d)
{
	if (s->i == s->n && !s->done) {
		s->n = evt_merged_next(&s->mt, s->refs, BATCH);
		s->i = 0;
		if (s->n <= 0) {
			s->err = s->n < 0;
			s->done = 1;
			s->n = 0;
		}
	}
	if (s->i < s->n) {
		const struct evt_ref *r = &s->refs[s->i];

		if (s->in && s->k < s->in->nr_ev) {
			const struct deferred *c = &s->in->ev[s->k];
			const struct evt_stream *st = &tr->streams[EVT_REF_STREAM(r)];

			/* The merge's order: time, then CPU and channel (buffer ids go by them); carried first. */
			if (c->ts < r->ts || (c->ts == r->ts && (c->cpu < st->cpu ||
								  (c->cpu == st->cpu && c->channel <= st->channel)))) {
				*d = c;
				s->k++;
				return 2;
			}
		}
		*ref = r;
		s->i++;
		return 1;
	}
	if (s->err)
		return -1;
	if (s->in && s->k < s->in->nr_ev) {
		*d = &s->in->ev[s->k++];
		return 2;
	}
	return 0;
}

/* The earliest end of the chunk's streams: what is at or after it waits for the next chunk. */
static uint64_t defer_from(const struct evt_trace *tr)
{
	uint64_t w = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < tr->nr_streams; i++)
		if (tr->streams[i].npk && tr->streams[i].pk[tr->streams[i].npk - 1].end < w)
			w = tr->streams[i].pk[tr->streams[i].npk - 1].end;
	return w;
}

static const char *base_name(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);
	const char *b;

	while (n > 1 && path[n - 1] == '/')
		n--;
	snprintf(buf, len, "%.*s", (int)n, path);
	b = strrchr(buf, '/');
	return b && b[1] ? b + 1 : buf;
}

int evt_export_chunk(const struct evt_export_opts *o, struct evt_export_result *res, char *err, size_t errlen)
{
	const unsigned int tables = o->tables ? o->tables : (1u << EVT_EXPORT_NR_TABLES) - 1;
	struct evt_trace tr;
	struct carry in, out;
	struct rows rows;
	struct unit u;
	struct source src;
	struct rows_id id;
	char host[256] = "", kernel[256] = "", hdir[4400] = "", path[4500], namebuf[4096], *tdir;
	uint64_t seq = 0, w, idx = 0, first = 0, last = 0;
	int has_seq = 0, final = 0, have_in = 0, fits = 0, lockfd = -1, ret = -1, rc;
	uint32_t crc = 0, i;

	memset(res, 0, sizeof(*res));
	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	memset(&u, 0, sizeof(u));
	memset(&src, 0, sizeof(src));
	read_summary(o->chunk_dir, host, sizeof(host), kernel, sizeof(kernel), &seq, &has_seq, &final);
	if (o->host)
		snprintf(host, sizeof(host), "%s", o->host);
	if (!host[0]) {
		snprintf(err, errlen, "%s: which host? (no summary.json host; give one)", o->chunk_dir);
		return -1;
	}
	if (o->final >= 0)
		final = o->final;
	{
		const char *name = base_name(o->chunk_dir, namebuf, sizeof(namebuf));

		if (strlen(name) >= sizeof(res->chunk)) {
			snprintf(err, errlen, "%.200s...: the chunk's name is too long (at most %zu bytes)", name,
				 sizeof(res->chunk) - 1);
			return -1;
		}
		memcpy(res->chunk, name, strlen(name) + 1);
	}
	if (!has_seq) {
		uint64_t bb, ee;

		has_seq = evt_chunk_parse(res->chunk, &bb, &ee, &seq) == 0;
	}
	snprintf(res->host, sizeof(res->host), "%s", host);
	res->seq = seq;
	tdir = evt_trace_dir(o->chunk_dir);
	if (!tdir) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (evt_trace_open(&tr, tdir, NULL)) {
		snprintf(err, errlen, "%s", tr.err);
		free(tdir);
		return -1;
	}
	if (tr.nr_chunks) {
		snprintf(err, errlen, "%s is a run of %u chunks: export them one at a time", o->chunk_dir, tr.run_chunks);
		goto out_trace;
	}
	if (metadata_crc(tdir, &crc)) {
		snprintf(err, errlen, "%s/metadata: %s", tdir, strerror(errno));
		goto out_trace;
	}
	uuid_hex(tr.md.uuid, res->trace_id);
	id = (struct rows_id){ res->host, res->chunk, seq, kernel };

	/* The carry of the chunk before (one export of a host at a time). */
	if (o->state_dir && has_seq) {
		if (host_state_dir(o->state_dir, host, hdir, sizeof(hdir), err, errlen))
			goto out_trace;
		snprintf(path, sizeof(path), "%s/.lock", hdir);
		lockfd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
		if (lockfd < 0 || flock(lockfd, LOCK_EX)) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out_trace;
		}
		if (seq > 0) {
			carry_path(path, sizeof(path), hdir, seq - 1);
			rc = carry_load(&in, path, err, errlen);
			if (rc < 0) {
				warnf(o, "%s; the chunk is read as the first of a run", err);
			} else if (rc == 0 && in.metadata_crc != crc) {
				if (in.nr_ev)
					warnf(o, "%s: another session's metadata: its %u deferred events are dropped", path,
					      in.nr_ev);
				carry_free(&in);
			} else if (rc == 0 && carry_resolve(&in, tr.md.cat->events, tr.md.cat->nr_events, err, errlen)) {
				warnf(o, "%s: %s: the carry is dropped", path, err);
				carry_free(&in);
			} else if (rc == 0) {
				have_in = 1;
				fits = carry_fits(&in, &tr, crc, seq);
			}
		}
	}
	if (rows_open(&rows, o->out_dir, tables, err, errlen))
		goto out_carry;
	if (rows_set_catalogue(&rows, tr.md.cat->events, tr.md.cat->nr_events)) {
		snprintf(err, errlen, "out of memory");
		goto out_rows;
	}
	if (rows_write_partition(o->out_dir, &id, err, errlen))
		goto out_rows;
	/* Another session's tail (a chunk that did not end its session, then a new one): read alone. */
	if (have_in && !fits) {
		uint8_t uuid[16];

		memcpy(uuid, in.uuid, 16);
		if (in.nr_ev && (unit_init(&u, &rows, &id, uuid, evt_trace_offset_ns(&tr)) || unit_seed(&u, &in))) {
			warnf(o, "the carry of chunk %s does not fit: its deferred events are dropped", in.chunk);
		} else if (in.nr_ev) {
			idx = flush_carry(&u, &tr, &in);
			res->carried_in = in.nr_ev;
		}
		unit_free(&u);
	}
	if (unit_init(&u, &rows, &id, tr.md.uuid, evt_trace_offset_ns(&tr))) {
		snprintf(err, errlen, "out of memory");
		goto out_rows;
	}
	if (fits && unit_seed(&u, &in)) {
		warnf(o, "the carry of chunk %s does not fit: the chunk is read as the first of a run", in.chunk);
		unit_free(&u);
		fits = 0;
		if (unit_init(&u, &rows, &id, tr.md.uuid, evt_trace_offset_ns(&tr))) {
			snprintf(err, errlen, "out of memory");
			goto out_rows;
		}
	}
	res->carry = fits;
	/* Deferred events go to the next chunk's export only through a carry. */
	w = final || !hdir[0] ? UINT64_MAX : defer_from(&tr);
	if (evt_merged_init(&src.mt, &tr, EVT_MERGE_TREE)) {
		snprintf(err, errlen, "out of memory");
		goto out_unit;
	}
	src.in = fits ? &in : NULL;
	for (;;) {
		const struct evt_ref *ref = NULL;
		const struct deferred *d = NULL;
		struct evt_engine_event ev;
		const int own = (rc = next_event(&src, &tr, &ref, &d)) == 1;

		if (rc <= 0)
			break;
		if (own) {
			const struct evt_stream *s = &tr.streams[EVT_REF_STREAM(ref)];

			make_event(&ev, &tr, ref->ts, EVT_REF_DESC(ref), EVT_REF_STREAM(ref), s->cpu, s->channel,
				   ref->payload, EVT_REF_LEN(ref));
			if (!res->events)
				first = ref->ts;
			last = ref->ts;
			res->events++;
		} else {
			make_event(&ev, &tr, d->ts, d->idx, 0, d->cpu, d->channel, d->payload, d->len);
			res->carried_in++;
		}
		if (ev.ts >= w) {
			if (carry_defer(&out, ev.ts, ev.cpu, ev.channel, ev.idx, ev.payload, ev.len)) {
				snprintf(err, errlen, "out of memory");
				goto out_merge;
			}
			continue;
		}
		/* Each CPU's task from its first sched_switch, when nothing carried it here. */
		if (!u.fed && !fits && evt_curtask_look_ahead(u.ct, &tr, ev.ts)) {
			snprintf(err, errlen, "out of memory");
			goto out_merge;
		}
		unit_event(&u, &ev, idx++);
	}
	ret = src.err ? 1 : 0;
	if (src.err)
		snprintf(err, errlen, "%s", src.mt.errmsg);
	unit_stats_rows(&u);
	if (chunk_rows(&rows, &id, u.trace_id, &tr, fits ? &in : NULL, &out, first, last, res->events)) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
		goto out_merge;
	}
	/* The carry: only of a chunk read whole that does not end its session. */
	if (hdir[0] && !final && !ret) {
		memcpy(out.uuid, tr.md.uuid, 16);
		out.metadata_crc = crc;
		out.seq = seq;
		snprintf(out.chunk, sizeof(out.chunk), "%s", res->chunk);
		carry_path(path, sizeof(path), hdir, seq);
		if (unit_carry_out(&u, &out, w) || carry_save(&out, tr.md.cat->events, path)) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : ENOMEM));
			ret = -1;
			goto out_merge;
		}
		prune_carries(hdir, seq);
	}
	res->deferred = out.nr_ev;
out_merge:
	evt_merged_free(&src.mt);
out_unit:
	unit_free(&u);
out_rows:
	for (i = 0; i < EVT_EXPORT_NR_TABLES; i++)
		res->rows[i] = rows.n[i];
	if (rows_close(&rows, ret < 0 ? namebuf : err, ret < 0 ? sizeof(namebuf) : errlen) && ret >= 0)
		ret = -1;
out_carry:
	carry_free(&in);
	carry_free(&out);
	if (lockfd >= 0)
		close(lockfd);
out_trace:
	evt_trace_close(&tr);
	free(tdir);
	return ret;
}
