#!/usr/bin/env bash
# vm-smp: 2
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-netlink-watch.sh"
echo "evctl watch: HIGH_WATER, DISCARDING, FLUSHED, CPU_OFFLINE/ONLINE and STOPPED arrive"
