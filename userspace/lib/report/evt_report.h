/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics reports shared by evstat and evview: the JSON of `evstat
 * --json` (one writer, so the two cannot drift apart), evstat's text, and a window's
 * statistics through an ad hoc request (started, serviced by whoever
 * steps the engine, then finished).
 */
#ifndef EVT_REPORT_H
#define EVT_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "engine/evt_comps.h"
#include "engine/evt_comp_io.h"
#include "engine/evt_comp_power.h"
#include "engine/evt_engine.h"

struct evt_report {
	const char *path;		/* the trace's */
	const struct evt_stats *st;
	const struct evt_state *state;
	/* A window's: the whole trace's state result, if ready, for the pid of a thread the window does not name. */
	const struct evt_state *ids;
	const struct evt_io *io;	/* NULL: none */
	const struct evt_power *power;	/* NULL: none */
	uint64_t offset_ns;		/* realtime = clock + this */
	int window;			/* the numbers are a window's */
	/*
	 * The tasks of the per-task parts (threads, processes, worst
	 * latencies), as evcat's --pid, --tid, --comm choose them: a thread
	 * is kept when it matches each kind given (any of its values); a
	 * @comms entry is a comma-separated list of globs. None given: all.
	 */
	const int32_t *pids, *tids;
	uint32_t nr_pids, nr_tids;
	const char *const *comms;
	uint32_t nr_comms;
};

/* Whether a thread (@tid; @pid, -1: unknown; @comm) is one of @r's. */
int evt_report_task_match(const struct evt_report *r, int32_t tid, int32_t pid, const char *comm);
/* @tid's process as the state result says it (-1: unknown). */
int32_t evt_report_pid(const struct evt_report *r, int32_t tid);

/*
 * Syscalls per process: the calls of its threads (those @r keeps) added
 * up per syscall. A thread whose pid is unknown is a process of its own
 * (pid -1). Most calls first; the syscalls in order of first sight.
 */
struct evt_report_proc {
	int32_t pid;
	int32_t tid;			/* its first thread's (the group of an unknown pid) */
	char comm[16];			/* the thread tid == pid's, else its first thread's */
	uint32_t nthreads;
	uint64_t calls;
	struct evt_stats_tsys *sys;	/* .sys: the index in evt_stats.sys */
	uint32_t nsys, cap;
};
struct evt_report_procs {
	struct evt_report_proc *v;
	uint32_t n, cap;
};
/* 0, or -1 (no memory: @ps empty). */
int evt_report_procs_build(struct evt_report_procs *ps, const struct evt_report *r);
void evt_report_procs_free(struct evt_report_procs *ps);
/* The percentiles the reports give: 500, 900, 990, 999 permille, named p50 .. p99.9. */
#define EVT_REPORT_NPCT 4
extern const unsigned int evt_report_pct_permille[EVT_REPORT_NPCT];
extern const char *const evt_report_pct_names[EVT_REPORT_NPCT];

/* "8:16", a kernel dev_t as major:minor, in @buf. */
const char *evt_dev_name(uint32_t dev, char *buf, size_t len);
/* The request size of bucket @b (evt_io_size_bucket()) as "64 KiB" in @buf. */
const char *evt_io_size_name(unsigned int b, char *buf, size_t len);

/* "HI", "TIMER", ... or "vecN" in @buf. */
const char *evt_softirq_name(unsigned int vec, char *buf, size_t len);

/* The report as one JSON object and a newline: 0, or -1 (ferror(@f) then). */
int evt_report_json(FILE *f, const struct evt_report *r);

/*
 * A window's statistics: fresh stats and state results filled by the
 * hooks of an ad hoc request over [from, to] (clock values), each CPU's
 * thread at @from seeded from the trace's ready state result when there
 * is one. The caller adds its own hooks to w->req if it likes, submits it
 * to w->ts (evt_request_submit) and steps the engine until it is done.
 */
struct evt_report_window {
	struct evt_stats *st;
	struct evt_state *state;
	struct evt_io *io;
	struct evt_traceset *ts;
	struct evt_request req;
	uint64_t from, to;
};

/* Set up the request: 0, or -1 with @err (out of memory, the trace unreadable). */
int evt_report_window_init(struct evt_report_window *w, struct evt_engine *e, struct evt_etrace *t,
			    uint64_t from, uint64_t to, char *err, size_t errlen);
/*
 * Once the request is done (the engine stepped until then): close the
 * intervals, keep the losses of the window. 0, 1 when a decoding error
 * ended the reading (@err: the numbers are those of the events before
 * it), -1 out of memory.
 */
int evt_report_window_finish(struct evt_report_window *w, struct evt_etrace *t, char *err, size_t errlen);
/* The request withdrawn if pending, the results freed. */
void evt_report_window_free(struct evt_report_window *w);

/* ---- The text report (evstat's): evt_report_text.c, evt_report_deep.c ---- */

static inline double evt_report_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static inline double evt_report_avg_us(const struct evt_lat *l)
{
	return l->count ? (double)l->total_ns / (double)l->count / 1000.0 : 0.0;
}

/* Indexes 0 .. n - 1 ordered by @keys, most first (ties: the lower index); NULL: no memory. */
uint32_t *evt_report_order(const uint64_t *keys, uint32_t n);

enum evt_report_by { EVT_REPORT_BY_NONE, EVT_REPORT_BY_PROCESS, EVT_REPORT_BY_THREAD };

/* What evstat's options choose of the text report. */
struct evt_report_text {
	unsigned long top;		/* at most this many rows a table (0: all) */
	enum evt_report_by by;		/* syscalls per process or thread, or none */
	const char *const *hists;	/* --hist specs (evt_report_hist_valid()) */
	uint32_t nr_hists;
	const char *saved_from;		/* where the saved results came from (NULL: computed now) */
};

/*
 * The whole text report to stdout, its sections in order: 0; 1 when a
 * --hist names nothing there is (said on stderr); -1 (no memory).
 */
int evt_report_text(const struct evt_report *r, const struct evt_report_text *o);


/* Each prints its section to stdout, at most @top rows a table (0: all). 0, or -1 (no memory). */
int evt_report_print_percentiles(const struct evt_report *r, unsigned long top);
void evt_report_print_irq_percentiles(const struct evt_report *r);
void evt_report_print_worst(const struct evt_report *r, unsigned long top);
void evt_report_print_cpus(const struct evt_report *r);
int evt_report_print_wakeups(const struct evt_report *r, unsigned long top);
int evt_report_print_by(const struct evt_report *r, enum evt_report_by by, unsigned long top);
/*
 * --hist @spec: "syscall=NAME" (sys_NAME too), "irq=N", "softirq=NAME"
 * (or its vector), "sched". 0; 1 when @spec names nothing there is (said
 * on stderr); -1 when @spec is no histogram at all.
 */
int evt_report_hist_valid(const char *spec);
int evt_report_print_hist(const struct evt_report *r, const char *spec);


#endif /* EVT_REPORT_H */
