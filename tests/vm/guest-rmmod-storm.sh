#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unload under fire (issue 15, item 1): while insmod/rmmod cycle, several
# processes hammer netlink (STATUS as nobody; START, STOP, CONFIG flush_ms,
# GENERATE, FLUSH as root) and read the ring devices. Generic netlink
# handlers hold no module reference, so any part torn down before the family
# is unregistered is reachable from them: the kernel must stay clean (the
# harness fails the run on any warning, BUG or Oops; kmemleak on the debug
# kernel).
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
cycles=${STORM_CYCLES:-50}
stop_file=/tmp/storm.stop
rm -f "$stop_file"

# Each hammer leaves a dot per command the live module answered, so the test
# knows it reached the module and not only its absence.
hammer() { # what: loop until told to stop; errors are expected (module gone)
	set +e
	ok=/tmp/storm.$1.ok
	: > "$ok"
	while [ ! -e "$stop_file" ]; do
		case "$1" in
		status) nopriv evctl status >/dev/null 2>&1 && printf . >> "$ok" ;;
		start) evctl start >/dev/null 2>&1 && printf . >> "$ok"
			evctl stop >/dev/null 2>&1 ;;
		config) evctl config flush_ms=1 >/dev/null 2>&1 && printf . >> "$ok"
			evctl flush >/dev/null 2>&1 ;;
		generate) evctl generate --events 2000 --rate 0 --channel both >/dev/null 2>&1 &&
				printf . >> "$ok" ;;
		read) for f in /dev/evtrace/compact/cpu0 /dev/evtrace/normal/cpu1; do
				dd if="$f" of=/dev/null bs=4096 count=1 2>/dev/null
			done
			dd if=/dev/evtrace/metadata of=/dev/null bs=4096 count=1 2>/dev/null &&
				printf . >> "$ok" ;;
		esac
	done
}

pids=""
for what in status start config generate read; do
	hammer "$what" &
	pids="$pids $!"
done
i=0
while [ "$i" -lt "$cycles" ]; do
	insmod "$EVTRACE_KO" probes=0 subbuf_size=4096 num_subbuf=4 flush_ms=1 ||
		fail "insmod failed in cycle $i"
	# Let the hammers reach the live module, then unload under them.
	sleep 0.$((2 + i % 5))
	n=0
	until rmmod evtrace 2>/dev/null; do
		# A reader may hold a device open for a moment: that is "in use".
		n=$((n + 1))
		[ "$n" -lt 200 ] || fail "rmmod kept failing in cycle $i"
		sleep 0.05
	done
	i=$((i + 1))
done
touch "$stop_file"
for p in $pids; do wait "$p" || true; done
test ! -d /sys/module/evtrace || fail "still loaded"
for what in status start config generate read; do
	n=$(wc -c < /tmp/storm.$what.ok)
	echo "hammer $what: $n commands answered by the live module"
	[ "$n" -gt 0 ] || fail "hammer $what never reached the live module"
done
# The module still works after the storm.
insmod "$EVTRACE_KO" probes=0
evctl status >/dev/null || fail "status after the storm"
rmmod evtrace
echo "rmmod storm: $cycles load/unload cycles under netlink and device fire, kernel clean"
