#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Triggers (issue 23): the flight recorder keeps what preceded a kernel
# report. Overwrite mode, small rings, the generator at a steady rate that
# fills them, an evdrain --snapshots waiting; then the fault module
# (tests/vm/faultmod) makes the kernel report: FAULT=warn (a WARN, on every
# kernel) or FAULT=kasan (a KASAN report, on the debug kernel). Checked here:
# bad parameters fail insmod naming the parameter and its range; nothing is
# kept before a trigger; evdrain saves trigger 1 into $OUT/trig; a second
# report within trigger_interval_ms is suppressed (counted); evctl snapshot
# --trigger on the kept trigger after evdrain left, and what anyone sees of
# its holds in evctl status; a plain snapshot never read does not release
# them, even past its own expiry; trigger_keep_ms releases an unread one,
# said once in the kernel log; a second evdrain with --keep-ms cuts older
# packets. Last, the kernel in trouble: an oops inside a spin_lock_irqsave()
# section while another CPU spins on that lock with interrupts off: the
# trigger still completes, naming that CPU, evctl snapshot --trigger saves
# what was held, evctl status answers a normal user, and once the CPU is
# let go everything answers again and the module unloads. The host checks
# the rest (t-trigger.sh).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
FAULT=${1:-warn}	# the first report; the later ones are WARNs (KASAN reports only its first)
TRIGGERS=$FAULT
[ "$FAULT" = warn ] || TRIGGERS=$FAULT,warn
S=$OUT/snap
mkdir -p $S

# Bad parameters: insmod fails and the kernel log names the parameter and its range.
! insmod "$EVTRACE_KO" triggers=kasan,bogus 2>/dev/null || fail "insmod took triggers=kasan,bogus"
dmesg | grep -q "triggers=kasan,bogus is invalid: it must be none, all, or a comma-separated list of kasan, kfence, warn and oops" ||
	fail "no message for triggers=kasan,bogus"
! insmod "$EVTRACE_KO" trigger_interval_ms=5 2>/dev/null || fail "insmod took trigger_interval_ms=5"
dmesg | grep -q "trigger_interval_ms=5 is invalid: it must be from 100 to 3600000" ||
	fail "no message for trigger_interval_ms=5"

insmod "$EVTRACE_KO" probes=0 mode=overwrite subbuf_size=4096 num_subbuf=8 flush_ms=0 triggers=$TRIGGERS
[ "$(cat /sys/module/evtrace/parameters/triggers)" = "$TRIGGERS" ] || fail "triggers reads $(cat /sys/module/evtrace/parameters/triggers)"
! echo bogus > /sys/module/evtrace/parameters/triggers 2>/dev/null || fail "sysfs took triggers=bogus"
# Blanks around the words are not part of them.
echo " none " > /sys/module/evtrace/parameters/triggers || fail "sysfs refused triggers=' none '"
[ "$(cat /sys/module/evtrace/parameters/triggers)" = none ] || fail "' none ' reads $(cat /sys/module/evtrace/parameters/triggers)"
echo " warn , oops" > /sys/module/evtrace/parameters/triggers || fail "sysfs refused triggers=' warn , oops'"
[ "$(cat /sys/module/evtrace/parameters/triggers)" = warn,oops ] || fail "' warn , oops' reads $(cat /sys/module/evtrace/parameters/triggers)"
echo $TRIGGERS > /sys/module/evtrace/parameters/triggers
evctl start
expect_refusal 1 "no trigger has fired" evctl snapshot -o /tmp/none --trigger 1
[ ! -e /tmp/none ] || fail "the refused snapshot left /tmp/none"
grep -q '^kept none$' $D/triggers || fail "a trigger is kept before any fired: $(cat $D/triggers)"

# evdrain --snapshots: usage errors (2) and a DIR it cannot use (1).
expect_refusal 2 "leaves the session as it is: no -o" evdrain --snapshots /tmp/s -o /tmp/o
expect_refusal 2 "go with --snapshots" evdrain -o /tmp/o --keep-ms 5
expect_refusal 2 "keep-ms wants whole milliseconds from 1 to 86400000" evdrain --snapshots /tmp/s --keep-ms 0
# 2M is 2 MiB now (units, docs/exit-codes.md); a part of a MiB is refused, not rounded.
expect_refusal 2 "keep-mb wants whole MiB from 1 to 1048576" evdrain --snapshots /tmp/s --keep-mb 512K
expect_refusal 1 "is not a directory evdrain can write into" evdrain --snapshots /proc/version
# No trigger on: it says so, and waits all the same.
echo none > /sys/module/evtrace/parameters/triggers
timeout 60 evdrain --snapshots /tmp/s --duration 1 > /dev/null 2> /tmp/x.err || fail "evdrain --snapshots --duration 1 failed"
grep -q "no trigger is on" /tmp/x.err || fail "evdrain did not warn that no trigger is on: $(cat /tmp/x.err)"
# Off means detached: a WARN fires nothing.
insmod "$OUT/evt_fault.ko" fault=warn
rmmod evt_fault
grep -q "^fired warn 0$" $D/triggers || fail "a WARN fired with triggers=none: $(cat $D/triggers)"
echo $TRIGGERS > /sys/module/evtrace/parameters/triggers

evdrain --snapshots $OUT/trig > /tmp/evd.out 2> /tmp/evd.err &
drainer=$!
wait_until 60 "evdrain --snapshots did not start waiting" grep -q "waiting for triggers" /tmp/evd.err
grep -q "no trigger is on" /tmp/evd.err && fail "evdrain warned that no trigger is on"
# At 200 events/s per CPU and channel the 8 sub-buffers of a ring are full
# after 11 s (as in t-snapshot), and the snapshot holds what preceded the report.
evctl generate --events 100000000 --rate 200 --channel both --sizes mix --cpus all
sleep 11
insmod "$OUT/evt_fault.ko" fault=$FAULT
saved() { grep -q "^trigger 1 ($FAULT)" /tmp/evd.out; }
wait_until 60 "evdrain saved no snapshot for trigger 1: $(cat /tmp/evd.err)" saved
cat /tmp/evd.out
grep -q "^kept 1 $FAULT " $D/triggers || fail "trigger 1 not kept: $(cat $D/triggers)"
grep -q "^fired $FAULT 1$" $D/triggers || fail "fired count: $(cat $D/triggers)"
# A second report within trigger_interval_ms (10 s): suppressed.
rmmod evt_fault
insmod "$OUT/evt_fault.ko" fault=warn
rmmod evt_fault
grep -q "^suppressed 1$" $D/triggers || fail "the second report was not suppressed: $(cat $D/triggers)"
grep -q "^fired $FAULT 1$" $D/triggers || fail "the second report fired: $(cat $D/triggers)"
kill -TERM $drainer
wait $drainer || { cat /tmp/evd.err; fail "evdrain --snapshots did not end cleanly"; }
mv "$OUT"/trig/*-$FAULT-1 $S/t1 || fail "no $OUT/trig/*-$FAULT-1: $(ls $OUT/trig)"

# Nobody listening: trigger 2 is kept in the rings, evctl snapshot --trigger saves it.
echo 100 > /sys/module/evtrace/parameters/trigger_interval_ms
sleep 1
insmod "$OUT/evt_fault.ko" fault=warn
rmmod evt_fault
wait_until 30 "trigger 2 not kept: $(cat $D/triggers)" grep -q "^kept 2 warn " $D/triggers
dmesg | grep -q "trigger 2 (warn) kept the rings: nobody listens" || fail "no kernel message for the unheard trigger"
expect_refusal 1 "only the last trigger" evctl snapshot -o /tmp/old --trigger 1
# Which rings are held, by what, since when: anyone may see it.
nopriv evctl status > /tmp/st || fail "evctl status as nobody failed"
grep -q '^trigger  *2 (warn) kept: held until read, or [0-9]* s more (trigger_keep_ms)$' /tmp/st ||
	fail "status: $(grep ^trigger /tmp/st)"
grep -q '^held  *by trigger 2: compact [0-9,]* normal [0-9,]* (for [0-9.]* s)$' /tmp/st ||
	fail "status: $(grep ^held /tmp/st)"
# A plain SNAPSHOT nobody reads (evnl sends it, as evctl would before
# reading), then past its 10 s expiry: the trigger's holds are not its to
# release, no held ring overwrote anything (the host compares the counts).
evctl status --json > $OUT/hold-before.json
evnl --dump 15 > /dev/null || fail "SNAPSHOT by evnl failed"
nopriv evctl status > /tmp/st
grep -q '^held  *by trigger 2: .*; by a snapshot: compact [0-9,]* normal [0-9,]* (for [0-9.]* s)$' /tmp/st ||
	fail "status after SNAPSHOT: $(grep ^held /tmp/st)"
sleep 11
nopriv evctl status > /tmp/st
grep -q '^held  *by trigger 2: compact [0-9,]* normal [0-9,]* (for [0-9.]* s)$' /tmp/st ||
	fail "status past the snapshot's expiry: $(grep ^held /tmp/st)"
evctl status --json > $OUT/hold-after.json
timeout 60 evctl snapshot -o $S/t2 --trigger 2 || fail "evctl snapshot --trigger 2 failed"
nopriv evctl status | grep -q '^trigger  *2 (warn) kept: read$' || fail "trigger 2 not read: $(evctl status | grep -A1 ^trigger)"
# trigger_keep_ms: an unread trigger's holds go after it, said once in the kernel log.
! echo 86400001 > /sys/module/evtrace/parameters/trigger_keep_ms 2>/dev/null || fail "sysfs took trigger_keep_ms=86400001"
dmesg | grep -q "trigger_keep_ms=86400001 is invalid: it must be from 0 (until read) to 86400000" ||
	fail "no message for trigger_keep_ms=86400001"
grep -q ' keep_ms 600000$' $D/triggers || fail "trigger_keep_ms is not 600000 by default: $(head -1 $D/triggers)"
echo 1500 > /sys/module/evtrace/parameters/trigger_keep_ms
insmod "$OUT/evt_fault.ko" fault=warn
rmmod evt_fault
wait_until 30 "trigger 3 not kept: $(cat $D/triggers)" grep -q "^kept 3 warn ts [0-9]*$" $D/triggers
dmesg | grep -q "trigger 3 (warn) kept the rings: nobody listens; evctl snapshot --trigger 3 saves them (they record again after trigger_keep_ms=1500 unread)" ||
	fail "no kernel message for the unheard trigger 3"
wait_until 30 "trigger 3's holds did not go after trigger_keep_ms: $(cat $D/triggers)" grep -q "^kept 3 warn ts [0-9]* expired$" $D/triggers
[ "$(dmesg | grep -c 'trigger 3: [0-9]* rings were still held unread after trigger_keep_ms: released')" = 1 ] ||
	fail "the kernel log did not say once that trigger 3's holds went: $(dmesg | grep 'trigger 3')"
nopriv evctl status > /tmp/st
grep -q '^trigger  *3 (warn) kept: its holds went unread (trigger_keep_ms)$' /tmp/st || fail "status: $(grep ^trigger /tmp/st)"
grep -q '^held  *none$' /tmp/st || fail "status: $(grep ^held /tmp/st)"
expect_refusal 1 "went after trigger_keep_ms unread" evctl snapshot -o /tmp/t3 --trigger 3
echo 600000 > /sys/module/evtrace/parameters/trigger_keep_ms

evctl generate-stop
wait_gen_done 60
evctl stop
# What the rings still hold: with the trigger snapshots, every event recorded.
timeout 60 evctl snapshot -o $S/rest || fail "the last snapshot failed"
evctl status --json > $OUT/status.json
cat $D/generate > $OUT/generate
cat $D/triggers > $OUT/triggers-1
rmmod evtrace

# A fresh module for --keep-ms (what it cuts would be missing from the sums above).
insmod "$EVTRACE_KO" probes=0 mode=overwrite subbuf_size=4096 num_subbuf=8 flush_ms=0 triggers=warn
evctl start
evctl generate --events 100000000 --rate 200 --channel both --sizes mix --cpus all
# --keep-ms: only the packets that end within 1 ms of the trigger.
evdrain --snapshots $OUT/trig3 --keep-ms 1 > /tmp/evd3.out 2> /tmp/evd3.err &
drainer=$!
wait_until 60 "the second evdrain did not start waiting" grep -q "waiting for triggers" /tmp/evd3.err
sleep 3
insmod "$OUT/evt_fault.ko" fault=warn
rmmod evt_fault
wait_until 60 "evdrain --keep-ms saved no snapshot for trigger 1: $(cat /tmp/evd3.err)" grep -q "^trigger 1 (warn)" /tmp/evd3.out
cat /tmp/evd3.out
grep -q "older packets left out" /tmp/evd3.out || fail "--keep-ms 1 left no packet out"
kill -TERM $drainer
wait $drainer || { cat /tmp/evd3.err; fail "the second evdrain did not end cleanly"; }
mv "$OUT"/trig3/*-warn-1 $OUT/keep1

evctl generate-stop
wait_gen_done 60
evctl stop
rmmod evtrace

# -- The kernel in trouble: an oops inside a spin_lock_irqsave() section, and
# CPU 1 spinning on that lock with interrupts off for good (until evt_fault
# is unloaded). The trigger's flush must not wait for CPU 1 for ever: its
# rings are kept as they are (their open sub-buffers left out) and the
# notification names it; netlink (STATUS as anyone, SNAPSHOT --trigger,
# FLUSH) answers meanwhile. While CPU 1 is stuck nothing may wait for it:
# every IRQ on CPU 0, this shell on CPU 0 and the files in /tmp (no 9p), no
# module loaded or unloaded (both wait for every CPU: evt_fault is loaded
# first, and told to go once its load is over); RCU's stall report, 21 s
# away on the stock kernel and 60 s on the debug one, and the hung-task
# report (a task waiting for a grace period), 120 s away, are put off to 300
# and 600 s, so that a slow debug kernel finishes first (CPU 1 really is
# stalled: that is the case under test, not a harness failure).
insmod "$EVTRACE_KO" probes=0 mode=overwrite subbuf_size=4096 num_subbuf=8 flush_ms=0 triggers=oops
evctl start
evctl generate --events 100000000 --rate 200 --channel both --sizes mix --cpus all
for f in /proc/irq/*/smp_affinity; do echo 1 > $f 2>/dev/null || true; done
taskset -pc 0 $$ > /dev/null
echo 0 > /proc/sys/kernel/panic_on_oops
echo 300 > /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
[ ! -e /proc/sys/kernel/hung_task_timeout_secs ] || echo 600 > /proc/sys/kernel/hung_task_timeout_secs
insmod "$OUT/evt_fault.ko" fault=oops_locked
sleep 3
evctl watch --reason TRIGGER --count 1 --timeout 120 > /tmp/stuck.watch 2>&1 &
watcher=$!
two_sockets() { [ "$(ls -l /proc/$watcher/fd 2>/dev/null | grep -c socket)" -ge 2 ]; }
wait_until 30 "evctl watch did not join the notify group" two_sockets
sleep 1
echo 1 > /sys/module/evt_fault/parameters/go
wait $watcher || { cat /tmp/stuck.watch; fail "no TRIGGER notification after the oops"; }
cat /tmp/stuck.watch
grep -q "^TRIGGER .* trigger=oops seq=1 ts=[0-9]* unanswered=1$" /tmp/stuck.watch || fail "the notification does not name CPU 1"
dmesg | grep -q "trigger 1: CPUs 1 did not answer the flush" || fail "no kernel message naming CPU 1"
timeout 20 nopriv evctl status > /tmp/st || fail "evctl status as nobody did not answer"
grep -q '^trigger  *1 (oops) kept: held until read' /tmp/st || fail "status: $(grep ^trigger /tmp/st)"
grep -q '^unanswered   compact 1: 1 flush, normal 1: 1 flush not answered in time' /tmp/st ||
	fail "status: $(grep ^unanswered /tmp/st)"
timeout 60 evctl snapshot -o /tmp/stuck --trigger 1 > /tmp/stuck.out 2> /tmp/stuck.err ||
	{ cat /tmp/stuck.err; fail "evctl snapshot --trigger 1 failed with CPU 1 stuck"; }
cat /tmp/stuck.out /tmp/stuck.err
grep -q "CPU 1 did not answer the flush (spinning with interrupts off?): 2 rings saved as they were" /tmp/stuck.err ||
	fail "evctl snapshot did not say CPU 1 did not answer"
timeout 20 evctl flush || fail "FLUSH did not answer with CPU 1 stuck"
timeout 20 cat $D/triggers > /dev/null || fail "the debugfs triggers file did not answer"
timeout 30 evctl snapshot -o /tmp/stuck-plain > /dev/null 2> /tmp/stuck-plain.err ||
	{ cat /tmp/stuck-plain.err; fail "a plain snapshot did not answer with CPU 1 stuck"; }
grep -q "CPU 1 did not answer the flush" /tmp/stuck-plain.err || fail "the plain snapshot did not name CPU 1"
timeout 30 evctl stop || fail "STOP did not answer with CPU 1 stuck"
dmesg | grep -q "STOP: a CPU does not answer" || fail "STOP did not say why it did not wait"
# CPU 1 let go: the flushes it owed run, everything answers again.
rmmod evt_fault
dmesg | grep -q "evt_fault: the spinner on CPU 1 gives up" || fail "the spinner was not let go"
answers() { # a flush adds no unanswered one
	evctl flush && evctl status | grep ^unanswered > /tmp/u1 && evctl flush &&
		evctl status | grep ^unanswered | cmp -s - /tmp/u1
}
wait_until 30 "CPU 1 did not answer a flush again" answers
evctl generate-stop
wait_gen_done 60
evctl stop
taskset -pc 0-$(($(grep -c ^processor /proc/cpuinfo) - 1)) $$ > /dev/null
mv /tmp/stuck $S/stuck
rmmod evtrace || fail "evtrace did not unload once CPU 1 answered again"
echo "trigger ok" > $OUT/result
