// SPDX-License-Identifier: GPL-2.0
/*
 * markers: a process (and children) writing a known number of marker events,
 * so that a test knows exactly which task produced what (the task filter's
 * test: evctl track).
 *
 *   markers --name NAME --count N [--kids K] [--go FILE] [--pids FILE]
 *
 * Names itself NAME (prctl: what the kernel's comm holds), appends "NAME PID"
 * to FILE of --pids, waits until the file of --go exists, then forks K
 * children (named NAME-k, k = 1..K, truncated to 15 bytes, each appending its
 * line) and every one of them writes N markers "NAME i" to
 * /dev/evtrace/marker. Exits 0 once every child did; 1 on any error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int append_line(const char *path, const char *name)
{
	char line[64];
	int fd, n, ok;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return -1;
	n = snprintf(line, sizeof(line), "%s %d\n", name, (int)getpid());
	/* One write with O_APPEND: lines of several processes never mix. */
	ok = write(fd, line, (size_t)n) == n;
	close(fd);
	return ok ? 0 : -1;
}

static int set_name(const char *name, const char *pids)
{
	char comm[16];

	snprintf(comm, sizeof(comm), "%s", name);
	if (prctl(PR_SET_NAME, comm, 0, 0, 0))
		return -1;
	return append_line(pids, comm);
}

static int write_markers(const char *name, unsigned long count)
{
	char text[64];
	unsigned long i;
	int fd = open("/dev/evtrace/marker", O_WRONLY);

	if (fd < 0) {
		perror("markers: /dev/evtrace/marker");
		return -1;
	}
	for (i = 0; i < count; i++) {
		int n = snprintf(text, sizeof(text), "%s %lu", name, i);

		if (write(fd, text, (size_t)n) != n) {
			perror("markers: write");
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = NULL, *go = NULL, *pids = NULL;
	unsigned long count = 0, kids = 0, k;
	int i, status, ret = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--name"))
			name = argv[i + 1];
		else if (!strcmp(argv[i], "--count"))
			count = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--kids"))
			kids = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--go"))
			go = argv[i + 1];
		else if (!strcmp(argv[i], "--pids"))
			pids = argv[i + 1];
		else
			break;
	}
	if (i != argc || !name || !count) {
		fprintf(stderr, "usage: markers --name NAME --count N [--kids K] [--go FILE] [--pids FILE]\n");
		return 2;
	}
	if (set_name(name, pids)) {
		perror("markers: naming");
		return 1;
	}
	while (go && access(go, F_OK)) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	for (k = 1; k <= kids; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("markers: fork");
			return 1;
		}
		if (!pid) {
			char kname[32];

			snprintf(kname, sizeof(kname), "%s-%lu", name, k);
			if (set_name(kname, pids))
				_exit(1);
			_exit(write_markers(kname, count) ? 1 : 0);
		}
	}
	if (write_markers(name, count))
		ret = 1;
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	return ret;
}
