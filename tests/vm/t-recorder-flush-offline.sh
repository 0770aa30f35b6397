#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2 4
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 "$here/guest-flush-offline.sh"
recorded=$(stats_sum "$out/stats" 4)
read_back=$(bt_count "$out/trace")
[ "$read_back" = "$recorded" ] || die "babeltrace2 read $read_back events, the module recorded $recorded"
echo "every recorded event is in the trace ($recorded); rings delivered after every replug"
