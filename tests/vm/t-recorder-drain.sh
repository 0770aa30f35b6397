#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: recorder
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-drain.sh"
"$evtest" check "$out/trace" --gen-events 12000 --exact
recorded=$(stats_sum "$out/stats" 4)
bt=$(bt_count "$out/trace")
[ "$bt" = "$recorded" ] || die "babeltrace2 counted '$bt' events, the tracer recorded $recorded"
echo "every (cpu, seq) exactly once; $recorded events; babeltrace2 agrees"
