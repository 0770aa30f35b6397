#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A pipe outlives the module (issue 15, item 5): a reader splices a
# sub-buffer of a 2 x 4 KiB ring (small enough to have come from the slab
# allocator before) into a pipe, closes the device and keeps the pipe;
# rmmod succeeds; reading the pipe afterwards gets the packet, and the
# kernel stays clean (the pipe's pages and buffer operations are not the
# module's to free).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=2 flush_ms=0
evctl start
evctl generate --events 50 --channel compact --cpus 0
wait_gen_done 60
evsplicekeep /dev/evtrace/compact/cpu0 /tmp/ready /tmp/go &
pid=$!
wait_until 60 "the splice never happened" test -e /tmp/ready
evctl stop
rmmod evtrace || fail "rmmod with only a pipe left"
test ! -d /sys/module/evtrace || fail "still loaded"
# Memory churn, so that freed module memory is reused before the read.
insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=2 flush_ms=0
rmmod evtrace
touch /tmp/go
wait $pid || fail "the pipe did not give the packet back"
echo "splice after unload ok"
