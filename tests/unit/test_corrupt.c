// SPDX-License-Identifier: GPL-2.0
/*
 * The trace suite's corrupted traces: errors that name the file and
 * offset, never a crash (the ASan build runs these too).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "unit.h"
#include "fastcheck.h"
#include "json/evt_json.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_tsdl.h"
#include "ctf/evt_par.h"
#include "synth/evt_synth.h"
#include "format/evt_format.h"

/* ---- Corrupted traces ---- */

struct tfile {
	char name[32];
	uint8_t *buf;
	size_t len;
};

struct tcopy {
	struct tfile f[16];
	unsigned int n;
	char *meta;
	size_t meta_len;
};

static uint64_t rng_state = 77;

static uint64_t rnd(void)
{
	return unit_rnd(&rng_state);
}


static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* A small trace in memory: the original of every corruption. */
static void make_original(struct tcopy *c, char *dir, size_t dirlen)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	static const char *names[] = { "compact_0", "normal_0", "compact_1", "normal_1" };
	char path[256];
	unsigned int i;

	unit_mktmp(dir, dirlen, "trace");
	evt_synth_defaults(&p);
	p.cpus = 2;
	p.events = 2400;
	p.subbuf_size = 1024;
	p.num_subbuf = 4;
	p.mix = 1;
	p.normal_pct = 20;
	p.period_ns = 30000000;		/* extended headers every few events */
	/* Every corruption writes the files again: their index files would only be said stale (test_pindex.c). */
	p.no_index = 1;
	unit_synth(dir, &p, &r);
	memset(c, 0, sizeof(*c));
	for (i = 0; i < 4; i++) {
		snprintf(c->f[i].name, sizeof(c->f[i].name), "%s", names[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		c->f[i].buf = slurp(path, &c->f[i].len);
		ck_assert_uint_gt(c->f[i].len, 4096);
	}
	c->n = 4;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	c->meta = (char *)slurp(path, &c->meta_len);
}

static void free_original(struct tcopy *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		free(c->f[i].buf);
	free(c->meta);
}


/* Write file @which of @c with @buf/@len instead, merge, return rc and the message. */
static int try_corrupt(const char *dir, const struct tcopy *c, unsigned int which,
		       const uint8_t *buf, size_t len, enum evt_merge_kind kind, char *err, size_t errlen,
		       size_t *events)
{
	struct evt_trace t;
	struct merged m;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		char idx[320];

		spit(dir, c->f[i].name, i == which ? buf : c->f[i].buf, i == which ? len : c->f[i].len);
		/* An index a reader saved of the files before: said stale at every round (test_pindex.c has that). */
		snprintf(idx, sizeof(idx), "%s/" EVT_PIDX_DIR "/%s.idx", dir, c->f[i].name);
		unlink(idx);
	}
	unit_merge_dir(&t, dir, kind, NULL, &m);
	if (m.rc == 0)
		evt_trace_close(&t);
	else if (t.streams)
		evt_trace_close(&t);
	snprintf(err, errlen, "%s", m.err);
	if (events)
		*events = m.n;
	unit_pair_count_check(dir, m.n, m.rc, m.err);
	free(m.ev);
	return m.rc;
}

static void expect_error(const char *dir, const struct tcopy *c, unsigned int which,
			 const uint8_t *buf, size_t len, const char *what, size_t off)
{
	char err[EVT_TRACE_ERRLEN], want[128];
	int kind;

	for (kind = 0; kind < 2; kind++) {
		ck_assert_int_eq(try_corrupt(dir, c, which, buf, len, kind, err, sizeof(err), NULL), -1);
		ck_assert_msg(strstr(err, c->f[which].name), "no file name in \"%s\"", err);
		snprintf(want, sizeof(want), "offset %zu:", off);
		ck_assert_msg(strstr(err, want), "expected \"%s\" in \"%s\"", want, err);
		ck_assert_msg(strstr(err, what), "expected \"%s\" in \"%s\"", what, err);
	}
}

/*
 * Long runs of one compact id (the decoder's fast path) with a packet's
 * timestamp_end cut between two of them: every event before the first
 * late one is delivered, and the error names that one.
 */
START_TEST(late_event_in_a_run)
{
	struct evt_synth_params p;
	struct evt_synth_result r;
	struct evt_packet_iter it;
	struct evt_event ev;
	struct evt_trace t;
	struct merged m;
	struct evt_packet_header *h;
	char dir[64], want[64];
	uint8_t *b;
	size_t len, first, k, cut;
	unsigned int n = 0, kind, i;
	static uint64_t ts[4096];
	static size_t off[4096];

	unit_mktmp(dir, sizeof(dir), "trace");
	evt_synth_defaults(&p);
	p.cpus = 1;
	p.events = 3000;
	p.subbuf_size = 4096;
	p.num_subbuf = 4;
	unit_synth(dir, &p, &r);
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/compact_0", dir);
		b = slurp(path, &len);
	}
	ck_assert_uint_gt(len, 3 * 4096);
	/* Events of packet 0, then packet 1's. */
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, b, 4096), 0);
	while (evt_packet_next(&it, &ev) == 1)
		n++;
	first = n;
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, b + 4096, 4096), 0);
	for (n = 0; n < 4096 && evt_packet_next(&it, &ev) == 1; n++) {
		ts[n] = ev.ts;
		off[n] = ev.offset;
	}
	ck_assert_uint_gt(n, 100);
	for (cut = n / 2 + 7; cut + 1 < n && ts[cut + 1] == ts[cut]; cut++)
		;
	ck_assert_uint_lt(cut + 1, n);
	for (k = cut + 1; ts[k] <= ts[cut]; k++)
		;
	h = (struct evt_packet_header *)(b + 4096);
	h->timestamp_end = ts[cut];
	spit(dir, "compact_0", b, len);
	snprintf(want, sizeof(want), "offset %zu:", 4096 + off[k]);
	for (kind = 0; kind < 2; kind++) {
		unit_merge_dir(&t, dir, kind, NULL, &m);
		ck_assert_int_eq(m.rc, -1);
		ck_assert_msg(strstr(m.err, want) && strstr(m.err, "after the packet's timestamp_end"),
			      "expected \"%s\" in \"%s\"", want, m.err);
		ck_assert_uint_eq(m.n, first + k);
		for (i = 0; i < k; i++)
			ck_assert_uint_eq(m.ev[first + i].ts, ts[i]);
		unit_pair_count_check(dir, m.n, m.rc, m.err);
		evt_trace_close(&t);
		free(m.ev);
	}
	free(b);
	unit_rmtree(dir);
}
END_TEST

START_TEST(corrupt_traces_give_errors)
{
	struct tcopy c;
	char dir[64], err[EVT_TRACE_ERRLEN];
	uint8_t *b;
	size_t len, n_ok, n_bad;
	struct evt_packet_header *h;

	make_original(&c, dir, sizeof(dir));
	len = c.f[0].len;
	b = malloc(len + 64);

	/* Intact: no error, and the count of events of reference. */
	ck_assert_int_eq(try_corrupt(dir, &c, 99, NULL, 0, EVT_MERGE_TREE, err, sizeof(err), &n_ok), 0);

	/* Truncated: the last packet is partial. */
	memcpy(b, c.f[0].buf, len);
	expect_error(dir, &c, 0, b, len - 100, "truncated packet", len - 1024);
	/* Truncated inside the packet header. */
	expect_error(dir, &c, 0, b, len - 1024 + 40, "truncated packet header", len - 1024);
	/* The events before the error are all delivered. */
	ck_assert_int_eq(try_corrupt(dir, &c, 0, b, len - 100, EVT_MERGE_TREE, err, sizeof(err), &n_bad), -1);
	ck_assert_uint_gt(n_bad, 0);
	ck_assert_uint_lt(n_bad, n_ok);

	/* Wrong magic in the third packet. */
	memcpy(b, c.f[0].buf, len);
	b[2048] ^= 0x10;
	expect_error(dir, &c, 0, b, len, "bad magic", 2048);

	/* Bad sizes: content beyond the packet, packet size not in bytes, huge, tiny. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + 1024);
	h->content_size = h->packet_size + 8;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_size = 1024 * 8 + 3;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_size = 1ULL << 62;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_size = 16 * 8;
	expect_error(dir, &c, 0, b, len, "bad sizes", 1024);
	/* A larger packet that runs past the end of the file. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + len - 1024);
	h->packet_size = 2048 * 8;
	expect_error(dir, &c, 0, b, len, "truncated packet", len - 1024);

	/* A packet of another stream, of another CPU, out of sequence, time going back. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + 1024);
	h->stream_id = 1;
	expect_error(dir, &c, 0, b, len, "packet of stream 1", 1024);
	memcpy(b, c.f[0].buf, len);
	h->cpu_id = 5;
	expect_error(dir, &c, 0, b, len, "cpu_id 5", 1024);
	memcpy(b, c.f[0].buf, len);
	h->packet_seq_num = 0;
	expect_error(dir, &c, 0, b, len, "packet_seq_num", 1024);
	memcpy(b, c.f[0].buf, len);
	h->events_discarded = 0;
	((struct evt_packet_header *)b)->events_discarded = 5;
	expect_error(dir, &c, 0, b, len, "events_discarded", 1024);
	memcpy(b, c.f[0].buf, len);
	h->timestamp_begin = 1;
	expect_error(dir, &c, 0, b, len, "timestamp_begin", 1024);
	memcpy(b, c.f[0].buf, len);
	h->timestamp_end = h->timestamp_begin - 1;
	expect_error(dir, &c, 0, b, len, "timestamp_end", 1024);
	memcpy(b, c.f[0].buf, len);
	h->uuid[3] ^= 1;
	expect_error(dir, &c, 0, b, len, "uuid", 1024);

	/* An unknown event id, named with its offset. */
	memcpy(b, c.f[0].buf, len);
	b[1024 + EVT_PACKET_HEADER_SIZE] = (uint8_t)((b[1024 + EVT_PACKET_HEADER_SIZE] & ~31) | 29);
	expect_error(dir, &c, 0, b, len, "unknown event id 29", 1024 + EVT_PACKET_HEADER_SIZE);
	/* An event timestamp past the packet's end. */
	memcpy(b, c.f[0].buf, len);
	h = (struct evt_packet_header *)(b + 1024);
	h->timestamp_end = h->timestamp_begin;
	{
		char e2[EVT_TRACE_ERRLEN];

		ck_assert_int_eq(try_corrupt(dir, &c, 0, b, len, EVT_MERGE_LIST, e2, sizeof(e2), NULL), -1);
		ck_assert_ptr_nonnull(strstr(e2, "after the packet's timestamp_end"));
	}
	/*
	 * timestamp_end between two events in the middle of a packet: the
	 * error names the first event after it (the compact fast path checks
	 * a run's last event and goes back to the first late one).
	 */
	{
		struct evt_packet_iter it;
		struct evt_event ev;
		uint64_t ts[2048];
		size_t off[2048], k, cut;
		unsigned int n = 0;

		memcpy(b, c.f[0].buf, len);
		ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, b + 1024, 1024), 0);
		while (n < 2048 && evt_packet_next(&it, &ev) == 1) {
			ts[n] = ev.ts;
			off[n++] = ev.offset;
		}
		ck_assert_uint_gt(n, 8);
		for (cut = n / 2; cut + 1 < n && ts[cut + 1] == ts[cut]; cut++)
			;
		ck_assert_uint_lt(cut + 1, n);
		h = (struct evt_packet_header *)(b + 1024);
		h->timestamp_end = ts[cut];
		for (k = cut + 1; k < n && ts[k] <= ts[cut]; k++)
			;
		expect_error(dir, &c, 0, b, len, "after the packet's timestamp_end", 1024 + off[k]);
	}
	/* A normal event whose header size disagrees with its fields. */
	memcpy(b, c.f[1].buf, c.f[1].len);
	b[EVT_PACKET_HEADER_SIZE + 2] ^= 1;
	expect_error(dir, &c, 1, b, c.f[1].len, "header says", EVT_PACKET_HEADER_SIZE);

	/* Metadata: missing, not CTF. */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/metadata", dir);
		ck_assert_int_eq(unlink(path), 0);
		ck_assert_int_eq(try_corrupt(dir, &c, 99, NULL, 0, EVT_MERGE_TREE, err, sizeof(err), NULL), -1);
		ck_assert_ptr_nonnull(strstr(err, "metadata"));
		spit(dir, "metadata", "garbage", 7);
		ck_assert_int_eq(try_corrupt(dir, &c, 99, NULL, 0, EVT_MERGE_TREE, err, sizeof(err), NULL), -1);
		ck_assert_ptr_nonnull(strstr(err, "CTF 1.8"));
		spit(dir, "metadata", c.meta, c.meta_len);
	}
	free(b);
	free_original(&c);
	unit_rmtree(dir);
}
END_TEST

/* Random byte flips, truncations and bad sizes: an error or a clean read, never a crash. */
START_TEST(corrupt_random_flips_never_crash)
{
	struct tcopy c;
	char dir[64], err[EVT_TRACE_ERRLEN];
	unsigned int round, errors = 0;
	uint8_t *b;

	size_t most = 0;

	rng_state = 0xabcdef + (uint64_t)_i;
	make_original(&c, dir, sizeof(dir));
	/* As big as the biggest of the files (any of them is copied into it). */
	for (round = 0; round < c.n; round++)
		most = c.f[round].len > most ? c.f[round].len : most;
	b = malloc(most);
	for (round = 0; round < 120; round++) {
		unsigned int which = (unsigned int)(rnd() % c.n), flips = 1 + (unsigned int)(rnd() % 6), i;
		size_t len = c.f[which].len, nseq;
		int rc;

		memcpy(b, c.f[which].buf, len);
		for (i = 0; i < flips && len; i++) {
			size_t pos = rnd() % len;

			switch (rnd() % 4) {
			case 0:		/* anywhere */
				b[pos] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			case 1:		/* in a packet header */
				b[(pos & ~(size_t)1023) | (rnd() % EVT_PACKET_HEADER_SIZE)] = (uint8_t)rnd();
				break;
			case 2:		/* an event header's id/timestamp bits */
				b[(pos & ~(size_t)3) | 0] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			default:	/* cut the file */
				len = pos;
				break;
			}
		}
		rc = try_corrupt(dir, &c, which, b, len, round & 1, err, sizeof(err), &nseq);
		if (rc) {
			errors++;
			ck_assert_msg(strstr(err, "offset "), "no offset in \"%s\"", err);
			ck_assert_msg(strstr(err, c.f[which].name), "no file in \"%s\"", err);
		}
		/* On threads, in slices: the same events before the same error. */
		if (round % 3 == 0) {
			struct evt_trace t;
			struct merged m;

			unit_par_merge_dir(&t, dir, round & 1, 3, 900, 0, UINT64_MAX, &m);
			ck_assert_int_eq(m.rc, rc);
			ck_assert_uint_eq(m.n, nseq);
			if (rc)
				ck_assert_str_eq(m.err, err);
			if (t.dir)
				evt_trace_close(&t);
			free(m.ev);
		}
	}
	/* Most corruptions are caught (flipping a payload byte is not an error). */
	ck_assert_uint_gt(errors, 30);
	free(b);
	free_original(&c);
	unit_rmtree(dir);
}
END_TEST

/* An empty directory, a missing one, odd files in it (in the "read" case). */
START_TEST(empty_and_odd_directories)
{
	struct evt_trace t;
	struct merged m;
	char dir[64];

	unit_mktmp(dir, sizeof(dir), "trace");
	/* No such directory. */
	unit_merge_dir(&t, "/nonexistent/evt", EVT_MERGE_TREE, NULL, &m);
	ck_assert_int_eq(m.rc, -1);
	ck_assert_ptr_nonnull(strstr(m.err, "/nonexistent/evt"));
	/* Empty streams: no events, no error. Other files are not streams. */
	{
		struct evt_synth_params p;
		struct evt_synth_result r;

		evt_synth_defaults(&p);
		p.cpus = 1;
		p.events = 0;
		unit_synth(dir, &p, &r);
	}
	spit(dir, "held.bin", "xx", 2);
	spit(dir, "notes", "xx", 2);
	unit_merge_dir(&t, dir, EVT_MERGE_TREE, NULL, &m);
	ck_assert_msg(m.rc == 0, "%s", m.err);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_uint_eq(t.nr_streams, 2);
	evt_trace_close(&t);
	free(m.ev);
	/*
	 * What looks like a stream and is not one is refused, never skipped
	 * (its events were left out without a word: 28,831 of 43,148).
	 */
	{
		static const char *const odd[] = { "compact_01", "normal_99999999", "compact_8192",
						   "compact_1.bak", "normal_" };
		char path[128];
		unsigned int i;

		for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			spit(dir, odd[i], "xx", 2);
			ck_assert_int_eq(evt_trace_open(&t, dir, NULL), -1);
			ck_assert_msg(strstr(t.err, odd[i]) && strstr(t.err, "not a stream file name"),
				      "%s", t.err);
			snprintf(path, sizeof(path), "%s/%s", dir, odd[i]);
			ck_assert_int_eq(unlink(path), 0);
		}
		/* No stream at all: an error that says what the directory holds. */
		for (i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, i ? "normal_0" : "compact_0");
			ck_assert_int_eq(unlink(path), 0);
		}
		ck_assert_int_eq(evt_trace_open(&t, dir, NULL), -1);
		ck_assert_msg(strstr(t.err, "no stream files") && strstr(t.err, "held.bin") &&
			      strstr(t.err, "metadata"), "%s", t.err);
	}
	unit_rmtree(dir);
}
END_TEST

/* The trace suite's "corrupt" case, and its "read" case's odd directories. */
void trace_corrupt_tests(TCase *read, TCase *tc)
{
	tcase_add_test(read, empty_and_odd_directories);
	tcase_add_test(tc, corrupt_traces_give_errors);
	tcase_add_test(tc, late_event_in_a_run);
	tcase_add_loop_test(tc, corrupt_random_flips_never_crash, 0, 2);
}
