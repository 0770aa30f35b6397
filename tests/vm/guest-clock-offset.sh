#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The realtime clock's offset is taken at START, not at load (issue 15,
# item 11): a module loaded at boot, before NTP steps the clock, must not
# give every later trace wrong absolute times. The clock is stepped by
# 10^6 s between insmod and evdrain's START; the trace's metadata must carry
# the stepped offset.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
insmod "$EVTRACE_KO" probes=0
date -s "@$(( $(date +%s) + 1000000 ))" >/dev/null
evdrain -o "$OUT/trace" --duration 1 2> "$OUT/evdrain.err" || { cat "$OUT/evdrain.err"; fail "evdrain"; }
want=$(awk -v now="$(date +%s)" '{ print int(now - $1) }' /proc/uptime)
got=$(sed -n 's/.*offset_s = \([0-9-]*\);.*/\1/p' "$OUT/trace/kernel/metadata")
echo "metadata offset_s $got, realtime - monotonic now $want"
[ -n "$got" ] || fail "no offset_s in the metadata"
d=$((got - want)); [ "$d" -lt 0 ] && d=$((-d))
[ "$d" -le 5 ] || fail "the trace's clock offset is $d s off: taken before the clock step"
rmmod evtrace
echo "clock offset taken at START"
