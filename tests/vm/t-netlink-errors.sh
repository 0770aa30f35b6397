#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: control
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-netlink-errors.sh"
echo "evctl: usage errors (2), kernel refusals with their message (1), no CAP_NET_ADMIN (1), watch time-out (3)"
