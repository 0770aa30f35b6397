#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evdrain --live prints the merged stream while it drains (JSON, one event a
# line) and still writes the trace directory.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 num_subbuf=64
evdrain --live --format json --tick-ms 100 -o "$OUT/trace" > "$OUT/live.json" 2> "$OUT/live.err" &
pid=$!
wait_tracing
evctl generate --events 5000 --rate 2000 --channel both --sizes mix
wait_gen_done 120
# Live: at least half the events come out while the drainer keeps running
# (a slow debug kernel may take a while; a drainer that prints only at stop
# never gets there).
half=$((5000 * 2 * $(grep -c ^processor /proc/cpuinfo) / 2))
half_out() { [ "$(wc -l < "$OUT/live.json")" -ge "$half" ]; }
if ! (wait_until 120 "fewer than $half events printed while live" half_out); then
	cat "$OUT/live.err"
fi
wc -l < "$OUT/live.json" > "$OUT/before-stop"
kill -TERM $pid
wait $pid || fail "evdrain --live exit $?"
cat "$OUT/live.err"
wc -l "$OUT/live.json"
rmmod evtrace
echo live ok
