#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-boot: recorder
# (vm-smp: at 4 vCPUs only: CPU 1 cycles offline and online 50 times while the generator and the
# hrtimer write on the three others and the reader drains them all.)
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 "$here/guest-hotplug.sh"
# The cycles as the module saw them: an offline and an online notification
# per ring of CPU 1 each time (not the guest loop's own count).
for r in CPU_OFFLINE CPU_ONLINE; do
	for ch in compact normal; do
		n=$(grep -c "^$r channel=$ch cpu=1 " "$out/hotplug.watch" || true)
		[ "$n" = 50 ] || die "$n $r notifications for $ch cpu 1, not 50 (the module missed a transition)"
	done
done
[ "$(cat "$out/cycles")" = 50 ] || die "the guest ran $(cat "$out/cycles") cycles, not 50"
"$evtest" check "$out/trace" --contiguous
recorded=$(stats_sum "$out/stats" 4)
read_back=$("$evtest" check "$out/trace" | sed -n 's/^total events \([0-9]*\).*/\1/p')
[ "$read_back" = "$recorded" ] || die "recorded $recorded, read back $read_back"
[ "$(bt_count "$out/trace")" = "$recorded" ] || die "babeltrace2 disagrees"
echo "50 hotplug cycles: $recorded events recorded, all read back"
