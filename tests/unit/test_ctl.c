// SPDX-License-Identifier: GPL-2.0
/*
 * evctl's command line (every subcommand, good and bad arguments, checked
 * before anything reaches the kernel) and its output: the status table, the
 * JSON document (checked by a small strict JSON parser and against an exact
 * expected text), notification lines; the STATUS dump put together from
 * many messages as the module sends them, and malformed ones refused.
 * The command line's cases are in test_ctl_parse.c, the STATUS dump's in
 * test_ctl_status.c; both add them to the "ctl" suite's one case.
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
	tcase_add_test(tc, status_json);
	tcase_add_test(tc, status_json_matches_schema);
	tcase_add_test(tc, status_json_empty);
	tcase_add_test(tc, status_json_many);
	tcase_add_test(tc, status_text);
	tcase_add_test(tc, status_filter_output);
	tcase_add_test(tc, status_holds_output);
	tcase_add_test(tc, status_fake_rings_apart);
	tcase_add_test(tc, notification_lines);
	tcase_add_test(tc, error_words);
	ctl_parse_tests(tc);
	ctl_status_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}