#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The state dump's cost (scripts/bench-statedump): for each thread count, a
# process holding that many extra threads, then a traced START; the host
# reads each trace's dump.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0
evctl enable lttng_statedump_start lttng_statedump_process_state lttng_statedump_interrupt lttng_statedump_end > /dev/null
for n in "$@"; do
	holder=""
	if [ "$n" -gt 0 ]; then
		workload --hold 600 --threads "$n" &
		holder=$!
		held() { [ "$(awk '/^Threads:/ { print $2 }' /proc/$holder/status)" -ge "$n" ]; }
		wait_until 300 "workload never held $n threads" held
	fi
	echo "threads $(ls -d /proc/[0-9]*/task/[0-9]* | wc -l)" > "$OUT/threads-$n.txt"
	evdrain -q -o "$OUT/t$n" --duration 15 || fail "evdrain exit $?"
	[ -z "$holder" ] || { kill "$holder"; wait "$holder" || true; }
done
rmmod evtrace
echo statedump bench ok
