// SPDX-License-Identifier: GPL-2.0
/*
 * evdrain: drain evtrace's per-CPU rings into a CTF trace directory.
 *
 * A composition: the consumer library (lib/consumer/evt_consumer.h) opens
 * the rings and moves whole packets to the files; evdrain decides when. It
 * is woken by the rings' poll (high-water mark), by the module's "notify"
 * multicast (FLUSHED, CPU_ONLINE, first losses) and by a slow fallback timer.
 * --live also decodes every packet into the watermark reorderer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <evtrace/abi.h>
#include "evd_command.h"
#include "evd_figures.h"
#include "evd_outdir.h"
#include "evd_options.h"
#include "evd_rotate.h"
#include "evd_snapshots.h"
#include "chunk/evt_chunk.h"
#include "util/evt_units.h"
#include "consumer/evt_consumer.h"
#include "control/evt_ctl.h"
#include "util/evt_io.h"
#include "json/evt_json.h"
#include "ctf/evt_decode.h"
#include "format/evt_format.h"
#include "consumer/evt_reorder.h"
#include "ctf/evt_metadata.h"
#include "ctf/evt_trace.h"

/* EVT_VERSION: the top-level VERSION file, passed by the Makefile. */
#ifndef EVT_VERSION
#define EVT_VERSION "unknown"
#endif

#define FALLBACK_MS	1000
/* At exit, hooks still running after this long are killed (the service's stop timeout is 120 s). */
#define HOOK_WAIT_S	60
/*
 * A ring whose last pass took packets is looked at again after this nap
 * instead of at its next high-water wakeup: under a steady flow the drainer
 * stays a few sub-buffers behind the writer, not 70 % of a ring behind with
 * only the scheduler's wakeup latency between it and a loss. A pass that
 * finds nothing returns the ring to notifications alone (no busy polling).
 */
#define BUSY_NAP_MS	2

/* --live: every drained packet is decoded into the watermark reorderer. */
struct live {
	struct evt_metadata meta;	/* the module's: meta.cat decodes its packets */
	struct evt_reorder reorder;
	struct evt_fmt fmt;
	struct evt_out out;
};

static volatile sig_atomic_t stop_requested;
/* With a command: its pid once it runs, and whether a stop signal was passed on to it. */
static volatile sig_atomic_t cmd_pid, cmd_signalled;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/*
	 * The first one goes to the command, which ends the run when it exits:
	 * passed on when sent to evdrain alone (kill, timeout(1), systemd); the
	 * terminal's (SI_KERNEL) reached the command's process group already.
	 */
	if (cmd_pid > 0 && !cmd_signalled) {
		cmd_signalled = 1;
		if (si->si_code != SI_KERNEL)
			kill((pid_t)cmd_pid, sig);
		return;
	}
	stop_requested = 1;
}

/* Only to interrupt the wait: the loop reaps the command. */
static void on_sigchld(int sig)
{
	(void)sig;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Drain one ring; an error other than a full disk is said and the ring tried again later. */
static void drain(struct evt_consumer *con, struct evt_consumer_ring *r)
{
	if (evt_consumer_drain(con, r) < 0 && !con->write_failed)
		fprintf(stderr, "evdrain: %s\n", con->err);
}

static void drain_all(struct evt_consumer *con)
{
	int i;

	for (i = 0; i < con->nr_rings && !con->write_failed; i++)
		drain(con, &con->rings[i]);
}

/* --live: the packet's events go into the reorderer, source = ring index. */
static void live_push(void *arg, struct evt_consumer_ring *r, const uint8_t *pkt, size_t len)
{
	struct live *lv = arg;
	struct evt_packet_iter it;
	struct evt_event ev;
	const uint32_t src = (uint32_t)r->index;
	int rc;

	if (evt_packet_iter_init(&it, lv->meta.cat, pkt, len)) {
		fprintf(stderr, "evdrain: %s: %s\n", r->name, it.err);
		return;
	}
	while ((rc = evt_packet_next(&it, &ev)) == 1)
		evt_reorder_push_event(&lv->reorder, src, (uint32_t)r->cpu, &ev);
	if (rc < 0)
		fprintf(stderr, "evdrain: %s: %s\n", r->name, it.err);
}

/* --live: print what the watermark lets out. */
static void live_emit(struct live *lv)
{
	struct evt_reorder_item it;

	while (evt_reorder_pull(&lv->reorder, &it) == 1)
		evt_fmt_event(&lv->fmt, &lv->out, it.ts, it.cpu, &lv->meta.cat->events[it.desc], it.data,
			      it.len, it.flags & EVT_REORDER_LATE ? EVT_FMT_LATE : 0);
	evt_out_flush(&lv->out);
}

/* --live: the reorderer, with the clock offset of the module's metadata. */
static int live_init(struct live *lv, struct evt_consumer *con, const struct options *o)
{
	uint32_t i;

	if (evt_consumer_metadata(con, &lv->meta)) {
		fprintf(stderr, "evdrain: the module's metadata: %s\n", con->err);
		return -1;
	}
	if (evt_reorder_init(&lv->reorder, EVT_LIVE_SOURCES, (uint32_t)o->delay_ticks, EVT_MERGE_TREE) ||
	    evt_fmt_init(&lv->fmt, o->live_kind, evt_metadata_offset_ns(&lv->meta), lv->meta.cat->events,
			 lv->meta.cat->nr_events) ||
	    evt_out_init(&lv->out, STDOUT_FILENO, 1 << 16)) {
		fprintf(stderr, "evdrain: out of memory\n");
		return -1;
	}
	/* Sources without a ring would hold the watermark back. */
	for (i = (uint32_t)con->nr_rings; i < EVT_LIVE_SOURCES; i++)
		evt_reorder_source_done(&lv->reorder, i);
	return 0;
}

/* --live, every tick: each ring says before when nothing new can come, then the watermark moves. */
static void live_tick(struct live *lv, struct evt_consumer *con)
{
	int i;

	for (i = 0; i < con->nr_rings; i++) {
		struct evt_quiescent q;

		/* Quiescent first (it flushes), then drained: the time covers what was taken. */
		if (evt_consumer_quiescent(con, &con->rings[i], &q) == 0) {
			drain(con, &con->rings[i]);
			evt_reorder_quiescent(&lv->reorder, (uint32_t)i, q.timestamp);
		}
	}
	evt_reorder_tick(&lv->reorder);
	live_emit(lv);
}

struct wake {
	int drain_all;
	int rescan;
	int rotate;		/* evctl rotate */
	int channel;
	int cpu;
};

static void on_notify(const struct evt_notification *n, void *arg)
{
	struct wake *w = arg;

	switch (n->reason) {
	case EVT_NOTIFY_CPU_ONLINE:
		w->rescan = 1;
		w->drain_all = 1;
		break;
	case EVT_NOTIFY_ROTATE:
		w->rotate = 1;
		break;
	case EVT_NOTIFY_HIGH_WATER:
	case EVT_NOTIFY_FLUSHED:
	case EVT_NOTIFY_DISCARDING:
	case EVT_NOTIFY_CPU_OFFLINE:
		if (w->channel == -2) {
			w->channel = n->channel;
			w->cpu = n->cpu;
		} else if (w->channel != n->channel || w->cpu != n->cpu) {
			w->drain_all = 1;
		}
		break;
	default:
		break;
	}
}

/*
 * Sleep until a notification or a ring's own wakeup. The rings' poll wakes
 * at the high-water mark straight from the recording CPU's irq_work, which
 * is quicker than the netlink message (sent from a work item): with one CPU
 * generating flat out, that latency decides whether the ring overflows. The
 * netlink side still brings what poll cannot: CPUs coming online, flushes,
 * first losses. Return: as evt_ctl_notify_wait().
 */
static int wait_for_work(struct evt_ctl *ctl, struct evt_consumer *con, struct pollfd **pfdp,
			 int timeout_ms, struct wake *w)
{
	struct pollfd *pfd = realloc(*pfdp, ((size_t)con->nr_rings + 1) * sizeof(*pfd));
	int i, n;

	if (!pfd)
		return -ENOMEM;
	*pfdp = pfd;
	pfd[0].fd = evt_ctl_notify_fd(ctl);
	pfd[0].events = POLLIN;
	for (i = 0; i < con->nr_rings; i++) {
		pfd[i + 1].fd = con->rings[i].fd;
		pfd[i + 1].events = POLLIN;
	}
	n = poll(pfd, (nfds_t)con->nr_rings + 1, timeout_ms);
	if (n <= 0)
		return n < 0 && errno != EINTR ? -errno : 0;
	for (i = 0; i < con->nr_rings; i++)
		if (pfd[i + 1].revents & POLLIN)
			con->rings[i].ready = 1;
	return pfd[0].revents & POLLIN ? evt_ctl_notify_read(ctl, on_notify, w) : 0;
}

/*
 * Set the session up: the mode (unless attaching), DIR/metadata, the rings,
 * START, and DIR/metadata again. Returns an exit status, EXIT_OK to go on.
 */
static int start_session(struct evt_ctl *ctl, struct evt_consumer *con, const struct options *o)
{
	struct evt_status st;
	int tracing, n;

	evt_status_init(&st);
	tracing = evt_ctl_status(ctl, &st) == 0 && st.tracing;
	evt_status_free(&st);
	if (!o->attach && tracing) {
		fprintf(stderr, "evdrain: tracing is already running: use --attach to drain it\n");
		return EXIT_RUNTIME;
	}
	if (o->mode >= 0) {
		struct evt_config cfg = { .set = EVT_CFG_MODE, .mode = o->mode };

		if (evt_ctl_config(ctl, &cfg)) {
			fprintf(stderr, "evdrain: the kernel refused the mode: %s\n", evt_ctl_errmsg(ctl));
			return EXIT_RUNTIME;
		}
	}
	/* Before START too: a drainer killed early still leaves a readable trace. */
	if (o->outdir && evt_consumer_metadata(con, NULL)) {
		fprintf(stderr, "evdrain: %s\n", con->err);
		return EXIT_OUTDIR;
	}
	n = evt_consumer_open_rings(con);
	if (n < 0) {
		fprintf(stderr, "evdrain: %s\n", con->err);
		return EXIT_OUTDIR;
	}
	if (!n) {
		fprintf(stderr, "evdrain: no ring devices under /dev/evtrace\n");
		return EXIT_RUNTIME;
	}
	if (o->rot.size) {
		uint64_t subbuf;

		evt_status_init(&st);
		subbuf = evt_ctl_status(ctl, &st) == 0 ? st.subbuf_size : 0;
		evt_status_free(&st);
		if (subbuf && o->rot.size < (uint64_t)con->nr_rings * subbuf) {
			fprintf(stderr, "evdrain: --rotate-size %llu is too small: a chunk holds at least one "
				"packet per stream, %d streams x %llu bytes = %llu\n",
				(unsigned long long)o->rot.size, con->nr_rings, (unsigned long long)subbuf,
				(unsigned long long)con->nr_rings * subbuf);
			return EXIT_USAGE;
		}
	}
	if (!o->attach && evt_ctl_start(ctl)) {
		fprintf(stderr, "evdrain: the kernel refused to start: %s\n", evt_ctl_errmsg(ctl));
		return EXIT_RUNTIME;
	}
	/* The module takes the realtime clock's offset at START. */
	if (o->outdir && evt_consumer_metadata(con, NULL)) {
		fprintf(stderr, "evdrain: %s\n", con->err);
		return EXIT_OUTDIR;
	}
	return EXIT_OK;
}

/* The trace (or the chunk in progress) has the kernel's symbols of its start. */
static int symbols_saved;

/*
 * The kernel's symbols beside the trace (evt_consumer_symbols()) when any
 * event is recorded with its kernel stack: at START and at each new chunk
 * (once each), and when the trace or chunk ends (@end: modules loaded
 * meanwhile; also the only copy when stacks came on during the trace).
 */
static void save_symbols(struct evt_ctl *ctl, struct evt_consumer *con, int end)
{
	struct evt_status st;
	size_t i;
	int on = symbols_saved, r;

	if ((symbols_saved && !end) || !con->o.out_dir)
		return;
	evt_status_init(&st);
	if (evt_ctl_status(ctl, &st) == 0)
		for (i = 0; i < st.nr_events; i++)
			on |= st.events[i].stack;
	evt_status_free(&st);
	if (!on)
		return;
	symbols_saved = 1;
	r = evt_consumer_symbols(con, end);
	if (r < 0)
		fprintf(stderr, "evdrain: the kernel's symbols: %s (the stacks stay addresses)\n", con->err);
	else if (r > 0)
		fprintf(stderr, "evdrain: /proc/kallsyms shows evdrain no addresses: no symbols for the stacks\n");
}

/* The module's overwritten count per ring now (for a chunk's summary): how many, *@out malloc'd. */
static size_t ring_counts(struct evt_ctl *ctl, struct evd_rot_ring_count **out)
{
	struct evt_status st;
	size_t i, n = 0;

	*out = NULL;
	evt_status_init(&st);
	if (evt_ctl_status(ctl, &st) == 0 && st.nr_rings)
		*out = malloc(st.nr_rings * sizeof(**out));
	for (i = 0; *out && i < st.nr_rings; i++, n++) {
		(*out)[n].channel = st.rings[i].channel;
		(*out)[n].cpu = st.rings[i].cpu;
		(*out)[n].overwritten = st.rings[i].overwritten;
	}
	evt_status_free(&st);
	return n;
}

/* Bytes of whole packets in the stream files of the chunk in progress. */
static uint64_t chunk_bytes(const struct evt_consumer *con)
{
	uint64_t bytes = 0;
	int i;

	for (i = 0; i < con->nr_rings; i++)
		bytes += (uint64_t)con->rings[i].size;
	return bytes;
}

/*
 * Cut: every ring flushed and drained into the chunk in progress (its end
 * is now, on every stream), the consumer moved to a new chunk (its
 * metadata first), the old one handed to the finisher, and the state dump
 * recorded again so that the new chunk reads alone. A chunk with no packet
 * yet is not cut. 1 cut, 0 not, -1 on a failed write (con->err says).
 */
static int cut_chunk(struct evt_ctl *ctl, struct evt_consumer *con, struct evd_rot *rot)
{
	struct evd_rot_ring_count *counts;
	char kdir[4096];
	size_t n;
	int i, ret = 1;

	for (i = 0; i < con->nr_rings; i++)
		ioctl(con->rings[i].fd, EVT_IOC_FLUSH);
	drain_all(con);
	if (con->write_failed)
		return -1;
	if (!chunk_bytes(con))
		return 0;
	/* The chunk ending knows the modules loaded meanwhile. */
	save_symbols(ctl, con, 1);
	if (evd_rot_open_chunk(rot, kdir, sizeof(kdir))) {
		snprintf(con->err, sizeof(con->err), "cannot create the next chunk");
		con->write_failed = 1;
		return -1;
	}
	if (evt_consumer_switch_dir(con, kdir) || evt_consumer_metadata(con, NULL)) {
		con->write_failed = 1;
		ret = -1;
	}
	symbols_saved = 0;
	if (ret > 0)
		save_symbols(ctl, con, 0);
	/* The old chunk is whole either way: it is completed. */
	n = ring_counts(ctl, &counts);
	evd_rot_close_chunk(rot, counts, n);
	free(counts);
	/* A module without the command, or tracing not running: the chunk has no dump, nothing else. */
	if (ret > 0)
		evt_ctl_statedump(ctl);
	return ret;
}

/* Drain until a signal, the duration, a failed write or the command's exit. */
static void drain_loop(struct evt_ctl *ctl, struct evt_consumer *con, const struct options *o,
		       struct live *lv, struct evd_rot *rot, struct evd_cmd *cmd)
{
	const int tty = isatty(STDOUT_FILENO) && !o->quiet && !o->live;
	const uint64_t start = now_ms();
	uint64_t last_drain = start, last_tick = start, chunk_start = start;
	struct evd_progress prog = { .last_ms = start };
	struct pollfd *pfd = NULL;
	int i, ret;

	while (!stop_requested && !con->write_failed) {
		struct wake w = { .channel = -2 };
		int timeout = o->live ? (int)o->tick_ms : 250;
		uint64_t t;

		for (i = 0; i < con->nr_rings; i++)
			if (con->rings[i].busy && timeout > BUSY_NAP_MS)
				timeout = BUSY_NAP_MS;
		if (rot && o->rot.interval_ms) {
			uint64_t due = chunk_start + o->rot.interval_ms, now = now_ms();

			if (due <= now)
				timeout = 0;
			else if (due - now < (uint64_t)timeout)
				timeout = (int)(due - now);
		}
		ret = wait_for_work(ctl, con, &pfd, timeout, &w);
		t = now_ms();
		if (o->live && t - last_tick >= (uint64_t)o->tick_ms) {
			live_tick(lv, con);
			last_tick = last_drain = t;
		}
		if (ret == -ENOBUFS)
			w.drain_all = 1;	/* notifications were lost: look everywhere */
		if (w.rescan) {
			int before = con->nr_rings;

			if (evt_consumer_open_rings(con) < 0) {
				fprintf(stderr, "evdrain: %s\n", con->err);
				break;
			}
			for (i = before; o->live && i < con->nr_rings; i++)
				evt_reorder_source_add(&lv->reorder, (uint32_t)i);
		}
		if (w.drain_all || t - last_drain >= FALLBACK_MS) {
			drain_all(con);
			last_drain = t;
		} else {
			for (i = 0; i < con->nr_rings; i++) {
				struct evt_consumer_ring *r = &con->rings[i];

				if (r->ready || r->busy || ((int)r->channel == w.channel && r->cpu == w.cpu))
					drain(con, r);
			}
		}
		for (i = 0; i < con->nr_rings; i++)
			con->rings[i].ready = 0;
		if (rot && !con->write_failed) {
			uint64_t bytes = chunk_bytes(con);

			evd_rot_set_current_bytes(rot, bytes);
			if (w.rotate || (o->rot.size && bytes >= o->rot.size) ||
			    (o->rot.interval_ms && t - chunk_start >= o->rot.interval_ms)) {
				cut_chunk(ctl, con, rot);
				chunk_start = t;
			}
		}
		if (o->duration > 0 && t - start >= (uint64_t)(o->duration * 1000))
			break;
		if (cmd && evd_cmd_reap(cmd, 0))
			break;
		if (tty && t - prog.last_ms >= 1000)
			evd_progress(ctl, con, o->channels, &prog, t);
	}
	if (tty)
		printf("\n");
	free(pfd);
}

/*
 * -- CMD: the command forked (held), its process tracked with its children
 * as the only tasks recorded. A filter already set (evctl track) is left
 * alone: the trace would not be the command's alone. 0, or -1 said why.
 */
static int command_prepare(struct evt_ctl *ctl, struct evd_cmd *cmd)
{
	struct evt_filter_spec f = { .nr_pids = 1, .follow_fork = 1 };
	struct evt_status st;
	struct sigaction sa;
	uint32_t pid;
	int set;

	evt_status_init(&st);
	set = evt_ctl_status(ctl, &st) == 0 && st.filter.set;
	evt_status_free(&st);
	if (set) {
		fprintf(stderr, "evdrain: a task filter is set already (evctl status shows it): "
			"-- %s records its own; evctl untrack --all first\n", cmd->argv[0]);
		return -1;
	}
	/* SIGCHLD interrupts the wait for work: the loop then reaps the command. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	if (evd_cmd_spawn(cmd))
		return -1;
	pid = (uint32_t)cmd->pid;
	f.pids = &pid;
	if (evt_ctl_track(ctl, &f)) {
		fprintf(stderr, "evdrain: the kernel refused to track the command: %s\n", evt_ctl_errmsg(ctl));
		evd_cmd_abort(cmd);
		return -1;
	}
	return 0;
}

/* The filter the command set goes (after STOP: nothing of others' is recorded). */
static void command_untrack(struct evt_ctl *ctl, const struct evd_cmd *cmd)
{
	struct evt_filter_spec f = { .all = 1, .follow_fork = -1 };

	if (evt_ctl_untrack(ctl, &f))
		fprintf(stderr, "evdrain: cannot remove the task filter of %s: %s (evctl untrack --all)\n",
			cmd->argv[0], evt_ctl_errmsg(ctl));
}

int main(int argc, char **argv)
{
	struct evt_consumer con;
	struct evt_consumer_opts copts = { 0 };
	struct evt_ctl *ctl = NULL;
	struct options o;
	struct live lv;
	struct evd_rot *rot = NULL;
	struct evd_rot_stats rst = { 0 };
	struct evd_cmd cmd = { 0 }, *cmdp = NULL;
	char chunk_kdir[4096];
	struct sigaction sa;
	uint64_t start;
	long long lost;
	int rc, cmd_rc = 0, write_failed;

	rc = evd_parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_USAGE : EXIT_OK;
/* With a command, evdrain's own failures are one status (its message says which). */
#define FAIL(code) return o.cmd ? EVD_CMD_EXIT_FAILED : (code)
	if (o.cmd && evd_cmd_init(&cmd, o.cmd))
		return EVD_CMD_EXIT_FAILED;
	/* Early: a stop that comes during set-up still stops cleanly. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (evd_take_lock())
		FAIL(EXIT_RUNNING);
	/*
	 * The directory checked before the module (a wrong -o says so, loaded or
	 * not), made only after it: a refused run creates nothing.
	 */
	if (o.outdir && evd_check_outdir(&o))
		FAIL(EXIT_OUTDIR);
	rc = evt_ctl_open(&ctl);
	if (rc) {
		char msg[PATH_MAX + 160];

		fprintf(stderr, "evdrain: %s\n", rc == -ENOENT ? evt_module_missing_msg(msg, sizeof(msg)) :
			evt_ctl_strerror(rc));
		FAIL(EXIT_NOMODULE);
	}
	if (o.outdir && evd_prepare_outdir(&o))
		FAIL(EXIT_OUTDIR);
	if (o.outdir && !rotating(&o))
		evd_lock_names_dir(o.tracedir);
	/* --force: the old trace goes only now that a new one can be recorded. */
	if (o.force && (evd_trace_files(o.tracedir, 1, NULL, 0) || evd_trace_files(o.outdir, 1, NULL, 0)))
		FAIL(EXIT_OUTDIR);
	if (evt_ctl_subscribe(ctl)) {
		fprintf(stderr, "evdrain: cannot join the notify group: %s\n", evt_ctl_errmsg(ctl));
		FAIL(EXIT_RUNTIME);
	}
	if (o.snap.dir)
		return evd_snapshots_run(ctl, &o.snap, &stop_requested) ? EXIT_RUNTIME : EXIT_OK;
	if (o.cmd) {
		if (command_prepare(ctl, &cmd))
			return EVD_CMD_EXIT_FAILED;
		cmdp = &cmd;
	}
	/* Chunks: what an earlier evdrain left is completed, then the first one opened. */
	if (rotating(&o)) {
		rc = EXIT_OUTDIR;
		if (evd_rot_start(&rot, &o.rot))
			goto fail_early;
		if (evd_rot_open_chunk(rot, chunk_kdir, sizeof(chunk_kdir))) {
			evd_rot_stop(rot, 0, &rst);
			goto fail_early;
		}
		snprintf(o.tracedir, sizeof(o.tracedir), "%s", chunk_kdir);
	}
	copts.out_dir = o.outdir ? o.tracedir : NULL;
	copts.channels = o.channels;
	copts.xfer = o.copy ? EVT_XFER_COPY : EVT_XFER_SENDFILE;
	copts.append = o.attach && !rot;
	copts.has_group = o.has_group;
	copts.group = o.group;
	if (o.live) {
		copts.on_packet = live_push;	/* --live reads the bytes itself */
		copts.arg = &lv;
		o.quiet = 1;			/* stdout carries the events */
	}
	if (evt_consumer_init(&con, &copts)) {
		fprintf(stderr, "evdrain: %s\n", strerror(errno));
		rc = EXIT_RUNTIME;
		goto fail_early;
	}
	rc = start_session(ctl, &con, &o);
	if (rc != EXIT_OK) {
		if (rot) {
			/* Nothing was recorded into the first chunk: it goes. */
			evd_rot_close_chunk(rot, NULL, 0);
			evd_rot_stop(rot, 0, &rst);
		}
		goto fail_early;
	}
	if (o.live && live_init(&lv, &con, &o)) {
		rc = EXIT_RUNTIME;
		goto fail_early;
	}
	save_symbols(ctl, &con, 0);
	start = now_ms();
	if (cmdp) {
		/* Tracing runs: the command may start. */
		cmd_rc = evd_cmd_go(cmdp);
		if (!cmd_rc)
			cmd_pid = cmdp->pid;
	}
	if (!cmd_rc)
		drain_loop(ctl, &con, &o, &lv, rot, cmdp);
	/* Stop (the kernel closes every partial sub-buffer), then take everything. */
	if (evt_ctl_stop(ctl)) {
		fprintf(stderr, "evdrain: the kernel refused to stop: %s\n", evt_ctl_errmsg(ctl));
		rc = EXIT_RUNTIME;
	}
	if (cmdp)
		command_untrack(ctl, cmdp);
	evt_consumer_drain_final(&con);
	if (!con.write_failed)
		save_symbols(ctl, &con, 1);
	if (evt_consumer_sync(&con))
		fprintf(stderr, "evdrain: %s\n", con.err);
	if (o.live) {
		evt_reorder_finish(&lv.reorder);
		live_emit(&lv);
		if (lv.reorder.st.late)
			fprintf(stderr, "evdrain: %llu events arrived after their time was emitted (flagged late)\n",
				(unsigned long long)lv.reorder.st.late);
		evt_fmt_free(&lv.fmt);
		evt_metadata_free(&lv.meta);
	}
	if (rot) {
		if (con.write_failed) {
			evd_rot_abandon_chunk(rot, con.err);
		} else {
			struct evd_rot_ring_count *counts;
			size_t n = ring_counts(ctl, &counts);

			/* Tracing has stopped: nothing follows this chunk in its session. */
			evd_rot_close_final_chunk(rot, counts, n);
			free(counts);
		}
		evd_rot_stop(rot, HOOK_WAIT_S, &rst);
		if (rst.errors && rc == EXIT_OK && !con.write_failed)
			rc = EXIT_RUNTIME;
	}
	if (con.write_failed) {
		fprintf(stderr, "evdrain: %s; tracing stopped, every whole packet so far is in %s%s\n",
			con.err, o.outdir, rot ? " (every completed chunk is whole)" : "");
		rc = EXIT_WRITE;
	}
	lost = evd_summary(ctl, &con, &o, (double)(now_ms() - start) / 1000.0, rot ? &rst : NULL);
	if (o.fail_on_loss && rc == EXIT_OK) {
		if (lost < 0) {
			fprintf(stderr, "evdrain: --fail-on-loss: the module gave no loss figures: %s\n",
				evt_ctl_errmsg(ctl));
			rc = EXIT_RUNTIME;
		} else if (lost) {
			fprintf(stderr, "evdrain: %lld events lost (discarded or overwritten); the trace "
				"in %s holds every other one (--fail-on-loss)\n", lost,
				o.outdir ? o.outdir : "(no directory)");
			rc = EXIT_LOSS;
		}
	}
	write_failed = con.write_failed;
	evt_consumer_close(&con);
	evt_ctl_close(ctl);
	if (!cmdp)
		return rc;
	if (cmd_rc)
		return cmd_rc;	/* the command did not run (said why) */
	if (!cmdp->exited) {
		/* A second stop signal, or a failed write: the command runs on, untraced. */
		fprintf(stderr, "evdrain: %s (pid %d) still runs; it is not traced any more\n", cmdp->argv[0],
			(int)cmdp->pid);
		return EVD_CMD_EXIT_FAILED;
	}
	if (!o.quiet && !write_failed)
		evd_cmd_summary(cmdp, o.outdir, 10);
	return rc == EXIT_OK ? evd_cmd_exit_code(cmdp) : EVD_CMD_EXIT_FAILED;
fail_early:
	/* Before the command ran: it never will. */
	if (cmdp) {
		evd_cmd_abort(cmdp);
		command_untrack(ctl, cmdp);
	}
	return o.cmd ? EVD_CMD_EXIT_FAILED : rc;
#undef FAIL
}
