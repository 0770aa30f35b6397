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
#include "util/evt_cli.h"
#include "util/evt_esc.h"

void evt_opt_error(const char *prog, char *const argv[], const char *shortopts, const struct option *opts)
{
	const char *arg = argv[optind - 1];
	size_t i;

	if (!optopt) {
		fprintf(stderr, "%s: unknown option ", prog);
		evt_fputs_esc(stderr, arg);
	} else {
		for (i = 0; opts[i].name && opts[i].val != optopt; i++)
			;
		/* A long option (a prefix of its name, maybe with =VALUE): its value missing or not wanted. */
		if (opts[i].name && !strncmp(arg, "--", 2) && !strncmp(arg + 2, opts[i].name, strcspn(arg + 2, "=")))
			fprintf(stderr, "%s: --%s %s", prog, opts[i].name,
				opts[i].has_arg == no_argument ? "takes no value" : "needs a value");
		/* A short option: unknown, or its value missing at the end of the line. */
		else if (strchr(shortopts, optopt) && optopt != ':' && optopt != '+')
			fprintf(stderr, "%s: -%c needs a value", prog, optopt);
		else
			fprintf(stderr, "%s: unknown option -%c", prog, optopt);
	}
	/* The hint on the same line: an error is one line (scripts read the first). */
	fprintf(stderr, " (try '%s --help')\n", prog);
}

/* Is evtrace.ko (or .ko.xz, .ko.zst, ...) in @modules_dep (a modules.dep)? */
static int module_listed(const char *modules_dep)
{
	char line[1024];
	FILE *f = fopen(modules_dep, "re");
	int found = 0;

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

const char *evt_module_load_cmd_at(const char *modules_dep, const char *exe, char *buf, size_t len)
{
	char dir[PATH_MAX], ko[PATH_MAX + 32], real[PATH_MAX];
	struct stat st;

	if (module_listed(modules_dep)) {
		snprintf(buf, len, "modprobe evtrace");
		return buf;
	}
	/* A build tree's programs are in build/bin/, its module at the top (make's layout). */
	if (exe) {
		snprintf(dir, sizeof(dir), "%s", exe);
		snprintf(ko, sizeof(ko), "%s/../../evtrace.ko", dirname(dir));
		if (!stat(ko, &st) && S_ISREG(st.st_mode)) {
			snprintf(buf, len, "insmod %s", realpath(ko, real) ? real : ko);
			return buf;
		}
	}
	snprintf(buf, len, "insmod evtrace.ko (from the build)");
	return buf;
}

const char *evt_module_load_cmd(char *buf, size_t len)
{
	char dep[512], exe[PATH_MAX];
	struct utsname u;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0)
		exe[n] = 0;
	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", uname(&u) ? "" : u.release);
	return evt_module_load_cmd_at(dep, n > 0 ? exe : NULL, buf, len);
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

void evt_say_err(const char *prog, const char *msg)
{
	fprintf(stderr, "%s: ", prog);
	evt_fputs_esc(stderr, msg);
	fputc('\n', stderr);
}
