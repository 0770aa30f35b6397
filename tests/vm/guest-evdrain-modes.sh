#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evdrain under overload: discard mode (losses counted and reported) and
# overwrite mode (lost packets show as sequence gaps); --duration ends a run
# by itself with a complete trace.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=4
evdrain -q -o "$OUT/discard" &
pid=$!
wait_tracing
evctl generate --events 40000 --channel both --sizes mix
wait_gen_done 120
kill -TERM $pid
wait $pid || fail "evdrain (discard) exit $?"
check_exact
cp $D/stats "$OUT/discard.stats"
[ "$(stat_sum compact 5)" -gt 0 ] || fail "no overload: nothing discarded"
rmmod evtrace

insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=4
evdrain -q -o "$OUT/overwrite" --mode overwrite &
pid=$!
wait_tracing
# A reader that stalls for a while (SIGSTOP) while the writer laps the ring.
evctl generate --events 20000 --rate 5000 --channel compact --sizes mix
sleep 1
kill -STOP $pid
sleep 2
kill -CONT $pid
wait_gen_done 120
kill -TERM $pid
wait $pid || fail "evdrain (overwrite) exit $?"
[ "$(stat_sum compact 6)" -gt 0 ] || fail "nothing overwritten"
cp $D/stats "$OUT/overwrite.stats"
rmmod evtrace

insmod "$EVTRACE_KO" probes=0 num_subbuf=64
evctl generate --events 100000000 --rate 2000 --channel compact --sizes fixed
evdrain -q -o "$OUT/duration" --duration 3 || fail "evdrain --duration exit $?"
evctl generate-stop
cp $D/stats "$OUT/duration.stats"
rmmod evtrace
echo modes ok
