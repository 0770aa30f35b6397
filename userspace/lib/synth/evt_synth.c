// SPDX-License-Identifier: GPL-2.0
/*
 * Trace synthesizer: see evt_synth.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "evt_ring.h"
#include "evt_io.h"
#include "evt_synth.h"
#include <evtrace/events.h>

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
}

static uint64_t synth_now;
static u64 synth_clock(void)
{
	return synth_now;
}

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

struct sring {
	struct evt_ring r;
	char *mem;
	struct evt_subbuf *sb;
	FILE *f;
	char *fbuf;
};

static int drain(struct sring *s, struct evt_synth_result *res)
{
	unsigned long pos;

	while (evt_ring_get(&s->r, &pos) == 0) {
		const struct evt_packet_header *h = evt_ring_packet(&s->r, pos);

		if (fwrite(h, 1, s->r.subbuf_size, s->f) != s->r.subbuf_size) {
			evt_ring_put(&s->r, pos);
			return -1;
		}
		res->packets++;
		evt_ring_put(&s->r, pos);
	}
	return 0;
}

static int sring_open(struct sring *s, const char *dir, unsigned int cpu, enum evt_channel ch,
		      const struct evt_synth_params *p, const uint8_t *uuid, char *err, size_t errlen)
{
	struct evt_ring_params rp = {
		.subbuf_size = p->subbuf_size, .num_subbuf = p->num_subbuf, .channel = ch,
		.mode = p->overwrite ? EVT_MODE_OVERWRITE : EVT_MODE_DISCARD,
		.high_water = 70, .cpu = cpu, .uuid = uuid,
	};
	char path[4096];

	memset(s, 0, sizeof(*s));
	if (evt_ring_check_params(&rp)) {
		evt_errf(err, errlen, "bad ring geometry: subbuf_size %lu, num_subbuf %lu "
		       "(powers of two, >= 1024 and >= 2)", p->subbuf_size, p->num_subbuf);
		return -1;
	}
	s->mem = malloc(evt_ring_mem_size(&rp));
	s->sb = calloc(rp.num_subbuf, sizeof(*s->sb));
	s->fbuf = malloc(1 << 20);
	if (!s->mem || !s->sb || !s->fbuf) {
		evt_errf(err, errlen, "out of memory");
		return -1;
	}
	evt_ring_init(&s->r, &rp, s->mem, s->sb);
	snprintf(path, sizeof(path), "%s/%s_%u", dir, evt_channel_name(ch), cpu);
	s->f = fopen(path, "w");
	if (!s->f) {
		evt_errf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	setvbuf(s->f, s->fbuf, _IOFBF, 1 << 20);
	return 0;
}

static int sring_close(struct sring *s, struct evt_synth_result *res)
{
	int ret = 0;

	if (s->mem) {
		struct evt_ring_stats st;

		evt_ring_flush(&s->r);
		if (s->f && drain(s, res))
			ret = -1;
		evt_ring_stats(&s->r, &st);
		res->recorded += st.recorded;
		res->discarded += st.discarded + st.too_big + st.refused;
		res->overwritten += st.overwritten;
		res->skipped += st.skipped;
		res->written += st.recorded - st.overwritten;
	}
	if (s->f && fclose(s->f))
		ret = -1;
	free(s->mem);
	free(s->sb);
	free(s->fbuf);
	memset(s, 0, sizeof(*s));
	return ret;
}

static int write_metadata(const char *dir, const struct evt_synth_params *p, const uint8_t *uuid,
			  char *err, size_t errlen)
{
	struct evt_meta_params mp = {
		.clock_offset_s = p->clock_offset_s, .clock_offset_ns = p->clock_offset_ns,
		.hostname = "evsynth", .kernel_release = "synthetic", .tracer_version = "evsynth",
	};
	unsigned long need;
	char path[4096], *buf;
	FILE *f;
	int ret = 0;

	memcpy(mp.uuid, uuid, 16);
	need = evt_meta_render(NULL, 0, &mp);
	buf = malloc(need + 1);
	if (!buf) {
		evt_errf(err, errlen, "out of memory");
		return -1;
	}
	evt_meta_render(buf, need + 1, &mp);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	if (!f || fwrite(buf, 1, need, f) != need) {
		evt_errf(err, errlen, "%s: %s", path, strerror(errno));
		ret = -1;
	}
	if (f && fclose(f) && !ret) {
		evt_errf(err, errlen, "%s: %s", path, strerror(errno));
		ret = -1;
	}
	free(buf);
	return ret;
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
		uint64_t r = rnd(rs), v;
		size_t a = evt_field_align(f->type), n, j;

		while (off % a)
			buf[off++] = 0;
		v = !strcmp(f->name, "cpu") ? cpu : !strcmp(f->name, "seq") ? seq : r;
		switch (f->type) {
		case EVT_F_U8: buf[off++] = (uint8_t)v; break;
		case EVT_F_U16: memcpy(buf + off, &v, 2); off += 2; break;
		case EVT_F_U32: memcpy(buf + off, &v, 4); off += 4; break;
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

static int record_one(struct sring *rings, uint64_t *rs, const struct evt_synth_params *p,
		      uint32_t cpu, uint64_t seq)
{
	static const struct evt_event_desc *cev[64], *nev[64];
	static unsigned int nc, nn;
	const struct evt_event_desc *d;
	uint64_t r = rnd(rs);
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

/*
 * The latest time the run can reach (the start, the last CPU's skew and
 * every event of one CPU at the longest gap) within 2^63 ns: the
 * timelines are signed (a negative skew). 0, or -1 with @err.
 */
static int last_time_fits(const struct evt_synth_params *p, char *err, size_t errlen)
{
	const uint64_t gap = p->period_ns > 1 ? 2 * p->period_ns :
			     p->burst_gap_ns > 1 ? p->burst_gap_ns : 1;
	const uint64_t skew = p->skew_ns > 0 ? (uint64_t)p->skew_ns : 0;
	uint64_t end, span;

	if (p->period_ns > INT64_MAX / 2 || p->burst_gap_ns > INT64_MAX ||
	    __builtin_mul_overflow(skew, (uint64_t)(p->cpus - 1), &span) ||
	    __builtin_add_overflow(p->start_ns, span, &end) ||
	    __builtin_mul_overflow(p->events, gap > p->burst_gap_ns ? gap : p->burst_gap_ns + 1, &span) ||
	    __builtin_add_overflow(end, span, &end) || end > INT64_MAX) {
		evt_errf(err, errlen, "the run's last event could be beyond 2^63 ns (start %llu ns, "
			 "%llu events, period %llu ns, skew %lld ns): lower one of them",
			 (unsigned long long)p->start_ns, (unsigned long long)p->events,
			 (unsigned long long)p->period_ns, (long long)p->skew_ns);
		return -1;
	}
	return 0;
}

int evt_synth_write(const char *dir, const struct evt_synth_params *p,
		    struct evt_synth_result *res, char *err, size_t errlen)
{
	u64 (*saved)(void) = evt_clock_fn;
	uint8_t uuid[16];
	uint64_t rs = p->seed * 0x9E3779B97F4A7C15ULL + 0x1234567, per, extra;
	unsigned int cpu, active = 0, i;
	unsigned long ev_per_packet;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->first_ts = UINT64_MAX;
	if (!p->cpus || p->cpus > EVT_SYNTH_MAX_CPUS) {
		evt_errf(err, errlen, "cpus must be 1..%d", EVT_SYNTH_MAX_CPUS);
		return -1;
	}
	if (last_time_fits(p, err, errlen))
		return -1;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		evt_errf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < 16; i++)
		uuid[i] = (uint8_t)(rnd(&rs) >> 56);
	uuid[6] = (uuid[6] & 0x0f) | 0x40;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
	if (write_metadata(dir, p, uuid, err, errlen))
		return -1;
	for (cpu = 0; cpu < p->cpus; cpu++)
		if (!(p->offline && p->offline[cpu]) && !(p->idle && p->idle[cpu]))
			active++;
	per = active ? p->events / active : 0;
	extra = active ? p->events % active : 0;
	ev_per_packet = p->subbuf_size / 16;

	evt_clock_fn = synth_clock;
	for (cpu = 0; cpu < p->cpus && !ret; cpu++) {
		struct sring rings[2];
		uint64_t n, e, now, seq = 0;
		int64_t start;
		unsigned int burst_left = 0, stall_left = 0;
		uint64_t stall_len = p->stall_len ? p->stall_len :
				     2 * p->num_subbuf * (p->subbuf_size / 16 + 1);

		if (p->offline && p->offline[cpu])
			continue;
		if (sring_open(&rings[0], dir, cpu, EVT_CHAN_COMPACT, p, uuid, err, errlen) ||
		    sring_open(&rings[1], dir, cpu, EVT_CHAN_NORMAL, p, uuid, err, errlen)) {
			sring_close(&rings[0], res);
			sring_close(&rings[1], res);
			ret = -1;
			break;
		}
		n = (p->idle && p->idle[cpu]) ? 0 : per + (extra ? 1 : 0);
		if (n && extra)
			extra--;
		start = (int64_t)p->start_ns + (int64_t)cpu * p->skew_ns;
		now = start > 0 ? (uint64_t)start : 1;
		for (e = 0; e < n; e++) {
			uint64_t r = rnd(&rs);

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
			synth_now = now;
			res->generated++;
			if (now < res->first_ts)
				res->first_ts = now;
			if (now > res->last_ts)
				res->last_ts = now;
			record_one(rings, &rs, p, cpu, seq++);
			if (stall_left) {
				stall_left--;
			} else if ((e & 15) == 15 || ev_per_packet < 32) {
				if (drain(&rings[0], res) || drain(&rings[1], res)) {
					evt_errf(err, errlen, "%s: write: %s", dir, strerror(errno));
					ret = -1;
					break;
				}
			}
		}
		/* The flush timer's last packet closes at the last event's time. */
		synth_now = now;
		if (sring_close(&rings[0], res) | sring_close(&rings[1], res)) {
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
