#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-load: the same load (pingpong GROUPS MESSAGES:
# pairs of processes bouncing messages over pipes, on every vCPU) traced by
# evtrace (evdrain draining) and by LTTng 2.13 (its consumerd draining) in
# turn, ROUNDS times after an unreported warm-up of each: every syscall's
# entry and exit and sched_switch on one channel (evtrace's compact), the
# wakeups and migrations on another (normal), 32 x 16 KiB per channel and
# CPU for both (evtrace's default), discard mode. Writes one line per run to
# $OUT/load.txt: TRACER ROUND SECONDS BYTES DRAINER_CPU_S RECORDED DISCARDED
# (LTTng's recorded count is left to the host, 0 here: its trace is copied to
# $OUT/lttng-ROUND, babeltrace2 counts it there; evtrace's to $OUT/evtrace-ROUND).
set -e
groups=${1:-4}
msgs=${2:-20000}
rounds=${3:-2}
evt_events='sys_* exit_syscall sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task'
# The stream files' bytes, the same files on both sides: the per-CPU data
# files compact_N and normal_N, not LTTng's index/compact_N.idx (it writes an
# index beside its streams, evtrace does not) nor either metadata.
stream_bytes() { find "$1" -type f \( -name 'compact_[0-9]*' -o -name 'normal_[0-9]*' \) ! -name '*.idx' ! -path '*/index/*' -exec cat {} + | wc -c; }
run_evtrace() { # round
	echo "guest-bench-load: evtrace round $1"
	insmod "$EVTRACE_KO" probes=0
	# shellcheck disable=SC2086
	evctl enable $evt_events > /dev/null
	time -f "%U %S" -o /tmp/time evdrain -q -o /tmp/trace-evt --stats-json /tmp/evt.json &
	dpid=$!
	i=0
	until evctl status 2> /dev/null | grep -q '^state *tracing' || [ "$i" -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.5
	secs=$(pingpong "$groups" "$msgs" | awk '{ print $1 }')
	# (evdrain itself: time, its parent, goes on to report its CPU time)
	kill -INT "$(pidof evdrain)"
	wait "$dpid" || true
	rec=$(sed -n 's/.*"recorded": \([0-9]*\), "discarded": [0-9]*, "overwritten": [0-9]*}$/\1/p' /tmp/evt.json)
	disc=$(sed -n 's/.*"discarded": \([0-9]*\), "overwritten": [0-9]*}$/\1/p' /tmp/evt.json)
	cpu=$(awk '{ print $1 + $2 }' /tmp/time)
	if [ "$1" != 0 ]; then
		echo "evtrace $1 $secs $(stream_bytes /tmp/trace-evt) $cpu $rec $disc" >> "$OUT/load.txt"
		cp -r /tmp/trace-evt "$OUT/evtrace-$1"
	fi
	rm -rf /tmp/trace-evt
	rmmod evtrace
}
run_lttng() { # round
	echo "guest-bench-load: lttng round $1"
	lttng create load --output=/tmp/trace-lt > /dev/null
	for c in compact normal; do
		lttng enable-channel -k --subbuf-size 16384 --num-subbuf 32 --discard "$c" > /dev/null
	done
	lttng enable-event -k -c compact --syscall -a > /dev/null
	lttng enable-event -k -c compact sched_switch > /dev/null
	lttng enable-event -k -c normal sched_waking,sched_wakeup,sched_wakeup_new,sched_migrate_task > /dev/null
	c0=$(lttng_consumerd_cpu)
	lttng start > /dev/null
	sleep 0.5
	secs=$(pingpong "$groups" "$msgs" | awk '{ print $1 }')
	lttng stop > /dev/null
	c1=$(lttng_consumerd_cpu)
	disc=$(lttng list load | awk '/Discarded events:/ { s += $3 } END { print s + 0 }')
	lost=$(lttng list load | awk '/Lost packets:/ { s += $3 } END { print s + 0 }')
	lttng destroy load > /dev/null
	if [ "$1" != 0 ]; then
		echo "lttng $1 $secs $(stream_bytes /tmp/trace-lt) $(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }') 0 $disc $lost" >> "$OUT/load.txt"
		cp -r /tmp/trace-lt "$OUT/lttng-$1"
	fi
	rm -rf /tmp/trace-lt
}
. /evtrace/lttng-guest.sh
sessiond_cpu() { for p in $(pidof lttng-sessiond); do cat "/proc/$p/stat"; done | awk '{ s += ($14 + $15) / 100 } END { print s + 0 }'; }
lttng_have || { echo "guest-bench-load: no LTTng in the guest"; exit 1; }
lttng_up sched
echo "sessiond_cpu_start $(sessiond_cpu)" >> "$OUT/load.txt"
# Fresh guest memory is slow the first time it is touched: fault in a trace's worth.
dd if=/dev/zero of=/tmp/warm bs=1M count=200 2>/dev/null || true
rm -f /tmp/warm
run_evtrace 0
run_lttng 0
r=1
while [ "$r" -le "$rounds" ]; do
	run_evtrace "$r"
	run_lttng "$r"
	r=$((r + 1))
done
echo "sessiond_cpu_end $(sessiond_cpu)" >> "$OUT/load.txt"
lttng_down
