#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The quiescent time with writers in flight (issue 15, item 11). A test
# build (EVT_TEST_WINDOWS) holds one generator event of CPU 0 between its
# reservation and its commit for 1 s; meanwhile the hrtimer records newer
# events on the same CPU from interrupt context, and evdrain --live asks
# every ring for its quiescent time every tick. The ring may not promise a
# time past the held event (the outer writer's older one would then arrive
# "late"): the live stream must have no late event and every event. Only
# the compact rings are drained: an idle normal ring would hold the
# watermark back by itself and hide the fault.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 flush_ms=0
test -e /sys/module/evtrace/parameters/test_window_at || fail "not a test-windows build"
evdrain --live --channels compact --format json --tick-ms 20 -o "$OUT/trace" > "$OUT/live.json" 2> "$OUT/live.err" &
pid=$!
wait_tracing
evctl timer --period-us 2000
echo 1 > /sys/module/evtrace/parameters/test_window_at
echo 1000 > /sys/module/evtrace/parameters/test_window_ms
evctl generate --events 1 --channel compact --cpus 0 --sizes fixed
armed() { [ "$(cat /sys/module/evtrace/parameters/test_window_ms)" = 0 ]; }
wait_until 30 "no writer entered the window" armed
wait_gen_done 60
sleep 1
evctl timer-stop
sleep 0.5
kill -TERM $pid
wait $pid || { cat "$OUT/live.err"; fail "evdrain exit"; }
cat "$OUT/live.err"
cp $D/stats "$OUT/stats"
late=$(grep -c late "$OUT/live.json" || true)
echo "$(wc -l < "$OUT/live.json") events printed live, $late flagged late"
[ "$late" = 0 ] || fail "$late events arrived after the quiescent time had passed them"
grep -q gen_compact "$OUT/live.json" || fail "the held event never came out"
rmmod evtrace
echo "quiescent window: no late event"
