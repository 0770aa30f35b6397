// SPDX-License-Identifier: GPL-2.0
/*
 * sysloop N [SHAPE]: make N system calls of one shape, print nanoseconds
 * per call. Shapes, by their argument count (what a syscall entry event
 * carries): getppid (none, the default), lseek (3: lseek(0, 0, SEEK_CUR)),
 * futex (6: FUTEX_WAKE on a private word nobody waits on). Also built as a
 * 32-bit program (sysloop32): the same calls as compat syscalls. And
 * "args": kill(-999999, 0), futex(&word, FUTEX_WAKE_PRIVATE, 1, 0x1000,
 * 0x2000, -5) and lseek(-3, -1, SEEK_CUR) each time, whose arguments the VM tests
 * look for in the trace (an int sign-extended, unsigned ints masked).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, i;
	const char *shape = argc > 2 ? argv[2] : "getppid";
	static int word;
	struct timespec a, b;

	if (n <= 0 || argc > 3 || (strcmp(shape, "getppid") && strcmp(shape, "lseek") &&
				    strcmp(shape, "futex") && strcmp(shape, "args"))) {
		fprintf(stderr, "usage: sysloop N [getppid|lseek|futex|args]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (!strcmp(shape, "getppid"))
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	else if (!strcmp(shape, "lseek"))
		for (i = 0; i < n; i++)
			syscall(SYS_lseek, 0, 0L, SEEK_CUR);
	else if (!strcmp(shape, "futex"))
		for (i = 0; i < n; i++)
			syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	else
		for (i = 0; i < n; i++) {
			syscall(SYS_kill, -999999, 0);
			/* FUTEX_WAKE ignores utime and uaddr2: values that tell registers apart. */
			syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, (void *)0x1000, (void *)0x2000, -5);
			syscall(SYS_lseek, -3, -1L, SEEK_CUR);
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
