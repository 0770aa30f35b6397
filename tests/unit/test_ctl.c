// SPDX-License-Identifier: GPL-2.0
/*
 * evctl's command line (every subcommand, good and bad arguments, checked
 * before anything reaches the kernel) and its output: the status table, the
 * JSON document (checked by a small strict JSON parser and against an exact
 * expected text), notification lines; the STATUS dump put together from
 * many messages as the module sends them, and malformed ones refused.
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

/* ---- a strict JSON (RFC 8259) recogniser ---- */

struct jp {
	const char *s;
	int depth;
};

static void jws(struct jp *p)
{
	while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r')
		p->s++;
}

static int jvalue(struct jp *p);

static int jstring(struct jp *p)
{
	if (*p->s != '"')
		return -1;
	p->s++;
	while (*p->s != '"') {
		unsigned char c = (unsigned char)*p->s;

		if (c < 0x20)
			return -1;
		if (c == '\\') {
			p->s++;
			if (strchr("\"\\/bfnrt", *p->s) && *p->s) {
				p->s++;
			} else if (*p->s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p->s[i]) || !p->s[i])
						return -1;
				p->s += 5;
			} else {
				return -1;
			}
		} else {
			p->s++;
		}
	}
	p->s++;
	return 0;
}

static int jnumber(struct jp *p)
{
	if (*p->s == '-')
		p->s++;
	if (*p->s == '0')
		p->s++;
	else if (*p->s >= '1' && *p->s <= '9')
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	else
		return -1;
	if (*p->s == '.') {
		p->s++;
		if (*p->s < '0' || *p->s > '9')
			return -1;
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (*p->s == 'e' || *p->s == 'E') {
		p->s++;
		if (*p->s == '+' || *p->s == '-')
			p->s++;
		if (*p->s < '0' || *p->s > '9')
			return -1;
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	return 0;
}

static int jlist(struct jp *p, char close, int object)
{
	p->s++;
	if (++p->depth > 64)
		return -1;
	jws(p);
	if (*p->s == close) {
		p->s++;
		p->depth--;
		return 0;
	}
	for (;;) {
		jws(p);
		if (object) {
			if (jstring(p))
				return -1;
			jws(p);
			if (*p->s++ != ':')
				return -1;
		}
		if (jvalue(p))
			return -1;
		jws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s++ != close)
			return -1;
		p->depth--;
		return 0;
	}
}

static int jvalue(struct jp *p)
{
	jws(p);
	switch (*p->s) {
	case '{': return jlist(p, '}', 1);
	case '[': return jlist(p, ']', 0);
	case '"': return jstring(p);
	case 't': if (!strncmp(p->s, "true", 4)) { p->s += 4; return 0; } return -1;
	case 'f': if (!strncmp(p->s, "false", 5)) { p->s += 5; return 0; } return -1;
	case 'n': if (!strncmp(p->s, "null", 4)) { p->s += 4; return 0; } return -1;
	default: return jnumber(p);
	}
}

/* One whole document, nothing after it. */
static int json_valid(const char *s)
{
	struct jp p = { .s = s };

	if (jvalue(&p))
		return 0;
	jws(&p);
	return *p.s == '\0';
}

START_TEST(json_validator_self_test)
{
	ck_assert(json_valid("{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\n\"], \"b\": {}}"));
	ck_assert(json_valid("[]"));
	ck_assert(!json_valid("{\"a\": 1,}"));
	ck_assert(!json_valid("{\"a\" 1}"));
	ck_assert(!json_valid("[1, 2"));
	ck_assert(!json_valid("{\"a\": 01}"));
	ck_assert(!json_valid("{\"a\": \"tab\there\"}"));
	ck_assert(!json_valid("{} {}"));
	ck_assert(!json_valid("{\"a\": tru}"));
	ck_assert(!json_valid("\"\\x\""));
}
END_TEST

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

/* ---- output ---- */

static struct evt_status_event t_events[] = {
	{ "gen_compact", 1, EVT_CHAN_COMPACT, 1 },
	{ "gen_normal", 0, EVT_CHAN_NORMAL, 0 },
	{ "odd\"name\\\n", 1, -1, 0 },
};
static struct evt_status_ring t_rings[] = {
	{ .channel = EVT_CHAN_COMPACT, .cpu = 0, .online = 1, .recorded = 123456789012ULL,
	  .discarded = 5, .overwritten = 0, .too_big = 1, .refused = 2, .produced = 40,
	  .consumed = 38, .skipped = 0, .filtered = 9, .fill = 6 },
	{ .channel = EVT_CHAN_NORMAL, .cpu = 1, .online = 0, .recorded = UINT64_MAX,
	  .produced = 1, .fill = 100 },
};
static struct evt_status_gen t_gens[] = {
	{ .cpu = 0, .running = 1, .done = 0, .compact = 123456789020ULL, .normal = 7, .timer = 0 },
	{ .cpu = 1, .running = 0, .done = 1, .compact = 0, .normal = UINT64_MAX, .timer = 3 },
};

static void fill_status(struct evt_status *st)
{
	evt_status_init(st);
	st->tracing = 1;
	st->mode = 1;
	st->high_water = 70;
	st->flush_ms = 0;
	st->subbuf_size = 16384;
	st->num_subbuf = 32;
	st->events = t_events;
	st->nr_events = 3;
	st->rings = t_rings;
	st->nr_rings = 2;
	st->gens = t_gens;
	st->nr_gens = 2;
}

static char *render(void (*fn)(FILE *, const struct evt_status *), const struct evt_status *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fn(f, st);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* @fn's output for @st holds @want (and, from the JSON printer, is JSON). */
static void expect_output(void (*fn)(FILE *, const struct evt_status *), const struct evt_status *st,
			  const char *want)
{
	char *out = render(fn, st);

	if (fn == evt_status_print_json)
		ck_assert_msg(json_valid(out), "not JSON:\n%s", out);
	ck_assert_msg(strstr(out, want), "no \"%s\" in:\n%s", want, out);
	free(out);
}

/* A counter past INT64_MAX (jansson's integers are signed) is null. */
static const char expected_json[] =
	"{\n"
	"  \"schema\": \"evtrace.status/1\",\n"
	"  \"state\": \"tracing\",\n"
	"  \"config\": {\"mode\": \"overwrite\", \"high_water\": 70, \"flush_ms\": 0, "
	"\"subbuf_size\": 16384, \"num_subbuf\": 32},\n"
	"  \"events\": [\n"
	"    {\"name\": \"gen_compact\", \"channel\": \"compact\", \"enabled\": true, \"stack\": true},\n"
	"    {\"name\": \"gen_normal\", \"channel\": \"normal\", \"enabled\": false, \"stack\": false},\n"
	"    {\"name\": \"odd\\\"name\\\\\\n\", \"channel\": null, \"enabled\": true, \"stack\": false}\n"
	"  ],\n"
	"  \"filter\": null,\n"
	"  \"trigger\": null,\n"
	"  \"rings\": [\n"
	"    {\"channel\": \"compact\", \"cpu\": 0, \"online\": true, \"recorded\": 123456789012, "
	"\"discarded\": 5, \"overwritten\": 0, \"too_big\": 1, \"refused\": 2, \"produced\": 40, "
	"\"consumed\": 38, \"skipped\": 0, \"filtered\": 9, \"fill\": 6, \"held_snapshot\": null, "
	"\"held_trigger\": null, \"unanswered\": 0},\n"
	"    {\"channel\": \"normal\", \"cpu\": 1, \"online\": false, \"recorded\": null, "
	"\"discarded\": 0, \"overwritten\": 0, \"too_big\": 0, \"refused\": 0, \"produced\": 1, "
	"\"consumed\": 0, \"skipped\": 0, \"filtered\": 0, \"fill\": 100, \"held_snapshot\": null, "
	"\"held_trigger\": null, \"unanswered\": 0}\n"
	"  ],\n"
	"  \"generator\": [\n"
	"    {\"cpu\": 0, \"running\": true, \"done\": false, \"compact\": 123456789020, "
	"\"normal\": 7, \"timer\": 0},\n"
	"    {\"cpu\": 1, \"running\": false, \"done\": true, \"compact\": 0, "
	"\"normal\": null, \"timer\": 3}\n"
	"  ]\n"
	"}\n";

START_TEST(status_json)
{
	struct evt_status st;
	char *out;

	fill_status(&st);
	out = render(evt_status_print_json, &st);
	ck_assert_msg(json_valid(out), "not JSON:\n%s", out);
	ck_assert_str_eq(out, expected_json);
	free(out);
}
END_TEST

/* The status document, with the test hook's rings and a filter, against docs/schemas/evtrace.status.json. */
START_TEST(status_json_matches_schema)
{
	struct evt_status st;
	struct evt_status_ring fake[1] = { { .channel = 5, .cpu = 4096, .held_trigger = 7 } };
	char path[] = "/tmp/evt-status-XXXXXX", cmd[200];
	int fd;
	FILE *f;

	fill_status(&st);
	st.fake_rings = fake;
	st.nr_fake_rings = 1;
	st.filter.set = 1;
	st.filter.nr_comms = 1;
	strcpy(st.filter.comms[0], "b\x9b\xffsh");
	st.trigger = (struct evt_status_trigger){ .seq = 2, .reason = EVT_TRIGGER_WARN, .ts = 69 };
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	evt_status_print_json(f, &st);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "python3 tests/tools/json-schema-check.py %s >&2", path);
	ck_assert_int_eq(system(cmd), 0);
	unlink(path);
}
END_TEST

START_TEST(status_json_empty)
{
	struct evt_status st;
	char *out;

	/* Nothing reported: nulls and empty lists, still one valid document. */
	evt_status_init(&st);
	out = render(evt_status_print_json, &st);
	ck_assert_msg(json_valid(out), "not JSON:\n%s", out);
	ck_assert_str_eq(out, "{\n  \"schema\": \"evtrace.status/1\",\n  \"state\": \"stopped\",\n"
			 "  \"config\": {\"mode\": null, \"high_water\": null, \"flush_ms\": null, "
			 "\"subbuf_size\": 0, \"num_subbuf\": 0},\n"
			 "  \"events\": [],\n  \"filter\": null,\n  \"trigger\": null,\n  \"rings\": [],\n"
			 "  \"generator\": []\n}\n");
	free(out);
}
END_TEST

START_TEST(status_json_many)
{
	struct evt_status st;
	struct evt_status_ring rings[256];
	struct evt_status_event ev[40];
	char *out;
	size_t i;

	fill_status(&st);
	memset(rings, 0, sizeof(rings));
	for (i = 0; i < 256; i++) {
		rings[i].channel = (unsigned int)(i & 1);
		rings[i].cpu = (unsigned int)(i / 2);
		rings[i].recorded = i * 1000003ULL;
	}
	rings[255].channel = 7;		/* unknown channel: a number */
	/* Every byte value in names: escaped into valid JSON. */
	for (i = 0; i < 40; i++) {
		size_t k;

		for (k = 0; k < 63; k++)
			ev[i].name[k] = (char)(1 + (i * 63 + k) % 255);
		ev[i].name[63] = '\0';
		ev[i].enabled = (int)(i & 1);
		ev[i].channel = (int)i - 2;
	}
	st.rings = rings;
	st.nr_rings = 256;
	st.events = ev;
	st.nr_events = 40;
	out = render(evt_status_print_json, &st);
	ck_assert_msg(json_valid(out), "not JSON:\n%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"channel\": 7, \"cpu\": 127"));
	free(out);
}
END_TEST

START_TEST(status_text)
{
	struct evt_status st;
	char *out, *line;
	unsigned int cpu;
	char ch[16], online[8];
	unsigned long long rec, dis, ovw, tb, ref;

	fill_status(&st);
	out = render(evt_status_print_text, &st);
	ck_assert_ptr_nonnull(strstr(out, "state        tracing\n"));
	ck_assert_ptr_nonnull(strstr(out, "mode         overwrite\n"));
	ck_assert_ptr_nonnull(strstr(out, "high_water   70%\n"));
	ck_assert_ptr_nonnull(strstr(out, "flush_ms     0 (off)\n"));
	ck_assert_ptr_nonnull(strstr(out, "32 x 16384 bytes"));
	ck_assert_ptr_nonnull(strstr(out, "  gen_normal                     normal   no       no\n"));
	/* Ring rows keep debugfs stats' columns: channel cpu online recorded
	 * discarded overwritten too_big refused ... (the VM tests' awk). */
	line = strstr(out, "\ncompact ");
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(sscanf(line + 1, "%15s %u %7s %llu %llu %llu %llu %llu", ch, &cpu, online,
				&rec, &dis, &ovw, &tb, &ref), 8);
	ck_assert_str_eq(ch, "compact");
	ck_assert_uint_eq(cpu, 0);
	ck_assert_str_eq(online, "yes");
	ck_assert_uint_eq(rec, 123456789012ULL);
	ck_assert_uint_eq(dis, 5);
	ck_assert_uint_eq(tb, 1);
	ck_assert_uint_eq(ref, 2);
	ck_assert_ptr_nonnull(strstr(line, "38          0          9   6%\n"));
	ck_assert_ptr_nonnull(strstr(out, "filter       none (every task is recorded)\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nnormal     1 no     18446744073709551615"));
	/* Generator rows: "gen cpu running done compact normal timer". */
	ck_assert_ptr_nonnull(strstr(out, "\ngen        0 yes     no   123456789020            7            0\n"));
	ck_assert_ptr_nonnull(strstr(out, "\ngen        1 no      yes             0 18446744073709551615            3\n"));
	free(out);
}
END_TEST

START_TEST(status_filter_output)
{
	struct evt_status st;

	fill_status(&st);
	st.filter.set = 1;
	st.filter.nr_pids = 1;
	st.filter.follow_fork = 1;
	st.filter.nr_comms = 2;
	strcpy(st.filter.comms[0], "bash");
	strcpy(st.filter.comms[1], "a\"b");
	st.filter.nr_cgroups = 1;
	strcpy(st.filter.cgroups[0], "/ci/job");
	expect_output(evt_status_print_text, &st, "filter       1 process ID (follow fork), comm bash, "
		      "comm a\"b, cgroup /ci/job\n");
	expect_output(evt_status_print_json, &st, "  \"filter\": {\"pids\": 1, \"follow_fork\": true, "
		      "\"nr_comms\": 2, \"nr_cgroups\": 1, "
		      "\"comms\": [\"bash\", \"a\\\"b\"], \"cgroups\": [\"/ci/job\"]},\n");

	/* Without CAP_NET_ADMIN the module says how many, not which: no empty lists. */
	st.filter.nr_comms = 0;
	st.filter.nr_cgroups = 0;
	st.filter.count_comms = 2;
	st.filter.count_cgroups = 1;
	expect_output(evt_status_print_text, &st, "filter       1 process ID (follow fork), 2 process names, "
		      "1 cgroup (which: CAP_NET_ADMIN only)\n");
	expect_output(evt_status_print_json, &st, "\"nr_comms\": 2, \"nr_cgroups\": 1, \"comms\": null, "
		      "\"cgroups\": null},\n");
}
END_TEST

/* The kept trigger, the rings held by what and since when, CPUs that did not answer. */
START_TEST(status_holds_output)
{
	struct evt_status st;
	struct evt_status_ring rings[4];
	char *out;

	fill_status(&st);
	out = render(evt_status_print_text, &st);
	ck_assert_ptr_null(strstr(out, "unanswered"));
	free(out);
	expect_output(evt_status_print_text, &st, "\ntrigger      none kept\nheld         none\n");

	memset(rings, 0, sizeof(rings));
	rings[0] = (struct evt_status_ring){ .channel = EVT_CHAN_COMPACT, .cpu = 0, .held_trigger = 7000000000ULL };
	rings[1] = (struct evt_status_ring){ .channel = EVT_CHAN_COMPACT, .cpu = 1, .held_trigger = 7500000000ULL,
					     .unanswered = 1 };
	rings[2] = (struct evt_status_ring){ .channel = EVT_CHAN_NORMAL, .cpu = 0, .held_trigger = 7000000000ULL,
					     .held_snapshot = 9000000000ULL };
	rings[3] = (struct evt_status_ring){ .channel = EVT_CHAN_NORMAL, .cpu = 1, .unanswered = 2 };
	st.rings = rings;
	st.nr_rings = 4;
	st.now = 10000000000ULL;
	st.trigger = (struct evt_status_trigger){ .seq = 2, .reason = EVT_TRIGGER_WARN, .ts = 6900000000ULL,
						  .release_ts = 606900000000ULL };
	expect_output(evt_status_print_text, &st, "\ntrigger      2 (warn) kept: held until read, or 597 s "
		      "more (trigger_keep_ms)\n");
	expect_output(evt_status_print_text, &st, "\nheld         by trigger 2: compact 0,1 normal 0 (for "
		      "3.0 s); by a snapshot: normal 0 (for 1.0 s)\n");
	expect_output(evt_status_print_text, &st, "\nunanswered   compact 1: 1 flush, normal 1: 2 flushes not "
		      "answered in time");
	expect_output(evt_status_print_json, &st, "  \"trigger\": {\"seq\": 2, \"reason\": \"warn\", "
		      "\"ts\": 6900000000, \"release_ts\": 606900000000, \"expired\": false},\n");
	expect_output(evt_status_print_json, &st, "\"held_snapshot\": 9000000000, \"held_trigger\": "
		      "7000000000, \"unanswered\": 0}");

	/* Gone unread after trigger_keep_ms; or read. */
	st.trigger.expired = 1;
	rings[0].held_trigger = rings[1].held_trigger = rings[2].held_trigger = 0;
	expect_output(evt_status_print_text, &st, "\ntrigger      2 (warn) kept: its holds went unread "
		      "(trigger_keep_ms)\nheld         by a snapshot: normal 0 (for 1.0 s)\n");
	st.trigger.expired = 0;
	expect_output(evt_status_print_text, &st, "\ntrigger      2 (warn) kept: read\n");
}
END_TEST

/* The test hook's synthetic rings: counted, in a JSON member of their own,
 * never a row of the table; without them the output is as it always was. */
START_TEST(status_fake_rings_apart)
{
	struct evt_status st;
	struct evt_status_ring fake[3];
	char *out, *plain_text, *plain_json;
	size_t i;

	fill_status(&st);
	plain_text = render(evt_status_print_text, &st);
	plain_json = render(evt_status_print_json, &st);
	ck_assert_ptr_null(strstr(plain_text, "fake"));
	ck_assert_str_eq(plain_json, expected_json);
	memset(fake, 0, sizeof(fake));
	for (i = 0; i < 3; i++) {
		fake[i].channel = (unsigned int)(i & 1);
		fake[i].cpu = 4096 + (unsigned int)i;
		fake[i].recorded = 777000 + i;
	}
	st.fake_rings = fake;
	st.nr_fake_rings = 3;

	out = render(evt_status_print_text, &st);
	ck_assert_ptr_nonnull(strstr(out, "\nfake rings   3 synthetic entries from the test hook"));
	ck_assert_ptr_null(strstr(out, "777000"));
	ck_assert_ptr_null(strstr(out, " 4096 "));
	/* Everything else as without them. */
	ck_assert_ptr_nonnull(strstr(out, strstr(plain_text, "\nevents\n")));
	free(out);

	out = render(evt_status_print_json, &st);
	ck_assert_msg(json_valid(out), "not JSON:\n%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\n  ],\n  \"fake_rings\": [\n    {\"channel\": \"compact\", "
				      "\"cpu\": 4096, \"online\": false, \"recorded\": 777000,"));
	ck_assert_ptr_nonnull(strstr(out, "\"cpu\": 4098, \"online\": false, \"recorded\": 777002,"));
	/* The real rings' member is untouched and comes first. */
	ck_assert_ptr_nonnull(strstr(out, "\"rings\": [\n    {\"channel\": \"compact\", \"cpu\": 0,"));
	ck_assert(strstr(out, "\"rings\"") < strstr(out, "\"fake_rings\""));
	free(out);
	free(plain_text);
	free(plain_json);
}
END_TEST

/* ---- the STATUS dump, as the module sends it ---- */

struct nlbuf {
	unsigned char *p;
	size_t len, cap;
};

static struct nl_msg *status_msg_size(size_t size)
{
	struct nl_msg *m = nlmsg_alloc_size(size);

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(genlmsg_put(m, 0, 7, 0x20, 0, NLM_F_MULTI, EVT_CMD_STATUS,
					  EVT_GENL_VERSION));
	return m;
}

static struct nl_msg *status_msg(void)
{
	return status_msg_size(4096);
}

/* Append @m's bytes to @b (as they would arrive) and free it. */
static void take(struct nlbuf *b, struct nl_msg *m)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	size_t n = NLMSG_ALIGN(h->nlmsg_len);

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	memcpy(b->p + b->len, h, n);
	b->len += n;
	nlmsg_free(m);
}

/* A ring entry whose figures are base + 0 (recorded) .. base + 7 (skipped). */
static void put_ring(struct nl_msg *m, unsigned int ch, unsigned int cpu, uint64_t base, int fake)
{
	struct nlattr *r = nla_nest_start(m, EVT_A_RING | NLA_F_NESTED);
	int i;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(nla_put_u8(m, EVT_R_CHANNEL, (uint8_t)ch), 0);
	ck_assert_int_eq(nla_put_u32(m, EVT_R_CPU, cpu), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_R_ONLINE, 1), 0);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(nla_put_u64(m, EVT_R_RECORDED + i, base + (uint64_t)i), 0);
	ck_assert_int_eq(nla_put_u32(m, EVT_R_FILL, cpu % 101), 0);
	if (fake)
		ck_assert_int_eq(nla_put_u8(m, EVT_R_FAKE, 1), 0);
	nla_nest_end(m, r);
}

/* A message of one ring in a list nest of @list_type. */
static void ring_msg(struct nlbuf *b, int list_type, unsigned int ch, unsigned int cpu,
		     uint64_t base, int fake)
{
	struct nl_msg *m = status_msg();
	struct nlattr *l = nla_nest_start(m, list_type | NLA_F_NESTED);

	put_ring(m, ch, cpu, base, fake);
	nla_nest_end(m, l);
	take(b, m);
}

static void config_msg(struct nlbuf *b)
{
	static const char *const names[] = { "gen_compact", "gen_normal", "sys_*" };
	struct nl_msg *m = status_msg();
	struct nlattr *l, *e;
	int i;

	ck_assert_int_eq(nla_put_u8(m, EVT_A_TRACING, 1), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_A_MODE, 1), 0);
	ck_assert_int_eq(nla_put_u32(m, EVT_A_HIGH_WATER, 70), 0);
	ck_assert_int_eq(nla_put_u32(m, EVT_A_FLUSH_MS, 200), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_A_SUBBUF_SIZE, 16384), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_A_NUM_SUBBUF, 32), 0);
	l = nla_nest_start(m, EVT_A_EVENTS | NLA_F_NESTED);
	for (i = 0; i < 3; i++) {
		e = nla_nest_start(m, EVT_A_EVENT | NLA_F_NESTED);
		ck_assert_int_eq(nla_put_string(m, EVT_EV_NAME, names[i]), 0);
		ck_assert_int_eq(nla_put_u8(m, EVT_EV_ENABLED, i != 1), 0);
		ck_assert_int_eq(nla_put_u8(m, EVT_EV_CHANNEL, i == 1), 0);
		nla_nest_end(m, e);
	}
	nla_nest_end(m, l);
	take(b, m);
}

/* The filter's message, as the module sends it while a filter is set. */
static void filter_msg(struct nlbuf *b, const char *comm, const char *cgroup)
{
	struct nl_msg *m = status_msg();
	struct nlattr *n = nla_nest_start(m, EVT_A_FILTER | NLA_F_NESTED), *l;

	ck_assert_int_eq(nla_put_u32(m, EVT_A_FILTER_NR_PIDS, 3), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_A_FILTER_FOLLOW_FORK, 1), 0);
	l = nla_nest_start(m, EVT_A_FILTER_COMMS | NLA_F_NESTED);
	ck_assert_int_eq(nla_put_string(m, EVT_A_FILTER_COMM, comm), 0);
	nla_nest_end(m, l);
	l = nla_nest_start(m, EVT_A_FILTER_CGROUPS | NLA_F_NESTED);
	ck_assert_int_eq(nla_put_string(m, EVT_A_FILTER_CGROUP, cgroup), 0);
	nla_nest_end(m, l);
	nla_nest_end(m, n);
	take(b, m);
}

/* What the module adds for triggers and holds, and the filter as an unprivileged caller gets it. */
static void holds_msgs(struct nlbuf *b)
{
	struct nl_msg *m = status_msg();
	struct nlattr *n, *l, *r;

	ck_assert_int_eq(nla_put_u64(m, EVT_A_TRIGGER_SEQ, 5), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_A_TRIGGER_REASON, EVT_TRIGGER_OOPS), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_A_TRIGGER_TS, 111), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_A_TRIGGER_RELEASE_TS, 222), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_A_TRIGGER_EXPIRED, 1), 0);
	take(b, m);
	m = status_msg();
	n = nla_nest_start(m, EVT_A_FILTER | NLA_F_NESTED);
	ck_assert_int_eq(nla_put_u32(m, EVT_A_FILTER_NR_PIDS, 0), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_A_FILTER_FOLLOW_FORK, 0), 0);
	ck_assert_int_eq(nla_put_u32(m, EVT_A_FILTER_NR_COMMS, 3), 0);
	ck_assert_int_eq(nla_put_u32(m, EVT_A_FILTER_NR_CGROUPS, 2), 0);
	nla_nest_end(m, n);
	take(b, m);
	m = status_msg();
	l = nla_nest_start(m, EVT_A_RINGS | NLA_F_NESTED);
	r = nla_nest_start(m, EVT_A_RING | NLA_F_NESTED);
	ck_assert_int_eq(nla_put_u8(m, EVT_R_CHANNEL, EVT_CHAN_NORMAL), 0);
	ck_assert_int_eq(nla_put_u32(m, EVT_R_CPU, 1), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_R_HELD_SNAPSHOT, 333), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_R_HELD_TRIGGER, 444), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_R_UNANSWERED, 7), 0);
	nla_nest_end(m, r);
	nla_nest_end(m, l);
	take(b, m);
}

START_TEST(status_parse_filter)
{
	struct nlbuf b = { 0 };
	struct evt_status st;
	char toolong[32];

	evt_status_init(&st);
	config_msg(&b);
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), 0);
	ck_assert_int_eq(st.filter.set, 0);
	evt_status_free(&st);
	filter_msg(&b, "bash", "/ci/job");
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), 0);
	ck_assert_int_eq(st.filter.set, 1);
	ck_assert_uint_eq(st.filter.nr_pids, 3);
	ck_assert_int_eq(st.filter.follow_fork, 1);
	ck_assert_uint_eq(st.filter.nr_comms, 1);
	ck_assert_str_eq(st.filter.comms[0], "bash");
	ck_assert_uint_eq(st.filter.nr_cgroups, 1);
	ck_assert_str_eq(st.filter.cgroups[0], "/ci/job");
	ck_assert_int_eq(st.filter.count_comms, -1);	/* a module that sends no counts */
	evt_status_free(&st);
	free(b.p);
	/* The kept trigger, the holds, the counts an unprivileged caller gets. */
	memset(&b, 0, sizeof(b));
	holds_msgs(&b);
	evt_status_init(&st);
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), 0);
	ck_assert_uint_eq(st.trigger.seq, 5);
	ck_assert_int_eq(st.trigger.reason, EVT_TRIGGER_OOPS);
	ck_assert_uint_eq(st.trigger.ts, 111);
	ck_assert_uint_eq(st.trigger.release_ts, 222);
	ck_assert_int_eq(st.trigger.expired, 1);
	ck_assert_int_eq(st.filter.set, 1);
	ck_assert_uint_eq(st.filter.nr_comms, 0);
	ck_assert_int_eq(st.filter.count_comms, 3);
	ck_assert_int_eq(st.filter.count_cgroups, 2);
	ck_assert_uint_eq(st.nr_rings, 1);
	ck_assert_uint_eq(st.rings[0].held_snapshot, 333);
	ck_assert_uint_eq(st.rings[0].held_trigger, 444);
	ck_assert_uint_eq(st.rings[0].unanswered, 7);
	evt_status_free(&st);
	free(b.p);
	/* A name longer than the kernel keeps does not overrun the table: refused. */
	memset(&b, 0, sizeof(b));
	memset(toolong, 'x', sizeof(toolong) - 1);
	toolong[sizeof(toolong) - 1] = '\0';
	filter_msg(&b, toolong, "/");
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), -EPROTO);
	evt_status_free(&st);
	free(b.p);
}
END_TEST

static void gen_msg(struct nlbuf *b, unsigned int cpu)
{
	struct nl_msg *m = status_msg();
	struct nlattr *l = nla_nest_start(m, EVT_A_GENS | NLA_F_NESTED);
	struct nlattr *g = nla_nest_start(m, EVT_A_GEN | NLA_F_NESTED);

	ck_assert_int_eq(nla_put_u32(m, EVT_G_CPU, cpu), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_G_RUNNING, 0), 0);
	ck_assert_int_eq(nla_put_u8(m, EVT_G_DONE, 1), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_G_COMPACT, 1000 + cpu), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_G_NORMAL, 2000 + cpu), 0);
	ck_assert_int_eq(nla_put_u64(m, EVT_G_TIMER, cpu), 0);
	nla_nest_end(m, g);
	nla_nest_end(m, l);
	take(b, m);
}

static uint64_t real_base(unsigned int ch, unsigned int cpu)
{
	return 100000ULL * (ch + 1) + cpu * 10;
}

static uint64_t fake_base(unsigned int ch, unsigned int cpu)
{
	return (1ULL << 32) + (uint64_t)cpu * 16 + ch * 8;
}

/*
 * 4 CPUs and 600 fake ones, one entry per message as the module sends them:
 * 1,213 messages, far more than one 64 KiB nest could hold; fed in pieces
 * of any size at a message boundary, as recvmsg would hand them over.
 */
START_TEST(status_dump_assembly)
{
	static const size_t chunks[] = { 1, 7, 100000 };
	struct nlbuf b = { 0 };
	struct evt_status st;
	unsigned int ch, cpu, i;
	size_t off, k;

	config_msg(&b);
	for (ch = 0; ch < 2; ch++)
		for (cpu = 0; cpu < 4; cpu++)
			ring_msg(&b, EVT_A_RINGS, ch, cpu, real_base(ch, cpu), 0);
	for (cpu = 0; cpu < 4; cpu++)
		gen_msg(&b, cpu);
	for (ch = 0; ch < 2; ch++)
		for (cpu = 4; cpu < 604; cpu++)
			ring_msg(&b, EVT_A_FAKE_RINGS, ch, cpu, fake_base(ch, cpu), 1);
	ck_assert_uint_gt(b.len, 150000);

	for (k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		evt_status_init(&st);
		/* Whole messages per piece: about chunks[k] of them. */
		for (off = 0; off < b.len;) {
			size_t end = off, n = 0;

			while (end < b.len && n < chunks[k]) {
				end += NLMSG_ALIGN(((struct nlmsghdr *)(b.p + end))->nlmsg_len);
				n++;
			}
			ck_assert_int_eq(evt_status_parse(&st, b.p + off, end - off), 0);
			off = end;
		}
		ck_assert_int_eq(st.tracing, 1);
		ck_assert_int_eq(st.mode, 1);
		ck_assert_int_eq(st.high_water, 70);
		ck_assert_int_eq(st.flush_ms, 200);
		ck_assert_uint_eq(st.subbuf_size, 16384);
		ck_assert_uint_eq(st.num_subbuf, 32);
		ck_assert_uint_eq(st.nr_events, 3);
		ck_assert_str_eq(st.events[2].name, "sys_*");
		ck_assert_int_eq(st.events[1].enabled, 0);
		ck_assert_int_eq(st.events[1].channel, 1);
		ck_assert_uint_eq(st.nr_rings, 8);
		for (i = 0; i < 8; i++) {
			const struct evt_status_ring *r = &st.rings[i];

			ck_assert_uint_eq(r->channel, i / 4);
			ck_assert_uint_eq(r->cpu, i % 4);
			ck_assert_uint_eq(r->recorded, real_base(i / 4, i % 4));
			ck_assert_uint_eq(r->skipped, real_base(i / 4, i % 4) + 7);
			ck_assert_uint_eq(r->fill, i % 4);
		}
		ck_assert_uint_eq(st.nr_gens, 4);
		ck_assert_uint_eq(st.gens[3].cpu, 3);
		ck_assert_uint_eq(st.gens[3].normal, 2003);
		ck_assert_uint_eq(st.nr_fake_rings, 1200);
		for (i = 0; i < 1200; i++) {
			const struct evt_status_ring *r = &st.fake_rings[i];

			ck_assert_uint_eq(r->channel, i / 600);
			ck_assert_uint_eq(r->cpu, 4 + i % 600);
			ck_assert_uint_eq(r->recorded, fake_base(i / 600, 4 + i % 600));
			ck_assert_uint_eq(r->discarded, fake_base(i / 600, 4 + i % 600) + 1);
			ck_assert_uint_eq(r->consumed, fake_base(i / 600, 4 + i % 600) + 6);
		}
		evt_status_free(&st);
	}
	free(b.p);
}
END_TEST

/*
 * What is not a well-formed STATUS is refused, not half-read: version 1's
 * single message with a rings nest past 65,535 bytes (its 16-bit length
 * wrapped), bytes after the last attribute, a message cut short. A ring
 * marked fake stays out of rings[] wherever it comes.
 */
/*
 * The ring counters are X-macro lists: their order makes the attribute
 * numbers and the struct layout, which family version 2 fixed; version 3's
 * counter comes after them all.
 */
START_TEST(ring_counters_keep_their_abi)
{
	ck_assert_int_eq(EVT_R_ONLINE, 3);
	ck_assert_int_eq(EVT_R_RECORDED, 4);
	ck_assert_int_eq(EVT_R_DISCARDED, 5);
	ck_assert_int_eq(EVT_R_OVERWRITTEN, 6);
	ck_assert_int_eq(EVT_R_TOO_BIG, 7);
	ck_assert_int_eq(EVT_R_REFUSED, 8);
	ck_assert_int_eq(EVT_R_PRODUCED, 9);
	ck_assert_int_eq(EVT_R_CONSUMED, 10);
	ck_assert_int_eq(EVT_R_SKIPPED, 11);
	ck_assert_int_eq(EVT_R_FILL, 12);
	ck_assert_int_eq(EVT_R_FAKE, 14);
	ck_assert_uint_eq(offsetof(struct evt_ring_stats, recorded), 0);
	ck_assert_uint_eq(offsetof(struct evt_ring_stats, skipped), 56);
	ck_assert_uint_eq(offsetof(struct evt_ring_stats, fill_pct), 64);
	ck_assert_int_eq(EVT_R_FILTERED, 15);
	ck_assert_uint_eq(offsetof(struct evt_ring_stats, filtered), 72);
	ck_assert_uint_eq(sizeof(struct evt_ring_stats), 80);
}
END_TEST

START_TEST(status_parse_refuses_malformed)
{
	struct nlbuf b = { 0 };
	struct evt_status st;
	struct nl_msg *m;
	struct nlattr *l;
	size_t len;
	unsigned int cpu;

	/* Version 1's layout: one message, one RINGS nest of 1,208 rings. */
	m = status_msg_size(1 << 20);
	l = nla_nest_start(m, EVT_A_RINGS | NLA_F_NESTED);
	for (cpu = 0; cpu < 604; cpu++) {
		put_ring(m, 0, cpu, real_base(0, cpu), 0);
		put_ring(m, 1, cpu, real_base(1, cpu), 0);
	}
	len = (size_t)((char *)nlmsg_tail(nlmsg_hdr(m)) - (char *)l);
	ck_assert_uint_gt(len, 65535);
	l->nla_len = (uint16_t)len;		/* what the kernel's nla_nest_end() stored */
	take(&b, m);
	evt_status_init(&st);
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), -EPROTO);
	evt_status_free(&st);

	/* The same under 64 KiB is fine (version 1's reply on a small machine). */
	b.len = 0;
	m = status_msg_size(1 << 17);
	l = nla_nest_start(m, EVT_A_RINGS | NLA_F_NESTED);
	for (cpu = 0; cpu < 200; cpu++)
		put_ring(m, 0, cpu, real_base(0, cpu), 0);
	nla_nest_end(m, l);
	take(&b, m);
	evt_status_init(&st);
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), 0);
	ck_assert_uint_eq(st.nr_rings, 200);
	ck_assert_uint_eq(st.rings[199].recorded, real_base(0, 199));
	evt_status_free(&st);

	/* Two bytes after the last attribute, counted in nlmsg_len. */
	b.len = 0;
	ring_msg(&b, EVT_A_RINGS, 0, 0, 1, 0);
	memset(b.p + b.len, 0, 4);
	((struct nlmsghdr *)b.p)->nlmsg_len += 2;
	b.len += 4;
	evt_status_init(&st);
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), -EPROTO);
	evt_status_free(&st);

	/* A message cut short. */
	b.len = 0;
	ring_msg(&b, EVT_A_RINGS, 0, 0, 1, 0);
	evt_status_init(&st);
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len - 8), -EPROTO);
	evt_status_free(&st);

	/* EVT_R_FAKE in RINGS: still fake. */
	b.len = 0;
	ring_msg(&b, EVT_A_RINGS, 1, 9999, 5, 1);
	ring_msg(&b, EVT_A_RINGS, 1, 2, 6, 0);
	evt_status_init(&st);
	ck_assert_int_eq(evt_status_parse(&st, b.p, b.len), 0);
	ck_assert_uint_eq(st.nr_rings, 1);
	ck_assert_uint_eq(st.rings[0].cpu, 2);
	ck_assert_uint_eq(st.nr_fake_rings, 1);
	ck_assert_uint_eq(st.fake_rings[0].cpu, 9999);
	evt_status_free(&st);
	free(b.p);
}
END_TEST

START_TEST(notification_lines)
{
	struct evt_notification n[] = {
		{ EVT_NOTIFY_HIGH_WATER, EVT_CHAN_COMPACT, 0, 72, -1, 0, 0, "" },
		{ EVT_NOTIFY_CPU_OFFLINE, -1, 1, -1, -1, 0, 0, "" },
		{ EVT_NOTIFY_STOPPED, -1, -1, -1, -1, 0, 0, "" },
		{ 42, 9, 3, 0, -1, 0, 0, "" },
		{ EVT_NOTIFY_TRIGGER, -1, -1, -1, EVT_TRIGGER_KASAN, 3, 123456789, "" },
		{ EVT_NOTIFY_TRIGGER, -1, -1, -1, EVT_TRIGGER_OOPS, 4, 5, "1,3-5" },
	};
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	for (i = 0; i < 6; i++)
		evt_notification_print(f, &n[i]);
	fclose(f);
	ck_assert_str_eq(buf, "HIGH_WATER channel=compact cpu=0 fill=72\n"
			 "CPU_OFFLINE channel=- cpu=1 fill=-\n"
			 "STOPPED channel=- cpu=- fill=-\n"
			 "REASON_42 channel=9 cpu=3 fill=0\n"
			 "TRIGGER channel=- cpu=- fill=- trigger=kasan seq=3 ts=123456789\n"
			 "TRIGGER channel=- cpu=- fill=- trigger=oops seq=4 ts=5 unanswered=1,3-5\n");
	free(buf);
	ck_assert_str_eq(evt_notify_name(EVT_NOTIFY_DISCARDING), "DISCARDING");
	ck_assert_str_eq(evt_notify_name(-1), "?");
	ck_assert_str_eq(evt_notify_name(__EVT_NOTIFY_MAX), "?");
	ck_assert_str_eq(evt_trigger_name(EVT_TRIGGER_OOPS), "oops");
	ck_assert_str_eq(evt_trigger_name(EVT_NR_TRIGGERS), "?");
}
END_TEST

START_TEST(error_words)
{
	ck_assert_ptr_nonnull(strstr(evt_ctl_strerror(-ENOENT), "module not loaded"));
	ck_assert_ptr_nonnull(strstr(evt_ctl_strerror(-EPERM), "CAP_NET_ADMIN"));
	ck_assert_ptr_nonnull(strstr(evt_ctl_strerror(-ENOBUFS), "lost"));
	ck_assert_ptr_nonnull(strstr(evt_ctl_strerror(-EPROTONOSUPPORT), "another version"));
	ck_assert_str_eq(evt_ctl_strerror(-EINVAL), strerror(EINVAL));
}
END_TEST

Suite *ctl_suite(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("evctl");

	tcase_add_test(tc, json_validator_self_test);
	tcase_add_test(tc, parse_simple_commands);
	tcase_add_test(tc, parse_help);
	tcase_add_test(tc, parse_config);
	tcase_add_test(tc, parse_enable_disable);
	tcase_add_test(tc, parse_generate);
	tcase_add_test(tc, parse_timer);
	tcase_add_test(tc, parse_snapshot);
	tcase_add_test(tc, parse_watch);
	tcase_add_test(tc, parse_track);
	tcase_add_test(tc, cgroup_paths);
	tcase_add_test(tc, status_parse_filter);
	tcase_add_test(tc, parse_numbers);
	tcase_add_test(tc, status_json);
	tcase_add_test(tc, status_json_matches_schema);
	tcase_add_test(tc, status_json_empty);
	tcase_add_test(tc, status_json_many);
	tcase_add_test(tc, status_text);
	tcase_add_test(tc, status_filter_output);
	tcase_add_test(tc, status_holds_output);
	tcase_add_test(tc, status_fake_rings_apart);
	tcase_add_test(tc, status_dump_assembly);
	tcase_add_test(tc, status_parse_refuses_malformed);
	tcase_add_test(tc, ring_counters_keep_their_abi);
	tcase_add_test(tc, notification_lines);
	tcase_add_test(tc, error_words);
	suite_add_tcase(s, tc);
	return s;
}
