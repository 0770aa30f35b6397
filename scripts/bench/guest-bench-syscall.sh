#!/bin/sh
# Guest side of scripts/bench-syscall: 1 M getppid() with tracing off, with
# evtrace recording sys_enter/sys_exit, with ftrace's raw_syscalls events.
set -e
n=${1:-1000000}
insmod "$EVTRACE_KO" probes=0 mode=overwrite
sysloop 10000 > /dev/null
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
best off sysloop "$n"
recorded() { awk '$1 == "compact" { s += $4 } END { print s + 0 }' /sys/kernel/debug/evtrace/stats; }
evctl enable sys_enter sys_exit > /dev/null
before=$(recorded)
evctl start
best evtrace sysloop "$n"
evctl stop
# Proof that the events were written: about 2 per getppid() over the 3 runs.
echo "recorded $(( $(recorded) - before ))" >> "$OUT/syscall.txt"
echo 1 > /sys/kernel/tracing/events/raw_syscalls/enable
best ftrace sysloop "$n"
echo 0 > /sys/kernel/tracing/events/raw_syscalls/enable
rmmod evtrace
