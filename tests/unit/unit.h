/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers for the Check unit tests. */
#ifndef UNIT_H
#define UNIT_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
/*
 * The ring core's interleaving hooks (EVT_HOOK() in evt_ring.h): on in every
 * unit test, whose core is the copy helpers.c compiles, not libevtrace.a's.
 */
#define EVT_TEST_HOOKS 1
#include "evt_ring.h"
#include "ctf/evt_decode.h"
#include "ctf/evt_merged.h"
#include "synth/evt_synth.h"

Suite *ring_suite(void);
Suite *format_suite(void);
Suite *merge_suite(void);
Suite *trace_suite(void);
Suite *ctl_suite(void);
void ctl_parse_tests(TCase *tc);	/* test_ctl_parse.c */
void ctl_status_tests(TCase *tc);	/* test_ctl_status.c */
Suite *cpulist_suite(void);
Suite *fuzz_suite(void);
Suite *windows_suite(void);
Suite *consumer_suite(void);
Suite *chunk_suite(void);
Suite *comps_suite(void);
Suite *engine_suite(void);
Suite *events_suite(void);
Suite *export_suite(void);
Suite *edges_suite(void);
Suite *pindex_suite(void);
Suite *view_suite(void);

/* An event's payload laid out from the builtin catalogue (test_comps.c). */
struct tev {
	const struct evt_event_desc *d;
	uint8_t pl[256];
	uint32_t len;
};

void tev_init(struct tev *e, const char *name);
void tev_int(struct tev *e, const char *field, int64_t v);
void tev_str(struct tev *e, const char *field, const char *s);

/* A new directory /tmp/evt-@what-XXXXXX into @dir; the tree @dir removed. */
void unit_mktmp(char *dir, size_t len, const char *what);
void unit_rmtree(const char *dir);

/* xorshift64*: repeatable pseudo-random numbers from *state (non-zero). */
uint64_t unit_rnd(uint64_t *state);

/* A ring over heap memory. */
struct tring {
	struct evt_ring r;
	char *mem;
	struct evt_subbuf *sb;
	unsigned int notified;		/* high-water notifications */
	unsigned int discarding;	/* first-loss notifications */
};

void tring_init(struct tring *t, unsigned long sb_size, unsigned long nsb,
		enum evt_channel ch, enum evt_mode mode);
void tring_free(struct tring *t);

/* A clock the tests drive: each read advances by fake_step. */
extern uint64_t fake_now, fake_step;
uint64_t fake_clock(void);
void use_fake_clock(uint64_t start, uint64_t step);
void use_real_clock(void);

/* Record a generator event: (cpu, seq) payload. */
int rec_compact(struct evt_ring *r, uint32_t cpu, uint64_t seq);
int rec_normal(struct evt_ring *r, uint32_t cpu, uint64_t seq, unsigned int fill);

/* Events read back from packets. */
struct seen {
	uint64_t *seq;		/* seq per event, in order read */
	uint32_t *cpu;
	uint64_t *ts;
	size_t n, cap;
	size_t packets;
	uint64_t last_seq_num;
	uint64_t seq_gaps;	/* packets missing between read packets */
	uint64_t last_discarded;
	uint64_t last_ts_end;	/* timestamp_end of the last packet */
};

/*
 * Take every delivered packet, decode it strictly (fails the test on error):
 * header, events, payload fill, time order within and across packets, and
 * every byte outside the header and the event records zero.
 */
void drain_all(struct evt_ring *r, struct seen *s);
void take_one(struct evt_ring *r, struct seen *s);
void decode_packet(const void *pkt, size_t len, struct seen *s);
void seen_free(struct seen *s);

/*
 * The trace suite (test_trace.c) and the files that add cases to it:
 * test_metadata.c, test_corrupt.c, test_evcat.c.
 */
void trace_metadata_tests(TCase *tc);
void comps_idxmap_tests(TCase *tc);
void trace_corrupt_tests(TCase *read, TCase *tc);
void trace_evcat_tests(TCase *tc);

/* Synthesize a trace into @dir (fails the test on error). */
void unit_synth(const char *dir, const struct evt_synth_params *p, struct evt_synth_result *r);

/* One merged event: where its payload is, in which stream. */
struct mref {
	uint64_t ts;
	const uint8_t *payload;
	uint32_t stream, desc, len;
};

/* A whole merge collected (unit_merge_dir, unit_par_merge_dir). */
struct merged {
	struct mref *ev;
	size_t n, cap;
	int rc;			/* 0, or -1 with err */
	char err[EVT_TRACE_ERRLEN];
};

/* Open @dir and merge it all with @kind into @out; @t stays open. */
void unit_merge_dir(struct evt_trace *t, const char *dir, enum evt_merge_kind kind,
		    const struct evt_trace_opts *o, struct merged *out);
/* Like unit_merge_dir, on @threads threads with slices of about @slice bytes. */
void unit_par_merge_dir(struct evt_trace *t, const char *dir, enum evt_merge_kind kind,
			unsigned int threads, uint64_t slice, uint64_t from, uint64_t to,
			struct merged *out);
/*
 * Counting two whole-trace readers at once gives what the merged pass
 * gave: @n events, then the end, or the error @err (rc -1).
 */
void unit_pair_count_check(const char *dir, size_t n, int rc, const char *err);
/* @text with the first @from replaced by @to (malloc'd). */
char *unit_replaced(const char *text, const char *from, const char *to);

/* Run a shell command: its stdout (malloc'd), its exit status into *@status (unless NULL). */
char *unit_sh(const char *cmd, int *status);

#endif
