#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evdrain under overload: discard mode (losses counted and reported) and
# overwrite mode (lost packets show as sequence gaps); --duration ends a run
# by itself with a complete trace. --fail-on-loss: exit 7 after the first
# two, 0 after the third.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=4
evdrain -q -o "$OUT/discard" --fail-on-loss 2> /tmp/discard.err &
pid=$!
wait_tracing
evctl generate --events 40000 --channel both --sizes mix
wait_gen_done 120
kill -TERM $pid
rc=0
wait $pid || rc=$?
cat /tmp/discard.err
[ $rc = 7 ] || fail "evdrain --fail-on-loss (discard) exit $rc, not 7"
grep -q 'events lost' /tmp/discard.err || fail "no loss message from --fail-on-loss"
check_exact
cp $D/stats "$OUT/discard.stats"
[ "$(stat_sum compact 5)" -gt 0 ] || fail "no overload: nothing discarded"
rmmod evtrace

insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=4
evdrain -q -o "$OUT/overwrite" --mode overwrite --fail-on-loss &
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
rc=0
wait $pid || rc=$?
[ $rc = 7 ] || fail "evdrain --fail-on-loss (overwrite) exit $rc, not 7"
[ "$(stat_sum compact 6)" -gt 0 ] || fail "nothing overwritten"
cp $D/stats "$OUT/overwrite.stats"
rmmod evtrace

insmod "$EVTRACE_KO" probes=0 num_subbuf=64
evctl generate --events 100000000 --rate 2000 --channel compact --sizes fixed
evdrain -q -o "$OUT/duration" --duration 3 --fail-on-loss || fail "evdrain --duration --fail-on-loss exit $?"
evctl generate-stop
cp $D/stats "$OUT/duration.stats"
rmmod evtrace
echo modes ok
