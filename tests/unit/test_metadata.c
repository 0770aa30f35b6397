// SPDX-License-Identifier: GPL-2.0
/*
 * The trace suite's metadata and decoder cases: TSDL rendered and parsed
 * back, size limits, decoding errors, the decoder's shortcuts against its
 * rules, and the formatting of numbers and strings.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "unit.h"
#include "fastcheck.h"
#include "json/evt_json.h"
#include "ctf/evt_merged.h"
#include "ctf/evt_tsdl.h"
#include "ctf/evt_par.h"
#include "synth/evt_synth.h"
#include "format/evt_format.h"

/*
 * evtrace's metadata for the parser tests (malloc'd, *@len bytes): uuid
 * e77ace00-0102-..., clock offset 1700000000 s + 123 ns, a host name with
 * braces and a key in it (the parsers must take it as a string).
 */
static char *test_metadata(unsigned long *len)
{
	const struct evt_meta_params mp = {
		.uuid = { 0xe7, 0x7a, 0xce, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
		.clock_offset_s = 1700000000, .clock_offset_ns = 123,
		.hostname = "h { offset = 9; }", .kernel_release = "6.1", .tracer_version = "1.0",
	};
	char *text;

	*len = evt_meta_render(NULL, 0, &mp);
	text = malloc(*len + 1);
	ck_assert_ptr_nonnull(text);
	evt_meta_render(text, *len + 1, &mp);
	return text;
}



/*
 * One compact word with id 30: a small header of event 30 in a 0.1 trace,
 * a wide header naming the id in the next word in today's.
 */
START_TEST(compact_id_30_by_header_version)
{
	static const struct evt_event_desc ev[] = {
		{ .name = "e30", .channel = EVT_CHAN_COMPACT, .id = 30 },
		{ .name = "e7", .channel = EVT_CHAN_COMPACT, .id = 7 },
		{ .name = "e400", .channel = EVT_CHAN_COMPACT, .id = 400 },
	};
	/* Five words of events; zeros after them for the compiler's bounds. */
	const uint32_t words[8] = { 30 | 100u << 5, 7, 30 | 200u << 5, 400, 7 | 300u << 5 };
	const size_t end = 5 * 4;
	/* Where each decode starts, after which time, under which header, and what it finds. */
	static const struct {
		int today;
		size_t pos;
		uint64_t prev;
		const char *name;
		uint64_t ts;
		size_t next;
	} step[] = {
		{ 0, 0, 0, "e30", 100, 4 },
		{ 1, 0, 0, "e7", 100, 8 },
		{ 1, 8, 100, "e400", 200, 16 },
		{ 1, 16, 200, "e7", 300, 20 },
	};
	struct evt_catalogue *old = malloc(sizeof(*old)), *now = malloc(sizeof(*now));
	struct evt_decode_err e;
	struct evt_decoded d;
	char err[128];
	unsigned int i;
	size_t next;

	ck_assert_ptr_nonnull(old);
	ck_assert_ptr_nonnull(now);
	ck_assert_int_eq(evt_catalogue_init(old, ev, 3, EVT_COMPACT_NO_WIDE, err, sizeof(err)), 0);
	ck_assert_int_eq(evt_catalogue_init(now, ev, 3, EVT_COMPACT_ID_WIDE, err, sizeof(err)), 0);
	ck_assert_int_eq(evt_catalogue_same(old, now), 0);
	/* 0.1: the first word alone is e30; today: e7 with the wide header, then e400, then e7 small. */
	for (i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		const struct evt_catalogue *cat = step[i].today ? now : old;

		ck_assert_int_eq(evt_decode_event(cat, (const uint8_t *)words, step[i].pos, end, EVT_CHAN_COMPACT,
						  step[i].prev, ~0ULL, &d, &next, &e), 0);
		ck_assert_str_eq(cat->events[EVT_DMETA_DESC(d.meta)].name, step[i].name);
		ck_assert_uint_eq(d.ts, step[i].ts);
		ck_assert_uint_eq(next, step[i].next);
	}
	/* A wide header cut after its first word. */
	ck_assert_int_eq(evt_decode_event(now, (const uint8_t *)words, 8, 12, EVT_CHAN_COMPACT,
					  100, ~0ULL, &d, &next, &e), -1);
	ck_assert_int_eq(e.code, EVT_DERR_WIDE_HDR_TRUNCATED);
	free(old);
	free(now);
}
END_TEST

/*
 * The metadata evtrace writes parses; anything it cannot read as this
 * build's events is refused with what is wrong (each of these printed all
 * 43,148 events of a trace with exit 0).
 */
START_TEST(metadata_parsing)
{
	static const struct {
		const char *from, *to, *says;
	} bad[] = {
		{ "offset_s = 1700000000;", "offset_s = banana;", "offset_s" },
		{ "freq = 1000000000;", "freq = 1000;", "freq" },
		{ "tracer_name = \"evtrace\";", "tracer_name = \"lttng-modules\";",
		  "not an evtrace trace (env.tracer_name is \"lttng-modules\")" },
		{ "env {", "vne {", "no env block" },
		{ "byte_order = le;", "byte_order = be;", "little-endian" },
		{ "major = 1;", "major = 2;", "CTF 1.8" },
		{ "minor = 8;", "minor = 9;", "CTF 1.8" },
		{ "clock {", "klock {", "no clock block" },
		{ "uint32_t magic;", "uint16_t magic;", "line 23: field magic of the packet header is not evtrace's (its type differs)" },
		{ "size = 16; align = 16; signed = false; } := uint16_t;",
		  "size = 16; align = 8; signed = false; } := uint16_t;",
		  "field fill_len of event gen_normal: a type" },
		{ "event {", "", "line 107: expected a declaration, found \"name\"" },
		{ "compact = 0 ... 29, wide = 30, extended = 31", "compact = 0 ... 28, wide = 29, extended = 31",
		  "field id of the stream 0 event header is not evtrace's" },
		{ "uint64_t packet_seq_num;", "uint32_t packet_seq_num;",
		  "field packet_seq_num of the stream 0 packet context is not evtrace's" },
		{ "variant <id>", "variant <v>", "stream 0 event header" },
		{ "stream {\n\tid = 1;", "stream {\n\tid = 2;", "line 100: stream 2: evcat reads evtrace's streams 0" },
		{ "name = \"gen_compact\";", "name = \"gen_ping\";", "line 124: two events are named gen_ping" },
		{ "\tid = 1;\n\tstream_id = 0;", "\tid = 0;\n\tstream_id = 0;",
		  "line 112: events gen_compact and gen_compact_wide have one id (0) in stream 0" },
		{ "name = \"gen_compact\";", "name = \"gen\\\"compact\";", "its name is empty" },
		{ "offset = 123;", "offset = 18446744073709551615;", "beyond 2^64 ns" },
		{ "uuid = \"e77ace00", "uuid = \"e77a", "uuid" },
	};
	unsigned long len;
	char *good = test_metadata(&len), err[256];
	struct evt_metadata md;
	unsigned int i, first_event;

	memset(&md, 0, sizeof(md));
	ck_assert_msg(evt_metadata_parse(good, len, &md, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(md.clock_offset_s, 1700000000);
	ck_assert_uint_eq(md.clock_offset_ns, 123);
	ck_assert_int_eq(md.has_uuid, 1);
	ck_assert_uint_eq(md.uuid[0], 0xe7);
	ck_assert_uint_eq(md.uuid[15], 0x0c);
	ck_assert_ptr_eq(md.cat, evt_builtin);
	ck_assert_uint_eq(md.cat->c_wide_id, EVT_COMPACT_ID_WIDE);
	evt_metadata_free(&md);
	{
		/* evtrace 0.1's compact header (no wide kind): read as such. */
		char *t = unit_replaced(good, "compact = 0 ... 29, wide = 30, extended = 31",
				   "compact = 0 ... 30, extended = 31");
		char *u = unit_replaced(t, "\t\tstruct { uint27_clock_monotonic_t timestamp; uint32a1_t id; } wide;\n", "");

		ck_assert_msg(evt_metadata_parse(u, strlen(u), &md, err, sizeof(err)) == 0, "%s", err);
		ck_assert_ptr_ne(md.cat, evt_builtin);
		ck_assert_uint_eq(md.cat->c_wide_id, EVT_COMPACT_NO_WIDE);
		evt_metadata_free(&md);
		/* Half of it: neither this build's header nor 0.1's. */
		ck_assert_int_eq(evt_metadata_parse(t, strlen(t), &md, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, "stream 0 event header is not evtrace's"), "%s", err);
		free(t);
		free(u);
	}
	ck_assert_int_eq(evt_metadata_parse("hello", 5, &md, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "CTF 1.8"));
	ck_assert_int_eq(evt_metadata_parse("\x57\x1d\xd1\x75rest", 8, &md, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "packetized"));
	/*
	 * Cut anywhere but after a whole event block: refused (every 97 bytes
	 * through the header, blocks and the first events, then about 400
	 * cuts over the syscall events).
	 */
	first_event = (unsigned int)(strstr(good, "\nevent {") - good);
	for (i = 10; i < len; i += i < 6000 ? 97 : (unsigned int)len / 400 + 1) {
		int r = evt_metadata_parse(good, i, &md, err, sizeof(err));
		unsigned int j = i;

		while (j > 0 && isspace((unsigned char)good[j - 1]))
			j--;
		ck_assert_msg(r == -1 || (j > first_event && good[j - 1] == ';' && good[j - 2] == '}'),
			      "cut at %u accepted", i);
		evt_metadata_free(&md);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t = unit_replaced(good, bad[i].from, bad[i].to);

		err[0] = 0;
		ck_assert_msg(evt_metadata_parse(t, strlen(t), &md, err, sizeof(err)) == -1 &&
			      strstr(err, bad[i].says), "%s -> %s: %s", bad[i].from, bad[i].to, err);
		free(t);
	}
	/* Written another way, the same layouts: this build's catalogue. */
	{
		char *a = unit_replaced(good, ":= uint64a32_t;", ":= uint64a32_t;\ntypealias integer { align = 32; "
				   "size = 64; } := my_u64_t; /* { another name } */");
		char *b = unit_replaced(a, "uint64a32_t seq;", "my_u64_t\n\t\tseq ;");
		char *c = unit_replaced(b, "trace {", "// a comment\ntrace{");

		ck_assert_msg(evt_metadata_parse(c, strlen(c), &md, err, sizeof(err)) == 0, "%s", err);
		ck_assert_ptr_eq(md.cat, evt_builtin);
		evt_metadata_free(&md);
		free(a);
		free(b);
		free(c);
	}
	/* Other events: a catalogue of the metadata's own. */
	{
		char *a = unit_replaced(good, "name = \"gen_compact\";", "name = \"gen_kompact\";");
		char *b = unit_replaced(a, "uint64a32_t seq;", "uint64a32_hex_t seq;");
		const struct evt_event_desc *d;

		ck_assert_msg(evt_metadata_parse(b, strlen(b), &md, err, sizeof(err)) == 0, "%s", err);
		ck_assert_ptr_ne(md.cat, evt_builtin);
		ck_assert_uint_eq(md.cat->nr_events, evt_nr_events);
		ck_assert_ptr_null(evt_catalogue_find(md.cat, "gen_compact"));
		d = evt_catalogue_find(md.cat, "gen_kompact");
		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(d->channel, EVT_CHAN_COMPACT);
		ck_assert_uint_eq(d->id, EVT_ID_GEN_COMPACT);
		ck_assert_int_eq(d->fields[1].type, EVT_F_X64);
		ck_assert_uint_eq(md.cat->fixed_len[d - md.cat->events], 12);
		evt_metadata_free(&md);
		ck_assert_ptr_null(md.own);
		free(a);
		free(b);
	}
	free(good);
}
END_TEST

/*
 * The TSDL parser reads evtrace's own metadata back into the catalogue it
 * was rendered from (names, channels, ids, fields and their types), the
 * clock, the trace block, the env and the streams; what evtrace does not
 * write is refused with its line.
 */
START_TEST(tsdl_reads_the_catalogue_back)
{
	static const struct {
		const char *from, *to, *says;
	} bad[] = {
		{ "size = 27;", "size = 99;", "integer attribute size = 99" },
		{ "uint32_t magic;", "float_t magic;", "expected a type, found \"float_t\"" },
		{ "stream_id = 0;", "stream_id = 7;", "stream_id 7" },
		{ "stream_id = 0;", "streamid = 0;", "streamid = 0 is not one evtrace writes" },
		{ "name = \"gen_compact\";", "name = \"gen_compact;", "a string that runs past" },
		{ "uint64a32_t seq;", "uint64_t seq;", "field seq of event gen_compact: a type" },
		{ "char_t prev_comm[16];", "char_t prev_comm[15];", "field prev_comm of event sched_switch: an array" },
		{ "uint16_t fill_len;", "uint32_t fill_len;", "a sequence whose length" },
		{ "struct event_header_compact;", "struct event_header_kompact;", "struct event_header_kompact is not declared" },
		{ "clock {", "clock { name = \"m\"; }; clock {", "a second clock" },
		{ "freq = 1000000000;", "freq = 99999999999999999999;", "beyond 2^64" },
		{ "size = 8; align = 8;", "size = 8; align = 3;", "integer attribute align = 3" },
	};
	unsigned long len;
	char *good = test_metadata(&len), err[256];
	struct evt_tsdl m;
	unsigned int i, j, tracer = 0;

	ck_assert_msg(evt_tsdl_parse(good, len, &m, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(m.major, 1);
	ck_assert_uint_eq(m.minor, 8);
	ck_assert_int_eq(m.big_endian, 0);
	ck_assert_int_eq(m.has_uuid, 1);
	ck_assert_uint_eq(m.uuid[0], 0xe7);
	ck_assert_uint_eq(m.packet_header.nr_fields, 4);
	ck_assert_str_eq(m.packet_header.fields[1].name, "uuid");
	ck_assert_int_eq(m.packet_header.fields[1].is_array, 1);
	ck_assert_int_eq(m.has_clock, 1);
	ck_assert_str_eq(m.clock_name, "monotonic");
	ck_assert_uint_eq(m.clock_freq, 1000000000);
	ck_assert_uint_eq(m.clock_offset_s, 1700000000);
	ck_assert_uint_eq(m.clock_offset, 123);
	for (i = 0; i < m.nr_env; i++)
		tracer |= !strcmp(m.env[i].key, "tracer_name") && !strcmp(m.env[i].value, "evtrace");
	ck_assert_uint_eq(tracer, 1);
	ck_assert_uint_eq(m.nr_streams, 2);
	ck_assert_uint_eq(m.streams[1].id, 1);
	ck_assert_uint_eq(m.streams[0].event_header.nr_fields, 2);
	ck_assert_int_eq(m.streams[0].event_header.fields[0].type.kind, EVT_TSDL_ENUM);
	ck_assert_uint_eq(m.streams[0].event_header.fields[0].type.i.size, 5);
	ck_assert_int_eq(m.streams[0].event_header.fields[1].type.kind, EVT_TSDL_VARIANT);
	ck_assert_uint_eq(m.streams[0].packet_context.nr_fields, 7);
	ck_assert_int_eq(m.streams[0].packet_context.fields[0].type.i.clock, 1);
	ck_assert_uint_eq(m.nr_events, evt_nr_events);
	for (i = 0; i < evt_nr_events; i++) {
		const struct evt_event_desc *a = &evt_events[i], *b = &m.events[i];

		ck_assert_str_eq(b->name, a->name);
		ck_assert_uint_eq(b->channel, a->channel);
		ck_assert_uint_eq(b->id, a->id);
		ck_assert_uint_eq(b->nr_fields, a->nr_fields);
		for (j = 0; j < a->nr_fields; j++) {
			ck_assert_str_eq(b->fields[j].name, a->fields[j].name);
			ck_assert_msg(b->fields[j].type == a->fields[j].type, "%s.%s: %d, not %d", a->name,
				      a->fields[j].name, b->fields[j].type, a->fields[j].type);
		}
	}
	evt_tsdl_free(&m);
	ck_assert_int_eq(evt_tsdl_parse("event { /* x", 12, &m, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "line 1: a comment that is not closed"), "%s", err);
	evt_tsdl_free(&m);
	/* Cut anywhere but at a declaration's end: refused, nothing leaks. */
	for (i = 1; i < len; i += i < 6000 ? 61 : (unsigned int)len / 400 + 1) {
		int r = evt_tsdl_parse(good, i, &m, err, sizeof(err));

		ck_assert_msg(r != 0 || good[i - 1] == ';' || good[i - 1] == '\n' || good[i - 1] == '/',
			      "cut at %u accepted", i);
		evt_tsdl_free(&m);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *t = unit_replaced(good, bad[i].from, bad[i].to);

		err[0] = 0;
		ck_assert_msg(evt_tsdl_parse(t, strlen(t), &m, err, sizeof(err)) == -1 &&
			      !strncmp(err, "line ", 5) && strstr(err, bad[i].says),
			      "%s -> %s: %s", bad[i].from, bad[i].to, err);
		evt_tsdl_free(&m);
		free(t);
	}
	free(good);
}
END_TEST

/*
 * The metadata is read to its end whatever a read() returns: a pipe that
 * gives 300 KiB in pieces of 1000 bytes (evdrain used to take one 64 KiB
 * read of the metadata device).
 */
START_TEST(metadata_read_any_size)
{
	const size_t total = 300 * 1024, piece = 1000;
	char *want = malloc(total), *text = NULL, err[256];
	size_t len = 0, i;
	int pfd[2];
	pid_t pid;

	ck_assert_ptr_nonnull(want);
	for (i = 0; i < total; i++)
		want[i] = (char)('a' + i % 26);
	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		for (i = 0; i < total; i += piece)
			if (write(pfd[1], want + i, total - i < piece ? total - i : piece) < 0)
				_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(evt_metadata_read(pfd[0], &text, &len, err, sizeof(err)), 0);
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	ck_assert_uint_eq(len, total);
	ck_assert_int_eq(memcmp(text, want, total), 0);
	ck_assert_int_eq(text[len], 0);
	free(text);
	free(want);
}
END_TEST


/* Mostly small bytes: short sequences, NULs for strings. */
static void random_payload(uint8_t *buf, size_t n, uint64_t *rs)
{
	size_t j;

	for (j = 0; j < n; j++) {
		*rs = *rs * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[j] = (uint8_t)((*rs >> 40) % 8 ? (*rs >> 48) % 3 : *rs >> 56);
	}
}

/*
 * The decoder's shortcut for variable-sized events (one variable field, the
 * last) says what walking the fields says, on random payloads.
 */
START_TEST(variable_sizes_match_the_walk)
{
	uint8_t buf[512];
	uint64_t rs = 12345;
	unsigned int di, k, nvar = 0;

	for (di = 0; di < evt_nr_events; di++) {
		const struct evt_event_desc *d = &evt_events[di];

		if (evt_builtin->fixed_len[di] >= 0)
			continue;
		nvar++;
		/* The syscall entries with paths: a few layouts, many events. */
		for (k = 0; k < (d->channel == EVT_CHAN_COMPACT && d->id >= EVT_ID_SYS_UNKNOWN ? 300u : 20000u); k++) {
			size_t avail;
			long walk, fast;

			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			avail = (size_t)(rs >> 33) % sizeof(buf);
			random_payload(buf, sizeof(buf), &rs);
			walk = evt_payload_size(d, buf, avail);
			fast = evt_decode_var_size(evt_builtin, di, buf, avail);
			if (fast > (long)avail)
				fast = -1;
			ck_assert_msg(walk == fast, "%s avail %zu: walk %ld, shortcut %ld", d->name, avail,
				      walk, fast);
		}
	}
	ck_assert_uint_gt(nvar, 2);
}
END_TEST

/*
 * The normal channel's fast steps take an event exactly when the general
 * rules decode it, at the same time and step (random headers and payloads
 * of every normal event: lengths right, off by a little, or any).
 */
START_TEST(normal_fast_steps_match_the_rules)
{
	uint8_t pkt[600];
	uint64_t rs = 777;
	unsigned int di, k, taken = 0;

	for (di = 0; di < evt_nr_events; di++) {
		const struct evt_event_desc *d = &evt_events[di];

		if (d->channel != EVT_CHAN_NORMAL || d->id >= EVT_DECODE_SMALL_IDS)
			continue;
		/* The syscall entries: a few layouts, many events. */
		for (k = 0; k < (d->id >= EVT_ID_SYS_BASE ? 300u : 20000u); k++) {
			struct evt_decoded out;
			struct evt_decode_err e;
			uint64_t ts = 0, step = 0, prev = 1000, tend;
			size_t end, next = 0;
			long right;
			uint32_t len;
			int fast, rules;

			random_payload(pkt, sizeof(pkt), &rs);
			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			end = EVT_NORMAL_HDR + (size_t)(rs >> 33) % (sizeof(pkt) - EVT_NORMAL_HDR);
			right = evt_payload_size(d, pkt + EVT_NORMAL_HDR, end - EVT_NORMAL_HDR);
			/* Mostly the right length, else near it, else anything. */
			len = (rs >> 20) % 4 == 0 ? (uint32_t)(rs >> 40) % 520 :
			      (uint32_t)((right < 0 ? 0 : right) + ((rs >> 24) % 4 == 0 ? (rs >> 28) % 3 - 1 : 0));
			len &= 0xffff;
			memcpy(pkt, &(uint32_t){ d->id | len << 16 }, 4);
			memcpy(pkt + 4, &(uint32_t){ (uint32_t)(rs >> 8) % 2000 }, 4);
			tend = (rs >> 12) % 8 ? UINT64_MAX : 1000 + (rs >> 16) % 2000;
			fast = evt_decode_normal_step(evt_builtin, pkt, pkt + end, prev, tend, &ts, &step) ||
			       evt_decode_normal_var_step(evt_builtin, pkt, pkt + end, prev, tend, &ts, &step);
			rules = !evt_decode_event(evt_builtin, pkt, 0, end, EVT_CHAN_NORMAL, prev, tend, &out,
						  &next, &e);
			/* Layouts the steps do not know go by the rules: never taken wrongly. */
			if (evt_builtin->fixed_len[di] >= 0 || evt_builtin->var_type[di])
				ck_assert_msg(fast == rules, "%s len %u end %zu: fast %d, rules %d", d->name,
					      len, end, fast, rules);
			else
				ck_assert_msg(!fast || rules, "%s: taken by the fast step only", d->name);
			if (fast && rules) {
				ck_assert_uint_eq(ts, out.ts);
				ck_assert_uint_eq(step, next);
				taken++;
			}
		}
	}
	ck_assert_uint_gt(taken, 10000);
}
END_TEST

/* Metadata of exactly EVT_METADATA_MAX bytes is read; one byte more is refused. */
START_TEST(metadata_read_limit)
{
	char path[] = "/tmp/evt-meta-XXXXXX", *text = NULL, err[256];
	size_t len = 0;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, EVT_METADATA_MAX), 0);
	ck_assert_int_eq(evt_metadata_read(fd, &text, &len, err, sizeof(err)), 0);
	ck_assert_uint_eq(len, EVT_METADATA_MAX);
	free(text);
	ck_assert_int_eq(ftruncate(fd, EVT_METADATA_MAX + 1), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(evt_metadata_read(fd, &text, &len, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "larger than 64 MiB"));
	close(fd);
}
END_TEST

/* Every decoding error has its own text, with the file and offset in front. */
START_TEST(decode_errors_have_texts)
{
	char seen[EVT_DERR_NOMEM + 1][600], buf[600];
	int c, d;

	for (c = EVT_DERR_NONE + 1; c <= EVT_DERR_NOMEM; c++) {
		struct evt_decode_err e = { .code = (enum evt_derr)c, .off = 7, .a = 1, .b = 2, .desc = 0 };

		evt_decode_format(seen[c], sizeof(seen[c]), "dir/compact_0", 4096, &e);
		ck_assert_msg(!strncmp(seen[c], "dir/compact_0: offset 4096: ", 28), "%s", seen[c]);
		ck_assert_msg(strlen(seen[c]) > 32, "code %d: %s", c, seen[c]);
		for (d = EVT_DERR_NONE + 1; d < c; d++)
			ck_assert_str_ne(seen[c], seen[d]);
		evt_decode_format(buf, sizeof(buf), NULL, 0, &e);
		ck_assert_msg(!strncmp(buf, "offset 7 in packet: ", 20), "%s", buf);
	}
}
END_TEST


/* ---- Formatting ---- */

START_TEST(format_numbers_and_escapes)
{
	static const uint64_t vals[] = {
		0, 1, 9, 10, 99, 100, 999999999, 1000000000, 4294967295ULL, 4294967296ULL,
		9999999999999999999ULL, 10000000000000000000ULL, UINT64_MAX,
		/* put_u64's 64-bit steps (4 digits) meeting its 32-bit ones */
		42949672950000ULL, 42949672959999ULL, 42949672960000ULL, 429496729600001ULL,
	};
	char buf[32], want[32];
	unsigned int i;
	uint64_t v;
	struct evt_fmt f;
	struct evt_out o;
	const struct evt_event_desc *marker = evt_find_event_by_name("marker");
	const struct evt_event_desc *sw = evt_find_event_by_name("sched_switch");
	const struct evt_event_desc *ex = evt_find_event_by_name("exit_syscall");
	uint8_t pl[128];
	int32_t tid = -42;
	int64_t ret = -9000000000LL;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		buf[evt_fmt_u64(buf, vals[i])] = 0;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)vals[i]);
		ck_assert_str_eq(buf, want);
	}
	for (v = 1; v < (1ULL << 62); v = v * 7 + 3) {
		buf[evt_fmt_u64(buf, v)] = 0;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		ck_assert_str_eq(buf, want);
	}
	ck_assert_ptr_nonnull(marker);
	ck_assert_ptr_nonnull(sw);
	ck_assert_ptr_nonnull(ex);
	/* Text and JSON, in memory; realtime = clock + 1700000000 s. */
	ck_assert_int_eq(evt_out_init(&o, -1, 4096), 0);
	ck_assert_int_eq(evt_fmt_init(&f, EVT_FMT_TEXT, 1700000000ULL * 1000000000ULL, evt_events, evt_nr_events), 0);
	memcpy(pl, &tid, 4);
	memcpy(pl + 4, "a\"b\\c\nd\xff", 9);
	pl[13] = 0;
	ck_assert_int_eq(evt_fmt_event(&f, &o, 5, 3, marker, pl, 14, 0), 0);
	memset(pl, 0, sizeof(pl));
	memcpy(pl, "swapper/0", 9);				/* prev_comm */
	memcpy(pl + 16, &tid, 4);
	memcpy(pl + 28, "0123456789abcdef", 16);		/* next_comm: no NUL */
	ck_assert_int_eq(evt_fmt_event(&f, &o, 1000000007, 0, sw, pl, 56, EVT_FMT_LATE), 0);
	memcpy(pl, &tid, 4);
	memcpy(pl + 4, &ret, 8);
	ck_assert_int_eq(evt_fmt_event(&f, &o, 1000000006, 1, ex, pl, 12, 0), 0);
	ck_assert_int_eq(evt_out_room(&o, 1) != NULL, 1);
	o.buf[o.len] = 0;
	ck_assert_str_eq(o.buf,
		"[22:13:20.000000005] (+?.?????????" ") cpu 3 marker: { tid = -42, text = \"a\\\"b\\\\c\\nd\\xff\" }\n"
		"[22:13:21.000000007] (+1.000000002) cpu 0 sched_switch: { prev_comm = \"swapper/0\", "
		"prev_tid = -42, prev_prio = 0, prev_state = R, next_comm = \"0123456789abcdef\", "
		"next_tid = 0, next_prio = 0 } (late)\n"
		"[22:13:21.000000006] (-0.000000001) cpu 1 exit_syscall: { id = -42, ret = -9000000000 }\n");
	evt_fmt_free(&f);
	/* evcat's task column: a name is whatever the thread chose, escaped like every string. */
	{
		char task[EVT_FMT_TASK_MAX + 1];
		size_t n = evt_fmt_task(task, EVT_FMT_TEXT, 7, 7, "a\x1b[2J\n\xc2\x9b");

		task[n] = 0;
		ck_assert_str_eq(task, "a\\x1b[2J\\n\\xc2\\x9b/7");
		n = evt_fmt_task(task, EVT_FMT_JSON, 7, -1, "a\"\x1b\xc2\x9b");
		task[n] = 0;
		ck_assert_str_eq(task, ",\"tid\":7,\"pid\":null,\"comm\":\"a\\\"\\u001b\\u009b\"");
		n = evt_fmt_task(task, EVT_FMT_TEXT, -1, -1, "");
		task[n] = 0;
		ck_assert_str_eq(task, "?/?");
		/* Every byte value alone in a name, against the rule written out here (put_esc's table). */
		for (i = 1; i < 256; i++) {
			const char comm[2] = { (char)i, 0 };
			char exp[16];

			if (i == '\n' || i == '\t')
				snprintf(exp, sizeof(exp), "\\%c/7", i == '\n' ? 'n' : 't');
			else if (i >= 0x20 && i < 0x7f)
				snprintf(exp, sizeof(exp), "%c/7", i);
			else
				snprintf(exp, sizeof(exp), "\\x%02x/7", i);
			n = evt_fmt_task(task, EVT_FMT_TEXT, 7, 7, comm);
			task[n] = 0;
			ck_assert_str_eq(task, exp);
		}
		/* The CPU after the task, three digits at least. */
		n = evt_fmt_cpu(task, 0);
		n += evt_fmt_cpu(task + n, 7);
		n += evt_fmt_cpu(task + n, 123);
		n += evt_fmt_cpu(task + n, 4095);
		task[n] = 0;
		ck_assert_str_eq(task, " [000] [007] [123] [4095]");
	}
	o.len = 0;
	ck_assert_int_eq(evt_fmt_init(&f, EVT_FMT_JSON, 1700000000ULL * 1000000000ULL, evt_events, evt_nr_events), 0);
	memcpy(pl, &tid, 4);
	memcpy(pl + 4, "a\"b\\c\nd\xff", 9);
	pl[13] = 0;
	ck_assert_int_eq(evt_fmt_event(&f, &o, 5, 3, marker, pl, 14, EVT_FMT_LATE), 0);
	ck_assert_int_eq(evt_out_room(&o, 1) != NULL, 1);
	o.buf[o.len] = 0;
	ck_assert_str_eq(o.buf,
		"{\"ts\":5,\"time\":\"2023-11-14T22:13:20.000000005Z\",\"cpu\":3,\"event\":\"marker\","
		"\"fields\":{\"tid\":-42,\"text\":\"a\\\"b\\\\c\\nd\\u00ff\"},\"late\":true}\n");
	/*
	 * UTF-8 in JSON: well-formed sequences as they are (they were each
	 * byte's \u00XX: mojibake), any other byte \u00XX: a cut sequence, a
	 * stray continuation, an overlong form, a surrogate, beyond U+10FFFF.
	 */
	o.len = 0;
	{
		static const char text[] = "\xe2\x82\xac \xc3\xa9 \xf0\x9f\x90\xa7 \xe2\x82x \x80 "
					   "\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82";

		memcpy(pl, &tid, 4);
		memcpy(pl + 4, text, sizeof(text));
		ck_assert_int_eq(evt_fmt_event(&f, &o, 5, 3, marker, pl, 4 + sizeof(text), 0), 0);
	}
	ck_assert_int_eq(evt_out_room(&o, 1) != NULL, 1);
	o.buf[o.len] = 0;
	ck_assert_str_eq(o.buf,
		"{\"ts\":5,\"time\":\"2023-11-14T22:13:20.000000005Z\",\"cpu\":3,\"event\":\"marker\","
		"\"fields\":{\"tid\":-42,\"text\":\"\xe2\x82\xac \xc3\xa9 \xf0\x9f\x90\xa7 \\u00e2\\u0082x "
		"\\u0080 \\u00c0\\u00af \\u00ed\\u00a0\\u0080 \\u00f4\\u0090\\u0080\\u0080 "
		"\\u00e2\\u0082\"}}\n");
	evt_fmt_free(&f);
	evt_out_free(&o);
	/*
	 * A lone string in a document (evdrain's --stats-json directory): the
	 * value evcat's rows give it (a byte outside UTF-8 is U+00XX), ASCII
	 * only, DEL escaped like the controls.
	 */
	{
		char *q = NULL;
		size_t n = 0;
		FILE *mf = open_memstream(&q, &n);

		ck_assert_ptr_nonnull(mf);
		ck_assert_int_eq(evt_json_write(mf, json_pack("{s:o}", "dir", evt_json_str("/tmp/q\"d\\\x01\x7f\xc3\xa9\xff\xc2\x9b")),
						JSON_COMPACT), 0);
		ck_assert_int_eq(fclose(mf), 0);
		ck_assert_str_eq(q, "{\"dir\":\"/tmp/q\\\"d\\\\\\u0001\\u007f\\u00E9\\u00FF\\u009B\"}\n");
		free(q);
	}
}
END_TEST

/*
 * The lines' numbers are written 8 digits at a time (put_u64_wide,
 * put_hex_wide): every field type of the fast path, against printf, on
 * every value below 2,000,000, a stride through 10^8, every power of 10
 * and 16 and its neighbours, and random values of each width.
 */
static void expect_fields(struct evt_fmt *f, struct evt_out *o, const struct evt_event_desc *d, uint64_t v)
{
	uint8_t pl[40];
	char want[320];
	const uint32_t v32 = (uint32_t)v;
	const uint16_t v16 = (uint16_t)v;
	const uint8_t v8 = (uint8_t)v;

	memcpy(pl, &v, 8);		/* u64 */
	memcpy(pl + 8, &v, 8);		/* s64 */
	memcpy(pl + 16, &v, 8);		/* x64 */
	memcpy(pl + 24, &v32, 4);	/* u32 */
	memcpy(pl + 28, &v32, 4);	/* s32 */
	memcpy(pl + 32, &v32, 4);	/* x32 */
	memcpy(pl + 36, &v16, 2);	/* u16 */
	pl[38] = v8;			/* u8 */
	pl[39] = 0;
	o->len = 0;
	f->have_prev = 0;	/* every line the first: no delta to vary */
	ck_assert_int_eq(evt_fmt_event(f, o, 5, 1, d, pl, sizeof(pl), 0), 0);
	ck_assert_int_eq(evt_out_room(o, 1) != NULL, 1);
	o->buf[o->len] = 0;
	snprintf(want, sizeof(want),
		 "[22:13:20.000000005] (+?.????????" "?) cpu 1 nums: { a = %llu, b = %lld, c = 0x%llX, d = %u, "
		 "e = %d, f = 0x%X, g = %u, h = %u }\n",
		 (unsigned long long)v, (long long)v, (unsigned long long)v, v32, (int32_t)v32, v32,
		 (unsigned int)v16, (unsigned int)v8);
	ck_assert_str_eq(o->buf, want);
}

START_TEST(format_numbers_eight_digits_at_a_time)
{
	static const struct evt_field_desc fields[] = {
		{ "a", EVT_F_U64 }, { "b", EVT_F_S64 }, { "c", EVT_F_X64 }, { "d", EVT_F_U32 },
		{ "e", EVT_F_S32 }, { "f", EVT_F_X32 }, { "g", EVT_F_U16 }, { "h", EVT_F_U8 },
	};
	static const struct evt_event_desc d = { "nums", 0, 0, 8, fields };
	struct evt_fmt f;
	struct evt_out o;
	char buf[64], want[32];
	uint64_t v, p, x = 0x9E3779B97F4A7C15ULL;
	unsigned int i, w;

	for (v = 0; v < 2000000; v++) {
		buf[evt_fmt_u64_wide(buf, v)] = 0;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		ck_assert_str_eq(buf, want);
	}
	for (v = 2000000; v < 200000000; v += 997) {
		buf[evt_fmt_u64_wide(buf, v)] = 0;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		ck_assert_str_eq(buf, want);
	}
	ck_assert_int_eq(evt_out_init(&o, -1, 4096), 0);
	ck_assert_int_eq(evt_fmt_init(&f, EVT_FMT_TEXT, 1700000000ULL * 1000000000ULL, &d, 1), 0);
	for (p = 1; ; p *= 10) {
		expect_fields(&f, &o, &d, p - 1);
		expect_fields(&f, &o, &d, p);
		expect_fields(&f, &o, &d, p + 1);
		if (p > UINT64_MAX / 10)
			break;
	}
	for (i = 0; i < 64; i++) {
		expect_fields(&f, &o, &d, (1ULL << i) - 1);
		expect_fields(&f, &o, &d, 1ULL << i);
		expect_fields(&f, &o, &d, (1ULL << i) + 1);
	}
	expect_fields(&f, &o, &d, UINT64_MAX);
	expect_fields(&f, &o, &d, (uint64_t)INT64_MIN);
	for (i = 0; i < 200000; i++) {
		/* xorshift64, cut to every width from 1 to 64 bits in turn */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w = 1 + i % 64;
		expect_fields(&f, &o, &d, w == 64 ? x : x & ((1ULL << w) - 1));
	}
	evt_fmt_free(&f);
	evt_out_free(&o);
}
END_TEST

/* The metadata, decoder and formatting cases, in the trace suite's "read" case. */
void trace_metadata_tests(TCase *tc)
{
	tcase_add_test(tc, metadata_parsing);
	tcase_add_test(tc, compact_id_30_by_header_version);
	tcase_add_test(tc, tsdl_reads_the_catalogue_back);
	tcase_add_test(tc, metadata_read_any_size);
	tcase_add_test(tc, metadata_read_limit);
	tcase_add_test(tc, decode_errors_have_texts);
	tcase_add_test(tc, variable_sizes_match_the_walk);
	tcase_add_test(tc, normal_fast_steps_match_the_rules);
	tcase_add_test(tc, format_numbers_and_escapes);
	tcase_add_test(tc, format_numbers_eight_digits_at_a_time);
}
