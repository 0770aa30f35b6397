#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evdrain around the generator at a rate it sustains: nothing discarded;
# SIGTERM mid-run stops, flushes and drains everything.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 num_subbuf=64
evdrain -o "$OUT/trace" --stats-json "$OUT/summary.json" > "$OUT/evdrain.out" 2>&1 &
pid=$!
wait_tracing
evctl status | head -3
evctl generate --events 15000 --rate 3000 --channel both --sizes mix
wait_gen_done 120
kill -TERM $pid
wait $pid || fail "evdrain exit $?"
cat "$OUT/evdrain.out"
check_exact
check_sealed_index "$OUT/trace/kernel"
cp $D/stats "$OUT/stats"
[ "$(stat_sum compact 5)" -eq 0 ] || fail "discarded with evdrain draining"
[ "$(stat_sum normal 5)" -eq 0 ] || fail "discarded with evdrain draining"
rmmod evtrace
echo evdrain ok
