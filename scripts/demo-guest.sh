#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make demo`: load evtrace, trace a small workload with evdrain
# (the generator on every CPU plus an hrtimer in interrupt context) into
# $OUT/trace.
set -e
D=/sys/kernel/debug/evtrace
insmod "$EVTRACE_KO" flush_ms=200
dmesg | grep 'evtrace: loaded'
evdrain -o "$OUT/trace" --duration 4 &
pid=$!
sleep 1
evctl timer --period-us 1000
evctl generate --events 5000 --rate 5000 --channel both --sizes mix
wait $pid
evctl timer-stop
echo "--- evctl status"
evctl status
rmmod evtrace
