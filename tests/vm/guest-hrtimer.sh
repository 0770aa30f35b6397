#!/bin/sh
# An hrtimer records from hard interrupt context every 50 us on every CPU while
# the generator records from a thread: nesting, no corruption, exact counts.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 flush_ms=100 num_subbuf=64
evtest drain "$OUT/trace" --sleep-ms 5 &
pid=$!
echo start > $D/control
echo "start 50" > $D/timer
echo "events=20000 rate=5000 channel=both sizes=mix" > $D/generate
wait_gen_done 120
echo stop > $D/timer
echo stop > $D/control
sleep 1
kill -TERM $pid
wait $pid
cat $D/generate
cp $D/stats "$OUT/stats"
cp $D/generate "$OUT/generate"
# The timer's events join the compact channel's expected total.
awk 'FNR == 1 { f++ } f == 1 && $1 ~ /^[0-9]+$/ { g["compact", $1] = $4 + $6; g["normal", $1] = $5 }
     f == 2 && ($1 == "compact" || $1 == "normal") { s = $4 + $5 + $7 + $8; if (s != g[$1, $2]) { print "MISMATCH", $0; bad = 1 } }
     END { exit bad }' "$OUT/generate" "$OUT/stats" || fail "accounting with the timer is not exact"
[ "$(awk '$1 ~ /^[0-9]+$/ { s += $6 } END { print s + 0 }' "$OUT/generate")" -gt 100 ] || fail "the timer barely ran"
rmmod evtrace
echo hrtimer ok
