#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Real kernel events: trace `ls /` between two markers; then switch syscall
# events off and on while tracing; probes stay attached while wanted and are
# detached probe_linger_ms after they are not; then unload while probes fire.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" flush_ms=200 probe_linger_ms=500
evdrain -q -o "$OUT/trace" &
pid=$!
wait_tracing
attached() { sed -n 's/.* probes_attached \([0-9]*\).*/\1/p' "$D/stats"; }
# START sets tracing before it attaches the probes: wait for them.
probes_in() { [ "$(attached)" -ge 10 ]; }
wait_until 60 "fewer than 10 probes attached while tracing" probes_in
echo "before ls" > /dev/evtrace/marker
/usr/local/bin/ls / > /dev/null
echo "after ls" > /dev/evtrace/marker
evctl disable 'sys_*' exit_syscall
echo "syscalls off" > /dev/evtrace/marker
/usr/local/bin/ls / > /dev/null
echo "syscalls on" > /dev/evtrace/marker
evctl enable 'sys_*' exit_syscall
/usr/local/bin/ls / > /dev/null
# Markers: too long is refused, writing needs root.
if head -c 2000 /dev/zero | tr '\0' x > /dev/evtrace/marker 2>/dev/null; then fail "a 2000-byte marker was accepted"; fi
ls -l /dev/evtrace/marker
sleep 1
kill -TERM $pid
wait $pid || fail "evdrain exit $?"
cp $D/stats "$OUT/stats"
# Stopped: every probe is detached once the linger time has passed.
no_probes() { [ "$(attached)" -eq 0 ]; }
wait_until 30 "probes still attached after stopping" no_probes
# Unload while probes fire.
evctl start
(while :; do /usr/local/bin/ls / > /dev/null; done) &
busy=$!
sleep 2
rmmod evtrace
kill $busy
test ! -d /sys/module/evtrace || fail "still loaded"
echo events ok
