#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""t-trigger's host check: OUT FAULT BEFORE.json AFTER.json (OUT holds evcat
--format json of the snapshots t1, t2, stuck and keep1 as NAME.json;
BEFORE and AFTER are evctl status --json while trigger 2 held the rings,
before a plain SNAPSHOT nobody read and after its expiry).

- t1 (trigger 1, FAULT), t2 (trigger 2, a WARN) and stuck (trigger 1 of
  the last module, an oops, CPU 1 spinning with interrupts off) each hold
  their evtrace_trigger event, and what preceded it: the generator's events
  of every ring, over seconds before the report; after it only what the
  flush found (the work item runs within a second).
- Every ring trigger 2 held in BEFORE is held by it in AFTER and overwrote
  nothing in between.
- keep1 (--keep-ms 1) holds its trigger and fewer events than a full ring.
"""
import json
import sys

out, fault, before_json, after_json = sys.argv[1:5]
REASONS = {"kfence": 0, "kasan": 1, "warn": 2, "oops": 3}
errors = []


def load(name):
    with open(f"{out}/{name}.json") as f:
        return [json.loads(line) for line in f]


def check(name, seq, reason, min_span):
    ev = load(name)
    trig = [e for e in ev if e["event"] == "evtrace_trigger"]
    if [(e["fields"]["seq"], e["fields"]["reason"]) for e in trig] != [(seq, REASONS[reason])]:
        errors.append(f"{name}: trigger events {[e['fields'] for e in trig]}, want seq {seq} {reason}")
        return ev, None
    t = trig[0]["ts"]
    before = [e for e in ev if e["ts"] < t]
    after = [e for e in ev if e["ts"] > t]
    rings = {(e["event"], e["cpu"]) for e in before if e["event"].startswith("gen_")}
    span = (t - min(e["ts"] for e in before)) / 1e9 if before else 0
    late = (max(e["ts"] for e in after) - t) / 1e9 if after else 0
    print(f"{name}: trigger {seq} ({reason}); {len(before)} events in the {span:.1f} s before it "
          f"from {len(rings)} rings, {len(after)} after it (the last {late * 1000:.1f} ms later)")
    if span < min_span:
        errors.append(f"{name}: only {span:.2f} s of events before the trigger, want {min_span} s")
    if len(rings) < 4:
        errors.append(f"{name}: generator events of {len(rings)} rings before the trigger, want 4")
    if late > 1:
        errors.append(f"{name}: an event {late:.2f} s after the trigger: the bound is not the trigger's")
    return ev, t


# t1: the rings were full (11 s of a generator that laps them in 3 to 8 s);
# t2 came about 2 s after t1 was read.
t1, _ = check("t1", 1, fault, 2)
check("t2", 2, "warn", 0.5)
check("stuck", 1, "oops", 1)
# The plain snapshot and its expiry released nothing of trigger 2's.
with open(before_json) as f:
    before = {(r["channel"], r["cpu"]): r for r in json.load(f)["rings"]}
with open(after_json) as f:
    after = {(r["channel"], r["cpu"]): r for r in json.load(f)["rings"]}
held = [k for k, r in before.items() if r["held_trigger"]]
if len(held) < 4:
    errors.append(f"trigger 2 held {len(held)} rings, want 4: {before}")
for k in held:
    if not after[k]["held_trigger"]:
        errors.append(f"ring {k}: no longer held by trigger 2 after a plain snapshot expired")
    if after[k]["overwritten"] != before[k]["overwritten"]:
        errors.append(f"ring {k}: overwritten {before[k]['overwritten']} -> {after[k]['overwritten']} "
                      "while trigger 2 held it")
print(f"trigger 2 held {len(held)} rings through a plain snapshot's 10 s: "
      f"{sum(after[k]['discarded'] - before[k]['discarded'] for k in held)} events discarded, none overwritten")
keep = load("keep1")
kt = [e for e in keep if e["event"] == "evtrace_trigger"]
if len(kt) != 1:
    errors.append(f"keep1: {len(kt)} trigger events")
elif len(keep) >= len(t1):
    errors.append(f"keep1: {len(keep)} events, not fewer than the uncut t1's {len(t1)}")
else:
    print(f"keep1 (--keep-ms 1): {len(keep)} events, the trigger among them")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
