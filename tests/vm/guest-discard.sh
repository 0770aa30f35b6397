#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Generator flat out on every CPU, both channels, no reader: the rings fill,
# later events are discarded, and the accounting is exact per CPU.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=4
evctl start
evctl generate --events 20000 --channel both --sizes mix
wait_gen_done 120
evctl stop
check_exact
[ "$(stat_sum compact 5)" -gt 0 ] || fail "nothing was discarded"
[ "$(stat_sum compact 4)" -gt 0 ] || fail "nothing was recorded"
cat $D/stats
# What was recorded is all readable and decodes; every event of a generator
# CPU is unique.
evtest drain "$OUT/trace" &
pid=$!
sleep 2
kill -TERM $pid
wait $pid
cp $D/stats "$OUT/stats"
rmmod evtrace
echo discard ok
