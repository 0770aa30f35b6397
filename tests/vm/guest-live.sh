#!/bin/sh
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
# Live: most events are out before the drainer stops.
sleep 1
wc -l < "$OUT/live.json" > "$OUT/before-stop"
kill -TERM $pid
wait $pid || fail "evdrain --live exit $?"
cat "$OUT/live.err"
wc -l "$OUT/live.json"
rmmod evtrace
echo live ok
