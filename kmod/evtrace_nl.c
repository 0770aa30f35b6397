// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink control plane: family "evtrace" (commands in
 * <evtrace/netlink.h>) and its multicast group "notify", whose messages
 * evtrace_notify.c sends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <evtrace/netlink.h>
#include "evtrace_rings.h"
#include "evtrace_flush.h"
#include "evtrace_gen.h"
#include "evtrace_filter.h"
#include "evtrace_stacks.h"
#include "evtrace_statedump.h"
#include "evtrace_snapshot.h"
#include "evtrace_notify.h"
#include "evtrace_nl.h"

static struct genl_family evt_genl_family;

static struct netlink_range_validation evt_flush_ms_range = {
	.min = 0, .max = EVT_FLUSH_MS_MAX,
};
/* The policy's short form holds s16 bounds only: these are larger. */
static struct netlink_range_validation evt_timer_period_range = {
	.min = EVT_TIMER_PERIOD_US_MIN, .max = EVT_TIMER_PERIOD_US_MAX,
};
static struct netlink_range_validation evt_gen_events_range = {
	.min = 1, .max = EVT_GEN_EVENTS_MAX,
};

static const struct nla_policy evt_event_policy[EVT_EV_MAX + 1] = {
	[EVT_EV_NAME] = { .type = NLA_NUL_STRING, .len = EVT_EVENT_NAME_MAX - 1 },
	[EVT_EV_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1),
	[EVT_EV_STACK] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* EVT_A_EVENTS: EVT_A_EVENT entries only, each validated by the core. */
static const struct nla_policy evt_events_policy[EVT_A_EVENT + 1] = {
	[EVT_A_EVENT] = NLA_POLICY_NESTED(evt_event_policy),
};

/*
 * One policy per command, so that an attribute the command does not take is
 * refused with a message instead of ignored.
 */
static const struct nla_policy evt_config_policy[EVT_A_MAX + 1] = {
	[EVT_A_MODE] = NLA_POLICY_MAX(NLA_U8, EVT_MODE_OVERWRITE),
	[EVT_A_HIGH_WATER] = NLA_POLICY_RANGE(NLA_U32, EVT_HIGH_WATER_MIN, EVT_HIGH_WATER_MAX),
	[EVT_A_FLUSH_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &evt_flush_ms_range),
	[EVT_A_EVENTS] = NLA_POLICY_NESTED(evt_events_policy),
};

static const struct nla_policy evt_generate_policy[EVT_A_MAX + 1] = {
	[EVT_A_GEN_EVENTS] = NLA_POLICY_FULL_RANGE(NLA_U64, &evt_gen_events_range),
	[EVT_A_GEN_RATE] = { .type = NLA_U32 },
	[EVT_A_GEN_CHANNELS] = NLA_POLICY_RANGE(NLA_U8, 1, 3),
	[EVT_A_GEN_SIZES] = NLA_POLICY_MAX(NLA_U8, 1),
	[EVT_A_GEN_CPUS] = { .type = NLA_NUL_STRING, .len = EVT_CPULIST_MAX - 1 },
};

static const struct nla_policy evt_timer_policy[EVT_A_MAX + 1] = {
	[EVT_A_TIMER_PERIOD_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &evt_timer_period_range),
};

/* The lists' entries are checked one by one, with a message naming the bad one. */
static const struct nla_policy evt_track_policy[EVT_A_MAX + 1] = {
	[EVT_A_FILTER_PIDS] = { .type = NLA_NESTED },
	[EVT_A_FILTER_COMMS] = { .type = NLA_NESTED },
	[EVT_A_FILTER_CGROUPS] = { .type = NLA_NESTED },
	[EVT_A_FILTER_FOLLOW_FORK] = NLA_POLICY_MAX(NLA_U8, 1),
};

static const struct nla_policy evt_untrack_policy[EVT_A_MAX + 1] = {
	[EVT_A_FILTER_PIDS] = { .type = NLA_NESTED },
	[EVT_A_FILTER_COMMS] = { .type = NLA_NESTED },
	[EVT_A_FILTER_CGROUPS] = { .type = NLA_NESTED },
	[EVT_A_FILTER_ALL] = { .type = NLA_FLAG },
};

static const struct nla_policy evt_snapshot_policy[EVT_A_MAX + 1] = {
	[EVT_A_TRIGGER_SEQ] = { .type = NLA_U64 },
};

static const struct nla_policy evt_no_attrs_policy[EVT_A_MAX + 1] = {
	[1 ... EVT_A_MAX] = { .type = NLA_REJECT,
			      .reject_message = "this command takes no attributes" },
};


static int evt_nl_start(struct sk_buff *skb, struct genl_info *info)
{
	evt_start_tracing();
	return 0;
}

static int evt_nl_stop(struct sk_buff *skb, struct genl_info *info)
{
	/* A dump asked for before STOP is recorded, while tracing still is. */
	evt_statedump_finish();
	/* A CPU stuck with interrupts off must not hang STOP (genl_mutex). */
	evt_stop_tracing(false);
	evt_flush_wait_writers();
	evt_flush_all();
	evt_notify_ring(NULL, EVT_NOTIFY_STOPPED);
	return 0;
}

static int evt_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	evt_flush_all();
	return 0;
}

/*
 * Sent now, not through the notify work: a rotation asked for must not be
 * dropped by the notifications' rate limit, and the caller learns whether
 * any drainer heard it.
 */
static int evt_nl_rotate(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &evt_genl_family, 0, EVT_CMD_NOTIFY);
	if (!hdr || nla_put_u8(msg, EVT_A_NOTIFY_REASON, EVT_NOTIFY_ROTATE)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_multicast(&evt_genl_family, msg, 0, 0, GFP_KERNEL);
	if (ret == -ESRCH)
		GENL_SET_ERR_MSG(info, "no drainer is listening to the notify group");
	else if (ret)
		GENL_SET_ERR_MSG(info, "a listener's socket was full: it did not get the request");
	return ret;
}


static int evt_nl_statedump(struct sk_buff *skb, struct genl_info *info)
{
	if (!READ_ONCE(evt_tracing)) {
		GENL_SET_ERR_MSG(info, "tracing is not running: the state dump is recorded while tracing");
		return -EINVAL;
	}
	evt_statedump_start();
	return 0;
}

static int evt_nl_track(struct sk_buff *skb, struct genl_info *info)
{
	return evt_filter_track(info->attrs, info->extack);
}

static int evt_nl_untrack(struct sk_buff *skb, struct genl_info *info)
{
	return evt_filter_untrack(info->attrs, info->extack);
}

/* Parse EVT_A_EVENTS into (index, enabled) pairs; apply only if all are good. */
static int evt_nl_events(struct nlattr *list, struct netlink_ext_ack *extack, bool apply)
{
	struct nlattr *ev, *tb[EVT_EV_MAX + 1];
	int rem, ret;

	nla_for_each_nested(ev, list, rem) {
		int sw;

		if (nla_type(ev) != EVT_A_EVENT) {
			NL_SET_ERR_MSG_ATTR(extack, ev, "EVT_A_EVENTS holds only EVT_A_EVENT entries");
			return -EINVAL;
		}
		ret = nla_parse_nested(tb, EVT_EV_MAX, ev, evt_event_policy, extack);
		if (ret)
			return ret;
		if (!tb[EVT_EV_NAME] || (!tb[EVT_EV_ENABLED] && !tb[EVT_EV_STACK])) {
			NL_SET_ERR_MSG_ATTR(extack, ev, "an event entry needs a name and an enabled or stack flag");
			return -EINVAL;
		}
		sw = evt_find_switch(nla_data(tb[EVT_EV_NAME]));
		if (sw < 0) {
			NL_SET_ERR_MSG_ATTR(extack, tb[EVT_EV_NAME],
					    "unknown event name (the syscall entries are one: \"" EVT_SYSCALL_SWITCH_NAME "\")");
			return -ENOENT;
		}
		if (tb[EVT_EV_STACK] && nla_get_u8(tb[EVT_EV_STACK]) &&
		    (sw + 1 == (int)evt_nr_switches || !evt_stack_allowed(&evt_events[sw]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[EVT_EV_NAME],
					    "this event cannot have kernel stacks: only compact-channel events other than the syscall entries can");
			return -EINVAL;
		}
		if (apply && tb[EVT_EV_ENABLED])
			evt_set_switch(sw, nla_get_u8(tb[EVT_EV_ENABLED]));
		if (apply && tb[EVT_EV_STACK] && sw + 1 < (int)evt_nr_switches)
			evt_set_stack(&evt_events[sw], nla_get_u8(tb[EVT_EV_STACK]));
	}
	return 0;
}

static int evt_nl_config(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	int ret;

	if (!a[EVT_A_MODE] && !a[EVT_A_HIGH_WATER] && !a[EVT_A_FLUSH_MS] && !a[EVT_A_EVENTS]) {
		GENL_SET_ERR_MSG(info, "nothing to configure: give MODE, HIGH_WATER, FLUSH_MS or EVENTS");
		return -EINVAL;
	}
	if (a[EVT_A_MODE] && READ_ONCE(evt_tracing) &&
	    nla_get_u8(a[EVT_A_MODE]) != evt.mode) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EVT_A_MODE],
				    "the mode can only change while tracing is stopped: stop first");
		return -EBUSY;
	}
	if (a[EVT_A_EVENTS]) {
		ret = evt_nl_events(a[EVT_A_EVENTS], info->extack, false);
		if (ret)
			return ret;
		evt_nl_events(a[EVT_A_EVENTS], info->extack, true);
	}
	if (a[EVT_A_MODE])
		evt_set_mode(nla_get_u8(a[EVT_A_MODE]));
	if (a[EVT_A_HIGH_WATER])
		evt_set_high_water(nla_get_u32(a[EVT_A_HIGH_WATER]));
	if (a[EVT_A_FLUSH_MS])
		evt_set_flush_ms(nla_get_u32(a[EVT_A_FLUSH_MS]));
	return 0;
}

static int evt_nl_generate(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct evt_gen_params p = EVT_GEN_PARAMS_DEFAULT;
	cpumask_var_t cpus;
	int ret;

	if (a[EVT_A_GEN_EVENTS])
		p.events = nla_get_u64(a[EVT_A_GEN_EVENTS]);
	if (a[EVT_A_GEN_RATE])
		p.rate = nla_get_u32(a[EVT_A_GEN_RATE]);
	if (a[EVT_A_GEN_CHANNELS])
		p.channels = nla_get_u8(a[EVT_A_GEN_CHANNELS]);
	if (a[EVT_A_GEN_SIZES])
		p.mix = nla_get_u8(a[EVT_A_GEN_SIZES]);
	/* NR_CPUS bits (1 KiB on Debian's kernels): not on the stack. */
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(cpus, cpu_possible_mask);
	ret = -EINVAL;
	if (a[EVT_A_GEN_CPUS]) {
		const char *s = nla_data(a[EVT_A_GEN_CPUS]);

		if (strcmp(s, "all") && cpulist_parse(s, cpus)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[EVT_A_GEN_CPUS],
					    "bad CPU list: use e.g. 0-3,6 or all");
			goto out;
		}
	}
	if (!cpumask_intersects(cpus, cpu_online_mask)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EVT_A_GEN_CPUS],
				    "none of the CPUs asked for is online");
		goto out;
	}
	ret = evt_gen_start(&p, cpus);
	if (ret)
		GENL_SET_ERR_MSG(info, "cannot start the generator threads");
out:
	free_cpumask_var(cpus);
	return ret;
}

static int evt_nl_generate_stop(struct sk_buff *skb, struct genl_info *info)
{
	evt_gen_stop();
	return 0;
}

static int evt_nl_timer(struct sk_buff *skb, struct genl_info *info)
{
	if (!info->attrs[EVT_A_TIMER_PERIOD_US]) {
		GENL_SET_ERR_MSG(info, "TIMER needs TIMER_PERIOD_US");
		return -EINVAL;
	}
	evt_timer_start(nla_get_u32(info->attrs[EVT_A_TIMER_PERIOD_US]));
	return 0;
}

static int evt_nl_timer_stop(struct sk_buff *skb, struct genl_info *info)
{
	evt_timer_stop();
	return 0;
}

/*
 * Test hook (debugfs "status_fake_cpus", root only): STATUS also reports a
 * ring per channel for this many fake CPUs, numbered from nr_cpu_ids (no
 * such CPU exists), in EVT_A_FAKE_RINGS with EVT_R_FAKE set, so that a test
 * can see what a machine with that many more CPUs would get.
 */
#define EVT_FAKE_CPUS_MAX 4096
static u32 evt_status_fake_cpus;

static int evt_fake_cpus_get(void *data, u64 *val)
{
	*val = READ_ONCE(evt_status_fake_cpus);
	return 0;
}

static int evt_fake_cpus_set(void *data, u64 val)
{
	if (val > EVT_FAKE_CPUS_MAX)
		return -EINVAL;
	WRITE_ONCE(evt_status_fake_cpus, val);
	if (val)
		pr_info("test hook: STATUS reports the rings of %llu fake CPUs (from CPU %u)\n",
			val, nr_cpu_ids);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(evt_fake_cpus_fops, evt_fake_cpus_get, evt_fake_cpus_set, "%llu\n");

/* A fake ring's figures: made up, but each one distinct and checkable. */
static void evt_fake_ring_stats(unsigned int ch, unsigned int cpu, struct evt_ring_stats *st)
{
	/* Above 2^32, 16 per ring: counter k of a ring is its first + k. */
	u64 next = (1ULL << 32) + (u64)cpu * 32 + ch * 16;

#define EVT_FAKE_COUNTER(field, attr, width) st->field = next++;
	EVT_RING_COUNTERS(EVT_FAKE_COUNTER)
#undef EVT_FAKE_COUNTER
	st->fill_pct = (cpu + ch) % 101;
	st->online = 0;
}

/* A ring's entry; @cr (a real ring, else NULL) adds its holds. */
static int evt_put_ring(struct sk_buff *skb, unsigned int ch, unsigned int cpu,
			const struct evt_ring_stats *st, struct evt_cpu_ring *cr)
{
	struct nlattr *n = nla_nest_start(skb, EVT_A_RING);
	struct evt_ring_holds h = {};

	if (!n)
		return -EMSGSIZE;
	if (cr)
		evt_snapshot_ring_holds(cr, &h);
	if (nla_put_u8(skb, EVT_R_CHANNEL, ch) ||
	    nla_put_u32(skb, EVT_R_CPU, cpu) ||
	    nla_put_u8(skb, EVT_R_ONLINE, st->online) ||
#define EVT_PUT_COUNTER(field, attr, width) \
	    nla_put_u64_64bit(skb, EVT_R_##attr, st->field, EVT_R_PAD) ||
	    EVT_RING_COUNTERS(EVT_PUT_COUNTER)
#undef EVT_PUT_COUNTER
	    nla_put_u32(skb, EVT_R_FILL, st->fill_pct) ||
	    (!cr && nla_put_u8(skb, EVT_R_FAKE, 1)) ||
	    (cr && nla_put_u64_64bit(skb, EVT_R_UNANSWERED, atomic64_read(&cr->flush_unanswered),
				     EVT_R_PAD)) ||
	    (h.since[EVT_HOLD_SNAPSHOT] &&
	     nla_put_u64_64bit(skb, EVT_R_HELD_SNAPSHOT, h.since[EVT_HOLD_SNAPSHOT], EVT_R_PAD)) ||
	    (h.since[EVT_HOLD_TRIGGER] &&
	     nla_put_u64_64bit(skb, EVT_R_HELD_TRIGGER, h.since[EVT_HOLD_TRIGGER], EVT_R_PAD))) {
		nla_nest_cancel(skb, n);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	return 0;
}

static int evt_put_real_ring(struct sk_buff *skb, struct evt_cpu_ring *cr)
{
	struct evt_ring_stats st;

	evt_ring_stats(&cr->ring, &st);
	st.online = READ_ONCE(cr->online);
	return evt_put_ring(skb, cr->channel, cr->cpu, &st, cr);
}

/* The kept trigger, in the first STATUS message: its rings' holds are in theirs. */
static int evt_put_kept_trigger(struct sk_buff *skb)
{
	struct evt_trigger_kept k;

	evt_snapshot_kept(&k);
	if (!k.t.seq)
		return 0;
	if (nla_put_u64_64bit(skb, EVT_A_TRIGGER_SEQ, k.t.seq, EVT_A_PAD) ||
	    nla_put_u8(skb, EVT_A_TRIGGER_REASON, k.t.reason) ||
	    nla_put_u64_64bit(skb, EVT_A_TRIGGER_TS, k.t.ts, EVT_A_PAD) ||
	    (k.release_ts && nla_put_u64_64bit(skb, EVT_A_TRIGGER_RELEASE_TS, k.release_ts, EVT_A_PAD)) ||
	    nla_put_u8(skb, EVT_A_TRIGGER_EXPIRED, k.expired))
		return -EMSGSIZE;
	return 0;
}

/* The first STATUS message: state, configuration, the kept trigger, the event catalogue. */
static int evt_put_config(struct sk_buff *skb)
{
	struct nlattr *list, *n;
	unsigned int i;

	if (evt_put_kept_trigger(skb) ||
	    nla_put_u8(skb, EVT_A_TRACING, READ_ONCE(evt_tracing)) ||
	    nla_put_u8(skb, EVT_A_MODE, evt.mode) ||
	    nla_put_u32(skb, EVT_A_HIGH_WATER, evt.high_water) ||
	    nla_put_u32(skb, EVT_A_FLUSH_MS, evt.flush_ms) ||
	    nla_put_u64_64bit(skb, EVT_A_SUBBUF_SIZE, evt.subbuf_size, EVT_A_PAD) ||
	    nla_put_u64_64bit(skb, EVT_A_NUM_SUBBUF, evt.num_subbuf, EVT_A_PAD))
		return -EMSGSIZE;
	list = nla_nest_start(skb, EVT_A_EVENTS);
	if (!list)
		return -EMSGSIZE;
	/* Switches: each event's, and one for every syscall entry (sys_*). */
	for (i = 0; i < evt_nr_switches; i++) {
		n = nla_nest_start(skb, EVT_A_EVENT);
		if (!n || nla_put_string(skb, EVT_EV_NAME, evt_switch_name(i)) ||
		    nla_put_u8(skb, EVT_EV_ENABLED, evt_switch_on(i)) ||
		    nla_put_u8(skb, EVT_EV_CHANNEL, evt_events[i].channel) ||
		    nla_put_u8(skb, EVT_EV_STACK, i + 1 < evt_nr_switches && evt_stack_of(&evt_events[i])))
			return -EMSGSIZE;
		nla_nest_end(skb, n);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int evt_put_gen(struct sk_buff *skb, int cpu)
{
	struct evt_gen_info g;
	struct nlattr *n;

	evt_gen_info(cpu, &g);
	n = nla_nest_start(skb, EVT_A_GEN);
	if (!n || nla_put_u32(skb, EVT_G_CPU, cpu) ||
	    nla_put_u8(skb, EVT_G_RUNNING, g.running) ||
	    nla_put_u8(skb, EVT_G_DONE, g.done) ||
	    nla_put_u64_64bit(skb, EVT_G_COMPACT, g.generated[EVT_CHAN_COMPACT], EVT_G_PAD) ||
	    nla_put_u64_64bit(skb, EVT_G_NORMAL, g.generated[EVT_CHAN_NORMAL], EVT_G_PAD) ||
	    nla_put_u64_64bit(skb, EVT_G_TIMER, g.timer, EVT_G_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, n);
	return 0;
}

/*
 * STATUS is a dump (see <evtrace/netlink.h>): the first message holds the
 * state, the configuration and the events (as many as the catalogue), then
 * one message per ring, per possible CPU's generator, per fake ring. No
 * message or nest grows with the number of CPUs, and what one request costs
 * the kernel is the dump's buffer, whoever asks. The cursor lives in cb->ctx
 * between the rounds of a dump.
 */
enum evt_status_part {
	EVT_ST_CONFIG, EVT_ST_FILTER, EVT_ST_RINGS, EVT_ST_GENS, EVT_ST_FAKE, EVT_ST_END
};

struct evt_status_cursor {
	unsigned int part;		/* enum evt_status_part */
	unsigned int pos;		/* entry within the part */
	unsigned int nfake;		/* fake CPUs, as the first message found them */
};

static_assert(sizeof(struct evt_status_cursor) <= sizeof_field(struct netlink_callback, ctx));

/* Move @c to the next entry that exists; false past the last one. */
static bool evt_status_seek(struct evt_status_cursor *c)
{
	for (;;) {
		switch (c->part) {
		case EVT_ST_CONFIG:
			if (!c->pos)
				return true;
			break;
		case EVT_ST_FILTER:
			if (!c->pos && evt_filter_active())
				return true;
			break;
		case EVT_ST_RINGS:
			for (; c->pos < EVT_NR_CHANNELS * nr_cpu_ids; c->pos++)
				if (evt_get_ring(c->pos / nr_cpu_ids, c->pos % nr_cpu_ids))
					return true;
			break;
		case EVT_ST_GENS:
			c->pos = cpumask_next((int)c->pos - 1, cpu_possible_mask);
			if (c->pos < nr_cpu_ids)
				return true;
			break;
		case EVT_ST_FAKE:
			if (c->pos < EVT_NR_CHANNELS * c->nfake)
				return true;
			break;
		default:
			return false;
		}
		c->part++;
		c->pos = 0;
	}
}

/*
 * The body of the message for the entry at @c, in a list of one entry.
 * @admin: the caller has CAP_NET_ADMIN (the filter's names and paths are
 * theirs to see; anyone else learns how many there are).
 */
static int evt_status_fill(struct sk_buff *skb, struct evt_status_cursor *c, bool admin)
{
	struct evt_ring_stats st;
	struct nlattr *list;
	unsigned int ch, cpu;
	int ret;

	switch (c->part) {
	case EVT_ST_CONFIG:
		c->nfake = READ_ONCE(evt_status_fake_cpus);
		return evt_put_config(skb);
	case EVT_ST_FILTER:
		return evt_filter_put_status(skb, admin);
	case EVT_ST_RINGS:
		list = nla_nest_start(skb, EVT_A_RINGS);
		if (!list)
			return -EMSGSIZE;
		ret = evt_put_real_ring(skb, evt_get_ring(c->pos / nr_cpu_ids,
							  c->pos % nr_cpu_ids));
		break;
	case EVT_ST_GENS:
		list = nla_nest_start(skb, EVT_A_GENS);
		if (!list)
			return -EMSGSIZE;
		ret = evt_put_gen(skb, c->pos);
		break;
	case EVT_ST_FAKE:
		list = nla_nest_start(skb, EVT_A_FAKE_RINGS);
		if (!list)
			return -EMSGSIZE;
		ch = c->pos / c->nfake;
		cpu = nr_cpu_ids + c->pos % c->nfake;
		evt_fake_ring_stats(ch, cpu, &st);
		ret = evt_put_ring(skb, ch, cpu, &st, NULL);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	nla_nest_end(skb, list);
	return 0;
}

static int evt_nl_status_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct evt_status_cursor *c = (void *)cb->ctx;
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	void *hdr;

	while (evt_status_seek(c)) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &evt_genl_family, NLM_F_MULTI, EVT_CMD_STATUS);
		if (!hdr)
			break;
		if (evt_status_fill(skb, c, admin)) {
			/* The buffer is full: this entry opens the next round. */
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		c->pos++;
	}
	/* An entry larger than an empty buffer would never be sent. */
	if (!skb->len && c->part != EVT_ST_END) {
		NL_SET_ERR_MSG(cb->extack, "a STATUS entry does not fit in a message");
		return -EMSGSIZE;
	}
	return skb->len;
}

/* Version 1's single reply: gone, since it did not fit large machines. */
static int evt_nl_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	GENL_SET_ERR_MSG(info, "STATUS is a dump since version 2 of the family: set NLM_F_DUMP");
	return -EOPNOTSUPP;
}

/*
 * SNAPSHOT (see <evtrace/netlink.h>): per ring, flush, then report the
 * packet_seq_num of the sub-buffer open now. Every sub-buffer before it was
 * switched out, so a reader that stops there reads only closed packets and
 * terminates whatever the writer does meanwhile. A round that runs out of
 * room flushes its last ring again at the next round: a later bound, as
 * good. The holds are the snapshot unit's (evtrace_snapshot.c). The cursor
 * (cb->ctx) is the index of the next ring.
 */
enum { EVT_SNAPSHOT_NOW = 1, EVT_SNAPSHOT_TRIGGER };

static int evt_nl_snapshot_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long *pos = (unsigned long *)cb->ctx;
	/* 0 before the first round, then EVT_SNAPSHOT_NOW or EVT_SNAPSHOT_TRIGGER */
	unsigned long *kind = pos + 1;
	struct evt_flush_result res;
	struct evt_cpu_ring *cr;
	bool trigger;
	void *hdr;
	int ret;

	if (!*kind) {
		/* The policy checked it: a u64, if there. */
		const struct nlattr *seq = nlmsg_find_attr(cb->nlh, GENL_HDRLEN, EVT_A_TRIGGER_SEQ);

		if (seq && (ret = evt_snapshot_trigger_check(nla_get_u64(seq), cb->extack)))
			return ret;
		*kind = seq ? EVT_SNAPSHOT_TRIGGER : EVT_SNAPSHOT_NOW;
	}
	trigger = *kind == EVT_SNAPSHOT_TRIGGER;
	for (; *pos < EVT_NR_CHANNELS * nr_cpu_ids; (*pos)++) {
		cr = evt_get_ring(*pos / nr_cpu_ids, *pos % nr_cpu_ids);
		if (!cr)
			continue;
		res = (struct evt_flush_result){};
		if (trigger) {
			/* Flushed and held when the trigger fired; rings newer than it have none. */
			if (!evt_snapshot_trigger_bound(cr, &res))
				continue;
		} else {
			/* Held until read, closed, or expired (a requester that never reads). */
			evt_snapshot_take(cr, &res);
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &evt_genl_family, NLM_F_MULTI, EVT_CMD_SNAPSHOT);
		if (!hdr)
			break;
		if (nla_put_u8(skb, EVT_A_CHANNEL, cr->channel) ||
		    nla_put_u32(skb, EVT_A_CPU, cr->cpu) ||
		    nla_put_u64_64bit(skb, EVT_A_SNAPSHOT_SEQ, res.bound, EVT_A_PAD) ||
		    (res.unanswered &&
		     nla_put_u64_64bit(skb, EVT_A_SNAPSHOT_LEFT_OUT, res.left_out, EVT_A_PAD))) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	if (!skb->len && *pos < EVT_NR_CHANNELS * nr_cpu_ids) {
		NL_SET_ERR_MSG(cb->extack, "a SNAPSHOT entry does not fit in a message");
		return -EMSGSIZE;
	}
	return skb->len;
}

static int evt_nl_snapshot_doit(struct sk_buff *skb, struct genl_info *info)
{
	GENL_SET_ERR_MSG(info, "SNAPSHOT is a dump (one message per ring): set NLM_F_DUMP");
	return -EOPNOTSUPP;
}

#define EVT_OP(c, fn, pol, fl) {						\
	.cmd = (c), .doit = (fn), .policy = (pol),				\
	.maxattr = ARRAY_SIZE(pol) - 1, .flags = (fl),				\
}

static const struct genl_ops evt_genl_ops[] = {
	EVT_OP(EVT_CMD_START, evt_nl_start, evt_no_attrs_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_STOP, evt_nl_stop, evt_no_attrs_policy, GENL_ADMIN_PERM),
	/* Counters and configuration only: readable by anyone. */
	{
		.cmd = EVT_CMD_STATUS,
		.doit = evt_nl_status_doit,
		.dumpit = evt_nl_status_dump,
		.policy = evt_no_attrs_policy,
		.maxattr = ARRAY_SIZE(evt_no_attrs_policy) - 1,
	},
	EVT_OP(EVT_CMD_CONFIG, evt_nl_config, evt_config_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_FLUSH, evt_nl_flush, evt_no_attrs_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_GENERATE, evt_nl_generate, evt_generate_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_GENERATE_STOP, evt_nl_generate_stop, evt_no_attrs_policy,
	       GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_TIMER, evt_nl_timer, evt_timer_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_TIMER_STOP, evt_nl_timer_stop, evt_no_attrs_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_ROTATE, evt_nl_rotate, evt_no_attrs_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_STATEDUMP, evt_nl_statedump, evt_no_attrs_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_TRACK, evt_nl_track, evt_track_policy, GENL_ADMIN_PERM),
	EVT_OP(EVT_CMD_UNTRACK, evt_nl_untrack, evt_untrack_policy, GENL_ADMIN_PERM),
	/* Flushes every ring: as FLUSH, for CAP_NET_ADMIN only, dump or not. */
	{
		.cmd = EVT_CMD_SNAPSHOT,
		.doit = evt_nl_snapshot_doit,
		.dumpit = evt_nl_snapshot_dump,
		.policy = evt_snapshot_policy,
		.maxattr = ARRAY_SIZE(evt_snapshot_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group evt_genl_mcgrps[] = {
	{ .name = EVT_GENL_MCGRP_NOTIFY },
};

static struct genl_family evt_genl_family __ro_after_init = {
	.name = EVT_GENL_NAME,
	.version = EVT_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = evt_genl_ops,
	.n_ops = ARRAY_SIZE(evt_genl_ops),
	/*
	 * resv_start_op stays 0: commands below it are legacy to the core,
	 * which then skips checking the genl header's reserved field and the
	 * nlmsg_flags. From 0, every command gets those checks; attributes
	 * are parsed strictly as no op sets GENL_DONT_VALIDATE_*.
	 */
	.mcgrps = evt_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(evt_genl_mcgrps),
};

/**
 * evt_nl_init() - register the generic netlink family and the test hook
 *
 * Last in module init: the handlers use every other part of the module.
 * The hook file status_fake_cpus goes into the module's debugfs directory,
 * found by name (it exists by now), and goes away with it at exit.
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int evt_nl_init(void)
{
	struct dentry *dir;
	int ret;

	ret = genl_register_family(&evt_genl_family);
	if (ret)
		return ret;
	evt_notify_start(&evt_genl_family);
	/* No debugfs (or no directory): no hook, nothing else is lost. */
	dir = debugfs_lookup("evtrace", NULL);
	if (!IS_ERR_OR_NULL(dir)) {
		debugfs_create_file_unsafe("status_fake_cpus", 0600, dir, NULL,
					   &evt_fake_cpus_fops);
		dput(dir);
	}
	return 0;
}

/**
 * evt_nl_exit() - unregister the family, first in module exit
 *
 * No command runs after this (unregistering waits for handlers in flight; a
 * STATUS dump between two rounds holds a module reference, so exit cannot
 * begin while one is open), and no notification is queued or sent any more.
 */
void evt_nl_exit(void)
{
	/* Notifications end while the family exists. */
	evt_notify_stop();
	genl_unregister_family(&evt_genl_family);
}

