#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An hrtimer records from hard interrupt context every 50 us on every CPU while
# the generator records from a thread: nesting, no corruption, exact counts.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 flush_ms=100 num_subbuf=64
evtest drain "$OUT/trace" --sleep-ms 5 &
pid=$!
evctl start
evctl timer --period-us 50
evctl generate --events 20000 --rate 5000 --channel both --sizes mix
wait_gen_done 120
evctl timer-stop
evctl stop
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
# A new rate replaces a generator running flat out at once: the old threads
# stop before the new settings apply (a flat-out thread reading rate=1 would
# otherwise sleep until its millionth event is due, and the write would hang).
evctl generate --events 100000000 --channel compact --cpus 0
wait_until 60 "the flat-out generator did not start" grep -q '^0 1 0 ' $D/generate
sleep 1
t0=$(cut -d. -f1 /proc/uptime)
evctl generate --events 5 --rate 1 --channel compact --cpus 0
t1=$(cut -d. -f1 /proc/uptime)
[ $((t1 - t0)) -lt 30 ] || fail "replacing a flat-out generator took $((t1 - t0)) s"
evctl generate-stop
rmmod evtrace
echo hrtimer ok
