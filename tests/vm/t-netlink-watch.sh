#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: control
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-netlink-watch.sh"
echo "evctl watch: HIGH_WATER, DISCARDING, FLUSHED, CPU_OFFLINE/ONLINE and STOPPED arrive"
