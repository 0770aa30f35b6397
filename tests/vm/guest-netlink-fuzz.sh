#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# At least 10,000 randomized genetlink messages to the evtrace family (as
# root, so that they reach the handlers, with a reader draining and a full
# notify listener), 2,000 more without CAP_NET_ADMIN; then the tracer must
# still trace correctly: a clean generator run (kernel tracepoints, which
# the fuzzer may have enabled, off again) with exact accounting, drained
# to $OUT/trace with nothing discarded (the host reads it back). vm-run
# fails the test on any kernel warning. $1: a seed for evfuzz (to repeat a run).
. "$EVTRACE_TESTS/vm/lib.sh"
. "$EVTRACE_TESTS/vm/nllib.sh"
set -e
insmod "$EVTRACE_KO" num_subbuf=64 flush_ms=200
nl_generator_only
evtest drain /tmp/old --sleep-ms 5 &
old=$!
evctl start
evfuzz --count "${FUZZ_COUNT:-12000}" --sink ${1:+--seed "$1"} > "$OUT/fuzz.txt" || { cat "$OUT/fuzz.txt"; fail "evfuzz as root"; }
cat "$OUT/fuzz.txt"
nopriv evfuzz --count 2000 > "$OUT/fuzz-nopriv.txt" || { cat "$OUT/fuzz-nopriv.txt"; fail "evfuzz without CAP_NET_ADMIN"; }
cat "$OUT/fuzz-nopriv.txt"
kill -TERM $old
wait $old

# Back to a known configuration.
evctl generate-stop
evctl stop
evctl config mode=discard high_water=70 flush_ms=200
nl_generator_only
evctl status > "$OUT/before.txt"
cat "$OUT/before.txt"

# A clean run, drained.
evtest drain "$OUT/trace" --splice --sleep-ms 5 &
pid=$!
evctl start
evctl generate --events 12000 --rate 3000 --channel both --sizes mix
nl_wait_gen_done 300
evctl stop
sleep 1
kill -TERM $pid
wait $pid
nl_check_exact "$OUT/before.txt"
nl_same_as_debugfs
evctl status > "$OUT/after.txt"
for ch in compact normal; do
	a=$(awk -v ch=$ch '$1 == ch && $2 ~ /^[0-9]+$/ { s += $5 } END { print s + 0 }' "$OUT/before.txt")
	b=$(nl_ring_sum $ch 5)
	[ "$a" -eq "$b" ] || fail "$ch: $((b - a)) events discarded in the clean run"
done
rmmod evtrace
echo netlink fuzz ok
