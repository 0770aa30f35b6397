// SPDX-License-Identifier: GPL-2.0
/*
 * A complete chunk's summary.json (docs/schemas/evtrace.chunk-summary.json):
 * its figures read back from the chunk as a trace, written with jansson,
 * read and marked final in place. See evd_rot_priv.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "evd_rot_priv.h"
#include "consumer/evt_consumer.h"
#include "json/evt_json.h"
#include "ctf/evt_stream.h"

static const struct evd_rot_ring_count *find_count(const struct closed *c, unsigned int ch, unsigned int cpu)
{
	size_t i;

	for (i = 0; i < c->ncounts; i++)
		if (c->counts[i].channel == ch && c->counts[i].cpu == cpu)
			return &c->counts[i];
	return NULL;
}

int evd_sum_scan(struct evd_rot *r, const struct closed *c, const char *kdir, struct chunk_sum *cs)
{
	/* The chunk is whole and nobody writes it: its packet indexes saved sealed for its readers. */
	struct evt_trace_opts topts = { .settle = 1 };
	struct evt_trace t;
	uint64_t first = UINT64_MAX, last = 0, packets = 0;
	unsigned int i;

	memset(cs, 0, sizeof(*cs));
	if (evt_trace_open(&t, kdir, &topts)) {
		snprintf(cs->err, sizeof(cs->err), "%s", t.err);
		return -1;
	}
	cs->s = calloc(t.nr_streams ? t.nr_streams : 1, sizeof(*cs->s));
	if (!cs->s) {
		snprintf(cs->err, sizeof(cs->err), "out of memory");
		evt_trace_close(&t);
		return -1;
	}
	cs->n = t.nr_streams;
	for (i = 0; i < t.nr_streams; i++) {
		struct evt_stream *s = &t.streams[i];
		struct stream_sum *ss = &cs->s[i];
		struct carry *k = &r->carry[s->channel * EVT_MAX_CPUS + s->cpu];
		const struct evd_rot_ring_count *rc = find_count(c, s->channel, s->cpu);
		int rcode;

		while ((rcode = evt_stream_has(&t, s)) == 1)
			s->i++;
		if (rcode < 0 && !cs->err[0])
			snprintf(cs->err, sizeof(cs->err), "%s", s->errmsg);
		ss->channel = s->channel;
		ss->cpu = s->cpu;
		ss->events = s->events;
		ss->packets = s->packets;
		ss->bytes = s->size;
		packets += s->packets;
		if (rc) {
			ss->overwritten = k->counted ? rc->overwritten - k->overwritten : rc->overwritten;
			k->overwritten = rc->overwritten;
			k->counted = 1;
		}
		if (s->packets) {
			ss->first_seq = s->seq_first;
			ss->last_seq = s->seq_first + s->packets + s->seq_gaps - 1;
			ss->lost = s->seq_gaps;
			if (k->valid && s->seq_first > k->next_seq)
				ss->lost += s->seq_first - k->next_seq;
			ss->discarded = k->valid && s->discarded >= k->discarded ? s->discarded - k->discarded :
					s->discarded;
			k->next_seq = ss->last_seq + 1;
			k->discarded = s->discarded;
			k->valid = 1;
			if (s->first_ts < first)
				first = s->first_ts;
			if (s->end_ts > last)
				last = s->end_ts;
		}
		cs->events += ss->events;
		cs->per_channel[ss->channel] += ss->events;
		cs->discarded += ss->discarded;
		cs->overwritten += ss->overwritten;
		cs->lost += ss->lost;
	}
	if (packets) {
		cs->begin_ns = first + evt_trace_offset_ns(&t);
		cs->end_ns = last + evt_trace_offset_ns(&t);
	}
	evt_trace_close(&t);
	return packets ? 0 : 1;
}


/* A stream's figures in the chunk, the summary's "streams" member. */
static json_t *stream_json(const struct stream_sum *s)
{
	return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "channel",
			 evt_channel_name(s->channel), "cpu", (json_int_t)s->cpu, "events", evt_json_u64(s->events),
			 "packets", evt_json_u64(s->packets), "bytes", evt_json_u64(s->bytes), "discarded",
			 evt_json_u64(s->discarded), "overwritten", evt_json_u64(s->overwritten), "lost_packets",
			 evt_json_u64(s->lost), "first_seq", evt_json_u64(s->first_seq), "last_seq",
			 evt_json_u64(s->last_seq));
}

/* The summary document; NULL when out of memory. */
static json_t *summary_json(const char *name, const struct closed *c, const struct chunk_sum *cs)
{
	char b[48], e[48];
	struct utsname u;
	json_t *per_channel = json_object(), *streams = json_array();
	unsigned int i;
	int bad = !per_channel || !streams;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	evt_chunk_iso_time(b, sizeof(b), cs->begin_ns, 1);
	evt_chunk_iso_time(e, sizeof(e), cs->end_ns, 1);
	for (i = 0; !bad && i < EVT_NR_CHANNELS; i++)
		bad = json_object_set_new(per_channel, evt_channel_name(i), evt_json_u64(cs->per_channel[i]));
	for (i = 0; !bad && i < cs->n; i++)
		bad = json_array_append_new(streams, stream_json(&cs->s[i]));
	if (bad) {
		json_decref(per_channel);
		json_decref(streams);
		return NULL;
	}
	/* "final" before the streams: evd_sum_mark_final and evd_sum_says_final find it in the first 8 KiB. */
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:o, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, "
			 "s:o, s:o, s:o}",
			 "schema", EVT_SCHEMA_CHUNK_SUMMARY, "chunk", evt_json_str(name), "seq", evt_json_u64(c->seq),
			 "host", evt_json_str(u.nodename), "kernel", evt_json_str(u.release), "kernel_version",
			 evt_json_str(u.version), "begin", b, "end", e, "begin_ns", evt_json_u64(cs->begin_ns),
			 "end_ns", evt_json_u64(cs->end_ns), "recovered", c->recovered, "final", c->final,
			 "bytes", evt_json_u64(cs->bytes), "events", evt_json_u64(cs->events), "discarded",
			 evt_json_u64(cs->discarded), "overwritten", evt_json_u64(cs->overwritten), "lost_packets",
			 evt_json_u64(cs->lost), "events_per_channel", per_channel, "streams", streams, "error",
			 cs->err[0] ? evt_json_str(cs->err) : json_null());
}

int evd_sum_write(const struct evd_rot *r, const char *dir, const char *name, const struct closed *c,
		  const struct chunk_sum *cs)
{
	char path[FILE_LEN], tmp[FILE_LEN + 8];
	json_t *doc;
	FILE *f;
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, EVT_CHUNK_SUMMARY);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	doc = summary_json(name, c, cs);
	if (!doc) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, EVT_CONSUMER_FILE_MODE);
	if (fd < 0 || (r->o.has_group && fchown(fd, (uid_t)-1, r->o.group))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		json_decref(doc);
		errno = err;
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		json_decref(doc);
		return -1;
	}
	/* jansson's default separators (", ", ": "): the "final": false that evd_sum_mark_final turns. */
	ok = evt_json_write(f, doc, 0) == 0 && fflush(f) == 0 && !ferror(f) && fsync(fd) == 0;
	if (fclose(f))
		ok = 0;
	if (!ok || rename(tmp, path)) {
		int err = errno;

		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

int evd_sum_mark_final(const char *chunk)
{
	char path[DIR_LEN + 32], buf[8192];
	ssize_t n;
	char *at;
	int fd, done = 0;

	snprintf(path, sizeof(path), "%s/" EVT_CHUNK_SUMMARY, chunk);
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n > 0) {
		buf[n] = '\0';
		/* "final": false becomes "final": true in place: the file keeps its owner and mode, a reader sees either. */
		at = strstr(buf, "\"final\": false");
		done = at && pwrite(fd, "true ", 5, at - buf + 9) == 5 && !fsync(fd);
	}
	if (fd >= 0)
		close(fd);
	if (!done)
		fprintf(stderr, "evdrain: %s: cannot mark it the session's last chunk: %s\n", path,
			fd < 0 || n < 0 ? strerror(errno) : "no \"final\" in it");
	return done ? 0 : -1;
}

int evd_sum_says_final(const char *chunk)
{
	char path[DIR_LEN + 32], buf[8192];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" EVT_CHUNK_SUMMARY, chunk);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* evd_sum_write writes it: this spelling, before the streams' list. */
	return strstr(buf, "\"final\": true") != NULL;
}

