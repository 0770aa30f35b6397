// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <evtrace/netlink.h>
#include "evd_snapshots.h"
#include "control/evt_ctl.h"
#include "consumer/evt_snapshot.h"
#include "consumer/evt_trim.h"

/* The triggers announced since the last snapshot: only the last one's bounds are kept. */
struct pending {
	int fired;
	int reason;
	uint64_t seq, ts;
	uint64_t missed;	/* announced, but a later one came before they were read */
};

static void on_notify(const struct evt_notification *n, void *arg)
{
	struct pending *p = arg;

	if (n->reason != EVT_NOTIFY_TRIGGER)
		return;
	p->missed += p->fired;
	p->fired = 1;
	p->reason = n->trigger_reason;
	p->seq = n->trigger_seq;
	p->ts = n->trigger_ts;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The module says which reports fire: none unless asked (its parameter triggers). */
static void warn_if_no_trigger(void)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/module/evtrace/parameters/triggers", "r");

	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, "none", 4))
		fprintf(stderr, "evdrain: no trigger is on (/sys/module/evtrace/parameters/triggers "
			"is none): write e.g. all or kasan,warn there, or load the module with "
			"triggers=...\n");
	fclose(f);
}

/* DIR/<UTC time>-<reason>-<seq>, made anew: 0, or -1 after a message. */
static int snapshot_dir(const struct evd_snap_opts *o, const struct pending *p, char *path,
			size_t len)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	int i;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (i = 1; i < 100; i++) {
		if (i == 1)
			snprintf(path, len, "%s/%s-%s-%" PRIu64, o->dir, stamp,
				 evt_trigger_name(p->reason), p->seq);
		else
			snprintf(path, len, "%s/%s-%s-%" PRIu64 ".%d", o->dir, stamp,
				 evt_trigger_name(p->reason), p->seq, i);
		if (mkdir(path, 0750) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	fprintf(stderr, "evdrain: --snapshots: cannot create %s: %s\n", path, strerror(errno));
	return -1;
}

static void save(struct evt_ctl *ctl, const struct evd_snap_opts *o, const struct pending *p)
{
	struct evt_snapshot_result res;
	struct evt_trim_result tr = { 0 };
	char path[4096], err[600];
	uint64_t not_before = 0;
	int ret;

	if (snapshot_dir(o, p, path, sizeof(path)))
		return;
	ret = evt_snapshot_save(ctl, path, p->seq, o->xfer, &res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "evdrain: trigger %" PRIu64 " (%s): snapshot failed: %s\n", p->seq,
			evt_trigger_name(p->reason), err);
		evt_snapshot_undo(path, 1);	/* no half snapshot left behind */
		return;
	}
	if (o->keep_ms && p->ts > o->keep_ms * 1000000)
		not_before = p->ts - o->keep_ms * 1000000;
	if ((not_before || o->keep_bytes) &&
	    evt_trim_trace(path, not_before, o->keep_bytes, &tr, err, sizeof(err))) {
		fprintf(stderr, "evdrain: trigger %" PRIu64 ": %s: cutting to --keep-ms/--keep-mb failed: "
			"%s\n", p->seq, path, err);
		return;
	}
	if (!o->quiet) {
		printf("trigger %" PRIu64 " (%s) at %" PRIu64 ": %s: %" PRIu64 " packets, %" PRIu64
		       " bytes, %d streams", p->seq, evt_trigger_name(p->reason), p->ts, path,
		       res.packets - tr.packets_dropped, res.bytes - tr.bytes_dropped, res.streams);
		if (tr.packets_dropped)
			printf(" (%" PRIu64 " older packets left out)", tr.packets_dropped);
		putchar('\n');
		fflush(stdout);
	}
	evt_snapshot_note_unanswered(stderr, "evdrain", &res);
}

int evd_snapshots_run(struct evt_ctl *ctl, const struct evd_snap_opts *o,
		      volatile sig_atomic_t *stop)
{
	uint64_t end = o->duration_ms ? now_ms() + o->duration_ms : 0;
	struct pending p = { 0 };
	struct stat st;

	if (mkdir(o->dir, 0750) && errno != EEXIST) {
		fprintf(stderr, "evdrain: --snapshots: cannot create %s: %s\n", o->dir, strerror(errno));
		return -1;
	}
	if (stat(o->dir, &st) || !S_ISDIR(st.st_mode) || access(o->dir, W_OK | X_OK)) {
		fprintf(stderr, "evdrain: --snapshots: %s is not a directory evdrain can write into\n",
			o->dir);
		return -1;
	}
	warn_if_no_trigger();
	if (!o->quiet)
		fprintf(stderr, "evdrain: waiting for triggers, snapshots go to %s\n", o->dir);
	while (!*stop && (!end || now_ms() < end)) {
		int ret = evt_ctl_notify_wait(ctl, 200, on_notify, &p);

		/* An overflowed socket lost notifications, not the kept bounds: go on. */
		if (ret < 0 && ret != -EINTR && ret != -ENOBUFS) {
			fprintf(stderr, "evdrain: notifications: %s\n", evt_ctl_errmsg(ctl));
			return -1;
		}
		if (!p.fired)
			continue;
		if (p.missed)
			fprintf(stderr, "evdrain: %" PRIu64 " trigger(s) before %" PRIu64 " came too close "
				"to it to be saved: only the last one's bounds are kept\n", p.missed, p.seq);
		save(ctl, o, &p);
		p.fired = 0;
		p.missed = 0;
	}
	return 0;
}
