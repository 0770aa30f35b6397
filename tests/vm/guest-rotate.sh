#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evdrain's rotation. (1) --rotate-size with the generator at a steady rate,
# evctl rotate on the way, the shipped rsync hook copying every chunk, and
# --keep removing old ones; (2) --rotate-interval with CPU 1 taken offline
# and back while chunks are cut; (3) evdrain SIGKILLed mid-chunk and
# restarted with --attach; (4) a disk that fills mid-run. The host checks
# what it copies out.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
refused() {
	want=$1 msg=$2
	shift 2
	rc=0
	evdrain "$@" > /tmp/out 2> /tmp/err || rc=$?
	cat /tmp/err
	[ $rc = "$want" ] || fail "evdrain $* exit $rc, not $want"
	grep -q -- "$msg" /tmp/err || fail "evdrain $*: no \"$msg\" message"
}
# Bad options first (no module needed).
refused 2 'wants a size above 0' -o /tmp/x --rotate-size 0
refused 2 'wants a size above 0' -o /tmp/x --rotate-size 12Q
refused 2 'from 100ms to a year' -o /tmp/x --rotate-interval 10ms
refused 2 'go with --rotate-size' -o /tmp/x --keep 3
refused 2 'No such file' -o /tmp/x --rotate-size 1M --on-chunk /nonexistent/hook
printf 'echo\n' > /tmp/noexec
refused 2 'not an executable file' -o /tmp/x --rotate-size 1M --on-chunk /tmp/noexec
refused 2 "give the program's path" -o /tmp/x --rotate-size 1M --on-chunk rsync
refused 2 'at least two chunks' -o /tmp/x --rotate-size 1M --max-total 1M
refused 2 'no --force' -o /tmp/x --rotate-size 1M --force

insmod "$EVTRACE_KO" probes=0 num_subbuf=32
# Too small for a packet per stream (4 streams of 16 KiB sub-buffers).
refused 2 'too small' -o /tmp/x --rotate-size 32K
# Nobody listens: evctl rotate says so.
rc=0
evctl rotate 2> /tmp/err || rc=$?
cat /tmp/err
[ $rc = 1 ] && grep -q 'no drainer is listening' /tmp/err || fail "evctl rotate without a drainer: exit $rc"

# (1) Size, the rsync hook, retention.
mkdir -p /tmp/shipped
cat > /tmp/hook <<'EOF'
#!/bin/sh
# The shipped example, and a record of what evdrain gave it.
echo "$1 $EVT_CHUNK_SEQ $EVT_CHUNK_EVENTS $EVT_CHUNK_BEGIN $EVT_CHUNK_END $EVT_CHUNK_LOST_PACKETS" >> /tmp/hook.log
PATH=/usr/local/bin:$PATH EVTRACE_SHIP_DEST=/tmp/shipped exec /usr/local/bin/evtrace-ship-rsync "$1"
EOF
chmod +x /tmp/hook
# Every chunk must be shipped before retention takes it: the rsync hook in a
# guest on a loaded host took longer than four chunks of 6000 events/s
# (CI: "4 chunks removed before their hook ran"), so the rate leaves it
# 4 s (8 chunks of half a second) behind at most.
evdrain -o /tmp/rot --rotate-size 128K --keep 8 --on-chunk /tmp/hook --stats-json "$OUT/rot.json" \
	> "$OUT/rot.out" 2> "$OUT/rot.err" &
pid=$!
wait_tracing
evctl generate --events 60000 --rate 3000 --channel both
sleep 3
evctl rotate || fail "evctl rotate with a drainer listening: exit $?"
wait_gen_done 200
kill -TERM $pid
wait $pid || { cat "$OUT/rot.err"; fail "evdrain --rotate-size exit $?"; }
cat "$OUT/rot.out"
grep -v '^evdrain: chunk \|^evdrain: retention: removed' "$OUT/rot.err" || true
grep -q 'removed by retention' "$OUT/rot.out" || fail "no chunk summary line"
cp $D/stats "$OUT/rot.stats"
ls -la /tmp/rot
# Each chunk's packet index files, sealed by the finisher as it completed it.
for c in /tmp/rot/*/kernel; do
	check_sealed_index "$c"
done
cp -r /tmp/rot "$OUT/kept"
cp -r "/tmp/shipped/$(hostname)" "$OUT/shipped"
cp /tmp/hook.log "$OUT/hook.log"
rmmod evtrace

# (2) Interval, with CPU 1 going offline and back meanwhile; every event on
# (each chunk gets its state dump, the analyses get scheduling events).
insmod "$EVTRACE_KO" num_subbuf=32
evdrain -o /tmp/intv --rotate-interval 700ms --stats-json "$OUT/intv.json" > "$OUT/intv.out" 2>&1 &
pid=$!
wait_tracing
evctl generate --events 20000 --rate 3000 --channel both
sleep 2
echo 0 > /sys/devices/system/cpu/cpu1/online
sleep 2
echo 1 > /sys/devices/system/cpu/cpu1/online
wait_gen_done 200
sleep 1
kill -TERM $pid
wait $pid || { cat "$OUT/intv.out"; fail "evdrain --rotate-interval exit $?"; }
cat "$OUT/intv.out"
cp $D/stats "$OUT/intv.stats"
cp -r /tmp/intv "$OUT/intv"
rmmod evtrace

# (3) SIGKILL mid-chunk, then --attach: the chunk left in progress is
# completed, and the chunks whose hook had not run (a slow hook falls
# behind) get it from the next evdrain.
printf '#!/bin/sh\nsleep 1\necho "$EVT_CHUNK_SEQ" >> /tmp/hooked.log\n' > /tmp/slowhook
chmod +x /tmp/slowhook
insmod "$EVTRACE_KO" probes=0 num_subbuf=32
evdrain -q -o /tmp/kill --rotate-interval 700ms --on-chunk /tmp/slowhook &
pid=$!
wait_tracing
evctl generate --events 40000 --rate 5000 --channel both
sleep 4
kill -KILL $pid
wait $pid || true
ls -la /tmp/kill
ls -d /tmp/kill/.inprogress-* > /dev/null || fail "no chunk in progress after SIGKILL"
# As if killed between making a chunk and renaming its metadata (the soak
# found it): nothing in it, so the next evdrain removes it.
last=$(ls -d /tmp/kill/.inprogress-* | sed 's/.*-//' | sort -n | tail -n 1)
mkdir -p "/tmp/kill/.inprogress-$((last + 1))/kernel"
head -c 1000 /dev/zero > "/tmp/kill/.inprogress-$((last + 1))/kernel/metadata.tmp"
: > "/tmp/kill/.inprogress-$((last + 1))/kernel/compact_0"
sleep 2
cp /tmp/hooked.log "$OUT/hooked-before.log" 2> /dev/null || : > "$OUT/hooked-before.log"
evdrain -o /tmp/kill --attach --rotate-size 256K --on-chunk /tmp/slowhook --stats-json "$OUT/kill.json" \
	> "$OUT/kill.out" 2>&1 &
pid=$!
wait_gen_done 200
evctl stop
sleep 1
kill -TERM $pid
wait $pid || { cat "$OUT/kill.out"; fail "evdrain --attach after SIGKILL exit $?"; }
cat "$OUT/kill.out"
if ls -d /tmp/kill/.inprogress-* 2> /dev/null; then fail "a chunk is still in progress"; fi
cp /tmp/hooked.log "$OUT/hooked.log"
cp $D/stats "$OUT/kill.stats"
cp -r /tmp/kill "$OUT/killed"
rmmod evtrace

# (4) A full disk mid-run: exit 6, every completed chunk whole.
insmod "$EVTRACE_KO" probes=0
mkdir -p /mnt/small
mount -t tmpfs -o size=2m tmpfs /mnt/small
evctl generate --events 100000000 --rate 20000 --channel both
rc=0
evdrain -o /mnt/small/t --rotate-size 300K --duration 60 > "$OUT/full.out" 2>&1 || rc=$?
evctl generate-stop
cat "$OUT/full.out"
[ $rc = 6 ] || fail "evdrain with rotation on a full disk exit $rc, not 6"
grep -q 'No space left on device' "$OUT/full.out" || fail "no disk-full message"
ls -la /mnt/small/t
cp -r /mnt/small/t "$OUT/full"
umount /mnt/small
rmmod evtrace
# (5) --max-total.
insmod "$EVTRACE_KO" probes=0 num_subbuf=32
evdrain -o /tmp/capped --rotate-size 128K --max-total 2M --stats-json "$OUT/capped.json" > "$OUT/capped.out" 2>&1 &
pid=$!
wait_tracing
evctl generate --events 30000 --rate 6000 --channel both
wait_gen_done 200
kill -TERM $pid
wait $pid || { cat "$OUT/capped.out"; fail "evdrain --max-total exit $?"; }
tail -3 "$OUT/capped.out"
# Measured where evdrain counted it: a copy's directories take a block each on the host's disk.
du -sb /tmp/capped | cut -f1 > "$OUT/capped.du"
cp -r /tmp/capped "$OUT/capped"
rmmod evtrace

# (6) evctl rotate alone cuts (the size is never reached); a slow hook that
# fails every other chunk while --keep 1 wants its chunk gone.
printf '#!/bin/sh\nsleep 0.5\n[ -d "$1" ] || echo "MISSING $1" >> /tmp/slow.log\necho "$EVT_CHUNK_SEQ" >> /tmp/slow.log\nexit $((EVT_CHUNK_SEQ %% 2))\n' > /tmp/failhook
chmod +x /tmp/failhook
insmod "$EVTRACE_KO" probes=0 num_subbuf=32
evdrain -o /tmp/manual --rotate-size 64M --stats-json "$OUT/manual.json" > "$OUT/manual.out" 2>&1 &
pid=$!
wait_tracing
for i in 1 2 3; do
	evctl generate --events 2000 --rate 4000 --channel both
	wait_gen_done 100
	[ $i = 3 ] || evctl rotate || fail "evctl rotate $i"
	sleep 1
done
kill -TERM $pid
wait $pid || { cat "$OUT/manual.out"; fail "evdrain (evctl rotate) exit $?"; }
cat "$OUT/manual.out"
cp -r /tmp/manual "$OUT/manual"
evctl generate --events 100000000 --rate 6000 --channel both
evdrain -o /tmp/slow --rotate-size 96K --keep 1 --on-chunk /tmp/failhook --hook-retries 0 \
	--stats-json "$OUT/slow.json" > "$OUT/slow.out" 2>&1 &
pid=$!
# (5 s: at its stop evdrain waits for the queued hooks, half a second each: --keep takes no unshipped chunk)
sleep 5
kill -TERM $pid
wait $pid || { cat "$OUT/slow.out"; fail "evdrain (slow hook) exit $?"; }
evctl generate-stop
cat "$OUT/slow.out"
cp /tmp/slow.log "$OUT/slow.log"
ls /tmp/slow > "$OUT/slow.ls"

# (7) A hook that fails twice per chunk, then succeeds: retried after a
# pause, every chunk shipped once it succeeds, in order; the last chunk says
# it ends the session.
cat > /tmp/flaky <<'EOF'
#!/bin/sh
n=$(cat "/tmp/flaky.$EVT_CHUNK_SEQ" 2> /dev/null || echo 0)
n=$((n + 1))
echo "$n" > "/tmp/flaky.$EVT_CHUNK_SEQ"
echo "$EVT_CHUNK_SEQ $EVT_CHUNK_ATTEMPT $EVT_CHUNK_FINAL" >> /tmp/flaky.log
[ "$n" -ge 3 ] || exit 1
cp -r "$1" /tmp/flaky-shipped/
EOF
chmod +x /tmp/flaky
mkdir -p /tmp/flaky-shipped
evctl generate --events 24000 --rate 8000 --channel both
evdrain -o /tmp/flaky-dir --rotate-size 96K --keep 1 --on-chunk /tmp/flaky --hook-retries 2 --hook-backoff 100ms:200ms \
	--stats-json "$OUT/flaky.json" > "$OUT/flaky.out" 2>&1 &
pid=$!
wait_gen_done 100
kill -TERM $pid
wait $pid || { cat "$OUT/flaky.out"; fail "evdrain (flaky hook) exit $?"; }
cat "$OUT/flaky.out"
cp /tmp/flaky.log "$OUT/flaky.log"
cp -r /tmp/flaky-shipped "$OUT/flaky-shipped"
ls /tmp/flaky-dir > "$OUT/flaky.ls"

# (8) A hook that always fails and --max-total: the oldest unshipped chunks
# go only because the bound forces them, and evdrain says so; (9) the next
# evdrain in the directory ships the ones left, oldest first. A chunk ends
# after the drain pass that passes --rotate-size, so here it takes 450-650 KiB
# (a 70 % high-water batch of each ring); a bound of a few chunks (2M) leaves
# some for the next evdrain, where 384K removed every one (the last included).
printf '#!/bin/sh\nexit 3\n' > /tmp/nohook
chmod +x /tmp/nohook
evctl generate --events 30000 --rate 10000 --channel both
evdrain -o /tmp/forced --rotate-size 128K --max-total 2M --on-chunk /tmp/nohook --hook-retries 1 \
	--hook-backoff 50ms --stats-json "$OUT/forced.json" > "$OUT/forced.out" 2>&1 &
pid=$!
wait_gen_done 100
kill -TERM $pid
wait $pid || { cat "$OUT/forced.out"; fail "evdrain (failing hook, --max-total) exit $?"; }
cat "$OUT/forced.out"
ls /tmp/forced > "$OUT/forced.ls"
printf '#!/bin/sh\necho "$EVT_CHUNK_NAME" >> /tmp/reship.log\n' > /tmp/reship
chmod +x /tmp/reship
evdrain -o /tmp/forced --rotate-size 128K --on-chunk /tmp/reship --duration 2 --stats-json "$OUT/reship.json" \
	> "$OUT/reship.out" 2>&1 || { cat "$OUT/reship.out"; fail "evdrain (the next one) exit $?"; }
cp /tmp/reship.log "$OUT/reship.log"
rmmod evtrace
echo rotate ok
