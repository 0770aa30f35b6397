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
#include "control/evt_ctl_priv.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

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

int evt_ctl_set_error(struct evt_ctl *c, int err)
{
	c->err = err;
	if (c->extack[0])
		snprintf(c->msg, sizeof(c->msg), "%s", c->extack);
	else
		snprintf(c->msg, sizeof(c->msg), "%s", evt_ctl_strerror(err));
	return err;
}

/* A libnl error from a local call: its own words when no errno fits. */
int evt_ctl_set_nlerror(struct evt_ctl *c, int nlerr)
{
	int err = nlerr_to_errno(nlerr);

	evt_ctl_set_error(c, err);
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

struct nl_sock *evt_ctl_genl_socket(int *err)
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
int evt_ctl_request(struct evt_ctl *c, struct nl_msg *msg,
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
		evt_ctl_set_error(c, -EPROTONOSUPPORT);
		snprintf(c->msg, sizeof(c->msg),
			 "the evtrace module speaks version %u of its netlink protocol, this program "
			 "version %d: load the evtrace.ko built with this program", c->version,
			 EVT_GENL_VERSION);
		return c->err;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return evt_ctl_set_error(c, -ENOMEM);
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &st);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &st);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &st);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &st);
	ret = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		nl_cb_put(cb);
		return evt_ctl_set_nlerror(c, ret);
	}
	while (!st.done) {
		ret = nl_recvmsgs(c->sk, cb);
		if (ret < 0 && !st.done) {
			nl_cb_put(cb);
			return evt_ctl_set_nlerror(c, ret);
		}
	}
	nl_cb_put(cb);
	if (st.err)
		return evt_ctl_set_error(c, st.err);
	return 0;
}

struct nl_msg *evt_ctl_new_msg(struct evt_ctl *c, uint8_t cmd, int flags)
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
	c->sk = evt_ctl_genl_socket(&err);
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
	err = evt_ctl_request(c, msg, parse_family, c);
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
