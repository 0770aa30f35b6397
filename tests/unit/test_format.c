// SPDX-License-Identifier: GPL-2.0
/*
 * The trace format against babeltrace2, the independent judge: a trace
 * written by the core in userspace (both channels, CPUs with a gap, extended
 * headers, wrap-around, discarded events) must read back with the same counts.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "format/evt_errno.h"

static const uint8_t uuid[16] = { 0xe7, 0x7a, 0xce, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

static void write_file(const char *path, const void *buf, size_t len, const char *mode)
{
	FILE *f = fopen(path, mode);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static void write_metadata(const char *dir)
{
	struct evt_meta_params mp = {
		.clock_offset_s = 1700000000, .clock_offset_ns = 123,
		.hostname = "unit", .kernel_release = "test", .tracer_version = "test",
	};
	char path[512];
	unsigned long need;
	char *buf;

	memcpy(mp.uuid, uuid, 16);
	need = evt_meta_render(NULL, 0, &mp);
	buf = malloc(need + 1);
	ck_assert_uint_eq(evt_meta_render(buf, need + 1, &mp), need);
	ck_assert_ptr_nonnull(strstr(buf, "/* CTF 1.8 */"));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	write_file(path, buf, need, "w");
	free(buf);
}

/* Drain a ring to DIR/<channel>_<cpu>, whole packets only. */
static uint64_t drain_to_file(struct evt_ring *r, const char *dir)
{
	char path[512];
	unsigned long pos;
	uint64_t events = 0;

	snprintf(path, sizeof(path), "%s/%s_%u", dir, evt_channel_name(r->channel), r->cpu);
	while (evt_ring_get(r, &pos) == 0) {
		const struct evt_packet_header *h = evt_ring_packet(r, pos);

		struct seen s = { 0 };

		decode_packet(h, r->subbuf_size, &s);
		events += s.n;
		seen_free(&s);
		write_file(path, h, r->subbuf_size, "a");
		evt_ring_put(r, pos);
	}
	return events;
}

START_TEST(babeltrace_reads_core_trace)
{
	char dir[] = "/tmp/evt-unit-XXXXXX";
	char cmd[1024];
	const uint32_t cpus[3] = { 0, 1, 3 };
	struct tring rings[3][2];
	uint64_t written = 0, discarded = 0, lines = 0;
	struct evt_ring_stats st;
	char *out, *p;
	unsigned int i, c;
	uint64_t seq;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* Time steps that cross the 27-bit field boundary every ~20 events. */
	use_fake_clock(1ULL << 33, 7000003);
	for (i = 0; i < 3; i++) {
		for (c = 0; c < 2; c++) {
			tring_init(&rings[i][c], 4096, 4, c, EVT_MODE_DISCARD);
			rings[i][c].r.cpu = cpus[i];
		}
	}
	/* Interleave CPUs; drain some, let CPU 3's compact ring overflow (discards). */
	for (seq = 0; seq < 3000; seq++) {
		for (i = 0; i < 3; i++) {
			rec_compact(&rings[i][0].r, cpus[i], seq);
			if (seq % 3 == 0)
				rec_normal(&rings[i][1].r, cpus[i], seq, (unsigned int)(seq % 40));
			if (seq % 2)
				evt_record_copy(&rings[i][0].r, EVT_ID_GEN_PING, NULL, 0);
		}
		if (seq % 100 == 99) {
			for (i = 0; i < 2; i++)
				for (c = 0; c < 2; c++)
					written += drain_to_file(&rings[i][c].r, dir);
		}
	}
	for (i = 0; i < 3; i++) {
		for (c = 0; c < 2; c++) {
			evt_ring_flush(&rings[i][c].r);
			written += drain_to_file(&rings[i][c].r, dir);
			evt_ring_stats(&rings[i][c].r, &st);
			discarded += st.discarded;
		}
	}
	ck_assert_uint_gt(discarded, 0);
	write_metadata(dir);

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-gmt %s 2>%s.stderr", dir, dir);
	out = unit_sh(cmd, NULL);
	for (p = out; *p; p++)
		lines += *p == '\n';
	if (lines != written) {
		char *err;

		snprintf(cmd, sizeof(cmd), "cat %s.stderr", dir);
		err = unit_sh(cmd, NULL);
		ck_abort_msg("babeltrace2 printed %llu events, the tracer wrote %llu (trace in %s): %.2000s",
			     (unsigned long long)lines, (unsigned long long)written, dir, err);
	}
	/* Names, fields and the extended/compact headers decode. */
	ck_assert_ptr_nonnull(strstr(out, "gen_compact: { cpu_id = 3 }, { cpu = 3, seq = 0 }\n"));
	ck_assert_ptr_nonnull(strstr(out, "gen_ping"));
	ck_assert_ptr_nonnull(strstr(out, "gen_normal"));
	free(out);
	/* babeltrace2 reports the discarded events the tracer counted. */
	snprintf(cmd, sizeof(cmd), "cat %s.stderr", dir);
	out = unit_sh(cmd, NULL);
	ck_assert_msg(strstr(out, "discarded") != NULL, "no discard warning: %s", out);
	{
		uint64_t bt_disc = 0;

		for (p = out; (p = strstr(p, "Tracer discarded ")); p++)
			bt_disc += strtoull(p + strlen("Tracer discarded "), NULL, 10);
		ck_assert_uint_eq(bt_disc, discarded);
	}
	ck_assert_ptr_null(strstr(out, "ERROR"));
	free(out);

	for (i = 0; i < 3; i++)
		for (c = 0; c < 2; c++)
			tring_free(&rings[i][c]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s.stderr", dir, dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(metadata_lists_every_event)
{
	struct evt_meta_params mp = { .hostname = "h" };
	const size_t size = 1 << 20;
	char *buf = malloc(size);
	unsigned int i;

	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_lt(evt_meta_render(buf, size, &mp), size);
	for (i = 0; i < evt_nr_events; i++) {
		char want[128];

		snprintf(want, sizeof(want), "name = \"%s\";\n\tid = %u;\n\tstream_id = %u;",
			 evt_events[i].name, evt_events[i].id, evt_events[i].channel);
		ck_assert_msg(strstr(buf, want), "missing %s", evt_events[i].name);
	}
	/* A short buffer is never overrun and reports the size it needs. */
	ck_assert_uint_eq(evt_meta_render(buf, 10, &mp), evt_meta_render(NULL, 0, &mp));
	ck_assert_uint_eq(strlen(buf), 9);
	free(buf);
}
END_TEST

/*
 * The module renders the metadata twice, once to size its buffer and once
 * to fill it; sethostname() may run in between. A longer hostname in the
 * second pass made the text outgrow the buffer, and the length stored (what
 * /dev/evtrace/metadata serves) went past it. Copied first, both passes
 * render the same; without the copy the second pass says it did not fit
 * rather than report a length beyond the buffer.
 */
/*
 * The env's tracer_major/minor/patchlevel say which LTTng kernel layout the
 * events follow (the analyses key their fixes on them: below 2.7.1,
 * lttng-analyses takes 100 off every sched_wakeup prio); evtrace's own
 * version is kept as evtrace_version and its numbers. lttng-analyses reads
 * the first "tracer_major = N" of the text: there must be one.
 */
START_TEST(metadata_env_says_lttng_layout_and_evtrace_version)
{
	struct evt_meta_params mp = { .hostname = "h", .tracer_version = "0.12.3" };
	static const char *const want[] = {
		"\ttracer_name = \"evtrace\";\n", "\ttracer_major = 2;\n", "\ttracer_minor = 7;\n",
		"\ttracer_patchlevel = 1;\n", "\tevtrace_version = \"0.12.3\";\n", "\tevtrace_major = 0;\n",
		"\tevtrace_minor = 12;\n", "\tevtrace_patchlevel = 3;\n",
	};
	unsigned long need = evt_meta_render(NULL, 0, &mp);
	char *buf = malloc(need + 1), *env;
	unsigned int i;

	ck_assert_ptr_nonnull(buf);
	evt_meta_render(buf, need + 1, &mp);
	env = strstr(buf, "env {\n");
	ck_assert_ptr_nonnull(env);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(env, want[i]) && strstr(env, want[i]) < strstr(env, "};"), "env lacks %s", want[i]);
	ck_assert_ptr_eq(strstr(buf, "tracer_major"), strstr(env, "tracer_major = 2;"));
	ck_assert_ptr_null(strstr(strstr(buf, "tracer_major") + 1, "tracer_major"));
	ck_assert_ptr_null(strstr(buf, "tracer_version"));
	free(buf);
}
END_TEST

START_TEST(metadata_hostname_changes_between_passes)
{
	char host[EVT_META_SYS_STRING] = "h";
	struct evt_meta_params mp = { .hostname = host, .kernel_release = "r", .kernel_version = "v" };
	struct evt_meta_strings sys;
	unsigned long need, len;
	char *buf;

	evt_meta_params_copy(&mp, &sys);
	need = evt_meta_render(NULL, 0, &mp);
	memset(host, 'x', sizeof(host) - 1);	/* sethostname() between the passes */
	buf = malloc(need + 1);
	ck_assert_ptr_nonnull(buf);
	len = evt_meta_render_sized(buf, need + 1, &mp);
	ck_assert_uint_eq(len, need);
	ck_assert_uint_eq(strlen(buf), len);
	ck_assert_ptr_nonnull(strstr(buf, "hostname = \"h\";"));
	free(buf);

	/* The system's strings, cut to what utsname holds. */
	mp.hostname = host;
	evt_meta_params_copy(&mp, &sys);
	ck_assert_uint_eq(strlen(mp.hostname), EVT_META_SYS_STRING - 1);

	/* Not copied: the second pass finds no room and says so. */
	host[1] = '\0';
	mp.hostname = host;
	need = evt_meta_render(NULL, 0, &mp);
	host[1] = 'x';
	buf = malloc(need + 1);
	ck_assert_ptr_nonnull(buf);
	len = evt_meta_render_sized(buf, need + 1, &mp);
	ck_assert_uint_le(len, need);
	ck_assert_uint_eq(len, 0);
	free(buf);
}
END_TEST

START_TEST(decoder_rejects_bad_packets)
{
	struct tring t;
	unsigned long pos;
	uint8_t pkt[4096];
	struct evt_packet_iter it;
	struct evt_event ev;
	struct evt_packet_header *h = (void *)pkt;

	use_fake_clock(10, 10);
	tring_init(&t, 4096, 2, EVT_CHAN_COMPACT, EVT_MODE_DISCARD);
	rec_compact(&t.r, 0, 1);
	rec_compact(&t.r, 0, 2);
	evt_ring_flush(&t.r);
	ck_assert_int_eq(evt_ring_get(&t.r, &pos), 0);
	memcpy(pkt, evt_ring_packet(&t.r, pos), sizeof(pkt));
	evt_ring_put(&t.r, pos);

	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, pkt, 50), -1);
	ck_assert_ptr_nonnull(strstr(it.err, "truncated"));
	h->magic ^= 1;
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, pkt, sizeof(pkt)), -1);
	ck_assert_ptr_nonnull(strstr(it.err, "magic"));
	h->magic ^= 1;
	h->content_size = h->packet_size + 8;
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, pkt, sizeof(pkt)), -1);
	h->content_size = (EVT_PACKET_HEADER_SIZE + 32) * 8;
	/* An unknown event id is an error naming the offset. */
	pkt[EVT_PACKET_HEADER_SIZE] = (pkt[EVT_PACKET_HEADER_SIZE] & ~31) | 29;
	ck_assert_int_eq(evt_packet_iter_init(&it, evt_builtin, pkt, sizeof(pkt)), 0);
	ck_assert_int_eq(evt_packet_next(&it, &ev), -1);
	ck_assert_ptr_nonnull(strstr(it.err, "offset 84"));
	ck_assert_ptr_nonnull(strstr(it.err, "unknown event id 29"));
	tring_free(&t);
}
END_TEST

/*
 * Errno names are the kernel's, whatever the C library knows: the
 * kernel-internal ones a syscall's exit may return (ERESTARTSYS), the
 * first spelling of an alias, none for a hole, a success or a wild value.
 */
START_TEST(errno_names_are_the_kernels)
{
	ck_assert_str_eq(evt_errno_name(-1), "EPERM");
	ck_assert_str_eq(evt_errno_name(-11), "EAGAIN");
	ck_assert_str_eq(evt_errno_name(-35), "EDEADLK");
	ck_assert_str_eq(evt_errno_name(-95), "EOPNOTSUPP");
	ck_assert_str_eq(evt_errno_name(-133), "EHWPOISON");
	ck_assert_str_eq(evt_errno_name(-512), "ERESTARTSYS");
	ck_assert_str_eq(evt_errno_name(-516), "ERESTART_RESTARTBLOCK");
	ck_assert_str_eq(evt_errno_name(-531), "ENOGRACE");
	ck_assert_ptr_null(evt_errno_name(0));
	ck_assert_ptr_null(evt_errno_name(11));
	ck_assert_ptr_null(evt_errno_name(-41));
	ck_assert_ptr_null(evt_errno_name(-134));
	ck_assert_ptr_null(evt_errno_name(-520));
	ck_assert_ptr_null(evt_errno_name(-532));
	ck_assert_ptr_null(evt_errno_name(INT64_MIN));
}
END_TEST

Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("ctf");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, metadata_lists_every_event);
	tcase_add_test(tc, metadata_hostname_changes_between_passes);
	tcase_add_test(tc, metadata_env_says_lttng_layout_and_evtrace_version);
	tcase_add_test(tc, decoder_rejects_bad_packets);
	tcase_add_test(tc, babeltrace_reads_core_trace);
	tcase_add_test(tc, errno_names_are_the_kernels);
	suite_add_tcase(s, tc);
	return s;
}
