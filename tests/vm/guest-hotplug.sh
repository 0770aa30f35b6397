#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 50 offline/online cycles of CPU 1 under load: no crash, and every event
# recorded is read back (none vanishes with its CPU).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
# Each flush closes a sub-buffer however empty: 128 of them at 250 ms let the
# reader stall for 30 s (hotplug on a debug kernel under TCG) without a loss.
insmod "$EVTRACE_KO" probes=0 flush_ms=250 num_subbuf=128
evtest drain "$OUT/trace" --sleep-ms 5 &
pid=$!
evctl start
evctl timer --period-us 200
evctl generate --events 1000000 --rate 2000 --channel both --sizes mix
# The module's own account of the cycles, independent of this loop's: its
# CPU_OFFLINE and CPU_ONLINE notifications for each ring of CPU 1 (the host
# counts them in $OUT/hotplug.watch).
evctl watch --reason CPU_OFFLINE,CPU_ONLINE > "$OUT/hotplug.watch" 2> /tmp/watch.err &
watcher=$!
t=0
until grep -q 'watching evtrace notifications' /tmp/watch.err 2>/dev/null; do
	sleep 1; t=$((t + 1)); [ "$t" -lt 60 ] || fail "evctl watch did not subscribe"
done
i=0
while [ $i -lt ${CYCLES:-50} ]; do
	echo 0 > /sys/devices/system/cpu/cpu1/online
	[ "$(cat /sys/devices/system/cpu/cpu1/online)" = 0 ] || fail "CPU 1 did not go offline"
	grep -q '^compact 1 0 ' $D/stats || fail "CPU 1's ring is not shown offline"
	echo 1 > /sys/devices/system/cpu/cpu1/online
	grep -q '^compact 1 1 ' $D/stats || fail "CPU 1's ring is not shown online again"
	i=$((i + 1))
done
evctl generate-stop
evctl timer-stop
evctl stop
sleep 1
kill -TERM $watcher
kill -TERM $pid
wait $pid
cat $D/stats
cp $D/stats "$OUT/stats"
echo "$i" > "$OUT/cycles"
[ "$(stat_sum compact 5)" -eq 0 ] || fail "events discarded"
rmmod evtrace
echo hotplug ok
