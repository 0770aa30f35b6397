// SPDX-License-Identifier: GPL-2.0
/*
 * evnl: send one hand-made generic netlink message to the evtrace family and
 * say what came back (the VM tests' way to send what evctl never would).
 *
 *   evnl [--dump] [--reserved N] [--nlflags HEX] [--version V] CMD [ITEM...]
 *
 * CMD is a command number or name (start, stop, status, config, flush,
 * generate, generate-stop). Each ITEM adds to the message, in order:
 *   NAME:u8:V, NAME:u16:V, NAME:u32:V, NAME:u64:V, NAME:str:S
 *            an attribute; NAME is a top-level attribute's name as in
 *            <evtrace/netlink.h> without EVT_A_ (high_water, gen_events, ...)
 *            or a number; "+" before NAME sets NLA_F_NESTED
 *   raw:HEX  these bytes as they are (trailing garbage, hand-made nests)
 * --reserved sets genlmsghdr.reserved, --nlflags ORs bits into nlmsg_flags
 * (NLM_F_REQUEST | NLM_F_ACK are always set), --version sets the genl version
 * (default EVT_GENL_VERSION), --dump sets NLM_F_DUMP.
 *
 * Prints the family's id and version, then "evnl: ok" on stdout for a
 * success, after "evnl: N messages, M attribute bytes, largest message L
 * bytes" when data came back (a doit reply or a dump), once the attributes of
 * every message, nests included, were found to tile it exactly (a wrapped
 * 16-bit nla_len does not). An error reply prints
 * "evnl: error ENAME: EXTACK" (or "(no message)") on stderr.
 * Exit status: 0 success, 1 the kernel answered with an error, 2 usage,
 * 3 no answer, a malformed answer, or a local failure.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <evtrace/netlink.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define BUF_SIZE	(1 << 20)

static uint8_t msg[65536];
static size_t msg_len;
static uint8_t rbuf[BUF_SIZE];
static int sock = -1;

static const char *const cmd_names[] = {
	[EVT_CMD_START] = "start", [EVT_CMD_STOP] = "stop", [EVT_CMD_STATUS] = "status",
	[EVT_CMD_CONFIG] = "config", [EVT_CMD_FLUSH] = "flush", [EVT_CMD_GENERATE] = "generate",
	[EVT_CMD_GENERATE_STOP] = "generate-stop", [EVT_CMD_NOTIFY] = "notify",
	[EVT_CMD_TIMER] = "timer", [EVT_CMD_TIMER_STOP] = "timer-stop",
};

static const char *const attr_names[] = {
	[EVT_A_TRACING] = "tracing", [EVT_A_MODE] = "mode", [EVT_A_HIGH_WATER] = "high_water",
	[EVT_A_FLUSH_MS] = "flush_ms", [EVT_A_SUBBUF_SIZE] = "subbuf_size",
	[EVT_A_NUM_SUBBUF] = "num_subbuf", [EVT_A_EVENTS] = "events", [EVT_A_EVENT] = "event",
	[EVT_A_RINGS] = "rings", [EVT_A_RING] = "ring", [EVT_A_GEN_EVENTS] = "gen_events",
	[EVT_A_GEN_RATE] = "gen_rate", [EVT_A_GEN_CHANNELS] = "gen_channels",
	[EVT_A_GEN_SIZES] = "gen_sizes", [EVT_A_GEN_CPUS] = "gen_cpus", [EVT_A_GENS] = "gens",
	[EVT_A_GEN] = "gen", [EVT_A_NOTIFY_REASON] = "notify_reason", [EVT_A_CHANNEL] = "channel",
	[EVT_A_CPU] = "cpu", [EVT_A_FILL] = "fill", [EVT_A_PAD] = "pad",
	[EVT_A_FAKE_RINGS] = "fake_rings", [EVT_A_TIMER_PERIOD_US] = "timer_period_us",
};

static void usage(void)
{
	fprintf(stderr, "usage: evnl [--dump] [--reserved N] [--nlflags HEX] [--version V] CMD "
		"[NAME:u8|u16|u32|u64|str:VALUE | raw:HEX]...\n");
	exit(2);
}

static int lookup(const char *s, const char *const *names, size_t n)
{
	char *end;
	unsigned long v;
	size_t i;

	for (i = 1; i < n; i++)
		if (names[i] && !strcasecmp(s, names[i]))
			return (int)i;
	v = strtoul(s, &end, 0);
	if (!*s || *end || v > 0x3fff)
		return -1;
	return (int)v;
}

static void put(uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(msg + msg_len);

	if (msg_len + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(msg)) {
		fprintf(stderr, "evnl: message too big\n");
		exit(2);
	}
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(msg + msg_len + NLA_HDRLEN, data, len);
	memset(msg + msg_len + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	msg_len += NLA_ALIGN(NLA_HDRLEN + len);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void add_item(const char *item)
{
	char name[64], kind[8];
	const char *val;
	uint64_t v;
	char *end;
	int type, nested = 0;

	if (!strncmp(item, "raw:", 4)) {
		const char *p = item + 4;

		if (strlen(p) % 2)
			usage();
		for (; *p; p += 2) {
			int hi = hexval(p[0]), lo = hexval(p[1]);

			if (hi < 0 || lo < 0 || msg_len >= sizeof(msg))
				usage();
			msg[msg_len++] = (uint8_t)(hi << 4 | lo);
		}
		return;
	}
	if (*item == '+') {
		nested = NLA_F_NESTED;
		item++;
	}
	val = strchr(item, ':');
	if (!val || (size_t)(val - item) >= sizeof(name))
		usage();
	memcpy(name, item, (size_t)(val - item));
	name[val - item] = '\0';
	item = val + 1;
	val = strchr(item, ':');
	if (!val || (size_t)(val - item) >= sizeof(kind))
		usage();
	memcpy(kind, item, (size_t)(val - item));
	kind[val - item] = '\0';
	val++;
	type = lookup(name, attr_names, sizeof(attr_names) / sizeof(attr_names[0]));
	if (type < 0)
		usage();
	type |= nested;
	if (!strcmp(kind, "str")) {
		put((uint16_t)type, val, strlen(val) + 1);
		return;
	}
	v = strtoull(val, &end, 0);
	if (!*val || *end)
		usage();
	if (!strcmp(kind, "u8")) {
		uint8_t x = (uint8_t)v;

		put((uint16_t)type, &x, 1);
	} else if (!strcmp(kind, "u16")) {
		uint16_t x = (uint16_t)v;

		put((uint16_t)type, &x, 2);
	} else if (!strcmp(kind, "u32")) {
		uint32_t x = (uint32_t)v;

		put((uint16_t)type, &x, 4);
	} else if (!strcmp(kind, "u64")) {
		put((uint16_t)type, &v, 8);
	} else {
		usage();
	}
}

static const char *errname(int e)
{
	static char buf[24];

	switch (e) {
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOMEM: return "ENOMEM";
	case ENOBUFS: return "ENOBUFS";
	case EPROTO: return "EPROTO";
	default:
		snprintf(buf, sizeof(buf), "errno %d", e);
		return buf;
	}
}

/* The extack message after an nlmsgerr (or a DONE's errno), "" if none. */
static const char *extack_msg(const struct nlmsghdr *h, size_t off)
{
	const uint8_t *p = (const uint8_t *)h + NLMSG_HDRLEN + NLMSG_ALIGN(off);
	const uint8_t *end = (const uint8_t *)h + h->nlmsg_len;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return "";
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG && a->nla_len > NLA_HDRLEN)
			return (const char *)p + NLA_HDRLEN;
		p += NLA_ALIGN(a->nla_len);
	}
	return "";
}

static int report_error(int err, const char *ext)
{
	fprintf(stderr, "evnl: error %s: %s\n", errname(err), *ext ? ext : "(no message)");
	return 1;
}

static int ok(unsigned long messages, unsigned long attr_bytes, unsigned long largest)
{
	if (messages)
		printf("evnl: %lu messages, %lu attribute bytes, largest message %lu bytes\n",
		       messages, attr_bytes, largest);
	printf("evnl: ok\n");
	return 0;
}

/* The attributes in [p, p + len) tile it exactly, nests recursively. */
static int well_formed(const uint8_t *p, size_t len, int depth)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return 0;
		if ((a->nla_type & NLA_F_NESTED) &&
		    (depth > 8 || !well_formed(p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN, depth + 1)))
			return 0;
		step = NLA_ALIGN(a->nla_len);
		if (step >= len)
			return 1;
		p += step;
		len -= step;
	}
	return len == 0;
}

static void resolve(uint16_t *family, uint32_t *version)
{
	struct nlmsghdr *h = (struct nlmsghdr *)msg;
	struct genlmsghdr *g = (struct genlmsghdr *)(msg + NLMSG_HDRLEN);
	ssize_t n;
	int rem;

	memset(msg, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = GENL_ID_CTRL;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = 1;
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	msg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	put(CTRL_ATTR_FAMILY_NAME, EVT_GENL_NAME, sizeof(EVT_GENL_NAME));
	h->nlmsg_len = (uint32_t)msg_len;
	if (send(sock, msg, msg_len, 0) < 0 || (n = recv(sock, rbuf, BUF_SIZE, 0)) < 0) {
		perror("evnl: resolving the family");
		exit(3);
	}
	rem = (int)n;
	for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
		const uint8_t *p = (const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN;
		int len = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

		if (h->nlmsg_type == NLMSG_ERROR) {
			fprintf(stderr, "evnl: no family %s: %s\n", EVT_GENL_NAME,
				strerror(-((struct nlmsgerr *)NLMSG_DATA(h))->error));
			exit(3);
		}
		while (len >= NLA_HDRLEN) {
			const struct nlattr *a = (const struct nlattr *)p;

			if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
				break;
			if (a->nla_type == CTRL_ATTR_FAMILY_ID)
				memcpy(family, p + NLA_HDRLEN, 2);
			if (a->nla_type == CTRL_ATTR_VERSION)
				memcpy(version, p + NLA_HDRLEN, 4);
			len -= NLA_ALIGN(a->nla_len);
			p += NLA_ALIGN(a->nla_len);
		}
	}
	if (!*family) {
		fprintf(stderr, "evnl: no family id in the controller's answer\n");
		exit(3);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned long reserved = 0, nlflags = 0, version = EVT_GENL_VERSION;
	unsigned long messages = 0, attr_bytes = 0, largest = 0;
	struct pollfd pfd;
	struct nlmsghdr *h;
	struct genlmsghdr *g;
	uint32_t fam_version = 0;
	uint16_t family = 0;
	int i, cmd, dump = 0, one = 1, bufsz = BUF_SIZE;
	char *end;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--dump")) {
			dump = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--reserved")) {
			reserved = strtoul(argv[++i], &end, 0);
			if (*end || reserved > 0xffff)
				usage();
		} else if (i + 1 < argc && !strcmp(argv[i], "--nlflags")) {
			nlflags = strtoul(argv[++i], &end, 16);
			if (*end || nlflags > 0xffff)
				usage();
		} else if (i + 1 < argc && !strcmp(argv[i], "--version")) {
			version = strtoul(argv[++i], &end, 0);
			if (*end || version > 255)
				usage();
		} else {
			usage();
		}
	}
	if (i >= argc)
		usage();
	cmd = lookup(argv[i++], cmd_names, sizeof(cmd_names) / sizeof(cmd_names[0]));
	if (cmd < 0 || cmd > 255)
		usage();

	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("evnl: socket");
		return 3;
	}
	setsockopt(sock, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(sock, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	resolve(&family, &fam_version);
	printf("evnl: family %s id %u version %u\n", EVT_GENL_NAME, family, fam_version);

	memset(msg, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h = (struct nlmsghdr *)msg;
	g = (struct genlmsghdr *)(msg + NLMSG_HDRLEN);
	h->nlmsg_type = family;
	h->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0) | nlflags);
	h->nlmsg_seq = 2;
	g->cmd = (uint8_t)cmd;
	g->version = (uint8_t)version;
	g->reserved = (uint16_t)reserved;
	msg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	for (; i < argc; i++)
		add_item(argv[i]);
	h->nlmsg_len = (uint32_t)msg_len;
	if (send(sock, msg, msg_len, 0) < 0) {
		perror("evnl: send");
		return 3;
	}

	pfd.fd = sock;
	pfd.events = POLLIN;
	for (;;) {
		ssize_t n;
		int rem;

		if (poll(&pfd, 1, 10000) <= 0) {
			fprintf(stderr, "evnl: no answer in 10 s\n");
			return 3;
		}
		n = recv(sock, rbuf, BUF_SIZE, MSG_TRUNC);
		if (n < 0) {
			perror("evnl: recv");
			return 3;
		}
		if (n > BUF_SIZE) {
			fprintf(stderr, "evnl: a %zd-byte datagram does not fit in %d bytes\n", n, BUF_SIZE);
			return 3;
		}
		rem = (int)n;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
			if (h->nlmsg_seq != 2)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error)
					return report_error(-e->error, extack_msg(h, sizeof(*e)));
				return ok(messages, attr_bytes, largest);
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(h), sizeof(int));
				if (err)
					return report_error(-err, extack_msg(h, sizeof(int)));
				return ok(messages, attr_bytes, largest);
			}
			if (h->nlmsg_type != family)
				continue;
			messages++;
			if (h->nlmsg_len > largest)
				largest = h->nlmsg_len;
			if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
			    !well_formed((const uint8_t *)h + NLMSG_HDRLEN + GENL_HDRLEN,
					 h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, 0)) {
				fprintf(stderr, "evnl: message %lu (%u bytes): its attributes do not tile it "
					"(a wrapped nla_len?)\n", messages, h->nlmsg_len);
				return 3;
			}
			attr_bytes += h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
		}
	}
}
