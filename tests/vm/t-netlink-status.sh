#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: control
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-netlink-status.sh"
# The JSON document, read by a real JSON parser (python3: make deps installs it).
command -v python3 >/dev/null || die "python3 is not installed (make deps): the JSON cannot be checked"
# Root's and nobody's documents, with the test hook's fake rings too, against docs/schemas/.
python3 "$top/tests/tools/json-schema-check.py" "$out/status.json" "$out/big.json" "$out/big-nopriv.json" ||
	die "status --json does not follow docs/schemas/evtrace.status.json"
{
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
	python3 - "$out/big.json" "$out/big-nopriv.json" "$out/status.json" <<'PY' || die "status --json with 600 fake CPUs"
import json, sys
big = json.load(open(sys.argv[1]))
assert json.load(open(sys.argv[2])) == big, "nobody's JSON differs from root's"
small = json.load(open(sys.argv[3]))
# The real part is what it was without the hook.
for k in ("state", "config", "events", "rings", "generator"):
    assert big[k] == small[k], k
fake = big["fake_rings"]
assert len(fake) == 1200, len(fake)
first = min(r["cpu"] for r in fake)
assert first > max(r["cpu"] for r in big["rings"]), "a fake CPU number among the real ones"
names = ["recorded", "discarded", "overwritten", "too_big", "refused", "produced", "consumed", "skipped",
         "filtered"]
seen = set()
for r in fake:
    ch = 0 if r["channel"] == "compact" else 1
    assert r["channel"] in ("compact", "normal") and first <= r["cpu"] < first + 600, r
    assert (ch, r["cpu"]) not in seen, r
    seen.add((ch, r["cpu"]))
    base = (1 << 32) + r["cpu"] * 32 + ch * 16
    for i, n in enumerate(names):
        assert r[n] == base + i, (r, n)
    assert r["fill"] == (r["cpu"] + ch) % 101 and r["online"] is False, r
print("status --json with 600 fake CPUs: %d real rings unchanged, %d fake entries, every figure right, "
      "nobody's the same" % (len(big["rings"]), len(fake)))
PY
}
grep '^evnl: [0-9]* messages' "$out/big-evnl.txt" || true
echo "evctl status: exact accounting, same as debugfs, JSON agrees; 1200 fake rings arrive whole"
