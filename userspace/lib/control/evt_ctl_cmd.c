// SPDX-License-Identifier: GPL-2.0
/*
 * The evtrace control API's commands (evt_ctl.h): each built into a message
 * and sent through evt_ctl.c's request plumbing.
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

static int simple(struct evt_ctl *c, uint8_t cmd)
{
	struct nl_msg *msg = evt_ctl_new_msg(c, cmd, 0);

	if (!msg)
		return evt_ctl_set_error(c, -ENOMEM);
	return evt_ctl_request(c, msg, NULL, NULL);
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
	struct nl_msg *msg = evt_ctl_new_msg(c, EVT_CMD_CONFIG, 0);
	struct nlattr *evs, *ev;
	size_t i;

	if (!msg)
		return evt_ctl_set_error(c, -ENOMEM);
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
	return evt_ctl_request(c, msg, NULL, NULL);
nomem:
	nlmsg_free(msg);
	return evt_ctl_set_error(c, -EMSGSIZE);
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
	struct nl_msg *msg = evt_ctl_new_msg(c, cmd, 0);
	struct nlattr *nest;
	size_t i;

	if (!msg)
		return evt_ctl_set_error(c, -ENOMEM);
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
	return evt_ctl_request(c, msg, NULL, NULL);
nomem:
	nlmsg_free(msg);
	return evt_ctl_set_error(c, -EMSGSIZE);
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
	struct nl_msg *msg = evt_ctl_new_msg(c, EVT_CMD_GENERATE, 0);

	if (!msg)
		return evt_ctl_set_error(c, -ENOMEM);
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
	return evt_ctl_request(c, msg, NULL, NULL);
nomem:
	nlmsg_free(msg);
	return evt_ctl_set_error(c, -EMSGSIZE);
}

int evt_ctl_timer(struct evt_ctl *c, uint32_t period_us)
{
	struct nl_msg *msg = evt_ctl_new_msg(c, EVT_CMD_TIMER, 0);

	if (!msg)
		return evt_ctl_set_error(c, -ENOMEM);
	if (nla_put_u32(msg, EVT_A_TIMER_PERIOD_US, period_us) < 0) {
		nlmsg_free(msg);
		return evt_ctl_set_error(c, -EMSGSIZE);
	}
	return evt_ctl_request(c, msg, NULL, NULL);
}

int evt_ctl_timer_stop(struct evt_ctl *c)
{
	return simple(c, EVT_CMD_TIMER_STOP);
}
