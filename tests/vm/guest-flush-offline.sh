#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many flushers of an offline CPU's rings at once (issue 15, item 2): CPU 1
# goes offline with partial packets while evdrain --live asks every ring for
# its quiescent time every tick (each a flush), the flush work runs every
# millisecond and netlink FLUSH loops run beside it. Every flush of an
# offline CPU's ring runs on another CPU, and the ring's CPU-local
# operations are not atomic across CPUs: they must be serialised. After
# every round CPU 1's rings drain completely (a ring that stopped delivering
# never does), a last round without the flush storm discards nothing, and
# the accounting is exact (checked on the host against the trace).
# The storm rounds may discard: every flush closes a partial sub-buffer, and
# on a slow kernel (KCSAN) a burst meets enough flushes to fill the ring
# before evdrain is woken; that is discard mode working, not a wedged ring.
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
nl_done() { ! grep -q ' 1 0 ' $D/generate; }
# produced = consumed on both of CPU 1's rings: evdrain has read every packet.
cpu1_drained() {
	awk '$2 == 1 && $1 ~ /^(compact|normal)$/ && $9 != $10 { bad = 1 } END { exit bad }' $D/stats
}
i=0
while [ "$i" -lt "$rounds" ]; do
	evctl generate --events 3000 --rate 0 --channel both --sizes mix --cpus 1
	wait_until 120 "generator still running" nl_done
	echo 0 > /sys/devices/system/cpu/cpu1/online
	sleep 0.2
	echo 1 > /sys/devices/system/cpu/cpu1/online
	wait_until 120 "CPU 1's rings stopped delivering after round $i" cpu1_drained
	i=$((i + 1))
done
touch /tmp/flush.stop
for p in $flushers; do wait "$p" || true; done
discarded_before=$(($(stat_sum compact 5) + $(stat_sum normal 5)))
evctl generate --events 1000 --rate 0 --channel both --sizes mix --cpus 1
wait_until 120 "generator still running" nl_done
wait_until 120 "CPU 1's rings stopped delivering after the storm" cpu1_drained
kill -TERM $dpid
wait $dpid || { cat "$OUT/live.err"; fail "evdrain failed"; }
cat $D/stats
cp $D/stats "$OUT/stats"
cat $D/generate > "$OUT/generate"
check_exact
[ $(($(stat_sum compact 5) + $(stat_sum normal 5))) -eq "$discarded_before" ] ||
	fail "the round after the storm discarded events: a ring stopped delivering"
rmmod evtrace
echo "flush-offline: $rounds offline rounds under concurrent flushes, $discarded_before events discarded by the storm"
