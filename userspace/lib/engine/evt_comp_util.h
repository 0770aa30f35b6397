/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the built-in computations (evt_comp_state.c, evt_comp_stats.c)
 * share, not part of the engine's API:
 *
 *   - The kind of each event of a catalogue and the offsets of the fields
 *     they read, built lazily per catalogue index on first sight: one
 *     `event` hook (every event) dispatches on it, so a computation that
 *     needs every syscall entry (there is no generic entry event) costs one
 *     call and one table load per event.
 *   - A map tid -> index (open addressing), for per-thread records kept in
 *     growable arrays.
 *   - Little-endian fixed-width saving and loading, and the log2 buckets
 *     of latency histograms.
 */
#ifndef EVT_COMP_UTIL_H
#define EVT_COMP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include "engine/evt_engine.h"

enum evt_kind {
	EVT_K_UNSEEN,		/* not looked at yet (the table's zero) */
	EVT_K_OTHER,
	EVT_K_SYS_ENTRY,	/* sys_<name>, compat_sys_<name>, *sys_unknown */
	EVT_K_SYS_EXIT,
	EVT_K_IRQ_ENTRY,
	EVT_K_IRQ_EXIT,
	EVT_K_SOFTIRQ_ENTRY,
	EVT_K_SOFTIRQ_EXIT,
	EVT_K_SOFTIRQ_RAISE,
	EVT_K_SWITCH,
	EVT_K_WAKEUP,		/* sched_wakeup, sched_wakeup_new */
	EVT_K_WAKING,
	EVT_K_FORK,
	EVT_K_EXEC,
	EVT_K_EXIT,
	EVT_K_FREE,
	EVT_K_SD_PROCESS,
	EVT_K_MIGRATE,
};

/* Field slots per kind (EVT_KF_* index evt_kind_entry.off[]). */
enum {
	/* sched_switch */
	EVT_KF_PREV_COMM = 0, EVT_KF_PREV_TID, EVT_KF_PREV_STATE, EVT_KF_NEXT_COMM, EVT_KF_NEXT_TID,
	EVT_KF_PREV_PRIO, EVT_KF_NEXT_PRIO,
};
enum { EVT_KF_RET = 0 };					/* exit_syscall */
enum { EVT_KF_IRQ = 0, EVT_KF_IRQ_NAME };			/* irq_handler_* */
enum { EVT_KF_VEC = 0 };					/* softirq_* */
/* sched_wakeup*, exit, free, migrate_task */
enum { EVT_KF_W_COMM = 0, EVT_KF_W_TID, EVT_KF_W_PRIO, EVT_KF_M_ORIG_CPU, EVT_KF_M_DEST_CPU };
enum {
	EVT_KF_F_PARENT_TID = 0, EVT_KF_F_PARENT_PID, EVT_KF_F_CHILD_COMM, EVT_KF_F_CHILD_TID,
	EVT_KF_F_CHILD_PID,
};
enum { EVT_KF_X_TID = 0, EVT_KF_X_FILENAME };		/* sched_process_exec */
enum {
	EVT_KF_SD_TID = 0, EVT_KF_SD_PID, EVT_KF_SD_PPID, EVT_KF_SD_NAME, EVT_KF_SD_STATUS,
};
#define EVT_KF_MAX 7

struct evt_kind_entry {
	uint8_t kind;
	uint8_t type[EVT_KF_MAX];		/* enum evt_field_type */
	int16_t off[EVT_KF_MAX];		/* -1: the event lacks the field */
};

/* The kinds of one catalogue's events, filled on first sight of each. */
struct evt_kinds {
	const struct evt_catalogue *cat;
	struct evt_kind_entry *e;		/* [cat->nr_events] */
	unsigned int n;
};

/*
 * The entry of @ev's event, (re)building the table when @ev comes from
 * another catalogue than the last one; NULL when out of memory.
 */
const struct evt_kind_entry *evt_kind_slow(struct evt_kinds *k, const struct evt_engine_event *ev);
static inline const struct evt_kind_entry *evt_kind_of(struct evt_kinds *k,
						       const struct evt_engine_event *ev)
{
	if (k->cat == ev->tr->md.cat && ev->idx < k->n && k->e[ev->idx].kind != EVT_K_UNSEEN)
		return &k->e[ev->idx];
	return evt_kind_slow(k, ev);
}
void evt_kinds_free(struct evt_kinds *k);

/* A field of @ev by its slot: an integer (0 when the event lacks it). */
static inline int64_t evt_kf_int(const struct evt_engine_event *ev, const struct evt_kind_entry *ke,
				 unsigned int f)
{
	if (ke->off[f] < 0)
		return 0;
	return evt_event_int(ev, ke->off[f], (enum evt_field_type)ke->type[f]);
}
/*
 * A string or comm field into @out (@size bytes, NUL-terminated, at most
 * @size - 1 of its bytes); "" when absent. 1 when it was there.
 */
int evt_kf_str(const struct evt_engine_event *ev, const struct evt_kind_entry *ke, unsigned int f,
	       char *out, size_t size);

/*
 * sched_process_exec: its tid, and in @comm (16 bytes) the name the kernel
 * gives the task (the file's base name, TASK_COMM_LEN - 1 bytes at most).
 * 0, or -1 when the event lacks either (or the file name ends in a slash).
 */
int evt_kf_exec_comm(const struct evt_engine_event *ev, const struct evt_kind_entry *ke, int32_t *tid, char *comm);

/* ---- tid -> index ---- */

struct evt_tidmap {
	struct evt_tidslot { int32_t tid; uint32_t idx; } *v;	/* idx UINT32_MAX: empty */
	uint32_t cap, n;
};
/* The index of @tid, or -1. */
long evt_tidmap_get(const struct evt_tidmap *m, int32_t tid);
/* Map @tid to @idx (replacing). 0 or -1 (no memory). */
int evt_tidmap_set(struct evt_tidmap *m, int32_t tid, uint32_t idx);
void evt_tidmap_free(struct evt_tidmap *m);

/* ---- Growing an array ---- */

/* Make room for @need elements of @size bytes in *@v (capacity *@cap). 0 or -1. */
int evt_grow(void *v, uint32_t *cap, size_t need, size_t size);

/* ---- Saved forms: little-endian, fixed width ---- */

int evt_put_u8(struct evt_buf *b, uint8_t v);
int evt_put_u32(struct evt_buf *b, uint32_t v);
int evt_put_u64(struct evt_buf *b, uint64_t v);
static inline int evt_put_s32(struct evt_buf *b, int32_t v) { return evt_put_u32(b, (uint32_t)v); }
/* A string: u32 length, its bytes (no NUL). */
int evt_put_str(struct evt_buf *b, const char *s, size_t len);
int evt_get_u8(struct evt_rbuf *r, uint8_t *v);
int evt_get_u32(struct evt_rbuf *r, uint32_t *v);
int evt_get_u64(struct evt_rbuf *r, uint64_t *v);
static inline int evt_get_s32(struct evt_rbuf *r, int32_t *v)
{
	uint32_t u;

	if (evt_get_u32(r, &u))
		return -1;
	*v = (int32_t)u;
	return 0;
}
static inline size_t evt_rbuf_left(const struct evt_rbuf *r)
{
	return r->n - r->off;
}
/*
 * A count of elements each taking at least @min_bytes in the saved form:
 * -1 unless they can all be there (and no more than @max), so that a
 * corrupt count never sizes an allocation.
 */
int evt_get_count(struct evt_rbuf *r, uint32_t *n, size_t min_bytes, uint32_t max);
/* A string saved by evt_put_str, of at most @max bytes: malloc'd, NUL-terminated. */
int evt_get_str(struct evt_rbuf *r, char **s, uint32_t max);

/* ---- Latency histograms ---- */

#define EVT_HIST_BUCKETS 64
/* 0 for 0, else b such that v is in [2^(b-1), 2^b), at most 63. */
static inline unsigned int evt_hist_bucket(uint64_t v)
{
	unsigned int b = v ? 64 - (unsigned int)__builtin_clzll(v) : 0;

	return b < EVT_HIST_BUCKETS ? b : EVT_HIST_BUCKETS - 1;
}

#endif /* EVT_COMP_UTIL_H */
