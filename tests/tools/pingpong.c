// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong GROUPS MESSAGES: a hackbench-like load (scripts/bench-load). Each
 * group is two processes, a sender and a receiver, bouncing MESSAGES 100-byte
 * messages over a pair of pipes (the receiver answers each one), so that every
 * message is two writes, two reads, two wakeups and context switches; the
 * groups run at once and the scheduler spreads them over the CPUs. Prints
 * the seconds taken, then the messages per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static void xfer(int fd, char *buf, int wr)
{
	size_t done = 0;

	while (done < 100) {
		ssize_t r = wr ? write(fd, buf + done, 100 - done) : read(fd, buf + done, 100 - done);

		if (r <= 0) {
			perror(wr ? "pingpong: write" : "pingpong: read");
			exit(1);
		}
		done += (size_t)r;
	}
}

static void group(long msgs)
{
	int to[2], back[2];
	char buf[100] = { 0 };
	pid_t pid;
	long i;

	if (pipe(to) || pipe(back)) {
		perror("pingpong: pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		exit(1);
	}
	for (i = 0; i < msgs; i++) {
		if (pid == 0) {
			xfer(to[0], buf, 0);
			xfer(back[1], buf, 1);
		} else {
			xfer(to[1], buf, 1);
			xfer(back[0], buf, 0);
		}
	}
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	exit(0);
}

int main(int argc, char **argv)
{
	long groups = argc > 1 ? atol(argv[1]) : 4, msgs = argc > 2 ? atol(argv[2]) : 10000, g;
	struct timespec a, b;
	double s;

	if (argc > 3 || groups <= 0 || msgs <= 0) {
		fprintf(stderr, "usage: pingpong GROUPS MESSAGES\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (g = 0; g < groups; g++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("pingpong: fork");
			return 1;
		}
		if (pid == 0)
			group(msgs);
	}
	while (wait(NULL) > 0)
		;
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%.3f %.0f\n", s, groups * msgs / s);
	return 0;
}
