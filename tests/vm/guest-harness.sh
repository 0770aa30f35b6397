#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the harness self-test (t-harness.sh): misbehave as asked.
#   exit3        write $OUT/harness.txt, then exit 3
#   hang         never return (vm-run's time limit must end the run)
#   fault NAME   load $OUT/evt_fault.ko fault=NAME (the scratch module)
#   lost-timer [FORM]  first boot: print an RCU stall report of the lost-timer
#                kind and hang; second boot (vm_run_attempt=2): exit 0. FORM
#                "idle" (default): CPU 1 idle in the idle loop, evtrace not
#                loaded; "busy-loaded": evtrace loaded and CPU 1 shown as a
#                "Task dump for CPU 1:" (not idle): vm-run must not boot again
#   static       run /usr/local/bin/evt-static (vm-run --copy-bin of a
#                statically linked program), write its output to $OUT
case "$1" in
exit3)
	echo "written before exit 3" > "$OUT/harness.txt"
	exit 3 ;;
hang)
	while :; do sleep 60; done ;;
lost-timer)
	if grep -q vm_run_attempt=2 /proc/cmdline; then
		[ ! -e "$OUT/first-boot.txt" ] || exit 4	# the first boot's files must be gone
		echo "booted again" > "$OUT/harness.txt"
		exit 0
	fi
	echo "left by the first boot" > "$OUT/first-boot.txt"
	if [ "${2:-idle}" = busy-loaded ]; then
		insmod "$EVTRACE_KO" || exit 1
		cpu1="Task dump for CPU 1:"
	else
		cpu1="NMI backtrace for cpu 1 skipped: idling at native_safe_halt+0xb/0x10"
	fi
	for l in "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" \
		 "rcu: 	1-...!: (0 ticks this GP) idle=1234/0/0x0 softirq=100/100 fqs=0 (simulated)" \
		 "$cpu1" \
		 "rcu: rcu_preempt kthread timer wakeup didn't happen for 5251 jiffies! (simulated)"; do
		echo "<4>$l" > /dev/kmsg
	done
	while :; do sleep 60; done ;;
static)
	/usr/local/bin/evt-static echo "a static program ran" > "$OUT/static.txt" || exit 1
	exit 0 ;;
fault)
	insmod "$OUT/evt_fault.ko" "fault=$2" || exit 1
	echo "loaded fault=$2" > "$OUT/harness.txt"
	exit 0 ;;
esac
echo "guest-harness: unknown mode $1"
exit 2
