#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# START/STOP over netlink, 150 times, with every event enabled (the kernel
# tracepoint probes attach and detach each time) while a reader drains
# (its own syscalls are traced): the machine must stay responsive, and
# afterwards a generator run is still accounted for exactly.
. "$EVTRACE_TESTS/vm/lib.sh"
. "$EVTRACE_TESTS/vm/nllib.sh"
set -e
insmod "$EVTRACE_KO" num_subbuf=64 flush_ms=200
evctl enable all
evtest drain "$OUT/churn" --sleep-ms 5 &
drain=$!
evctl start
i=0
while [ $i -lt ${CYCLES:-150} ]; do
	evctl stop
	evctl start
	i=$((i + 1))
	[ $((i % 50)) -eq 0 ] && echo "$i stop/start cycles at $(cut -d. -f1 /proc/uptime)s"
done
nl_stop_drain_then_exact $drain
echo netlink restart ok
