// SPDX-License-Identifier: GPL-2.0
/*
 * Trace synthesizer: see evt_synth.h. Its kernel mode is evt_synth_kernel.c;
 * both record through evt_synth_writer.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/evt_io.h"
#include "synth/evt_synth.h"
#include "synth/evt_synth_kernel.h"
#include "synth/evt_synth_writer.h"
#include <evtrace/events.h>
#include <evtrace/limits.h>

void evt_synth_defaults(struct evt_synth_params *p)
{
	memset(p, 0, sizeof(*p));
	p->cpus = 4;
	p->events = 100000;
	p->seed = 1;
	p->start_ns = 1000000000000ULL;	/* 1000 s after boot */
	p->period_ns = 1000;
	p->burst_gap_ns = 20;
	p->subbuf_size = 16384;
	p->num_subbuf = 8;
	p->clock_offset_s = 1700000000ULL;
	p->syscall_pct = 60;
	p->irq_pct = 5;
	p->block_pct = 30;
	p->error_pct = 10;
	p->fork_every = 5000;
}

/*
 * A payload for @d laid out as the catalogue says (the decoder's rules):
 * "cpu" and "seq" fields get the CPU and its event number, sequences bytes
 * equal to seq & 0xff, strings and comms printable text, the rest random.
 */
static uint32_t build_payload(const struct evt_event_desc *d, uint8_t *buf, uint32_t cpu,
			      uint64_t seq, uint64_t *rs)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789 -_/.:";
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++) {
		const struct evt_field_desc *f = &d->fields[i];
		uint64_t r = evt_synth_rnd(rs), v;
		size_t a = evt_field_align(f->type), n, j;

		while (off % a)
			buf[off++] = 0;
		v = !strcmp(f->name, "cpu") ? cpu : !strcmp(f->name, "seq") ? seq : r;
		switch (f->type) {
		case EVT_F_U8: buf[off++] = (uint8_t)v; break;
		case EVT_F_U16: memcpy(buf + off, &v, 2); off += 2; break;
		case EVT_F_U32: case EVT_F_X32: memcpy(buf + off, &v, 4); off += 4; break;
		case EVT_F_S32: {
			int32_t x = (int32_t)(v % 2000) - 100;

			if (!strcmp(f->name, "cpu"))
				x = (int32_t)cpu;
			memcpy(buf + off, &x, 4);
			off += 4;
			break;
		}
		case EVT_F_U64: case EVT_F_X64: memcpy(buf + off, &v, 8); off += 8; break;
		case EVT_F_S64: {
			int64_t x = (int64_t)(v % 100000) - 50000;

			memcpy(buf + off, &x, 8);
			off += 8;
			break;
		}
		case EVT_F_STRING:
			/*
			 * Never empty: babeltrace2 2.0 shows an empty string as the
			 * previous one of its stream, and the tests compare with it.
			 */
			n = 1 + (size_t)(r % 23);
			for (j = 0; j < n; j++)
				buf[off++] = (uint8_t)chars[(r >> (8 + j % 48)) % (sizeof(chars) - 1)];
			buf[off++] = 0;
			break;
		case EVT_F_SEQ_U8: {
			uint16_t len = (uint16_t)((r >> 8) % 40);

			memcpy(buf + off, &len, 2);
			memset(buf + off + 2, (int)(seq & 0xff), len);
			off += 2 + (size_t)len;
			break;
		}
		case EVT_F_SEQ_X64: {
			uint32_t len = (uint32_t)((r >> 8) % 9), j2;

			memcpy(buf + off, &len, 4);
			for (j2 = 0; j2 < len; j2++) {
				uint64_t ip = 0xffffffff81000000ULL + ((r >> (j2 % 24)) & 0xffffff);

				memcpy(buf + off + 4 + 8 * j2, &ip, 8);
			}
			off += 4 + 8 * (size_t)len;
			break;
		}
		case EVT_F_COMM:
			memset(buf + off, 0, 16);
			snprintf((char *)buf + off, 16, "task-%u", (unsigned int)(r % 100000));
			off += 16;
			break;
		}
	}
	return (uint32_t)off;
}

/* The catalogue's events of a channel (gen_* first). */
static unsigned int channel_events(unsigned int ch, const struct evt_event_desc **out)
{
	unsigned int i, n = 0;

	for (i = 0; i < evt_nr_events && n < 64; i++)
		if (evt_events[i].channel == ch)
			out[n++] = &evt_events[i];
	return n;
}

static int record_one(struct evt_synth_ring *rings, uint64_t *rs, const struct evt_synth_params *p,
		      uint32_t cpu, uint64_t seq)
{
	static const struct evt_event_desc *cev[64], *nev[64];
	static unsigned int nc, nn;
	const struct evt_event_desc *d;
	uint64_t r = evt_synth_rnd(rs);
	unsigned int ch = p->normal_pct && r % 100 < p->normal_pct;
	uint8_t buf[EVT_MARKER_MAX + 512];
	uint32_t len;

	if (!nc) {
		nc = channel_events(EVT_CHAN_COMPACT, cev);
		nn = channel_events(EVT_CHAN_NORMAL, nev);
	}
	if (p->mix)
		d = ch ? nev[(r >> 16) % nn] : cev[(r >> 16) % nc];
	else
		d = evt_find_event(ch, ch ? EVT_ID_GEN_NORMAL : EVT_ID_GEN_COMPACT);
	len = build_payload(d, buf, cpu, seq, rs);
	return !evt_record_copy(&rings[ch].r, d->id, buf, len);
}

int evt_synth_write(const char *dir, const struct evt_synth_params *p,
		    struct evt_synth_result *res, char *err, size_t errlen)
{
	u64 (*saved)(void) = evt_clock_fn;
	uint8_t uuid[16];
	uint64_t rs = p->seed * 0x9E3779B97F4A7C15ULL + 0x1234567, per, extra;
	unsigned int cpu, active = 0;
	unsigned long ev_per_packet;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->first_ts = UINT64_MAX;
	if (!p->cpus || p->cpus > EVT_SYNTH_MAX_CPUS) {
		evt_errf(err, errlen, "cpus must be 1..%d", EVT_SYNTH_MAX_CPUS);
		return -1;
	}
	/* The module's bounds: the sizes below multiply them (a stall's length, the rings' memory). */
	if (p->subbuf_size < EVT_SUBBUF_SIZE_MIN || p->subbuf_size > EVT_SUBBUF_SIZE_MAX ||
	    p->num_subbuf < EVT_NUM_SUBBUF_MIN || p->num_subbuf > EVT_NUM_SUBBUF_MAX) {
		evt_errf(err, errlen, "the sub-buffer size must be %d..%d and their number %d..%d, not %lu and %lu",
			 EVT_SUBBUF_SIZE_MIN, EVT_SUBBUF_SIZE_MAX, EVT_NUM_SUBBUF_MIN, EVT_NUM_SUBBUF_MAX,
			 p->subbuf_size, p->num_subbuf);
		return -1;
	}
	if (p->kernel)
		return evt_synth_kernel_write(dir, p, res, err, errlen);
	if (evt_synth_last_time_fits(p, err, errlen))
		return -1;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		evt_errf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	evt_synth_uuid(uuid, &rs);
	if (evt_synth_write_metadata(dir, p, uuid, "evsynth", NULL, err, errlen))
		return -1;
	for (cpu = 0; cpu < p->cpus; cpu++)
		if (!(p->offline && p->offline[cpu]) && !(p->idle && p->idle[cpu]))
			active++;
	per = active ? p->events / active : 0;
	extra = active ? p->events % active : 0;
	ev_per_packet = p->subbuf_size / 16;

	evt_clock_fn = evt_synth_clock;
	for (cpu = 0; cpu < p->cpus && !ret; cpu++) {
		struct evt_synth_ring rings[2];
		uint64_t n, e, now, seq = 0;
		int64_t start;
		unsigned int burst_left = 0, stall_left = 0, next_flush[2] = { 0, 0 };
		uint64_t stall_len = p->stall_len ? p->stall_len :
				     2 * p->num_subbuf * (p->subbuf_size / 16 + 1);

		if (p->offline && p->offline[cpu])
			continue;
		if (evt_synth_cpu_open(rings, dir, cpu, p, uuid, res, err, errlen)) {
			ret = -1;
			break;
		}
		n = (p->idle && p->idle[cpu]) ? 0 : per + (extra ? 1 : 0);
		if (n && extra)
			extra--;
		start = (int64_t)p->start_ns + (int64_t)cpu * p->skew_ns;
		now = start > 0 ? (uint64_t)start : 1;
		for (e = 0; e < n; e++) {
			uint64_t r = evt_synth_rnd(&rs);

			if (e) {
				if (burst_left) {
					now += 1 + r % (p->burst_gap_ns ? p->burst_gap_ns : 1);
					burst_left--;
				} else {
					now += p->period_ns > 1 ? 1 + r % (2 * p->period_ns - 1) : 1;
				}
			}
			if (p->burst_every && e % p->burst_every == p->burst_every - 1)
				burst_left = p->burst_len;
			if (p->stall_every && e % p->stall_every == p->stall_every - 1)
				stall_left = (unsigned int)stall_len;
			if (evt_synth_flush_cuts(p, rings, cpu, now, next_flush, res)) {
				evt_errf(err, errlen, "%s: write: %s", dir, strerror(errno));
				ret = -1;
				break;
			}
			evt_synth_now = now;
			res->generated++;
			if (now < res->first_ts)
				res->first_ts = now;
			if (now > res->last_ts)
				res->last_ts = now;
			record_one(rings, &rs, p, cpu, seq++);
			if (stall_left) {
				stall_left--;
			} else if ((e & 15) == 15 || ev_per_packet < 32) {
				if (evt_synth_drain(&rings[0], res) || evt_synth_drain(&rings[1], res)) {
					evt_errf(err, errlen, "%s: write: %s", dir, strerror(errno));
					ret = -1;
					break;
				}
			}
		}
		/* The flush timer's last packet closes at the last event's time. */
		evt_synth_now = now;
		if (evt_synth_ring_close(&rings[0], res) | evt_synth_ring_close(&rings[1], res)) {
			if (!ret)
				evt_errf(err, errlen, "%s: write: %s", dir, strerror(errno));
			ret = -1;
		}
	}
	evt_clock_fn = saved;
	if (res->first_ts == UINT64_MAX)
		res->first_ts = 0;
	return ret;
}
