/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control API's internals (evt_ctl.c), private to lib/control: the
 * handle and the request plumbing that evt_ctl_cmd.c and evt_ctl_status.c
 * send through. evt_ctl.c calls neither of them.
 */
#ifndef EVT_CTL_PRIV_H
#define EVT_CTL_PRIV_H

#include <stdint.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include "control/evt_ctl.h"

struct evt_ctl {
	struct nl_sock *sk;		/* requests */
	struct nl_sock *nsk;		/* notifications, after subscribe */
	int family;
	unsigned int version;		/* the module's EVT_GENL_VERSION */
	int err;			/* last error, -errno */
	char extack[256];		/* the kernel's message for it */
	char msg[320];			/* what evt_ctl_errmsg returns */
};

/* Record -errno @err as the handle's error (its message: the kernel's, else strerror): @err. */
int evt_ctl_set_error(struct evt_ctl *c, int err);
/* A libnl error from a local call, recorded: its -errno. */
int evt_ctl_set_nlerror(struct evt_ctl *c, int nlerr);
/* A generic netlink socket, extended acks on, close-on-exec: NULL with *@err (-errno). */
struct nl_sock *evt_ctl_genl_socket(int *err);
/*
 * Send @msg (consumed) and wait for its ack (and its replies before that, to
 * @parse). Returns 0 or -errno; the error message is recorded.
 */
int evt_ctl_request(struct evt_ctl *c, struct nl_msg *msg,
		    int (*parse)(struct nl_msg *, void *), void *arg);
/* A message of command @cmd to the family: NULL when out of memory. */
struct nl_msg *evt_ctl_new_msg(struct evt_ctl *c, uint8_t cmd, int flags);

#endif /* EVT_CTL_PRIV_H */
