#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-boot: recorder
# (vm-smp: at 4 vCPUs only: CPU 1 goes offline and comes back while three other CPUs write and
# flush at once; at 2, CPU 0 alone would be left, with no concurrency against the offline flush.)
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 "$here/guest-flush-offline.sh"
recorded=$(stats_sum "$out/stats" 4)
read_back=$(bt_count "$out/trace")
[ "$read_back" = "$recorded" ] || die "babeltrace2 read $read_back events, the module recorded $recorded"
echo "every recorded event is in the trace ($recorded); rings delivered after every replug"
