#!/bin/sh
# Guest side of scripts/bench-drain: one CPU generating flat out (compact,
# default ring sizes) while evdrain drains it, splice then --copy.
set -e
secs=${1:-5}
insmod "$EVTRACE_KO" probes=0
run() { # label evdrain-options
	label=$1
	shift
	evctl generate --events 1000000000 --channel compact --cpus 0 --sizes fixed
	time -f "%U %S" -o /tmp/time evdrain -q -o /tmp/trace-$label --duration "$secs" \
		--stats-json /tmp/$label.json "$@" || true
	evctl generate-stop
	bytes=$(sed -n 's/.*"bytes": \([0-9]*\), "dir".*/\1/p' /tmp/$label.json)
	disc=$(sed -n 's/.*"discarded": \([0-9]*\), "overwritten": [0-9]*}$/\1/p' /tmp/$label.json)
	rec=$(sed -n 's/.*"recorded": \([0-9]*\), "discarded": [0-9]*, "overwritten": [0-9]*}$/\1/p' /tmp/$label.json)
	cpu=$(awk '{ print $1 + $2 }' /tmp/time)
	echo "$label $bytes $cpu $rec $disc" >> "$OUT/drain.txt"
	rm -rf /tmp/trace-$label
}
run splice
run copy --copy
rmmod evtrace
