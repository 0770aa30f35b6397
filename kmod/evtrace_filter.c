// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel task filters (TRACK, UNTRACK): record only the events of tracked
 * tasks, by process ID, name or cgroup v2. The rule is in <evtrace/netlink.h>.
 *
 * The fast path pays one static branch while no filter is set. With one set,
 * evt_filter_pass() reads the filter under the writers' disabled preemption
 * (RCU-sched): a bit of the process ID bitmap, the names, the cgroups.
 * Updates copy the filter and publish the copy; the bitmap is shared and
 * changed in place with atomic bit operations (the fork probe does too), so
 * following a fork never allocates in the probe.
 *
 * A process's bit outlives it (its exit and free events are still its own)
 * until it is freed: a probe on sched_process_free, run after the recording
 * ones, clears the bit of a process whose ID no live process has. The fork
 * probe sees every new process before it runs and clears a stale bit (or
 * sets it, following a tracked parent). The bits set are counted as they
 * change: STATUS reads the count, never walks the bitmap.
 *
 * A cgroup is tracked by its path: removed and created again, the new one
 * is tracked (a probe on cgroup_mkdir has the paths resolved again), and
 * TRACK of a path whose cgroup was replaced takes the new one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/netlink.h>
#include <linux/sched.h>
#include <linux/pid.h>
#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/bitmap.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <linux/jump_label.h>
#include <linux/seq_file.h>
#include <linux/debugfs.h>
#include <linux/workqueue.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_tp.h"
#include "evtrace_filter.h"

DEFINE_STATIC_KEY_FALSE(evt_filter_key);

struct evt_filter {
	struct rcu_head rcu;
	bool follow_fork;
	unsigned int nr_comms;
	unsigned int nr_cgroups;
	char comms[EVT_FILTER_COMMS_MAX][TASK_COMM_LEN];	/* NUL-padded */
	struct cgroup *cgroups[EVT_FILTER_CGROUPS_MAX];	/* a reference each */
	char *cgroup_paths[EVT_FILTER_CGROUPS_MAX];
};

static struct evt_filter __rcu *evt_filter_cur;
/* PID_MAX_LIMIT bits by global process ID; allocated with the first filter. */
static unsigned long *evt_filter_pids;
/* Bits set in it, counted as they change. */
static atomic_t evt_filter_nr_set = ATOMIC_INIT(0);
/*
 * Orders a freed process's bit being dropped (its ID checked unused, then
 * cleared) against a new process taking that ID in the fork probe.
 */
static DEFINE_RAW_SPINLOCK(evt_filter_pid_lock);
static DEFINE_MUTEX(evt_filter_lock);	/* updates, the probes' registration */

static void evt_filter_cgroups_fn(struct work_struct *w);
static DECLARE_WORK(evt_filter_cgroups_work, evt_filter_cgroups_fn);

static void evt_pid_set(pid_t pid)
{
	if (!test_and_set_bit(pid, evt_filter_pids))
		atomic_inc(&evt_filter_nr_set);
}

static void evt_pid_clear(pid_t pid)
{
	if (test_and_clear_bit(pid, evt_filter_pids))
		atomic_dec(&evt_filter_nr_set);
}

/*
 * An extack message with a number or a name in it. 6.1 has no
 * NL_SET_ERR_MSG_FMT (6.2) and the ack keeps only a pointer: the text goes
 * to one of a few static buffers, used in turn. More concurrent failing
 * requests than buffers could garble a message, never overrun one: each
 * buffer's last byte stays NUL.
 */
#define EVT_EXTACK_BUFS		8
#define EVT_EXTACK_LEN		128
static __printf(3, 4) void evt_extack_fmt(struct netlink_ext_ack *extack,
					  const struct nlattr *attr, const char *fmt, ...)
{
	static char bufs[EVT_EXTACK_BUFS][EVT_EXTACK_LEN];
	static atomic_t next = ATOMIC_INIT(0);
	char *buf;
	va_list ap;

	if (!extack)
		return;
	buf = bufs[(unsigned int)atomic_inc_return(&next) % EVT_EXTACK_BUFS];
	va_start(ap, fmt);
	vsnprintf(buf, EVT_EXTACK_LEN - 1, fmt, ap);
	va_end(ap);
	extack->_msg = buf;
	extack->bad_attr = attr;
}
static bool evt_filter_probes_on;

/**
 * evt_filter_pass() - whether a task's events are recorded
 * @t: the task (current, or the task an event is about)
 *
 * Called by the fast path with preemption disabled, only while a filter may
 * be set (evt_filter_key); from any context, NMI included.
 *
 * Return: true when no filter is set or @t is tracked.
 */
bool evt_filter_pass(struct task_struct *t)
{
	const struct evt_filter *f = rcu_dereference_sched(evt_filter_cur);
	unsigned int i;
	bool in = false;

	if (!f)
		return true;
	if (test_bit(t->tgid, evt_filter_pids))
		return true;
	for (i = 0; i < f->nr_comms; i++)
		if (!strncmp(t->comm, f->comms[i], TASK_COMM_LEN))
			return true;
	if (f->nr_cgroups) {
		/* The task's css_set is RCU-protected (plain RCU, NMI-safe). */
		rcu_read_lock();
		for (i = 0; i < f->nr_cgroups && !in; i++)
			in = task_under_cgroup_hierarchy(t, f->cgroups[i]);
		rcu_read_unlock();
	}
	return in;
}

/*
 * Tracepoint sched_process_fork, before the child first runs: a new process
 * of a tracked task is tracked with --follow-fork; any other new process
 * clears what a dead process of the same ID left.
 */
static void evt_filter_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	const struct evt_filter *f = rcu_dereference_sched(evt_filter_cur);
	unsigned long flags;

	/* A new thread shares its process ID: already tracked or not. */
	if (!f || child->pid != child->tgid)
		return;
	if (f->follow_fork && evt_filter_pass(parent)) {
		raw_spin_lock_irqsave(&evt_filter_pid_lock, flags);
		evt_pid_set(child->tgid);
		raw_spin_unlock_irqrestore(&evt_filter_pid_lock, flags);
	} else if (test_bit(child->tgid, evt_filter_pids)) {
		raw_spin_lock_irqsave(&evt_filter_pid_lock, flags);
		evt_pid_clear(child->tgid);
		raw_spin_unlock_irqrestore(&evt_filter_pid_lock, flags);
	}
}

/* A live process has this global ID (under rcu_read_lock()). */
static bool evt_filter_live(unsigned long nr)
{
	return pid_task(find_pid_ns(nr, &init_pid_ns), PIDTYPE_TGID);
}

/*
 * Tracepoint sched_process_free (an RCU callback, once a task is released),
 * after the recording probes (a lower priority): a process's last task
 * freed, its bit goes, unless its ID was given to a new process already
 * (whose fork the fork probe judged).
 */
static void evt_filter_free(void *data, struct task_struct *t)
{
	unsigned long flags;

	if (t->pid != t->tgid || !test_bit(t->tgid, evt_filter_pids))
		return;
	raw_spin_lock_irqsave(&evt_filter_pid_lock, flags);
	rcu_read_lock();
	if (!evt_filter_live(t->tgid))
		evt_pid_clear(t->tgid);
	rcu_read_unlock();
	raw_spin_unlock_irqrestore(&evt_filter_pid_lock, flags);
}

/* Tracepoint cgroup_mkdir: a tracked path may have a new cgroup (the work checks). */
static void evt_filter_cgroup_mkdir(void *data, struct cgroup *cgrp, const char *path)
{
	const struct evt_filter *f = rcu_dereference_sched(evt_filter_cur);

	if (f && f->nr_cgroups)
		schedule_work(&evt_filter_cgroups_work);
}

/* The filter's hooks: forks, releases and new cgroups. */
static struct evt_tp_hook evt_filter_fork_hook = {
	.name = "sched_process_fork", .probe = evt_filter_fork,
};
static struct evt_tp_hook evt_filter_free_hook = {
	.name = "sched_process_free", .probe = evt_filter_free,
};
static struct evt_tp_hook evt_filter_mkdir_hook = {
	.name = "cgroup_mkdir", .probe = evt_filter_cgroup_mkdir,
};

static int evt_filter_probes_attach(struct netlink_ext_ack *extack)
{
	int ret;

	if (evt_filter_probes_on)
		return 0;
	if (!evt_filter_fork_hook.tp) {
		NL_SET_ERR_MSG(extack, "this kernel has no sched_process_fork tracepoint: filters need it");
		return -EOPNOTSUPP;
	}
	ret = evt_tp_attach(&evt_filter_fork_hook, NULL);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot attach the filter's probe to sched_process_fork");
		return ret;
	}
	/*
	 * Without these a dead process's bit waits for its ID's reuse, and a
	 * recreated cgroup for the next TRACK of its path: worse, not wrong.
	 * Priority 0: after the probes that record sched_process_free.
	 */
	if (evt_filter_free_hook.tp && evt_tp_attach_prio(&evt_filter_free_hook, NULL, 0))
		pr_warn("cannot attach the filter's probe to sched_process_free: a dead process's ID stays counted until reused\n");
	if (evt_filter_mkdir_hook.tp && evt_tp_attach(&evt_filter_mkdir_hook, NULL))
		pr_warn("cannot attach the filter's probe to cgroup_mkdir: a cgroup created again is tracked at the next TRACK of its path\n");
	evt_filter_probes_on = true;
	return 0;
}

/* Then wait for tracepoint_synchronize_unregister() before freeing. */
static void evt_filter_probes_detach(void)
{
	if (!evt_filter_probes_on)
		return;
	evt_tp_detach(&evt_filter_fork_hook, NULL);
	evt_tp_detach(&evt_filter_free_hook, NULL);
	evt_tp_detach(&evt_filter_mkdir_hook, NULL);
	evt_filter_probes_on = false;
}

static struct evt_filter *evt_filter_locked(void)
{
	return rcu_dereference_protected(evt_filter_cur, lockdep_is_held(&evt_filter_lock));
}

/* Tracked process IDs: those not yet freed (or reused), counted as they change. */
static unsigned int evt_filter_nr_pids(void)
{
	return atomic_read(&evt_filter_nr_set);
}

/* What a request names, parsed and checked before anything changes. */
struct evt_filter_req {
	unsigned int nr_pids, nr_comms, nr_cgroups;
	pid_t *pids;				/* global process IDs */
	char comms[EVT_FILTER_COMMS_MAX][TASK_COMM_LEN];
	char *cgroup_paths[EVT_FILTER_CGROUPS_MAX];
	struct cgroup *cgroups[EVT_FILTER_CGROUPS_MAX];	/* TRACK: a reference each */
	int follow_fork;			/* -1 not given */
};

static void evt_filter_req_free(struct evt_filter_req *q)
{
	unsigned int i;

	for (i = 0; i < q->nr_cgroups; i++) {
		if (q->cgroups[i])
			cgroup_put(q->cgroups[i]);
		kfree(q->cgroup_paths[i]);
	}
	kfree(q->pids);
}

/* A process ID of the caller's namespace, as the global one; 0 when none. */
static pid_t evt_filter_global_tgid(pid_t nr, bool *thread)
{
	struct task_struct *t;
	pid_t g = 0;

	*thread = false;
	rcu_read_lock();
	t = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (t) {
		if (t->pid != t->tgid)
			*thread = true;
		else
			g = t->tgid;
	}
	rcu_read_unlock();
	return g;
}

static int evt_filter_parse_pids(struct nlattr *list, struct evt_filter_req *q, bool track,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *a;
	int rem, n = 0;

	nla_for_each_nested(a, list, rem)
		n++;
	q->pids = kcalloc(n ? n : 1, sizeof(*q->pids), GFP_KERNEL);
	if (!q->pids)
		return -ENOMEM;
	nla_for_each_nested(a, list, rem) {
		pid_t nr;
		bool thread;

		if (nla_type(a) != EVT_A_FILTER_PID || nla_len(a) != sizeof(u32)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "FILTER_PIDS holds only u32 FILTER_PID entries");
			return -EINVAL;
		}
		nr = (pid_t)nla_get_u32(a);
		if (nr <= 0) {
			NL_SET_ERR_MSG_ATTR(extack, a, "a process ID is a positive number");
			return -EINVAL;
		}
		q->pids[q->nr_pids] = evt_filter_global_tgid(nr, &thread);
		if (thread) {
			evt_extack_fmt(extack, a, "%d is a thread, not a process: track its process ID (Tgid in /proc/%d/status)",
						nr, nr);
			return -EINVAL;
		}
		if (!q->pids[q->nr_pids]) {
			if (track) {
				evt_extack_fmt(extack, a, "no process has the ID %d", nr);
				return -ESRCH;
			}
			/* Gone since it was tracked: it left the set then. */
			evt_extack_fmt(extack, a, "process %d is not tracked (no process has that ID now)",
						nr);
			return -ENOENT;
		}
		q->nr_pids++;
	}
	return 0;
}

/* A list entry of type @type holding a NUL-terminated string, else NULL. */
static const char *evt_filter_string(const struct nlattr *a, int type)
{
	const char *s = nla_data(a);
	int len = nla_len(a);

	return nla_type(a) == type && len >= 1 && s[len - 1] == '\0' ? s : NULL;
}

static int evt_filter_parse_comms(struct nlattr *list, struct evt_filter_req *q,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, list, rem) {
		const char *s = evt_filter_string(a, EVT_A_FILTER_COMM);
		int len = nla_len(a);

		if (!s) {
			NL_SET_ERR_MSG_ATTR(extack, a, "FILTER_COMMS holds only NUL-terminated FILTER_COMM strings");
			return -EINVAL;
		}
		if (!s[0]) {
			NL_SET_ERR_MSG_ATTR(extack, a, "a process name is not empty");
			return -EINVAL;
		}
		if (len - 1 > EVT_FILTER_COMM_MAX) {
			evt_extack_fmt(extack, a, "process name of %d bytes: the kernel keeps at most " EVT_STR(EVT_FILTER_COMM_MAX) " (as ps -o comm shows it)",
						len - 1);
			return -ENAMETOOLONG;
		}
		if (q->nr_comms == EVT_FILTER_COMMS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a, "more than " EVT_STR(EVT_FILTER_COMMS_MAX) " process names");
			return -E2BIG;
		}
		strscpy_pad(q->comms[q->nr_comms++], s, TASK_COMM_LEN);
	}
	return 0;
}

static int evt_filter_parse_cgroups(struct nlattr *list, struct evt_filter_req *q, bool track,
				    struct netlink_ext_ack *extack)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, list, rem) {
		const char *s = evt_filter_string(a, EVT_A_FILTER_CGROUP);
		int len = nla_len(a);
		struct cgroup *cg;

		if (!s) {
			NL_SET_ERR_MSG_ATTR(extack, a, "FILTER_CGROUPS holds only NUL-terminated FILTER_CGROUP strings");
			return -EINVAL;
		}
		if (s[0] != '/') {
			NL_SET_ERR_MSG_ATTR(extack, a, "a cgroup path starts with / (the cgroup v2 root, as /proc/PID/cgroup shows it)");
			return -EINVAL;
		}
		if (len > EVT_FILTER_CGROUP_PATH_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a, "cgroup path longer than " EVT_STR(EVT_FILTER_CGROUP_PATH_MAX) " bytes");
			return -ENAMETOOLONG;
		}
		if (q->nr_cgroups == EVT_FILTER_CGROUPS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, a, "more than " EVT_STR(EVT_FILTER_CGROUPS_MAX) " cgroups");
			return -E2BIG;
		}
		q->cgroup_paths[q->nr_cgroups] = kstrdup(s, GFP_KERNEL);
		if (!q->cgroup_paths[q->nr_cgroups])
			return -ENOMEM;
		q->nr_cgroups++;
		if (!track)
			continue;
		cg = cgroup_get_from_path(s);
		if (IS_ERR(cg)) {
			if (PTR_ERR(cg) == -ENOENT)
				evt_extack_fmt(extack, a, "no cgroup %.80s in the cgroup v2 hierarchy", s);
			else if (PTR_ERR(cg) == -ENOTDIR)
				evt_extack_fmt(extack, a, "%.80s is not a cgroup (a file of one?)", s);
			else
				evt_extack_fmt(extack, a, "cgroup %.80s: error %ld", s, PTR_ERR(cg));
			return PTR_ERR(cg);
		}
		q->cgroups[q->nr_cgroups - 1] = cg;
	}
	return 0;
}

static int evt_filter_parse(struct nlattr **a, struct evt_filter_req *q, bool track,
			    struct netlink_ext_ack *extack)
{
	int ret = 0;

	memset(q, 0, sizeof(*q));
	q->follow_fork = a[EVT_A_FILTER_FOLLOW_FORK] ? nla_get_u8(a[EVT_A_FILTER_FOLLOW_FORK]) : -1;
	if (a[EVT_A_FILTER_PIDS])
		ret = evt_filter_parse_pids(a[EVT_A_FILTER_PIDS], q, track, extack);
	if (!ret && a[EVT_A_FILTER_COMMS])
		ret = evt_filter_parse_comms(a[EVT_A_FILTER_COMMS], q, extack);
	if (!ret && a[EVT_A_FILTER_CGROUPS])
		ret = evt_filter_parse_cgroups(a[EVT_A_FILTER_CGROUPS], q, track, extack);
	return ret;
}

static int evt_filter_find_comm(const struct evt_filter *f, const char *comm)
{
	unsigned int i;

	for (i = 0; i < f->nr_comms; i++)
		if (!strncmp(f->comms[i], comm, TASK_COMM_LEN))
			return i;
	return -1;
}

static int evt_filter_find_cgroup(const struct evt_filter *f, const char *path)
{
	unsigned int i;

	for (i = 0; i < f->nr_cgroups; i++)
		if (!strcmp(f->cgroup_paths[i], path))
			return i;
	return -1;
}

/*
 * Publish @nf (NULL: no filter) in place of @old, wait until no writer reads
 * @old, free it. The cgroups and paths in @old that @nf does not hold are
 * released by the caller's bookkeeping: here only the struct goes.
 */
static void evt_filter_publish(struct evt_filter *old, struct evt_filter *nf)
{
	rcu_assign_pointer(evt_filter_cur, nf);
	if (nf && !old)
		static_branch_enable(&evt_filter_key);
	else if (!nf && old)
		static_branch_disable(&evt_filter_key);
	/* Writers read the filter with preemption disabled. */
	synchronize_rcu();
	kfree(old);
}

/**
 * evt_filter_track() - TRACK: add process IDs, names, cgroups
 * @a: the request's attributes
 * @extack: where an error is explained
 *
 * Nothing changes unless every item is valid.
 *
 * Return: 0 or a negative errno, with @extack set.
 */
int evt_filter_track(struct nlattr **a, struct netlink_ext_ack *extack)
{
	struct cgroup *replaced[EVT_FILTER_CGROUPS_MAX];
	unsigned int replaced_at[EVT_FILTER_CGROUPS_MAX], nr_replaced = 0, i;
	struct evt_filter_req q;
	struct evt_filter *old, *nf;
	unsigned long flags;
	int ret, k;

	if (!a[EVT_A_FILTER_PIDS] && !a[EVT_A_FILTER_COMMS] && !a[EVT_A_FILTER_CGROUPS] &&
	    !a[EVT_A_FILTER_FOLLOW_FORK]) {
		NL_SET_ERR_MSG(extack, "nothing to track: give FILTER_PIDS, FILTER_COMMS, FILTER_CGROUPS or FILTER_FOLLOW_FORK");
		return -EINVAL;
	}
	ret = evt_filter_parse(a, &q, true, extack);
	if (ret)
		goto out;
	mutex_lock(&evt_filter_lock);
	old = evt_filter_locked();
	if (!old && !q.nr_pids && !q.nr_comms && !q.nr_cgroups) {
		NL_SET_ERR_MSG(extack, "no filter is set: FOLLOW_FORK alone would track nothing");
		ret = -EINVAL;
		goto unlock;
	}
	ret = -ENOMEM;
	if (!evt_filter_pids) {
		evt_filter_pids = vzalloc(BITS_TO_LONGS(PID_MAX_LIMIT) * sizeof(long));
		if (!evt_filter_pids)
			goto unlock;
	}
	nf = old ? kmemdup(old, sizeof(*old), GFP_KERNEL) : kzalloc(sizeof(*nf), GFP_KERNEL);
	if (!nf)
		goto unlock;
	for (i = 0; i < q.nr_comms; i++) {
		if (evt_filter_find_comm(nf, q.comms[i]) >= 0)
			continue;
		if (nf->nr_comms == EVT_FILTER_COMMS_MAX) {
			NL_SET_ERR_MSG(extack, "more than " EVT_STR(EVT_FILTER_COMMS_MAX) " process names would be tracked");
			ret = -E2BIG;
			goto free_nf;
		}
		memcpy(nf->comms[nf->nr_comms++], q.comms[i], TASK_COMM_LEN);
	}
	for (i = 0; i < q.nr_cgroups; i++) {
		k = evt_filter_find_cgroup(nf, q.cgroup_paths[i]);
		if (k >= 0 && nf->cgroups[k] != q.cgroups[i]) {
			/* Removed and created again at the path: the new one. */
			replaced_at[nr_replaced] = k;
			replaced[nr_replaced++] = nf->cgroups[k];
			nf->cgroups[k] = q.cgroups[i];
			q.cgroups[i] = NULL;
		}
		if (k >= 0)
			continue;
		if (nf->nr_cgroups == EVT_FILTER_CGROUPS_MAX) {
			NL_SET_ERR_MSG(extack, "more than " EVT_STR(EVT_FILTER_CGROUPS_MAX) " cgroups would be tracked");
			ret = -E2BIG;
			goto free_nf;
		}
		/* The filter takes the reference and the path from the request. */
		nf->cgroups[nf->nr_cgroups] = q.cgroups[i];
		nf->cgroup_paths[nf->nr_cgroups++] = q.cgroup_paths[i];
		q.cgroups[i] = NULL;
		q.cgroup_paths[i] = NULL;
	}
	if (q.follow_fork >= 0)
		nf->follow_fork = q.follow_fork;
	ret = evt_filter_probes_attach(extack);
	if (ret)
		goto free_nf;
	/* Bits before the filter is published: no tracked task is missed. */
	raw_spin_lock_irqsave(&evt_filter_pid_lock, flags);
	for (i = 0; i < q.nr_pids; i++)
		evt_pid_set(q.pids[i]);
	raw_spin_unlock_irqrestore(&evt_filter_pid_lock, flags);
	evt_filter_publish(old, nf);
	for (i = 0; i < nr_replaced; i++)
		cgroup_put(replaced[i]);
	ret = 0;
	goto unlock;
free_nf:
	/* Items moved into @nf are released; the old filter keeps its own. */
	for (i = old ? old->nr_cgroups : 0; i < nf->nr_cgroups; i++) {
		cgroup_put(nf->cgroups[i]);
		kfree(nf->cgroup_paths[i]);
	}
	for (i = 0; i < nr_replaced; i++)
		cgroup_put(nf->cgroups[replaced_at[i]]);
	kfree(nf);
unlock:
	mutex_unlock(&evt_filter_lock);
out:
	evt_filter_req_free(&q);
	return ret;
}

/* After the last filter went away: the probes out, the bitmap cleared. */
static void evt_filter_teardown_locked(void)
{
	evt_filter_probes_detach();
	tracepoint_synchronize_unregister();
	if (evt_filter_pids)
		bitmap_zero(evt_filter_pids, PID_MAX_LIMIT);
	atomic_set(&evt_filter_nr_set, 0);
}

/**
 * evt_filter_untrack() - UNTRACK: remove items, or FILTER_ALL
 * @a: the request's attributes
 * @extack: where an error is explained
 *
 * An item that is not tracked is an error and nothing changes. When nothing
 * is left tracked, the filter goes and every task is recorded again.
 *
 * Return: 0 or a negative errno, with @extack set.
 */
int evt_filter_untrack(struct nlattr **a, struct netlink_ext_ack *extack)
{
	struct evt_filter_req q;
	struct cgroup *put[EVT_FILTER_CGROUPS_MAX];
	char *put_paths[EVT_FILTER_CGROUPS_MAX];
	struct evt_filter *old, *nf = NULL;
	unsigned int i, nr_put = 0;
	bool all = a[EVT_A_FILTER_ALL];
	unsigned long flags;
	int ret, k;

	if (all == !!(a[EVT_A_FILTER_PIDS] || a[EVT_A_FILTER_COMMS] || a[EVT_A_FILTER_CGROUPS])) {
		if (all)
			NL_SET_ERR_MSG(extack, "FILTER_ALL goes alone");
		else
			NL_SET_ERR_MSG(extack, "nothing to untrack: give FILTER_PIDS, FILTER_COMMS, FILTER_CGROUPS or FILTER_ALL");
		return -EINVAL;
	}
	ret = evt_filter_parse(a, &q, false, extack);
	if (ret)
		goto out;
	mutex_lock(&evt_filter_lock);
	old = evt_filter_locked();
	if (!old) {
		if (!all) {
			NL_SET_ERR_MSG(extack, "no filter is set: every task is recorded");
			ret = -ENOENT;
		}
		goto unlock;
	}
	if (!all) {
		ret = -ENOMEM;
		nf = kmemdup(old, sizeof(*old), GFP_KERNEL);
		if (!nf)
			goto unlock;
		ret = -ENOENT;
		for (i = 0; i < q.nr_pids; i++) {
			if (!test_bit(q.pids[i], evt_filter_pids)) {
				evt_extack_fmt(extack, NULL, "process %d is not tracked", q.pids[i]);
				goto free_nf;
			}
		}
		for (i = 0; i < q.nr_comms; i++) {
			k = evt_filter_find_comm(nf, q.comms[i]);
			if (k < 0) {
				evt_extack_fmt(extack, NULL, "process name %s is not tracked", q.comms[i]);
				goto free_nf;
			}
			memmove(nf->comms[k], nf->comms[k + 1], (--nf->nr_comms - k) * TASK_COMM_LEN);
		}
		for (i = 0; i < q.nr_cgroups; i++) {
			k = evt_filter_find_cgroup(nf, q.cgroup_paths[i]);
			if (k < 0) {
				evt_extack_fmt(extack, NULL, "cgroup %s is not tracked", q.cgroup_paths[i]);
				goto free_nf;
			}
			put[nr_put] = nf->cgroups[k];
			put_paths[nr_put++] = nf->cgroup_paths[k];
			nf->nr_cgroups--;
			memmove(&nf->cgroups[k], &nf->cgroups[k + 1], (nf->nr_cgroups - k) * sizeof(nf->cgroups[0]));
			memmove(&nf->cgroup_paths[k], &nf->cgroup_paths[k + 1],
				(nf->nr_cgroups - k) * sizeof(nf->cgroup_paths[0]));
		}
		raw_spin_lock_irqsave(&evt_filter_pid_lock, flags);
		for (i = 0; i < q.nr_pids; i++)
			evt_pid_clear(q.pids[i]);
		raw_spin_unlock_irqrestore(&evt_filter_pid_lock, flags);
		if (!nf->nr_comms && !nf->nr_cgroups && !evt_filter_nr_pids()) {
			kfree(nf);
			nf = NULL;
		}
	}
	if (!nf) {
		/* Everything goes: the filter's own cgroups too. */
		nr_put = 0;
		for (i = 0; i < old->nr_cgroups; i++) {
			put[nr_put] = old->cgroups[i];
			put_paths[nr_put++] = old->cgroup_paths[i];
		}
	}
	evt_filter_publish(old, nf);
	if (!nf)
		evt_filter_teardown_locked();
	for (i = 0; i < nr_put; i++) {
		cgroup_put(put[i]);
		kfree(put_paths[i]);
	}
	ret = 0;
	goto unlock;
free_nf:
	kfree(nf);
unlock:
	mutex_unlock(&evt_filter_lock);
out:
	evt_filter_req_free(&q);
	return ret;
}

/**
 * evt_filter_put_status() - STATUS's FILTER nest, when a filter is set
 * @skb: the message
 * @names: the caller may see what the filter names (CAP_NET_ADMIN): the
 *	process names and cgroup paths; anyone else gets how many there are
 *
 * Bounded work whatever is tracked: counts kept as the filter changes.
 *
 * Return: 0 (also with no filter: nothing added), or -EMSGSIZE.
 */
int evt_filter_put_status(struct sk_buff *skb, bool names)
{
	struct nlattr *n, *list;
	struct evt_filter *f;
	unsigned int i;
	int ret = -EMSGSIZE;

	mutex_lock(&evt_filter_lock);
	f = evt_filter_locked();
	if (!f) {
		ret = 0;
		goto out;
	}
	n = nla_nest_start(skb, EVT_A_FILTER);
	if (!n || nla_put_u32(skb, EVT_A_FILTER_NR_PIDS, evt_filter_nr_pids()) ||
	    nla_put_u8(skb, EVT_A_FILTER_FOLLOW_FORK, f->follow_fork) ||
	    nla_put_u32(skb, EVT_A_FILTER_NR_COMMS, f->nr_comms) ||
	    nla_put_u32(skb, EVT_A_FILTER_NR_CGROUPS, f->nr_cgroups))
		goto out;
	if (names) {
		list = nla_nest_start(skb, EVT_A_FILTER_COMMS);
		if (!list)
			goto out;
		for (i = 0; i < f->nr_comms; i++)
			if (nla_put_string(skb, EVT_A_FILTER_COMM, f->comms[i]))
				goto out;
		nla_nest_end(skb, list);
		list = nla_nest_start(skb, EVT_A_FILTER_CGROUPS);
		if (!list)
			goto out;
		for (i = 0; i < f->nr_cgroups; i++)
			if (nla_put_string(skb, EVT_A_FILTER_CGROUP, f->cgroup_paths[i]))
				goto out;
		nla_nest_end(skb, list);
	}
	nla_nest_end(skb, n);
	ret = 0;
out:
	mutex_unlock(&evt_filter_lock);
	return ret;
}

/*
 * A cgroup was created: resolve the tracked paths again, and take the new
 * cgroup of a path whose tracked one was removed (a unit restarted).
 */
static void evt_filter_cgroups_fn(struct work_struct *w)
{
	struct cgroup *put[EVT_FILTER_CGROUPS_MAX];
	struct evt_filter *old, *nf = NULL;
	unsigned int i, nr_put = 0;

	mutex_lock(&evt_filter_lock);
	old = evt_filter_locked();
	for (i = 0; old && i < old->nr_cgroups; i++) {
		struct cgroup *cg = cgroup_get_from_path(old->cgroup_paths[i]);

		if (IS_ERR(cg))
			continue;
		if (cg == old->cgroups[i] || (!nf && !(nf = kmemdup(old, sizeof(*old), GFP_KERNEL)))) {
			cgroup_put(cg);
			continue;
		}
		put[nr_put++] = nf->cgroups[i];
		nf->cgroups[i] = cg;
	}
	if (nf) {
		evt_filter_publish(old, nf);
		for (i = 0; i < nr_put; i++)
			cgroup_put(put[i]);
	}
	mutex_unlock(&evt_filter_lock);
}

/**
 * evt_filter_active() - whether a filter is set (STATUS's cursor asks)
 *
 * Return: true while a filter is set.
 */
bool evt_filter_active(void)
{
	return rcu_access_pointer(evt_filter_cur);
}

/* debugfs "filter" (root only): the tracked process IDs, for people and tests. */
static int evt_filter_show(struct seq_file *m, void *v)
{
	unsigned long pid;

	mutex_lock(&evt_filter_lock);
	if (evt_filter_locked()) {
		rcu_read_lock();
		for_each_set_bit(pid, evt_filter_pids, PID_MAX_LIMIT)
			if (evt_filter_live(pid))
				seq_printf(m, "%lu\n", pid);
		rcu_read_unlock();
	}
	mutex_unlock(&evt_filter_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(evt_filter);

/**
 * evt_filter_init() - find the tracepoints the filters follow
 * @dir: the module's debugfs directory (the "filter" file goes there)
 */
void evt_filter_init(struct dentry *dir)
{
	static struct evt_tp_hook *const hooks[] = {
		&evt_filter_fork_hook, &evt_filter_free_hook, &evt_filter_mkdir_hook,
	};

	evt_tp_find(hooks, ARRAY_SIZE(hooks));
	debugfs_create_file("filter", 0400, dir, NULL, &evt_filter_fops);
}

/**
 * evt_filter_exit() - drop the filter, after netlink and tracing stopped
 */
void evt_filter_exit(void)
{
	struct evt_filter *f;
	unsigned int i;

	/* The probes are detached below; this takes evt_filter_lock itself. */
	cancel_work_sync(&evt_filter_cgroups_work);
	mutex_lock(&evt_filter_lock);
	f = evt_filter_locked();
	if (f) {
		rcu_assign_pointer(evt_filter_cur, NULL);
		static_branch_disable(&evt_filter_key);
		synchronize_rcu();
		for (i = 0; i < f->nr_cgroups; i++) {
			cgroup_put(f->cgroups[i]);
			kfree(f->cgroup_paths[i]);
		}
		kfree(f);
	}
	evt_filter_probes_detach();
	tracepoint_synchronize_unregister();
	mutex_unlock(&evt_filter_lock);
	/* The cgroup_mkdir probe may have queued it again before it went. */
	cancel_work_sync(&evt_filter_cgroups_work);
	vfree(evt_filter_pids);
	evt_filter_pids = NULL;
}
