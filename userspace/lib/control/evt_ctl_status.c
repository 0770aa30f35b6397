// SPDX-License-Identifier: GPL-2.0
/*
 * The evtrace control API's replies and notifications (evt_ctl.h): STATUS
 * and SNAPSHOT parsed, the notify group subscribed to and read. Requests go
 * through evt_ctl.c's plumbing.
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
	msg = evt_ctl_new_msg(c, EVT_CMD_STATUS, NLM_F_DUMP);
	if (!msg)
		return evt_ctl_set_error(c, -ENOMEM);
	/* The module's clock (ktime_get_mono_fast_ns()) is CLOCK_MONOTONIC: the holds' ages. */
	if (!clock_gettime(CLOCK_MONOTONIC, &ts))
		st->now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return evt_ctl_request(c, msg, parse_status, st);
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
	msg = evt_ctl_new_msg(c, EVT_CMD_SNAPSHOT, NLM_F_DUMP);
	if (!msg)
		return evt_ctl_set_error(c, -ENOMEM);
	if (trigger_seq && nla_put_u64(msg, EVT_A_TRIGGER_SEQ, trigger_seq) < 0) {
		nlmsg_free(msg);
		return evt_ctl_set_error(c, -EMSGSIZE);
	}
	ret = evt_ctl_request(c, msg, parse_snapshot, &ss);
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
		return evt_ctl_set_nlerror(c, grp);
	c->nsk = evt_ctl_genl_socket(&err);
	if (!c->nsk)
		return evt_ctl_set_error(c, err);
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
		return evt_ctl_set_nlerror(c, ret);
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
		return evt_ctl_set_error(c, -EINVAL);
	ncb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!ncb)
		return evt_ctl_set_error(c, -ENOMEM);
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
		return evt_ctl_set_error(c, -ENOBUFS);
	if (err)
		return evt_ctl_set_nlerror(c, err);
	return ns.count;
}

int evt_ctl_notify_wait(struct evt_ctl *c, int timeout_ms, evt_notify_cb cb, void *arg)
{
	struct pollfd pfd = { .fd = evt_ctl_notify_fd(c), .events = POLLIN };
	int ret;

	if (pfd.fd < 0)
		return evt_ctl_set_error(c, -EINVAL);
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : evt_ctl_set_error(c, -errno);
	if (ret == 0)
		return 0;
	return evt_ctl_notify_read(c, cb, arg);
}
