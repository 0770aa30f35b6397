/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every evtrace program's command line shares: the exit-code table
 * (docs/exit-codes.md, each man page's EXIT STATUS), getopt_long's errors
 * in one line, the command that loads the module, long lists as lists.
 */
#ifndef EVT_CLI_H
#define EVT_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* One table for all programs; a code a program cannot meet is not used by it. */
#define EVT_EXIT_OK		0	/* done */
#define EVT_EXIT_FAILURE	1	/* a runtime error: unreadable trace, the kernel refused, ... */
#define EVT_EXIT_USAGE		2	/* a bad option or argument: nothing was done */
#define EVT_EXIT_BUSY		3	/* not now: another evdrain drains; evctl watch's --timeout passed */
#define EVT_EXIT_NOMODULE	4	/* the evtrace module is not loaded, or no permission to control it */
#define EVT_EXIT_OUTDIR		5	/* the output directory is unusable or already holds a trace */
#define EVT_EXIT_WRITE		6	/* a write failed (disk full): what was written stays readable */
#define EVT_EXIT_LOSS		7	/* --fail-on-loss: events were lost (the output is complete otherwise) */

/*
 * getopt_long returned '?' or ':' (with opterr = 0): say in one line what
 * was wrong on stderr, "@prog: ... (try '@prog --help')": an unknown
 * option, a value missing or given to an option that takes none.
 */
void evt_opt_error(const char *prog, char *const argv[], const char *shortopts, const struct option *opts);

/* "@prog: @msg" on stderr, what @msg quotes (a file name, a name from a trace) escaped. */
void evt_say_err(const char *prog, const char *msg);

/*
 * The command that loads evtrace on this machine, into @buf of @len:
 * "modprobe evtrace" when the module is installed for the running kernel
 * (under /lib/modules/$(uname -r)), else "insmod PATH/evtrace.ko".
 * Returns @buf.
 */
const char *evt_module_load_cmd(char *buf, size_t len);
/* The same, with the modules.dep and the program's path given (the unit tests). */
const char *evt_module_load_cmd_at(const char *modules_dep, const char *exe, char *buf, size_t len);

/*
 * The sentence for "the evtrace module is not loaded", with the command that
 * loads it here, into @buf of @len. Returns @buf.
 */
const char *evt_module_missing_msg(char *buf, size_t len);

/*
 * @names (@n of them) on @f one a line, indented, at most @max (then "... and
 * N more"); names are escaped (they may come from a trace).
 */
void evt_print_list(FILE *f, const char *const *names, size_t n, size_t max);

#endif /* EVT_CLI_H */
