// SPDX-License-Identifier: GPL-2.0
/*
 * evctl: control the evtrace tracer over generic netlink.
 * The command line and the output formats are in evctl_cli.c, the netlink
 * client in the library (lib/control/evt_ctl*.c); see `evctl --help`.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/evt_cli.h"
#include "consumer/evt_consumer.h"
#include "control/evt_ctl.h"
#include "consumer/evt_snapshot.h"
#include "evctl_cli.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int refused(struct evt_ctl *ctl, const char *what)
{
	const char *ext = evt_ctl_extack(ctl);

	if (ext[0])
		fprintf(stderr, "evctl: %s refused: %s\n", what, ext);
	else
		fprintf(stderr, "evctl: %s: %s\n", what, evt_ctl_errmsg(ctl));
	return EVCTL_EXIT_REFUSED;
}

struct watch_state {
	const struct evctl_cmd *cmd;
	uint64_t seen;
};

static void on_notification(const struct evt_notification *n, void *arg)
{
	struct watch_state *ws = arg;

	if (ws->cmd->count && ws->seen >= ws->cmd->count)
		return;
	if (ws->cmd->reasons && (n->reason < 0 || n->reason >= 32 ||
				 !(ws->cmd->reasons & (1u << n->reason))))
		return;
	evt_notification_print(stdout, n);
	fflush(stdout);
	ws->seen++;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int watch(struct evt_ctl *ctl, const struct evctl_cmd *cmd)
{
	struct watch_state ws = { .cmd = cmd };
	struct sigaction sa;
	int64_t deadline = cmd->timeout_s >= 0 ? now_ms() + cmd->timeout_s * 1000 : -1;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (evt_ctl_subscribe(ctl) < 0)
		return refused(ctl, "watch");
	/* Tells a script that nothing from now on is missed. */
	fprintf(stderr, "evctl: watching evtrace notifications\n");
	while (!interrupted && (!cmd->count || ws.seen < cmd->count)) {
		int wait_ms = -1;

		if (deadline >= 0) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				break;
			wait_ms = left > 1000000 ? 1000000 : (int)left;
		}
		ret = evt_ctl_notify_wait(ctl, wait_ms, on_notification, &ws);
		if (ret == -ENOBUFS) {
			fprintf(stderr, "evctl: some notifications were lost (receive buffer overrun)\n");
			continue;
		}
		if (ret < 0)
			return refused(ctl, "watch");
	}
	if (cmd->count && ws.seen < cmd->count && !interrupted) {
		fprintf(stderr, "evctl: watch: %llu of %llu notifications before the time-out\n",
			(unsigned long long)ws.seen, (unsigned long long)cmd->count);
		return EVCTL_EXIT_TIMEOUT;
	}
	return EVCTL_EXIT_OK;
}

static int status(struct evt_ctl *ctl, const struct evctl_cmd *cmd)
{
	struct evt_status st;
	int ret = evt_ctl_status(ctl, &st);

	if (ret < 0) {
		evt_status_free(&st);
		return refused(ctl, "status");
	}
	if (cmd->json)
		evt_status_print_json(stdout, &st);
	else
		evt_status_print_text(stdout, &st);
	evt_status_free(&st);
	return EVCTL_EXIT_OK;
}

/*
 * The snapshot's directory: created, or an existing empty one. 1 when this
 * call created it, 0 when it was there, -1 after a message.
 */
static int snapshot_dir(const char *dir)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (mkdir(dir, 0750) == 0)
		return 1;
	if (errno != EEXIST) {
		fprintf(stderr, "evctl: snapshot: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "evctl: snapshot: %s exists and is not a directory\n", dir);
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "evctl: snapshot: cannot read %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			fprintf(stderr, "evctl: snapshot: %s is not empty (it holds %s): a snapshot "
				"goes to a new or empty directory\n", dir, de->d_name);
			return -1;
		}
	closedir(d);
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "evctl: snapshot: cannot write into %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * snapshot -o DIR [--trigger SEQ] (evt_snapshot_save()): open every ring device (refused while a drainer has one,
 * or without access to them), copy the metadata, ask the module to flush
 * each ring and tell its bound (SNAPSHOT: CAP_NET_ADMIN), then take each
 * ring's packets up to its bound through the consumer library, as evdrain
 * writes them. What is taken leaves the ring.
 */
static int snapshot(struct evt_ctl *ctl, const struct evctl_cmd *cmd)
{
	struct evt_snapshot_result res;
	char err[600];
	int created, ret;

	created = snapshot_dir(cmd->out_dir);
	if (created < 0)
		return EVCTL_EXIT_REFUSED;
	ret = evt_snapshot_save(ctl, cmd->out_dir, cmd->trigger_seq, EVT_XFER_SENDFILE, &res,
				err, sizeof(err));
	switch (ret) {
	case 0:
		printf("snapshot %s: %llu packets, %llu bytes, %d streams\n", cmd->out_dir,
		       (unsigned long long)res.packets, (unsigned long long)res.bytes, res.streams);
		evt_snapshot_note_unanswered(stderr, "evctl: snapshot", &res);
		return EVCTL_EXIT_OK;
	case EVT_SNAPSHOT_ERR_BUSY:
		fprintf(stderr, "evctl: snapshot: %s: a snapshot reads the rings itself; stop "
			"the drainer (evdrain) first\n", err);
		break;
	case EVT_SNAPSHOT_ERR_ACCESS:
		fprintf(stderr, "evctl: snapshot: %s: a snapshot needs root (CAP_NET_ADMIN "
			"and the ring devices)\n", err);
		break;
	case EVT_SNAPSHOT_ERR_MODULE:
		fprintf(stderr, "evctl: snapshot refused: %s\n", err);
		break;
	default:
		fprintf(stderr, "evctl: snapshot: %s\n", err);
	}
	/* The directory as it was found: empty, or gone. */
	evt_snapshot_undo(cmd->out_dir, created);
	return EVCTL_EXIT_REFUSED;
}

/* EVT_VERSION: the top-level VERSION file, passed by the Makefile. */
#ifndef EVT_VERSION
#define EVT_VERSION "unknown"
#endif

int main(int argc, char **argv)
{
	struct evctl_cmd cmd;
	struct evt_ctl *ctl;
	char err[512];
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("evctl %s\n", EVT_VERSION);
		return EVCTL_EXIT_OK;
	}
	ret = evctl_parse(argc, argv, &cmd, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "evctl: %s\n", err);
		return EVCTL_EXIT_USAGE;
	}
	if (cmd.help) {
		evctl_usage(stdout, cmd.op);
		return EVCTL_EXIT_OK;
	}
	ret = evt_ctl_open(&ctl);
	if (ret == -ENOENT) {
		fprintf(stderr, "evctl: %s\n", evt_module_missing_msg(err, sizeof(err)));
		return EVCTL_EXIT_NOMODULE;
	}
	if (ret < 0) {
		fprintf(stderr, "evctl: %s\n", evt_ctl_strerror(ret));
		return EVCTL_EXIT_REFUSED;
	}
	switch (cmd.op) {
	case EVCTL_START:
		ret = evt_ctl_start(ctl);
		break;
	case EVCTL_STOP:
		ret = evt_ctl_stop(ctl);
		break;
	case EVCTL_FLUSH:
		ret = evt_ctl_flush(ctl);
		break;
	case EVCTL_CONFIG:
	case EVCTL_ENABLE:
	case EVCTL_DISABLE:
		ret = evt_ctl_config(ctl, &cmd.cfg);
		break;
	case EVCTL_GENERATE:
		ret = evt_ctl_generate(ctl, &cmd.gen);
		break;
	case EVCTL_GENERATE_STOP:
		ret = evt_ctl_generate_stop(ctl);
		break;
	case EVCTL_TIMER:
		ret = evt_ctl_timer(ctl, cmd.timer_period_us);
		break;
	case EVCTL_TIMER_STOP:
		ret = evt_ctl_timer_stop(ctl);
		break;
	case EVCTL_ROTATE:
		ret = evt_ctl_rotate(ctl);
		break;
	case EVCTL_STATEDUMP:
		ret = evt_ctl_statedump(ctl);
		break;
	case EVCTL_TRACK:
		ret = evt_ctl_track(ctl, &cmd.filter);
		break;
	case EVCTL_UNTRACK:
		ret = evt_ctl_untrack(ctl, &cmd.filter);
		break;
	case EVCTL_STATUS:
		ret = status(ctl, &cmd);
		evt_ctl_close(ctl);
		return ret;
	case EVCTL_WATCH:
		ret = watch(ctl, &cmd);
		evt_ctl_close(ctl);
		return ret;
	case EVCTL_SNAPSHOT:
		ret = snapshot(ctl, &cmd);
		evt_ctl_close(ctl);
		return ret;
	default:
		ret = -EINVAL;
		break;
	}
	if (ret < 0)
		ret = refused(ctl, evctl_op_name(cmd.op));
	evt_ctl_close(ctl);
	return ret;
}
