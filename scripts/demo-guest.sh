#!/bin/sh
# Guest side of `make demo`: load evtrace, record a small workload (the
# generator on every CPU plus an hrtimer in interrupt context), drain it to
# $OUT/trace as a CTF trace.
set -e
D=/sys/kernel/debug/evtrace
insmod "$EVTRACE_KO" flush_ms=200
dmesg | grep 'evtrace: loaded'
evtest drain "$OUT/trace" --splice &
pid=$!
echo start > $D/control
echo "start 1000" > $D/timer
echo "events=5000 rate=5000 channel=both sizes=mix" > $D/generate
while grep -q ' 1 0 ' $D/generate; do sleep 1; done
echo stop > $D/timer
echo stop > $D/control
sleep 1
kill -TERM $pid
wait $pid
echo "--- evtrace statistics"
cat $D/stats
rmmod evtrace
