#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evctl snapshot (issue 23). Small rings in overwrite mode, the generator
# flat out on every CPU and both channels, five snapshots while it runs, then
# a last one after STOP: every snapshot goes to $OUT/snap/sN and is checked
# on the host (babeltrace2 and evcat read each alone, no generator sequence
# number in two snapshots, the events add up to the module's counters). Also:
# a snapshot with nothing recorded, one in discard mode (allowed: it saves
# what the rings hold), one while another reader holds a ring device, one by
# an unprivileged user, and bad output directories: each fails with a clear
# message and exit 1, leaving nothing behind.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
S=$OUT/snap
mkdir -p $S

# -- discard mode: allowed, saves exactly what was recorded, frees the rings
insmod "$EVTRACE_KO" probes=0 mode=discard subbuf_size=4096 num_subbuf=8 flush_ms=0

# The metadata while the hostname changes: every START renders it in two
# passes, one to size its buffer and one to fill it. A longer hostname set in
# between made the text outgrow the buffer, and /dev/evtrace/metadata served
# what lay past it (a KASAN report on the debug kernel; here a NUL byte in
# what was read). Every read must be text alone.
host=$(hostname)
long=h123456789012345678901234567890123456789012345678901234567890123
rm -f /tmp/host-stop
(while [ ! -e /tmp/host-stop ]; do hostname a; hostname $long; done) &
renamer=$!
for i in $(seq 100); do
	evctl start
	cat /dev/evtrace/metadata > /tmp/md
	tr -d '\000' < /tmp/md > /tmp/md.text
	cmp -s /tmp/md /tmp/md.text || fail "START $i: /dev/evtrace/metadata served $(($(wc -c < /tmp/md) - $(wc -c < /tmp/md.text))) NUL bytes of $(wc -c < /tmp/md)"
done
touch /tmp/host-stop
wait $renamer
hostname "$host"
grep -q "hostname = \"$host\";" /dev/evtrace/metadata && fail "the metadata names $host before a START"
evctl start
grep -q "hostname = \"$host\";" /dev/evtrace/metadata || fail "START did not render the hostname $host"
# Nothing recorded yet: an empty trace, which still reads.
timeout 60 evctl snapshot -o $S/empty || fail "a snapshot with nothing recorded failed"
[ -s $S/empty/metadata ] || fail "the empty snapshot has no metadata"
evctl generate --events 5000 --channel both --cpus all
wait_gen_done 120
timeout 60 evctl snapshot -o $S/discard || fail "the snapshot in discard mode failed"
evctl stop
check_exact
[ "$(stat_sum compact 5)" -gt 0 ] || fail "discard mode: nothing was discarded (rings too big?)"
cp $D/stats $OUT/discard.stats
rmmod evtrace

# -- overwrite mode, a steady generator the reader keeps up with: a snapshot
# holds the whole ring (8 sub-buffers: at least 6 packets per stream). At
# 200 events/s a normal ring laps in about 3 s, a compact one in 8 s (at
# 2000/s a normal ring lapped in 0.3 s, and at 250/s in 2.4 s, which on the
# debug kernel still lost a third packet between flush and read once);
# after 11 s both are full.
insmod "$EVTRACE_KO" probes=0 mode=overwrite subbuf_size=4096 num_subbuf=8 flush_ms=0
evctl start
evctl generate --events 100000000 --rate 200 --channel both --sizes mix --cpus all
sleep 11
timeout 60 evctl snapshot -o $S/steady1 || fail "steady snapshot 1 failed"
sleep 1
timeout 60 evctl snapshot -o $S/steady2 || fail "steady snapshot 2 failed"
for f in $S/steady1/compact_* $S/steady1/normal_*; do
	[ "$(wc -c < $f)" -ge $((6 * 4096)) ] ||
		fail "$f: $(wc -c < $f) bytes, not the ring's content (6 packets or more)"
done
evctl generate-stop
wait_gen_done 60
evctl stop
timeout 60 evctl snapshot -o $S/steady3 || fail "steady snapshot 3 failed"
check_exact
[ "$(stat_sum compact 6)" -gt 0 ] || fail "steady: nothing was overwritten: the rings are too big"
evctl status --json > $OUT/steady.json
rmmod evtrace

# -- overwrite mode, the generator flat out
insmod "$EVTRACE_KO" probes=0 mode=overwrite subbuf_size=4096 num_subbuf=8 flush_ms=0
evctl start

# Bad output directories: refused before anything is read.
mkdir -p /tmp/full && echo x > /tmp/full/f
expect_refusal 1 "is not empty" evctl snapshot -o /tmp/full
expect_refusal 1 "is not a directory" evctl snapshot -o /tmp/full/f
expect_refusal 1 "cannot create /tmp/full/f/sub" evctl snapshot -o /tmp/full/f/sub
expect_refusal 1 "cannot create /nonexistent/dir" evctl snapshot -o /nonexistent/dir
mkdir -p /tmp/ro && mount -t tmpfs -o ro none /tmp/ro
expect_refusal 1 "cannot create /tmp/ro/s" evctl snapshot -o /tmp/ro/s
expect_refusal 2 "give -o DIR" evctl snapshot
expect_refusal 2 "unknown argument" evctl snapshot -o /tmp/a extra

# Unprivileged: refused, nothing left.
mkdir -p /tmp/np && chmod 777 /tmp/np
expect_refusal 1 "needs root" nopriv evctl snapshot -o /tmp/np/s
[ ! -e /tmp/np/s ] || fail "the refused snapshot left /tmp/np/s"

# Another reader holds a ring device (as evdrain would): a clear refusal, no hang.
sleep 1000 < /dev/evtrace/normal/cpu1 &
holder=$!
sleep 1
expect_refusal 1 "stop the drainer" evctl snapshot -o /tmp/busy
[ ! -e /tmp/busy ] || fail "the refused snapshot left /tmp/busy"
kill $holder
wait $holder || true
# And a real evdrain attached to the session.
evdrain --attach -o /tmp/drain > /tmp/drain.log 2>&1 &
drainer=$!
t=0
until ls -l /proc/$drainer/fd 2>/dev/null | grep -q 'evtrace/normal'; do
	sleep 1
	t=$((t + 1))
	[ "$t" -lt 30 ] || { cat /tmp/drain.log; ls -l /tmp/drain /proc/$drainer/fd; fail "evdrain did not open the rings"; }
done
expect_refusal 1 "stop the drainer" evctl snapshot -o /tmp/busy
[ ! -e /tmp/busy ] || fail "the refused snapshot left /tmp/busy"
kill -TERM $drainer
wait $drainer || { cat /tmp/drain.log; fail "evdrain did not end cleanly"; }
# evdrain stops tracing when it ends, even attached: start again.
evctl status | grep -q '^state  *tracing$' || evctl start

# Snapshots while the generator runs flat out.
evctl generate --events 100000000 --channel both --sizes mix --cpus all
sleep 2
for i in 1 2 3 4 5; do
	timeout 120 evctl snapshot -o $S/s$i > /tmp/snap.out ||
		fail "snapshot $i failed or did not end"
	cat /tmp/snap.out
	grep -q "packets" /tmp/snap.out || fail "snapshot $i printed no summary"
	sleep 1
done
# Still running: the snapshots above were taken under the flat-out writer.
awk 'NR > 1 && $2 == 1 && $3 == 0 { busy = 1 } END { exit !busy }' $D/generate ||
	fail "the generator ended before the last snapshot: give it more events"
evctl generate-stop
wait_gen_done 60
evctl stop
# What the rings still hold.
timeout 60 evctl snapshot -o $S/s6 || fail "the last snapshot failed"
check_exact
[ "$(stat_sum compact 6)" -gt 0 ] || fail "nothing was overwritten: the rings are too big"
evctl status --json > $OUT/status.json
cp $D/stats $OUT/stats
rmmod evtrace
echo snapshot ok
