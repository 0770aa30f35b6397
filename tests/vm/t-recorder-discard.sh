#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: recorder
# Discard mode, no reader: exact accounting per CPU (checked in the guest);
# on the host, everything recorded reads back, babeltrace2 agrees on the
# count and reports exactly the discarded events.
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-discard.sh"
"$evtest" check "$out/trace"
recorded=$(stats_sum "$out/stats" 4)
discarded=$(stats_sum "$out/stats" 5)
read_back=$("$evtest" check "$out/trace" | sed -n 's/^total events \([0-9]*\).*/\1/p')
[ "$recorded" = "$read_back" ] || die "recorded $recorded, read back $read_back"
bt=$(bt_count "$out/trace")
[ "$bt" = "$recorded" ] || die "babeltrace2 counted '$bt' events, the tracer recorded $recorded"
btd=$(bt_discarded "$out/trace")
[ "$btd" = "$discarded" ] || die "babeltrace2 reports $btd discarded, the tracer counted $discarded"
echo "recorded $recorded = read back = babeltrace2; discarded $discarded = babeltrace2's"
