// SPDX-License-Identifier: GPL-2.0
/*
 * evfuzz: send randomized generic netlink messages to the evtrace family.
 *
 *   evfuzz [--count N] [--seed S] [--sink] [--only CMD,...] [--verbose]
 *
 * Resolves the family (and its "notify" group) with CTRL_CMD_GETFAMILY on a
 * raw NETLINK_GENERIC socket (no libnl: the kernel's parser alone is under
 * test) and sends N messages (default 10000), half of them a valid request
 * with one mutation, half built at random: unknown and reserved commands,
 * wrong versions and reserved bytes, attributes of wrong types and lengths,
 * missing, out-of-range, unknown, duplicated and oversized attributes, nests
 * without NLA_F_NESTED and nests where none belong, lengths that overrun the
 * message, truncated headers, dump requests, requests without NLM_F_ACK.
 * Each reply is awaited (10 s) and its errno counted. A GENERATE is always
 * followed by GENERATE_STOP so that a huge valid request cannot swamp the
 * machine; at the end tracing and the generator are stopped (unless the
 * caller lacks CAP_NET_ADMIN) and STATUS (a dump, as most STATUS requests
 * are) must still answer. --sink also joins the notify group with a tiny
 * receive buffer that is never read (the kernel must cope with a full
 * listener).
 * --only limits the fuzzed commands to these numbers (to narrow a failure).
 *
 * Prints a summary: counts per errno. Exit status 0 when every reply came
 * and the family still answers, 1 otherwise, 2 on usage errors.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <evtrace/netlink.h>
#include <evtrace/events.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define BUF_SIZE	65536
#define REPLY_TIMEOUT_MS 10000

static int sock = -1;
static uint16_t family;
static uint32_t notify_grp;
static uint32_t seq = 1;
static int verbose;
static uint64_t rng;

/* Counters. */
static unsigned long sent, replies_ok, no_reply_expected, stale, timeouts;
static unsigned long err_count[256];		/* by errno */
static unsigned long cmd_count[256];
static uint8_t only[256];		/* --only: the commands allowed */
static unsigned int nr_only;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int below(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

static int chance(unsigned int percent)
{
	return below(100) < percent;
}

/* ---- message building ---- */

struct mb {
	uint8_t buf[BUF_SIZE];
	size_t len;
};

static struct nlmsghdr *mb_hdr(struct mb *m)
{
	return (struct nlmsghdr *)m->buf;
}

static int room(const struct mb *m, size_t need)
{
	return m->len + NLA_ALIGN(need) <= BUF_SIZE - 64;
}

static void mb_start(struct mb *m, uint16_t type, uint16_t flags, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *h = mb_hdr(m);
	struct genlmsghdr *g;

	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq++;
	h->nlmsg_pid = 0;
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = version;
	g->reserved = 0;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

/* An attribute with @len bytes of payload (declared length @decl when >= 0). */
static struct nlattr *put_attr(struct mb *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a;

	if (!room(m, NLA_HDRLEN + len))
		return NULL;
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len && data)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	else if (len)
		memset((char *)a + NLA_HDRLEN, 0, len);
	memset((char *)a + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	m->len += NLA_ALIGN(NLA_HDRLEN + len);
	return a;
}

static void put_u8(struct mb *m, uint16_t t, uint8_t v) { put_attr(m, t, &v, 1); }
static void put_u32(struct mb *m, uint16_t t, uint32_t v) { put_attr(m, t, &v, 4); }
static void put_u64(struct mb *m, uint16_t t, uint64_t v) { put_attr(m, t, &v, 8); }
static void put_str(struct mb *m, uint16_t t, const char *s) { put_attr(m, t, s, strlen(s) + 1); }

static size_t nest_start(struct mb *m, uint16_t type)
{
	size_t off = m->len;

	if (!put_attr(m, type, NULL, 0))
		return (size_t)-1;
	return off;
}

static void nest_end(struct mb *m, size_t off)
{
	struct nlattr *a;

	if (off == (size_t)-1)
		return;
	a = (struct nlattr *)(m->buf + off);
	a->nla_len = (uint16_t)(m->len - off > 0xffff ? 0xffff : m->len - off);
}

/* ---- attribute kinds ---- */

enum kind { K_U8, K_U32, K_U64, K_STR, K_NEST, K_NONE, K_NR };

/* What each attribute of each space is (K_NONE: not accepted on input). */
static enum kind top_kind(unsigned int t)
{
	switch (t) {
	case EVT_A_MODE: case EVT_A_GEN_CHANNELS: case EVT_A_GEN_SIZES:
	case EVT_A_TRACING: case EVT_A_NOTIFY_REASON: case EVT_A_CHANNEL:
		return K_U8;
	case EVT_A_HIGH_WATER: case EVT_A_FLUSH_MS: case EVT_A_GEN_RATE:
	case EVT_A_CPU: case EVT_A_FILL:
		return K_U32;
	case EVT_A_GEN_EVENTS: case EVT_A_SUBBUF_SIZE: case EVT_A_NUM_SUBBUF:
		return K_U64;
	case EVT_A_GEN_CPUS:
		return K_STR;
	case EVT_A_EVENTS: case EVT_A_EVENT: case EVT_A_RINGS: case EVT_A_RING:
	case EVT_A_GENS: case EVT_A_GEN:
		return K_NEST;
	default:
		return K_NONE;
	}
}

static enum kind event_kind(unsigned int t)
{
	return t == EVT_EV_NAME ? K_STR : t == EVT_EV_ENABLED || t == EVT_EV_CHANNEL ? K_U8 : K_NONE;
}

static const char *const cpu_lists[] = {
	"all", "0", "1", "0-1", "0-3,6", "1-0", "0-", "-1", "", "x", "0,,1", "4095", "4096",
	"0-4095", "99999999999", "0-1:1/2", " 0", "0 ", "al", "ALL", "0-1,all",
};

static void fill_random(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

static void put_random_string(struct mb *m, uint16_t type)
{
	uint8_t s[4200];
	size_t n;

	switch (below(8)) {
	case 0:		/* a catalogue name */
		put_str(m, type, evt_events[below(evt_nr_events)].name);
		break;
	case 1:
		put_str(m, type, cpu_lists[below(sizeof(cpu_lists) / sizeof(cpu_lists[0]))]);
		break;
	case 2:		/* not NUL-terminated */
		n = 1 + below(80);
		memset(s, 'a' + below(26), n);
		put_attr(m, type, s, n);
		break;
	case 3:		/* oversized */
		n = 60 + below(400);
		memset(s, 'b', n);
		s[n] = '\0';
		put_attr(m, type, s, n + 1);
		break;
	case 4:		/* random bytes, NUL at the end */
		n = below(64);
		fill_random(s, n);
		s[n] = '\0';
		put_attr(m, type, s, n + 1);
		break;
	case 5:		/* empty payload */
		put_attr(m, type, NULL, 0);
		break;
	case 6:		/* huge */
		n = 256 + below(3900);
		fill_random(s, n);
		put_attr(m, type, s, n);
		break;
	default:	/* a name with a NUL inside */
		put_attr(m, type, "gen_compact\0junk", 17);
		break;
	}
}

static uint64_t interesting(int bits)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 50, 99, 100, 101, 255, 256, 65535, 3600000, 3600001,
		0x7fffffff, 0xffffffff, 0x100000000ULL, 1ULL << 40, (1ULL << 40) + 1, UINT64_MAX,
	};
	uint64_t x = chance(70) ? v[below(sizeof(v) / sizeof(v[0]))] : rnd();

	return bits == 64 ? x : x & ((1ULL << bits) - 1);
}

static void gen_attrs(struct mb *m, int space, int depth, unsigned int n);

/* One attribute of @space (0 top, 1 event list, 2 event, 3 other nests). */
static void gen_attr(struct mb *m, int space, int depth)
{
	unsigned int maxt = space == 0 ? EVT_A_MAX : space == 2 ? EVT_EV_MAX : EVT_R_MAX;
	uint16_t type;
	enum kind k;
	uint8_t junk[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	if (chance(85))
		type = (uint16_t)below(maxt + 3);		/* known, 0, just past the end */
	else
		type = (uint16_t)rnd() & 0x3fff;	/* anything */
	if (space == 1 && chance(80))
		type = EVT_A_EVENT;
	k = space == 0 ? top_kind(type) : space == 2 ? event_kind(type) : space == 1 ? K_NEST : K_U64;
	if (k == K_NONE || chance(20))
		k = (enum kind)below(K_NR);			/* the wrong type */
	if (k == K_NEST && (depth > 3 || chance(10)))
		k = K_U32;
	if (k == K_NEST || (chance(3) && depth < 4))
		type |= NLA_F_NESTED;
	if (chance(5))
		type ^= NLA_F_NESTED;				/* the flag wrong */
	if (chance(2))
		type |= NLA_F_NET_BYTEORDER;
	switch (k) {
	case K_U8:
		if (chance(90))
			put_u8(m, type, (uint8_t)interesting(8));
		else
			put_attr(m, type, junk, below(3) ? 2 : 0);	/* wrong length */
		break;
	case K_U32:
		if (chance(90))
			put_u32(m, type, (uint32_t)interesting(32));
		else
			put_attr(m, type, junk, 1 + below(7));
		break;
	case K_U64:
		if (chance(90))
			put_u64(m, type, interesting(64));
		else
			put_attr(m, type, junk, 1 + below(15));
		break;
	case K_STR:
		put_random_string(m, type);
		break;
	case K_NEST: {
		size_t off = nest_start(m, type);
		int inner = space == 0 && (type & NLA_TYPE_MASK) == EVT_A_EVENTS ? 1 :
			    space == 1 ? 2 : 3;

		if (off == (size_t)-1)
			break;
		gen_attrs(m, inner, depth + 1, below(6));
		nest_end(m, off);
		break;
	}
	default: {
		uint8_t big[512];

		fill_random(big, sizeof(big));
		put_attr(m, type, big, below(sizeof(big)));
		break;
	}
	}
}

static void gen_attrs(struct mb *m, int space, int depth, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		gen_attr(m, space, depth);
}

/* A valid request for @cmd, values in range. */
static void gen_valid(struct mb *m, uint8_t cmd)
{
	size_t list, ev;
	unsigned int i, n;

	switch (cmd) {
	case EVT_CMD_CONFIG:
		if (chance(50))
			put_u8(m, EVT_A_MODE, (uint8_t)below(2));
		if (chance(50))
			put_u32(m, EVT_A_HIGH_WATER, 1 + below(100));
		if (chance(50))
			put_u32(m, EVT_A_FLUSH_MS, chance(50) ? 0 : 10 + below(3600000 - 10));
		if (chance(50) || m->len == NLMSG_HDRLEN + GENL_HDRLEN) {
			list = nest_start(m, EVT_A_EVENTS | NLA_F_NESTED);
			n = below(4);
			for (i = 0; i < n; i++) {
				ev = nest_start(m, EVT_A_EVENT | NLA_F_NESTED);
				put_str(m, EVT_EV_NAME, evt_events[below(evt_nr_events)].name);
				put_u8(m, EVT_EV_ENABLED, (uint8_t)below(2));
				nest_end(m, ev);
			}
			nest_end(m, list);
		}
		break;
	case EVT_CMD_GENERATE:
		if (chance(60))
			put_u64(m, EVT_A_GEN_EVENTS, 1 + below(2000));
		else
			put_u64(m, EVT_A_GEN_EVENTS, 1);
		if (chance(50))
			put_u32(m, EVT_A_GEN_RATE, below(100000));
		if (chance(50))
			put_u8(m, EVT_A_GEN_CHANNELS, (uint8_t)(1 + below(3)));
		if (chance(50))
			put_u8(m, EVT_A_GEN_SIZES, (uint8_t)below(2));
		if (chance(50))
			put_str(m, EVT_A_GEN_CPUS, below(2) ? "all" : "0");
		break;
	default:
		break;
	}
}

/* One change to a valid message. */
static void mutate(struct mb *m)
{
	struct nlmsghdr *h = mb_hdr(m);
	struct genlmsghdr *g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	size_t body = NLMSG_HDRLEN + GENL_HDRLEN;

	switch (below(10)) {
	case 0:		/* an extra attribute, any */
		gen_attr(m, 0, 0);
		break;
	case 1:		/* drop the last attribute (maybe a required one) */
		if (m->len > body) {
			size_t off = body, last = body;

			while (off < m->len) {
				struct nlattr *a = (struct nlattr *)(m->buf + off);

				last = off;
				off += NLA_ALIGN(a->nla_len ? a->nla_len : NLA_HDRLEN);
			}
			m->len = last;
		}
		break;
	case 2:		/* duplicate the whole attribute area */
		if (m->len > body && room(m, m->len - body)) {
			memmove(m->buf + m->len, m->buf + body, m->len - body);
			m->len += m->len - body;
		}
		break;
	case 3:		/* flip a byte anywhere past the genl header */
		if (m->len > body)
			m->buf[body + below((unsigned int)(m->len - body))] ^= (uint8_t)(1 + below(255));
		break;
	case 4:		/* an attribute length that overruns */
		if (m->len > body) {
			struct nlattr *a = (struct nlattr *)(m->buf + body);

			a->nla_len = (uint16_t)(a->nla_len + 4 + below(64));
		}
		break;
	case 5:		/* truncate the message inside an attribute */
		if (m->len > body + 1)
			m->len = body + 1 + below((unsigned int)(m->len - body - 1));
		break;
	case 6:
		g->version = (uint8_t)rnd();
		break;
	case 7:
		g->reserved = (uint16_t)(1 + below(65535));
		break;
	case 8:		/* an out-of-range or wrong-type value */
		gen_attrs(m, 0, 0, 1 + below(3));
		break;
	default:	/* a nest without NLA_F_NESTED, or a lone event entry */
		put_attr(m, EVT_A_EVENTS, NULL, 0);
		{
			size_t ev = nest_start(m, EVT_A_EVENT);

			put_str(m, EVT_EV_NAME, chance(50) ? "no_such_event" : "gen_ping");
			put_u8(m, EVT_EV_ENABLED, (uint8_t)below(3));
			nest_end(m, ev);
		}
		break;
	}
	(void)h;
}

/* ---- sending and replies ---- */

static int send_msg(const void *buf, size_t len)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	for (;;) {
		ssize_t n = sendto(sock, buf, len, 0, (struct sockaddr *)&to, sizeof(to));

		if (n >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		return -errno;
	}
}

/*
 * Read until the reply to @want_seq ends (an error/ack or DONE) or the time-out.
 * Returns the errno (0 for success), or -1 on time-out. @want_seq 0: drain
 * what is pending without waiting.
 */
static int wait_reply(uint32_t want_seq, int timeout_ms)
{
	static uint8_t rbuf[BUF_SIZE];
	struct pollfd pfd = { .fd = sock, .events = POLLIN };

	for (;;) {
		ssize_t n;
		struct nlmsghdr *h;
		int rem;

		if (poll(&pfd, 1, want_seq ? timeout_ms : 0) <= 0)
			return want_seq ? -1 : 0;
		n = recv(sock, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ENOBUFS) {
				fprintf(stderr, "evfuzz: reply socket overrun\n");
				continue;
			}
			fprintf(stderr, "evfuzz: recv: %s\n", strerror(errno));
			return -1;
		}
		rem = (int)n;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
			int end = 0, err = 0;

			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				end = 1;
				err = -e->error;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				int e = 0;

				/* A dump that failed carries its errno here. */
				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(e))
					memcpy(&e, NLMSG_DATA(h), sizeof(e));
				end = 1;
				err = -e;
			}
			if (!end)
				continue;
			if (h->nlmsg_seq != want_seq) {
				stale++;
				if (err > 0 && err < 256)
					err_count[err]++;
				else if (!err)
					replies_ok++;
				continue;
			}
			return err;
		}
	}
}

static int request(struct mb *m, int expect_reply)
{
	struct nlmsghdr *h = mb_hdr(m);
	int ret;

	wait_reply(0, 0);	/* late replies to requests that wanted no ack */
	ret = send_msg(m->buf, m->len);
	sent++;
	if (ret) {
		/* The socket refused it before the family saw it (too big). */
		if (-ret > 0 && -ret < 256)
			err_count[-ret]++;
		return -ret;
	}
	if (!expect_reply) {
		no_reply_expected++;
		return 0;
	}
	ret = wait_reply(h->nlmsg_seq, REPLY_TIMEOUT_MS);
	if (ret < 0) {
		timeouts++;
		fprintf(stderr, "evfuzz: no reply to message %lu (seq %u, cmd %u, %zu bytes)\n",
			sent, h->nlmsg_seq, m->buf[NLMSG_HDRLEN], m->len);
		return -1;
	}
	if (ret == 0)
		replies_ok++;
	else if (ret < 256)
		err_count[ret]++;
	return ret;
}

static int simple_cmd_flags(uint8_t cmd, uint16_t flags)
{
	struct mb *m = malloc(sizeof(*m));
	int ret;

	mb_start(m, family, NLM_F_REQUEST | NLM_F_ACK | flags, cmd, EVT_GENL_VERSION);
	mb_hdr(m)->nlmsg_len = (uint32_t)m->len;
	ret = request(m, 1);
	free(m);
	return ret;
}

static int simple_cmd(uint8_t cmd)
{
	return simple_cmd_flags(cmd, 0);
}

/* CTRL_CMD_GETFAMILY: the family id and the notify group's id. */
static int resolve(void)
{
	static uint8_t rbuf[BUF_SIZE];
	struct mb *m = malloc(sizeof(*m));
	struct nlmsghdr *h;
	ssize_t n;
	int rem;

	mb_start(m, GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY, 1);
	put_str(m, CTRL_ATTR_FAMILY_NAME, EVT_GENL_NAME);
	mb_hdr(m)->nlmsg_len = (uint32_t)m->len;
	if (send_msg(m->buf, m->len)) {
		free(m);
		return -1;
	}
	free(m);
	n = recv(sock, rbuf, sizeof(rbuf), 0);
	if (n < 0)
		return -1;
	rem = (int)n;
	for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
		struct nlattr *a;
		int alen;

		if (h->nlmsg_type == NLMSG_ERROR) {
			fprintf(stderr, "evfuzz: no family '%s': %s\n", EVT_GENL_NAME,
				strerror(-((struct nlmsgerr *)NLMSG_DATA(h))->error));
			return -1;
		}
		if (h->nlmsg_type != GENL_ID_CTRL)
			continue;
		a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
		alen = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
		while (alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= alen) {
			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
				memcpy(&family, (char *)a + NLA_HDRLEN, 2);
			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS) {
				struct nlattr *grp = (struct nlattr *)((char *)a + NLA_HDRLEN);
				int glen = a->nla_len - NLA_HDRLEN;

				while (glen >= NLA_HDRLEN && grp->nla_len >= NLA_HDRLEN && grp->nla_len <= glen) {
					struct nlattr *g = (struct nlattr *)((char *)grp + NLA_HDRLEN);
					int l = grp->nla_len - NLA_HDRLEN;
					uint32_t id = 0;
					int named = 0;

					while (l >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN && g->nla_len <= l) {
						if ((g->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_ID)
							memcpy(&id, (char *)g + NLA_HDRLEN, 4);
						if ((g->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_NAME &&
						    !strcmp((char *)g + NLA_HDRLEN, EVT_GENL_MCGRP_NOTIFY))
							named = 1;
						l -= NLA_ALIGN(g->nla_len);
						g = (struct nlattr *)((char *)g + NLA_ALIGN(g->nla_len));
					}
					if (named)
						notify_grp = id;
					glen -= NLA_ALIGN(grp->nla_len);
					grp = (struct nlattr *)((char *)grp + NLA_ALIGN(grp->nla_len));
				}
			}
			alen -= NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
	}
	return family ? 0 : -1;
}

static int open_sink(void)
{
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int small = 1;	/* the kernel rounds it up to its minimum */
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) ||
	    setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &notify_grp, sizeof(notify_grp))) {
		fprintf(stderr, "evfuzz: sink socket: %s\n", strerror(errno));
		return -1;
	}
	return s;	/* never read, never closed until exit */
}

static void one_message(struct mb *m)
{
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
	uint8_t cmd, version = EVT_GENL_VERSION;
	int expect = 1, r;

	r = (int)below(100);
	if (r < 75)
		cmd = (uint8_t)(1 + below(EVT_CMD_MAX));	/* the real ones, NOTIFY too */
	else if (r < 90)
		cmd = (uint8_t)below(EVT_CMD_MAX + 4);	/* 0 and just past the end */
	else
		cmd = (uint8_t)rnd();
	if (nr_only)
		cmd = only[below(nr_only)];
	cmd_count[cmd]++;
	r = (int)below(100);
	if (r < 6)
		flags = NLM_F_REQUEST;			/* errors are still acked */
	else if (r < 10)
		flags |= NLM_F_DUMP;
	else if (r < 13)
		flags |= (uint16_t)(rnd() & 0x0ff0);	/* odd flags */
	/* STATUS is a dump: mostly asked as one, so that the dump is fuzzed. */
	if (cmd == EVT_CMD_STATUS && chance(80))
		flags |= NLM_F_DUMP;
	if (chance(3))
		version = (uint8_t)rnd();
	mb_start(m, family, flags, cmd, version);
	if (chance(50)) {
		gen_valid(m, cmd);
		mutate(m);
		if (chance(20))
			mutate(m);
	} else {
		gen_attrs(m, 0, 0, below(10));
		if (chance(3))					/* oversized: many attributes */
			gen_attrs(m, 0, 0, 50 + below(150));
	}
	mb_hdr(m)->nlmsg_len = (uint32_t)m->len;
	r = (int)below(100);
	if (r < 2) {
		/* Shorter than the genl header: the core refuses it (acked). */
		m->len = NLMSG_HDRLEN + below(GENL_HDRLEN);
		mb_hdr(m)->nlmsg_len = (uint32_t)m->len;
	} else if (r < 3) {
		/* Longer than what is sent: dropped unseen, no reply. */
		mb_hdr(m)->nlmsg_len = (uint32_t)(m->len + 4 + below(100));
		expect = 0;
	}
	/* Without NLM_F_ACK a success sends nothing, a failure an error: not waited for. */
	if (!(flags & NLM_F_ACK))
		expect = 0;
	if (verbose)
		fprintf(stderr, "msg %lu cmd %u flags %#x len %zu\n", sent, cmd, flags, m->len);
	request(m, expect);
	/* Whatever it was, a generator it may have started stops now. */
	if (cmd == EVT_CMD_GENERATE)
		simple_cmd(EVT_CMD_GENERATE_STOP);
}

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case EMSGSIZE: return "EMSGSIZE";
	case E2BIG: return "E2BIG";
	case ENOMEM: return "ENOMEM";
	case ENOBUFS: return "ENOBUFS";
	case EACCES: return "EACCES";
	default: return NULL;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned long count = 10000, i, i_fuzzed, known_cmds = 0;
	int one = 1, sink = 0, e, i_arg;
	struct mb *m;
	char *end;

	rng = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
	for (i_arg = 1; i_arg < argc; i_arg++) {
		if (!strcmp(argv[i_arg], "--count") && i_arg + 1 < argc) {
			count = strtoul(argv[++i_arg], &end, 10);
			if (*end || !count)
				goto usage;
		} else if (!strcmp(argv[i_arg], "--seed") && i_arg + 1 < argc) {
			rng = strtoull(argv[++i_arg], &end, 0);
			if (*end)
				goto usage;
		} else if (!strcmp(argv[i_arg], "--only") && i_arg + 1 < argc) {
			char *p = argv[++i_arg];

			while (*p && nr_only < 256) {
				unsigned long c = strtoul(p, &end, 0);

				if (end == p || c > 255 || (*end && *end != ','))
					goto usage;
				only[nr_only++] = (uint8_t)c;
				p = *end ? end + 1 : end;
			}
			if (!nr_only)
				goto usage;
		} else if (!strcmp(argv[i_arg], "--sink")) {
			sink = 1;
		} else if (!strcmp(argv[i_arg], "--verbose")) {
			verbose = 1;
		} else {
			goto usage;
		}
	}
	if (!rng)
		rng = 1;
	printf("evfuzz: seed %llu\n", (unsigned long long)rng);
	/* Also on stderr (the console), should the machine not survive. */
	fprintf(stderr, "evfuzz: seed %llu (--seed repeats this run)\n", (unsigned long long)rng);
	fflush(stdout);

	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("evfuzz: socket");
		return 1;
	}
	/* Extended acks on: the kernel's message paths run too. */
	setsockopt(sock, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (resolve())
		return 1;
	printf("evfuzz: family %s id %u, notify group %u\n", EVT_GENL_NAME, family, notify_grp);
	if (sink && notify_grp && open_sink() < 0)
		return 1;

	m = malloc(sizeof(*m));
	if (!m)
		return 1;
	for (i = 0; i < count; i++) {
		one_message(m);
		if (timeouts > 3)
			break;
	}
	i_fuzzed = i;
	free(m);
	wait_reply(0, 0);

	/* Leave the tracer quiet (refused without CAP_NET_ADMIN), and prove
	 * the family still answers. */
	e = simple_cmd(EVT_CMD_GENERATE_STOP);
	if (!e || e == EPERM)
		e = simple_cmd(EVT_CMD_STOP);
	if (!e || e == EPERM)
		e = simple_cmd_flags(EVT_CMD_STATUS, NLM_F_DUMP);
	for (i = 1; i <= EVT_CMD_MAX; i++)
		known_cmds += cmd_count[i];
	printf("evfuzz: fuzzed %lu messages (%lu to known commands), %lu sent in all: "
	       "%lu succeeded, %lu not waited for, %lu late replies, %lu time-outs\n",
	       i_fuzzed, known_cmds, sent, replies_ok, no_reply_expected, stale, timeouts);
	for (i = 1; i < 256; i++)
		if (err_count[i]) {
			const char *n = errname((int)i);

			if (n)
				printf("evfuzz: %-10s %lu\n", n, err_count[i]);
			else
				printf("evfuzz: errno %-4lu %lu\n", i, err_count[i]);
		}
	if (e) {
		printf("evfuzz: the family no longer answers: %s\n", e > 0 ? strerror(e) : "time-out");
		return 1;
	}
	if (timeouts) {
		printf("evfuzz: FAIL: %lu requests got no reply\n", timeouts);
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: evfuzz [--count N] [--seed S] [--sink] [--only CMD,...] [--verbose]\n");
	return 2;
}
