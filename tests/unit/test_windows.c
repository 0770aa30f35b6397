// SPDX-License-Identifier: GPL-2.0
/*
 * Interleavings at every window of the ring core. The core's hook points
 * (EVT_HOOK_POINTS in evt_ring.h, compiled into the unit tests only) are
 * the places where an interrupt can stop a writer or a flush, or where the
 * reader (another CPU) can be stopped while the writer's CPU runs on. At
 * one point per run, the hook runs there what could run there:
 *
 *   writer  records, as an interrupt would (nested up to 3 deep, like
 *           softirq, hardirq, NMI; now and then a burst that wraps the ring)
 *   flush   the flush IPI (nested in a writer or flush), or a remote flusher
 *           (from the reader's windows, no writer in flight: an offline CPU)
 *   reader  a step of the reader: take a packet, or release the one held
 *   hold    a snapshot's or a trigger's flush-and-hold (nested as the flush
 *           IPI, or from the reader's side as a remote flusher)
 *
 * in both modes, on rings down to 2 x 1 KiB, with a reader that sometimes
 * holds a packet across many events and drains at varying rates, a little
 * background nesting at every point (so that windows only another
 * interleaving opens are reached too), and flushes. Every packet read
 * decodes strictly (decode_packet()), a held packet never changes, and the
 * accounting is exact: recorded + discarded + too_big + refused ==
 * attempted; read + overwritten == recorded (read == recorded in discard
 * mode), each event read once, each level's events in order; the ring still
 * works at the end. Holds: the run takes some of its own (a snapshot's or a
 * trigger's, at random) and its reader then reads up to the highest bound,
 * releasing there what it covers; no writer ever takes a lap below a hold
 * from the reader, and a hold is released only by a reader at or past it
 * (one raised meanwhile stays). A new hook point is covered by its line in
 * the list.
 *
 * To look at one window: WINDOWS_POINT=<name> runs only that point,
 * WINDOWS_NO_NOISE=1 leaves out the background nesting; with
 * CK_RUN_CASE=windows and CK_FORK=no for a debugger.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include "unit.h"
#include "fastcheck.h"

#define MAX_DEPTH	3	/* nested levels above the test's own code */
#define MAX_EVENTS	(1U << 20)	/* per level */

static const char *const point_name[EVT_HOOK_NR] = {
#define EVT_HOOK_NAME(name) #name,
	EVT_HOOK_POINTS(EVT_HOOK_NAME)
#undef EVT_HOOK_NAME
};

enum action { ACT_WRITER, ACT_FLUSH, ACT_READER, ACT_HOLD, ACT_NR };
static const char *const action_name[ACT_NR] = { "writer", "flush", "reader", "hold" };

struct geometry {
	unsigned long sb_size, nsb;
	enum evt_channel ch;
	unsigned int events;	/* top-level records per run: several laps */
};

static const struct geometry geometries[] = {
	{ 1024, 2, EVT_CHAN_NORMAL, 1500 },
	{ 1024, 4, EVT_CHAN_COMPACT, 2000 },
	{ 4096, 2, EVT_CHAN_NORMAL, 3000 },
	{ 4096, 8, EVT_CHAN_COMPACT, 12000 },
};
#define NGEOM (sizeof(geometries) / sizeof(geometries[0]))

/* An event's state: a nested reader may read it before its writer returns. */
enum { REC_NONE, REC_PENDING, REC_OK };

struct win {
	struct tring t;
	const struct geometry *g;
	enum evt_mode mode;
	unsigned int point;
	enum action action;
	uint64_t rnd;
	unsigned int depth;		/* hooks nested now */
	unsigned int in_writer;		/* writers or flushes in flight */
	unsigned int in_reader;
	uint64_t fired;			/* the action ran at the point */
	int noise;			/* background nesting at the other points */
	unsigned int bursts;
	uint64_t attempts;
	uint64_t next_seq[MAX_DEPTH + 1];
	uint8_t *ok[MAX_DEPTH + 1];	/* per level and seq: REC_* */
	uint8_t *read[MAX_DEPTH + 1];	/* per level and seq: read */
	uint64_t last_read[MAX_DEPTH + 1];
	/* The reader's held packet. */
	int holding;
	unsigned long held_pos;
	unsigned int hold_left;
	char *held_copy;
	uint64_t changed;
	/* The highest bound (a packet_seq_num) each kind of hold was given since released. */
	unsigned long hold_bound[EVT_NR_HOLDS];
	uint64_t holds, released, taken_below_hold;
	struct seen s;
	uint64_t seen_checked;
};

static struct win *cur;

/* An event too big for any sub-buffer: refused, counted as a loss. */
static void w_record_too_big(struct win *w)
{
	static char big[70000];

	w->attempts++;
	ck_assert_int_eq(evt_record_copy(&w->t.r, w->g->ch == EVT_CHAN_COMPACT ?
					 EVT_ID_GEN_COMPACT : EVT_ID_GEN_NORMAL,
					 big, (unsigned int)w->t.r.subbuf_size), -E2BIG);
}

/* One event at @level (the cpu field), of a random size; rarely too big. */
static void w_record_sized(struct win *w, unsigned int level, int may_be_too_big)
{
	uint64_t seq = w->next_seq[level];
	unsigned int fill = (unsigned int)(unit_rnd(&w->rnd) % 14);
	int rc;

	if (may_be_too_big && unit_rnd(&w->rnd) % 500 == 0) {
		w_record_too_big(w);
		return;
	}
	w->attempts++;
	w->in_writer++;
	ck_assert_uint_lt(seq, MAX_EVENTS);
	w->next_seq[level]++;
	w->ok[level][seq] = REC_PENDING;
	if (w->g->ch == EVT_CHAN_COMPACT)
		rc = rec_compact(&w->t.r, level, seq);
	else
		rc = rec_normal(&w->t.r, level, seq, fill);
	ck_assert(rc == 0 || rc == -ENOBUFS);
	w->ok[level][seq] = rc == 0 ? REC_OK : REC_NONE;
	w->in_writer--;
}

static void w_record(struct win *w, unsigned int level)
{
	w_record_sized(w, level, 1);
}

/* Check what decode_packet() added to w->s: each event recorded, read once, in order. */
static void w_check_seen(struct win *w)
{
	for (; w->seen_checked < w->s.n; w->seen_checked++) {
		uint32_t level = w->s.cpu[w->seen_checked];
		uint64_t seq = w->s.seq[w->seen_checked];

		ck_assert_uint_le(level, MAX_DEPTH);
		ck_assert_uint_lt(seq, w->next_seq[level]);
		/* Pending: its writer has not returned yet (checked at the end). */
		ck_assert_msg(w->ok[level][seq] != REC_NONE, "level %u seq %llu read but not recorded",
			      level, (unsigned long long)seq);
		ck_assert_msg(!w->read[level][seq], "level %u seq %llu read twice",
			      level, (unsigned long long)seq);
		w->read[level][seq] = 1;
		if (w->last_read[level] != UINT64_MAX)
			ck_assert_uint_gt(seq, w->last_read[level]);
		w->last_read[level] = seq;
	}
}

/*
 * Release the held packet: it must not have changed while held, nor while
 * being released (a writer at the PUT point runs before the release).
 */
static void w_release(struct win *w)
{
	unsigned long size = w->t.r.subbuf_size;

	if (memcmp(w->held_copy, evt_ring_packet(&w->t.r, w->held_pos), size))
		w->changed++;
	decode_packet(w->held_copy, size, &w->s);
	w_check_seen(w);
	w->holding = 0;
	evt_ring_put(&w->t.r, w->held_pos);
	if (memcmp(w->held_copy, evt_ring_packet(&w->t.r, w->held_pos), size))
		w->changed++;
}

/* The reader reached packet @bound: what the holds no longer need goes. */
static void w_reached(struct win *w, unsigned long bound)
{
	unsigned int k;

	for (k = 0; k < EVT_NR_HOLDS; k++) {
		int gone = evt_ring_hold_reached(&w->t.r, k, bound << w->t.r.sb_shift);

		/* Only what it covers: a hold raised past it meanwhile stays. */
		ck_assert_int_eq(gone, w->hold_bound[k] && w->hold_bound[k] <= bound);
		ck_assert_uint_eq(evt_ring_held(&w->t.r, k), gone ? 0 : w->hold_bound[k] << w->t.r.sb_shift);
		if (gone) {
			w->hold_bound[k] = 0;
			w->released++;
		}
	}
}

/* Take the next packet: below the holds' highest bound while one is set, as a snapshot reads. */
static int w_take(struct win *w)
{
	unsigned long bound = w->hold_bound[0] > w->hold_bound[1] ? w->hold_bound[0] : w->hold_bound[1];
	int rc;

	if (!bound)
		return evt_ring_get(&w->t.r, &w->held_pos);
	rc = evt_ring_get_below(&w->t.r, &w->held_pos, bound << w->t.r.sb_shift);
	if (rc != -ENODATA)
		return rc;
	w_reached(w, bound);
	return evt_ring_get(&w->t.r, &w->held_pos);
}

/*
 * A step of the reader: release the held packet, or take the next one and
 * hold it for @hold top-level events (0: release it at once).
 */
static void w_reader_step(struct win *w, unsigned int hold)
{
	w->in_reader++;
	if (w->holding) {
		w_release(w);
	} else if (w_take(w) == 0) {
		w->holding = 1;
		memcpy(w->held_copy, evt_ring_packet(&w->t.r, w->held_pos), w->t.r.subbuf_size);
		w->hold_left = hold;
		if (!hold)
			w_release(w);
	}
	w->in_reader--;
}

/*
 * A flush: the flush IPI on the writer's CPU, nested in whatever runs there;
 * or, from the reader's side with no writer in flight, a remote flusher
 * (the CPU offline).
 */
static void w_flush(struct win *w)
{
	int remote = w->in_reader && !w->in_writer;

	w->in_writer++;
	if (remote)
		evt_ring_flush_remote(&w->t.r);
	else
		evt_ring_flush(&w->t.r);
	w->in_writer--;
}

/* A snapshot's or a trigger's flush-and-hold, as w_flush(). */
static void w_hold(struct win *w)
{
	int remote = w->in_reader && !w->in_writer;
	unsigned int kind = (unsigned int)(unit_rnd(&w->rnd) % EVT_NR_HOLDS);
	unsigned long bound;

	w->in_writer++;
	if (remote)
		evt_ring_flush_remote_hold(&w->t.r, (int)kind, &bound);
	else
		evt_ring_flush_hold(&w->t.r, (int)kind, &bound);
	w->in_writer--;
	if (bound > w->hold_bound[kind])
		w->hold_bound[kind] = bound;
	w->holds++;
}

/* What an interrupt (or the reader, or a flusher) does at the hook's point. */
static void w_act(struct win *w, enum action a)
{
	unsigned int i, n;

	switch (a) {
	case ACT_WRITER:
		n = 1 + (unsigned int)(unit_rnd(&w->rnd) % 2);
		/* Now and then enough to wrap the whole ring from here. */
		if (w->depth == 1 && w->bursts < 24 && unit_rnd(&w->rnd) % 16 == 0) {
			n = (unsigned int)(w->t.r.ring_size / 24);
			w->bursts++;
		}
		for (i = 0; i < n; i++)
			w_record(w, w->depth);
		break;
	case ACT_FLUSH:
		w_flush(w);
		break;
	case ACT_READER:
		/* One reader per ring: not from inside the reader itself. */
		if (!w->in_reader)
			w_reader_step(w, 0);
		break;
	case ACT_HOLD:
		w_hold(w);
		break;
	default:
		break;
	}
}

static void win_hook(unsigned int point, struct evt_ring *r)
{
	struct win *w = cur;

	if (!w || r != &w->t.r)
		return;
	if (point == EVT_HOOK_CHECK_AFTER_TAKE) {
		/* Just taken from the reader: the lap below its new position. */
		unsigned long c = ((unsigned long)evt_atomic_read(&r->consumed) >> EVT_CONSUMED_POS_SHIFT)
				  << r->sb_shift;
		unsigned long h0 = evt_ring_held(r, EVT_HOLD_SNAPSHOT), h1 = evt_ring_held(r, EVT_HOLD_TRIGGER);

		if (c - r->subbuf_size < h0 || c - r->subbuf_size < h1)
			w->taken_below_hold++;
	}
	if (w->depth >= MAX_DEPTH)
		return;
	if (point == w->point) {
		if (unit_rnd(&w->rnd) % 2)
			return;
		w->fired++;
		w->depth++;
		w_act(w, w->action);
		w->depth--;
	} else if (w->noise && unit_rnd(&w->rnd) % (point <= EVT_HOOK_COMMIT ? 32 : 4) == 0) {
		/*
		 * Background nesting: the windows that only an interleaving
		 * opens. More often beyond the list's first three points, the
		 * ones every record passes.
		 */
		w->depth++;
		w_act(w, ACT_WRITER);
		w->depth--;
	}
}

static void w_drain(struct win *w)
{
	if (w->holding)
		w_reader_step(w, 0);
	for (;;) {
		uint64_t before = w->s.packets;

		w_reader_step(w, 0);
		if (w->s.packets == before)
			break;
	}
}

/* One run: @action at @point, g->events top-level records; returns times fired. */
static uint64_t run_window(const struct geometry *g, enum evt_mode mode, unsigned int point,
			   enum action action)
{
	struct win *w = calloc(1, sizeof(*w));
	struct evt_ring_stats st;
	uint64_t fired, read = 0, recorded = 0;
	unsigned int i, lvl, period = 20, max_hold;

	ck_assert_ptr_nonnull(w);
	w->g = g;
	w->mode = mode;
	w->point = point;
	w->action = action;
	w->noise = !getenv("WINDOWS_NO_NOISE");
	w->rnd = 0x2545f4914f6cdd1dULL ^ ((uint64_t)point << 32) ^ ((uint64_t)action << 48) ^
		 (g->sb_size * g->nsb) ^ mode;
	for (lvl = 0; lvl <= MAX_DEPTH; lvl++) {
		w->ok[lvl] = calloc(MAX_EVENTS, 1);
		w->read[lvl] = calloc(MAX_EVENTS, 1);
		ck_assert_ptr_nonnull(w->ok[lvl]);
		ck_assert_ptr_nonnull(w->read[lvl]);
		w->last_read[lvl] = UINT64_MAX;
	}
	/* Timestamps that wrap the header's field every 64 readings or so. */
	use_fake_clock(1ULL << 40, g->ch == EVT_CHAN_COMPACT ? 1ULL << 21 : 1ULL << 26);
	tring_init(&w->t, g->sb_size, g->nsb, g->ch, mode);
	/* Up to about two laps of the ring, for the small ones. */
	max_hold = (unsigned int)(w->t.r.ring_size / 16);
	if (max_hold > 400)
		max_hold = 400;
	w->held_copy = malloc(g->sb_size);
	ck_assert_ptr_nonnull(w->held_copy);
	cur = w;
	evt_test_hook = win_hook;
	for (i = 0; i < g->events;) {
		/* The reader's pace changes: sometimes ahead, sometimes far behind. */
		if (i % 300 == 0)
			period = (unsigned int[]){ 2, 10, 40, 400 }[unit_rnd(&w->rnd) % 4];
		/* Records, flushes and reader steps in any order. */
		if (unit_rnd(&w->rnd) % 50 == 0) {
			w_flush(w);
		} else if (unit_rnd(&w->rnd) % 150 == 0) {
			w_hold(w);
		} else if (unit_rnd(&w->rnd) % 200 == 0) {
			/* A loss after the last packet: the next flush carries it. */
			w_flush(w);
			w_record_too_big(w);
			w_flush(w);
		} else if (unit_rnd(&w->rnd) % period == 0) {
			/* Sometimes a slow reader, holding a packet while the writer laps. */
			w_reader_step(w, unit_rnd(&w->rnd) % 4 ? 0 :
					 (unsigned int)(unit_rnd(&w->rnd) % max_hold));
		} else {
			w_record(w, 0);
			i++;
			if (w->holding && w->hold_left && --w->hold_left == 0)
				w_reader_step(w, 0);
		}
	}
	/* The end: all closed and read, losses carried by a last packet. */
	evt_test_hook = NULL;
	w_flush(w);
	w_drain(w);
	w_flush(w);
	w_drain(w);
	/* Not wedged: a new event still makes it to the reader. */
	w_record_sized(w, 0, 0);
	ck_assert_uint_eq(w->ok[0][w->next_seq[0] - 1], REC_OK);
	w_flush(w);
	w_drain(w);
	ck_assert_int_eq(evt_ring_has_data(&w->t.r), 0);

	evt_ring_stats(&w->t.r, &st);
	if (st.recorded + st.discarded + st.too_big + st.refused != w->attempts ||
	    (mode == EVT_MODE_DISCARD && st.overwritten) ||
	    w->s.n + st.overwritten != st.recorded || w->changed || w->taken_below_hold ||
	    !w->read[0][w->next_seq[0] - 1] ||
	    w->s.last_discarded != st.discarded + st.too_big + st.refused)
		ck_abort_msg("%s mode, %lu x %lu %s, %s at %s (fired %llu): attempted %llu, recorded %llu, "
			     "discarded %llu, too_big %llu, overwritten %llu, read %zu "
			     "(read + overwritten - recorded = %lld), held packets changed %llu, "
			     "last event read %d, last events_discarded %llu, laps taken below a hold %llu",
			     mode == EVT_MODE_DISCARD ? "discard" : "overwrite", g->nsb, g->sb_size,
			     g->ch == EVT_CHAN_COMPACT ? "compact" : "normal", action_name[action],
			     point_name[point], (unsigned long long)w->fired,
			     (unsigned long long)w->attempts, (unsigned long long)st.recorded,
			     (unsigned long long)st.discarded, (unsigned long long)st.too_big,
			     (unsigned long long)st.overwritten, w->s.n,
			     (long long)(w->s.n + st.overwritten - st.recorded),
			     (unsigned long long)w->changed, w->read[0][w->next_seq[0] - 1],
			     (unsigned long long)w->s.last_discarded, (unsigned long long)w->taken_below_hold);
	/* Every hold was read to and released (the end drains). */
	ck_assert_uint_eq(evt_ring_held(&w->t.r, EVT_HOLD_SNAPSHOT), 0);
	ck_assert_uint_eq(evt_ring_held(&w->t.r, EVT_HOLD_TRIGGER), 0);
	ck_assert_uint_gt(w->holds, 0);
	for (lvl = 0; lvl <= MAX_DEPTH; lvl++) {
		for (i = 0; i < w->next_seq[lvl]; i++) {
			if (w->read[lvl][i] && w->ok[lvl][i] != REC_OK)
				ck_abort_msg("level %u seq %u read, but its writer was told %s",
					     lvl, i, w->ok[lvl][i] ? "nothing" : "it failed");
			recorded += w->ok[lvl][i] == REC_OK;
			read += w->read[lvl][i];
			/* Discard mode loses nothing recorded. */
			if (mode == EVT_MODE_DISCARD && w->ok[lvl][i] == REC_OK && !w->read[lvl][i])
				ck_abort_msg("discard mode: level %u seq %u recorded, never read", lvl, i);
		}
	}
	ck_assert_uint_eq(recorded, st.recorded);
	ck_assert_uint_eq(read, w->s.n);
	fired = w->fired;
	cur = NULL;
	for (lvl = 0; lvl <= MAX_DEPTH; lvl++) {
		free(w->ok[lvl]);
		free(w->read[lvl]);
	}
	free(w->held_copy);
	seen_free(&w->s);
	tring_free(&w->t);
	free(w);
	return fired;
}

/* Points no run of @mode can reach: overwriting and skipping need overwrite mode. */
static int unreachable(enum evt_mode mode, unsigned int point)
{
	return mode == EVT_MODE_DISCARD &&
	       (point == EVT_HOOK_CHECK_BEFORE_TAKE || point == EVT_HOOK_CHECK_AFTER_TAKE ||
		point == EVT_HOOK_MARK_SKIPPED || point == EVT_HOOK_HOLD_CHECK);
}

static void run_all_windows(enum evt_mode mode, enum action action)
{
	const char *only = getenv("WINDOWS_POINT");
	unsigned int point, g;

	for (point = 0; point < EVT_HOOK_NR; point++) {
		uint64_t fired = 0;

		if (only && strcmp(only, point_name[point]))
			continue;
		for (g = 0; g < NGEOM; g++)
			fired += run_window(&geometries[g], mode, point, action);
		/* A point never reached is a window never tested. */
		if (!unreachable(mode, point))
			ck_assert_msg(fired > 0, "%s at %s: never reached", action_name[action],
				      point_name[point]);
	}
}

/*
 * The delivery window, once, by hand: a 2 x 1 KiB ring in overwrite mode;
 * a flush that completes the first sub-buffer is interrupted before its
 * closing writes by a writer that wraps the whole ring, until the next lap
 * of that sub-buffer is delivered (as the review's reproducer did). The slot
 * being delivered must not be reopened meanwhile (its deliverer would then
 * write the old lap's closing fields into the new lap and move `delivered`
 * back): the reader gets every complete packet, the accounting is exact.
 */
static struct tring dw;
static uint64_t dw_seq[2], dw_ok;
static unsigned long dw_slot_delivered;
static int dw_fired;

static void dw_hook(unsigned int point, struct evt_ring *r)
{
	unsigned int i;

	if (point != EVT_HOOK_DELIVER_BEGIN || r != &dw.r || dw_fired)
		return;
	dw_fired = 1;
	/* Until slot 0's next lap is delivered, if it can be (at most 200). */
	for (i = 0; i < 200 && (dw.r.sb[0].delivered & ~EVT_SB_SKIPPED) < 3 * 1024; i++)
		if (rec_normal(&dw.r, 1, dw_seq[1]++, 11) == 0)
			dw_ok++;
	dw_slot_delivered = dw.r.sb[0].delivered;
}

START_TEST(deliver_window_nested_wrap)
{
	struct seen s = { 0 };
	struct evt_ring_stats st;
	unsigned long pos;
	int rc, i;

	use_fake_clock(1000, 10);
	tring_init(&dw, 1024, 2, EVT_CHAN_NORMAL, EVT_MODE_OVERWRITE);
	dw_seq[0] = dw_seq[1] = dw_ok = 0;
	dw_fired = 0;
	for (i = 0; i < 10; i++)
		if (rec_normal(&dw.r, 0, dw_seq[0]++, 3) == 0)
			dw_ok++;
	evt_test_hook = dw_hook;
	ck_assert_int_eq(evt_ring_flush(&dw.r), 1);
	evt_test_hook = NULL;
	ck_assert_int_eq(dw_fired, 1);
	/* What the interrupted deliverer did after the interrupt kept it. */
	ck_assert_uint_ge(dw.r.sb[0].delivered & ~EVT_SB_SKIPPED, dw_slot_delivered & ~EVT_SB_SKIPPED);
	evt_ring_flush(&dw.r);
	while ((rc = evt_ring_get(&dw.r, &pos)) == 0) {
		decode_packet(evt_ring_packet(&dw.r, pos), 1024, &s);
		evt_ring_put(&dw.r, pos);
	}
	ck_assert_int_eq(rc, -EAGAIN);
	ck_assert_int_eq(evt_ring_has_data(&dw.r), 0);
	evt_ring_stats(&dw.r, &st);
	ck_assert_uint_eq(st.recorded, dw_ok);
	ck_assert_uint_eq(s.n + st.overwritten, st.recorded);
	/* The newest events are the nested writer's last ones, read. */
	ck_assert_uint_eq(s.cpu[s.n - 1], 1);
	seen_free(&s);
	tring_free(&dw);
}
END_TEST

/*
 * Remote flushers. With a ring's CPU offline, the module flushes it from
 * any CPU (the flush timer, a reader's FLUSH or GET_QUIESCENT), several at
 * once: cpus_read_lock() is shared. The core's CPU-local operations are
 * atomic only against the owning CPU (unlocked instructions on x86, here as
 * in the kernel), so two flushers can both switch out one sub-buffer: its
 * commit count passes the lap, it is never delivered, the ring is wedged.
 * Two threads flush one ring at once, round after round; a hook holds each
 * just before its offset cmpxchg until the other gets there too (or 200 us
 * pass), and lets both go at one instant of the TSC, so that their cmpxchgs
 * run together. evt_ring_flush_remote() must serialise them: they never
 * meet in the window, one closes the packet, it is delivered, and every
 * event recorded is read.
 */
struct rflush {
	struct tring t;
	int (*flush)(struct evt_ring *r);
	unsigned int round;	/* bumped to start a round */
	unsigned int ready;	/* the other flusher is about to flush */
	unsigned int done;	/* the other flusher is done with this round */
	int stop;
	int arrived;		/* arrivals at the cmpxchg in this round */
	int waiting[2];		/* flusher i waits in the window */
	uint64_t go;		/* when both leave the window */
	int ret[2];
	uint64_t met;		/* rounds where both were in the window at once */
};

static struct rflush *rf;
static _Thread_local int rf_me;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();	/* the same on every CPU: a common instant */
#else
	return mono_ns();
#endif
}

static void rflush_hook(unsigned int point, struct evt_ring *r)
{
	uint64_t t0, go;

	if (!rf || r != &rf->t.r || point != EVT_HOOK_FLUSH_BEFORE_CMPXCHG)
		return;
	if (__atomic_add_fetch(&rf->arrived, 1, __ATOMIC_SEQ_CST) >= 2) {
		/* Met only if the other one is in the window now. */
		if (!__atomic_load_n(&rf->waiting[!rf_me], __ATOMIC_SEQ_CST))
			return;
		rf->met++;
		__atomic_store_n(&rf->go, now_ticks() + 20000, __ATOMIC_SEQ_CST);
	} else {
		/*
		 * Wait for the other one (200 us at most: it may be serialised),
		 * letting it run if it shares this CPU.
		 */
		__atomic_store_n(&rf->waiting[rf_me], 1, __ATOMIC_SEQ_CST);
		t0 = mono_ns();
		while (!__atomic_load_n(&rf->go, __ATOMIC_SEQ_CST) && mono_ns() - t0 < 200000)
			sched_yield();
		__atomic_store_n(&rf->waiting[rf_me], 0, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&rf->go, __ATOMIC_SEQ_CST))
			return;
	}
	/* Both leave the window together: their cmpxchgs run at once. */
	go = __atomic_load_n(&rf->go, __ATOMIC_SEQ_CST);
	while (now_ticks() < go)
		;
}

/* The second flusher; the test's own thread is the first. */
static void *rflush_thread(void *arg)
{
	unsigned int seen = 0;

	(void)arg;
	rf_me = 1;
	for (;;) {
		/* Spinning, so that it is running when a round starts. */
		while (__atomic_load_n(&rf->round, __ATOMIC_ACQUIRE) == seen)
			sched_yield();
		seen++;
		if (__atomic_load_n(&rf->stop, __ATOMIC_ACQUIRE))
			return NULL;
		__atomic_store_n(&rf->ready, 1, __ATOMIC_RELEASE);
		rf->ret[1] = rf->flush(&rf->t.r);
		__atomic_store_n(&rf->done, 1, __ATOMIC_RELEASE);
	}
}

/*
 * Two flushers of one ring, @rounds times, the hook holding each in the
 * window before its cmpxchg until the other arrives. Returns how many rounds
 * had both in the window at once; @strict: also the ring's accounting must
 * hold (a serialised flush), else the test fails.
 */
static uint64_t run_remote_flushers(int (*flush)(struct evt_ring *r), unsigned int rounds, int strict)
{
	struct rflush x = { .flush = flush };
	struct seen s = { 0 };
	struct evt_ring_stats st;
	pthread_t th;
	uint64_t seq = 0, ok = 0, rnd = 12345, both = 0, undelivered = 0;
	unsigned int round, i, n;

	use_real_clock();
	tring_init(&x.t, 4096, 4, EVT_CHAN_NORMAL, EVT_MODE_DISCARD);
	rf = &x;
	evt_test_hook = rflush_hook;
	rf_me = 0;
	ck_assert_int_eq(pthread_create(&th, NULL, rflush_thread, NULL), 0);
	for (round = 0; round < rounds; round++) {
		uint64_t produced;

		/* The CPU's last events before it went offline. */
		n = 1 + (unsigned int)(unit_rnd(&rnd) % 30);
		for (i = 0; i < n; i++)
			if (rec_normal(&x.t.r, 0, seq++, (unsigned int)(unit_rnd(&rnd) % 9)) == 0)
				ok++;
		produced = (uint64_t)evt_local_read(&x.t.r.produced);
		x.arrived = 0;
		x.go = 0;
		x.done = 0;
		x.ready = 0;
		__atomic_add_fetch(&x.round, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&x.ready, __ATOMIC_ACQUIRE))
			sched_yield();
		x.ret[0] = x.flush(&x.t.r);	/* both flush now */
		while (!__atomic_load_n(&x.done, __ATOMIC_ACQUIRE))
			sched_yield();
		if (x.ret[0] && x.ret[1])
			both++;
		/* The open packet is closed once, and delivered. */
		if ((uint64_t)evt_local_read(&x.t.r.produced) != produced + 1)
			undelivered++;
		drain_all(&x.t.r, &s);
	}
	__atomic_store_n(&x.stop, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&x.round, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	evt_test_hook = NULL;
	rf = NULL;
	evt_ring_stats(&x.t.r, &st);
	if (strict && (x.met || both || undelivered || st.recorded != ok || s.n != ok))
		ck_abort_msg("%u rounds of two remote flushers: both in the window at once %llu times, "
			     "both closed the packet %llu times, packet not delivered %llu times; "
			     "recorded %llu of %llu, read %zu, discarded %llu",
			     rounds, (unsigned long long)x.met, (unsigned long long)both,
			     (unsigned long long)undelivered, (unsigned long long)st.recorded,
			     (unsigned long long)ok, s.n, (unsigned long long)st.discarded);
	seen_free(&s);
	tring_free(&x.t);
	return x.met;
}

START_TEST(remote_flushers_serialised)
{
	run_remote_flushers(evt_ring_flush_remote, 600, 1);
}
END_TEST

/*
 * The positive control of the test above: without the lock (evt_ring_flush
 * from two threads), the same harness does bring both flushers into the
 * window at once, so "never met" above is a finding, not the harness's
 * blindness.
 */
START_TEST(remote_flushers_meet_unserialised)
{
	uint64_t met = run_remote_flushers(evt_ring_flush, 600, 0);

	ck_assert_msg(met > 0, "600 rounds of two unserialised flushers never met in the window: "
		      "the harness cannot make them meet");
}
END_TEST

static void teardown(void)
{
	evt_test_hook = NULL;
	cur = NULL;
	use_real_clock();
}

START_TEST(windows_writer_discard)
{
	run_all_windows(EVT_MODE_DISCARD, ACT_WRITER);
}
END_TEST

START_TEST(windows_writer_overwrite)
{
	run_all_windows(EVT_MODE_OVERWRITE, ACT_WRITER);
}
END_TEST

START_TEST(windows_flush_discard)
{
	run_all_windows(EVT_MODE_DISCARD, ACT_FLUSH);
}
END_TEST

START_TEST(windows_flush_overwrite)
{
	run_all_windows(EVT_MODE_OVERWRITE, ACT_FLUSH);
}
END_TEST

START_TEST(windows_reader_discard)
{
	run_all_windows(EVT_MODE_DISCARD, ACT_READER);
}
END_TEST

START_TEST(windows_reader_overwrite)
{
	run_all_windows(EVT_MODE_OVERWRITE, ACT_READER);
}
END_TEST

START_TEST(windows_hold_discard)
{
	run_all_windows(EVT_MODE_DISCARD, ACT_HOLD);
}
END_TEST

START_TEST(windows_hold_overwrite)
{
	run_all_windows(EVT_MODE_OVERWRITE, ACT_HOLD);
}
END_TEST

Suite *windows_suite(void)
{
	Suite *s = suite_create("windows");
	TCase *tc = tcase_create("windows");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, deliver_window_nested_wrap);
	tcase_add_test(tc, remote_flushers_serialised);
	tcase_add_test(tc, remote_flushers_meet_unserialised);
	tcase_add_test(tc, windows_writer_discard);
	tcase_add_test(tc, windows_writer_overwrite);
	tcase_add_test(tc, windows_flush_discard);
	tcase_add_test(tc, windows_flush_overwrite);
	tcase_add_test(tc, windows_reader_discard);
	tcase_add_test(tc, windows_reader_overwrite);
	tcase_add_test(tc, windows_hold_discard);
	tcase_add_test(tc, windows_hold_overwrite);
	suite_add_tcase(s, tc);
	return s;
}
