#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-drain: the generator flat out on CPU 0
# (compact, default ring sizes) while evdrain, pinned to CPU 1, drains it:
# zero-copy, then --copy, ROUNDS times in turn. The module is loaded afresh
# for each run so that its counters are that run's alone.
set -e
secs=${1:-5}
rounds=${2:-3}
run() { # label round seconds evdrain-options
	label=$1 round=$2 s=$3
	shift 3
	insmod "$EVTRACE_KO" probes=0
	evctl generate --events 1000000000 --channel compact --cpus 0 --sizes fixed
	time -f "%U %S" -o /tmp/time taskset -c 1 evdrain -q -o /tmp/trace-$label --duration "$s" \
		--stats-json /tmp/$label.json "$@" || true
	evctl generate-stop
	bytes=$(sed -n 's/.*"bytes": \([0-9]*\), "dir".*/\1/p' /tmp/$label.json)
	disc=$(sed -n 's/.*"discarded": \([0-9]*\), "overwritten": [0-9]*}$/\1/p' /tmp/$label.json)
	rec=$(sed -n 's/.*"recorded": \([0-9]*\), "discarded": [0-9]*, "overwritten": [0-9]*}$/\1/p' /tmp/$label.json)
	cpu=$(awk '{ print $1 + $2 }' /tmp/time)
	[ "$round" = 0 ] || echo "$label $round $bytes $cpu $rec $disc" >> "$OUT/drain.txt"
	rm -rf /tmp/trace-$label
	rmmod evtrace
}
# Fresh guest memory is slow the first time it is touched (qemu backs it on
# demand): fault in the trace's worth of it first, so that the first method
# does not pay for it alone.
dd if=/dev/zero of=/tmp/warm bs=1M count=$((secs * 80)) 2>/dev/null || true
rm -f /tmp/warm
# Round 0 is a warm-up, not reported: under TCG the first pass through code
# (evdrain's, the kernel's sendfile and tmpfs paths) is translated first, a
# stall of tens of milliseconds that real hardware does not have and that a
# ring of 32 x 16 KiB (about 7 ms of this generator) does not cover.
run zerocopy 0 1
run copy 0 1 --copy
r=1
while [ "$r" -le "$rounds" ]; do
	run zerocopy "$r" "$secs"
	run copy "$r" "$secs" --copy
	r=$((r + 1))
done
