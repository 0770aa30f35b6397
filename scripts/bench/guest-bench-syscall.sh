#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-syscall: N calls of each syscall shape (sysloop:
# 0, 3 and 6 arguments; sysloop32: the same as a 32-bit task's compat
# syscalls) with tracing off and traced, every syscall's entry and exit, the
# reader situation the same on both sides of each comparison:
#   evtrace-drain  evtrace, discard mode, evdrain writing the trace to tmpfs
#   lttng-drain    LTTng 2.13, a normal session (discard channel), its
#                  consumerd writing the trace to tmpfs
#   evtrace        evtrace, overwrite mode, no reader (a flight recorder)
#   lttng-snap     LTTng, a snapshot session (overwrite channel; the consumerd
#                  reads nothing until a snapshot is recorded: none is)
#   ftrace         ftrace's raw_syscalls events (its ring, no reader)
# Both tracers' rings: 32 x 16 KiB per CPU and channel (evtrace's default;
# evtrace has two channels, LTTng one). LTTng's sessions need
# scripts/lttng-vm's staging (/evtrace/lttng-guest.sh). With a baseline
# module (second argument), its evtrace figure too, the two modules in turn.
# Writes "LABEL SHAPE NS" lines (best of 3) to $OUT/syscall.txt, and
# "recorded LABEL N" / "discarded LABEL N" / "lost_packets LABEL N" as proof
# of what each tracer wrote.
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
discarded() { awk '$1 == "compact" || $1 == "normal" { s += $5 } END { print s + 0 }' /sys/kernel/debug/evtrace/stats; }
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
# evtrace in discard mode with evdrain writing to tmpfs: label
drained() {
	insmod "$EVTRACE_KO" probes=0
	evctl enable 'sys_*' exit_syscall > /dev/null
	before=$(recorded)
	evdrain -q -o /tmp/evt-syscall &
	dpid=$!
	until head -n 1 /sys/kernel/debug/evtrace/stats | grep -q '^tracing 1 '; do sleep 0.1; done
	best "$1"
	kill -TERM $dpid
	wait $dpid || true
	echo "recorded $1 $(( $(recorded) - before ))" >> "$OUT/syscall.txt"
	echo "discarded $1 $(discarded)" >> "$OUT/syscall.txt"
	echo "bytes $1 $(du -sk /tmp/evt-syscall | cut -f1)" >> "$OUT/syscall.txt"
	rm -rf /tmp/evt-syscall
	rmmod evtrace
}
sysloop 10000 > /dev/null
best off
traced "$EVTRACE_KO" evtrace
drained evtrace-drain
[ -z "$base" ] || traced "$base" baseline
echo 1 > /sys/kernel/tracing/events/raw_syscalls/enable
best ftrace
echo 0 > /sys/kernel/tracing/events/raw_syscalls/enable
[ -z "$base" ] || { traced "$EVTRACE_KO" evtrace2; traced "$base" baseline2; }
# LTTng: one session per reader situation, the same loop. drain: a normal
# session writing to tmpfs (its consumerd reads as evdrain does); snap: a
# snapshot session (overwrite, nothing read).
lttng_traced() { # label drain|snap
	if [ "$2" = drain ]; then
		lttng create bench --output=/tmp/lttng-syscall > /dev/null
		lttng enable-channel -k --subbuf-size 16384 --num-subbuf 32 --discard c > /dev/null
	else
		lttng create bench --snapshot --output=/tmp/lttng-syscall > /dev/null
		lttng enable-channel -k --subbuf-size 16384 --num-subbuf 32 --overwrite c > /dev/null
	fi
	lttng enable-event -k -c c --syscall -a > /dev/null
	lttng start > /dev/null
	best "$1"
	lttng stop > /dev/null
	# Proof of what it wrote: packets overwritten (snap), events discarded (drain).
	lttng list bench -c c > /tmp/lttng-list 2>&1 || true
	echo "lost_packets $1 $(awk '/Lost packets:/ { print $3 }' /tmp/lttng-list | head -n 1)" >> "$OUT/syscall.txt"
	echo "discarded $1 $(awk '/Discarded events:/ { print $3 }' /tmp/lttng-list | head -n 1)" >> "$OUT/syscall.txt"
	lttng destroy bench > /dev/null
	[ "$2" != drain ] || echo "bytes $1 $(du -sk /tmp/lttng-syscall | cut -f1)" >> "$OUT/syscall.txt"
	rm -rf /tmp/lttng-syscall
}
if [ -f /evtrace/lttng-guest.sh ]; then
	. /evtrace/lttng-guest.sh
	if lttng_have && lttng_up sched; then
		lttng_traced lttng-drain drain
		lttng_traced lttng-snap snap
		lttng_down
	fi
fi
exit 0
