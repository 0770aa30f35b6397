// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the portable ring core: switches, headers, accounting, nesting.
 * One file over 900 lines: one subject (the ring core through helpers.c's
 * tring and the teardown below), the "ring" suite's one case.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "unit.h"

#define SB 4096UL

static void teardown(void)
{
	use_real_clock();
}

START_TEST(reserve_commit_switch)
{
	struct tring t;
	struct seen s = { 0 };
	unsigned long pos;
	const struct evt_packet_header *h;
	uint64_t i;

	use_fake_clock(1000, 10);
	tring_init(&t, SB, 4, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	/* Nothing delivered until a sub-buffer is closed. */
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), -EAGAIN);
	ck_assert_int_eq(evt_ring_flush(&t.r), 1);
	ck_assert_int_eq(evt_ring_flush(&t.r), 0);	/* nothing open any more */
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);
	h = evt_ring_packet(&t.r, pos);
	ck_assert_uint_eq(h->magic, EVT_CTF_MAGIC);
	ck_assert_uint_eq(h->packet_seq_num, 0);
	/* 4-byte header + 12-byte payload: 16 bytes per event. */
	ck_assert_uint_eq(h->content_size, (EVT_PACKET_HEADER_SIZE + 100 * 16) * 8);
	ck_assert_uint_eq(h->packet_size, SB * 8);
	ck_assert_uint_eq(h->timestamp_begin, 1010);
	ck_assert_uint_ge(h->timestamp_end, 1000 + 100 * 10);
	decode_packet(h, SB, &s);
	evt_ring_put(&t.r, pos);
	ck_assert_uint_eq(s.n, 100);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(s.seq[i], i);

	/* Many packets, drained as they come: consecutive sequence numbers. */
	for (i = 100; i < 20000; i++) {
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
		if (i % 200 == 0)
			drain_all(&t.r, &s);
	}
	evt_ring_flush(&t.r);
	drain_all(&t.r, &s);
	ck_assert_uint_eq(s.n, 20000);
	ck_assert_uint_eq(s.seq_gaps, 0);
	for (i = 0; i < 20000; i++)
		ck_assert_uint_eq(s.seq[i], i);
	/* Each packet holds (4096 - 88 - 4) / 16 events at most. */
	ck_assert_uint_ge(s.packets, 20000 / ((SB - EVT_PACKET_HEADER_SIZE) / 16));
	seen_free(&s);
	tring_free(&t);
}
END_TEST

START_TEST(simple_and_combined_events)
{
	struct tring t;
	unsigned long pos;
	const struct evt_packet_header *h;
	struct evt_packet_iter it;
	struct evt_event ev;
	int i;

	use_fake_clock(5000, 1);
	tring_init(&t, SB, 2, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(evt_record_copy(&t.r, EVT_ID_GEN_PING, NULL, 0), 0);
	ck_assert_int_eq(rec_compact(&t.r, 1, 7), 0);
	evt_ring_flush(&t.r);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);
	h = evt_ring_packet(&t.r, pos);
	/* Ten one-word (simple) events and one four-word (combined) event. */
	ck_assert_uint_eq(h->content_size / 8, EVT_PACKET_HEADER_SIZE + 10 * 4 + 16);
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, h, SB), 0);
	for (i = 0; i < 10; i++) {
		ck_assert_int_eq(evt_packet_next(&it, &ev), 1);
		ck_assert_str_eq(ev.desc->name, "gen_ping");
		ck_assert_uint_eq(ev.payload_len, 0);
	}
	ck_assert_int_eq(evt_packet_next(&it, &ev), 1);
	ck_assert_str_eq(ev.desc->name, "gen_compact");
	ck_assert_int_eq(evt_packet_next(&it, &ev), 0);
	evt_ring_put(&t.r, pos);
	tring_free(&t);
}
END_TEST

/* The extended header appears exactly when the bits above the field change. */
static void check_wrap(enum evt_channel ch, unsigned int bits, uint64_t start, uint64_t step)
{
	struct tring t;
	struct seen s = { 0 };
	unsigned long pos;
	uint64_t prev_ts = 0, ts_expected[400];
	unsigned int i, ext_seen = 0, ext_expected = 0;

	use_fake_clock(start, step);
	tring_init(&t, 65536, 2, ch, EVT_MODE_DISCARD);
	for (i = 0; i < 400; i++) {
		uint64_t ts_next = fake_now + step;	/* what the reservation will read */

		ts_expected[i] = ts_next;
		if (i > 0 && (ts_next >> bits) != (prev_ts >> bits))
			ext_expected++;
		prev_ts = ts_next;
		if (ch == EVT_CHAN_COMPACT)
			ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
		else
			ck_assert_int_eq(rec_normal(&t.r, 0, i, i % 7), 0);
	}
	ck_assert_uint_gt(ext_expected, 3);
	evt_ring_flush(&t.r);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);
	{
		struct evt_packet_iter it;
		struct evt_event ev;

		ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, evt_ring_packet(&t.r, pos), 65536), 0);
		for (i = 0; evt_packet_next(&it, &ev) == 1; i++) {
			const uint8_t *hdr = (const uint8_t *)evt_ring_packet(&t.r, pos) + ev.offset;
			int ext = ch == EVT_CHAN_COMPACT ? (hdr[0] & 31) == 31 :
				  (hdr[0] | hdr[1] << 8) == 65535;

			ext_seen += ext;
			ck_assert_uint_eq(ev.ts, ts_expected[i]);
		}
		ck_assert_msg(it.err[0] == 0, "%s", it.err);
		ck_assert_uint_eq(i, 400);
	}
	ck_assert_uint_eq(ext_seen, ext_expected);
	decode_packet(evt_ring_packet(&t.r, pos), 65536, &s);
	evt_ring_put(&t.r, pos);
	seen_free(&s);
	tring_free(&t);
}

START_TEST(header_extended_and_wrap_compact)
{
	/* Steps of 2^27/10 ns from just below a boundary: several wraps. */
	check_wrap(EVT_CHAN_COMPACT, 27, (1ULL << 27) - 5, (1ULL << 27) / 10 + 3);
}
END_TEST

START_TEST(header_extended_and_wrap_normal)
{
	check_wrap(EVT_CHAN_NORMAL, 32, (5ULL << 32) - 7, (1ULL << 32) / 20 + 11);
}
END_TEST

/*
 * Compact ids beyond the small header's 5 bits (the syscall entries) take
 * the wide header, 8 bytes with the small one's timestamp, and the
 * extended one exactly when the timestamp's high bits changed; small ids
 * keep their one word. Also a packet's first event: wide, not extended.
 */
START_TEST(header_wide_compact)
{
	const uint32_t unknown = EVT_ID_SYS_UNKNOWN;
	uint8_t args[4 + 6 * 8] = { 0 };
	struct tring t;
	unsigned long pos;
	uint64_t prev_ts = 0, ts_expected[300];
	unsigned int i, kinds[3] = { 0 }, want[3] = { 0 };
	struct evt_packet_iter it;
	struct evt_event ev;

	ck_assert_uint_ge(EVT_ID_SYS_UNKNOWN, EVT_COMPACT_ID_WIDE);
	use_fake_clock((1ULL << 27) - 5, (1ULL << 27) / 10 + 3);
	tring_init(&t, 65536, 2, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	for (i = 0; i < 300; i++) {
		uint64_t ts_next = fake_now + fake_step;
		int ext = i > 0 && (ts_next >> 27) != (prev_ts >> 27);

		ts_expected[i] = ts_next;
		prev_ts = ts_next;
		if (i % 3 == 0) {
			want[0]++;
			ck_assert_int_eq(evt_record_copy(&t.r, EVT_ID_GEN_PING, NULL, 0), 0);
			if (ext)
				want[0]--, want[2]++;
		} else {
			want[ext ? 2 : 1]++;
			memcpy(args, &i, 4);
			ck_assert_int_eq(evt_record_copy(&t.r, unknown, args, sizeof(args)), 0);
		}
	}
	ck_assert_uint_gt(want[2], 3);
	evt_ring_flush(&t.r);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, evt_ring_packet(&t.r, pos), 65536), 0);
	for (i = 0; evt_packet_next(&it, &ev) == 1; i++) {
		const uint8_t *hdr = (const uint8_t *)evt_ring_packet(&t.r, pos) + ev.offset;
		uint32_t id = hdr[0] & 31, wide_id;

		ck_assert_uint_eq(ev.ts, ts_expected[i]);
		if (i % 3 == 0) {
			ck_assert_str_eq(ev.desc->name, "gen_ping");
			ck_assert(id == EVT_ID_GEN_PING || id == EVT_COMPACT_ID_EXT);
			kinds[id == EVT_COMPACT_ID_EXT ? 2 : 0]++;
			continue;
		}
		ck_assert_str_eq(ev.desc->name, "sys_unknown");
		ck_assert_uint_eq(ev.payload_len, sizeof(args));
		ck_assert_int_eq(memcmp(ev.payload, &i, 4), 0);
		memcpy(&wide_id, hdr + 4, 4);
		ck_assert_uint_eq(wide_id, unknown);
		ck_assert(id == EVT_COMPACT_ID_WIDE || id == EVT_COMPACT_ID_EXT);
		/* The header's bytes: 8 for wide, 16 for extended. */
		ck_assert_uint_eq((const uint8_t *)ev.payload - hdr,
				  id == EVT_COMPACT_ID_WIDE ? EVT_COMPACT_WIDE_HDR : EVT_COMPACT_EXT_HDR);
		kinds[id == EVT_COMPACT_ID_WIDE ? 1 : 2]++;
		if (i == 1)	/* the second event: within 2^27 ns of the first */
			ck_assert_uint_eq(id, EVT_COMPACT_ID_WIDE);
	}
	ck_assert_msg(it.err[0] == 0, "%s", it.err);
	ck_assert_uint_eq(i, 300);
	ck_assert_uint_eq(kinds[0], want[0]);
	ck_assert_uint_eq(kinds[1], want[1]);
	ck_assert_uint_eq(kinds[2], want[2]);
	evt_ring_put(&t.r, pos);
	tring_free(&t);

	/* A packet's first event: its reference is timestamp_begin, so wide. */
	use_fake_clock(3ULL << 40, 1ULL << 30);
	tring_init(&t, SB, 2, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	ck_assert_int_eq(evt_record_copy(&t.r, unknown, args, sizeof(args)), 0);
	ck_assert_int_eq(evt_record_copy(&t.r, unknown, args, sizeof(args)), 0);
	evt_ring_flush(&t.r);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);
	{
		const uint8_t *p = (const uint8_t *)evt_ring_packet(&t.r, pos) + EVT_PACKET_HEADER_SIZE;

		ck_assert_uint_eq(p[0] & 31, EVT_COMPACT_ID_WIDE);
		ck_assert_uint_eq(p[EVT_COMPACT_WIDE_HDR + sizeof(args)] & 31, EVT_COMPACT_ID_EXT);
	}
	evt_ring_put(&t.r, pos);
	tring_free(&t);
}
END_TEST

START_TEST(header_first_event_relative_to_packet_begin)
{
	/* A packet's first event is compact: timestamp_begin is its reference. */
	struct tring t;
	unsigned long pos;
	const uint8_t *p;

	use_fake_clock(3ULL << 40, 1ULL << 30);	/* every read changes the high bits */
	tring_init(&t, SB, 2, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	ck_assert_int_eq(rec_compact(&t.r, 0, 0), 0);
	ck_assert_int_eq(rec_compact(&t.r, 0, 1), 0);
	evt_ring_flush(&t.r);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);
	p = (const uint8_t *)evt_ring_packet(&t.r, pos) + EVT_PACKET_HEADER_SIZE;
	ck_assert_uint_ne(p[0] & 31, 31);		/* compact */
	ck_assert_uint_eq(p[16] & 31, 31);		/* extended */
	evt_ring_put(&t.r, pos);
	tring_free(&t);
}
END_TEST

START_TEST(discard_accounting)
{
	struct tring t;
	struct seen s = { 0 };
	struct evt_ring_stats st;
	uint64_t i, ok = 0, dropped = 0;

	use_fake_clock(1, 3);
	tring_init(&t, SB, 4, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	for (i = 0; i < 10000; i++) {
		int rc = rec_compact(&t.r, 0, i);

		ck_assert(rc == 0 || rc == -ENOBUFS);
		if (rc)
			dropped++;
		else
			ok++;
	}
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_eq(st.recorded, ok);
	ck_assert_uint_eq(st.discarded, dropped);
	ck_assert_uint_eq(st.recorded + st.discarded, 10000);
	ck_assert_uint_ge(st.fill_pct, 99);
	ck_assert_uint_eq(t.notified, 1);	/* high water crossed once */
	ck_assert_uint_eq(t.discarding, 1);	/* the first loss, once */
	evt_ring_flush(&t.r);
	/* A loss after the last closed packet, and no room to open another. */
	ck_assert_int_eq(rec_compact(&t.r, 0, 1), -ENOBUFS);
	ck_assert_int_eq(evt_ring_flush(&t.r), 0);
	drain_all(&t.r, &s);
	/* Everything recorded is read back, the first events, in order. */
	ck_assert_uint_eq(s.n, ok);
	for (i = 0; i < s.n; i++)
		ck_assert_uint_eq(s.seq[i], i);
	ck_assert_uint_eq(s.packets, 4);
	ck_assert_uint_eq(s.seq_gaps, 0);
	ck_assert_uint_eq(s.last_discarded, dropped);
	/*
	 * Losses after the last closed packet: once there is room, a flush
	 * carries them in a packet (an empty one here).
	 */
	ck_assert_int_eq(evt_ring_flush(&t.r), 1);
	drain_all(&t.r, &s);
	ck_assert_uint_eq(s.last_discarded, dropped + 1);
	ck_assert_uint_eq(s.n, ok);
	/* Once read, there is room again; a new loss is reported again. */
	ck_assert_int_eq(rec_compact(&t.r, 0, 99999), 0);
	while (rec_compact(&t.r, 0, 99999) == 0)
		;
	ck_assert_uint_eq(t.discarding, 2);
	seen_free(&s);
	tring_free(&t);
}
END_TEST

START_TEST(overwrite_accounting)
{
	struct tring t;
	struct seen s = { 0 };
	struct evt_ring_stats st;
	uint64_t i;

	use_fake_clock(1, 3);
	tring_init(&t, SB, 4, EVT_CHAN_COMPACT, EVT_MODE_OVERWRITE);
	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_eq(st.recorded, 10000);
	ck_assert_uint_eq(st.discarded, 0);
	ck_assert_uint_gt(st.overwritten, 0);
	evt_ring_flush(&t.r);
	drain_all(&t.r, &s);
	/* Flight recorder: the newest events survive, contiguous, to the last one. */
	ck_assert_uint_eq(s.n + st.overwritten, 10000);
	ck_assert_uint_eq(s.seq[s.n - 1], 9999);
	for (i = 1; i < s.n; i++)
		ck_assert_uint_eq(s.seq[i], s.seq[i - 1] + 1);
	ck_assert_uint_le(s.packets, 4);
	seen_free(&s);
	tring_free(&t);
}
END_TEST

START_TEST(overwrite_skips_held_subbuf)
{
	struct tring t;
	struct seen s = { 0 };
	struct evt_ring_stats st;
	unsigned long pos;
	char copy[SB];
	uint64_t i;

	use_fake_clock(1, 3);
	tring_init(&t, SB, 4, EVT_CHAN_COMPACT, EVT_MODE_OVERWRITE);
	for (i = 0; i < 600; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);	/* the reader holds packet 0 */
	memcpy(copy, evt_ring_packet(&t.r, pos), SB);
	for (; i < 20000; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	/* The held sub-buffer is intact after several laps. */
	ck_assert_int_eq(memcmp(copy, evt_ring_packet(&t.r, pos), SB), 0);
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_gt(st.skipped, 0);
	decode_packet(evt_ring_packet(&t.r, pos), SB, &s);
	evt_ring_put(&t.r, pos);
	ck_assert_uint_eq(s.seq[0], 0);
	evt_ring_flush(&t.r);
	drain_all(&t.r, &s);
	/* Lost packets show as sequence gaps; what is read is in order. */
	ck_assert_uint_gt(s.seq_gaps, 0);
	for (i = 1; i < s.n; i++)
		ck_assert_uint_gt(s.seq[i], s.seq[i - 1]);
	ck_assert_uint_eq(s.seq[s.n - 1], 19999);
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_eq(s.n + st.overwritten, 20000);
	seen_free(&s);
	tring_free(&t);
}
END_TEST

/*
 * A snapshot's read (evt_ring_get_below()): the bound is the write offset a
 * flush left; a reader stops there (-ENODATA) while the writer goes on
 * lapping the ring between its reads, takes only packets below it, and the
 * next snapshot starts where it ended: no event twice, and read +
 * overwritten = recorded.
 */
START_TEST(snapshot_reads_below_bound)
{
	struct tring t;
	struct seen s = { 0 };
	struct evt_ring_stats st;
	unsigned long pos, bound, limit;
	uint64_t i = 0, taken, snap;
	const struct evt_packet_header *h;
	int rc;

	use_fake_clock(1, 3);
	tring_init(&t, SB, 4, EVT_CHAN_COMPACT, EVT_MODE_OVERWRITE);
	for (snap = 0; snap < 5; snap++) {
		for (; i < (snap + 1) * 3000; i++)
			ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
		evt_ring_flush(&t.r);
		bound = (unsigned long)evt_local_read(&t.r.offset) >> t.r.sb_shift;
		limit = bound << t.r.sb_shift;
		taken = 0;
		for (;;) {
			rc = evt_ring_get_below(&t.r, &pos, limit);
			if (rc == -ENODATA)
				break;
			ck_assert_int_eq(rc, 0);
			h = evt_ring_packet(&t.r, pos);
			ck_assert_uint_lt(h->packet_seq_num, bound);
			decode_packet(h, SB, &s);
			evt_ring_put(&t.r, pos);
			ck_assert_uint_le(++taken, 4);
			/* The writer goes on: a sub-buffer and a half per packet read. */
			for (uint64_t k = 0; k < 380; k++, i++)
				ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
		}
		/* At the bound however much was written since. */
		ck_assert_int_eq(evt_ring_get_below(&t.r, &pos, limit), -ENODATA);
		ck_assert_int_eq(evt_ring_get_below(&t.r, &pos, 0), -ENODATA);
	}
	evt_ring_flush(&t.r);
	drain_all(&t.r, &s);
	/* No event twice: read in increasing order across every snapshot. */
	for (i = 1; i < s.n; i++)
		ck_assert_uint_gt(s.seq[i], s.seq[i - 1]);
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_gt(st.overwritten, 0);
	ck_assert_uint_eq(s.n + st.overwritten, st.recorded);
	seen_free(&s);
	tring_free(&t);
}
END_TEST

/*
 * With a hold at the bound, the writer going on at the same pace discards
 * instead of taking the laps the snapshot will read: the snapshot gets every
 * packet below its bound (the whole ring), the rest is counted discarded,
 * and generated = recorded + discarded, read + overwritten = recorded.
 */
START_TEST(snapshot_hold_keeps_the_ring)
{
	struct tring t;
	struct seen s = { 0 };
	struct evt_ring_stats st;
	unsigned long pos, bound, limit, first;
	uint64_t i = 0, taken, snap, refused = 0;
	const struct evt_packet_header *h;
	int rc;

	use_fake_clock(1, 3);
	tring_init(&t, SB, 4, EVT_CHAN_COMPACT, EVT_MODE_OVERWRITE);
	for (snap = 0; snap < 5; snap++) {
		for (; i < (snap + 1) * 3000; i++)
			if (rec_compact(&t.r, 0, i))
				refused++;
		evt_ring_flush(&t.r);
		bound = (unsigned long)evt_local_read(&t.r.offset) >> t.r.sb_shift;
		limit = bound << t.r.sb_shift;
		evt_ring_hold(&t.r, EVT_HOLD_SNAPSHOT, limit);
		taken = 0;
		first = ~0UL;
		for (;;) {
			rc = evt_ring_get_below(&t.r, &pos, limit);
			if (rc == -ENODATA)
				break;
			ck_assert_int_eq(rc, 0);
			h = evt_ring_packet(&t.r, pos);
			ck_assert_uint_lt(h->packet_seq_num, bound);
			if (first == ~0UL)
				first = h->packet_seq_num;
			decode_packet(h, SB, &s);
			evt_ring_put(&t.r, pos);
			taken++;
			for (uint64_t k = 0; k < 380; k++, i++)
				if (rec_compact(&t.r, 0, i))
					refused++;
		}
		ck_assert_int_eq(evt_ring_hold_reached(&t.r, EVT_HOLD_SNAPSHOT, limit), 1);
		/* Every packet from the first one read to the bound: the whole ring. */
		ck_assert_uint_eq(taken, bound - first);
		ck_assert_uint_ge(taken, 3);
	}
	evt_ring_flush(&t.r);
	drain_all(&t.r, &s);
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_eq(st.recorded + st.discarded, i);
	for (i = 1; i < s.n; i++)
		ck_assert_uint_gt(s.seq[i], s.seq[i - 1]);
	ck_assert_uint_gt(st.discarded, 0);
	ck_assert_uint_eq(st.discarded, refused);
	ck_assert_uint_eq(s.n + st.overwritten, st.recorded);
	seen_free(&s);
	tring_free(&t);
}
END_TEST

START_TEST(too_big_refused_and_counted)
{
	struct tring t;
	struct evt_ring_stats st;
	static char big[70000];

	tring_init(&t, SB, 2, EVT_CHAN_NORMAL, EVT_MODE_DISCARD);
	ck_assert_int_eq(evt_record_copy(&t.r, EVT_ID_GEN_NORMAL, big, SB), -E2BIG);
	ck_assert_int_eq(evt_record_copy(&t.r, EVT_ID_GEN_NORMAL, big, t.r.max_payload + 1), -E2BIG);
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_eq(st.too_big, 2);
	ck_assert_uint_eq(st.recorded, 0);
	tring_free(&t);
	/* The normal header's size field bounds payloads at 64 KiB - 1. */
	tring_init(&t, 1UL << 20, 2, EVT_CHAN_NORMAL, EVT_MODE_DISCARD);
	ck_assert_int_eq(evt_record_copy(&t.r, EVT_ID_GEN_NORMAL, big, 65536), -E2BIG);
	tring_free(&t);
}
END_TEST

/*
 * Nesting: a signal handler records into the same ring in the middle of a
 * record, as an interrupt would: between the clock read and the cmpxchg
 * (through the clock hook), and between reserve and commit.
 */
static struct tring nest_ring;
static volatile int nest_armed;
static uint64_t nest_seq;
static uint64_t nest_calls;

static void nest_handler(int sig)
{
	(void)sig;
	ck_assert_int_eq(rec_normal(&nest_ring.r, 1, nest_seq++, 5), 0);
}

static uint64_t nesting_clock(void)
{
	fake_now += 5;
	if (nest_armed && ++nest_calls % 3 == 0) {
		nest_armed = 0;		/* the handler's own records do not nest again */
		raise(SIGUSR1);
		nest_armed = 1;
	}
	return fake_now;
}

START_TEST(nesting_by_signal_handler)
{
	struct seen s = { 0 };
	struct sigaction sa = { .sa_handler = nest_handler };
	uint64_t i, outer = 0, inner = 0;

	use_fake_clock(100, 5);
	evt_clock_fn = nesting_clock;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	tring_init(&nest_ring, SB, 8, EVT_CHAN_NORMAL, EVT_MODE_DISCARD);
	nest_seq = 0;
	nest_calls = 0;
	for (i = 0; i < 3000; i++) {
		struct evt_rctx c;
		uint8_t pl[14 + 16];
		uint16_t len = 16;
		char *p;
		uint32_t cpu = 0;

		int rc;

		nest_armed = 1;
		rc = evt_reserve(&nest_ring.r, EVT_ID_GEN_NORMAL, sizeof(pl), &c);
		nest_armed = 0;
		if (rc) {
			struct evt_ring_stats st;

			evt_ring_stats(&nest_ring.r, &st);
			ck_abort_msg("reserve %d at %llu: recorded %llu discarded %llu fill %u produced %llu consumed %llu",
				     rc, (unsigned long long)i, (unsigned long long)st.recorded,
				     (unsigned long long)st.discarded, st.fill_pct,
				     (unsigned long long)st.produced, (unsigned long long)st.consumed);
		}
		memcpy(pl, &cpu, 4);
		memcpy(pl + 4, &i, 8);
		memcpy(pl + 12, &len, 2);
		memset(pl + 14, (int)(i & 0xff), 16);
		p = evt_write_header(&nest_ring.r, &c, EVT_ID_GEN_NORMAL, sizeof(pl));
		memcpy(p, pl, 7);
		if (i % 5 == 0)
			raise(SIGUSR1);	/* between reserve and commit, mid-payload */
		memcpy(p + 7, pl + 7, sizeof(pl) - 7);
		evt_commit(&nest_ring.r, &c);
		if (i % 50 == 0)
			drain_all(&nest_ring.r, &s);
	}
	evt_ring_flush(&nest_ring.r);
	drain_all(&nest_ring.r, &s);
	signal(SIGUSR1, SIG_DFL);
	ck_assert_uint_gt(nest_seq, 1000);
	/* Every event of both levels, each level in order; timestamps monotonic. */
	for (i = 0; i < s.n; i++) {
		if (s.cpu[i] == 0)
			ck_assert_uint_eq(s.seq[i], outer++);
		else
			ck_assert_uint_eq(s.seq[i], inner++);
		if (i)
			ck_assert_uint_ge(s.ts[i], s.ts[i - 1]);
	}
	ck_assert_uint_eq(outer, 3000);
	ck_assert_uint_eq(inner, nest_seq);
	seen_free(&s);
	tring_free(&nest_ring);
}
END_TEST

/* A writer thread and a reader thread: real concurrency between CPUs. */
struct stress {
	struct tring t;
	volatile int done;
	uint64_t total;
	uint8_t *recorded;	/* per seq: did the writer get it in */
	struct seen s;
};

static void *stress_reader(void *arg)
{
	struct stress *x = arg;

	while (!__atomic_load_n(&x->done, __ATOMIC_ACQUIRE))
		drain_all(&x->t.r, &x->s);
	return NULL;
}

static void run_stress(enum evt_mode mode)
{
	struct stress x = { .total = 400000 };
	pthread_t th;
	uint64_t i, ok = 0;
	struct evt_ring_stats st;

	use_real_clock();
	tring_init(&x.t, SB, 8, EVT_CHAN_COMPACT, mode);
	x.recorded = calloc(x.total, 1);
	ck_assert_int_eq(pthread_create(&th, NULL, stress_reader, &x), 0);
	for (i = 0; i < x.total; i++) {
		if (rec_compact(&x.t.r, 0, i) == 0) {
			x.recorded[i] = 1;
			ok++;
		}
	}
	evt_ring_flush(&x.t.r);
	__atomic_store_n(&x.done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	drain_all(&x.t.r, &x.s);
	evt_ring_stats(&x.t.r, &st);
	ck_assert_uint_eq(st.recorded, ok);
	ck_assert_uint_eq(st.recorded + st.discarded, x.total);
	for (i = 1; i < x.s.n; i++)
		ck_assert_uint_gt(x.s.seq[i], x.s.seq[i - 1]);
	if (mode == EVT_MODE_DISCARD) {
		/* Every recorded event read exactly once. */
		uint64_t j = 0;

		ck_assert_uint_eq(x.s.n, ok);
		for (i = 0; i < x.total; i++)
			if (x.recorded[i])
				ck_assert_uint_eq(x.s.seq[j++], i);
	} else {
		ck_assert_uint_eq(x.s.n + st.overwritten, ok);
	}
	free(x.recorded);
	seen_free(&x.s);
	tring_free(&x.t);
}

START_TEST(stress_discard_two_threads)
{
	run_stress(EVT_MODE_DISCARD);
}
END_TEST

START_TEST(stress_overwrite_two_threads)
{
	run_stress(EVT_MODE_OVERWRITE);
}
END_TEST

/*
 * The drainer's case: a reader that holds sub-buffers for a while (and
 * compares each packet at release with its copy at take), and a writer
 * interrupted at random by the flush (the flush timer's IPI). Every event is
 * read once or counted overwritten (or discarded), never both, and no
 * sub-buffer changes while held. Found with the soak: a writer took its
 * decision on the reader's held sub-buffer from a stale copy of it, and a
 * writer interrupted between taking a lap and opening the next one came back
 * to the held slot and wrote into it.
 */
static struct evt_ring *held_ring;
static pthread_t held_writer;
static int held_stop, held_flushed;
static int held_hold_us, held_signal_us;

static void held_flush_handler(int sig)
{
	(void)sig;
	evt_ring_flush(held_ring);
}

static void spin_us(unsigned int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < (long)us * 1000);
}

struct held_reader {
	struct seen s;
	uint64_t changed;
};

static void *held_reader_run(void *arg)
{
	struct held_reader *hr = arg;
	uint64_t rnd = 88172645463325252ULL;
	unsigned long pos, size = held_ring->subbuf_size;
	char *taken = malloc(size);

	ck_assert_ptr_nonnull(taken);
	for (;;) {
		int last = __atomic_load_n(&held_flushed, __ATOMIC_ACQUIRE);

		if (evt_ring_get(held_ring, &pos)) {
			if (last)
				break;
			continue;
		}
		memcpy(taken, evt_ring_packet(held_ring, pos), size);
		if (!last && unit_rnd(&rnd) % 4 == 0)
			spin_us((unsigned int)(unit_rnd(&rnd) % held_hold_us));
		if (memcmp(taken, evt_ring_packet(held_ring, pos), size))
			hr->changed++;
		decode_packet(taken, size, &hr->s);
		evt_ring_put(held_ring, pos);
	}
	free(taken);
	return NULL;
}

static void *held_signaler(void *arg)
{
	uint64_t rnd = 1234567;

	(void)arg;
	while (!__atomic_load_n(&held_stop, __ATOMIC_ACQUIRE)) {
		spin_us((unsigned int)(unit_rnd(&rnd) % held_signal_us));
		pthread_kill(held_writer, SIGUSR1);
	}
	return NULL;
}

static void run_held_reader(enum evt_mode mode, unsigned long nsb, int hold_us, int signal_us)
{
	const uint64_t total = 200000;
	struct sigaction sa = { .sa_handler = held_flush_handler };
	struct held_reader hr = { 0 };
	struct evt_ring_stats st;
	pthread_t reader, signaler;
	struct tring t;
	uint64_t i, ok = 0, j;

	use_real_clock();
	tring_init(&t, SB, nsb, EVT_CHAN_COMPACT, mode);
	held_ring = &t.r;
	held_writer = pthread_self();
	held_stop = held_flushed = 0;
	held_hold_us = hold_us;
	held_signal_us = signal_us;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(pthread_create(&reader, NULL, held_reader_run, &hr), 0);
	ck_assert_int_eq(pthread_create(&signaler, NULL, held_signaler, NULL), 0);
	for (i = 0; i < total; i++)
		if (rec_compact(&t.r, 0, i) == 0)
			ok++;
	__atomic_store_n(&held_stop, 1, __ATOMIC_RELEASE);
	pthread_join(signaler, NULL);
	signal(SIGUSR1, SIG_IGN);
	evt_ring_flush(&t.r);
	__atomic_store_n(&held_flushed, 1, __ATOMIC_RELEASE);
	pthread_join(reader, NULL);
	signal(SIGUSR1, SIG_DFL);
	evt_ring_stats(&t.r, &st);
	ck_assert_uint_eq(hr.changed, 0);
	ck_assert_uint_eq(st.recorded, ok);
	ck_assert_uint_eq(st.recorded + st.discarded, total);
	ck_assert_uint_eq(hr.s.n + st.overwritten, st.recorded);
	for (j = 1; j < hr.s.n; j++)
		ck_assert_uint_gt(hr.s.seq[j], hr.s.seq[j - 1]);
	if (mode == EVT_MODE_DISCARD)
		ck_assert_uint_eq(st.overwritten, 0);
	seen_free(&hr.s);
	tring_free(&t);
}

/* Short holds and frequent interrupts: the windows the soak hit, many times. */
START_TEST(held_reader_interrupted_writer_overwrite)
{
	int round;

	for (round = 0; round < 8; round++) {
		run_held_reader(EVT_MODE_OVERWRITE, 8, 2, 5);
		run_held_reader(EVT_MODE_OVERWRITE, 4, 1, 3);
		run_held_reader(EVT_MODE_OVERWRITE, 16, 20, 10);
	}
}
END_TEST

START_TEST(held_reader_interrupted_writer_discard)
{
	int round;

	for (round = 0; round < 4; round++) {
		run_held_reader(EVT_MODE_DISCARD, 8, 2, 5);
		run_held_reader(EVT_MODE_DISCARD, 4, 1, 3);
	}
}
END_TEST

/*
 * No stale byte reaches a reader: the ring's memory holds a pattern before
 * evt_ring_init() (tring_init() fills it with 0xa5), events with every
 * payload size modulo 4 leave alignment padding, flushes leave partial
 * packets, laps overwrite older ones. In every delivered packet the bytes
 * outside the header and the event records are zero (decode_packet()
 * checks that), and the pattern shows nowhere: the payloads written here
 * never hold an 0xa5 byte.
 */
static void check_no_stale_bytes(unsigned long sb_size, unsigned long nsb, enum evt_mode mode)
{
	static const uint8_t pattern[4] = { 0xa5, 0xa5, 0xa5, 0xa5 };
	struct tring t;
	struct seen s = { 0 };
	struct evt_ring_stats st;
	uint64_t seq = 0, rnd = 0x9e3779b97f4a7c15ULL, ok = 0, packets = 0;
	unsigned long pos;
	unsigned int i;

	use_fake_clock(1, 3);
	tring_init(&t, sb_size, nsb, EVT_CHAN_NORMAL, mode);
	for (i = 0; i < 6000; i++) {
		unsigned int fill = (unsigned int)(unit_rnd(&rnd) % 14);

		if ((seq & 0xff) == 0xa5)	/* the fill bytes are seq's low byte */
			seq++;
		if (rec_normal(&t.r, 0, seq++, fill) == 0)
			ok++;
		if (unit_rnd(&rnd) % 40 == 0)
			evt_ring_flush(&t.r);	/* a partial packet */
		/* Overwrite mode: the reader is slow, laps are taken from it. */
		if (unit_rnd(&rnd) % (mode == EVT_MODE_OVERWRITE ? 400 : 60) == 0) {
			while (evt_ring_get(&t.r, &pos) == 0) {
				const uint8_t *p = (const uint8_t *)evt_ring_packet(&t.r, pos);

				decode_packet(p, sb_size, &s);
				ck_assert_ptr_null(memmem(p, sb_size, pattern, sizeof(pattern)));
				evt_ring_put(&t.r, pos);
				packets++;
			}
		}
	}
	ck_assert_uint_lt(seq, 0xa500);		/* nor is there one in seq's other bytes */
	evt_ring_flush(&t.r);
	while (evt_ring_get(&t.r, &pos) == 0) {
		const uint8_t *p = (const uint8_t *)evt_ring_packet(&t.r, pos);

		decode_packet(p, sb_size, &s);
		ck_assert_ptr_null(memmem(p, sb_size, pattern, sizeof(pattern)));
		evt_ring_put(&t.r, pos);
		packets++;
	}
	evt_ring_stats(&t.r, &st);
	/* Several laps of every sub-buffer went by. */
	ck_assert_uint_ge(st.produced, 4 * nsb);
	ck_assert_uint_eq(st.recorded, ok);
	if (mode == EVT_MODE_DISCARD)
		ck_assert_uint_eq(s.n, ok);
	seen_free(&s);
	tring_free(&t);
}

START_TEST(delivered_packets_hold_no_stale_bytes)
{
	check_no_stale_bytes(1024, 4, EVT_MODE_DISCARD);
	check_no_stale_bytes(1024, 4, EVT_MODE_OVERWRITE);
	check_no_stale_bytes(4096, 2, EVT_MODE_DISCARD);
	check_no_stale_bytes(4096, 2, EVT_MODE_OVERWRITE);
}
END_TEST

/*
 * A clock that steps back (ktime_get_mono_fast_ns() for an NMI that hits a
 * timekeeping update): every seventh read is 5 us ahead of the ones after
 * it, with the bits above the compact field unchanged. The core clamps to
 * the ring's last timestamp, so events, packets and flushes stay in order;
 * without it an event decodes 2^27 ns late, after its packet's end.
 */
static uint64_t back_reads, back_steps;

static uint64_t stepping_clock(void)
{
	fake_now += 1000;
	if (++back_reads % 7 == 0) {
		back_steps++;
		return fake_now + 5000;
	}
	return fake_now;
}

static void check_clock_steps_back(enum evt_channel ch)
{
	struct tring t;
	struct seen s = { 0 };
	uint64_t i, ok = 0;

	use_fake_clock(1ULL << 40, 0);
	evt_clock_fn = stepping_clock;
	back_reads = back_steps = 0;
	tring_init(&t, 4096, 4, ch, EVT_MODE_DISCARD);
	for (i = 0; i < 20000; i++) {
		if ((ch == EVT_CHAN_COMPACT ? rec_compact(&t.r, 0, i) : rec_normal(&t.r, 0, i, i % 5)) == 0)
			ok++;
		if (i % 97 == 0)
			evt_ring_flush(&t.r);
		if (i % 50 == 0)
			drain_all(&t.r, &s);
	}
	evt_ring_flush(&t.r);
	drain_all(&t.r, &s);
	ck_assert_uint_gt(back_steps, 1000);
	ck_assert_uint_eq(s.n, ok);
	ck_assert_uint_eq(ok, 20000);
	for (i = 1; i < s.n; i++) {
		ck_assert_uint_eq(s.seq[i], s.seq[i - 1] + 1);
		ck_assert_uint_ge(s.ts[i], s.ts[i - 1]);
	}
	/* Clamped, not invented: never beyond the furthest reading. */
	ck_assert_uint_le(s.ts[s.n - 1], fake_now + 5000);
	seen_free(&s);
	tring_free(&t);
}

START_TEST(clock_steps_back_clamped)
{
	check_clock_steps_back(EVT_CHAN_COMPACT);
	check_clock_steps_back(EVT_CHAN_NORMAL);
}
END_TEST

START_TEST(params_checked)
{
	struct evt_ring_params p = {
		.subbuf_size = 4096, .num_subbuf = 32, .channel = EVT_CHAN_COMPACT,
		.high_water = 70,
	};

	ck_assert_int_eq(evt_ring_check_params(&p), 0);
	p.subbuf_size = 5000;
	ck_assert_int_eq(evt_ring_check_params(&p), -EINVAL);
	p.subbuf_size = 4096;
	p.num_subbuf = 1;
	ck_assert_int_eq(evt_ring_check_params(&p), -EINVAL);
	p.num_subbuf = 3;
	ck_assert_int_eq(evt_ring_check_params(&p), -EINVAL);
	p.num_subbuf = 2;
	p.high_water = 0;
	ck_assert_int_eq(evt_ring_check_params(&p), -EINVAL);
	p.high_water = 101;
	ck_assert_int_eq(evt_ring_check_params(&p), -EINVAL);
}
END_TEST

START_TEST(high_water_notifies_once_until_below_the_mark)
{
	struct tring t;
	struct seen s = { 0 };
	uint64_t i;

	use_fake_clock(1, 1);
	tring_init(&t, SB, 16, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	/* 70% of 16 sub-buffers: the notification comes with the 12th (11.2 rounded up). */
	for (i = 0; evt_ring_fill_pct(&t.r) < 60; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	ck_assert_uint_eq(t.notified, 0);
	for (; evt_ring_fill_pct(&t.r) < 90; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	ck_assert_uint_eq(t.notified, 1);
	/*
	 * A reader that releases sub-buffers but stays above the mark is not
	 * told again while the writer keeps switching: it was told already.
	 */
	take_one(&t.r, &s);
	take_one(&t.r, &s);
	ck_assert_uint_ge(evt_ring_fill_pct(&t.r), 70);
	for (; evt_ring_fill_pct(&t.r) < 90; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	ck_assert_uint_eq(t.notified, 1);
	/* Below the mark the next crossing is news again. */
	drain_all(&t.r, &s);
	for (; evt_ring_fill_pct(&t.r) < 90; i++)
		ck_assert_int_eq(rec_compact(&t.r, 0, i), 0);
	ck_assert_uint_eq(t.notified, 2);
	seen_free(&s);
	tring_free(&t);
}
END_TEST

START_TEST(high_water_below_one_subbuf_rearms_after_drain)
{
	struct tring t;
	struct seen s = { 0 };
	uint64_t i = 0;
	unsigned int round;

	use_fake_clock(1, 1);
	tring_init(&t, SB, 16, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	/* 1 % of 16 sub-buffers is less than one: every closed one crosses it. */
	evt_ring_set_high_water(&t.r, 1);
	for (round = 1; round <= 3; round++) {
		/* Two sub-buffers closed, the open one partly full. */
		while ((uint64_t)evt_local_read(&t.r.produced) < 2 * round)
			ck_assert_int_eq(rec_compact(&t.r, 0, i++), 0);
		while (((unsigned long)evt_local_read(&t.r.offset) & t.r.sb_mask) < SB / 2)
			ck_assert_int_eq(rec_compact(&t.r, 0, i++), 0);
		ck_assert_uint_eq(t.notified, round);
		/* Drained with the open sub-buffer holding events: re-armed all the same. */
		drain_all(&t.r, &s);
	}
	seen_free(&s);
	tring_free(&t);
}
END_TEST

START_TEST(discarding_notified_once_while_catching_up)
{
	struct tring t;
	struct seen s = { 0 };
	uint64_t i;

	use_fake_clock(1, 1);
	tring_init(&t, SB, 16, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	for (i = 0; rec_compact(&t.r, 0, i) == 0; i++)
		;
	ck_assert_uint_eq(t.discarding, 1);
	/* Catching up one sub-buffer at a time, above the mark: no new DISCARDING. */
	take_one(&t.r, &s);
	while (rec_compact(&t.r, 0, i) == 0)
		i++;
	take_one(&t.r, &s);
	while (rec_compact(&t.r, 0, i) == 0)
		i++;
	ck_assert_uint_eq(t.discarding, 1);
	/* Drained below the mark: the next loss starts a new episode. */
	drain_all(&t.r, &s);
	while (rec_compact(&t.r, 0, i) == 0)
		i++;
	ck_assert_uint_eq(t.discarding, 2);
	seen_free(&s);
	tring_free(&t);
}
END_TEST

Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, params_checked);
	tcase_add_test(tc, reserve_commit_switch);
	tcase_add_test(tc, simple_and_combined_events);
	tcase_add_test(tc, header_extended_and_wrap_compact);
	tcase_add_test(tc, header_extended_and_wrap_normal);
	tcase_add_test(tc, header_wide_compact);
	tcase_add_test(tc, header_first_event_relative_to_packet_begin);
	tcase_add_test(tc, discard_accounting);
	tcase_add_test(tc, overwrite_accounting);
	tcase_add_test(tc, snapshot_reads_below_bound);
	tcase_add_test(tc, snapshot_hold_keeps_the_ring);
	tcase_add_test(tc, overwrite_skips_held_subbuf);
	tcase_add_test(tc, too_big_refused_and_counted);
	tcase_add_test(tc, delivered_packets_hold_no_stale_bytes);
	tcase_add_test(tc, clock_steps_back_clamped);
	tcase_add_test(tc, nesting_by_signal_handler);
	tcase_add_test(tc, stress_discard_two_threads);
	tcase_add_test(tc, stress_overwrite_two_threads);
	tcase_add_test(tc, held_reader_interrupted_writer_overwrite);
	tcase_add_test(tc, held_reader_interrupted_writer_discard);
	tcase_add_test(tc, high_water_notifies_once_until_below_the_mark);
	tcase_add_test(tc, discarding_notified_once_while_catching_up);
	tcase_add_test(tc, high_water_below_one_subbuf_rearms_after_drain);
	suite_add_tcase(s, tc);
	return s;
}
