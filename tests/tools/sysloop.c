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
 * "args32" (the 64-bit build only): sysloop32 N args under ptrace, which
 * fills the upper half of every argument register with garbage at each
 * syscall entry, as a 64-bit code segment or a tracer may leave it; the
 * kernel uses only the low halves of a 32-bit task's registers, so must the
 * trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#ifdef __x86_64__
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

/* ia32 numbers of kill, futex and lseek (arch/x86/entry/syscalls/syscall_32.tbl). */
static int is_args_call(unsigned long long nr)
{
	return nr == 37 || nr == 240 || nr == 19;
}

static unsigned long long dirty(unsigned long long r)
{
	return (r & 0xffffffffULL) | 0x5a5a5a5a00000000ULL;
}

/* Run "sysloop32 N args" with dirty upper register halves at its argument syscalls. */
static int traced_args32(long n)
{
	char count[32];
	int status, entry = 0;
	pid_t pid;

	snprintf(count, sizeof(count), "%ld", n);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execlp("sysloop32", "sysloop32", count, "args", (char *)NULL);
		perror("sysloop: exec sysloop32");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return 1;
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD);
	for (;;) {
		struct user_regs_struct regs;

		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) < 0 || waitpid(pid, &status, 0) != pid)
			return 1;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (!WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80))
			continue;	/* the exec's SIGTRAP: no syscall stop */
		entry = !entry;
		if (!entry || ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0 || !is_args_call(regs.orig_rax))
			continue;
		regs.rbx = dirty(regs.rbx);
		regs.rcx = dirty(regs.rcx);
		regs.rdx = dirty(regs.rdx);
		regs.rsi = dirty(regs.rsi);
		regs.rdi = dirty(regs.rdi);
		regs.rbp = dirty(regs.rbp);
		if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) < 0)
			return 1;
	}
}
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, i;
	const char *shape = argc > 2 ? argv[2] : "getppid";
	static int word;
	struct timespec a, b;

#ifdef __x86_64__
	if (n > 0 && argc == 3 && !strcmp(shape, "args32"))
		return traced_args32(n);
#endif
	if (n <= 0 || argc > 3 || (strcmp(shape, "getppid") && strcmp(shape, "lseek") &&
				    strcmp(shape, "futex") && strcmp(shape, "args"))) {
		fprintf(stderr, "usage: sysloop N [getppid|lseek|futex|args|args32]\n");
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
