#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Notifications over the "notify" group, as evctl watch prints them:
# HIGH_WATER with fill >= the configured mark when a ring fills with nobody
# reading (then DISCARDING), FLUSHED after evctl flush, CPU_OFFLINE and
# CPU_ONLINE for both rings of a CPU on hotplug, STOPPED on evctl stop.
. "$EVTRACE_TESTS/vm/lib.sh"
. "$EVTRACE_TESTS/vm/nllib.sh"
set -e
insmod "$EVTRACE_KO" subbuf_size=4096 num_subbuf=16 high_water=50 flush_ms=0
nl_generator_only
evctl config high_water=60

# One watcher sees everything; a second waits for the first HIGH_WATER.
evctl watch > /tmp/all 2> /tmp/all.err &
all=$!
evctl watch --reason HIGH_WATER --count 1 --timeout 120 > /tmp/hw 2> /tmp/hw.err &
hw=$!
wait_watching /tmp/all.err
wait_watching /tmp/hw.err
evctl start

# A few events in a partial sub-buffer of one ring, then flush: that ring.
evctl watch --reason FLUSHED --count 1 --timeout 60 > /tmp/fl 2> /tmp/fl.err &
fl=$!
wait_watching /tmp/fl.err
evctl generate --events 10 --channel normal --cpus 0 --sizes fixed
nl_wait_gen_done 60
evctl flush
wait $fl || fail "no FLUSHED notification after evctl flush (exit $?)"
cat /tmp/fl
grep -q '^FLUSHED channel=normal cpu=0 fill=[0-9]*$' /tmp/fl || fail "FLUSHED for the wrong ring"

# 5000 compact events at 2000/s on CPU 0 overfill its 16 x 4 KiB ring.
evctl generate --events 5000 --rate 2000 --channel compact --cpus 0 --sizes fixed
wait $hw || fail "no HIGH_WATER notification (evctl watch exit $?)"
cat /tmp/hw
line=$(cat /tmp/hw)
case "$line" in
"HIGH_WATER channel=compact cpu=0 fill="[0-9]*) ;;
*) fail "unexpected notification: $line" ;;
esac
fill=${line##*fill=}
[ "$fill" -ge 60 ] || fail "HIGH_WATER at fill $fill% < high_water 60%"
nl_wait_gen_done 120
[ "$(nl_ring_sum compact 5)" -gt 0 ] || fail "the ring did not overflow"

# CPU 1 goes down and comes back: both of its rings say so.
evctl watch --reason CPU_OFFLINE,CPU_ONLINE --count 4 --timeout 120 > /tmp/hp 2> /tmp/hp.err &
hp=$!
wait_watching /tmp/hp.err
echo 0 > /sys/devices/system/cpu/cpu1/online
echo 1 > /sys/devices/system/cpu/cpu1/online
wait $hp || fail "not 4 hotplug notifications (exit $?): $(cat /tmp/hp)"
cat /tmp/hp
for r in CPU_OFFLINE CPU_ONLINE; do
	for ch in compact normal; do
		grep -q "^$r channel=$ch cpu=1 fill=[0-9]*\$" /tmp/hp || fail "no $r for $ch cpu 1"
	done
done

evctl watch --reason STOPPED --count 1 --timeout 60 > /tmp/st 2> /tmp/st.err &
st=$!
wait_watching /tmp/st.err
evctl stop
wait $st || fail "no STOPPED notification (exit $?)"
grep -q '^STOPPED channel=- cpu=- fill=-$' /tmp/st || fail "STOPPED: $(cat /tmp/st)"

sleep 1
kill -TERM $all
wait $all || fail "evctl watch did not exit cleanly on SIGTERM"
echo "--- everything, as evctl watch printed it:"
cat /tmp/all
for r in HIGH_WATER DISCARDING FLUSHED CPU_OFFLINE CPU_ONLINE STOPPED; do
	grep -q "^$r " /tmp/all || fail "the watcher of everything missed $r"
done
grep -q '^DISCARDING channel=compact cpu=0 ' /tmp/all || fail "DISCARDING for the wrong ring"
grep -v -q '^[A-Z_]* channel=[a-z-]* cpu=[0-9-]* fill=[0-9-]*$' /tmp/all && fail "a malformed line"
rmmod evtrace
echo netlink watch ok
