// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's rows: one JSON object per line per table, made with
 * jansson. Each table has one object whose values are set for every row
 * (no allocation per row but for the strings); its keys, in order, are the
 * columns docs/fleet.md lists.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine/evt_comp_util.h"
#include "format/evt_errno.h"
#include "export/evt_export_priv.h"

static const char *const table_names[EVT_EXPORT_NR_TABLES] = {
	[EVT_EXPORT_EVENTS] = "events", [EVT_EXPORT_SYSCALLS] = "syscalls",
	[EVT_EXPORT_SLICES] = "sched_slices", [EVT_EXPORT_WAKEUPS] = "wakeups",
	[EVT_EXPORT_STATS] = "stats",
};

const char *evt_export_table_name(unsigned int table)
{
	return table < EVT_EXPORT_NR_TABLES ? table_names[table] : "?";
}

/* Every table's first columns, then its own. */
static const char *const common_cols[] = { "schema", "host", "trace_id", "chunk", "seq", NULL };
static const char *const own_cols[EVT_EXPORT_NR_TABLES][24] = {
	[EVT_EXPORT_EVENTS] = { "idx", "ts", "cpu", "tid", "pid", "comm", "event", "fields" },
	[EVT_EXPORT_SYSCALLS] = { "cpu", "tid", "pid", "comm", "name", "entry_ts", "exit_ts", "duration_ns", "ret",
				  "errno" },
	[EVT_EXPORT_SLICES] = { "cpu", "tid", "pid", "comm", "begin_ts", "end_ts", "duration_ns", "end_state" },
	[EVT_EXPORT_WAKEUPS] = { "cpu", "tid", "pid", "comm", "wakeup_ts", "switch_ts", "latency_ns" },
	[EVT_EXPORT_STATS] = { "kernel", "kind", "name", "begin_ts", "end_ts", "cpu", "tid", "pid", "comm", "count",
			       "errors", "lat_count", "lat_sum_ns", "lat_min_ns", "lat_max_ns", "hist", "discarded",
			       "lost_packets", "cpu_ns" },
};
/* Columns whose values are text (every other one is an integer, "hist" an array). */
static int text_col(const char *k)
{
	static const char *const text[] = { "host", "trace_id", "chunk", "comm", "event", "fields", "name", "errno",
					     "kind", "kernel", NULL };
	unsigned int i;

	for (i = 0; text[i]; i++)
		if (!strcmp(k, text[i]))
			return 1;
	return 0;
}

static json_t *make_row(unsigned int table)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; o && common_cols[i]; i++)
		if (json_object_set_new(o, common_cols[i], text_col(common_cols[i]) ? json_string("") : json_integer(0)))
			goto fail;
	for (i = 0; o && own_cols[table][i]; i++) {
		const char *k = own_cols[table][i];
		json_t *v = !strcmp(k, "hist") ? json_array() : text_col(k) ? json_string("") : json_integer(0);

		if (json_object_set_new(o, k, v))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

int rows_open(struct rows *r, const char *dir, unsigned int tables, char *err, size_t errlen)
{
	unsigned int t;

	memset(r, 0, sizeof(*r));
	for (t = 0; t < EVT_EXPORT_NR_TABLES; t++) {
		char path[4096];
		int fd;

		if (!(tables & (1u << t)))
			continue;
		snprintf(path, sizeof(path), "%s/%s.ndjson", dir, table_names[t]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
		if (fd < 0 || !(r->f[t] = fdopen(fd, "w"))) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		setvbuf(r->f[t], NULL, _IOFBF, 1 << 20);
		if (!(r->row[t] = make_row(t))) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		json_integer_set(json_object_get(r->row[t], "schema"), EVT_EXPORT_SCHEMA);
	}
	if (evt_out_init(&r->fields, -1, 4096)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return 0;
fail:
	for (t = 0; t < EVT_EXPORT_NR_TABLES; t++) {
		if (r->f[t])
			fclose(r->f[t]);
		json_decref(r->row[t]);
	}
	memset(r, 0, sizeof(*r));
	return -1;
}

int rows_set_catalogue(struct rows *r, const struct evt_event_desc *events, unsigned int nr)
{
	if (r->fmt_ok)
		evt_fmt_free(&r->fmt);
	r->fmt_ok = evt_fmt_init(&r->fmt, EVT_FMT_JSON, 0, events, nr) == 0;
	return r->fmt_ok ? 0 : -1;
}

int rows_close(struct rows *r, char *err, size_t errlen)
{
	unsigned int t;
	int ret = r->err ? -1 : 0;

	for (t = 0; t < EVT_EXPORT_NR_TABLES; t++) {
		if (r->f[t] && (fflush(r->f[t]) || ferror(r->f[t])) && !r->err)
			r->err = errno ? errno : EIO;
		if (r->f[t] && fclose(r->f[t]) && !r->err)
			r->err = errno;
		json_decref(r->row[t]);
	}
	if (r->err) {
		snprintf(err, errlen, "writing the tables: %s", strerror(r->err));
		ret = -1;
	}
	if (r->fmt_ok)
		evt_fmt_free(&r->fmt);
	evt_out_free(&r->fields);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	return ret;
}

/*
 * @s as UTF-8 for jansson (which refuses anything else): valid sequences
 * kept, any other byte as the code point of the same value (U+0080 ..
 * U+00FF), as evcat's JSON shows it. Control bytes stay: jansson escapes
 * them. NUL ends it.
 */
static const char *as_utf8(const char *s, size_t n, char *out, size_t cap)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + n;
	size_t o = 0;

	while (p < end && *p && o + 5 < cap) {
		unsigned int len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
				   (*p & 0xf8) == 0xf0 ? 4 : 0;
		unsigned int k;

		for (k = 1; len && k < len; k++)
			if (p + k >= end || (p[k] & 0xc0) != 0x80)
				len = 0;
		/* Overlong two-byte forms and surrogates are not UTF-8 either. */
		if (len == 2 && *p < 0xc2)
			len = 0;
		if (len == 3 && ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] >= 0xa0)))
			len = 0;
		if (len == 4 && ((*p == 0xf0 && p[1] < 0x90) || *p > 0xf4 || (*p == 0xf4 && p[1] >= 0x90)))
			len = 0;
		if (len) {
			memcpy(out + o, p, len);
			o += len;
			p += len;
		} else {
			out[o++] = (char)(0xc0 | (*p >> 6));
			out[o++] = (char)(0x80 | (*p & 0x3f));
			p++;
		}
	}
	out[o] = '\0';
	return out;
}

/* @s (UTF-8 as the rows have it) as a ClickHouse string literal, quotes included. */
static void sql_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\x%02X", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

int rows_write_partition(const char *dir, const struct rows_id *id, char *err, size_t errlen)
{
	char path[4200], host[1024], chunk[1024];
	FILE *f;
	int fd, bad;

	snprintf(path, sizeof(path), "%s/partition.sql", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fputc('(', f);
	sql_string(f, as_utf8(id->host, strlen(id->host), host, sizeof(host)));
	fputs(", ", f);
	sql_string(f, as_utf8(id->chunk, strlen(id->chunk), chunk, sizeof(chunk)));
	fputs(")\n", f);
	bad = ferror(f);
	if (fclose(f) || bad) {
		snprintf(err, errlen, "cannot write %s", path);
		return -1;
	}
	return 0;
}

static void set_text(json_t *row, const char *key, const char *s, size_t n)
{
	char buf[1024];

	json_string_set(json_object_get(row, key), as_utf8(s, n, buf, sizeof(buf)));
}

static void set_int(json_t *row, const char *key, int64_t v)
{
	json_integer_set(json_object_get(row, key), v);
}

/* Realtime ns and durations: below 2^63 for centuries, kept integers for JSONEachRow. */
static void set_u64(json_t *row, const char *key, uint64_t v)
{
	json_integer_set(json_object_get(row, key), v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void set_id(json_t *row, const struct rows_id *id, const char *trace_id)
{
	set_text(row, "host", id->host, strlen(id->host));
	set_text(row, "trace_id", trace_id, strlen(trace_id));
	set_text(row, "chunk", id->chunk, strlen(id->chunk));
	set_u64(row, "seq", id->seq);
}

static void set_task(json_t *row, const struct evt_task *t)
{
	set_int(row, "tid", t->tid);
	set_int(row, "pid", t->pid);
	set_text(row, "comm", t->comm, sizeof(t->comm));
}

static void put_row(struct rows *r, unsigned int table)
{
	size_t n = json_dumpb(r->row[table], r->buf, r->cap, JSON_COMPACT);

	if (n + 1 > r->cap) {
		size_t cap = 2 * (n + 1);
		char *b = realloc(r->buf, cap);

		if (!b) {
			r->err = ENOMEM;
			return;
		}
		r->buf = b;
		r->cap = cap;
		n = json_dumpb(r->row[table], r->buf, r->cap, JSON_COMPACT);
	}
	if (!n) {
		r->err = r->err ? r->err : EINVAL;
		return;
	}
	r->buf[n++] = '\n';
	if (fwrite(r->buf, 1, n, r->f[table]) != n && !r->err)
		r->err = errno ? errno : EIO;
	r->n[table]++;
}

void rows_event(struct rows *r, const struct rows_id *id, const char *trace_id, uint64_t idx, uint64_t ts,
		unsigned int cpu, const struct evt_task *task, const struct evt_event_desc *d,
		const uint8_t *payload, uint32_t len)
{
	json_t *row = r->row[EVT_EXPORT_EVENTS];

	if (!row)
		return;
	set_id(row, id, trace_id);
	set_u64(row, "idx", idx);
	set_u64(row, "ts", ts);
	set_int(row, "cpu", cpu);
	set_task(row, task);
	set_text(row, "event", d->name, strlen(d->name));
	r->fields.len = 0;
	if (!r->fmt_ok || evt_fmt_fields_json(&r->fmt, &r->fields, d, payload, len)) {
		r->err = r->err ? r->err : ENOMEM;
		return;
	}
	/* Already JSON text (UTF-8, escaped): a string value of its own. */
	json_string_setn(json_object_get(row, "fields"), r->fields.buf, r->fields.len);
	put_row(r, EVT_EXPORT_EVENTS);
}

void rows_syscall(struct rows *r, const struct rows_id *id, const char *trace_id, unsigned int cpu,
		  const struct evt_task *task, const char *name, uint64_t entry, uint64_t exit, int64_t ret)
{
	json_t *row = r->row[EVT_EXPORT_SYSCALLS];
	const char *e = evt_errno_name(ret);

	if (!row)
		return;
	set_id(row, id, trace_id);
	set_int(row, "cpu", cpu);
	set_task(row, task);
	set_text(row, "name", name, strlen(name));
	set_u64(row, "entry_ts", entry);
	set_u64(row, "exit_ts", exit);
	set_u64(row, "duration_ns", exit - entry);
	set_int(row, "ret", ret);
	set_text(row, "errno", e ? e : "", e ? strlen(e) : 0);
	put_row(r, EVT_EXPORT_SYSCALLS);
}

void rows_slice(struct rows *r, const struct rows_id *id, const char *trace_id, unsigned int cpu,
		const struct evt_task *task, uint64_t begin, uint64_t end, int64_t end_state)
{
	json_t *row = r->row[EVT_EXPORT_SLICES];

	if (!row)
		return;
	set_id(row, id, trace_id);
	set_int(row, "cpu", cpu);
	set_task(row, task);
	set_u64(row, "begin_ts", begin);
	set_u64(row, "end_ts", end);
	set_u64(row, "duration_ns", end - begin);
	set_int(row, "end_state", end_state);
	put_row(r, EVT_EXPORT_SLICES);
}

void rows_wakeup(struct rows *r, const struct rows_id *id, const char *trace_id, unsigned int cpu,
		 const struct evt_task *task, uint64_t wakeup, uint64_t sw)
{
	json_t *row = r->row[EVT_EXPORT_WAKEUPS];

	if (!row)
		return;
	set_id(row, id, trace_id);
	set_int(row, "cpu", cpu);
	set_task(row, task);
	set_u64(row, "wakeup_ts", wakeup);
	set_u64(row, "switch_ts", sw);
	set_u64(row, "latency_ns", sw >= wakeup ? sw - wakeup : 0);
	put_row(r, EVT_EXPORT_WAKEUPS);
}

void rows_stats(struct rows *r, const struct rows_id *id, const char *trace_id, const struct stats_row *s)
{
	static const struct evt_task none = { -1, -1, "" };
	const struct evt_task *t = s->task ? s->task : &none;
	json_t *row = r->row[EVT_EXPORT_STATS], *hist;
	unsigned int b, last;

	if (!row)
		return;
	set_id(row, id, trace_id);
	set_text(row, "kernel", id->kernel, strlen(id->kernel));
	set_text(row, "kind", s->kind, strlen(s->kind));
	set_text(row, "name", s->name ? s->name : "", s->name ? strlen(s->name) : 0);
	set_u64(row, "begin_ts", s->begin);
	set_u64(row, "end_ts", s->end);
	set_int(row, "cpu", s->cpu);
	set_task(row, t);
	set_u64(row, "count", s->count);
	set_u64(row, "errors", s->errors);
	set_u64(row, "lat_count", s->lat ? s->lat->count : 0);
	set_u64(row, "lat_sum_ns", s->lat ? s->lat->total_ns : 0);
	set_u64(row, "lat_min_ns", s->lat && s->lat->count ? s->lat->min_ns : 0);
	set_u64(row, "lat_max_ns", s->lat ? s->lat->max_ns : 0);
	/* The whole 64 buckets or none: sumForEach() adds arrays of one length. */
	hist = json_object_get(row, "hist");
	json_array_clear(hist);
	for (b = 0, last = s->hist ? EVT_HIST_BUCKETS : 0; b < last; b++)
		json_array_append_new(hist, json_integer(s->hist[b] > INT64_MAX ? INT64_MAX : (int64_t)s->hist[b]));
	set_u64(row, "discarded", s->discarded);
	set_u64(row, "lost_packets", s->lost_packets);
	set_u64(row, "cpu_ns", s->cpu_ns);
	put_row(r, EVT_EXPORT_STATS);
}
