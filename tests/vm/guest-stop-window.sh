#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# STOP stops every writer (issue 15, item 8). A test build of the module
# (EVT_TEST_WINDOWS) makes the next writer wait 1 s right after it saw
# tracing on (asleep where it is preemptible, spinning where it is not). STOP
# in that second must wait for it: the tracing flag is read with preemption
# off and STOP waits a grace period, so what STOP's flush closes is
# everything. A writer that checks the flag while preemptible records after
# STOP returned, into a packet nothing closes: the recorded count grows after
# STOP (seen: 0 at STOP, 1 a second later).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 flush_ms=0
test -e /sys/module/evtrace/parameters/test_window_ms || fail "not a test-windows build"
evctl start
echo 0 > /sys/module/evtrace/parameters/test_window_at
echo 1000 > /sys/module/evtrace/parameters/test_window_ms
evctl generate --events 1 --channel compact --cpus 0 --sizes fixed
# The writer is in its window once the parameter reads 0 again.
armed() { [ "$(cat /sys/module/evtrace/parameters/test_window_ms)" = 0 ]; }
wait_until 30 "no writer entered the window" armed
evctl stop
at_stop=$(stat_sum compact 4)
delivered_at_stop=$(stat_sum compact 9)
wait_gen_done 60
sleep 1
cat $D/stats
later=$(stat_sum compact 4)
echo "recorded when STOP returned $at_stop (packets delivered $delivered_at_stop), a second later $later"
[ "$later" = 1 ] || fail "the writer recorded $later events, want 1"
[ "$at_stop" = "$later" ] || fail "a writer recorded after STOP returned"
[ "$delivered_at_stop" = 1 ] || fail "STOP's flush did not deliver the event's packet"
rmmod evtrace
echo "stop window: the writer in the window was waited for"
