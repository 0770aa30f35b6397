#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2 4
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-evdrain.sh"
"$evtest" check "$out/trace" --gen-events 15000 --exact
n=$((15000 * 2 * SMP))
bt=$(bt_count "$out/trace")
[ "$bt" = "$n" ] || die "babeltrace2 counted '$bt' events, the generator made $n"
warn=$(babeltrace2 "$out/trace" 2>&1 >/dev/null | grep -c WARNING || true)
[ "$warn" = 0 ] || die "babeltrace2 warned"
grep -q '"recorded": '"$n" "$out/summary.json" || die "summary JSON lacks the total"
echo "evdrain: $n events, every (cpu, seq) once, babeltrace2 agrees without warnings"
