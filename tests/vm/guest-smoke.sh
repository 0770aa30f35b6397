#!/bin/sh
# Guest side of the smoke test: load, check dmesg and sysfs, unload, check clean.
set -e
n=$(grep -c ^processor /proc/cpuinfo)
insmod "$EVTRACE_KO"
dmesg | grep "evtrace: loaded, $n CPUs"
test -d /sys/module/evtrace
echo "loaded on $n CPUs" > "$OUT/smoke.txt"
rmmod evtrace
test ! -d /sys/module/evtrace
dmesg | grep "evtrace: unloaded"
echo smoke ok
