#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-record: the in-kernel side-by-side loop; with a
# baseline module (second argument), both in turn, twice, in this one boot.
set -e
n=${1:-2000000}
base=${2:-}
for round in 1 2; do
	for label in this ${base:+baseline}; do
		ko=$EVTRACE_KO
		[ "$label" = this ] || ko=$base
		insmod "$ko"
		echo "$n" > /sys/kernel/debug/evtrace/bench
		cat /sys/kernel/debug/evtrace/bench > "$OUT/bench-$label-$round.txt"
		rmmod evtrace
	done
done
cat "$OUT/bench-this-1.txt"
