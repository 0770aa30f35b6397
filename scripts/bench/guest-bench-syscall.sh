#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-syscall: N calls of each syscall shape (sysloop:
# 0, 3 and 6 arguments; sysloop32: the same as a 32-bit task's compat
# syscalls) with tracing off, with evtrace recording the syscall entry events
# (sys_*) and exit_syscall, with ftrace's raw_syscalls events; with a
# baseline module (second argument) its evtrace figure too, the two modules
# in turn; with LTTng in the guest (scripts/lttng-vm), LTTng 2.13 recording
# every syscall's entry and exit (lttng enable-event -k --syscall -a, label
# lttng) and getppid's alone (--syscall getppid, label lttng1, getppid shapes
# only), in an overwrite channel of evtrace's default ring size (32 x 16 KiB
# per CPU). Writes "LABEL SHAPE NS" lines (best of 3) to $OUT/syscall.txt.
set -e
n=${1:-1000000}
base=${2:-}
shapes="getppid lseek futex getppid32 lseek32 futex32"
run_shape() { # shape
	case "$1" in
	*32) sysloop32 "$n" "${1%32}" ;;
	*) sysloop "$n" "$1" ;;
	esac
}
best() { # label [SHAPES]: best of 3 for every shape
	for s in ${2:-$shapes}; do
		b=""
		for i in 1 2 3; do
			t=$(run_shape "$s")
			b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (a == "" || t < a) ? t : a }')
		done
		echo "$1 $s $b" >> "$OUT/syscall.txt"
	done
}
# Events recorded on both channels (a baseline from before 0.2 has no normal-channel syscalls, the sum is the same).
recorded() { awk '$1 == "compact" || $1 == "normal" { s += $4 } END { print s + 0 }' /sys/kernel/debug/evtrace/stats; }
# evtrace with module KO: label; the baseline with its own evctl
traced() {
	ctl=evctl
	[ "$1" = "$EVTRACE_KO" ] || ctl=/usr/local/bin/evctl-baseline
	insmod "$1" probes=0 mode=overwrite
	# A baseline from before 0.2 names them sys_enter and sys_exit.
	$ctl enable 'sys_*' exit_syscall > /dev/null 2>&1 || $ctl enable sys_enter sys_exit > /dev/null
	before=$(recorded)
	$ctl start
	best "$2"
	$ctl stop
	# Proof that the events were written: about 2 per call.
	echo "recorded $2 $(( $(recorded) - before ))" >> "$OUT/syscall.txt"
	rmmod evtrace
}
sysloop 10000 > /dev/null
best off
traced "$EVTRACE_KO" evtrace
[ -z "$base" ] || traced "$base" baseline
echo 1 > /sys/kernel/tracing/events/raw_syscalls/enable
best ftrace
echo 0 > /sys/kernel/tracing/events/raw_syscalls/enable
[ -z "$base" ] || { traced "$EVTRACE_KO" evtrace2; traced "$base" baseline2; }
# LTTng: one session per set of events, the same loop.
lttng_traced() { # label syscall-list [SHAPES]
	lttng create bench --output=/tmp/lttng-syscall > /dev/null
	lttng enable-channel -k --subbuf-size 16384 --num-subbuf 32 --overwrite c > /dev/null
	if [ "$2" = all ]; then
		lttng enable-event -k -c c --syscall -a > /dev/null
	else
		lttng enable-event -k -c c --syscall "$2" > /dev/null
	fi
	lttng start > /dev/null
	best "$1" "${3:-}"
	lttng stop > /dev/null
	# Proof that the events were written: packets overwritten in the channel.
	echo "lost_packets $1 $(lttng list bench | awk '/Lost packets:/ { print $3 }')" >> "$OUT/syscall.txt"
	lttng destroy bench > /dev/null
	rm -rf /tmp/lttng-syscall
}
if [ -f /evtrace/lttng-guest.sh ]; then
	. /evtrace/lttng-guest.sh
	if lttng_have && lttng_up sched; then
		lttng_traced lttng all
		lttng_traced lttng1 getppid "getppid getppid32"
		lttng_down
	fi
fi
exit 0
