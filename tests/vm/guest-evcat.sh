#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real generator trace with losses on every CPU, for evcat to read on the
# host. Small rings (4 x 4 KiB) in discard mode; tracing starts with no
# reader while the generator runs on every CPU (both channels, every payload
# size), so each ring fills and then discards; once every ring has
# discarded, evdrain --attach drains the rest of the run into the trace.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=4 mode=discard
evctl start
evctl generate --events 20000 --rate 8000 --channel both --sizes mix --cpus all
# Every online ring (both channels, every CPU) has discarded something.
all_discarding() {
	awk '($1 == "compact" || $1 == "normal") && $3 == 1 && $5 == 0 { n++ } END { exit n > 0 }' $D/stats
}
wait_until 60 "not every ring discarded" all_discarding
evdrain -q --attach -o "$OUT/trace" --stats-json "$OUT/summary.json" > "$OUT/evdrain.out" 2>&1 &
pid=$!
wait_gen_done 180
kill -TERM $pid
wait $pid || fail "evdrain exit $?"
cat "$OUT/evdrain.out"
# generated == recorded + discarded + too_big + refused, per CPU and channel.
check_exact
cp $D/stats "$OUT/stats"
cp $D/generate "$OUT/generate"
cat $D/stats
[ "$(stat_sum compact 6)" -eq 0 ] || fail "events overwritten in discard mode"
rmmod evtrace
echo evcat-trace ok
