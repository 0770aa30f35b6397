// SPDX-License-Identifier: GPL-2.0
/*
 * workload: what the analysis tests trace, a little of everything a kernel
 * developer looks at.
 *
 *   workload --rounds N
 *       N rounds of: fork + exec (/bin/busybox true) + wait, a 2 ms sleep,
 *       file syscalls (open, write, lseek, read, fsync, close, unlink), UDP
 *       over the loopback (socket, bind, sendto, recvfrom, close), and a
 *       syscall that fails (open of a missing file: ENOENT).
 *       --nice N: at nice N, the rounds in a child forked after the
 *       change (so that no switch of it is at the old priority). At the end
 *       the process of the rounds prints "prio PID P", P its priority as the
 *       kernel reports it (/proc/self/stat's priority + 100: the kernel's
 *       prio, 120 at nice 0).
 *   workload --hold SECONDS --threads K
 *       A process of K + 1 threads that sleeps SECONDS (alive when tracing
 *       starts: the state dump must show each of its threads).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned int hold_s;

static void *sleeper(void *arg)
{
	(void)arg;
	sleep(hold_s);
	return NULL;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void files(void)
{
	char buf[4096];
	int fd = open("/tmp/workload.dat", O_CREAT | O_RDWR | O_TRUNC, 0600);

	if (fd < 0)
		return;
	memset(buf, 'w', sizeof(buf));
	if (write(fd, buf, sizeof(buf)) < 0 || lseek(fd, 0, SEEK_SET) < 0 || read(fd, buf, sizeof(buf)) < 0)
		perror("workload: file");
	fsync(fd);
	close(fd);
	unlink("/tmp/workload.dat");
	fd = open("/tmp/no-such-file", O_RDONLY);
	if (fd >= 0)
		close(fd);
}

static void udp(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	char msg[64] = "ping";
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		return;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!bind(s, (struct sockaddr *)&a, sizeof(a)) && !getsockname(s, (struct sockaddr *)&a, &len) &&
	    sendto(s, msg, 4, 0, (struct sockaddr *)&a, sizeof(a)) == 4)
		recvfrom(s, msg, sizeof(msg), MSG_DONTWAIT, NULL, NULL);
	close(s);
}

/* "prio PID P": P the kernel's prio (stat's 18th field is prio - 100 for a normal task). */
static int print_prio(void)
{
	char buf[1024], *p;
	long prio = 0;
	int field;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	/* After the comm's closing parenthesis: field 3 on. */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 18; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %ld", &prio) != 1) {
		fprintf(stderr, "workload: no priority in /proc/self/stat\n");
		return 1;
	}
	printf("prio %d %ld\n", (int)getpid(), prio + 100);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int rounds = 0, threads = 0, i;
	int niceness = 0;

	for (i = 1; i + 1 < (unsigned int)argc; i += 2) {
		if (!strcmp(argv[i], "--rounds"))
			rounds = (unsigned int)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold"))
			hold_s = (unsigned int)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--threads"))
			threads = (unsigned int)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--nice"))
			niceness = atoi(argv[i + 1]);
	}
	if (niceness) {
		pid_t child;
		int status;

		if (setpriority(PRIO_PROCESS, 0, niceness)) {
			perror("workload: setpriority");
			return 1;
		}
		fflush(stdout);
		child = fork();
		if (child < 0) {
			perror("workload: fork");
			return 1;
		}
		if (child > 0)
			return waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	if (hold_s) {
		pthread_attr_t attr;
		pthread_t t;

		/* Small stacks: the state dump benchmark holds 10,000 threads. */
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 << 10);
		for (i = 0; i < threads; i++)
			if (pthread_create(&t, &attr, sleeper, NULL)) {
				perror("workload: pthread_create");
				return 1;
			}
		sleep(hold_s);
		return 0;
	}
	for (i = 0; i < rounds; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/busybox", "busybox", "true", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		nap_ms(2);
		files();
		udp();
	}
	if (rounds)
		return print_prio();
	return 0;
}
