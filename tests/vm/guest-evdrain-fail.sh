#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evdrain's failures: a second instance is refused and leaves the first alone;
# SIGKILL leaves no held sub-buffer and --attach resumes; a full disk stops
# tracing with a message and keeps every whole packet.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
if evdrain -o /tmp/x 2>/tmp/err; then fail "evdrain ran without the module"; fi
cat /tmp/err
grep -q 'not loaded' /tmp/err || fail "no 'not loaded' message"
insmod "$EVTRACE_KO" probes=0 num_subbuf=64
evdrain -q -o "$OUT/first" &
pid=$!
wait_tracing
set +e
evdrain -o /tmp/second 2>/tmp/err
rc=$?
set -e
cat /tmp/err
[ $rc = 3 ] || fail "second evdrain exit $rc, not 3"
grep -q "evdrain is already running (pid $pid)" /tmp/err || fail "no 'already running' message"
kill -0 $pid || fail "the first evdrain died"
evctl generate --events 100000000 --rate 3000 --channel both
sleep 2
kill -KILL $pid
wait $pid || true
sleep 1
# The module is fine and a new evdrain takes over the running session.
evdrain -q -o "$OUT/first" --attach --duration 3 || fail "evdrain --attach exit $?"
evctl generate-stop
cp $D/stats "$OUT/attach.stats"
rmmod evtrace

# Disk full: a 256 KiB tmpfs.
insmod "$EVTRACE_KO" probes=0
mkdir -p /mnt/small
mount -t tmpfs -o size=256k tmpfs /mnt/small
evctl generate --events 100000000 --rate 20000 --channel both
set +e
evdrain -o /mnt/small/t --duration 30 > /tmp/out 2>&1
rc=$?
set -e
evctl generate-stop
cat /tmp/out
[ $rc = 6 ] || fail "evdrain on a full disk exit $rc, not 6"
grep -q 'No space left on device' /tmp/out || fail "no disk-full message"
evctl status | grep -q 'stopped' || fail "tracing not stopped after the disk filled"
cp -r /mnt/small/t "$OUT/full"
umount /mnt/small
rmmod evtrace
echo fail ok
