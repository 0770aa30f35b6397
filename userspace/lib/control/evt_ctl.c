// SPDX-License-Identifier: GPL-2.0
/*
 * The evtrace control API over generic netlink (libnl-3). See evt_ctl.h.
 *
 * Two sockets: one for requests (sequence-checked, each request acked) and,
 * once evt_ctl_subscribe() is called, one in the "notify" multicast group
 * (non-blocking, no sequence check), so that notifications never interleave
 * with a request's reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include "control/evt_ctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct evt_ctl {
	struct nl_sock *sk;		/* requests */
	struct nl_sock *nsk;		/* notifications, after subscribe */
	int family;
	unsigned int version;		/* the module's EVT_GENL_VERSION */
	int err;			/* last error, -errno */
	char extack[256];		/* the kernel's message for it */
	char msg[320];			/* what evt_ctl_errmsg returns */
};

/* libnl error codes back to errno, for the few that come from local calls. */
static int nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case 0: return 0;
	case NLE_PERM: return -EPERM;
	case NLE_NOACCESS: return -EACCES;
	case NLE_NOMEM: return -ENOMEM;
	case NLE_AGAIN: return -EAGAIN;
	case NLE_INTR: return -EINTR;
	case NLE_BUSY: return -EBUSY;
	case NLE_INVAL: return -EINVAL;
	case NLE_RANGE: return -ERANGE;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_MSGSIZE: return -EMSGSIZE;
	case NLE_BAD_SOCK: return -EBADF;
	case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
	default: return -EIO;
	}
}

const char *evt_ctl_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return "success";
	case ENOENT:
		return "evtrace module not loaded (no generic netlink family 'evtrace'; insmod evtrace.ko)";
	case EPERM:
	case EACCES:
		return "permission denied: evtrace control needs CAP_NET_ADMIN";
	case EBUSY:
		return "the tracer is busy (stop tracing first)";
	case EOPNOTSUPP:
		return "the evtrace module does not support this request (version mismatch?)";
	case ENOBUFS:
		return "notifications were lost (receive buffer overrun)";
	case EPROTO:
		return "malformed reply from the evtrace module";
	case EPROTONOSUPPORT:
		return "the evtrace module speaks another version of its netlink protocol: "
		       "use the module and the programs built together";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

static int set_error(struct evt_ctl *c, int err)
{
	c->err = err;
	if (c->extack[0])
		snprintf(c->msg, sizeof(c->msg), "%s", c->extack);
	else
		snprintf(c->msg, sizeof(c->msg), "%s", evt_ctl_strerror(err));
	return err;
}

/* A libnl error from a local call: its own words when no errno fits. */
static int set_nlerror(struct evt_ctl *c, int nlerr)
{
	int err = nlerr_to_errno(nlerr);

	set_error(c, err);
	if (err == -EIO)
		snprintf(c->msg, sizeof(c->msg), "netlink: %s", nl_geterror(nlerr));
	return err;
}

const char *evt_ctl_errmsg(const struct evt_ctl *c)
{
	return c->err ? c->msg : "success";
}

const char *evt_ctl_extack(const struct evt_ctl *c)
{
	return c->extack;
}

const char *evt_notify_name(int reason)
{
	static const char *const names[] = {
		[EVT_NOTIFY_NONE] = "NONE",
		[EVT_NOTIFY_HIGH_WATER] = "HIGH_WATER",
		[EVT_NOTIFY_FLUSHED] = "FLUSHED",
		[EVT_NOTIFY_DISCARDING] = "DISCARDING",
		[EVT_NOTIFY_CPU_ONLINE] = "CPU_ONLINE",
		[EVT_NOTIFY_CPU_OFFLINE] = "CPU_OFFLINE",
		[EVT_NOTIFY_STOPPED] = "STOPPED",
		[EVT_NOTIFY_NO_RING] = "NO_RING",
		[EVT_NOTIFY_ROTATE] = "ROTATE",
		[EVT_NOTIFY_TRIGGER] = "TRIGGER",
	};

	if (reason < 0 || reason >= __EVT_NOTIFY_MAX)
		return "?";
	return names[reason];
}

const char *evt_trigger_name(int reason)
{
	static const char *const names[] = {
		[EVT_TRIGGER_KFENCE] = "kfence",
		[EVT_TRIGGER_KASAN] = "kasan",
		[EVT_TRIGGER_WARN] = "warn",
		[EVT_TRIGGER_OOPS] = "oops",
	};

	if (reason < 0 || reason >= EVT_NR_TRIGGERS)
		return "?";
	return names[reason];
}

const char *evt_mode_name(int mode)
{
	return mode == 0 ? "discard" : mode == 1 ? "overwrite" : "?";
}

static struct nl_sock *genl_socket(int *err)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, ret;

	if (!sk) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = genl_connect(sk);
	if (ret < 0) {
		*err = nlerr_to_errno(ret);
		nl_socket_free(sk);
		return NULL;
	}
	/* Extended acks (the kernel's messages); capped acks (no echo of the
	 * request). Old kernels lack them: not fatal. */
	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	/* Not a program's to inherit (evdrain -- CMD runs one). */
	(void)fcntl(nl_socket_get_fd(sk), F_SETFD, FD_CLOEXEC);
	return sk;
}

void evt_ctl_close(struct evt_ctl *c)
{
	if (!c)
		return;
	if (c->nsk)
		nl_socket_free(c->nsk);
	if (c->sk)
		nl_socket_free(c->sk);
	free(c);
}

/* ---- requests ---- */

struct req_state {
	struct evt_ctl *ctl;
	int done;
	int err;
	int (*parse)(struct nl_msg *msg, void *arg);
	void *arg;
};

/* The extack TLVs of message @h, @off bytes into its payload. */
static void read_extack_at(struct evt_ctl *c, const struct nlmsghdr *h, size_t off)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t len;

	off = NLMSG_ALIGN(off);
	if (h->nlmsg_len - NLMSG_HDRLEN <= off)
		return;
	len = h->nlmsg_len - NLMSG_HDRLEN - off;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)h + NLMSG_HDRLEN + off),
		      (int)len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0) {
		nla_strlcpy(c->extack, tb[NLMSGERR_ATTR_MSG], sizeof(c->extack));
		/* Some messages end in a newline: drop it. */
		len = strlen(c->extack);
		while (len && (c->extack[len - 1] == '\n' || c->extack[len - 1] == ' '))
			c->extack[--len] = '\0';
	}
}

/* The extack TLVs follow the nlmsgerr and, unless capped, the echoed request. */
static void read_extack(struct evt_ctl *c, const struct nlmsgerr *e)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	size_t off;

	c->extack[0] = '\0';
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS) || h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return;
	off = sizeof(*e);
	if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	read_extack_at(c, h, off);
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct req_state *st = arg;

	(void)nla;
	st->err = e->error < 0 ? e->error : -e->error;
	read_extack(st->ctl, e);
	st->done = 1;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;

	(void)msg;
	st->done = 1;
	return NL_STOP;
}

/* NLMSG_DONE ends a dump; a dump that failed says so in it (libnl looks not). */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;
	const struct nlmsghdr *h = nlmsg_hdr(msg);
	int err = 0;

	if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(err))
		memcpy(&err, (const char *)h + NLMSG_HDRLEN, sizeof(err));
	if (err < 0) {
		st->err = err;
		st->ctl->extack[0] = '\0';
		if (h->nlmsg_flags & NLM_F_ACK_TLVS)
			read_extack_at(st->ctl, h, sizeof(err));
	}
	st->done = 1;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct req_state *st = arg;
	int ret;

	if (!st->parse)
		return NL_OK;
	ret = st->parse(msg, st->arg);
	if (ret < 0 && !st->err)
		st->err = ret;
	return NL_OK;
}

/*
 * Send @msg (consumed) and wait for its ack (and its replies before that, to
 * @parse). Returns 0 or -errno; the error message is recorded.
 */
static int request(struct evt_ctl *c, struct nl_msg *msg,
		   int (*parse)(struct nl_msg *, void *), void *arg)
{
	struct req_state st = { .ctl = c, .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int ret;

	c->err = 0;
	c->extack[0] = '\0';
	/* Once the family is known: nothing but to the version we speak. */
	if (c->family > 0 && c->version != EVT_GENL_VERSION) {
		nlmsg_free(msg);
		set_error(c, -EPROTONOSUPPORT);
		snprintf(c->msg, sizeof(c->msg),
			 "the evtrace module speaks version %u of its netlink protocol, this program "
			 "version %d: load the evtrace.ko built with this program", c->version,
			 EVT_GENL_VERSION);
		return c->err;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return set_error(c, -ENOMEM);
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &st);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &st);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &st);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &st);
	ret = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return set_nlerror(c, ret);
	}
	while (!st.done) {
		ret = nl_recvmsgs(c->sk, cb);
		if (ret < 0 && !st.done) {
			nl_cb_put(cb);
			return set_nlerror(c, ret);
		}
	}
	nl_cb_put(cb);
	if (st.err)
		return set_error(c, st.err);
	return 0;
}

static struct nl_msg *new_msg(struct evt_ctl *c, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, flags, cmd,
			 EVT_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* CTRL_CMD_GETFAMILY's answer: the family's id and version. */
static int parse_family(struct nl_msg *msg, void *arg)
{
	struct evt_ctl *c = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID] || !tb[CTRL_ATTR_VERSION])
		return -EPROTO;
	c->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	c->family = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

int evt_ctl_open(struct evt_ctl **out)
{
	struct evt_ctl *c;
	struct nl_msg *msg;
	int err = 0;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->sk = genl_socket(&err);
	if (!c->sk) {
		free(c);
		return err;
	}
	/* Replies of any size arrive whole. */
	nl_socket_enable_msg_peek(c->sk);
	/* The family's version too, which genl_ctrl_resolve() does not give. */
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0,
				 CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, EVT_GENL_NAME) < 0) {
		nlmsg_free(msg);
		evt_ctl_close(c);
		return -ENOMEM;
	}
	err = request(c, msg, parse_family, c);
	if (!err && c->family <= 0)
		err = -ENOENT;
	if (err) {
		evt_ctl_close(c);
		/* The controller answers ENOENT for an unknown family. */
		return err == -EINVAL ? -ENOENT : err;
	}
	*out = c;
	return 0;
}

static int simple(struct evt_ctl *c, uint8_t cmd)
{
	struct nl_msg *msg = new_msg(c, cmd, 0);

	if (!msg)
		return set_error(c, -ENOMEM);
	return request(c, msg, NULL, NULL);
}

int evt_ctl_start(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_START);
}

int evt_ctl_stop(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_STOP);
}

int evt_ctl_flush(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_FLUSH);
}

int evt_ctl_rotate(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_ROTATE);
}

int evt_ctl_statedump(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_STATEDUMP);
}

int evt_ctl_generate_stop(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_GENERATE_STOP);
}

int evt_ctl_config(struct evt_ctl *c, const struct evt_config *cfg)
{
	struct nl_msg *msg = new_msg(c, EVT_CMD_CONFIG, 0);
	struct nlattr *evs, *ev;
	size_t i;

	if (!msg)
		return set_error(c, -ENOMEM);
	if ((cfg->set & EVT_CFG_MODE) && nla_put_u8(msg, EVT_A_MODE, (uint8_t)cfg->mode) < 0)
		goto nomem;
	if ((cfg->set & EVT_CFG_HIGH_WATER) && nla_put_u32(msg, EVT_A_HIGH_WATER, cfg->high_water) < 0)
		goto nomem;
	if ((cfg->set & EVT_CFG_FLUSH_MS) && nla_put_u32(msg, EVT_A_FLUSH_MS, cfg->flush_ms) < 0)
		goto nomem;
	if (cfg->set & EVT_CFG_EVENTS) {
		/* The kernel validates strictly: nests carry NLA_F_NESTED. */
		evs = nla_nest_start(msg, EVT_A_EVENTS | NLA_F_NESTED);
		if (!evs)
			goto nomem;
		for (i = 0; i < cfg->nr_events; i++) {
			ev = nla_nest_start(msg, EVT_A_EVENT | NLA_F_NESTED);
			const struct evt_event_switch *sw = &cfg->events[i];

			if (!ev || nla_put_string(msg, EVT_EV_NAME, sw->name) < 0 ||
			    (!sw->stack_only && nla_put_u8(msg, EVT_EV_ENABLED, sw->enabled ? 1 : 0) < 0) ||
			    (sw->stack != EVT_STACK_LEAVE &&
			     nla_put_u8(msg, EVT_EV_STACK, sw->stack == EVT_STACK_ON) < 0))
				goto nomem;
			nla_nest_end(msg, ev);
		}
		nla_nest_end(msg, evs);
	}
	return request(c, msg, NULL, NULL);
nomem:
	nlmsg_free(msg);
	return set_error(c, -EMSGSIZE);
}

static int put_filter_list(struct nl_msg *msg, int list, int elem, const char *const *v, size_t n)
{
	struct nlattr *nest;
	size_t i;

	if (!n)
		return 0;
	nest = nla_nest_start(msg, list | NLA_F_NESTED);
	if (!nest)
		return -1;
	for (i = 0; i < n; i++)
		if (nla_put_string(msg, elem, v[i]) < 0)
			return -1;
	nla_nest_end(msg, nest);
	return 0;
}

static int filter_request(struct evt_ctl *c, uint8_t cmd, const struct evt_filter_spec *f)
{
	struct nl_msg *msg = new_msg(c, cmd, 0);
	struct nlattr *nest;
	size_t i;

	if (!msg)
		return set_error(c, -ENOMEM);
	if (f->nr_pids) {
		nest = nla_nest_start(msg, EVT_A_FILTER_PIDS | NLA_F_NESTED);
		if (!nest)
			goto nomem;
		for (i = 0; i < f->nr_pids; i++)
			if (nla_put_u32(msg, EVT_A_FILTER_PID, f->pids[i]) < 0)
				goto nomem;
		nla_nest_end(msg, nest);
	}
	if (put_filter_list(msg, EVT_A_FILTER_COMMS, EVT_A_FILTER_COMM, f->comms, f->nr_comms) ||
	    put_filter_list(msg, EVT_A_FILTER_CGROUPS, EVT_A_FILTER_CGROUP, f->cgroups, f->nr_cgroups))
		goto nomem;
	if (f->follow_fork >= 0 && nla_put_u8(msg, EVT_A_FILTER_FOLLOW_FORK, f->follow_fork ? 1 : 0) < 0)
		goto nomem;
	if (f->all && nla_put_flag(msg, EVT_A_FILTER_ALL) < 0)
		goto nomem;
	return request(c, msg, NULL, NULL);
nomem:
	nlmsg_free(msg);
	return set_error(c, -EMSGSIZE);
}

int evt_ctl_track(struct evt_ctl *c, const struct evt_filter_spec *f)
{
	return filter_request(c, EVT_CMD_TRACK, f);
}

int evt_ctl_untrack(struct evt_ctl *c, const struct evt_filter_spec *f)
{
	return filter_request(c, EVT_CMD_UNTRACK, f);
}

int evt_ctl_generate(struct evt_ctl *c, const struct evt_gen_request *g)
{
	struct nl_msg *msg = new_msg(c, EVT_CMD_GENERATE, 0);

	if (!msg)
		return set_error(c, -ENOMEM);
	if ((g->set & EVT_GEN_SET_EVENTS) && nla_put_u64(msg, EVT_A_GEN_EVENTS, g->p.events) < 0)
		goto nomem;
	if ((g->set & EVT_GEN_SET_RATE) && nla_put_u32(msg, EVT_A_GEN_RATE, g->p.rate) < 0)
		goto nomem;
	if ((g->set & EVT_GEN_SET_CHANNELS) && nla_put_u8(msg, EVT_A_GEN_CHANNELS, g->p.channels) < 0)
		goto nomem;
	if ((g->set & EVT_GEN_SET_SIZES) && nla_put_u8(msg, EVT_A_GEN_SIZES, g->p.mix) < 0)
		goto nomem;
	if ((g->set & EVT_GEN_SET_CPUS) && nla_put_string(msg, EVT_A_GEN_CPUS, g->cpus) < 0)
		goto nomem;
	return request(c, msg, NULL, NULL);
nomem:
	nlmsg_free(msg);
	return set_error(c, -EMSGSIZE);
}

int evt_ctl_timer(struct evt_ctl *c, uint32_t period_us)
{
	struct nl_msg *msg = new_msg(c, EVT_CMD_TIMER, 0);

	if (!msg)
		return set_error(c, -ENOMEM);
	if (nla_put_u32(msg, EVT_A_TIMER_PERIOD_US, period_us) < 0) {
		nlmsg_free(msg);
		return set_error(c, -EMSGSIZE);
	}
	return request(c, msg, NULL, NULL);
}

int evt_ctl_timer_stop(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_TIMER_STOP);
}

/* ---- STATUS ---- */

void evt_status_init(struct evt_status *st)
{
	memset(st, 0, sizeof(*st));
	st->mode = -1;
	st->high_water = -1;
	st->flush_ms = -1;
	st->filter.count_comms = -1;
	st->filter.count_cgroups = -1;
	st->trigger.reason = -1;
}

void evt_status_free(struct evt_status *st)
{
	free(st->events);
	free(st->rings);
	free(st->gens);
	free(st->fake_rings);
	evt_status_init(st);
}

/*
 * Grow an array by one zeroed element; NULL when out of memory. The room
 * doubles (16, 32, 64...: full when the count is 0 or a power of two from
 * 16), so that thousands of rings cost no more than a few reallocations.
 */
static void *grow(void **arr, size_t *n, size_t elsize)
{
	char *p = *arr;

	if (*n == 0 || (*n >= 16 && !(*n & (*n - 1)))) {
		size_t cap = *n ? *n * 2 : 16;

		if (cap > SIZE_MAX / elsize)
			return NULL;
		p = realloc(*arr, cap * elsize);
		if (!p)
			return NULL;
		*arr = p;
	}
	memset(p + *n * elsize, 0, elsize);
	return p + (*n)++ * elsize;
}

static struct nla_policy top_policy[EVT_A_MAX + 1] = {
	[EVT_A_TRACING] = { .type = NLA_U8 },
	[EVT_A_MODE] = { .type = NLA_U8 },
	[EVT_A_HIGH_WATER] = { .type = NLA_U32 },
	[EVT_A_FLUSH_MS] = { .type = NLA_U32 },
	[EVT_A_SUBBUF_SIZE] = { .type = NLA_U64 },
	[EVT_A_NUM_SUBBUF] = { .type = NLA_U64 },
	[EVT_A_EVENTS] = { .type = NLA_NESTED },
	[EVT_A_RINGS] = { .type = NLA_NESTED },
	[EVT_A_GENS] = { .type = NLA_NESTED },
	[EVT_A_NOTIFY_REASON] = { .type = NLA_U8 },
	[EVT_A_CHANNEL] = { .type = NLA_U8 },
	[EVT_A_CPU] = { .type = NLA_U32 },
	[EVT_A_FILL] = { .type = NLA_U32 },
	[EVT_A_FAKE_RINGS] = { .type = NLA_NESTED },
	[EVT_A_SNAPSHOT_SEQ] = { .type = NLA_U64 },
	[EVT_A_FILTER] = { .type = NLA_NESTED },
	[EVT_A_TRIGGER_REASON] = { .type = NLA_U8 },
	[EVT_A_TRIGGER_SEQ] = { .type = NLA_U64 },
	[EVT_A_TRIGGER_TS] = { .type = NLA_U64 },
	[EVT_A_UNANSWERED_CPUS] = { .type = NLA_STRING },
	[EVT_A_SNAPSHOT_LEFT_OUT] = { .type = NLA_U64 },
	[EVT_A_TRIGGER_RELEASE_TS] = { .type = NLA_U64 },
	[EVT_A_TRIGGER_EXPIRED] = { .type = NLA_U8 },
};

static struct nla_policy filter_policy[EVT_A_MAX + 1] = {
	[EVT_A_FILTER_NR_PIDS] = { .type = NLA_U32 },
	[EVT_A_FILTER_NR_COMMS] = { .type = NLA_U32 },
	[EVT_A_FILTER_NR_CGROUPS] = { .type = NLA_U32 },
	[EVT_A_FILTER_FOLLOW_FORK] = { .type = NLA_U8 },
	[EVT_A_FILTER_COMMS] = { .type = NLA_NESTED },
	[EVT_A_FILTER_CGROUPS] = { .type = NLA_NESTED },
};

static struct nla_policy event_policy[EVT_EV_MAX + 1] = {
	[EVT_EV_NAME] = { .type = NLA_STRING },
	[EVT_EV_ENABLED] = { .type = NLA_U8 },
	[EVT_EV_CHANNEL] = { .type = NLA_U8 },
	[EVT_EV_STACK] = { .type = NLA_U8 },
};

static struct nla_policy ring_policy[EVT_R_MAX + 1] = {
	[EVT_R_CHANNEL] = { .type = NLA_U8 },
	[EVT_R_CPU] = { .type = NLA_U32 },
	[EVT_R_ONLINE] = { .type = NLA_U8 },
#define RING_COUNTER_POLICY(field, attr, width) [EVT_R_##attr] = { .type = NLA_U64 },
	EVT_RING_COUNTERS(RING_COUNTER_POLICY)
#undef RING_COUNTER_POLICY
	[EVT_R_FILL] = { .type = NLA_U32 },
	[EVT_R_FAKE] = { .type = NLA_U8 },
	[EVT_R_HELD_SNAPSHOT] = { .type = NLA_U64 },
	[EVT_R_HELD_TRIGGER] = { .type = NLA_U64 },
	[EVT_R_UNANSWERED] = { .type = NLA_U64 },
};

static struct nla_policy gen_policy[EVT_G_MAX + 1] = {
	[EVT_G_CPU] = { .type = NLA_U32 },
	[EVT_G_RUNNING] = { .type = NLA_U8 },
	[EVT_G_DONE] = { .type = NLA_U8 },
	[EVT_G_COMPACT] = { .type = NLA_U64 },
	[EVT_G_NORMAL] = { .type = NLA_U64 },
	[EVT_G_TIMER] = { .type = NLA_U64 },
};

static uint64_t get_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static int parse_event(struct nlattr *nest, struct evt_status *st)
{
	struct nlattr *tb[EVT_EV_MAX + 1];
	struct evt_status_event *e;

	if (nla_parse_nested(tb, EVT_EV_MAX, nest, event_policy) < 0 || !tb[EVT_EV_NAME])
		return -EPROTO;
	e = grow((void **)&st->events, &st->nr_events, sizeof(*e));
	if (!e)
		return -ENOMEM;
	nla_strlcpy(e->name, tb[EVT_EV_NAME], sizeof(e->name));
	e->enabled = tb[EVT_EV_ENABLED] ? nla_get_u8(tb[EVT_EV_ENABLED]) != 0 : 0;
	e->channel = tb[EVT_EV_CHANNEL] ? nla_get_u8(tb[EVT_EV_CHANNEL]) : -1;
	e->stack = tb[EVT_EV_STACK] ? nla_get_u8(tb[EVT_EV_STACK]) != 0 : 0;
	return 0;
}

/* A ring entry; a synthetic one (EVT_R_FAKE) goes to fake_rings, wherever it came. */
static int parse_ring_into(struct nlattr *nest, struct evt_status *st, int fake_list)
{
	struct nlattr *tb[EVT_R_MAX + 1];
	struct evt_status_ring *r;
	int fake;

	if (nla_parse_nested(tb, EVT_R_MAX, nest, ring_policy) < 0 ||
	    !tb[EVT_R_CHANNEL] || !tb[EVT_R_CPU])
		return -EPROTO;
	fake = fake_list || (tb[EVT_R_FAKE] && nla_get_u8(tb[EVT_R_FAKE]));
	if (fake)
		r = grow((void **)&st->fake_rings, &st->nr_fake_rings, sizeof(*r));
	else
		r = grow((void **)&st->rings, &st->nr_rings, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->channel = nla_get_u8(tb[EVT_R_CHANNEL]);
	r->cpu = nla_get_u32(tb[EVT_R_CPU]);
	r->online = tb[EVT_R_ONLINE] ? nla_get_u8(tb[EVT_R_ONLINE]) != 0 : 0;
#define GET_RING_COUNTER(field, attr, width) r->field = get_u64(tb[EVT_R_##attr]);
	EVT_RING_COUNTERS(GET_RING_COUNTER)
#undef GET_RING_COUNTER
	r->fill = tb[EVT_R_FILL] ? nla_get_u32(tb[EVT_R_FILL]) : 0;
	r->held_snapshot = get_u64(tb[EVT_R_HELD_SNAPSHOT]);
	r->held_trigger = get_u64(tb[EVT_R_HELD_TRIGGER]);
	r->unanswered = get_u64(tb[EVT_R_UNANSWERED]);
	return 0;
}

static int parse_ring(struct nlattr *nest, struct evt_status *st)
{
	return parse_ring_into(nest, st, 0);
}

static int parse_fake_ring(struct nlattr *nest, struct evt_status *st)
{
	return parse_ring_into(nest, st, 1);
}

static int parse_gen(struct nlattr *nest, struct evt_status *st)
{
	struct nlattr *tb[EVT_G_MAX + 1];
	struct evt_status_gen *g;

	if (nla_parse_nested(tb, EVT_G_MAX, nest, gen_policy) < 0 || !tb[EVT_G_CPU])
		return -EPROTO;
	g = grow((void **)&st->gens, &st->nr_gens, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->cpu = nla_get_u32(tb[EVT_G_CPU]);
	g->running = tb[EVT_G_RUNNING] ? nla_get_u8(tb[EVT_G_RUNNING]) != 0 : 0;
	g->done = tb[EVT_G_DONE] ? nla_get_u8(tb[EVT_G_DONE]) != 0 : 0;
	g->compact = get_u64(tb[EVT_G_COMPACT]);
	g->normal = get_u64(tb[EVT_G_NORMAL]);
	g->timer = get_u64(tb[EVT_G_TIMER]);
	return 0;
}

/*
 * Each element of a list nest is of type @elem; others are skipped. The
 * elements must fill the nest exactly: bytes left over mean a length field
 * that lies (a 16-bit nla_len that wrapped, say).
 */
static int parse_list(struct nlattr *list, int elem, struct evt_status *st,
		      int (*one)(struct nlattr *, struct evt_status *))
{
	struct nlattr *a;
	int rem, ret;

	nla_for_each_nested(a, list, rem) {
		if (nla_type(a) != elem)
			continue;
		ret = one(a, st);
		if (ret < 0)
			return ret;
	}
	return rem ? -EPROTO : 0;
}

/* The attributes after the genl header fill the message exactly. */
static int attrs_tile(struct nlmsghdr *nlh)
{
	struct genlmsghdr *gh = genlmsg_hdr(nlh);
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem)
		;
	return rem == 0;
}

/* A list of strings into @out (@max of @len bytes each); -EPROTO when malformed. */
static int parse_strings(struct nlattr *list, int elem, char *out, size_t len, size_t max, size_t *n)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, list, rem) {
		const char *s = nla_data(a);
		size_t l = (size_t)nla_len(a);

		if (nla_type(a) != elem)
			continue;
		if (*n == max || !l || s[l - 1] != '\0' || l > len)
			return -EPROTO;
		memcpy(out + *n * len, s, l);
		(*n)++;
	}
	return rem ? -EPROTO : 0;
}

static int parse_filter(struct nlattr *nest, struct evt_status_filter *f)
{
	struct nlattr *tb[EVT_A_MAX + 1];

	if (nla_parse_nested(tb, EVT_A_MAX, nest, filter_policy) < 0)
		return -EPROTO;
	memset(f, 0, sizeof(*f));
	f->set = 1;
	if (tb[EVT_A_FILTER_NR_PIDS])
		f->nr_pids = nla_get_u32(tb[EVT_A_FILTER_NR_PIDS]);
	if (tb[EVT_A_FILTER_FOLLOW_FORK])
		f->follow_fork = nla_get_u8(tb[EVT_A_FILTER_FOLLOW_FORK]) != 0;
	f->count_comms = tb[EVT_A_FILTER_NR_COMMS] ? (int64_t)nla_get_u32(tb[EVT_A_FILTER_NR_COMMS]) : -1;
	f->count_cgroups = tb[EVT_A_FILTER_NR_CGROUPS] ? (int64_t)nla_get_u32(tb[EVT_A_FILTER_NR_CGROUPS]) : -1;
	if (tb[EVT_A_FILTER_COMMS] &&
	    parse_strings(tb[EVT_A_FILTER_COMMS], EVT_A_FILTER_COMM, &f->comms[0][0],
			  sizeof(f->comms[0]), EVT_FILTER_COMMS_MAX, &f->nr_comms))
		return -EPROTO;
	if (tb[EVT_A_FILTER_CGROUPS] &&
	    parse_strings(tb[EVT_A_FILTER_CGROUPS], EVT_A_FILTER_CGROUP, &f->cgroups[0][0],
			  sizeof(f->cgroups[0]), EVT_FILTER_CGROUPS_MAX, &f->nr_cgroups))
		return -EPROTO;
	return 0;
}

/* One STATUS message of the dump, adding to @st. */
static int parse_status_nlh(struct nlmsghdr *nlh, struct evt_status *st)
{
	struct genlmsghdr *gh;
	struct nlattr *tb[EVT_A_MAX + 1];
	int ret;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -EPROTO;
	gh = genlmsg_hdr(nlh);
	if (gh->cmd != EVT_CMD_STATUS)
		return 0;
	if (!attrs_tile(nlh) || genlmsg_parse(nlh, 0, tb, EVT_A_MAX, top_policy) < 0)
		return -EPROTO;
	if (tb[EVT_A_TRACING])
		st->tracing = nla_get_u8(tb[EVT_A_TRACING]) != 0;
	if (tb[EVT_A_MODE])
		st->mode = nla_get_u8(tb[EVT_A_MODE]);
	if (tb[EVT_A_HIGH_WATER])
		st->high_water = nla_get_u32(tb[EVT_A_HIGH_WATER]);
	if (tb[EVT_A_FLUSH_MS])
		st->flush_ms = nla_get_u32(tb[EVT_A_FLUSH_MS]);
	if (tb[EVT_A_SUBBUF_SIZE])
		st->subbuf_size = nla_get_u64(tb[EVT_A_SUBBUF_SIZE]);
	if (tb[EVT_A_NUM_SUBBUF])
		st->num_subbuf = nla_get_u64(tb[EVT_A_NUM_SUBBUF]);
	if (tb[EVT_A_EVENTS] && (ret = parse_list(tb[EVT_A_EVENTS], EVT_A_EVENT, st, parse_event)) < 0)
		return ret;
	if (tb[EVT_A_RINGS] && (ret = parse_list(tb[EVT_A_RINGS], EVT_A_RING, st, parse_ring)) < 0)
		return ret;
	if (tb[EVT_A_GENS] && (ret = parse_list(tb[EVT_A_GENS], EVT_A_GEN, st, parse_gen)) < 0)
		return ret;
	if (tb[EVT_A_FAKE_RINGS] &&
	    (ret = parse_list(tb[EVT_A_FAKE_RINGS], EVT_A_RING, st, parse_fake_ring)) < 0)
		return ret;
	if (tb[EVT_A_FILTER] && (ret = parse_filter(tb[EVT_A_FILTER], &st->filter)) < 0)
		return ret;
	if (tb[EVT_A_TRIGGER_SEQ]) {
		st->trigger.seq = nla_get_u64(tb[EVT_A_TRIGGER_SEQ]);
		st->trigger.reason = tb[EVT_A_TRIGGER_REASON] ? nla_get_u8(tb[EVT_A_TRIGGER_REASON]) : -1;
		st->trigger.ts = get_u64(tb[EVT_A_TRIGGER_TS]);
		st->trigger.release_ts = get_u64(tb[EVT_A_TRIGGER_RELEASE_TS]);
		st->trigger.expired = tb[EVT_A_TRIGGER_EXPIRED] && nla_get_u8(tb[EVT_A_TRIGGER_EXPIRED]);
	}
	return 0;
}

static int parse_status(struct nl_msg *msg, void *arg)
{
	return parse_status_nlh(nlmsg_hdr(msg), arg);
}

/* A dump: every message adds to @st (see <evtrace/netlink.h>). */
int evt_ctl_status(struct evt_ctl *c, struct evt_status *st)
{
	struct nl_msg *msg;

	struct timespec ts;

	evt_status_init(st);
	msg = new_msg(c, EVT_CMD_STATUS, NLM_F_DUMP);
	if (!msg)
		return set_error(c, -ENOMEM);
	/* The module's clock (ktime_get_mono_fast_ns()) is CLOCK_MONOTONIC: the holds' ages. */
	if (!clock_gettime(CLOCK_MONOTONIC, &ts))
		st->now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return request(c, msg, parse_status, st);
}

int evt_status_parse(struct evt_status *st, const void *buf, size_t len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	int rem = len > INT32_MAX ? INT32_MAX : (int)len, ret;

	for (; NLMSG_OK(nlh, rem); nlh = NLMSG_NEXT(nlh, rem)) {
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		ret = parse_status_nlh(nlh, st);
		if (ret < 0)
			return ret;
	}
	return rem ? -EPROTO : 0;
}

/* ---- SNAPSHOT ---- */

struct snapshot_state {
	struct evt_snapshot_bound *b;
	size_t nr, cap;
};

/* One SNAPSHOT message: a ring and its bound. */
static int parse_snapshot(struct nl_msg *msg, void *arg)
{
	struct snapshot_state *ss = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[EVT_A_MAX + 1];

	if (!genlmsg_valid_hdr(nlh, 0))
		return -EPROTO;
	if (genlmsg_hdr(nlh)->cmd != EVT_CMD_SNAPSHOT)
		return 0;
	if (!attrs_tile(nlh) || genlmsg_parse(nlh, 0, tb, EVT_A_MAX, top_policy) < 0 ||
	    !tb[EVT_A_CHANNEL] || !tb[EVT_A_CPU] || !tb[EVT_A_SNAPSHOT_SEQ])
		return -EPROTO;
	if (ss->nr == ss->cap) {
		size_t cap = ss->cap ? 2 * ss->cap : 16;
		struct evt_snapshot_bound *more = realloc(ss->b, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		ss->b = more;
		ss->cap = cap;
	}
	ss->b[ss->nr].channel = nla_get_u8(tb[EVT_A_CHANNEL]);
	ss->b[ss->nr].cpu = nla_get_u32(tb[EVT_A_CPU]);
	ss->b[ss->nr].seq = nla_get_u64(tb[EVT_A_SNAPSHOT_SEQ]);
	ss->b[ss->nr].unanswered = tb[EVT_A_SNAPSHOT_LEFT_OUT] != NULL;
	ss->b[ss->nr].left_out = get_u64(tb[EVT_A_SNAPSHOT_LEFT_OUT]);
	ss->nr++;
	return 0;
}

int evt_ctl_snapshot(struct evt_ctl *c, uint64_t trigger_seq, struct evt_snapshot_bound **bounds,
		     size_t *nr)
{
	struct snapshot_state ss = { 0 };
	struct nl_msg *msg;
	int ret;

	*bounds = NULL;
	*nr = 0;
	msg = new_msg(c, EVT_CMD_SNAPSHOT, NLM_F_DUMP);
	if (!msg)
		return set_error(c, -ENOMEM);
	if (trigger_seq && nla_put_u64(msg, EVT_A_TRIGGER_SEQ, trigger_seq) < 0) {
		nlmsg_free(msg);
		return set_error(c, -EMSGSIZE);
	}
	ret = request(c, msg, parse_snapshot, &ss);
	if (ret < 0) {
		free(ss.b);
		return ret;
	}
	*bounds = ss.b;
	*nr = ss.nr;
	return 0;
}

/* ---- notifications ---- */

int evt_ctl_subscribe(struct evt_ctl *c)
{
	int grp, ret, err = 0;

	c->err = 0;
	c->extack[0] = '\0';
	if (c->nsk)
		return 0;
	grp = genl_ctrl_resolve_grp(c->sk, EVT_GENL_NAME, EVT_GENL_MCGRP_NOTIFY);
	if (grp < 0)
		return set_nlerror(c, grp);
	c->nsk = genl_socket(&err);
	if (!c->nsk)
		return set_error(c, err);
	nl_socket_disable_seq_check(c->nsk);
	ret = nl_socket_add_membership(c->nsk, grp);
	if (ret >= 0)
		ret = nl_socket_set_nonblocking(c->nsk);
	if (ret >= 0)
		/* Room for bursts; the kernel rate-limits anyway. */
		(void)nl_socket_set_buffer_size(c->nsk, 1 << 20, 0);
	if (ret < 0) {
		nl_socket_free(c->nsk);
		c->nsk = NULL;
		return set_nlerror(c, ret);
	}
	return 0;
}

int evt_ctl_notify_fd(const struct evt_ctl *c)
{
	return c->nsk ? nl_socket_get_fd(c->nsk) : -1;
}

struct notify_state {
	evt_notify_cb cb;
	void *arg;
	int count;
};

static int on_notify(struct nl_msg *msg, void *arg)
{
	struct notify_state *ns = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[EVT_A_MAX + 1];
	struct evt_notification n = {
		.reason = -1, .channel = -1, .cpu = -1, .fill = -1, .trigger_reason = -1,
	};

	if (!genlmsg_valid_hdr(nlh, 0) || genlmsg_hdr(nlh)->cmd != EVT_CMD_NOTIFY)
		return NL_SKIP;
	if (genlmsg_parse(nlh, 0, tb, EVT_A_MAX, top_policy) < 0)
		return NL_SKIP;
	if (tb[EVT_A_NOTIFY_REASON])
		n.reason = nla_get_u8(tb[EVT_A_NOTIFY_REASON]);
	if (tb[EVT_A_CHANNEL])
		n.channel = nla_get_u8(tb[EVT_A_CHANNEL]);
	if (tb[EVT_A_CPU])
		n.cpu = (int)nla_get_u32(tb[EVT_A_CPU]);
	if (tb[EVT_A_FILL])
		n.fill = (int)nla_get_u32(tb[EVT_A_FILL]);
	if (tb[EVT_A_TRIGGER_REASON])
		n.trigger_reason = nla_get_u8(tb[EVT_A_TRIGGER_REASON]);
	if (tb[EVT_A_TRIGGER_SEQ])
		n.trigger_seq = nla_get_u64(tb[EVT_A_TRIGGER_SEQ]);
	if (tb[EVT_A_TRIGGER_TS])
		n.trigger_ts = nla_get_u64(tb[EVT_A_TRIGGER_TS]);
	if (tb[EVT_A_UNANSWERED_CPUS]) {
		char *p;

		nla_strlcpy(n.unanswered_cpus, tb[EVT_A_UNANSWERED_CPUS], sizeof(n.unanswered_cpus));
		/* A CPU list: digits, commas, dashes; nothing else reaches a terminal. */
		for (p = n.unanswered_cpus; *p; p++)
			if (!strchr("0123456789,-", *p))
				*p = '?';
	}
	ns->count++;
	if (ns->cb)
		ns->cb(&n, ns->arg);
	return NL_OK;
}

/* Multicast messages carry no sequence number of ours. */
static int no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

int evt_ctl_notify_read(struct evt_ctl *c, evt_notify_cb cb, void *arg)
{
	struct notify_state ns = { .cb = cb, .arg = arg };
	struct nl_cb *ncb;
	int ret, err = 0;

	if (!c->nsk)
		return set_error(c, -EINVAL);
	ncb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!ncb)
		return set_error(c, -ENOMEM);
	nl_cb_set(ncb, NL_CB_VALID, NL_CB_CUSTOM, on_notify, &ns);
	nl_cb_set(ncb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	for (;;) {
		ret = nl_recvmsgs(c->nsk, ncb);
		if (ret >= 0)
			continue;
		if (ret == -NLE_AGAIN)
			break;
		if (ret == -NLE_INTR)
			continue;
		err = ret;
		break;
	}
	nl_cb_put(ncb);
	c->extack[0] = '\0';
	/* recvmsg's ENOBUFS (overrun) arrives as NLE_NOMEM. */
	if (err == -NLE_NOMEM)
		return set_error(c, -ENOBUFS);
	if (err)
		return set_nlerror(c, err);
	return ns.count;
}

int evt_ctl_notify_wait(struct evt_ctl *c, int timeout_ms, evt_notify_cb cb, void *arg)
{
	struct pollfd pfd = { .fd = evt_ctl_notify_fd(c), .events = POLLIN };
	int ret;

	if (pfd.fd < 0)
		return set_error(c, -EINVAL);
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : set_error(c, -errno);
	if (ret == 0)
		return 0;
	return evt_ctl_notify_read(c, cb, arg);
}
