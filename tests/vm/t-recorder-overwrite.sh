#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2 4
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-overwrite.sh"
cmp "$out/trace/held.bin" "$out/trace/held-end.bin" || die "the held sub-buffer changed while held"
"$evtest" check "$out/trace"
read_back=$("$evtest" check "$out/trace" | sed -n 's/^total events \([0-9]*\).*/\1/p')
recorded=$(stats_sum "$out/stats" 4 compact)
overwritten=$(stats_sum "$out/stats" 6 compact)
# Everything recorded was either read (the held packet included) or overwritten.
[ $((read_back + overwritten)) = "$recorded" ] ||
	die "read $read_back + overwritten $overwritten != recorded $recorded"
bt=$(bt_count "$out/trace")
[ "$bt" = "$read_back" ] || die "babeltrace2 counted '$bt', evtest read $read_back"
babeltrace2 "$out/trace" 2>&1 >/dev/null | grep -q 'packets' || die "babeltrace2 reports no lost packets"
echo "held packet intact; read $read_back + overwritten $overwritten = recorded $recorded"
