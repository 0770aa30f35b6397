#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unloading while generating, and while a reader holds a sub-buffer.
# probes=0: unloading with tracepoint probes firing is t-events-ls's subject; each
# attach patches kernel text, which under TCG has now and then wedged a guest.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0
evctl start
evctl timer --period-us 100
evctl generate --events 100000000 --channel both
sleep 1
rmmod evtrace
test ! -d /sys/module/evtrace || fail "still loaded"
# A reader holding a sub-buffer keeps the module (in use); closing lets it go.
insmod "$EVTRACE_KO" probes=0 flush_ms=50
evctl start
evctl generate --events 100000000 --rate 10000 --channel compact
evtest drain /tmp/t --hold-first &
pid=$!
wait_file /tmp/t/held.bin 120
if rmmod evtrace 2>/tmp/err; then fail "rmmod succeeded with a reader open"; fi
cat /tmp/err
grep -q 'in use\|temporarily unavailable' /tmp/err || fail "unexpected rmmod error"
[ "$(cat /sys/module/evtrace/refcnt)" -gt 0 ] || fail "no reference held by the open reader"
kill -TERM $pid
wait $pid
rmmod evtrace
test ! -d /sys/module/evtrace || fail "still loaded"
echo rmmod ok
