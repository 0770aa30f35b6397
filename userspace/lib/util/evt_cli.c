// SPDX-License-Identifier: GPL-2.0
/* The command line's shared parts: see evt_cli.h. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "evt_cli.h"
#include "evt_format.h"

void evt_opt_error(const char *prog, char *const argv[], const char *shortopts, const struct option *opts)
{
	const char *arg = argv[optind - 1];
	size_t i;

	if (!optopt) {
		fprintf(stderr, "%s: unknown option ", prog);
		evt_fputs_esc(stderr, arg);
		fputc('\n', stderr);
		return;
	}
	if (strncmp(arg, "--", 2)) {
		/* A short option: unknown, or its value missing at the end of the line. */
		if (strchr(shortopts, optopt))
			fprintf(stderr, "%s: -%c needs a value\n", prog, optopt);
		else
			fprintf(stderr, "%s: unknown option -%c\n", prog, optopt);
		return;
	}
	for (i = 0; opts[i].name && opts[i].val != optopt; i++)
		;
	if (!opts[i].name)
		fprintf(stderr, "%s: bad option %s\n", prog, arg);
	else if (opts[i].has_arg == no_argument)
		fprintf(stderr, "%s: --%s takes no value\n", prog, opts[i].name);
	else
		fprintf(stderr, "%s: --%s needs a value\n", prog, opts[i].name);
}

/* Is evtrace.ko (or .ko.xz, .ko.zst, ...) in the running kernel's modules.dep? */
static int module_installed(void)
{
	struct utsname u;
	char path[512], line[1024];
	FILE *f;
	int found = 0;

	if (uname(&u))
		return 0;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		found = !strncmp(base, "evtrace.ko", 10);
	}
	fclose(f);
	return found;
}

const char *evt_module_load_cmd(char *buf, size_t len)
{
	char exe[PATH_MAX], ko[PATH_MAX + 32];
	ssize_t n;
	struct stat st;

	if (module_installed()) {
		snprintf(buf, len, "modprobe evtrace");
		return buf;
	}
	/* A build tree's programs are in build/bin/, its module at the top (make's layout). */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		snprintf(ko, sizeof(ko), "%s/../../evtrace.ko", dirname(exe));
		if (!stat(ko, &st) && S_ISREG(st.st_mode)) {
			char real[PATH_MAX];

			snprintf(buf, len, "insmod %s", realpath(ko, real) ? real : ko);
			return buf;
		}
	}
	snprintf(buf, len, "insmod evtrace.ko (from the build)");
	return buf;
}

const char *evt_module_missing_msg(char *buf, size_t len)
{
	char cmd[PATH_MAX + 64];

	snprintf(buf, len, "the evtrace module is not loaded (no generic netlink family 'evtrace'): %s",
		 evt_module_load_cmd(cmd, sizeof(cmd)));
	return buf;
}

void evt_print_list(FILE *f, const char *const *names, size_t n, size_t max)
{
	size_t i;

	for (i = 0; i < n && i < max; i++) {
		fputs("  ", f);
		evt_fputs_esc(f, names[i]);
		fputc('\n', f);
	}
	if (n > max)
		fprintf(f, "  ... and %zu more\n", n - max);
}
