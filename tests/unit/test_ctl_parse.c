// SPDX-License-Identifier: GPL-2.0
/*
 * evctl's command line: every subcommand, good and bad arguments, checked
 * before anything reaches the kernel (cases of the "ctl" suite).
 */
#include <stddef.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include "unit.h"
#include "evctl_cli.h"

/* ---- parsing ---- */

static int parse(struct evctl_cmd *cmd, char *err, const char *a0, ...)
{
	char *argv[48];
	int argc = 0;
	const char *a;
	va_list ap;

	argv[argc++] = (char *)"evctl";
	va_start(ap, a0);
	for (a = a0; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return evctl_parse(argc, argv, cmd, err, 256);
}

#define OK(...) ck_assert_msg(parse(&cmd, err, __VA_ARGS__, NULL) == 0, "refused: %s", err)
#define BAD(needle, ...) do {								\
	ck_assert_int_eq(parse(&cmd, err, __VA_ARGS__, NULL), EVCTL_EXIT_USAGE);	\
	ck_assert_msg(strstr(err, needle), "message '%s' lacks '%s'", err, needle);	\
} while (0)

START_TEST(parse_simple_commands)
{
	struct evctl_cmd cmd;
	char err[256];

	OK("start");
	ck_assert_int_eq(cmd.op, EVCTL_START);
	ck_assert_int_eq(cmd.help, 0);
	OK("stop");
	ck_assert_int_eq(cmd.op, EVCTL_STOP);
	OK("flush");
	ck_assert_int_eq(cmd.op, EVCTL_FLUSH);
	OK("generate-stop");
	ck_assert_int_eq(cmd.op, EVCTL_GENERATE_STOP);
	OK("status");
	ck_assert_int_eq(cmd.op, EVCTL_STATUS);
	ck_assert_int_eq(cmd.json, 0);
	OK("status", "--json");
	ck_assert_int_eq(cmd.json, 1);

	BAD("takes no arguments", "start", "now");
	BAD("takes no arguments", "generate-stop", "--events", "1");
	BAD("unknown option '--xml'", "status", "--xml");
	BAD("status: --json takes no value", "status", "--json=yes");
	OK("status", "--json");
	BAD("unknown command 'strat'", "strat");
	ck_assert_int_eq(evctl_parse(1, (char *[]){ (char *)"evctl", NULL }, &cmd, err, sizeof(err)),
			 EVCTL_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err, "no command"));
}
END_TEST

START_TEST(parse_help)
{
	struct evctl_cmd cmd;
	char err[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int op;

	OK("--help");
	ck_assert(cmd.help && cmd.op == EVCTL_NONE);
	OK("-h");
	ck_assert(cmd.help && cmd.op == EVCTL_NONE);
	OK("help", "watch");
	ck_assert(cmd.help && cmd.op == EVCTL_WATCH);
	OK("config", "--help");
	ck_assert(cmd.help && cmd.op == EVCTL_CONFIG);
	/* --help wins over bad arguments */
	OK("generate", "--rate", "fast", "--help");
	ck_assert(cmd.help && cmd.op == EVCTL_GENERATE);
	BAD("unknown command 'nope'", "help", "nope");

	/* Every command has its own usage, naming itself. */
	for (op = EVCTL_NONE; op < EVCTL_NR_OPS; op++) {
		f = open_memstream(&buf, &len);
		evctl_usage(f, (enum evctl_op)op);
		fclose(f);
		ck_assert_msg(!strncmp(buf, "usage: evctl ", 13), "usage of %d: %s", op, buf);
		if (op != EVCTL_NONE)
			ck_assert(!strncmp(buf + 13, evctl_op_name((enum evctl_op)op),
					   strlen(evctl_op_name((enum evctl_op)op))));
		free(buf);
		buf = NULL;
	}
}
END_TEST

START_TEST(parse_config)
{
	struct evctl_cmd cmd;
	char err[256];

	OK("config", "mode=overwrite", "high_water=55", "flush_ms=0");
	ck_assert_int_eq(cmd.op, EVCTL_CONFIG);
	ck_assert_uint_eq(cmd.cfg.set, EVT_CFG_MODE | EVT_CFG_HIGH_WATER | EVT_CFG_FLUSH_MS);
	ck_assert_int_eq(cmd.cfg.mode, 1);
	ck_assert_uint_eq(cmd.cfg.high_water, 55);
	ck_assert_uint_eq(cmd.cfg.flush_ms, 0);
	OK("config", "mode=discard");
	ck_assert_uint_eq(cmd.cfg.set, EVT_CFG_MODE);
	ck_assert_int_eq(cmd.cfg.mode, 0);
	OK("config", "high_water=1", "flush_ms=3600000");
	ck_assert_uint_eq(cmd.cfg.high_water, 1);
	ck_assert_uint_eq(cmd.cfg.flush_ms, 3600000);
	OK("config", "high_water=100");
	ck_assert_uint_eq(cmd.cfg.high_water, 100);

	BAD("at least one KEY=VALUE", "config");
	BAD("unknown key 'colour'", "config", "colour=blue");
	BAD("unknown key 'modes'", "config", "modes=discard");
	BAD("unknown key 'mod'", "config", "mod=discard");
	BAD("not KEY=VALUE", "config", "mode");
	BAD("not KEY=VALUE", "config", "=3");
	BAD("discard or overwrite", "config", "mode=ring");
	BAD("discard or overwrite", "config", "mode=");
	BAD("1..100", "config", "high_water=0");
	BAD("1..100", "config", "high_water=101");
	BAD("1..100", "config", "high_water=-5");
	BAD("1..100", "config", "high_water=50%");
	BAD("1..100", "config", "high_water= 50");
	BAD("1..100", "config", "high_water=99999999999999999999999");
	BAD("0..3600000", "config", "flush_ms=3600001");
	BAD("0..3600000", "config", "flush_ms=1e3");
	BAD("0..3600000", "config", "flush_ms=");
	BAD("given twice", "config", "high_water=10", "high_water=20");
}
END_TEST

START_TEST(parse_enable_disable)
{
	struct evctl_cmd cmd;
	char err[256];
	unsigned int i;

	OK("enable", "gen_compact", "gen_normal", "gen_compact");
	ck_assert_int_eq(cmd.op, EVCTL_ENABLE);
	ck_assert_uint_eq(cmd.cfg.set, EVT_CFG_EVENTS);
	ck_assert_uint_eq(cmd.cfg.nr_events, 2);	/* duplicates once */
	ck_assert_ptr_eq(cmd.cfg.events, cmd.ev);
	ck_assert_str_eq(cmd.ev[0].name, "gen_compact");
	ck_assert_int_eq(cmd.ev[0].enabled, 1);
	ck_assert_str_eq(cmd.ev[1].name, "gen_normal");

	OK("disable", "timer_tick");
	ck_assert_int_eq(cmd.op, EVCTL_DISABLE);
	ck_assert_uint_eq(cmd.cfg.nr_events, 1);
	ck_assert_int_eq(cmd.ev[0].enabled, 0);

	OK("disable", "all");
	ck_assert_uint_eq(cmd.cfg.nr_events, evt_nr_switches);
	for (i = 0; i < evt_nr_switches; i++) {
		ck_assert_str_eq(cmd.ev[i].name, evt_switch_name(i));
		ck_assert_int_eq(cmd.ev[i].enabled, 0);
	}
	ck_assert_str_eq(cmd.ev[evt_nr_switches - 1].name, "sys_*");

	OK("enable", "sys_*", "exit_syscall");
	ck_assert_uint_eq(cmd.cfg.nr_events, 2);
	BAD("unknown event 'no_such_event'", "enable", "gen_compact", "no_such_event");
	/* One syscall's entry is not switched alone: the message says how. */
	BAD("switched together: name them 'sys_*'", "enable", "sys_unknown");
	BAD("known: gen_compact", "disable", "bogus");
	BAD("name at least one event", "enable");
	BAD("unknown option '--all'", "disable", "--all");
}
END_TEST

START_TEST(parse_generate)
{
	struct evctl_cmd cmd;
	char err[256];

	OK("generate");
	ck_assert_int_eq(cmd.op, EVCTL_GENERATE);
	ck_assert_uint_eq(cmd.gen.set, 0);

	OK("generate", "--events", "5000", "--rate=2000", "--channel", "both", "--cpus", "0-3,6",
	   "--sizes", "mix");
	ck_assert_uint_eq(cmd.gen.set, EVT_GEN_SET_EVENTS | EVT_GEN_SET_RATE | EVT_GEN_SET_CHANNELS |
			  EVT_GEN_SET_CPUS | EVT_GEN_SET_SIZES);
	ck_assert_uint_eq(cmd.gen.p.events, 5000);
	ck_assert_uint_eq(cmd.gen.p.rate, 2000);
	ck_assert_uint_eq(cmd.gen.p.channels, EVT_GEN_CHANNEL_COMPACT | EVT_GEN_CHANNEL_NORMAL);
	ck_assert_str_eq(cmd.gen.cpus, "0-3,6");
	ck_assert_uint_eq(cmd.gen.p.mix, 1);

	OK("generate", "--channel=compact", "--sizes=fixed", "--cpus=all", "--rate", "0",
	   "--events", "1099511627776");
	ck_assert_uint_eq(cmd.gen.p.channels, EVT_GEN_CHANNEL_COMPACT);
	ck_assert_uint_eq(cmd.gen.p.mix, 0);
	ck_assert_str_eq(cmd.gen.cpus, "all");
	ck_assert_uint_eq(cmd.gen.p.rate, 0);
	ck_assert_uint_eq(cmd.gen.p.events, 1ULL << 40);
	OK("generate", "--channel", "normal", "--rate", "4294967295", "--cpus", "1");
	ck_assert_uint_eq(cmd.gen.p.channels, EVT_GEN_CHANNEL_NORMAL);
	ck_assert_uint_eq(cmd.gen.p.rate, UINT32_MAX);

	BAD("--channel is compact, normal or both", "generate", "--channel", "fast");
	BAD("--channel is compact, normal or both", "generate", "--channel=");
	BAD("--events wants a number >= 1", "generate", "--events", "0");
	BAD("--events wants a number >= 1", "generate", "--events", "18446744073709551616");
	BAD("--events wants a number >= 1", "generate", "--events", "10k");
	/* The module's limit (2^40): refused here, not by the kernel. */
	OK("generate", "--events", "1099511627776");
	BAD("--events wants a number >= 1 and <= 1099511627776", "generate", "--events",
	    "1099511627777");
	BAD("--rate wants events per second", "generate", "--rate", "4294967296");
	BAD("--rate wants events per second", "generate", "--rate", "-1");
	BAD("--sizes is fixed or mix", "generate", "--sizes", "big");
	BAD("--cpus needs a value", "generate", "--cpus");
	BAD("--events needs a value", "generate", "--rate", "5", "--events");
	BAD("unknown option '--cpux'", "generate", "--cpux", "1");
	/* getopt_long: a unique prefix names its option, and --opt=value is --opt value. */
	OK("generate", "--cpu", "1", "--rate=5");
	ck_assert_str_eq(cmd.gen.cpus, "1");
	ck_assert_uint_eq(cmd.gen.p.rate, 5);
	BAD("unknown argument 'fast'", "generate", "fast");
	BAD("bad CPU list '1-'", "generate", "--cpus", "1-");
	BAD("empty CPU list", "generate", "--cpus", "");
	BAD("goes down", "generate", "--cpus", "0,5-2");
}
END_TEST

START_TEST(parse_timer)
{
	struct evctl_cmd cmd;
	char err[256];

	OK("timer", "--period-us", "100");
	ck_assert_int_eq(cmd.op, EVCTL_TIMER);
	ck_assert_uint_eq(cmd.timer_period_us, 100);
	OK("timer", "--period-us=1000000");
	ck_assert_uint_eq(cmd.timer_period_us, 1000000);
	OK("timer", "--period-us", "10");
	/* A unit (evt_units.h); a bare number stays microseconds. */
	OK("timer", "--period-us", "1ms");
	ck_assert_uint_eq(cmd.timer_period_us, 1000);
	OK("timer", "--period-us=250us");
	ck_assert_uint_eq(cmd.timer_period_us, 250);
	BAD("--period-us wants microseconds 10..1000000 (or with a unit: 1ms), not '1500ns'", "timer",
	    "--period-us", "1500ns");
	OK("timer-stop");
	ck_assert_int_eq(cmd.op, EVCTL_TIMER_STOP);
	BAD("timer: give --period-us N", "timer");
	BAD("--period-us wants microseconds 10..1000000 (or with a unit: 1ms), not '9'", "timer", "--period-us", "9");
	BAD("--period-us wants microseconds 10..1000000 (or with a unit: 1ms), not '1000001'", "timer", "--period-us",
	    "1000001");
	BAD("--period-us needs a value", "timer", "--period-us");
	BAD("unknown argument '50'", "timer", "50");
	BAD("timer-stop takes no arguments", "timer-stop", "now");
}
END_TEST

START_TEST(parse_track)
{
	struct evctl_cmd cmd;
	char err[256];

	OK("track", "--pid", "12,345", "--pid=7", "--comm", "bash", "--cgroup", "/a/b", "--follow-fork");
	ck_assert_int_eq(cmd.op, EVCTL_TRACK);
	ck_assert_uint_eq(cmd.filter.nr_pids, 3);
	ck_assert_uint_eq(cmd.filter.pids[0], 12);
	ck_assert_uint_eq(cmd.filter.pids[1], 345);
	ck_assert_uint_eq(cmd.filter.pids[2], 7);
	ck_assert_uint_eq(cmd.filter.nr_comms, 1);
	ck_assert_str_eq(cmd.filter.comms[0], "bash");
	ck_assert_uint_eq(cmd.filter.nr_cgroups, 1);
	ck_assert_str_eq(cmd.filter.cgroups[0], "/a/b");
	ck_assert_int_eq(cmd.filter.follow_fork, 1);
	ck_assert_int_eq(cmd.filter.all, 0);
	OK("track", "--no-follow-fork");
	ck_assert_int_eq(cmd.filter.follow_fork, 0);
	OK("track", "--comm", "x");
	ck_assert_int_eq(cmd.filter.follow_fork, -1);	/* left as it is */
	/* A name's length is the kernel's to judge (one rule, one message). */
	OK("track", "--comm", "abcdefghijklmnopqrst");
	OK("untrack", "--all");
	ck_assert_int_eq(cmd.op, EVCTL_UNTRACK);
	ck_assert_int_eq(cmd.filter.all, 1);
	OK("untrack", "--pid", "1");
	ck_assert_int_eq(cmd.filter.all, 0);
	BAD("track: give --pid, --comm, --cgroup or --follow-fork", "track");
	BAD("untrack: give --pid, --comm, --cgroup or --all", "untrack");
	BAD("untrack: --all goes alone", "untrack", "--all", "--pid", "1");
	BAD("'0' is not a process ID", "track", "--pid", "0");
	BAD("'2147483648' is not a process ID", "track", "--pid", "2147483648");
	BAD("--pid wants process IDs like 12,345, not '1,,2'", "track", "--pid", "1,,2");
	BAD("--pid wants process IDs like 12,345, not '1,'", "track", "--pid", "1,");
	BAD("'x1' is not a process ID", "track", "--pid", "x1");
	BAD("--pid needs a value", "track", "--pid");
	BAD("unknown option '--follow-fork'", "untrack", "--follow-fork");
	BAD("unknown option '--all'", "track", "--all");
	BAD("more than 16 --comm", "track", "--comm", "a", "--comm", "a", "--comm", "a", "--comm", "a",
	    "--comm", "a", "--comm", "a", "--comm", "a", "--comm", "a", "--comm", "a", "--comm", "a",
	    "--comm", "a", "--comm", "a", "--comm", "a", "--comm", "a", "--comm", "a", "--comm", "a",
	    "--comm", "a");
	BAD("more than 4 --cgroup", "track", "--cgroup", "/a", "--cgroup", "/a", "--cgroup", "/a",
	    "--cgroup", "/a", "--cgroup", "/a");
	BAD("--cgroup 'rel/x': neither a directory nor a path starting with /", "track", "--cgroup",
	    "rel/x");
}
END_TEST

/*
 * --cgroup DIR of a mounted cgroup2 file system is its path in the hierarchy:
 * found through mountinfo (a fake one here naming a real directory as a
 * cgroup2 mount is not enough: the directory must be on cgroup2, which only
 * the VM test has for sure), so a path that is not on cgroup2 stays as given
 * when it starts with /, and is refused when it does not.
 */
START_TEST(cgroup_paths)
{
	char out[EVT_FILTER_CGROUP_PATH_MAX], err[256], mi[] = "/tmp/evt-mountinfo-XXXXXX";
	char longpath[600];
	struct statfs sf;
	int fd = mkstemp(mi);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs("22 1 0:20 / /proc rw - proc proc rw\n", f);
	fclose(f);
	ck_assert_int_eq(evt_cgroup_hier_path("/evt-no-such/x", mi, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(out, "/evt-no-such/x");
	/* /tmp exists and is not cgroup2: a path of the hierarchy as given. */
	ck_assert_int_eq(evt_cgroup_hier_path("/tmp", mi, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(out, "/tmp");
	ck_assert_int_eq(evt_cgroup_hier_path("tmp-no-such", mi, out, sizeof(out), err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "neither a directory nor a path starting with /"));
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	ck_assert_int_eq(evt_cgroup_hier_path(longpath, mi, out, sizeof(out), err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "path longer than 511 bytes"));
	/* Where this machine has cgroup2 at /sys/fs/cgroup: its root is "/". */
	if (!statfs("/sys/fs/cgroup", &sf) && sf.f_type == 0x63677270) {
		ck_assert_int_eq(evt_cgroup_hier_path("/sys/fs/cgroup", "/proc/self/mountinfo", out,
						      sizeof(out), err, sizeof(err)), 0);
		ck_assert_msg(out[0] == '/', "%s", out);
		ck_assert_int_eq(evt_cgroup_hier_path("/sys/fs/cgroup", mi, out, sizeof(out), err,
						      sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "no cgroup2 mount holds it"));
	}
	unlink(mi);
}
END_TEST

START_TEST(parse_snapshot)
{
	struct evctl_cmd cmd;
	char err[256];

	OK("snapshot", "-o", "/tmp/s");
	ck_assert_int_eq(cmd.op, EVCTL_SNAPSHOT);
	ck_assert_str_eq(cmd.out_dir, "/tmp/s");
	OK("snapshot", "--output", "d");
	ck_assert_str_eq(cmd.out_dir, "d");
	OK("snapshot", "--output=e");
	ck_assert_str_eq(cmd.out_dir, "e");
	OK("snapshot", "-o=f");
	ck_assert_str_eq(cmd.out_dir, "f");
	BAD("snapshot: give -o DIR", "snapshot");
	BAD("snapshot: -o needs a value", "snapshot", "-o");
	BAD("snapshot: --output needs a value", "snapshot", "--output");
	BAD("snapshot: -o wants a directory, not ''", "snapshot", "-o", "");
	BAD("snapshot: -o given twice", "snapshot", "-o", "a", "--output", "b");
	BAD("snapshot: unknown argument 'x'", "snapshot", "-o", "a", "x");
	OK("snapshot", "-oa");
	ck_assert_str_eq(cmd.out_dir, "a");
}
END_TEST

START_TEST(parse_watch)
{
	struct evctl_cmd cmd;
	char err[256];

	OK("watch");
	ck_assert_int_eq(cmd.op, EVCTL_WATCH);
	ck_assert_uint_eq(cmd.count, 0);
	ck_assert_int_eq(cmd.timeout_s, -1);
	ck_assert_uint_eq(cmd.reasons, 0);
	OK("watch", "--count", "3", "--timeout=60", "--reason", "high_water,CPU_Offline");
	ck_assert_uint_eq(cmd.count, 3);
	ck_assert_int_eq(cmd.timeout_s, 60);
	ck_assert_uint_eq(cmd.reasons, (1u << EVT_NOTIFY_HIGH_WATER) | (1u << EVT_NOTIFY_CPU_OFFLINE));
	OK("watch", "--timeout", "2m");
	ck_assert_int_eq(cmd.timeout_s, 120);

	BAD("--count wants a number >= 1", "watch", "--count", "0");
	BAD("--count wants a number >= 1", "watch", "--count", "two");
	BAD("--timeout wants whole seconds", "watch", "--timeout", "0");
	BAD("--timeout wants whole seconds", "watch", "--timeout", "1.5");
	BAD("--timeout wants whole seconds", "watch", "--timeout", "99999999999");
	BAD("unknown reason 'LOW_WATER'", "watch", "--reason", "LOW_WATER");
	BAD("unknown reason 'NONE'", "watch", "--reason", "NONE");
	BAD("bad --reason list", "watch", "--reason", "");
	BAD("--timeout needs a value", "watch", "--timeout");
	BAD("unknown option '-n'", "watch", "-n", "3");

	ck_assert_int_eq(evt_parse_reason("stopped"), EVT_NOTIFY_STOPPED);
	ck_assert_int_eq(evt_parse_reason("CPU_ONLINE"), EVT_NOTIFY_CPU_ONLINE);
	ck_assert_int_eq(evt_parse_reason("cpu-online"), -1);
}
END_TEST

START_TEST(parse_numbers)
{
	uint64_t v = 7;

	ck_assert_int_eq(evt_parse_u64("0", 0, 10, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(evt_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(evt_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -1);
	ck_assert_int_eq(evt_parse_u64("", 0, 10, &v), -1);
	ck_assert_int_eq(evt_parse_u64("+1", 0, 10, &v), -1);
	ck_assert_int_eq(evt_parse_u64("11", 0, 10, &v), -1);
	ck_assert_int_eq(evt_parse_u64("4", 5, 10, &v), -1);
	ck_assert_uint_eq(v, UINT64_MAX);	/* untouched on failure */
}
END_TEST


/* The command line's cases, in the "ctl" suite. */
void ctl_parse_tests(TCase *tc)
{
	tcase_add_test(tc, parse_simple_commands);
	tcase_add_test(tc, parse_help);
	tcase_add_test(tc, parse_config);
	tcase_add_test(tc, parse_enable_disable);
	tcase_add_test(tc, parse_generate);
	tcase_add_test(tc, parse_timer);
	tcase_add_test(tc, parse_track);
	tcase_add_test(tc, cgroup_paths);
	tcase_add_test(tc, parse_snapshot);
	tcase_add_test(tc, parse_watch);
	tcase_add_test(tc, parse_numbers);
}
