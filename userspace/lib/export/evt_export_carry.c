// SPDX-License-Identifier: GPL-2.0
/*
 * The carry between two chunks' exports (see evt_export.h): a small
 * binary file, little-endian, fixed-width, as the engine's saved results
 * are (evt_comp_util.h), checked field by field when read:
 *
 *   magic "EVXC", version, the session's uuid[16], the metadata's CRC-32,
 *   the sequence number and name of the chunk that wrote it;
 *   its streams (channel, cpu, next packet_seq_num, events_discarded,
 *   the last packet's timestamp_end);
 *   the current-task tracker (evt_curtask_save());
 *   the stats computation's in-flight state: each CPU's task, the threads
 *   in a syscall (tid, the entry's name, its time), the woken threads
 *   (tid, time); the loss windows they (or the deferred events) may span;
 *   the deferred events (time, cpu, channel, name, payload).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <evtrace/limits.h>
#include "engine/evt_comp_util.h"
#include "export/evt_export_priv.h"
#include "util/evt_io.h"

#define CARRY_MAGIC 0x43585645u		/* "EVXC" */
#define CARRY_VERSION 2
#define CARRY_MAX (1ull << 32)		/* a carry is a chunk's tail at most */
#define NAME_MAX_LEN 4096

void carry_free(struct carry *c)
{
	uint32_t i;

	free(c->streams);
	evt_buf_free(&c->tracker);
	free(c->stats_cpu);
	for (i = 0; i < c->nr_sys; i++)
		free(c->sys[i].name);
	free(c->sys);
	free(c->woken);
	free(c->windows);
	for (i = 0; i < c->nr_ev; i++) {
		free(c->ev[i].payload);
		if (c->names)
			free(c->names[i]);
	}
	free(c->ev);
	free(c->names);
	memset(c, 0, sizeof(*c));
}

int carry_defer(struct carry *c, uint64_t ts, uint32_t cpu, uint32_t channel, uint32_t idx, const uint8_t *payload,
		uint32_t len)
{
	struct deferred *d;

	if (evt_grow(&c->ev, &c->cap_ev, (size_t)c->nr_ev + 1, sizeof(*c->ev)))
		return -1;
	d = &c->ev[c->nr_ev];
	memset(d, 0, sizeof(*d));
	d->payload = malloc(len ? len : 1);
	if (!d->payload)
		return -1;
	memcpy(d->payload, payload, len);
	d->ts = ts;
	d->cpu = cpu;
	d->channel = channel;
	d->idx = idx;
	d->len = len;
	c->nr_ev++;
	return 0;
}

int carry_save(const struct carry *c, const struct evt_event_desc *events, const char *path)
{
	struct evt_buf b = { 0 };
	uint32_t i;
	int err = 0, rc;

	err |= evt_put_u32(&b, CARRY_MAGIC) | evt_put_u32(&b, CARRY_VERSION);
	err |= evt_buf_put(&b, c->uuid, sizeof(c->uuid)) | evt_put_u32(&b, c->metadata_crc);
	err |= evt_put_u64(&b, c->seq) | evt_put_str(&b, c->chunk, strlen(c->chunk));
	err |= evt_put_u32(&b, c->nr_streams);
	for (i = 0; i < c->nr_streams; i++)
		err |= evt_put_u32(&b, c->streams[i].channel) | evt_put_u32(&b, c->streams[i].cpu) |
		       evt_put_u64(&b, c->streams[i].next_seq) | evt_put_u64(&b, c->streams[i].discarded) |
		       evt_put_u64(&b, c->streams[i].end);
	err |= evt_put_u64(&b, c->tracker.n) | evt_buf_put(&b, c->tracker.p, c->tracker.n);
	err |= evt_put_u32(&b, c->nr_stats_cpu);
	for (i = 0; i < c->nr_stats_cpu; i++)
		err |= evt_put_s32(&b, c->stats_cpu[i]);
	err |= evt_put_u32(&b, c->nr_sys);
	for (i = 0; i < c->nr_sys; i++)
		err |= evt_put_s32(&b, c->sys[i].tid) | evt_put_str(&b, c->sys[i].name, strlen(c->sys[i].name)) |
		       evt_put_u64(&b, c->sys[i].ts);
	err |= evt_put_u32(&b, c->nr_woken);
	for (i = 0; i < c->nr_woken; i++)
		err |= evt_put_s32(&b, c->woken[i].tid) | evt_put_u64(&b, c->woken[i].ts);
	err |= evt_put_u32(&b, c->nr_windows);
	for (i = 0; i < 2 * c->nr_windows; i++)
		err |= evt_put_u64(&b, c->windows[i]);
	err |= evt_put_u32(&b, c->nr_ev);
	for (i = 0; i < c->nr_ev; i++) {
		const struct deferred *d = &c->ev[i];
		const char *name = events[d->idx].name;

		err |= evt_put_u64(&b, d->ts) | evt_put_u32(&b, d->cpu) | evt_put_u32(&b, d->channel) |
		       evt_put_str(&b, name, strlen(name)) | evt_put_u32(&b, d->len) | evt_buf_put(&b, d->payload, d->len);
	}
	if (err || b.oom) {
		evt_buf_free(&b);
		errno = ENOMEM;
		return -1;
	}
	rc = evt_write_file_atomic(path, b.p, b.n, 0640, 1);
	evt_buf_free(&b);
	return rc;
}

static int load_body(struct carry *c, struct evt_rbuf *r)
{
	uint32_t magic, version, n, i;
	uint64_t len;
	char *s;

	if (evt_get_u32(r, &magic) || magic != CARRY_MAGIC || evt_get_u32(r, &version) ||
	    version != CARRY_VERSION || evt_rbuf_get(r, c->uuid, sizeof(c->uuid)) ||
	    evt_get_u32(r, &c->metadata_crc) || evt_get_u64(r, &c->seq) ||
	    evt_get_str(r, &s, sizeof(c->chunk) - 1))
		return -1;
	strcpy(c->chunk, s);
	free(s);
	if (evt_get_count(r, &n, 32, 2 * EVT_MAX_CPUS) || (n && !(c->streams = calloc(n, sizeof(*c->streams)))))
		return -1;
	c->nr_streams = n;
	for (i = 0; i < n; i++)
		if (evt_get_u32(r, &c->streams[i].channel) || evt_get_u32(r, &c->streams[i].cpu) ||
		    evt_get_u64(r, &c->streams[i].next_seq) || !c->streams[i].next_seq ||
		    evt_get_u64(r, &c->streams[i].discarded) || evt_get_u64(r, &c->streams[i].end))
			return -1;
	if (evt_get_u64(r, &len) || len > evt_rbuf_left(r) || evt_buf_put(&c->tracker, r->p + r->off, len))
		return -1;
	r->off += len;
	if (evt_get_count(r, &n, 4, EVT_MAX_CPUS) || (n && !(c->stats_cpu = calloc(n, sizeof(*c->stats_cpu)))))
		return -1;
	c->nr_stats_cpu = n;
	for (i = 0; i < n; i++)
		if (evt_get_s32(r, &c->stats_cpu[i]) || c->stats_cpu[i] < -1)
			return -1;
	if (evt_get_count(r, &n, 16, UINT32_MAX) || (n && !(c->sys = calloc(n, sizeof(*c->sys)))))
		return -1;
	for (i = 0; i < n; i++, c->nr_sys++)
		if (evt_get_s32(r, &c->sys[i].tid) || c->sys[i].tid < 0 || evt_get_str(r, &c->sys[i].name, NAME_MAX_LEN) ||
		    evt_get_u64(r, &c->sys[i].ts))
			return -1;
	if (evt_get_count(r, &n, 12, UINT32_MAX) || (n && !(c->woken = calloc(n, sizeof(*c->woken)))))
		return -1;
	c->nr_woken = n;
	for (i = 0; i < n; i++)
		if (evt_get_s32(r, &c->woken[i].tid) || c->woken[i].tid <= 0 || evt_get_u64(r, &c->woken[i].ts))
			return -1;
	if (evt_get_count(r, &n, 16, UINT32_MAX / 2) || (n && !(c->windows = calloc(2 * (size_t)n, sizeof(*c->windows)))))
		return -1;
	c->nr_windows = n;
	for (i = 0; i < 2 * n; i++)
		if (evt_get_u64(r, &c->windows[i]) || (i % 2 && c->windows[i] < c->windows[i - 1]))
			return -1;
	if (evt_get_count(r, &n, 24, UINT32_MAX) || (n && !(c->names = calloc(n, sizeof(*c->names)))))
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t ts;
		uint32_t cpu, channel, plen;
		char *name;

		if (evt_get_u64(r, &ts) || evt_get_u32(r, &cpu) || cpu >= EVT_MAX_CPUS || evt_get_u32(r, &channel) ||
		    channel >= EVT_NR_CHANNELS || evt_get_str(r, &name, NAME_MAX_LEN))
			return -1;
		if (evt_get_u32(r, &plen) || plen > evt_rbuf_left(r) || (c->nr_ev && ts < c->ev[c->nr_ev - 1].ts) ||
		    carry_defer(c, ts, cpu, channel, 0, r->p + r->off, plen)) {
			free(name);
			return -1;
		}
		c->names[c->nr_ev - 1] = name;
		r->off += plen;
	}
	return r->off == r->n ? 0 : -1;
}

int carry_load(struct carry *c, const char *path, char *err, size_t errlen)
{
	struct evt_rbuf r = { 0 };
	struct stat st;
	uint8_t *p;
	int fd;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > CARRY_MAX) {
		snprintf(err, errlen, "%s: not a carry file", path);
		close(fd);
		return -1;
	}
	p = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!p || read(fd, p, (size_t)st.st_size) != st.st_size) {
		snprintf(err, errlen, "%s: %s", path, p ? "cannot read it whole" : "out of memory");
		free(p);
		close(fd);
		return -1;
	}
	close(fd);
	r.p = p;
	r.n = (size_t)st.st_size;
	if (load_body(c, &r)) {
		snprintf(err, errlen, "%s: not a carry of this version, or damaged", path);
		carry_free(c);
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

int carry_resolve(struct carry *c, const struct evt_event_desc *events, unsigned int nr, char *err, size_t errlen)
{
	uint32_t i;
	unsigned int k;

	for (i = 0; i < c->nr_ev; i++) {
		for (k = 0; k < nr && strcmp(events[k].name, c->names[i]); k++)
			;
		if (k == nr || events[k].channel != c->ev[i].channel) {
			snprintf(err, errlen, "its event %.200s is not one of this trace's", c->names[i]);
			return -1;
		}
		c->ev[i].idx = k;
	}
	return 0;
}
