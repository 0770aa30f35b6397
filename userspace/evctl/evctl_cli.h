/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evctl's command line and output: parsing of every subcommand and its
 * arguments (checked before anything is sent to the kernel), usage texts,
 * the status table and its JSON form, notification lines. A file of its own
 * so that the unit tests link it without evctl's main.
 */
#ifndef EVCTL_CLI_H
#define EVCTL_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "util/evt_cli.h"
#include "control/evt_ctl.h"

enum evctl_op {
	EVCTL_NONE,		/* no subcommand: only --help makes sense */
	EVCTL_START,
	EVCTL_STOP,
	EVCTL_STATUS,
	EVCTL_CONFIG,
	EVCTL_FLUSH,
	EVCTL_ENABLE,
	EVCTL_DISABLE,
	EVCTL_GENERATE,
	EVCTL_GENERATE_STOP,
	EVCTL_TIMER,
	EVCTL_TIMER_STOP,
	EVCTL_WATCH,
	EVCTL_ROTATE,
	EVCTL_STATEDUMP,
	EVCTL_TRACK,
	EVCTL_UNTRACK,
	EVCTL_SNAPSHOT,
	EVCTL_NR_OPS
};

/* Exit codes: every program's table (evt_cli.h, docs/exit-codes.md). */
#define EVCTL_EXIT_OK		EVT_EXIT_OK
#define EVCTL_EXIT_REFUSED	EVT_EXIT_FAILURE	/* the kernel refused, or cannot be reached */
#define EVCTL_EXIT_USAGE	EVT_EXIT_USAGE
#define EVCTL_EXIT_TIMEOUT	EVT_EXIT_BUSY		/* watch: --timeout before --count */
#define EVCTL_EXIT_NOMODULE	EVT_EXIT_NOMODULE	/* the module is not loaded */

#define EVCTL_MAX_EVENTS	64
#define EVCTL_MAX_PIDS		1024	/* per track/untrack command */

struct evctl_cmd {
	enum evctl_op op;
	int help;			/* --help: print the usage of op */
	int json;			/* status --json */
	int stack;			/* enable, disable --stack */
	struct evt_config cfg;		/* config, enable, disable */
	struct evt_event_switch ev[EVCTL_MAX_EVENTS];	/* cfg.events */
	struct evt_gen_request gen;	/* generate */
	uint32_t timer_period_us;	/* timer */
	uint64_t count;			/* watch: stop after this many, 0 = never */
	int64_t timeout_s;		/* watch: stop after this long, -1 = never */
	unsigned int reasons;		/* watch: bit per enum evt_notify, 0 = all */
	struct evt_filter_spec filter;	/* track, untrack: points into the arrays below */
	uint32_t pids[EVCTL_MAX_PIDS];
	const char *comms[EVT_FILTER_COMMS_MAX];
	const char *cgroups[EVT_FILTER_CGROUPS_MAX];
	char cgroup_paths[EVT_FILTER_CGROUPS_MAX][EVT_FILTER_CGROUP_PATH_MAX];
	const char *out_dir;		/* snapshot -o DIR */
	uint64_t trigger_seq;		/* snapshot --trigger SEQ, 0 = now */
};

/*
 * --cgroup's argument as a path in the cgroup v2 hierarchy: a directory of
 * a mounted cgroup2 file system (/sys/fs/cgroup/a/b) becomes "/a/b"; any
 * other argument starting with / is taken as such a path already. 0, or -1
 * with a message in @err.
 */
int evt_cgroup_hier_path(const char *arg, const char *mountinfo, char *out, size_t len,
			 char *err, size_t errlen);

/*
 * Parse argv (argv[0] is the program). Returns 0, or EVCTL_EXIT_USAGE with
 * a one-line message in @err. Event names are checked against the catalogue.
 */
int evctl_parse(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen);
void evctl_usage(FILE *f, enum evctl_op op);
const char *evctl_op_name(enum evctl_op op);

/* Strict parsers (0 or -1 with a message). */
int evt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int evt_parse_config_kv(const char *kv, struct evt_config *cfg, char *err, size_t errlen);
int evt_parse_reason(const char *name);		/* enum evt_notify, -1 unknown */

void evt_status_print_text(FILE *f, const struct evt_status *st);
void evt_status_print_json(FILE *f, const struct evt_status *st);
/* "HIGH_WATER channel=compact cpu=0 fill=72" ("-" for what is absent) */
void evt_notification_print(FILE *f, const struct evt_notification *n);

#endif /* EVCTL_CLI_H */
