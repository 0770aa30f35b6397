# SPDX-License-Identifier: GPL-2.0
# Host-side helpers for VM tests (bash).
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
top=$(cd "$here/../.." && pwd)
evtest=$top/build/tests/bin/evtest
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

die() { echo "FAIL: $*"; exit 1; }

vm() { "$top/scripts/vm-run" --smp "${SMP:-2}" --out "$out" "$@"; }

# Sum a column of the guest's stats copy for a channel (or all).
stats_sum() { # file col [channel]
	awk -v col="$2" -v ch="${3:-}" '($1 == "compact" || $1 == "normal") && (ch == "" || $1 == ch) { s += $col } END { print s + 0 }' "$1"
}

# Events babeltrace2 reads from a trace directory.
bt_count() {
	# The counter prints running totals on long traces: the last one counts.
	babeltrace2 -c sink.utils.counter "$1" 2>/dev/null | awk '/Event messages/ { gsub(",", "", $1); n = $1 } END { print n }'
}

# Events babeltrace2 reports as discarded (its warnings on stderr).
bt_discarded() {
	babeltrace2 "$1" 2>&1 >/dev/null | grep -o 'Tracer discarded [0-9]* events\?' | awk '{ s += $3 } END { print s + 0 }'
}
