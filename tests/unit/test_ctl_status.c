// SPDX-License-Identifier: GPL-2.0
/*
 * evctl's STATUS dump put together from many messages as the module sends
 * them, and malformed ones refused (cases of the "ctl" suite).
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

/* The STATUS dump's cases, in the "ctl" suite. */
void ctl_status_tests(TCase *tc)
{
	tcase_add_test(tc, status_parse_filter);
	tcase_add_test(tc, status_dump_assembly);
	tcase_add_test(tc, ring_counters_keep_their_abi);
	tcase_add_test(tc, status_parse_refuses_malformed);
}
