#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No byte of someone else's memory in a trace (issue 15, item 5). Booted with
# init_on_alloc=0; free memory is dirtied with a known text first, so ring
# memory that is not zeroed at allocation shows it. Overwrite mode with
# small rings, mixed payload sizes (alignment padding before event headers)
# and flush_ms=50 (partial packets: long tails), drained by evdrain (splice
# of whole padded sub-buffers) and by evtest (read()): the host checks that
# every byte outside headers and events is zero and the text is nowhere.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
grep -q 'init_on_alloc=0' /proc/cmdline || fail "not booted with init_on_alloc=0"
# A tmpfs file filled with the text, then removed: its pages go back free.
yes EVTRACE-DIRT-PATTERN | head -c $((300 * 1024 * 1024)) > /tmp/dirt
rm /tmp/dirt
insmod "$EVTRACE_KO" probes=0 mode=overwrite subbuf_size=4096 num_subbuf=32 flush_ms=50
evdrain -o "$OUT/evdrain" &
pid=$!
wait_tracing
evctl generate --events 200000 --rate 0 --channel both --sizes mix
wait_gen_done 300
kill -TERM $pid
wait $pid || fail "evdrain failed"
# A slow read() drainer over more laps, partial packets every 50 ms.
evctl start
evtest drain "$OUT/evtest" --sleep-ms 20 &
pid=$!
evctl generate --events 20000 --rate 0 --channel both --sizes mix
wait_gen_done 300
evctl stop
kill -TERM $pid
wait $pid
cat $D/stats
[ "$(stat_sum compact 6)" -gt 0 ] || fail "nothing was overwritten: no second lap"
rmmod evtrace
echo "zero: traces written"
