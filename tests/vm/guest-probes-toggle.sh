#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every tracepoint probe attached and detached ROUNDS times (probe_linger_ms=0:
# a probe no longer wanted is detached at once) while every CPU makes system
# calls through the probed sites and a reader drains. Each time the kernel
# patches its text (jump labels, static calls) under running CPUs. The machine
# must stay responsive, the attached count must follow, and afterwards a
# generator run is still accounted for exactly.
. "$EVTRACE_TESTS/vm/lib.sh"
. "$EVTRACE_TESTS/vm/nllib.sh"
set -e
rounds=${1:-50}
insmod "$EVTRACE_KO" probe_linger_ms=0 num_subbuf=64 flush_ms=200
evtest drain "$OUT/churn" --sleep-ms 5 &
drain=$!
evctl start
attached() { sed -n 's/.* probes_attached \([0-9]*\).*/\1/p' "$D/stats"; }
none_attached() { [ "$(attached)" = 0 ]; }
some_attached() { [ "$(attached)" -ge 10 ]; }
wait_until 60 "fewer than 10 probes attached after START" some_attached
loops=""
cpu=0
while [ "$cpu" -lt "$(nproc)" ]; do
	taskset -c "$cpu" sh -c 'while :; do cat /proc/self/stat > /dev/null; done' &
	loops="$loops $!"
	cpu=$((cpu + 1))
done
i=0
while [ "$i" -lt "$rounds" ]; do
	evctl disable all
	wait_until 30 "probes still attached after 'disable all' (round $i)" none_attached
	evctl enable all
	wait_until 30 "probes not attached again after 'enable all' (round $i)" some_attached
	i=$((i + 1))
	[ $((i % 10)) -eq 0 ] && echo "$i detach/attach rounds at $(cut -d. -f1 /proc/uptime)s"
done
kill $loops
nl_stop_drain_then_exact $drain
echo "probes toggle ok: $rounds rounds"
