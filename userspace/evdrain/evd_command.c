// SPDX-License-Identifier: GPL-2.0
/* evdrain -- CMD: the command traced (evd_command.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "evd_command.h"
#include "engine/evt_comps.h"
#include "engine/evt_engine.h"
#include "format/evt_format.h"

/* What the child sends back when it cannot run the command. */
struct child_err {
	int stage;		/* 1: taking the user's identity, 2: exec */
	int err;		/* errno */
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A decimal ID of at most 10 digits, below 2^32 - 1 (-1 is no ID): 0, or -1. */
static int parse_id(const char *s, unsigned long *v)
{
	char *end;

	if (!s || !*s || strlen(s) > 10 || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || *v >= 0xffffffffUL ? -1 : 0;
}

int evd_cmd_init(struct evd_cmd *c, char *const *argv)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	unsigned long uid, gid;
	struct passwd *pw;

	memset(c, 0, sizeof(*c));
	c->argv = argv;
	c->go_fd = c->err_fd = -1;
	if (geteuid() != 0 || !su)
		return 0;
	if (parse_id(su, &uid)) {
		fprintf(stderr, "evdrain: SUDO_UID \"%s\" is not a user ID: cannot tell whom to run %s as\n",
			su, argv[0]);
		return -1;
	}
	pw = getpwuid((uid_t)uid);
	if (sg) {
		if (parse_id(sg, &gid)) {
			fprintf(stderr, "evdrain: SUDO_GID \"%s\" is not a group ID\n", sg);
			return -1;
		}
	} else if (pw) {
		gid = pw->pw_gid;
	} else {
		fprintf(stderr, "evdrain: SUDO_UID %lu has no user and SUDO_GID is not set: no group to run %s with\n",
			uid, argv[0]);
		return -1;
	}
	c->drop = 1;
	c->uid = (uid_t)uid;
	c->gid = (gid_t)gid;
	if (pw)
		snprintf(c->user, sizeof(c->user), "%s", pw->pw_name);
	return 0;
}

/* In the child: report why and end (never returns). */
static void child_fail(int fd, int stage)
{
	struct child_err ce = { stage, errno };
	ssize_t n = write(fd, &ce, sizeof(ce));

	(void)n;
	_exit(stage == 2 && ce.err == ENOENT ? EVD_CMD_EXIT_NOT_FOUND : EVD_CMD_EXIT_CANNOT_RUN);
}

static void child(struct evd_cmd *c, int go_rd, int err_wr)
{
	struct sigaction sa;
	sigset_t none;
	char b;

	/* evdrain's handlers and mask are not the command's. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The user's identity first: nothing runs as root while held. */
	if (c->drop) {
		if (c->user[0] ? initgroups(c->user, c->gid) : setgroups(0, NULL))
			child_fail(err_wr, 1);
		if (setgid(c->gid) || setuid(c->uid))
			child_fail(err_wr, 1);
		if (setuid(0) == 0) {
			errno = EPERM;
			child_fail(err_wr, 1);
		}
	}
	/* Held until tracing runs; EOF: evdrain gave up, nothing is run. */
	if (read(go_rd, &b, 1) != 1)
		_exit(EVD_CMD_EXIT_FAILED);
	close(go_rd);
	execvp(c->argv[0], c->argv);
	child_fail(err_wr, 2);
}

int evd_cmd_spawn(struct evd_cmd *c)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC)) {
		fprintf(stderr, "evdrain: cannot run %s: %s\n", c->argv[0], strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		fprintf(stderr, "evdrain: cannot run %s: %s\n", c->argv[0], strerror(errno));
		c->pid = 0;
		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return -1;
	}
	if (!c->pid) {
		close(go[1]);
		close(er[0]);
		child(c, go[0], er[1]);
	}
	close(go[0]);
	close(er[1]);
	c->go_fd = go[1];
	c->err_fd = er[0];
	return 0;
}

int evd_cmd_go(struct evd_cmd *c)
{
	struct child_err ce;
	ssize_t n;

	c->start_ms = mono_ms();
	if (write(c->go_fd, "g", 1) != 1) {
		/* The child is gone already: it could not take the user's identity. */
		n = -1;
	}
	close(c->go_fd);
	c->go_fd = -1;
	/* EOF: the exec closed its end (close-on-exec). */
	do
		n = read(c->err_fd, &ce, sizeof(ce));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n != (ssize_t)sizeof(ce))
		return 0;
	evd_cmd_reap(c, 1);
	if (ce.stage == 1) {
		fprintf(stderr, "evdrain: cannot run %s as user %u, group %u (SUDO_UID, SUDO_GID): %s\n",
			c->argv[0], (unsigned int)c->uid, (unsigned int)c->gid, strerror(ce.err));
		return EVD_CMD_EXIT_CANNOT_RUN;
	}
	fprintf(stderr, "evdrain: cannot run %s: %s\n", c->argv[0], strerror(ce.err));
	return ce.err == ENOENT ? EVD_CMD_EXIT_NOT_FOUND : EVD_CMD_EXIT_CANNOT_RUN;
}

void evd_cmd_abort(struct evd_cmd *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid)
		evd_cmd_reap(c, 1);
}

int evd_cmd_reap(struct evd_cmd *c, int block)
{
	pid_t r;

	if (c->exited || !c->pid)
		return c->exited;
	do
		r = waitpid(c->pid, &c->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == c->pid) {
		c->exited = 1;
		c->end_ms = mono_ms();
	}
	return c->exited;
}

int evd_cmd_exit_code(const struct evd_cmd *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return EVD_CMD_EXIT_FAILED;
}

/* Is @pid the command's process or one it forked (ppid chains in the state)? */
static int of_command(const struct evt_state *st, int32_t root, int32_t pid)
{
	unsigned int hops;

	for (hops = 0; hops < 4096 && pid > 0; hops++) {
		const struct evt_state_thread *t;

		if (pid == root)
			return 1;
		t = evt_state_thread(st, pid);	/* a process's first thread: tid = pid */
		if (!t || t->ppid == pid)
			return 0;
		pid = t->ppid;
	}
	return 0;
}

static void say(void *data, const char *msg)
{
	(void)data;
	fprintf(stderr, "evdrain: %s\n", msg);
}

int evd_cmd_summary(const struct evd_cmd *c, const char *dir, unsigned int top)
{
	struct evt_engine_opts eo = { .warn = say };
	const struct evt_state_thread **th = NULL;
	const struct evt_state *st;
	const struct evt_stats *ss;
	struct evt_engine *e = evt_engine_new(&eo);
	struct evt_etrace *t = NULL;
	char err[EVT_ENGINE_ERRLEN], comm[16 * 4 + 3], cmd[64 * 4 + 3];
	size_t i, n, mine = 0;
	uint64_t cpu_ns = 0, events = 0;
	int ret = -1;

	evt_fmt_esc(cmd, sizeof(cmd), c->argv[0]);
	if (WIFSIGNALED(c->status))
		printf("evdrain: %s (pid %d) was killed by signal %d after %.3f s\n", cmd, (int)c->pid,
		       WTERMSIG(c->status), (double)(c->end_ms - c->start_ms) / 1000.0);
	else
		printf("evdrain: %s (pid %d) exited with status %d after %.3f s\n", cmd, (int)c->pid,
		       evd_cmd_exit_code(c), (double)(c->end_ms - c->start_ms) / 1000.0);
	if (!e || evt_engine_register_builtin(e)) {
		fprintf(stderr, "evdrain: out of memory\n");
		goto out;
	}
	t = evt_etrace_get(e, dir, err, sizeof(err));
	if (!t) {
		fprintf(stderr, "evdrain: the summary: %s\n", err);
		goto out;
	}
	if (evt_comp_want(t, "stats", NULL, NULL, NULL) < 0 || evt_comp_want(t, "state", NULL, NULL, NULL) < 0) {
		fprintf(stderr, "evdrain: out of memory\n");
		goto out;
	}
	evt_engine_run(e);
	ss = evt_comp_result(t, "stats");
	st = evt_comp_result(t, "state");
	if (!ss || !st) {
		fprintf(stderr, "evdrain: the summary: %s\n", evt_comp_error(t) ? evt_comp_error(t) : evt_etrace_error(t));
		goto out;
	}
	n = evt_state_nr_threads(st);
	th = malloc((n ? n : 1) * sizeof(*th));
	if (!th) {
		fprintf(stderr, "evdrain: out of memory\n");
		goto out;
	}
	/* Every thread of the command's processes, by CPU time. */
	n = evt_state_top_threads(st, th, n);
	for (i = 0; i < n; i++)
		if (of_command(st, (int32_t)c->pid, th[i]->pid)) {
			const struct evt_stats_thread *s = evt_stats_thread(ss, th[i]->tid);

			th[mine++] = th[i];
			cpu_ns += th[i]->cpu_ns;
			events += s ? s->events : 0;
		}
	printf("evdrain: its threads: %zu, %.3f ms on CPU, %llu events (evstat %s for the rest)\n", mine,
	       (double)cpu_ns / 1e6, (unsigned long long)events, dir);
	if (mine)
		printf("  %8s %8s %-18s %12s %12s\n", "tid", "pid", "comm", "cpu ms", "events");
	for (i = 0; i < mine && (!top || i < top); i++) {
		const struct evt_stats_thread *s = evt_stats_thread(ss, th[i]->tid);

		evt_fmt_esc(comm, sizeof(comm), th[i]->comm);
		printf("  %8d %8d %-18s %12.3f %12llu\n", th[i]->tid, th[i]->pid, comm,
		       (double)th[i]->cpu_ns / 1e6, (unsigned long long)(s ? s->events : 0));
	}
	if (top && mine > top)
		printf("  (%zu more)\n", mine - top);
	ret = 0;
out:
	free(th);
	if (t)
		evt_etrace_put(t);
	evt_engine_free(e);
	return ret;
}
