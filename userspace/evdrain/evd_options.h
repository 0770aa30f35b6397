/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evdrain's command line: its options, their checks against each other and
 * the usage text, apart from the drain (as evctl's are in evctl_cli.c).
 */
#ifndef EVD_OPTIONS_H
#define EVD_OPTIONS_H

#include <sys/types.h>
#include "evd_rotate.h"
#include "evd_snapshots.h"
#include "util/evt_cli.h"
#include "format/evt_format.h"

/* Exit codes: every program's table (evt_cli.h, docs/exit-codes.md). */
#define EXIT_OK		EVT_EXIT_OK
#define EXIT_RUNTIME	EVT_EXIT_FAILURE
#define EXIT_USAGE	EVT_EXIT_USAGE
#define EXIT_RUNNING	EVT_EXIT_BUSY
#define EXIT_NOMODULE	EVT_EXIT_NOMODULE
#define EXIT_OUTDIR	EVT_EXIT_OUTDIR
#define EXIT_WRITE	EVT_EXIT_WRITE
#define EXIT_LOSS	EVT_EXIT_LOSS

/* What the command line asks for. */
struct options {
	const char *outdir, *json_path;
	char tracedir[4096];	/* outdir/kernel: LTTng's layout, which its analyses look for */
	double duration;		/* seconds; 0: until a signal */
	unsigned int channels;		/* bit per channel */
	int mode;			/* -1: leave it; 0 discard, 1 overwrite */
	int attach, copy, quiet, live, force, fail_on_loss;
	int live_opts;			/* --format, --delay-ticks or --tick-ms given */
	int has_group;
	gid_t group;
	enum evt_fmt_kind live_kind;
	long delay_ticks, tick_ms;
	struct evd_rot_opts rot;	/* rot.size or rot.interval_ms: rotating */
	struct evd_snap_opts snap;	/* snap.dir: --snapshots */
	char **cmd;			/* -- CMD ARGS: NULL-terminated, or NULL */
};

static inline int rotating(const struct options *o)
{
	return o->rot.size || o->rot.interval_ms;
}

/* argv into @o: -1 after a one-line message, 1 for --help/--version (printed), else 0. */
int evd_parse_args(int argc, char **argv, struct options *o);

#endif /* EVD_OPTIONS_H */
