#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: evdrain
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-evdrain.sh"
"$evtest" check "$out/trace" --gen-events 15000 --exact
n=$((15000 * 2 * SMP))
bt=$(bt_count "$out/trace")
[ "$bt" = "$n" ] || die "babeltrace2 counted '$bt' events, the generator made $n"
warn=$(babeltrace2 "$out/trace" 2>&1 >/dev/null | grep -c WARNING || true)
[ "$warn" = 0 ] || die "babeltrace2 warned"
# The summary's total and its streams' sum are exactly the generator's (a
# number, not a prefix: 60000 must not pass as 600001).
python3 - "$out/summary.json" "$n" <<'PY' || die "the summary JSON's totals are not the generator's $n"
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert d["recorded"] == n, ("recorded", d["recorded"], n)
assert sum(r["recorded"] for r in d["rings"]) == n, [r["recorded"] for r in d["rings"]]
assert d["discarded"] == 0, d["discarded"]
PY
python3 "$top/tests/tools/json-schema-check.py" "$out/summary.json" ||
	die "--stats-json does not follow docs/schemas/evtrace.drain-stats.json"
echo "evdrain: $n events, every (cpu, seq) once, babeltrace2 agrees without warnings"
