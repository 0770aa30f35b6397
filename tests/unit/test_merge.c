// SPDX-License-Identifier: GPL-2.0
/*
 * The k-way merges (tournament tree, sorted list + cache) and the watermark
 * reorderer (after Aqua Security's Tracee, "Ordering Events", see
 * docs/references.md): that note's simulation as a test vector, random
 * interleavings against a sort oracle, late events, idle sources.
 */
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "fastcheck.h"
#include "ctf/evt_merge.h"
#include "consumer/evt_reorder.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return unit_rnd(&rng_state);
}

/* ---- k-way merge ---- */

struct item {
	uint64_t ts;
	uint32_t src;
	uint32_t idx;	/* position within its source */
};

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Merge @k sorted sources with @kind; out[] gets (ts, src, idx) in merge order. */
static size_t run_merge(enum evt_merge_kind kind, uint32_t k, uint64_t **src, const uint32_t *len,
			struct item *out)
{
	struct evt_merge m;
	uint64_t *heads = calloc(k, sizeof(*heads));
	unsigned char *has = calloc(k, 1);
	uint32_t *pos = calloc(k, sizeof(*pos));
	size_t n = 0;
	uint32_t i;

	ck_assert_int_eq(evt_merge_init(&m, kind, k), 0);
	for (i = 0; i < k; i++) {
		has[i] = len[i] > 0;
		heads[i] = has[i] ? src[i][0] : 0;
	}
	evt_merge_build(&m, heads, has);
	for (;;) {
		evt_mkey_t top = evt_merge_top(&m);
		uint32_t s;

		if (top == EVT_MKEY_NONE)
			break;
		s = evt_mkey_src(&m, top);
		ck_assert_uint_lt(s, k);
		ck_assert_uint_eq(evt_mkey_rel(&m, top), src[s][pos[s]]);
		out[n].ts = src[s][pos[s]];
		out[n].src = s;
		out[n].idx = pos[s];
		n++;
		pos[s]++;
		evt_merge_replace(&m, pos[s] < len[s] ? evt_mkey(&m, src[s][pos[s]], s) : EVT_MKEY_NONE);
	}
	evt_merge_free(&m);
	free(heads);
	free(has);
	free(pos);
	return n;
}

START_TEST(merge_tree_list_oracle_random)
{
	unsigned int round;

	rng_state = 0x1234567 + (uint64_t)_i;
	for (round = 0; round < 60; round++) {
		uint32_t k = 1 + (uint32_t)(rnd() % (round < 30 ? 9 : 70)), i, j;
		uint64_t **src = calloc(k, sizeof(*src));
		uint32_t *len = calloc(k, sizeof(*len));
		/* Small ranges make ties; skew and bursts make runs. */
		uint64_t range = round % 3 == 0 ? 20 : 1000000, total = 0;
		struct item *oracle, *a, *b;
		size_t na, nb, no = 0;

		for (i = 0; i < k; i++) {
			uint64_t t = rnd() % range;

			len[i] = (uint32_t)(rnd() % 300);
			if (i % 5 == 3)
				len[i] = 0;	/* an empty source */
			src[i] = malloc((len[i] + 1) * sizeof(uint64_t));
			for (j = 0; j < len[i]; j++) {
				t += round % 4 == 1 && rnd() % 8 ? 0 : rnd() % (range / 10 + 2);
				src[i][j] = t;
			}
			total += len[i];
		}
		oracle = malloc((total + 1) * sizeof(*oracle));
		a = malloc((total + 1) * sizeof(*a));
		b = malloc((total + 1) * sizeof(*b));
		for (i = 0; i < k; i++)
			for (j = 0; j < len[i]; j++)
				oracle[no++] = (struct item){ src[i][j], i, j };
		qsort(oracle, no, sizeof(*oracle), item_cmp);
		na = run_merge(EVT_MERGE_TREE, k, src, len, a);
		nb = run_merge(EVT_MERGE_LIST, k, src, len, b);
		ck_assert_uint_eq(na, total);
		ck_assert_uint_eq(nb, total);
		for (i = 0; i < total; i++) {
			ck_assert_msg(!item_cmp(&a[i], &oracle[i]),
				      "tree differs from the oracle at %u (k %u)", i, k);
			ck_assert_msg(!item_cmp(&b[i], &oracle[i]),
				      "list differs from the oracle at %u (k %u)", i, k);
		}
		for (i = 0; i < k; i++)
			free(src[i]);
		free(src);
		free(len);
		free(oracle);
		free(a);
		free(b);
	}
}
END_TEST

START_TEST(merge_empty_and_single)
{
	struct evt_merge m;
	uint64_t ts[1] = { 5 };
	unsigned char none[1] = { 0 }, one[1] = { 1 };
	int kind;

	for (kind = 0; kind < 2; kind++) {
		ck_assert_int_eq(evt_merge_init(&m, kind, 0), 0);
		evt_merge_build(&m, ts, none);
		ck_assert(evt_merge_top(&m) == EVT_MKEY_NONE);
		evt_merge_free(&m);
		ck_assert_int_eq(evt_merge_init(&m, kind, 1), 0);
		evt_merge_build(&m, ts, one);
		ck_assert(evt_merge_top(&m) == evt_mkey(&m, 5, 0));
		evt_merge_replace(&m, evt_mkey(&m, 9, 0));
		ck_assert(evt_merge_top(&m) == evt_mkey(&m, 9, 0));
		evt_merge_replace(&m, EVT_MKEY_NONE);
		ck_assert(evt_merge_top(&m) == EVT_MKEY_NONE);
		evt_merge_free(&m);
	}
}
END_TEST

/* ---- the reorderer ---- */

/* Pull everything emittable now into @out (timestamps); returns how many. */
static unsigned int pull_all(struct evt_reorder *r, uint64_t *out, unsigned int max, uint16_t *flags)
{
	struct evt_reorder_item it;
	unsigned int n = 0;

	while (evt_reorder_pull(r, &it)) {
		ck_assert_uint_lt(n, max);
		if (flags)
			flags[n] = it.flags;
		out[n++] = it.ts;
	}
	return n;
}

static void push_list(struct evt_reorder *r, const unsigned int (*ev)[2], unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(evt_reorder_push(r, ev[i][1], ev[i][0], ev[i][0]), 0);
}

static void expect(const uint64_t *got, unsigned int n, const unsigned int *want, unsigned int nw,
		   const char *what)
{
	unsigned int i;

	ck_assert_msg(n == nw, "%s: %u events sent, expected %u", what, n, nw);
	for (i = 0; i < n; i++)
		ck_assert_msg(got[i] == want[i], "%s: event %u is T%llu, expected T%u", what, i,
			      (unsigned long long)got[i], want[i]);
}

/*
 * seeds/000: three CPU queues, ticks with incoming events (Tn#m: timestamp
 * n from CPU m), d = 2. Ticks 1 and 2 send nothing; tick 3 sends up to T8
 * (T7, which came at tick 2 after T8, in its place); then with no input,
 * tick 4 sends up to T21 and tick 5 up to T33.
 */
START_TEST(reorder_seed000_vector)
{
	static const unsigned int initial[][2] = {
		{ 1, 0 }, { 3, 0 }, { 6, 0 }, { 8, 0 }, { 2, 1 }, { 5, 1 }, { 4, 2 },
	};
	static const unsigned int tick1[][2] = { { 9, 1 }, { 11, 2 }, { 13, 1 }, { 10, 2 }, { 12, 2 } };
	static const unsigned int tick2[][2] = {
		{ 7, 0 }, { 22, 1 }, { 23, 2 }, { 20, 0 }, { 25, 1 }, { 24, 2 }, { 21, 0 },
	};
	static const unsigned int tick3[][2] = {
		{ 30, 0 }, { 34, 1 }, { 35, 2 }, { 31, 0 }, { 36, 2 }, { 32, 0 }, { 37, 2 },
		{ 33, 0 }, { 38, 2 }, { 50, 1 }, { 51, 1 },
	};
	static const unsigned int sent3[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const unsigned int sent4[] = { 9, 10, 11, 12, 13, 20, 21 };
	static const unsigned int sent5[] = { 22, 23, 24, 25, 30, 31, 32, 33 };
	static const unsigned int rest[] = { 34, 35, 36, 37, 38, 50, 51 };
	struct evt_reorder r;
	uint64_t got[64], bound;
	unsigned int n;
	int kind;

	for (kind = 0; kind < 2; kind++) {
		ck_assert_int_eq(evt_reorder_init(&r, 3, 2, kind), 0);
		push_list(&r, initial, 7);
		push_list(&r, tick1, 5);
		evt_reorder_tick(&r);
		ck_assert_uint_eq(pull_all(&r, got, 64, NULL), 0);	/* tick 1: nothing */
		ck_assert_int_eq(evt_reorder_bound(&r, &bound), 0);
		push_list(&r, tick2, 7);
		evt_reorder_tick(&r);
		ck_assert_uint_eq(pull_all(&r, got, 64, NULL), 0);	/* tick 2: nothing */
		push_list(&r, tick3, 11);
		evt_reorder_tick(&r);
		ck_assert_int_eq(evt_reorder_bound(&r, &bound), 1);
		ck_assert_uint_eq(bound, 8);				/* W(1) = T8 */
		n = pull_all(&r, got, 64, NULL);
		expect(got, n, sent3, 8, "tick 3");
		evt_reorder_tick(&r);
		ck_assert_int_eq(evt_reorder_bound(&r, &bound), 1);
		ck_assert_uint_eq(bound, 21);				/* W(2) = T21 */
		n = pull_all(&r, got, 64, NULL);
		expect(got, n, sent4, 7, "tick 4");
		evt_reorder_tick(&r);
		ck_assert_int_eq(evt_reorder_bound(&r, &bound), 1);
		ck_assert_uint_eq(bound, 33);				/* W(3) = T33 */
		n = pull_all(&r, got, 64, NULL);
		expect(got, n, sent5, 8, "tick 5");
		/* Nothing new: W stays T33, nothing more until the end. */
		evt_reorder_tick(&r);
		ck_assert_uint_eq(pull_all(&r, got, 64, NULL), 0);
		evt_reorder_finish(&r);
		n = pull_all(&r, got, 64, NULL);
		expect(got, n, rest, 7, "finish");
		ck_assert_uint_eq(r.st.late, 0);
		/* T10 (after T11 on CPU 2) and T7 (after T8 on CPU 0) were put in place. */
		ck_assert_uint_eq(r.st.inserted, 2);
		ck_assert_uint_eq(r.st.pushed, 30);
		ck_assert_uint_eq(r.st.emitted, 30);
		ck_assert_uint_eq(r.st.queued, 0);
		evt_reorder_free(&r);
	}
}
END_TEST

/* An event older than what was emitted: counted, flagged, emitted at once, never dropped. */
START_TEST(reorder_late_events)
{
	struct evt_reorder r;
	uint64_t got[16];
	uint16_t flags[16];
	unsigned int n;

	ck_assert_int_eq(evt_reorder_init(&r, 2, 1, EVT_MERGE_TREE), 0);
	evt_reorder_push(&r, 0, 100, 0);
	evt_reorder_push(&r, 1, 110, 0);
	evt_reorder_push(&r, 0, 120, 0);
	evt_reorder_push(&r, 1, 130, 0);
	evt_reorder_tick(&r);		/* W(1) = 120 */
	ck_assert_uint_eq(pull_all(&r, got, 16, NULL), 0);
	evt_reorder_tick(&r);		/* bound = W(1) = 120 */
	n = pull_all(&r, got, 16, flags);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(got[2], 120);
	/* 90 and 120 (equal to what was emitted) are late; 125 is not. */
	evt_reorder_push(&r, 1, 90, 0);
	evt_reorder_push(&r, 0, 125, 0);
	evt_reorder_push(&r, 0, 120, 0);
	ck_assert_uint_eq(r.st.late, 2);
	n = pull_all(&r, got, 16, flags);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(got[0], 90);
	ck_assert(flags[0] & EVT_REORDER_LATE);
	ck_assert_uint_eq(got[1], 120);
	ck_assert(flags[1] & EVT_REORDER_LATE);
	evt_reorder_finish(&r);
	n = pull_all(&r, got, 16, flags);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(got[0], 125);
	ck_assert(!(flags[0] & EVT_REORDER_LATE));
	ck_assert_uint_eq(got[1], 130);
	ck_assert_uint_eq(r.st.emitted, 7);
	evt_reorder_free(&r);
}
END_TEST

/* An idle source holds the watermark back until it reports a quiescent time or ends. */
START_TEST(reorder_idle_sources)
{
	struct evt_reorder r;
	uint64_t got[64];
	unsigned int i, n;

	ck_assert_int_eq(evt_reorder_init(&r, 3, 2, EVT_MERGE_LIST), 0);
	for (i = 0; i < 10; i++) {
		evt_reorder_push(&r, 0, 10 + i * 10, 0);
		evt_reorder_push(&r, 1, 15 + i * 10, 0);
	}
	/* Source 2 never heard of: no watermark, nothing sent however many ticks. */
	for (i = 0; i < 5; i++) {
		evt_reorder_tick(&r);
		ck_assert_uint_eq(pull_all(&r, got, 64, NULL), 0);
	}
	/* It is idle up to 50: W = 50 from now on, sent d = 2 ticks later. */
	evt_reorder_quiescent(&r, 2, 50);
	evt_reorder_tick(&r);
	ck_assert_uint_eq(pull_all(&r, got, 64, NULL), 0);
	evt_reorder_tick(&r);
	ck_assert_uint_eq(pull_all(&r, got, 64, NULL), 0);
	evt_reorder_tick(&r);
	n = pull_all(&r, got, 64, NULL);
	ck_assert_uint_eq(n, 9);	/* 10 15 20 25 30 35 40 45 50 */
	ck_assert_uint_eq(got[8], 50);
	/* Its quiescent time moves on: so does W. */
	evt_reorder_quiescent(&r, 2, 80);
	evt_reorder_tick(&r);
	evt_reorder_tick(&r);
	evt_reorder_tick(&r);
	n = pull_all(&r, got, 64, NULL);
	ck_assert_uint_eq(n, 6);	/* 55 .. 80 */
	ck_assert_uint_eq(got[5], 80);
	/* An event of the idle source after its quiescent time is in order, not late. */
	evt_reorder_push(&r, 2, 81, 0);
	/* It goes away: the others alone set W (min of 100 and 105). */
	evt_reorder_source_done(&r, 2);
	evt_reorder_tick(&r);
	evt_reorder_tick(&r);
	evt_reorder_tick(&r);
	n = pull_all(&r, got, 64, NULL);
	ck_assert_uint_eq(got[0], 81);
	ck_assert_uint_eq(got[n - 1], 100);
	ck_assert_uint_eq(r.st.late, 0);
	evt_reorder_finish(&r);
	n = pull_all(&r, got, 64, NULL);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(got[0], 105);
	evt_reorder_free(&r);

	/*
	 * Sized for 8 sources, 2 in use: the others are marked done, or nothing
	 * is ever sent before the end. One appears later (hotplug): it holds
	 * the watermark back until it speaks.
	 */
	ck_assert_int_eq(evt_reorder_init(&r, 8, 1, EVT_MERGE_TREE), 0);
	for (i = 2; i < 8; i++)
		evt_reorder_source_done(&r, i);
	evt_reorder_push(&r, 0, 10, 0);
	evt_reorder_push(&r, 1, 20, 0);
	evt_reorder_tick(&r);
	evt_reorder_tick(&r);
	n = pull_all(&r, got, 64, NULL);
	ck_assert_uint_eq(n, 1);	/* W = 10 */
	evt_reorder_source_add(&r, 5);
	evt_reorder_push(&r, 0, 30, 0);
	evt_reorder_tick(&r);
	evt_reorder_tick(&r);
	ck_assert_uint_eq(pull_all(&r, got, 64, NULL), 0);
	evt_reorder_quiescent(&r, 5, 25);
	evt_reorder_tick(&r);
	evt_reorder_tick(&r);
	n = pull_all(&r, got, 64, NULL);
	ck_assert_uint_eq(n, 1);	/* W = min(30, 20, 25) = 20 */
	ck_assert_uint_eq(got[0], 20);
	evt_reorder_free(&r);
}
END_TEST

struct rev {
	uint64_t ts;
	uint32_t src;
	uint32_t id;		/* unique: index in the generated order */
	uint64_t arrive;	/* tick interval in which it is pushed */
};

static int rev_arrive_cmp(const void *a, const void *b)
{
	const struct rev *x = a, *y = b;

	if (x->arrive != y->arrive)
		return x->arrive < y->arrive ? -1 : 1;
	/* Interleave sources randomly within an interval: by a hash of the id. */
	{
		uint64_t hx = x->id * 0x9E3779B97F4A7C15ULL, hy = y->id * 0x9E3779B97F4A7C15ULL;

		return hx < hy ? -1 : hx > hy;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Random interleavings: per source, events in time order, each delivered
 * between 1 and @extra + 1 tick intervals after its own, sources mixed at
 * random within an interval. With extra < d no event can be late and the
 * output is exactly the sorted input; with more, late events appear: each
 * is flagged, counted, and nothing is lost.
 */
static void reorder_random(uint32_t nsrc, uint32_t d, uint32_t extra, enum evt_merge_kind kind,
			   int expect_exact, uint64_t *late_out)
{
	const uint64_t T = 1000;
	uint32_t total = 0, i, n = 0, s;
	struct rev *ev;
	uint64_t *sorted_ts, last = 0;
	struct evt_reorder r;
	struct evt_reorder_item it;
	uint8_t *seen;
	uint64_t late = 0, tick = 0;
	int any = 0;

	for (s = 0; s < nsrc; s++)
		total += 100 + (uint32_t)(rnd() % 400);
	ev = calloc(total, sizeof(*ev));
	sorted_ts = calloc(total, sizeof(*sorted_ts));
	seen = calloc(total, 1);
	for (s = 0; s < nsrc && n < total; s++) {
		uint64_t t = rnd() % (5 * T);
		uint32_t cnt = s + 1 == nsrc ? total - n : (uint32_t)(total / nsrc);

		for (i = 0; i < cnt && n < total; i++, n++) {
			/* Bursts: several events at (nearly) the same time. */
			t += rnd() % 4 ? rnd() % (T / 2) : 0;
			ev[n].ts = t;
			ev[n].src = s;
			ev[n].arrive = t / T + 1 + rnd() % (extra + 1);
		}
	}
	total = n;
	for (i = 0; i < total; i++) {
		ev[i].id = i;
		sorted_ts[i] = ev[i].ts;
	}
	qsort(sorted_ts, total, sizeof(*sorted_ts), u64_cmp);	/* the oracle */
	qsort(ev, total, sizeof(*ev), rev_arrive_cmp);
	ck_assert_int_eq(evt_reorder_init(&r, nsrc, d, kind), 0);
	n = 0;
	for (i = 0; i <= total; i++) {
		/* Tick whenever the next event belongs to a later interval. */
		while (i < total ? tick < ev[i].arrive : 0) {
			evt_reorder_tick(&r);
			tick++;
			while (evt_reorder_pull(&r, &it)) {
				ck_assert_uint_lt(it.user, total);
				ck_assert(!seen[it.user]);
				seen[it.user] = 1;
				if (it.flags & EVT_REORDER_LATE) {
					late++;
					ck_assert_uint_le(it.ts, last);
				} else {
					ck_assert_msg(!any || it.ts >= last,
						      "out of order: %llu after %llu",
						      (unsigned long long)it.ts, (unsigned long long)last);
					if (expect_exact)
						ck_assert_uint_eq(it.ts, sorted_ts[n]);
				}
				if (!any || it.ts > last)
					last = it.ts;
				any = 1;
				n++;
			}
		}
		if (i < total)
			ck_assert_int_eq(evt_reorder_push(&r, ev[i].src, ev[i].ts, ev[i].id), 0);
	}
	evt_reorder_finish(&r);
	while (evt_reorder_pull(&r, &it)) {
		ck_assert(!seen[it.user]);
		seen[it.user] = 1;
		late += !!(it.flags & EVT_REORDER_LATE);
		if (!(it.flags & EVT_REORDER_LATE)) {
			ck_assert(!any || it.ts >= last);
			if (expect_exact)
				ck_assert_uint_eq(it.ts, sorted_ts[n]);
		}
		if (!any || it.ts > last)
			last = it.ts;
		any = 1;
		n++;
	}
	ck_assert_uint_eq(n, total);		/* nothing lost */
	ck_assert_uint_eq(late, r.st.late);	/* every late one flagged and counted */
	if (expect_exact)
		ck_assert_uint_eq(late, 0);
	*late_out = late;
	evt_reorder_free(&r);
	free(ev);
	free(sorted_ts);
	free(seen);
}

START_TEST(reorder_random_vs_sort_oracle)
{
	unsigned int round;
	uint64_t late, late_total = 0;

	rng_state = 0xfeedULL;
	for (round = 0; round < 24; round++) {
		uint32_t nsrc = 1 + (uint32_t)(rnd() % 12), d = 1 + (uint32_t)(rnd() % 4);

		reorder_random(nsrc, d, d - 1, round & 1, 1, &late);
	}
	/* Deliveries later than d ticks: late events, flagged, none lost. */
	for (round = 0; round < 12; round++) {
		uint32_t nsrc = 2 + (uint32_t)(rnd() % 8), d = 1 + (uint32_t)(rnd() % 2);

		reorder_random(nsrc, d, d + 3, round & 1, 0, &late);
		late_total += late;
	}
	ck_assert_uint_gt(late_total, 0);
}
END_TEST

/* Payload copies survive until pulled; d = 0 sends up to W(k) at tick k. */
START_TEST(reorder_events_and_zero_delay)
{
	struct evt_reorder r;
	struct evt_reorder_item it;
	struct evt_event ev = { 0 };
	uint8_t payload[12];
	uint32_t i;

	ck_assert_int_eq(evt_reorder_init(&r, 2, 0, EVT_MERGE_TREE), 0);
	ev.desc = evt_find_event_by_name("gen_compact");
	ev.desc_index = (unsigned int)(ev.desc - evt_events);
	ev.channel = EVT_CHAN_COMPACT;
	ev.payload = payload;
	ev.payload_len = sizeof(payload);
	for (i = 0; i < 20000; i++) {
		uint32_t cpu = i & 1;
		uint64_t seq = i;

		memcpy(payload, &cpu, 4);
		memcpy(payload + 4, &seq, 8);
		ev.ts = 1000 + i;
		ck_assert_int_eq(evt_reorder_push_event(&r, cpu, cpu, &ev), 0);
	}
	memset(payload, 0xee, sizeof(payload));
	evt_reorder_tick(&r);	/* W(1) = 1000 + 19998: sent at once with d = 0 */
	for (i = 0; i < 19999; i++) {
		uint64_t seq;

		ck_assert_int_eq(evt_reorder_pull(&r, &it), 1);
		ck_assert_uint_eq(it.ts, 1000 + i);
		ck_assert_uint_eq(it.len, 12);
		ck_assert_uint_eq(it.cpu, i & 1);
		ck_assert_str_eq(evt_events[it.desc].name, "gen_compact");
		memcpy(&seq, it.data + 4, 8);
		ck_assert_uint_eq(seq, i);
	}
	ck_assert_int_eq(evt_reorder_pull(&r, &it), 0);
	evt_reorder_free(&r);	/* one event still queued: freed with it */
}
END_TEST

Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("kway");
	TCase *tr = tcase_create("reorder");

	tcase_add_loop_test(tc, merge_tree_list_oracle_random, 0, 3);
	tcase_add_test(tc, merge_empty_and_single);
	tcase_add_test(tr, reorder_seed000_vector);
	tcase_add_test(tr, reorder_late_events);
	tcase_add_test(tr, reorder_idle_sources);
	tcase_add_test(tr, reorder_random_vs_sort_oracle);
	tcase_add_test(tr, reorder_events_and_zero_delay);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tr);
	return s;
}
