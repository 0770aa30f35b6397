#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: windows
set -eu
. "$(dirname "$0")/hostlib.sh"
kdir=${EVTRACE_VM_KDIR:-$("$top/scripts/find-kdir")}
ko=$(EVTRACE_KMOD_DIR="$top/build/kmod-windows" "$top/scripts/build-module" "$kdir" EVT_TEST_WINDOWS=y)
vm --module "$ko" "$here/guest-quiescent-window.sh"
lines=$(wc -l < "$out/live.json")
recorded=$(stats_sum "$out/stats" 4)
[ "$lines" = "$recorded" ] || die "evdrain --live printed $lines events, the module recorded $recorded"
echo "every recorded event printed live ($lines), none late"
