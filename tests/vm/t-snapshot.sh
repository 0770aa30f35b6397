#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: control
# evctl snapshot: see guest-snapshot.sh. Here: each snapshot read alone by
# babeltrace2, evcat and evtest; no generator event in two snapshots; the
# events saved add up to the module's counters.
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-snapshot.sh"
S=$out/snap
for d in "$S"/*; do
	read_alone "$d" "$(basename "$d")"
done
[ "$("$top/build/bin/evcat" "$S/empty" --count)" = 0 ] || die "the empty snapshot holds events"
python3 "$here/snapshot-check.py" "$out" steady.json steady1 steady2 steady3
python3 "$here/snapshot-check.py" "$out" status.json s1 s2 s3 s4 s5 s6 --discard discard
