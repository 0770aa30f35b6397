#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: recorder
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-overwrite.sh"
cmp "$out/trace/held.bin" "$out/trace/held-end.bin" || die "the held sub-buffer changed while held"
"$evtest" check "$out/trace" > "$out/check" || { tail -n 5 "$out/check"; die "evtest check fails"; }
read_back=$(sed -n 's/^total events \([0-9]*\).*/\1/p' "$out/check")
gaps=$(sed -n 's/^packets lost //p' "$out/check")
recorded=$(stats_sum "$out/stats" 4 compact)
overwritten=$(stats_sum "$out/stats" 6 compact)
# Everything recorded was either read (the held packet included) or overwritten.
[ $((read_back + overwritten)) = "$recorded" ] ||
	die "read $read_back + overwritten $overwritten != recorded $recorded"
bt=$(bt_count "$out/trace")
[ "$bt" = "$read_back" ] || die "babeltrace2 counted '$bt', evtest read $read_back"
# The packets overwritten are gaps in the sequence numbers: babeltrace2
# reports as many lost packets as the files have gaps, and there are some.
btp=$(babeltrace2 "$out/trace" 2>&1 >/dev/null | grep -o 'discarded [0-9]* packets\?' | awk '{ s += $2 } END { print s + 0 }')
[ "$gaps" -gt 0 ] || die "no packet lost in overwrite mode: the ring was never lapped"
[ "$btp" = "$gaps" ] || die "babeltrace2 reports $btp lost packets, the files have $gaps sequence gaps"
echo "held packet intact; read $read_back + overwritten $overwritten = recorded $recorded; $gaps packets lost = babeltrace2's"
