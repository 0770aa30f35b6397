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
 *
 * Kernel mode (kernel = 1): the events are those of a simulated machine
 * instead, laid out as the module writes them, into DIR/kernel/ (LTTng's
 * layout, which the LTTng analyses look for). Each CPU runs a scheduler
 * over its own threads (processes of one to four threads, a kworker):
 * a state dump first (on the first active CPU), then sched_switch with
 * prev_state as the module normalises it, syscall entries (sys_<name>)
 * and exit_syscall of the same thread on the same CPU (some failing, some
 * blocking: switched out between entry and exit), hard IRQs and softirqs
 * that wake blocked threads (sched_waking, sched_wakeup), idle (tid 0)
 * between bursts, and now and then fork, exec, exit and free. Threads stay
 * on their CPU, so every CPU's stream is consistent by itself. Bursts are
 * not used there; stalls lose events as in the other modes.
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
	/* Kernel mode (see above); its knobs are ignored otherwise. */
	int kernel;
	unsigned int threads;		/* user threads at the start (0: 6 per active CPU) */
	unsigned int syscall_pct;	/* a running thread's steps that are syscalls (60) */
	unsigned int irq_pct;		/* steps (and syscalls) that take a hard IRQ (5) */
	unsigned int block_pct;		/* blocking-capable syscalls that block (30) */
	unsigned int error_pct;		/* syscalls that return an error (10) */
	unsigned int fork_every;	/* 0: no fork; else one per about this many steps of a thread (5000) */
	const char *tracer_version;	/* the metadata's, kernel mode (NULL: "0.0.0") */
	/*
	 * A rotating evdrain's cuts: when a CPU's clock passes each of these
	 * times (clock values, rising), its rings are flushed, as evdrain
	 * flushes every ring at a cut (evt_synth_write_chunks()); one after
	 * another as evdrain's loop does: ring ch of CPU c at the time plus
	 * (2 c + ch) flush_step_ns.
	 */
	const uint64_t *flush_at;
	unsigned int nr_flush;
	uint64_t flush_step_ns;
	/* No packet index files (evt_pindex.h), as evdrain before them: readers walk the headers. */
	int no_index;
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
	/* Kernel mode: events generated of each kind (before losses). */
	uint64_t switches;		/* sched_switch */
	uint64_t syscalls;		/* sys_<name> entries */
	uint64_t syscall_exits;		/* exit_syscall */
	uint64_t irqs;			/* irq_handler_entry */
	uint64_t softirqs;		/* softirq_entry */
	uint64_t wakeups;		/* sched_wakeup and sched_wakeup_new */
	uint64_t forks;			/* sched_process_fork */
	uint64_t dumped;		/* lttng_statedump_process_state */
};

/*
 * The whole trace written twice into @dir/.evsynth-whole (the second time
 * with the rings flushed at nchunks - 1 equal steps of the first's time
 * span, one after another 20 us apart, as a rotating evdrain's cuts flush
 * them), then cut after each step's last flush into chunks in @dir
 * (evt_chunk_split(): @host and @kernel in their summary.json; as
 * evdrain's, a chunk's streams end at different times and the next chunk
 * begins before this one ends), the whole removed. 0, or -1 with @err.
 */
int evt_synth_write_chunks(const char *dir, struct evt_synth_params *p, unsigned int nchunks, const char *host,
			   const char *kernel, struct evt_synth_result *res, char *err, size_t errlen);

void evt_synth_defaults(struct evt_synth_params *p);
/* Write the trace into @dir (created if needed): 0, or -1 with @err set. */
int evt_synth_write(const char *dir, const struct evt_synth_params *p,
		    struct evt_synth_result *res, char *err, size_t errlen);

#endif /* EVT_SYNTH_H */
