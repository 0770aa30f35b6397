#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rings the machine cannot spare (issue 15, item 10). On a 1 GiB guest:
# 1 GiB of rings fails insmod with ENOMEM and a message naming the total,
# and the machine stays up; a normal load works afterwards. Then rings that
# fit one CPU but not two: CPU 1 offline at load, brought online after: it
# comes up without rings, its events are refused and counted exactly, and
# the module unloads cleanly.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
echo "MemAvailable ${avail_mb} MiB"
if insmod "$EVTRACE_KO" probes=0 subbuf_size=4194304 num_subbuf=64 2>/tmp/err; then
	fail "1 GiB of rings loaded on a 1 GiB machine"
fi
cat /tmp/err
grep -q 'Cannot allocate memory' /tmp/err || fail "insmod did not fail with ENOMEM"
dmesg | grep 'evtrace: cannot load: the rings need 1024 MiB' || fail "no message naming the total"
test ! -d /sys/module/evtrace || fail "loaded anyway"
insmod "$EVTRACE_KO" probes=0
rmmod evtrace

# 2 rings of 4 MiB x N per CPU: N so that one CPU fits and a second does not.
# N goes by powers of two; when none falls between (the debug kernel's 658
# MiB: 256 MiB fits twice, 512 not once), a tmpfs ballast brings MemAvailable
# into the window of the largest N that fits.
size_rings() {
	avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	n=64
	while [ $n -gt 0 ] && [ $((2 * 4 * n)) -gt $((avail_mb * 7 / 10)) ]; do n=$((n / 2)); done
	fits=$n
	[ $n -gt 0 ] && [ $((2 * 4 * n * 2)) -gt $((avail_mb * 7 / 8)) ] || n=0
}
size_rings
if [ $n = 0 ] && [ $fits -gt 0 ]; then
	t=$((2 * 4 * fits))
	mkdir -p /tmp/ballast
	mount -t tmpfs -o size=${avail_mb}m tmpfs /tmp/ballast
	dd if=/dev/zero of=/tmp/ballast/b bs=1M count=$((avail_mb - 13 * t / 7)) 2> /dev/null
	size_rings
	echo "MemAvailable ${avail_mb} MiB with the ballast"
fi
[ $n -gt 0 ] || fail "cannot size rings that fit one CPU but not two (MemAvailable ${avail_mb} MiB)"
echo 0 > /sys/devices/system/cpu/cpu1/online
insmod "$EVTRACE_KO" probes=0 subbuf_size=4194304 num_subbuf=$n flush_ms=0
evctl watch --reason NO_RING --count 1 --timeout 60 > /tmp/watch 2>&1 &
wpid=$!
sleep 1
echo 1 > /sys/devices/system/cpu/cpu1/online
dmesg | grep 'evtrace: CPU 1 is online without its' || fail "no message for CPU 1's missing rings"
wait $wpid || { cat /tmp/watch; fail "no NO_RING notification"; }
cat /tmp/watch
grep -q 'NO_RING channel=compact cpu=1' /tmp/watch || fail "the NO_RING notification does not name CPU 1"
evctl start
evctl generate --events 5000 --channel both --cpus 1
wait_gen_done 120
evctl stop
cat $D/stats
grep -q '^compact 1 1 0 0 0 0 5000 ' $D/stats || fail "CPU 1's compact events not refused and counted"
check_exact
rmmod evtrace
if grep -q ' /tmp/ballast ' /proc/mounts; then umount /tmp/ballast; fi
echo "no-memory: load refused cleanly, a ring-less CPU counted exactly"
