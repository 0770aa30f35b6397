// SPDX-License-Identifier: GPL-2.0
/* evctl's command line and usage texts (the output formats: evctl_out.c). See evctl_cli.h. */
#include <ctype.h>
#include <getopt.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <evtrace/events.h>
#include "util/evt_cpulist.h"
#include "util/evt_units.h"
#include "evctl_cli.h"

static const char *const op_names[EVCTL_NR_OPS] = {
	[EVCTL_NONE] = "",
	[EVCTL_START] = "start",
	[EVCTL_STOP] = "stop",
	[EVCTL_STATUS] = "status",
	[EVCTL_CONFIG] = "config",
	[EVCTL_FLUSH] = "flush",
	[EVCTL_ENABLE] = "enable",
	[EVCTL_DISABLE] = "disable",
	[EVCTL_GENERATE] = "generate",
	[EVCTL_GENERATE_STOP] = "generate-stop",
	[EVCTL_TIMER] = "timer",
	[EVCTL_TIMER_STOP] = "timer-stop",
	[EVCTL_WATCH] = "watch",
	[EVCTL_ROTATE] = "rotate",
	[EVCTL_STATEDUMP] = "statedump",
	[EVCTL_TRACK] = "track",
	[EVCTL_UNTRACK] = "untrack",
	[EVCTL_SNAPSHOT] = "snapshot",
};

static const char *const usages[EVCTL_NR_OPS] = {
	[EVCTL_NONE] =
	"usage: evctl COMMAND [ARGS...]\n"
	"       evctl COMMAND --help\n"
	"       evctl --version\n"
	"\n"
	"Control the evtrace kernel tracer over generic netlink (family \"evtrace\").\n"
	"\n"
	"commands:\n"
	"  start                      start tracing\n"
	"  stop                       stop tracing (partial sub-buffers are closed)\n"
	"  status [--json]            state, configuration, holds, events, rings, generator\n"
	"  config KEY=VALUE...        mode=discard|overwrite high_water="
	EVT_STR(EVT_HIGH_WATER_MIN) ".." EVT_STR(EVT_HIGH_WATER_MAX) "\n"
	"                             flush_ms=0.." EVT_STR(EVT_FLUSH_MS_MAX) "\n"
	"  flush                      close partial sub-buffers now\n"
	"  enable EVENT...|all        enable events of the catalogue\n"
	"  disable EVENT...|all       disable them\n"
	"  generate [OPTIONS]         start the test generator\n"
	"  generate-stop              stop it\n"
	"  timer --period-us N        start the test hrtimer source on every CPU\n"
	"  timer-stop                 stop it\n"
	"  watch [OPTIONS]            print notifications as they arrive\n"
	"  rotate                     ask a rotating evdrain to cut its chunk now\n"
	"  statedump                  record the state dump (threads, IRQs) again\n"
	"  track [OPTIONS]            record only these processes' events\n"
	"  untrack [OPTIONS]|--all    stop tracking them (--all: record every task)\n"
	"  snapshot -o DIR            save what the rings hold as a trace, tracing goes on\n"
	"\n"
	"exit status: 0 done; 1 refused by the kernel (its message is printed, e.g.\n"
	"permission denied) or another failure; 2 usage error; 3 watch timed out\n"
	"before --count notifications; 4 the module is not loaded (docs/exit-codes.md).\n"
	"Changing anything needs CAP_NET_ADMIN; status is open to everyone.\n",
	[EVCTL_START] =
	"usage: evctl start\n"
	"Start tracing: events are recorded into the per-CPU rings.\n",
	[EVCTL_STOP] =
	"usage: evctl stop\n"
	"Stop tracing; partial sub-buffers are closed so that readers get them.\n",
	[EVCTL_STATUS] =
	"usage: evctl status [--json]\n"
	"Show the state, the configuration, the filter (to a user without\n"
	"CAP_NET_ADMIN: how many names and cgroups, not which), the kept trigger,\n"
	"which rings are held and by what (a trigger, a snapshot) since when, the\n"
	"rings whose CPU did not answer a flush, the events and whether each is\n"
	"enabled, per channel and CPU the ring counters (recorded, discarded,\n"
	"overwritten, too_big, refused events; sub-buffers produced, consumed,\n"
	"skipped; events filtered out by evctl track; fill %), and per CPU the\n"
	"generator's counts.\n"
	"  --json   one JSON document: state, config, filter, trigger, events, rings[], generator[]\n",
	[EVCTL_CONFIG] =
	"usage: evctl config KEY=VALUE...\n"
	"  mode=discard|overwrite   what a full ring does with new events\n"
	"  high_water=N             ring fill (percent, " EVT_STR(EVT_HIGH_WATER_MIN) ".."
	EVT_STR(EVT_HIGH_WATER_MAX) ") that wakes the reader\n"
	"  flush_ms=N               close partial sub-buffers this often (ms,\n"
	"                           0 = never, at most " EVT_STR(EVT_FLUSH_MS_MAX) ")\n"
	"Some changes need a stopped tracer: the kernel says which (exit 1).\n",
	[EVCTL_FLUSH] =
	"usage: evctl flush\n"
	"Close every partial sub-buffer now, so that readers get what was recorded.\n",
	[EVCTL_ENABLE] =
	"usage: evctl enable [--stack] EVENT...|all\n"
	"Enable events by name (see evctl status); \"all\" names every event.\n"
	"  --stack  record each with its kernel call stack too (an event\n"
	"           kernel_stack after it; compact-channel events but the syscall\n"
	"           entries; with \"all\": those of all that can)\n",
	[EVCTL_DISABLE] =
	"usage: evctl disable [--stack] EVENT...|all\n"
	"Disable events by name (see evctl status); \"all\" names every event.\n"
	"  --stack  stop recording their kernel stacks, leave the events on\n",
	[EVCTL_GENERATE] =
	"usage: evctl generate [--events N] [--rate R] [--channel compact|normal|both]\n"
	"                      [--cpus LIST] [--sizes fixed|mix]\n"
	"Start the test generator: a kernel thread per CPU offering events.\n"
	"  --events N     events per CPU (1 to 2^40)\n"
	"  --rate R       events per second per CPU, 0 = as fast as possible\n"
	"  --channel C    compact, normal or both\n"
	"  --cpus LIST    CPUs: \"all\" or a list like 0-3,6\n"
	"  --sizes S      payload sizes: fixed or mix\n"
	"Options not given take the module's defaults.\n",
	[EVCTL_GENERATE_STOP] =
	"usage: evctl generate-stop\n"
	"Stop the test generator.\n",
	[EVCTL_TIMER] =
	"usage: evctl timer --period-us N\n"
	"Start (or restart with a new period) the test hrtimer source: on every CPU,\n"
	"a timer_tick event from hard interrupt context every N microseconds\n"
	"(" EVT_STR(EVT_TIMER_PERIOD_US_MIN) " to " EVT_STR(EVT_TIMER_PERIOD_US_MAX) "); N may carry a unit: 1ms, 500us.\n",
	[EVCTL_TIMER_STOP] =
	"usage: evctl timer-stop\n"
	"Stop the test hrtimer source.\n",
	[EVCTL_WATCH] =
	"usage: evctl watch [--count N] [--timeout S] [--reason LIST]\n"
	"Print a line per notification of the kernel as it arrives:\n"
	"  REASON channel=CHANNEL cpu=CPU fill=PERCENT   (\"-\" when not sent)\n"
	"REASON is HIGH_WATER, FLUSHED, DISCARDING, CPU_ONLINE, CPU_OFFLINE, STOPPED,\n"
	"NO_RING (a CPU came online without its ring: its events are refused),\n"
	"ROTATE (evctl rotate) or TRIGGER (a kernel report fired a trigger; its line\n"
	"ends with trigger=KIND seq=N ts=TIME).\n"
	"  --count N      exit after N notifications (those --reason selects)\n"
	"  --timeout S    exit after S seconds, or with a unit: 5m (status 3 if\n"
	"                 --count was not reached)\n"
	"  --reason LIST  only these reasons, comma-separated (case does not matter)\n"
	"Lost notifications (receive buffer overrun) are reported on stderr.\n",
	[EVCTL_ROTATE] =
	"usage: evctl rotate\n"
	"Ask every evdrain that cuts its trace into chunks (see evdrain(8), Rotation)\n"
	"to close its chunk now and start the next. Refused (exit 1) when no drainer\n"
	"listens.\n",
	[EVCTL_STATEDUMP] =
	"usage: evctl statedump\n"
	"Record the state dump again while tracing: every thread (pid, tid, name,\n"
	"state) and every IRQ handler, as at START.\n",
	[EVCTL_TRACK] =
	"usage: evctl track [--pid LIST]... [--comm NAME]... [--cgroup PATH]...\n"
	"                   [--follow-fork | --no-follow-fork]\n"
	"From now on record only the events of tracked tasks: a process whose ID\n"
	"was tracked (all its threads), or whose name is one of the names, or that\n"
	"lives in one of the cgroups or below (one match is enough). Other tasks'\n"
	"events are counted per ring as \"filtered\" (not lost). The filter looks at\n"
	"the task running on the CPU, in interrupts too; the state dump is never\n"
	"filtered. Repeated track commands add to what is tracked.\n"
	"  --pid LIST       process IDs, comma-separated (of this PID namespace)\n"
	"  --comm NAME      a process name as the kernel keeps it (at most "
	EVT_STR(EVT_FILTER_COMM_MAX) " bytes,\n"
	"                   ps -o comm); up to " EVT_STR(EVT_FILTER_COMMS_MAX) " names\n"
	"  --cgroup PATH    a cgroup v2 directory (/sys/fs/cgroup/a/b) or its path in\n"
	"                   the hierarchy (/a/b, as /proc/PID/cgroup shows it); up to "
	EVT_STR(EVT_FILTER_CGROUPS_MAX) "\n"
	"  --follow-fork    processes forked by tracked tasks are tracked too\n"
	"  --no-follow-fork not any more (the default)\n"
	"A tracked process ID leaves the set when its process ends.\n",
	[EVCTL_UNTRACK] =
	"usage: evctl untrack [--pid LIST]... [--comm NAME]... [--cgroup PATH]...\n"
	"       evctl untrack --all\n"
	"Stop tracking these items (each must be tracked). When nothing is left\n"
	"tracked, or with --all, the filter goes: every task is recorded again.\n",
	[EVCTL_SNAPSHOT] =
	"usage: evctl snapshot -o DIR [--trigger SEQ]\n"
	"Save what every ring holds now (its complete sub-buffers and the partial one,\n"
	"closed first) as a trace in DIR: the metadata and a stream file per channel\n"
	"and CPU, as evdrain writes them. Tracing goes on. A snapshot takes what it\n"
	"saves out of the rings, so the next one begins where it ended: no event is\n"
	"in two snapshots. It reads each ring only up to where the module closed it\n"
	"at the request, so it ends however fast events arrive. For a flight recorder:\n"
	"config mode=overwrite, with no evdrain running (a snapshot needs the ring\n"
	"devices; refused, exit 1, while another reader has one). In discard mode it\n"
	"works too and frees the rings as a drain would.\n"
	"  -o, --output DIR   a new directory or an empty one (created if missing;\n"
	"                     its parent must exist)\n"
	"  --trigger SEQ      what preceded trigger SEQ (a kernel report, see the\n"
	"                     module parameter triggers): each ring up to where the\n"
	"                     trigger closed it, kept since; only the last trigger's\n"
	"                     is kept (its number is in the kernel log, the debugfs\n"
	"                     file triggers and NOTIFY_TRIGGER)\n"
	"Needs root: CAP_NET_ADMIN and the ring devices.\n",
};

const char *evctl_op_name(enum evctl_op op)
{
	return op < EVCTL_NR_OPS ? op_names[op] : "?";
}

void evctl_usage(FILE *f, enum evctl_op op)
{
	fputs(usages[op < EVCTL_NR_OPS ? op : EVCTL_NONE], f);
}

__attribute__((format(printf, 3, 4)))
static int usage_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return EVCTL_EXIT_USAGE;
}

int evt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int evt_parse_reason(const char *name)
{
	int i;

	for (i = EVT_NOTIFY_NONE + 1; i < __EVT_NOTIFY_MAX; i++)
		if (!strcasecmp(name, evt_notify_name(i)))
			return i;
	return -1;
}

int evt_parse_config_kv(const char *kv, struct evt_config *cfg, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	const char *val;
	size_t klen;
	uint64_t v;
	unsigned int bit;

	if (!eq || eq == kv)
		return usage_err(err, errlen, "config: '%s' is not KEY=VALUE", kv), -1;
	klen = (size_t)(eq - kv);
	val = eq + 1;
	if (klen == 4 && !strncmp(kv, "mode", 4))
		bit = EVT_CFG_MODE;
	else if (klen == 10 && !strncmp(kv, "high_water", 10))
		bit = EVT_CFG_HIGH_WATER;
	else if (klen == 8 && !strncmp(kv, "flush_ms", 8))
		bit = EVT_CFG_FLUSH_MS;
	else
		return usage_err(err, errlen, "config: unknown key '%.*s' (mode, high_water, flush_ms)",
				 (int)klen, kv), -1;
	if (cfg->set & bit)
		return usage_err(err, errlen, "config: '%.*s' given twice", (int)klen, kv), -1;
	switch (bit) {
	case EVT_CFG_MODE:
		if (!strcmp(val, "discard"))
			cfg->mode = 0;
		else if (!strcmp(val, "overwrite"))
			cfg->mode = 1;
		else
			return usage_err(err, errlen, "config: mode is discard or overwrite, not '%s'",
					 val), -1;
		break;
	case EVT_CFG_HIGH_WATER:
		if (evt_parse_u64(val, EVT_HIGH_WATER_MIN, EVT_HIGH_WATER_MAX, &v))
			return usage_err(err, errlen, "config: high_water is a percentage "
					 EVT_STR(EVT_HIGH_WATER_MIN) ".." EVT_STR(EVT_HIGH_WATER_MAX)
					 ", not '%s'", val), -1;
		cfg->high_water = (uint32_t)v;
		break;
	case EVT_CFG_FLUSH_MS:
		if (evt_parse_u64(val, 0, EVT_FLUSH_MS_MAX, &v))
			return usage_err(err, errlen, "config: flush_ms is milliseconds 0.."
					 EVT_STR(EVT_FLUSH_MS_MAX) " (0 = off), not '%s'", val), -1;
		cfg->flush_ms = (uint32_t)v;
		break;
	}
	cfg->set |= bit;
	return 0;
}

/* The argument the option being handled was read from ("-o=DIR", "--rate=5", "--rate"). */
static const char *option_word;

/* One option of a command: its getopt_long value and argument. 0, or EVCTL_EXIT_USAGE said in @err. */
typedef int (*evctl_opt_fn)(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen);

/*
 * getopt_long over the arguments of the command argv[1] (--opt=value and
 * --opt value alike), each option to @one in order. Options end at the
 * first operand ("+"); *@operand is its index in argv, or with @operand
 * NULL an operand is refused. 0, or EVCTL_EXIT_USAGE with one line in @err.
 */
static int sub_options(int argc, char *const argv[], const char *shortopts, const struct option *opts,
		       evctl_opt_fn one, struct evctl_cmd *cmd, int *operand, char *err, size_t errlen)
{
	const char *op = op_names[cmd->op];
	char optstring[32];
	int c;

	snprintf(optstring, sizeof(optstring), "+:%s", shortopts);
	optind = 0;	/* glibc starts over: a process may parse several command lines (the unit tests) */
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, optstring, opts, NULL)) != -1) {
		const char *arg = argv[optind];	/* argv + 1's [optind - 1]: the option just read */
		size_t k;

		if (c == ':')
			return usage_err(err, errlen, "%s: %.*s needs a value", op, (int)strcspn(arg, "="), arg);
		if (c == '?' && optopt && !strncmp(arg, "--", 2)) {
			for (k = 0; opts[k].name && opts[k].val != optopt; k++)
				;
			return usage_err(err, errlen, "%s: --%s takes no value", op, opts[k].name ? opts[k].name : "?");
		}
		if (c == '?' && optopt)
			return usage_err(err, errlen, "%s: unknown option '-%c'", op, optopt);
		if (c == '?')
			return usage_err(err, errlen, "%s: unknown option '%s'", op, arg);
		option_word = argv[optind];
		if (one(c, optarg, cmd, err, errlen))
			return EVCTL_EXIT_USAGE;
	}
	if (operand)
		*operand = optind + 1;
	else if (optind + 1 < argc)
		return usage_err(err, errlen, "%s: unknown argument '%s'", op, argv[optind + 1]);
	return 0;
}

static int add_event(struct evctl_cmd *cmd, const char *name, int enabled, int stack, char *err,
		     size_t errlen)
{
	size_t i;

	for (i = 0; i < cmd->cfg.nr_events; i++)
		if (!strcmp(cmd->ev[i].name, name))
			return 0;
	if (cmd->cfg.nr_events >= EVCTL_MAX_EVENTS)
		return usage_err(err, errlen, "too many events (at most %d)", EVCTL_MAX_EVENTS), -1;
	cmd->ev[cmd->cfg.nr_events].name = name;
	cmd->ev[cmd->cfg.nr_events].enabled = enabled;
	/* --stack: enable turns it on with the event, disable turns it off alone. */
	cmd->ev[cmd->cfg.nr_events].stack = !stack ? EVT_STACK_LEAVE : enabled ? EVT_STACK_ON : EVT_STACK_OFF;
	cmd->ev[cmd->cfg.nr_events].stack_only = stack && !enabled;
	cmd->cfg.nr_events++;
	return 0;
}

static int events_opt(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen)
{
	(void)c;
	(void)v;
	(void)err;
	(void)errlen;
	cmd->stack = 1;
	return 0;
}

static int parse_events(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "stack", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int enabled = cmd->op == EVCTL_ENABLE, stack, i;
	unsigned int k;

	cmd->cfg.events = cmd->ev;
	cmd->cfg.set = EVT_CFG_EVENTS;
	if (sub_options(argc, argv, "", opts, events_opt, cmd, &i, err, errlen))
		return EVCTL_EXIT_USAGE;
	stack = cmd->stack;
	if (i >= argc)
		return usage_err(err, errlen, "%s: name at least one event (or all)", op_names[cmd->op]);
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "all")) {
			for (k = 0; k < evt_nr_switches; k++) {
				const struct evt_event_desc *d = &evt_events[k];
				/* all --stack: the events that can have stacks, the others as they are. */
				int can = k + 1 < evt_nr_switches && d->channel == EVT_CHAN_COMPACT &&
					  d->id < EVT_COMPACT_ID_WIDE && d->id != EVT_ID_KERNEL_STACK;

				if ((!stack || can) &&
				    add_event(cmd, evt_switch_name(k), enabled, stack, err, errlen))
					return EVCTL_EXIT_USAGE;
			}
			continue;
		}
		if (argv[i][0] == '-')
			return usage_err(err, errlen, "%s: unknown option '%s'", op_names[cmd->op], argv[i]);
		if (evt_find_switch(argv[i]) < 0) {
			const struct evt_event_desc *d = evt_find_event_by_name(argv[i]);
			char known[1024];
			size_t len = 0;

			/* A syscall entry event: they are switched together. */
			if (d && evt_event_switch((unsigned int)(d - evt_events)) == evt_nr_switches - 1)
				return usage_err(err, errlen, "%s: the syscall entry events (%s ...) are "
						 "switched together: name them '%s'", op_names[cmd->op],
						 argv[i], EVT_SYSCALL_SWITCH_NAME);
			known[0] = '\0';
			for (k = 0; k < evt_nr_switches && len < sizeof(known); k++)
				len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s",
							k ? ", " : "", evt_switch_name(k));
			return usage_err(err, errlen, "%s: unknown event '%s' (known: %s)",
					 op_names[cmd->op], argv[i], known);
		}
		if (add_event(cmd, argv[i], enabled, stack, err, errlen))
			return EVCTL_EXIT_USAGE;
	}
	return 0;
}

static int generate_opt(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen)
{
	struct evt_gen_request *g = &cmd->gen;
	char why[200];
	uint64_t n;

	switch (c) {
	case 'e':
		if (evt_parse_u64(v, 1, EVT_GEN_EVENTS_MAX, &n))
			return usage_err(err, errlen, "generate: --events wants a number >= 1 and <= %llu, not '%s'",
					 (unsigned long long)EVT_GEN_EVENTS_MAX, v);
		g->p.events = n;
		g->set |= EVT_GEN_SET_EVENTS;
		return 0;
	case 'r':
		if (evt_parse_u64(v, 0, UINT32_MAX, &n))
			return usage_err(err, errlen, "generate: --rate wants events per second 0..%u, not '%s'",
					 UINT32_MAX, v);
		g->p.rate = (uint32_t)n;
		g->set |= EVT_GEN_SET_RATE;
		return 0;
	case 'C':
		if (!strcmp(v, "compact"))
			g->p.channels = EVT_GEN_CHANNEL_COMPACT;
		else if (!strcmp(v, "normal"))
			g->p.channels = EVT_GEN_CHANNEL_NORMAL;
		else if (!strcmp(v, "both"))
			g->p.channels = EVT_GEN_CHANNEL_COMPACT | EVT_GEN_CHANNEL_NORMAL;
		else
			return usage_err(err, errlen, "generate: --channel is compact, normal or both, not '%s'", v);
		g->set |= EVT_GEN_SET_CHANNELS;
		return 0;
	case 'c':
		if (evt_cpulist_parse(v, NULL, why, sizeof(why)))
			return usage_err(err, errlen, "generate: %s", why);
		snprintf(g->cpus, sizeof(g->cpus), "%s", v);
		g->set |= EVT_GEN_SET_CPUS;
		return 0;
	default: /* 's' */
		if (!strcmp(v, "fixed"))
			g->p.mix = 0;
		else if (!strcmp(v, "mix"))
			g->p.mix = 1;
		else
			return usage_err(err, errlen, "generate: --sizes is fixed or mix, not '%s'", v);
		g->set |= EVT_GEN_SET_SIZES;
		return 0;
	}
}

static int parse_generate(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "rate", required_argument, NULL, 'r' },
		{ "channel", required_argument, NULL, 'C' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "sizes", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};

	return sub_options(argc, argv, "", opts, generate_opt, cmd, NULL, err, errlen);
}

static int timer_opt(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen)
{
	uint64_t n;

	(void)c;
	/* A bare number is microseconds, as the option's name says; 1ms works too. */
	if (evt_parse_duration(v, EVT_NS_PER_US, EVT_NS_PER_US, &n) ||
	    n < EVT_TIMER_PERIOD_US_MIN || n > EVT_TIMER_PERIOD_US_MAX)
		return usage_err(err, errlen, "timer: --period-us wants microseconds "
				 EVT_STR(EVT_TIMER_PERIOD_US_MIN) ".." EVT_STR(EVT_TIMER_PERIOD_US_MAX)
				 " (or with a unit: 1ms), not '%s'", v);
	cmd->timer_period_us = (uint32_t)n;
	return 0;
}

static int parse_timer(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "period-us", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};

	if (sub_options(argc, argv, "", opts, timer_opt, cmd, NULL, err, errlen))
		return EVCTL_EXIT_USAGE;
	if (!cmd->timer_period_us)
		return usage_err(err, errlen, "timer: give --period-us N");
	return 0;
}

static int parse_reasons(const char *list, unsigned int *mask, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	int r;

	if (strlen(list) >= sizeof(buf) || !*list)
		return usage_err(err, errlen, "watch: bad --reason list '%s'", list);
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		r = evt_parse_reason(tok);
		if (r < 0)
			return usage_err(err, errlen,
					 "watch: unknown reason '%s' (HIGH_WATER, FLUSHED, DISCARDING, "
					 "CPU_ONLINE, CPU_OFFLINE, STOPPED, NO_RING, ROTATE, TRIGGER)", tok);
		*mask |= 1u << r;
	}
	return 0;
}

static int watch_opt(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen)
{
	uint64_t n;

	switch (c) {
	case 'n':
		if (evt_parse_u64(v, 1, UINT64_MAX, &n))
			return usage_err(err, errlen, "watch: --count wants a number >= 1, not '%s'", v);
		cmd->count = n;
		return 0;
	case 't':
		/* At most a year: the milliseconds fit everything. */
		if (evt_parse_duration(v, EVT_NS_PER_S, EVT_NS_PER_S, &n) || n < 1 || n > 366ULL * 86400)
			return usage_err(err, errlen, "watch: --timeout wants whole seconds 1..31622400 (or with a "
					 "unit: 5m, 2h), not '%s'", v);
		cmd->timeout_s = (int64_t)n;
		return 0;
	default: /* 'r' */
		return parse_reasons(v, &cmd->reasons, err, errlen) ? EVCTL_EXIT_USAGE : 0;
	}
}

static int parse_watch(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "reason", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};

	return sub_options(argc, argv, "", opts, watch_opt, cmd, NULL, err, errlen);
}

static int snapshot_opt(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen)
{
	if (c == 't') {
		if (evt_parse_u64(v, 1, UINT64_MAX, &cmd->trigger_seq))
			return usage_err(err, errlen, "snapshot: --trigger wants a trigger's number >= 1, not '%s'", v);
		return 0;
	}
	/* "-o=DIR" is DIR, as evctl always took it (getopt alone would say "=DIR"). */
	if (!strncmp(option_word, "-o=", 3))
		v = option_word + 3;
	if (!v[0])
		return usage_err(err, errlen, "snapshot: -o wants a directory, not ''");
	if (cmd->out_dir)
		return usage_err(err, errlen, "snapshot: -o given twice");
	cmd->out_dir = v;
	return 0;
}

static int parse_snapshot(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "trigger", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};

	if (sub_options(argc, argv, "o:", opts, snapshot_opt, cmd, NULL, err, errlen))
		return EVCTL_EXIT_USAGE;
	if (!cmd->out_dir)
		return usage_err(err, errlen, "snapshot: give -o DIR");
	return 0;
}

static int is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int evt_cgroup_hier_path(const char *arg, const char *mountinfo, char *out, size_t len,
			 char *err, size_t errlen)
{
	char real[PATH_MAX], line[4096], root[PATH_MAX], mnt[PATH_MAX], best_root[PATH_MAX];
	size_t best = 0;
	struct statfs sf;
	FILE *f;

	if (arg[0] != '/' && access(arg, F_OK))
		return usage_err(err, errlen, "--cgroup '%s': neither a directory nor a path "
				 "starting with / in the cgroup v2 hierarchy", arg), -1;
	/* 0x63677270: CGROUP2_SUPER_MAGIC */
	if (!realpath(arg, real) || statfs(real, &sf) || sf.f_type != 0x63677270) {
		if (arg[0] != '/')
			return usage_err(err, errlen, "--cgroup '%s' is not on a cgroup v2 file system",
					 arg), -1;
		if (strlen(arg) >= len)
			return usage_err(err, errlen, "--cgroup: path longer than %zu bytes", len - 1), -1;
		strcpy(out, arg);
		return 0;
	}
	/* The longest cgroup2 mount point holding it; its root within the hierarchy. */
	f = fopen(mountinfo, "r");
	if (!f)
		return usage_err(err, errlen, "--cgroup: cannot read %s: %s", mountinfo,
				 strerror(errno)), -1;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");
		size_t n;

		if (!sep || strncmp(sep, " - cgroup2 ", 11) ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
			continue;
		n = strlen(mnt);
		if (n >= best && !strncmp(real, mnt, n) && (real[n] == '/' || real[n] == '\0' ||
							      (n == 1 && mnt[0] == '/'))) {
			best = n;
			strcpy(best_root, root);
		}
	}
	fclose(f);
	if (!best)
		return usage_err(err, errlen, "--cgroup '%s': no cgroup2 mount holds it", arg), -1;
	if (snprintf(out, len, "%s%s", strcmp(best_root, "/") ? best_root : "",
		     best == 1 ? real : real + best) >= (int)len)
		return usage_err(err, errlen, "--cgroup: path longer than %zu bytes", len - 1), -1;
	if (!out[0])
		strcpy(out, "/");
	return 0;
}

static int add_pids(struct evctl_cmd *cmd, const char *list, char *err, size_t errlen)
{
	const char *p = list;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char num[16];
		uint64_t v;

		if (!n || n >= sizeof(num))
			return usage_err(err, errlen, "%s: --pid wants process IDs like 12,345, not '%s'",
					 op_names[cmd->op], list);
		memcpy(num, p, n);
		num[n] = '\0';
		if (evt_parse_u64(num, 1, INT32_MAX, &v))
			return usage_err(err, errlen, "%s: '%s' is not a process ID (1..%d)",
					 op_names[cmd->op], num, INT32_MAX);
		if (cmd->filter.nr_pids == EVCTL_MAX_PIDS)
			return usage_err(err, errlen, "%s: more than %d process IDs in one command",
					 op_names[cmd->op], EVCTL_MAX_PIDS);
		cmd->pids[cmd->filter.nr_pids++] = (uint32_t)v;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int filter_opt(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen)
{
	struct evt_filter_spec *f = &cmd->filter;
	const char *op = op_names[cmd->op];

	switch (c) {
	case 'p':
		return add_pids(cmd, v, err, errlen) ? EVCTL_EXIT_USAGE : 0;
	case 'c':
		/* Its length is the kernel's to judge: one rule, one message. */
		if (f->nr_comms == EVT_FILTER_COMMS_MAX)
			return usage_err(err, errlen, "%s: more than " EVT_STR(EVT_FILTER_COMMS_MAX) " --comm", op);
		cmd->comms[f->nr_comms++] = v;
		return 0;
	case 'g':
		if (f->nr_cgroups == EVT_FILTER_CGROUPS_MAX)
			return usage_err(err, errlen, "%s: more than " EVT_STR(EVT_FILTER_CGROUPS_MAX) " --cgroup", op);
		if (evt_cgroup_hier_path(v, "/proc/self/mountinfo", cmd->cgroup_paths[f->nr_cgroups],
					 sizeof(cmd->cgroup_paths[0]), err, errlen))
			return EVCTL_EXIT_USAGE;
		cmd->cgroups[f->nr_cgroups] = cmd->cgroup_paths[f->nr_cgroups];
		f->nr_cgroups++;
		return 0;
	case 'F':
	case 'N':
		f->follow_fork = c == 'F';
		return 0;
	default: /* 'A' */
		f->all = 1;
		return 0;
	}
}

static int parse_filter(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen)
{
	/* track follows forks or not; untrack can drop every rule. */
	static const struct option track_opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "follow-fork", no_argument, NULL, 'F' },
		{ "no-follow-fork", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	}, untrack_opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "all", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct evt_filter_spec *f = &cmd->filter;

	f->pids = cmd->pids;
	f->comms = cmd->comms;
	f->cgroups = cmd->cgroups;
	f->follow_fork = -1;
	if (sub_options(argc, argv, "", cmd->op == EVCTL_TRACK ? track_opts : untrack_opts, filter_opt, cmd,
			NULL, err, errlen))
		return EVCTL_EXIT_USAGE;
	if (f->all && (f->nr_pids || f->nr_comms || f->nr_cgroups))
		return usage_err(err, errlen, "untrack: --all goes alone");
	if (!f->all && !f->nr_pids && !f->nr_comms && !f->nr_cgroups && f->follow_fork < 0)
		return usage_err(err, errlen, cmd->op == EVCTL_TRACK ?
				 "track: give --pid, --comm, --cgroup or --follow-fork" :
				 "untrack: give --pid, --comm, --cgroup or --all");
	return 0;
}

static int status_opt(int c, const char *v, struct evctl_cmd *cmd, char *err, size_t errlen)
{
	(void)c;
	(void)v;
	(void)err;
	(void)errlen;
	cmd->json = 1;
	return 0;
}

static const struct option status_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

int evctl_parse(int argc, char *const argv[], struct evctl_cmd *cmd, char *err, size_t errlen)
{
	int i, op;

	memset(cmd, 0, sizeof(*cmd));
	cmd->timeout_s = -1;
	if (err && errlen)
		err[0] = '\0';
	if (argc < 2)
		return usage_err(err, errlen, "no command (see evctl --help)");
	if (is_help(argv[1]) || !strcmp(argv[1], "help")) {
		cmd->help = 1;
		/* "evctl help CMD" */
		if (argc > 2 && !strcmp(argv[1], "help")) {
			for (op = EVCTL_START; op < EVCTL_NR_OPS; op++)
				if (!strcmp(argv[2], op_names[op]))
					cmd->op = (enum evctl_op)op;
			if (cmd->op == EVCTL_NONE)
				return usage_err(err, errlen, "unknown command '%s' (see evctl --help)", argv[2]);
		}
		return 0;
	}
	for (op = EVCTL_START; op < EVCTL_NR_OPS; op++)
		if (!strcmp(argv[1], op_names[op]))
			cmd->op = (enum evctl_op)op;
	if (cmd->op == EVCTL_NONE && argv[1][0] == '-')
		return usage_err(err, errlen, "unknown option '%s' (see evctl --help)", argv[1]);
	if (cmd->op == EVCTL_NONE)
		return usage_err(err, errlen, "unknown command '%s' (see evctl --help)", argv[1]);
	for (i = 2; i < argc; i++)
		if (is_help(argv[i])) {
			cmd->help = 1;
			return 0;
		}

	switch (cmd->op) {
	case EVCTL_START:
	case EVCTL_STOP:
	case EVCTL_FLUSH:
	case EVCTL_GENERATE_STOP:
	case EVCTL_TIMER_STOP:
	case EVCTL_ROTATE:
	case EVCTL_STATEDUMP:
		if (argc > 2)
			return usage_err(err, errlen, "%s takes no arguments, not '%s'",
					 op_names[cmd->op], argv[2]);
		return 0;
	case EVCTL_STATUS:
		return sub_options(argc, argv, "", status_opts, status_opt, cmd, NULL, err, errlen);
	case EVCTL_CONFIG:
		if (argc < 3)
			return usage_err(err, errlen, "config: give at least one KEY=VALUE");
		for (i = 2; i < argc; i++)
			if (evt_parse_config_kv(argv[i], &cmd->cfg, err, errlen))
				return EVCTL_EXIT_USAGE;
		return 0;
	case EVCTL_ENABLE:
	case EVCTL_DISABLE:
		return parse_events(argc, argv, cmd, err, errlen);
	case EVCTL_GENERATE:
		return parse_generate(argc, argv, cmd, err, errlen);
	case EVCTL_TIMER:
		return parse_timer(argc, argv, cmd, err, errlen);
	case EVCTL_WATCH:
		return parse_watch(argc, argv, cmd, err, errlen);
	case EVCTL_TRACK:
	case EVCTL_UNTRACK:
		return parse_filter(argc, argv, cmd, err, errlen);
	case EVCTL_SNAPSHOT:
		return parse_snapshot(argc, argv, cmd, err, errlen);
	default:
		return usage_err(err, errlen, "unknown command");
	}
}
