#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: control
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 300 "$here/guest-netlink-restart.sh"
check_churned_traces
echo "150 stop/start cycles with every event enabled and a reader: still tracing exactly"
