#!/bin/sh
# Guest side of scripts/bench-drain: the generator flat out on CPU 0
# (compact, default ring sizes) while evdrain, pinned to CPU 1, drains it:
# zero-copy, then --copy. The module is loaded afresh for each method so
# that its counters are that run's alone.
set -e
secs=${1:-5}
run() { # label evdrain-options
	label=$1
	shift
	insmod "$EVTRACE_KO" probes=0
	evctl generate --events 1000000000 --channel compact --cpus 0 --sizes fixed
	time -f "%U %S" -o /tmp/time taskset -c 1 evdrain -q -o /tmp/trace-$label --duration "$secs" \
		--stats-json /tmp/$label.json "$@" || true
	evctl generate-stop
	bytes=$(sed -n 's/.*"bytes": \([0-9]*\), "dir".*/\1/p' /tmp/$label.json)
	disc=$(sed -n 's/.*"discarded": \([0-9]*\), "overwritten": [0-9]*}$/\1/p' /tmp/$label.json)
	rec=$(sed -n 's/.*"recorded": \([0-9]*\), "discarded": [0-9]*, "overwritten": [0-9]*}$/\1/p' /tmp/$label.json)
	cpu=$(awk '{ print $1 + $2 }' /tmp/time)
	echo "$label $bytes $cpu $rec $disc" >> "$OUT/drain.txt"
	rm -rf /tmp/trace-$label
	rmmod evtrace
}
# Fresh guest memory is slow the first time it is touched (qemu backs it on
# demand): fault in the trace's worth of it first, so that the first method
# does not pay for it alone.
dd if=/dev/zero of=/tmp/warm bs=1M count=$((secs * 60)) 2>/dev/null || true
rm -f /tmp/warm
run zerocopy
run copy --copy
