#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A traced workload for the analysis tools: a process of 4 threads alive
# before START (the state dump must list each), then forks, execs, sleeps,
# file and UDP syscalls, with interrupts from the console and virtio.
# Lists every thread (tid pid ppid) before and after START for the host.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || true
threads() { # file
	for s in /proc/[0-9]*/task/[0-9]*/status; do
		awk '/^Pid:/ { t = $2 } /^Tgid:/ { p = $2 } /^PPid:/ { pp = $2 } END { if (t) print t, p, pp }' "$s" 2>/dev/null || true
	done | sort -n > "$1"
}
insmod "$EVTRACE_KO" num_subbuf=64
workload --hold 60 --threads 3 &
holder=$!
sleep 1
threads "$OUT/threads-before.txt"
evdrain -o "$OUT/trace" --stats-json "$OUT/summary.json" > "$OUT/evdrain.out" 2>&1 &
pid=$!
wait_tracing
threads "$OUT/threads-after.txt"
workload --rounds 60
# A 32-bit task: its syscalls are compat_sys_<name> events.
echo "32-bit $(sysloop32 500) ns per getppid"
# Syscalls with known arguments, 64- and 32-bit (analyses-check.py).
sysloop 20 args > /dev/null
sysloop32 20 args > /dev/null
# The same 32-bit calls with garbage in the upper halves of their registers.
sysloop 20 args32 > /dev/null
sleep 1
kill -TERM $pid
wait $pid || fail "evdrain exit $?"
cat "$OUT/evdrain.out"
kill $holder
cp $D/stats "$OUT/stats"
[ "$(stat_sum compact 5)" -eq 0 ] || fail "compact events discarded"
[ "$(stat_sum normal 5)" -eq 0 ] || fail "normal events discarded"
rmmod evtrace
echo analyses workload ok
