// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include "unit.h"
#include "fastcheck.h"	/* decode_packet() checks every event */
#include "ctf/evt_merged.h"
#include "ctf/evt_par.h"
#include "synth/evt_synth.h"

/*
 * The ring core, compiled here with its interleaving hooks (EVT_TEST_HOOKS,
 * unit.h): this object defines every symbol of evt_ring.c, so the linker
 * never takes libevtrace.a's hook-less copy (were both linked, the
 * duplicate symbols would fail the link). The library's other objects
 * (evt_synth_writer.c) call into this copy.
 */
#include "../../kmod/core/evt_ring.c"

uint64_t fake_now, fake_step;
static uint64_t (*saved_clock)(void);

uint64_t fake_clock(void)
{
	fake_now += fake_step;
	return fake_now;
}

void use_fake_clock(uint64_t start, uint64_t step)
{
	if (!saved_clock)
		saved_clock = evt_clock_fn;
	fake_now = start;
	fake_step = step;
	evt_clock_fn = fake_clock;
}

void use_real_clock(void)
{
	if (saved_clock)
		evt_clock_fn = saved_clock;
}

static const uint8_t test_uuid[16] = { 0xe7, 0x7a, 0xce, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

static void count_notify(struct evt_ring *r, enum evt_ring_event why)
{
	struct tring *t = r->priv;

	if (why == EVT_RING_HIGH_WATER)
		t->notified++;
	else if (why == EVT_RING_DISCARDING)
		t->discarding++;
}

void tring_init(struct tring *t, unsigned long sb_size, unsigned long nsb,
		enum evt_channel ch, enum evt_mode mode)
{
	struct evt_ring_params p = {
		.subbuf_size = sb_size, .num_subbuf = nsb, .channel = ch, .mode = mode,
		.high_water = 70, .cpu = 0, .uuid = test_uuid, .notify = count_notify, .priv = t,
	};

	ck_assert_int_eq(evt_ring_check_params(&p), 0);
	t->mem = malloc(evt_ring_mem_size(&p));
	t->sb = calloc(nsb, sizeof(*t->sb));
	ck_assert_ptr_nonnull(t->mem);
	ck_assert_ptr_nonnull(t->sb);
	/* Stale bytes must never be read as events: poison the memory. */
	memset(t->mem, 0xa5, evt_ring_mem_size(&p));
	t->notified = 0;
	t->discarding = 0;
	evt_ring_init(&t->r, &p, t->mem, t->sb);
}

void tring_free(struct tring *t)
{
	free(t->mem);
	free(t->sb);
}

int rec_compact(struct evt_ring *r, uint32_t cpu, uint64_t seq)
{
	struct { uint32_t cpu; uint32_t seq_lo, seq_hi; } pl = { cpu, (uint32_t)seq, (uint32_t)(seq >> 32) };

	return evt_record_copy(r, EVT_ID_GEN_COMPACT, &pl, sizeof(pl));
}

int rec_normal(struct evt_ring *r, uint32_t cpu, uint64_t seq, unsigned int fill)
{
	uint8_t buf[14 + 256];
	uint16_t len = (uint16_t)fill;
	struct evt_rctx c;
	char *p;
	int ret;

	memcpy(buf, &cpu, 4);
	memcpy(buf + 4, &seq, 8);
	memcpy(buf + 12, &len, 2);
	memset(buf + 14, (int)(seq & 0xff), fill);
	ret = evt_reserve(r, EVT_ID_GEN_NORMAL, 14 + fill, &c);
	if (ret)
		return ret;
	p = evt_write_header(r, &c, EVT_ID_GEN_NORMAL, 14 + fill);
	memcpy(p, buf, 14 + fill);
	evt_commit(r, &c);
	return 0;
}

static void seen_add(struct seen *s, uint32_t cpu, uint64_t seq, uint64_t ts)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->seq = realloc(s->seq, s->cap * sizeof(*s->seq));
		s->cpu = realloc(s->cpu, s->cap * sizeof(*s->cpu));
		s->ts = realloc(s->ts, s->cap * sizeof(*s->ts));
	}
	s->seq[s->n] = seq;
	s->cpu[s->n] = cpu;
	s->ts[s->n] = ts;
	s->n++;
}

/* The first non-zero byte of p[from, to), or -1. */
static long first_nonzero(const uint8_t *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i])
			return (long)i;
	return -1;
}

void decode_packet(const void *pkt, size_t len, struct seen *s)
{
	const uint8_t *bytes = pkt;
	struct evt_packet_iter it;
	struct evt_event ev;
	struct evt_field_val v;
	size_t rec_end = EVT_PACKET_HEADER_SIZE;
	long nz;
	int rc;

	if (evt_packet_iter_init(&it, evt_builtin, pkt, len))
		ck_abort_msg("packet: %s", it.err);
	if (s->packets) {
		ck_assert_uint_gt(it.info.h.packet_seq_num, s->last_seq_num);
		s->seq_gaps += it.info.h.packet_seq_num - s->last_seq_num - 1;
		ck_assert_uint_ge(it.info.h.events_discarded, s->last_discarded);
		if (s->n)
			ck_assert_uint_ge(it.info.h.timestamp_begin, s->ts[s->n - 1]);
		/* Packets of a stream do not overlap in time. */
		ck_assert_uint_ge(it.info.h.timestamp_begin, s->last_ts_end);
	}
	s->last_seq_num = it.info.h.packet_seq_num;
	s->last_discarded = it.info.h.events_discarded;
	s->last_ts_end = it.info.h.timestamp_end;
	s->packets++;
	while ((rc = evt_packet_next(&it, &ev)) == 1) {
		uint32_t cpu = UINT32_MAX;
		uint64_t seq = UINT64_MAX;

		/* Alignment padding before the header: zero, never stale memory. */
		nz = first_nonzero(bytes, rec_end, ev.offset);
		if (nz >= 0)
			ck_abort_msg("packet %llu: padding byte at %ld before the event at %zu is 0x%02x",
				     (unsigned long long)it.info.h.packet_seq_num, nz, ev.offset,
				     bytes[nz]);
		rec_end = (size_t)(ev.payload - bytes) + ev.payload_len;
		ck_assert_uint_ge(ev.ts, it.info.h.timestamp_begin);
		ck_assert_uint_le(ev.ts, it.info.h.timestamp_end);
		if (!evt_event_field_by_name(&ev, "cpu", &v))
			cpu = (uint32_t)v.u;
		if (!evt_event_field_by_name(&ev, "seq", &v))
			seq = v.u;
		if (!evt_event_field_by_name(&ev, "fill", &v)) {
			for (unsigned int i = 0; i < v.len; i++)
				ck_assert_uint_eq(v.bytes[i], seq & 0xff);
		}
		seen_add(s, cpu, seq, ev.ts);
	}
	if (rc < 0)
		ck_abort_msg("decode: %s", it.err);
	/* content_size is exact, and nothing of an older lap shows after it. */
	ck_assert_uint_eq(rec_end, it.info.content_bytes);
	nz = first_nonzero(bytes, rec_end, it.info.packet_bytes);
	if (nz >= 0)
		ck_abort_msg("packet %llu: byte %ld after content_size (%zu of %zu bytes) is 0x%02x",
			     (unsigned long long)it.info.h.packet_seq_num, nz, it.info.content_bytes,
			     it.info.packet_bytes, bytes[nz]);
}

/* Read and release the oldest complete sub-buffer; evt_ring_get()'s result. */
static int take_next(struct evt_ring *r, struct seen *s)
{
	unsigned long pos;
	int rc = evt_ring_get(r, &pos);

	if (rc == 0) {
		decode_packet(evt_ring_packet(r, pos), r->subbuf_size, s);
		evt_ring_put(r, pos);
	}
	return rc;
}

void drain_all(struct evt_ring *r, struct seen *s)
{
	while (take_next(r, s) == 0)
		;
}

/* Read and release the oldest complete sub-buffer (there must be one). */
void take_one(struct evt_ring *r, struct seen *s)
{
	ck_assert_int_eq(take_next(r, s), 0);
}

void seen_free(struct seen *s)
{
	free(s->seq);
	free(s->cpu);
	free(s->ts);
	memset(s, 0, sizeof(*s));
}

uint64_t unit_rnd(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

void unit_mktmp(char *dir, size_t len, const char *what)
{
	snprintf(dir, len, "/tmp/evt-%s-XXXXXX", what);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

void unit_rmtree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* ---- Traces: synthesized, merged whole (the trace suite's files) ---- */

void unit_synth(const char *dir, const struct evt_synth_params *p, struct evt_synth_result *r)
{
	char err[512];

	if (evt_synth_write(dir, p, r, err, sizeof(err)))
		ck_abort_msg("synth: %s", err);
}

/* Open @dir and merge it all with @kind into @out (the trace stays open in @t). */
void unit_merge_dir(struct evt_trace *t, const char *dir, enum evt_merge_kind kind,
		    const struct evt_trace_opts *o, struct merged *out)
{
	struct evt_merged mt;
	struct evt_ref refs[97];	/* an odd batch size: batches end anywhere */
	long n;

	memset(out, 0, sizeof(*out));
	if (evt_trace_open(t, dir, o)) {
		out->rc = -1;
		snprintf(out->err, sizeof(out->err), "%s", t->err);
		return;
	}
	ck_assert_int_eq(evt_merged_init(&mt, t, kind), 0);
	while ((n = evt_merged_next(&mt, refs, 97)) > 0) {
		long i;

		ck_assert_int_le(n, 97);
		for (i = 0; i < n; i++) {
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 4096;
				out->ev = realloc(out->ev, out->cap * sizeof(*out->ev));
			}
			out->ev[out->n++] = (struct mref){
				refs[i].ts, refs[i].payload, EVT_REF_STREAM(&refs[i]),
				EVT_REF_DESC(&refs[i]), EVT_REF_LEN(&refs[i]) };
		}
	}
	if (n < 0) {
		out->rc = -1;
		snprintf(out->err, sizeof(out->err), "%s", mt.errmsg);
	}
	evt_merged_free(&mt);
	/* Counting only (evcat --count): the same events, up to the same error. */
	{
		struct evt_trace c;
		uint64_t total = 0;

		ck_assert_int_eq(evt_trace_clone(&c, t), 0);
		ck_assert_int_eq(evt_merged_init(&mt, &c, kind), 0);
		while ((n = evt_merged_count(&mt, 53)) > 0) {
			ck_assert_int_le(n, 53);
			total += (uint64_t)n;
		}
		ck_assert_uint_eq(total, out->n);
		ck_assert_int_eq(n < 0 ? -1 : 0, out->rc);
		if (n < 0)
			ck_assert_str_eq(mt.errmsg, out->err);
		evt_merged_free(&mt);
		evt_trace_close(&c);
	}
}

/* ---- The same merge on threads, slices collected in order ---- */

struct par_ctx {
	struct merged *out;
	int ended;
};

static void *par_begin(void *ctx, unsigned int j, uint64_t lo, uint64_t hi)
{
	(void)ctx;
	(void)j;
	(void)lo;
	(void)hi;
	return calloc(1, sizeof(struct merged));
}

static int par_refs(void *ctx, void *state, const struct evt_ref *r, size_t n)
{
	struct merged *m = state;
	size_t i;

	(void)ctx;
	for (i = 0; i < n; i++) {
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 1024;
			m->ev = realloc(m->ev, m->cap * sizeof(*m->ev));
		}
		m->ev[m->n++] = (struct mref){ r[i].ts, r[i].payload, EVT_REF_STREAM(&r[i]),
					       EVT_REF_DESC(&r[i]), EVT_REF_LEN(&r[i]) };
	}
	return 0;
}

static int par_end(void *ctx, void *state, const char *err)
{
	struct par_ctx *c = ctx;
	struct merged *m = state, *o = c->out;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (o->n == o->cap) {
			o->cap = o->cap ? o->cap * 2 : 4096;
			o->ev = realloc(o->ev, o->cap * sizeof(*o->ev));
		}
		o->ev[o->n++] = m->ev[i];
	}
	c->ended++;
	free(m->ev);
	free(m);
	if (err) {
		o->rc = -1;
		snprintf(o->err, sizeof(o->err), "%s", err);
		return -1;
	}
	return 0;
}

static void par_drop(void *ctx, void *state)
{
	struct merged *m = state;

	(void)ctx;
	free(m->ev);
	free(m);
}

static const struct evt_par_ops par_ops = {
	.begin = par_begin, .refs = par_refs, .end = par_end, .drop = par_drop,
};

/* Like unit_merge_dir, on @threads threads with slices of about @slice bytes. */
void unit_par_merge_dir(struct evt_trace *t, const char *dir, enum evt_merge_kind kind,
			unsigned int threads, uint64_t slice, uint64_t from, uint64_t to,
			struct merged *out)
{
	struct evt_par_opts po = {
		.threads = threads, .kind = kind, .from = from, .to = to, .slice_bytes = slice,
	};
	struct par_ctx c = { .out = out };
	char err[256];
	int rc;

	memset(out, 0, sizeof(*out));
	if (evt_trace_open(t, dir, NULL)) {
		out->rc = -1;
		snprintf(out->err, sizeof(out->err), "%s", t->err);
		return;
	}
	rc = evt_par_run(t, &po, &par_ops, &c, err, sizeof(err));
	ck_assert_msg(rc >= 0, "%s", err);
	ck_assert_int_eq(rc, out->rc ? 1 : 0);
}

/*
 * Counting two whole-trace readers at once (evt_merged_count_pair: the
 * lanes decode as they merge) gives what the merged pass gave: @n events,
 * then the end, or the error @err (rc -1).
 */
void unit_pair_count_check(const char *dir, size_t n, int rc, const char *err)
{
	struct evt_trace t, c1, c2;
	struct evt_merged m1, m2;
	uint64_t na, nb;

	if (evt_trace_open(&t, dir, NULL)) {
		ck_assert_int_eq(rc, -1);
		return;
	}
	ck_assert_int_eq(evt_trace_clone(&c1, &t), 0);
	ck_assert_int_eq(evt_trace_clone(&c2, &t), 0);
	ck_assert_int_eq(evt_merged_init(&m1, &c1, EVT_MERGE_TREE), 0);
	ck_assert_int_eq(evt_merged_init(&m2, &c2, EVT_MERGE_TREE), 0);
	evt_merged_count_pair(&m1, &m2, &na, &nb);
	ck_assert_uint_eq(na, n);
	ck_assert_uint_eq(nb, n);
	ck_assert_int_eq(m1.err ? -1 : 0, rc);
	ck_assert_int_eq(m2.err ? -1 : 0, rc);
	if (rc) {
		ck_assert_str_eq(m1.errmsg, err);
		ck_assert_str_eq(m2.errmsg, err);
	}
	evt_merged_free(&m1);
	evt_merged_free(&m2);
	evt_trace_close(&c2);
	evt_trace_close(&c1);
	evt_trace_close(&t);
}

/* @text with the first @from replaced by @to (malloc'd). */
char *unit_replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t tl = strlen(text), fl = strlen(from), nl = strlen(to);
	char *out;

	ck_assert_msg(at != NULL, "no \"%s\" in the metadata", from);
	out = malloc(tl - fl + nl + 1);
	ck_assert_ptr_nonnull(out);
	memcpy(out, text, (size_t)(at - text));
	memcpy(out + (at - text), to, nl);
	strcpy(out + (at - text) + nl, at + fl);
	return out;
}

/* Run a shell command; its stdout (malloc'd) and exit status. */
char *unit_sh(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 16, len = 0, n;
	char *out = malloc(cap);
	int st;

	ck_assert_ptr_nonnull(p);
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap)
			out = realloc(out, cap *= 2);
	}
	out[len] = 0;
	st = pclose(p);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return out;
}
