#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# STOP stops every writer (issue 15, item 8). A test build of the module
# (EVT_TEST_WINDOWS) makes the next writer wait 1 s right after it saw
# tracing on (asleep where it is preemptible, spinning where it is not). STOP
# in that second must wait for it: the tracing flag is read with preemption
# off and STOP waits a grace period, so what STOP's flush closes is
# everything. A writer that checks the flag while preemptible records after
# STOP returned, into a packet nothing closes: the recorded count grows after
# STOP (seen: 0 at STOP, 1 a second later).
# Then the holds and triggers (issue 40), each on a fresh module (a test
# trigger, test_trigger, fires as a report would, without one):
# - a trigger whose rings are held but which is not kept yet: SNAPSHOT with
#   its number is refused at once (EAGAIN), never made to wait for the work;
# - a snapshot's reader at its bound waits in the window before it releases
#   the holds it reached; a trigger fires meanwhile and holds every ring
#   further: the release must leave the trigger's hold (it once cleared
#   both, and SNAPSHOT --trigger then left that ring out);
# - a trigger's notification waits in the window before its multicast;
#   rmmod meanwhile must wait for it (a family being unregistered must not
#   be sent to: the test build checks it);
# - the oops hook runs on a CPU going offline, past its last irq_work_run()
#   (test_trigger_dying, from a kprobe: an NMI-like context when the probe
#   is an int3, a plain one when optimized): the trigger completes, or is
#   let go (from an NMI: counted suppressed); either way the slot is free for
#   the next report and the module unloads (an irq_work queued there never
#   ran: the slot stayed claimed for good and rmmod spun in irq_work_sync()).
# - STOP while a state dump waits before its first event (window 5): at
#   START, and after a rotation's cut; the dump must be recorded whole (it
#   was cancelled; the host reads the traces).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 flush_ms=0
test -e /sys/module/evtrace/parameters/test_window_ms || fail "not a test-windows build"
evctl start
echo 0 > /sys/module/evtrace/parameters/test_window_at
echo 1000 > /sys/module/evtrace/parameters/test_window_ms
evctl generate --events 1 --channel compact --cpus 0 --sizes fixed
# The writer is in its window once the parameter reads 0 again.
armed() { [ "$(cat /sys/module/evtrace/parameters/test_window_ms)" = 0 ]; }
wait_until 30 "no writer entered the window" armed
evctl stop
at_stop=$(stat_sum compact 4)
delivered_at_stop=$(stat_sum compact 9)
wait_gen_done 60
sleep 1
cat $D/stats
later=$(stat_sum compact 4)
echo "recorded when STOP returned $at_stop (packets delivered $delivered_at_stop), a second later $later"
[ "$later" = 1 ] || fail "the writer recorded $later events, want 1"
[ "$at_stop" = "$later" ] || fail "a writer recorded after STOP returned"
[ "$delivered_at_stop" = 1 ] || fail "STOP's flush did not deliver the event's packet"
rmmod evtrace
echo "stop window: the writer in the window was waited for"

load_triggers() { # TRIGGERS
	insmod "$EVTRACE_KO" probes=0 flush_ms=0 mode=overwrite subbuf_size=4096 num_subbuf=8 triggers=$1
	evctl start
}
window() { # AT MS
	echo $1 > /sys/module/evtrace/parameters/test_window_at
	echo $2 > /sys/module/evtrace/parameters/test_window_ms
}

# -- a reader at its bound, a trigger in its window
load_triggers warn
# 200 events/s per CPU and channel: about a sub-buffer a second, so that every
# ring records past the snapshot's bound during the window (a full ring
# held there could not: the trigger's bound would be the snapshot's, and
# the snapshot would read all the trigger holds, rightly releasing it).
evctl generate --events 100000000 --rate 200 --channel both --sizes mix --cpus all
sleep 2
timeout 60 evctl snapshot -o /tmp/drained > /dev/null || fail "the first snapshot failed"
window 2 4000
evctl snapshot -o /tmp/plain > /tmp/plain.out 2>&1 &
reader=$!
wait_until 30 "no snapshot reader entered the window" armed
sleep 1
echo warn > /sys/module/evtrace/parameters/test_trigger
wait_until 30 "test trigger 1 not kept: $(cat $D/triggers)" grep -q "^kept 1 warn ts [0-9]*$" $D/triggers
wait $reader || { cat /tmp/plain.out; fail "the snapshot in the window failed"; }
nopriv evctl status > /tmp/st
grep -q '^held  *by trigger 1: compact 0,1 normal 0,1 (for [0-9.]* s)$' /tmp/st ||
	fail "a reader at its bound released trigger 1's hold: $(grep ^held /tmp/st)"
timeout 60 evctl snapshot -o /tmp/t1 --trigger 1 || fail "evctl snapshot --trigger 1 failed"
for f in /tmp/t1/compact_0 /tmp/t1/compact_1 /tmp/t1/normal_0 /tmp/t1/normal_1; do
	[ -s $f ] || fail "$f is empty: the trigger's hold on that ring went with the reader's"
done
evctl generate-stop
wait_gen_done 60
rmmod evtrace
echo "hold window: a reader at its bound left a later trigger's hold"

# -- a trigger being kept (its rings held, not yet kept: window 3): SNAPSHOT
# with its number is refused, not made to wait for it
load_triggers warn
window 3 3000
echo warn > /sys/module/evtrace/parameters/test_trigger
wait_until 30 "the trigger did not enter the window" armed
grep -q "^kept 1 warn ts [0-9]* flushing$" $D/triggers || fail "trigger 1 not shown as being kept: $(cat $D/triggers)"
expect_refusal 1 "still being flushed: ask again when its notification arrives" evctl snapshot -o /tmp/early --trigger 1
[ ! -e /tmp/early ] || fail "the refused snapshot left /tmp/early"
wait_until 30 "trigger 1 not kept after the window: $(cat $D/triggers)" grep -q "^kept 1 warn ts [0-9]*$" $D/triggers
rmmod evtrace
echo "kept window: a snapshot of a trigger still being kept was refused at once"

# -- rmmod while a trigger's notification is about to go
load_triggers warn
window 4 2000
echo warn > /sys/module/evtrace/parameters/test_trigger
wait_until 30 "the notification did not enter the window" armed
rmmod evtrace || fail "rmmod during the trigger's notification failed"
echo "notify window: the family stayed until the notification was sent"

# -- a state dump asked for just before STOP: STOP records it first, whole
# (it was cancelled: t-rotate's last chunk, 36 ms long, once had none).
# Window 5 holds the dump's work before its first event; STOP comes while it
# waits there. The host reads every trace with babeltrace2 for
# lttng_statedump_start and lttng_statedump_end. The dump's events alone
# (no tracepoint probes: their patching is most of a debug kernel's time).
insmod "$EVTRACE_KO" probes=0 num_subbuf=32
evctl enable lttng_statedump_start lttng_statedump_process_state lttng_statedump_interrupt \
	lttng_statedump_file_descriptor lttng_statedump_block_device lttng_statedump_end
# A session stopped as soon as START's dump is under way.
window 5 500
evdrain -o /tmp/dumpstop > /tmp/dumpstop.out 2>&1 &
pid=$!
wait_until 30 "START's state dump did not enter the window" armed
kill -TERM $pid
wait $pid || { cat /tmp/dumpstop.out; fail "evdrain (STOP during START's dump) exit $?"; }
# A rotation, then STOP while the new chunk's dump (STATEDUMP after the cut)
# waits: the last chunk needs its own. START's dump is drained whole into
# the first chunk before the cut (the periodic flush closes its packet), so
# that the last chunk's dump can only be the one STOP waited for.
evdrain -o /tmp/dumprot --rotate-size 64M > /tmp/dumprot.out 2>&1 &
pid=$!
wait_tracing
first_dump() { evcat /tmp/dumprot/.inprogress-0 2> /dev/null | grep -q lttng_statedump_end; }
wait_until 60 "START's state dump never reached the first chunk" first_dump
window 5 500
evctl rotate || fail "evctl rotate"
wait_until 30 "the new chunk's state dump did not enter the window" armed
kill -TERM $pid
wait $pid || { cat /tmp/dumprot.out; fail "evdrain (STOP during the new chunk's dump) exit $?"; }
# One file to the host: a tree copied file by file took 5-9 s on the debug kernel.
tar -C /tmp -cf "$OUT/dumps.tar" dumpstop dumprot
rmmod evtrace
echo "dump window: STOP came during the state dump's window (START's, then a rotation's)"

# -- the oops hook on a CPU going offline
if [ -e /sys/devices/system/cpu/cpu1/online ]; then
	load_triggers oops,warn
	echo 100 > /sys/module/evtrace/parameters/trigger_interval_ms
	echo 1 > /sys/module/evtrace/parameters/test_trigger_dying
	echo 0 > /sys/devices/system/cpu/cpu1/online
	echo 1 > /sys/devices/system/cpu/cpu1/online
	handled() { grep -q "^kept 1 oops ts [0-9]*$" $D/triggers || grep -q "^suppressed 1$" $D/triggers; }
	wait_until 30 "the oops hook on a dying CPU neither completed nor was let go: $(cat $D/triggers)" handled
	how=$(grep -q "^kept 1 oops" $D/triggers && echo "its trigger completed" || echo "let go (an NMI there)")
	sleep 1
	echo warn > /sys/module/evtrace/parameters/test_trigger
	wait_until 30 "the next report found the slot taken: $(cat $D/triggers)" grep -q "^kept [12] warn ts [0-9]*$" $D/triggers
	timeout 60 rmmod evtrace || fail "rmmod after a trigger from a dying CPU did not complete"
	echo "dying CPU: $how, the next report fired, the module unloaded"
fi
