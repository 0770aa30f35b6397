#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the smoke test: load, check dmesg and sysfs, unload, check clean.
set -e
n=$(grep -c ^processor /proc/cpuinfo)
insmod "$EVTRACE_KO"
dmesg | grep "evtrace: loaded, $n CPUs"
test -d /sys/module/evtrace
echo "loaded on $n CPUs" > "$OUT/smoke.txt"
# The trace UUID is a random (version 4, RFC 4122 variant) one.
grep -Eq 'uuid = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"' /dev/evtrace/metadata
rmmod evtrace
test ! -d /sys/module/evtrace
dmesg | grep "evtrace: unloaded"
echo smoke ok
