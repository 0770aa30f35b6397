#!/bin/sh
# Real kernel events: trace `ls /` between two markers; then switch syscall
# events off and on while tracing; then unload while probes fire.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" flush_ms=200
evdrain -q -o "$OUT/trace" &
pid=$!
wait_tracing
echo "before ls" > /dev/evtrace/marker
/usr/local/bin/ls / > /dev/null
echo "after ls" > /dev/evtrace/marker
evctl disable sys_enter sys_exit
echo "syscalls off" > /dev/evtrace/marker
/usr/local/bin/ls / > /dev/null
echo "syscalls on" > /dev/evtrace/marker
evctl enable sys_enter sys_exit
/usr/local/bin/ls / > /dev/null
# Markers: too long is refused, writing needs root.
if head -c 2000 /dev/zero | tr '\0' x > /dev/evtrace/marker 2>/dev/null; then fail "a 2000-byte marker was accepted"; fi
ls -l /dev/evtrace/marker
sleep 1
kill -TERM $pid
wait $pid || fail "evdrain exit $?"
cp $D/stats "$OUT/stats"
# Unload while probes fire.
evctl start
(while :; do /usr/local/bin/ls / > /dev/null; done) &
busy=$!
sleep 2
rmmod evtrace
kill $busy
test ! -d /sys/module/evtrace || fail "still loaded"
echo events ok
