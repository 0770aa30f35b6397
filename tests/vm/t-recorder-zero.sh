#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 --append init_on_alloc=0 "$here/guest-zero.sh"
for t in evdrain evtest; do
	"$top/build/tests/bin/evzero" "$out/$t" DIRT-PATTERN || die "$t: bytes that are not the trace's"
	[ "$(bt_count "$out/$t")" -gt 0 ] || die "$t: babeltrace2 reads no event"
done
echo "every byte outside headers and events is zero; the dirt pattern is nowhere"
