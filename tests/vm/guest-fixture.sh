#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/fixture-trace: a small trace of every kind of event
# evtrace records (the kernel's tracepoints, markers, the generator and the
# hrtimer), written by evdrain into $OUT/trace, for tests/data.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" subbuf_size=4096 num_subbuf=8 flush_ms=100
evdrain -q -o "$OUT/trace" &
pid=$!
wait_tracing
echo "fixture: start" > /dev/evtrace/marker
evctl timer --period-us 20000
evctl generate --events 200 --rate 2000 --channel both --sizes mix
for i in 1 2 3; do
	/usr/local/bin/ls / > /dev/null
	echo "fixture: ls $i, €" > /dev/evtrace/marker
done
sleep 1
evctl timer-stop
echo "fixture: end" > /dev/evtrace/marker
sleep 0.3
kill -TERM $pid
wait $pid || fail "evdrain exit $?"
rmmod evtrace
echo fixture ok
