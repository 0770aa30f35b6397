/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evdrain -o DIR -- CMD [ARGS]: the command traced. evdrain forks it first,
 * held before exec, tracks its process ID (with its children) in the
 * module's task filter, starts tracing, then lets it exec as the invoking
 * user (SUDO_UID/SUDO_GID when evdrain runs as root through sudo); tracing
 * stops when it exits. The exit status is the command's, as the shell
 * reports it, or one of evdrain's own (EVD_CMD_EXIT_*), as timeout(1) and
 * env(1) do.
 */
#ifndef EVD_COMMAND_H
#define EVD_COMMAND_H

#include <stdint.h>
#include <sys/types.h>

#define EVD_CMD_EXIT_FAILED	125	/* evdrain failed (the reason is printed) */
#define EVD_CMD_EXIT_CANNOT_RUN	126	/* the command is there but could not be run */
#define EVD_CMD_EXIT_NOT_FOUND	127	/* no such command */

struct evd_cmd {
	char *const *argv;
	pid_t pid;		/* 0: none (yet) */
	int go_fd;		/* write end: one byte lets the child exec, EOF ends it */
	int err_fd;		/* read end: why the child could not run the command */
	int drop;		/* run as uid/gid (SUDO_UID, SUDO_GID), not as evdrain's user */
	uid_t uid;
	gid_t gid;
	char user[64];		/* for its supplementary groups */
	int exited;		/* reaped: status holds the wait status */
	int status;
	uint64_t start_ms, end_ms;
};

/*
 * Who the command will run as: when evdrain runs as root and SUDO_UID is
 * set, that user (SUDO_GID, and the user's groups); else evdrain's own.
 * 0, or -1 with a message (a SUDO_UID that is not a number).
 */
int evd_cmd_init(struct evd_cmd *c, char *const *argv);
/* Fork the child, held before exec: 0, or -1 with a message. */
int evd_cmd_spawn(struct evd_cmd *c);
/*
 * Let it exec. 0 when it runs the command; else the exit status to return
 * (EVD_CMD_EXIT_*), the reason printed; the child is reaped then.
 */
int evd_cmd_go(struct evd_cmd *c);
/* Set-up failed: the held child exits without running anything (reaped). */
void evd_cmd_abort(struct evd_cmd *c);
/* Reap the child if it exited (@block: wait for it). 1 when it has. */
int evd_cmd_reap(struct evd_cmd *c, int block);
/* The status as a shell reports it: the exit code, or 128 + the signal. */
int evd_cmd_exit_code(const struct evd_cmd *c);
/*
 * After the trace is written: a few lines on the command and its threads
 * (from the analysis engine: CPU time, events), the command's process and
 * every process it forked. 0, or -1 (said why on stderr).
 */
int evd_cmd_summary(const struct evd_cmd *c, const char *dir, unsigned int top);

#endif /* EVD_COMMAND_H */
