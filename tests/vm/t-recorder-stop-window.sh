#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: windows
set -eu
. "$(dirname "$0")/hostlib.sh"
# The fault-injection build, against the kernel the VM boots.
kdir=${EVTRACE_VM_KDIR:-$("$top/scripts/find-kdir")}
ko=$(EVTRACE_KMOD_DIR="$top/build/kmod-windows" "$top/scripts/build-module" "$kdir" EVT_TEST_WINDOWS=y)
vm --module "$ko" "$here/guest-stop-window.sh"

# The state dumps asked for just before STOP: each trace (a rotation's last
# chunk) holds lttng_statedump_start and lttng_statedump_end. All are read
# before the verdict, so that a failure shows which.
nodump=""
whole_dump() { # TRACE
	local n
	n=$(babeltrace2 "$1" 2> /dev/null | awk '/ lttng_statedump_start: / { s++ } / lttng_statedump_end: / { e++ } END { print s + 0, e + 0 }')
	echo "$(basename "$1"): lttng_statedump_start, _end: $n"
	[ "$n" = "1 1" ] || nodump="$nodump $(basename "$1")"
}
tar -C "$out" -xf "$out/dumps.tar"
whole_dump "$out/dumpstop"
chunks=$(ls "$out/dumprot" | grep -E '^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9]+$' | sort -t- -k3,3n)
# (The chunk after the cut holds its state dump alone: without it, there is no such chunk.)
[ "$(echo "$chunks" | wc -l)" = 2 ] || die "evctl rotate then STOP made chunks '$chunks', not 2: the last chunk's state dump is missing"
for c in $chunks; do whole_dump "$out/dumprot/$c"; done
[ -z "$nodump" ] || die "no whole state dump (want one start and one end) in:$nodump"
echo "each trace stopped during its state dump holds it whole"
