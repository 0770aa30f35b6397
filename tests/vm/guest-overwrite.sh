#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Overwrite mode: the reader takes one sub-buffer of compact/cpu0 and holds it
# while the generator laps the ring many times. The held packet stays intact
# (compared byte for byte on the host), the writer skips it, lost packets are
# counted as overwritten events and show as sequence gaps.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 mode=overwrite subbuf_size=4096 num_subbuf=8 flush_ms=0
evctl start
evctl generate --events 2000 --channel compact --cpus 0
wait_gen_done 60
evtest drain "$OUT/trace" --hold-first --sleep-ms 50 &
pid=$!
wait_file "$OUT/trace/held.bin" 120
evctl generate --events 50000 --channel compact --sizes mix
wait_gen_done 120
evctl stop
check_exact
cat $D/stats
[ "$(stat_sum compact 11)" -gt 0 ] || fail "the writer never skipped the held sub-buffer"
[ "$(stat_sum compact 6)" -gt 0 ] || fail "nothing was overwritten"
kill -TERM $pid
wait $pid
cp $D/stats "$OUT/stats"
rmmod evtrace
echo overwrite ok
