#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A traced workload for the analysis tools: a process of 4 threads alive
# before START (the state dump must list each), then forks, execs, sleeps,
# file and UDP syscalls, with interrupts from the console and virtio.
# Lists every thread (tid pid ppid) before and after START for the host,
# and two workloads' pids with their kernel prio (nice 0 and nice 10).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || true
threads() { # file
	for s in /proc/[0-9]*/task/[0-9]*/status; do
		awk '/^Pid:/ { t = $2 } /^Tgid:/ { p = $2 } /^PPid:/ { pp = $2 } END { if (t) print t, p, pp }' "$s" 2>/dev/null || true
	done | sort -n > "$1"
}
# Kernel stacks: power_cpu_frequency's from load (the parameter), block_rq_issue's by evctl.
insmod "$EVTRACE_KO" num_subbuf=64 stacks=power_cpu_frequency
insmod "$OUT/evt_fault.ko" fault=power
workload --hold 60 --threads 3 &
holder=$!
# Block I/O (t-analyses boots with a virtio disk): a partition, so that
# requests are remapped from vda1 to vda, and blkio's descriptors open
# before START (the state dump names them).
printf 'o\nn\np\n1\n2048\n\nw\n' | fdisk /dev/vda > /dev/null 2>&1 || true
i=0
while [ ! -b /dev/vda1 ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda1 ] || fail "no partition /dev/vda1"
blkio /dev/vda1 /tmp/blkio.go > "$OUT/blkio.out" &
blk=$!
until grep -q ready "$OUT/blkio.out" 2>/dev/null; do sleep 0.1; done
echo "$blk" > "$OUT/blkio.pid"
sleep 1
threads "$OUT/threads-before.txt"
evdrain -o "$OUT/trace" --stats-json "$OUT/summary.json" > "$OUT/evdrain.out" 2>&1 &
pid=$!
wait_tracing
# (lttng-cputop lists a thread's priorities from its first switch in: the
# workloads below must not start before the scheduler's probes are on.)
wait_probes
evctl enable --stack block_rq_issue
evctl status | grep -q '^  block_rq_issue  *compact  *yes  *yes$' || fail "block_rq_issue's stack is not on"
threads "$OUT/threads-after.txt"
# Priorities (lttng-cputop against the kernel's): the same rounds at nice 0
# and at nice 10, concurrently; each prints its pid and its prio as the
# kernel reports it (/proc/self/stat).
workload --rounds 20 --nice 10 > "$OUT/prio-niced.txt" &
niced=$!
workload --rounds 60 > "$OUT/prio.txt"
wait $niced || fail "niced workload exit $?"
cat "$OUT/prio-niced.txt" >> "$OUT/prio.txt"
touch /tmp/blkio.go
wait $blk || fail "blkio exit $?"
cat "$OUT/blkio.out"
# Frequencies (kHz) for every CPU, 300 ms each: the power events' test and the stacks'.
for f in 1200000 2400000 1200000; do
	echo $f > /dev/evt_fault
	sleep 0.3
done
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
rmmod evt_fault
echo analyses workload ok
