#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: evdrain
set -euo pipefail
. "$(dirname "$0")/hostlib.sh"
vm --timeout 400 "$here/guest-evdrain-modes.sh"
# Discard: babeltrace2's discarded warnings add up to the module's counter.
"$evtest" check "$out/discard"
disc=$(stats_sum "$out/discard.stats" 5)
rec=$(stats_sum "$out/discard.stats" 4)
btd=$(bt_discarded "$out/discard")
[ "$btd" = "$disc" ] || die "babeltrace2 reports $btd discarded, the module counted $disc"
[ "$(bt_count "$out/discard")" = "$rec" ] || die "babeltrace2 count != recorded $rec"
echo "discard: recorded $rec + discarded $disc = generated; babeltrace2 agrees"
# Overwrite: the trace decodes strictly (evtest's status, not only its
# "packets lost" line, which it prints on errors too), and babeltrace2's lost
# packets match the sequence gaps in the files.
"$evtest" check "$out/overwrite" > "$out/overwrite.check" || { tail -n 5 "$out/overwrite.check"; die "evtest check fails on the overwrite trace"; }
gaps=$(sed -n 's/^packets lost //p' "$out/overwrite.check")
babeltrace2 "$out/overwrite" > /dev/null 2> "$out/overwrite.bt" || { tail -n 3 "$out/overwrite.bt"; die "babeltrace2 cannot read the overwrite trace"; }
btp=$(grep -o 'discarded [0-9]* packets\?' "$out/overwrite.bt" | awk '{ s += $2 } END { print s + 0 }')
echo "overwrite: $gaps packets lost in the files, babeltrace2 reports $btp"
[ "$gaps" -gt 0 ] || die "no packet lost in overwrite mode under overload"
[ "$btp" = "$gaps" ] || die "babeltrace2 reports $btp lost packets, the files have $gaps gaps"
# --duration: complete up to the stop, every seq from 0 with no hole.
"$evtest" check "$out/duration" --contiguous
[ "$(stats_sum "$out/duration.stats" 5)" = 0 ] || die "discarded during the --duration run"
echo "duration: complete"
