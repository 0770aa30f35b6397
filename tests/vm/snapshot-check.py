#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""t-snapshot's host check: OUT STATUS.json SNAP... [--discard SNAP]
[--triggers FILE] (OUT holds evcat --format json of each SNAP as SNAP.json,
and the module's evctl status --json after the last SNAP; FILE a copy of
the debugfs triggers file at the end of the session).

- No generator event (channel, cpu, seq) is in two snapshots, or twice in one.
- Overwrite run: per ring, the events of all snapshots + overwritten ==
  recorded (evctl status --json), and too_big, refused are 0.
- Per ring, recorded + discarded == what the generator offered + the
  evtrace_trigger events recorded there: at least those read, and over all
  rings as many as fired (a trigger's own event may be overwritten unread,
  or discarded while a trigger holds the ring).
- Discard run: the snapshot holds exactly what was recorded, per ring.
"""
import json
import sys
from collections import Counter

out = sys.argv[1]
status = sys.argv[2]
snaps = sys.argv[3:]
discard = None
fired = 0
if "--triggers" in snaps:
    i = snaps.index("--triggers")
    with open(snaps[i + 1]) as f:
        fired = sum(int(l.split()[2]) for l in f if l.startswith("fired "))
    snaps = snaps[:i] + snaps[i + 2:]
if "--discard" in snaps:
    i = snaps.index("--discard")
    discard = snaps[i + 1]
    snaps = snaps[:i]
errors = []


triggers = Counter()  # evtrace_trigger events per ring: recorded, not generated


def events(name):
    """(channel, cpu of the ring, generator cpu, seq) of each generator event."""
    with open(f"{out}/{name}.json") as f:
        for line in f:
            e = json.loads(line)
            if e["event"] == "evtrace_trigger":
                triggers["normal", e["cpu"]] += 1
                continue
            ch = "normal" if e["event"] == "gen_normal" else "compact"
            yield ch, e["cpu"], e["fields"]["cpu"], e["fields"]["seq"]


seen = {}
per_ring = Counter()
for s in snaps:
    for ch, cpu, gcpu, seq in events(s):
        key = (ch, gcpu, seq)
        if key in seen:
            errors.append(f"{ch} cpu {gcpu} seq {seq} in {seen[key]} and {s}")
        seen[key] = s
        per_ring[ch, cpu] += 1
        if gcpu != cpu:
            errors.append(f"{s}: generator event of cpu {gcpu} in ring {ch} {cpu}")

with open(f"{out}/{status}") as f:
    st = json.load(f)
# What the generator offered, per ring (its threads are pinned to their CPU).
gen = {}
for g in st.get("generator", []):
    gen["compact", g["cpu"]] = g["compact"]
    gen["normal", g["cpu"]] = g["normal"]
total_read = total_over = total_rec = 0
trigger_events = 0
for r in st["rings"]:
    k = (r["channel"], r["cpu"])
    read = per_ring.get(k, 0) + triggers.get(k, 0)
    total_read += read
    total_over += r["overwritten"]
    total_rec += r["recorded"]
    if read + r["overwritten"] != r["recorded"]:
        errors.append(f"ring {k}: read {read} + overwritten {r['overwritten']} != recorded {r['recorded']}")
    # A snapshot's hold makes the writer discard instead of overwriting what
    # the snapshot will read: discards are expected, and counted exactly.
    for c in ("too_big", "refused"):
        if r[c]:
            errors.append(f"ring {k}: {c} {r[c]} in overwrite mode")
    g = gen.get(k)
    if g is None:
        continue
    extra = r["recorded"] + r["discarded"] - g
    trigger_events += extra
    if extra < triggers.get(k, 0):
        errors.append(f"ring {k}: recorded {r['recorded']} + discarded {r['discarded']} != generated {g}"
                      f" + the {triggers.get(k, 0)} trigger events read there")
if gen and trigger_events != fired:
    errors.append(f"recorded + discarded - generated is {trigger_events} over all rings, "
                  f"not the {fired} trigger events that fired")

# The discard run: its stats copy (debugfs columns: channel cpu ... recorded $4).
disc = Counter()
for ch, cpu, _, _ in events(discard) if discard else ():
    disc[ch, cpu] += 1
if discard:
    with open(f"{out}/discard.stats") as f:
        for line in f:
            a = line.split()
            if a and a[0] in ("compact", "normal"):
                k = (a[0], int(a[1]))
                if disc.get(k, 0) != int(a[3]):
                    errors.append(f"discard run, ring {k}: snapshot holds {disc.get(k, 0)}, recorded {a[3]}")

for e in errors[:20]:
    print("FAIL:", e)
if errors:
    print(f"FAIL: {len(errors)} errors")
    sys.exit(1)
if discard:
    print(f"discard mode: the snapshot holds the {sum(disc.values())} events recorded")
print(f"snapshots {' '.join(snaps)}: {total_read} events read + {total_over} overwritten "
      f"= {total_rec} recorded, no event twice ({len(seen)} distinct)")
