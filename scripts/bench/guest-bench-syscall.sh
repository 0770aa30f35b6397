#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-syscall: 1 M getppid() with tracing off, with
# evtrace recording the syscall entry events (sys_*) and exit_syscall, with ftrace's raw_syscalls events;
# with a baseline module (second argument) its evtrace figure too, the two
# modules in turn.
set -e
n=${1:-1000000}
base=${2:-}
best() { # label command...: best of 3
	label=$1
	shift
	b=""
	for i in 1 2 3; do
		t=$("$@")
		b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (a == "" || t < a) ? t : a }')
	done
	echo "$label $b" >> "$OUT/syscall.txt"
}
# Entries are normal events since 0.2 (exits compact): count both channels.
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
	best "$2" sysloop "$n"
	$ctl stop
	# Proof that the events were written: about 2 per getppid() over 3 runs.
	echo "recorded_$2 $(( $(recorded) - before ))" >> "$OUT/syscall.txt"
	rmmod evtrace
}
sysloop 10000 > /dev/null
best off sysloop "$n"
traced "$EVTRACE_KO" evtrace
[ -z "$base" ] || traced "$base" baseline
echo 1 > /sys/kernel/tracing/events/raw_syscalls/enable
best ftrace sysloop "$n"
echo 0 > /sys/kernel/tracing/events/raw_syscalls/enable
[ -z "$base" ] || { traced "$EVTRACE_KO" evtrace2; traced "$base" baseline2; }
exit 0
