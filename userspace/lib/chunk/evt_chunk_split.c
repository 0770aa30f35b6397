// SPDX-License-Identifier: GPL-2.0
/*
 * A whole trace cut into chunks as a rotating evdrain writes them: for
 * tests and benchmarks (evsynth --chunks), where no module rotates. See
 * evt_chunk_split() in evt_chunk.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "chunk/evt_chunk.h"
#include "util/evt_io.h"
#include "json/evt_json.h"
#include "ctf/evt_trace.h"

/* Append @len bytes of @from at @off to @to: 0, or -1 with errno. */
static int copy_range(int from, off_t off, size_t len, int to)
{
	char buf[65536];

	while (len) {
		ssize_t n = pread(from, buf, len < sizeof(buf) ? len : sizeof(buf), off);

		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		if (evt_write_all(to, buf, (size_t)n))
			return -1;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	struct stat st;
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;

	if (in >= 0 && !fstat(in, &st))
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (out >= 0)
		ret = copy_range(in, 0, (size_t)st.st_size, out);
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ret = -1;
	return ret;
}

static int write_summary(const char *dir, const char *name, uint64_t seq, const char *host, const char *kernel,
			 uint64_t b, uint64_t e, int final)
{
	char path[4400], bs[48], es[48];
	json_t *j;
	FILE *f;
	int ret;

	evt_chunk_iso_time(bs, sizeof(bs), b, 1);
	evt_chunk_iso_time(es, sizeof(es), e, 1);
	/* evdrain's summary (docs/schemas/evtrace.chunk-summary.json) up to "final". */
	j = json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:o, s:o, s:b}", "schema", EVT_SCHEMA_CHUNK_SUMMARY, "chunk",
		      evt_json_str(name), "seq", evt_json_u64(seq), "host", evt_json_str(host), "kernel",
		      evt_json_str(kernel), "begin", bs, "end", es, "begin_ns", evt_json_u64(b), "end_ns", evt_json_u64(e),
		      "final", final);
	if (!j) {
		errno = ENOMEM;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, EVT_CHUNK_SUMMARY);
	f = fopen(path, "w");
	if (!f) {
		json_decref(j);
		return -1;
	}
	ret = evt_json_write(f, j, 0);
	if (fclose(f))
		ret = -1;
	if (ret)
		errno = EIO;
	return ret ? -1 : 0;
}

int evt_chunk_split(const char *trace_dir, const char *run_dir, const struct evt_chunk_split_opts *o,
		    char (*names)[EVT_CHUNK_NAME_MAX], char *err, size_t errlen)
{
	struct evt_trace t;
	char *tdir;
	uint64_t first = UINT64_MAX, last = 0, off_ns;
	uint32_t *next;
	unsigned int k, i;
	int ret = -1;

	if (!o->nchunks) {
		snprintf(err, errlen, "no chunks to cut into");
		return -1;
	}
	tdir = evt_trace_dir(trace_dir);
	if (!tdir || evt_trace_open(&t, tdir, NULL)) {
		snprintf(err, errlen, "%s", tdir ? t.err : "out of memory");
		free(tdir);
		return -1;
	}
	free(tdir);
	off_ns = evt_trace_offset_ns(&t);
	for (i = 0; i < t.nr_streams; i++) {
		if (t.streams[i].npk && t.streams[i].first_ts < first)
			first = t.streams[i].first_ts;
		if (t.streams[i].end_ts > last)
			last = t.streams[i].end_ts;
	}
	next = calloc(t.nr_streams + 1, sizeof(*next));
	if (!next || (mkdir(run_dir, 0750) && errno != EEXIST)) {
		snprintf(err, errlen, "%s: %s", run_dir, next ? strerror(errno) : "out of memory");
		goto out;
	}
	for (k = 0; k < o->nchunks; k++) {
		const uint64_t cut = k + 1 == o->nchunks ? UINT64_MAX :
				     o->cuts ? o->cuts[k] : first + (last - first) * (k + 1) / o->nchunks;
		uint64_t b = UINT64_MAX, e = 0;
		char tmp[4200], kdir[4300], name[EVT_CHUNK_NAME_MAX], path[4400], final_dir[4400];

		snprintf(tmp, sizeof(tmp), "%s/" EVT_CHUNK_TMP_PREFIX "%u", run_dir, k);
		snprintf(kdir, sizeof(kdir), "%s/kernel", tmp);
		snprintf(path, sizeof(path), "%s/metadata", t.dir);
		snprintf(final_dir, sizeof(final_dir), "%s/metadata", kdir);
		if (mkdir(tmp, 0750) || mkdir(kdir, 0750) || copy_file(path, final_dir)) {
			snprintf(err, errlen, "%s: %s", kdir, strerror(errno));
			goto out;
		}
		for (i = 0; i < t.nr_streams; i++) {
			const struct evt_stream *s = &t.streams[i];
			int in, outfd;

			snprintf(path, sizeof(path), "%s/%s", t.dir, s->name);
			snprintf(final_dir, sizeof(final_dir), "%s/%s", kdir, s->name);
			in = open(path, O_RDONLY | O_CLOEXEC);
			outfd = open(final_dir, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
			if (in < 0 || outfd < 0) {
				snprintf(err, errlen, "%s: %s", in < 0 ? path : final_dir, strerror(errno));
				if (in >= 0)
					close(in);
				if (outfd >= 0)
					close(outfd);
				goto out;
			}
			if (o->lose_seam_packet && k == 1 && i == 0 && next[i] < s->npk)
				next[i]++;
			while (next[i] < s->npk && s->pk[next[i]].end <= cut) {
				const uint64_t at = s->pk[next[i]].off;
				const uint64_t end = next[i] + 1 < s->npk ? s->pk[next[i] + 1].off : s->size;

				if (copy_range(in, (off_t)at, (size_t)(end - at), outfd)) {
					snprintf(err, errlen, "%s: %s", final_dir, strerror(errno));
					close(in);
					close(outfd);
					goto out;
				}
				if (s->pk[next[i]].begin < b)
					b = s->pk[next[i]].begin;
				if (s->pk[next[i]].end > e)
					e = s->pk[next[i]].end;
				next[i]++;
			}
			close(in);
			if (close(outfd)) {
				snprintf(err, errlen, "%s: %s", final_dir, strerror(errno));
				goto out;
			}
		}
		if (!e) {
			snprintf(err, errlen, "chunk %u would hold no packet: fewer chunks", k);
			goto out;
		}
		if (evt_chunk_name(name, sizeof(name), b + off_ns, e + off_ns, k) ||
		    write_summary(tmp, name, k, o->host ? o->host : "", o->kernel ? o->kernel : "", b + off_ns, e + off_ns,
				  k + 1 == o->nchunks)) {
			snprintf(err, errlen, "%s: cannot write its summary: %s", tmp, strerror(errno));
			goto out;
		}
		snprintf(final_dir, sizeof(final_dir), "%s/%s", run_dir, name);
		if (rename(tmp, final_dir)) {
			snprintf(err, errlen, "%s: %s", final_dir, strerror(errno));
			goto out;
		}
		if (names)
			memcpy(names[k], name, sizeof(name));
	}
	ret = 0;
out:
	free(next);
	evt_trace_close(&t);
	return ret;
}
