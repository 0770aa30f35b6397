#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# poll() on a ring wakes when its fill crosses high_water (through irq_work),
# before the ring is full; with no reader and no flush timer nothing else
# wakes it.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=16 high_water=50 flush_ms=0
evctl start
evtest poll /dev/evtrace/compact/cpu0 1000 && fail "woken with an empty ring"
evtest poll /dev/evtrace/compact/cpu0 60000 > /tmp/poll &
pid=$!
sleep 1
evctl generate --events 5000 --rate 2000 --channel compact --cpus 0 --sizes fixed
wait $pid || fail "no wakeup"
cat /tmp/poll
fill=$(sed -n 's/.* fill \([0-9]*\) .*/\1/p' /tmp/poll)
[ "$fill" -ge 50 ] || fail "woken at $fill% < high_water"
grep -q ' discarded 0$' /tmp/poll || fail "woken only after losses"
evctl generate-stop
rmmod evtrace
echo highwater ok
