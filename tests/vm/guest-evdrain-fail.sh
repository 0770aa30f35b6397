#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evdrain's failures: bad options (exit 2) and directories (exit 5) are said
# before the module is asked, nothing is made before it answers (exit 4); a second instance is refused and leaves the
# first alone; SIGKILL leaves no held sub-buffer and --attach resumes; a
# directory that holds a trace is refused and left as it was, --force
# replaces it; traces are private (0750/0640, --group); evcat reads a trace
# being written up to its last whole packets; a full disk stops tracing with
# a message and keeps every whole packet.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
# evdrain ARGS... must exit with status $1 and say $2.
refused() {
	want=$1 msg=$2
	shift 2
	rc=0
	evdrain "$@" > /tmp/out 2> /tmp/err || rc=$?
	cat /tmp/err
	[ $rc = "$want" ] || fail "evdrain $* exit $rc, not $want"
	grep -q -- "$msg" /tmp/err || fail "evdrain $*: no \"$msg\" message"
}
# A short trace in DIR (evdrain -o DIR OPTIONS...) with a few thousand events.
record() {
	dir=$1
	shift
	evdrain -q -o "$dir" "$@" &
	rpid=$!
	wait_tracing
	evctl generate --events 4000 --channel both --sizes mix
	wait_gen_done 60
	kill -TERM $rpid
	wait $rpid || fail "evdrain -o $dir $* exit $?"
}
# No module loaded: the options and the directory are checked first.
refused 2 'more than 0 and at most' -o /tmp/x -d nan
refused 2 'more than 0 and at most' -o /tmp/x -d 0
refused 2 'names no channel' -o /tmp/x -c ,
refused 2 'names no channel' -o /tmp/x -c ''
refused 2 'go with --live' -o /tmp/x --format json
refused 2 'from 1 to 100000' --live --tick-ms 100001
refused 2 'one or the other' -o /tmp/x --attach --force
refused 2 'no group named' -o /tmp/x --group nosuchgroup
refused 5 'cannot create /nonexistent/x' -o /nonexistent/x
# Without the module: exit 4, the command that loads it, and nothing made on disk.
refused 4 'not loaded.*: insmod ' -o /tmp/x
[ ! -e /tmp/x ] || fail "evdrain -o /tmp/x made /tmp/x before finding the module missing"
refused 4 'not loaded' -o /tmp/x --rotate-size 1M
[ ! -e /tmp/x ] || fail "evdrain --rotate-size made /tmp/x before finding the module missing"
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
# A directory that holds a trace: refused, not a byte changed.
sum=$(cat "$OUT"/first/kernel/* | md5sum)
refused 5 'holds a trace' -o "$OUT/first" --duration 1
[ "$(cat "$OUT"/first/kernel/* | md5sum)" = "$sum" ] || fail "the refused evdrain changed the trace"
# --force: the old trace files go (a stale stream of a CPU that is not there
# included), other files stay, and a new trace takes their place.
record "$OUT/forced"
cp "$OUT/forced/kernel/compact_0" "$OUT/forced/kernel/compact_99"
echo keep > "$OUT/forced/kernel/notes.txt"
record "$OUT/forced" --force
[ ! -e "$OUT/forced/kernel/compact_99" ] || fail "--force left a stale stream file"
[ "$(cat "$OUT/forced/kernel/notes.txt")" = keep ] || fail "--force removed a file that is not the trace's"
rm "$OUT/forced/kernel/notes.txt"
# Private by default: 0750 and 0640 whatever a umask of 022 would give, and
# a user outside the group reads nothing; --group gives the trace to a group.
umask 022
record /tmp/priv
for d in /tmp/priv /tmp/priv/kernel; do
	[ "$(stat -c %a $d)" = 750 ] || fail "trace directory $d mode $(stat -c %a $d), not 750"
done
for f in /tmp/priv/kernel/*; do
	[ "$(stat -c %a "$f")" = 640 ] || fail "$f mode $(stat -c %a "$f"), not 640"
done
if nopriv cat /tmp/priv/kernel/metadata > /dev/null 2>&1; then fail "nobody read a fresh trace"; fi
echo 'tracing:x:4242:' >> /etc/group
record /tmp/grp --group tracing
for f in /tmp/grp /tmp/grp/kernel /tmp/grp/kernel/*; do
	[ "$(stat -c %g "$f")" = 4242 ] || fail "$f group $(stat -c %g "$f"), not 4242"
done
nopriv --uid 4242 cat /tmp/grp/kernel/compact_0 > /dev/null || fail "the group cannot read its trace"
if nopriv cat /tmp/grp/kernel/compact_0 > /dev/null 2>&1; then fail "nobody read a --group trace"; fi
# A trace being written: a stream that ends inside a packet is read up to
# its last whole packet (evdrain's lock names the directory); a copy of the
# same files, which nobody writes, is refused.
evdrain -q -o /tmp/live &
lpid=$!
wait_tracing
head -c 100 "$OUT/forced/kernel/compact_0" >> /tmp/live/kernel/compact_0
rc=0
evcat /tmp/live --count > /tmp/n 2> /tmp/err || rc=$?
cat /tmp/err
[ $rc = 0 ] || fail "evcat on a trace being written exit $rc"
grep -q "/tmp/live/kernel is being written (evdrain, pid $lpid): compact_0 is read up to its last complete packet" /tmp/err ||
	fail "no 'being written' notice"
mkdir -p /tmp/livecopy/kernel
cp /tmp/live/kernel/* /tmp/livecopy/kernel/
rc=0
evcat /tmp/livecopy --count > /tmp/n 2> /tmp/err || rc=$?
cat /tmp/err
[ $rc = 1 ] && grep -q 'livecopy/kernel/compact_0' /tmp/err || fail "a copy that ends inside a packet: exit $rc"
kill -TERM $lpid
wait $lpid || fail "evdrain (live) exit $?"
# --stats-json names the directory as a JSON string, quotes escaped.
record '/tmp/q"d' --stats-json "$OUT/quoted.json"
rmmod evtrace

# Disk full: a 1 MiB tmpfs (the metadata alone is about 160 KiB).
insmod "$EVTRACE_KO" probes=0
mkdir -p /mnt/small
mount -t tmpfs -o size=1m tmpfs /mnt/small
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
