// SPDX-License-Identifier: GPL-2.0
/*
 * nopriv: run a command as an unprivileged process (the VM tests' stand-in
 * for setpriv, which busybox lacks).
 *
 *   nopriv [--uid N] COMMAND [ARGS...]
 *
 * Drops every capability from the bounding set, clears the ambient set,
 * sets no_new_privs, drops supplementary groups and becomes uid/gid N
 * (default 65534, nobody), which empties the permitted and effective sets;
 * checks that no capability is left, then execs COMMAND. Exit status 127
 * when any step fails (with a message), else COMMAND's.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

static void die(const char *what)
{
	fprintf(stderr, "nopriv: %s: %s\n", what, strerror(errno));
	exit(127);
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	unsigned long id = 65534;
	int i = 1, cap;

	if (argc > 2 && !strcmp(argv[1], "--uid")) {
		char *end;

		id = strtoul(argv[2], &end, 10);
		if (*end || !*argv[2] || id == 0) {
			fprintf(stderr, "nopriv: --uid wants a non-zero number\n");
			return 127;
		}
		i = 3;
	}
	if (i >= argc || !strcmp(argv[i], "--help")) {
		fprintf(stderr, "usage: nopriv [--uid N] COMMAND [ARGS...]\n");
		return i >= argc ? 127 : 0;
	}
	/* The bounding set first: dropping it needs CAP_SETPCAP, still ours. */
	for (cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			die("PR_CAPBSET_DROP");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		die("PR_CAP_AMBIENT_CLEAR_ALL");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
	if (setgroups(0, NULL))
		die("setgroups");
	if (setresgid((gid_t)id, (gid_t)id, (gid_t)id))
		die("setresgid");
	if (setresuid((uid_t)id, (uid_t)id, (uid_t)id))
		die("setresuid");
	/* Leaving uid 0 clears permitted and effective: prove it. */
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		die("capget");
	if (data[0].effective || data[1].effective || data[0].permitted || data[1].permitted ||
	    data[0].inheritable || data[1].inheritable) {
		fprintf(stderr, "nopriv: capabilities left after dropping them\n");
		return 127;
	}
	if (getuid() != id || geteuid() != id) {
		fprintf(stderr, "nopriv: still uid %u\n", (unsigned int)geteuid());
		return 127;
	}
	execvp(argv[i], argv + i);
	die(argv[i]);
	return 127;
}
