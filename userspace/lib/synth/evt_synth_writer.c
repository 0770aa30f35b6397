// SPDX-License-Identifier: GPL-2.0
/*
 * The synthesizer's writer, shared by its two modes (evt_synth.c, the
 * simulated kernel of evt_synth_kernel.c): a CPU's rings through the ring
 * core drained into stream files, the metadata, the random numbers and the
 * clock the core reads. See evt_synth_writer.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/evt_io.h"
#include "synth/evt_synth_writer.h"
#include <evtrace/events.h>

uint64_t evt_synth_now;
u64 evt_synth_clock(void)
{
	return evt_synth_now;
}

uint64_t evt_synth_rnd(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

int evt_synth_drain(struct evt_synth_ring *s, struct evt_synth_result *res)
{
	unsigned long pos;

	while (evt_ring_get(&s->r, &pos) == 0) {
		const struct evt_packet_header *h = evt_ring_packet(&s->r, pos);

		if (fwrite(h, 1, s->r.subbuf_size, s->f) != s->r.subbuf_size) {
			evt_ring_put(&s->r, pos);
			return -1;
		}
		evt_pidx_writer_add(&s->idx, h, (uint32_t)s->r.subbuf_size);
		res->packets++;
		evt_ring_put(&s->r, pos);
	}
	return 0;
}

int evt_synth_ring_open(struct evt_synth_ring *s, const char *dir, unsigned int cpu, enum evt_channel ch,
		      const struct evt_synth_params *p, const uint8_t *uuid, char *err, size_t errlen)
{
	struct evt_ring_params rp = {
		.subbuf_size = p->subbuf_size, .num_subbuf = p->num_subbuf, .channel = ch,
		.mode = p->overwrite ? EVT_MODE_OVERWRITE : EVT_MODE_DISCARD,
		.high_water = 70, .cpu = cpu, .uuid = uuid,
	};
	char path[4096];

	memset(s, 0, sizeof(*s));
	s->idx.fd = -1;
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
	if (!p->no_index) {
		char name[32];

		snprintf(name, sizeof(name), "%s_%u", evt_channel_name(ch), cpu);
		evt_pidx_writer_open(&s->idx, dir, name, ch, cpu, 0644, (gid_t)-1, -1, 0);
	}
	return 0;
}

/*
 * A CPU's two rings (compact, normal) and their files: 0, or -1 with @err,
 * whichever was opened closed again (the other never touched).
 */
int evt_synth_cpu_open(struct evt_synth_ring rings[2], const char *dir, unsigned int cpu,
		       const struct evt_synth_params *p, const uint8_t *uuid, struct evt_synth_result *res,
		       char *err, size_t errlen)
{
	if (evt_synth_ring_open(&rings[0], dir, cpu, EVT_CHAN_COMPACT, p, uuid, err, errlen)) {
		evt_synth_ring_close(&rings[0], res);
		return -1;
	}
	if (evt_synth_ring_open(&rings[1], dir, cpu, EVT_CHAN_NORMAL, p, uuid, err, errlen)) {
		evt_synth_ring_close(&rings[0], res);
		evt_synth_ring_close(&rings[1], res);
		return -1;
	}
	return 0;
}

/* A random version-4 UUID from the run's sequence. */
void evt_synth_uuid(uint8_t uuid[16], uint64_t *rs)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		uuid[i] = (uint8_t)(evt_synth_rnd(rs) >> 56);
	uuid[6] = (uuid[6] & 0x0f) | 0x40;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

/*
 * The CPU's clock is about to pass cuts before @now: each ring flushed at
 * its time of each (the packet ends then, the next events come after it),
 * as evdrain's cut flushes them one after another. @next[ch]: ring ch's
 * first cut not passed yet.
 */
int evt_synth_flush_cuts(const struct evt_synth_params *p, struct evt_synth_ring *rings, unsigned int cpu, uint64_t now,
		      unsigned int *next, struct evt_synth_result *res)
{
	unsigned int ch;
	int ret = 0;

	for (ch = 0; ch < 2; ch++) {
		const uint64_t off = (2 * (uint64_t)cpu + ch) * p->flush_step_ns;

		for (; next[ch] < p->nr_flush && now > p->flush_at[next[ch]] + off; next[ch]++) {
			evt_synth_now = p->flush_at[next[ch]] + off;
			evt_ring_flush(&rings[ch].r);
			if (evt_synth_drain(&rings[ch], res))
				ret = -1;
		}
	}
	return ret;
}

int evt_synth_ring_close(struct evt_synth_ring *s, struct evt_synth_result *res)
{
	int ret = 0;

	if (s->mem) {
		struct evt_ring_stats st;

		evt_ring_flush(&s->r);
		if (s->f && evt_synth_drain(s, res))
			ret = -1;
		evt_ring_stats(&s->r, &st);
		res->recorded += st.recorded;
		res->discarded += st.discarded + st.too_big + st.refused;
		res->overwritten += st.overwritten;
		res->skipped += st.skipped;
		res->written += st.recorded - st.overwritten;
	}
	/*
	 * Its index written whole and sealed: the stream's mtime set back so
	 * that it has settled (evt_pindex.h) and a later write shows, rather
	 * than a wait of EVT_PIDX_SETTLE_NS per run. A stream not whole (a
	 * failed write) keeps its index unsealed, which no reader uses.
	 */
	if (s->f && !fflush(s->f))
		evt_pidx_writer_seal(&s->idx, fileno(s->f));
	evt_pidx_writer_close(&s->idx);
	if (s->f && fclose(s->f))
		ret = -1;
	free(s->mem);
	free(s->sb);
	free(s->fbuf);
	memset(s, 0, sizeof(*s));
	return ret;
}
int evt_synth_write_metadata(const char *dir, const struct evt_synth_params *p, const uint8_t *uuid,
			  const char *tracer_version, const char *trace_name, char *err, size_t errlen)
{
	struct evt_meta_params mp = {
		.clock_offset_s = p->clock_offset_s, .clock_offset_ns = p->clock_offset_ns,
		.hostname = "evsynth", .kernel_release = "synthetic", .tracer_version = tracer_version,
		.trace_name = trace_name,
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
 * The latest time the run can reach (the start, the last CPU's skew and
 * every event of one CPU at the longest gap) within 2^63 ns: the
 * timelines are signed (a negative skew). 0, or -1 with @err.
 */
int evt_synth_last_time_fits(const struct evt_synth_params *p, char *err, size_t errlen)
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
