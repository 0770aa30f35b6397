#!/usr/bin/env bash
# vm-smp: 2 4
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-netlink-status.sh"
# The JSON document, read by a real JSON parser when the host has one.
if command -v python3 >/dev/null; then
	python3 - "$out/status.json" "$(cat "$out/ncpu")" <<'PY' || die "status --json"
import json, sys
st = json.load(open(sys.argv[1]))
ncpu = int(sys.argv[2])
assert st["state"] == "stopped", st["state"]
assert st["config"]["high_water"] == 80 and st["config"]["mode"] == "discard"
assert len(st["rings"]) == 2 * ncpu, len(st["rings"])
assert len(st["generator"]) == ncpu
on = sorted(e["name"] for e in st["events"] if e["enabled"])
assert on == ["gen_compact", "gen_compact_wide", "gen_normal"], on
gen = {g["cpu"]: g for g in st["generator"]}
for r in st["rings"]:
    total = r["recorded"] + r["discarded"] + r["too_big"] + r["refused"]
    assert total == gen[r["cpu"]][r["channel"]], (r, gen[r["cpu"]])
print("status --json: well-formed, %d rings, exact accounting" % len(st["rings"]))
PY
else
	echo "no python3 on the host: the JSON was checked against the table in the guest only"
fi
echo "evctl status: exact accounting, same as debugfs, JSON agrees"
