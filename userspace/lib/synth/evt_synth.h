/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace synthesizer: writes an evtrace trace directory natively through the
 * portable ring core (the code the module runs), for tests and benchmarks.
 *
 * Each CPU's events get timestamps from its own timeline: a start offset
 * (skew), gaps drawn around a mean period, bursts of closely spaced events;
 * its rings are drained into DIR/<channel>_<cpu> as the kernel's reader
 * would, whole packets only. Losses come from drainer stalls: the ring
 * fills, and the core discards (discard mode) or overwrites (overwrite
 * mode) and accounts exactly as in the kernel. Idle CPUs have empty stream
 * files; offline CPUs have none.
 */
#ifndef EVT_SYNTH_H
#define EVT_SYNTH_H

#include <stdint.h>
#include <evtrace/abi.h>

#define EVT_SYNTH_MAX_CPUS 1024

struct evt_synth_params {
	unsigned int cpus;		/* K: CPUs 0..K-1 */
	uint64_t events;		/* N: events generated in total (before losses) */
	uint64_t seed;
	uint64_t start_ns;		/* clock value of the first event */
	uint64_t period_ns;		/* mean gap between events of one CPU */
	int64_t skew_ns;		/* CPU c starts at start + c * skew */
	unsigned int burst_every;	/* 0: none; else a burst every this many events */
	unsigned int burst_len;		/* events in a burst */
	uint64_t burst_gap_ns;		/* gap inside a burst (max) */
	unsigned int stall_every;	/* 0: no losses; else the drainer stalls every this many events */
	unsigned int stall_len;		/* events recorded during a stall (0: 2 rings' worth) */
	int overwrite;			/* overwrite mode instead of discard */
	unsigned int normal_pct;	/* share of events in the normal channel */
	int mix;			/* every compact event kind, not just gen_compact */
	unsigned long subbuf_size;	/* default 16384 */
	unsigned long num_subbuf;	/* default 8 */
	uint64_t clock_offset_s;	/* metadata clock offset (default 1700000000) */
	uint64_t clock_offset_ns;
	const uint8_t *idle;		/* per CPU: 1 = records nothing (empty files) */
	const uint8_t *offline;		/* per CPU: 1 = no files at all */
};

struct evt_synth_result {
	uint64_t generated;		/* events offered to the rings */
	uint64_t recorded;
	uint64_t discarded;
	uint64_t overwritten;
	uint64_t written;		/* events in the stream files */
	uint64_t packets;
	uint64_t skipped;
	uint64_t first_ts, last_ts;
};

void evt_synth_defaults(struct evt_synth_params *p);
/* Write the trace into @dir (created if needed): 0, or -1 with @err set. */
int evt_synth_write(const char *dir, const struct evt_synth_params *p,
		    struct evt_synth_result *res, char *err, size_t errlen);

#endif /* EVT_SYNTH_H */
