#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: recorder
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-hrtimer.sh"
"$evtest" check "$out/trace"
recorded=$(stats_sum "$out/stats" 4)
read_back=$("$evtest" check "$out/trace" | sed -n 's/^total events \([0-9]*\).*/\1/p')
[ "$read_back" = "$recorded" ] || die "recorded $recorded, read back $read_back"
[ "$(bt_count "$out/trace")" = "$recorded" ] || die "babeltrace2 disagrees"
echo "timer + generator: $recorded events, all read back, generator complete"
