#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many flushers of an offline CPU's rings at once (issue 15, item 2): CPU 1
# goes offline with partial packets while evdrain --live asks every ring for
# its quiescent time every tick (each a flush), the flush work runs every
# millisecond and netlink FLUSH loops run beside it. Every flush of an
# offline CPU's ring runs on another CPU, and the ring's CPU-local
# operations are not atomic across CPUs: they must be serialised. After
# replug the ring delivers again, nothing is discarded and the accounting
# is exact (checked on the host against the trace).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
rounds=${FLUSH_ROUNDS:-40}
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=64 flush_ms=1
evdrain --live --tick-ms 5 -o "$OUT/trace" > /dev/null 2> "$OUT/live.err" &
dpid=$!
wait_tracing
flushers=""
for k in 1 2; do
	( set +e; while [ ! -e /tmp/flush.stop ]; do evctl flush; done ) &
	flushers="$flushers $!"
done
i=0
while [ "$i" -lt "$rounds" ]; do
	evctl generate --events 3000 --rate 0 --channel both --sizes mix --cpus 1
	nl_done() { ! grep -q ' 1 0 ' $D/generate; }
	wait_until 120 "generator still running" nl_done
	echo 0 > /sys/devices/system/cpu/cpu1/online
	sleep 0.2
	echo 1 > /sys/devices/system/cpu/cpu1/online
	i=$((i + 1))
done
touch /tmp/flush.stop
for p in $flushers; do wait "$p" || true; done
kill -TERM $dpid
wait $dpid || { cat "$OUT/live.err"; fail "evdrain failed"; }
cat $D/stats
cp $D/stats "$OUT/stats"
cat $D/generate > "$OUT/generate"
check_exact
[ "$(stat_sum compact 5)" -eq 0 ] && [ "$(stat_sum normal 5)" -eq 0 ] ||
	fail "events discarded: a ring stopped delivering"
rmmod evtrace
echo "flush-offline: $rounds offline rounds under concurrent flushes"
