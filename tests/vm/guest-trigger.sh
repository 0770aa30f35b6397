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
# --trigger on the kept trigger after evdrain left; a second evdrain with
# --keep-ms cuts older packets. The host checks the rest (t-trigger.sh).
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
expect_refusal 2 "keep-ms wants a whole number from 1 to 86400000" evdrain --snapshots /tmp/s --keep-ms 0
expect_refusal 2 "keep-mb wants a whole number from 1 to 1048576" evdrain --snapshots /tmp/s --keep-mb 2M
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
timeout 60 evctl snapshot -o $S/t2 --trigger 2 || fail "evctl snapshot --trigger 2 failed"

evctl generate-stop
wait_gen_done 60
evctl stop
# What the rings still hold: with the trigger snapshots, every event recorded.
timeout 60 evctl snapshot -o $S/rest || fail "the last snapshot failed"
evctl status --json > $OUT/status.json
cat $D/generate > $OUT/generate
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
echo "trigger ok" > $OUT/result
