#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-record: the in-kernel side-by-side loop; with a
# baseline module (second argument), both in turn, twice, in this one boot.
# With LTTng in the guest (scripts/lttng-vm): lttng-modules' test event
# (lttng-test: writing N to /proc/lttng-test-filter-event records N
# lttng_test_filter_event events in a loop in the kernel) into an overwrite
# channel of the same size as the bench's rings (16 x 64 KiB per CPU), best of
# 5 rounds, against the same loop with the event not enabled; then the size
# of 20000 such events in a discard channel (the trace goes to $OUT/lttng-size).
set -e
n=${1:-2000000}
base=${2:-}
for round in 1 2; do
	for label in this ${base:+baseline}; do
		ko=$EVTRACE_KO
		[ "$label" = this ] || ko=$base
		insmod "$ko"
		echo "$n" > /sys/kernel/debug/evtrace/bench
		cat /sys/kernel/debug/evtrace/bench > "$OUT/bench-$label-$round.txt"
		rmmod evtrace
	done
done
cat "$OUT/bench-this-1.txt"
[ -f /evtrace/lttng-guest.sh ] || exit 0
. /evtrace/lttng-guest.sh
lttng_have || exit 0
lttng_up sched
modprobe lttng-test
lttng_loop() { # events: ns the write takes, pinned to CPU 1 (the same CPU every round)
	taskset -c 1 sh -c '. /evtrace/lttng-guest.sh; a=$(now_ns); echo "$1" > /proc/lttng-test-filter-event; b=$(now_ns); echo $((b - a))' sh "$1"
}
lttng_loop 10000 > /dev/null
r=1
while [ "$r" -le 5 ]; do
	echo "lttng_off $(lttng_loop "$n")" >> "$OUT/lttng-record.txt"
	r=$((r + 1))
done
lttng create bench --output=/tmp/lttng-record > /dev/null
lttng enable-channel -k --subbuf-size 65536 --num-subbuf 16 --overwrite c > /dev/null
lttng enable-event -k -c c lttng_test_filter_event > /dev/null
r=1
while [ "$r" -le 5 ]; do
	lttng start > /dev/null
	echo "lttng_on $(lttng_loop "$n")" >> "$OUT/lttng-record.txt"
	lttng stop > /dev/null
	r=$((r + 1))
done
lttng destroy bench > /dev/null
# Its size: 20000 events, none lost.
lttng create size --output=/tmp/lttng-size > /dev/null
lttng enable-channel -k --subbuf-size 1048576 --num-subbuf 8 c > /dev/null
lttng enable-event -k -c c lttng_test_filter_event > /dev/null
lttng start > /dev/null
taskset -c 1 sh -c 'echo 20000 > /proc/lttng-test-filter-event'
lttng stop > /dev/null
echo "lttng_size_discarded $(lttng list size | awk '/Discarded events:/ { print $3 }')" >> "$OUT/lttng-record.txt"
lttng destroy size > /dev/null
cp -r /tmp/lttng-size "$OUT/lttng-size"
lttng_down
