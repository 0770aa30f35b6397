#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2 4
# evctl snapshot: see guest-snapshot.sh. Here: each snapshot read alone by
# babeltrace2, evcat and evtest; no generator event in two snapshots; the
# events saved add up to the module's counters.
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-snapshot.sh"
S=$out/snap
for d in "$S"/*; do
	n=$(basename "$d")
	babeltrace2 "$d" > /dev/null 2> "$out/bt.err" || { cat "$out/bt.err"; die "babeltrace2 cannot read snapshot $n alone"; }
	grep -qi 'error' "$out/bt.err" && { cat "$out/bt.err"; die "babeltrace2 reports an error on snapshot $n"; }
	"$evtest" check "$d" > /dev/null || die "evtest check fails on snapshot $n"
	ev=$("$top/build/bin/evcat" "$d" --count) || die "evcat cannot read snapshot $n"
	bt=$(bt_count "$d")
	[ "${bt:-0}" = "$ev" ] || die "snapshot $n: babeltrace2 counts '${bt:-0}', evcat $ev"
	"$top/build/bin/evcat" "$d" --format json > "$out/$n.json" || die "evcat --format json on $n"
	echo "snapshot $n: $ev events"
done
[ "$("$top/build/bin/evcat" "$S/empty" --count)" = 0 ] || die "the empty snapshot holds events"
python3 "$here/snapshot-check.py" "$out" steady.json steady1 steady2 steady3
python3 "$here/snapshot-check.py" "$out" status.json s1 s2 s3 s4 s5 s6 --discard discard
