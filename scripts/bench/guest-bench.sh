#!/bin/sh
# Guest side of scripts/bench-record: the in-kernel side-by-side loop.
set -e
insmod "$EVTRACE_KO"
echo "${1:-2000000}" > /sys/kernel/debug/evtrace/bench
cat /sys/kernel/debug/evtrace/bench | tee "$OUT/bench.txt"
rmmod evtrace
