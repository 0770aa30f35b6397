#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A reader drains at a moderate rate (splice) while the generator runs at a
# rate on every CPU: nothing discarded, every (cpu, seq) read exactly once.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 flush_ms=200 num_subbuf=64
evtest drain "$OUT/trace" --splice --sleep-ms 5 &
pid=$!
evctl start
evctl generate --events ${EVENTS:-12000} --rate ${RATE:-3000} --channel both --sizes mix
wait_gen_done 300
evctl stop
sleep 1
kill -TERM $pid
wait $pid
check_exact
cp $D/stats "$OUT/stats"
[ "$(stat_sum compact 5)" -eq 0 ] || fail "events were discarded with a reader draining"
[ "$(stat_sum normal 5)" -eq 0 ] || fail "events were discarded with a reader draining"
rmmod evtrace
echo drain ok
