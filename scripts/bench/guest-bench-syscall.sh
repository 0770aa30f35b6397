#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-syscall: N calls of each syscall shape (sysloop:
# 0, 3 and 6 arguments; sysloop32: the same as a 32-bit task's compat
# syscalls) with tracing off, with evtrace recording the syscall entry events
# (sys_*) and exit_syscall, with ftrace's raw_syscalls events; with a
# baseline module (second argument) its evtrace figure too, the two modules
# in turn. Writes "LABEL SHAPE NS" lines (best of 3) to $OUT/syscall.txt.
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
best() { # label: best of 3 for every shape
	for s in $shapes; do
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
exit 0
