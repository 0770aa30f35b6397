#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""evstat's numbers against an independent computation and the LTTng analyses.

usage: evstat-check.py [--lttng] EVCAT EVSTAT TRACE_DIR

- From `evcat --format json`, written here from the definitions (not from
  evstat's code): events per name and CPU; per syscall name the latencies
  entry -> exit of the thread running on the CPU (count, min, max); per hard
  IRQ the durations on its CPU; CPU time per thread from sched_switch, a
  thread running when the range starts counted from its first event (as
  lttng-cputop does). evstat --json must equal them, for the whole trace
  and for a --from/--to window (whose threads at its start come from the
  saved state, as the last switch before it says).
- With --lttng: lttng-cputop's per-thread usage and lttng-syscallstats' per
  name counts, minimum and maximum equal evstat's.
- Saved results: the second run prints the same and opens no stream file
  (strace); a stream file with a new mtime is read again; a corrupt results
  file is ignored with a warning naming it, and the numbers are the same.
Exit 0 when all agree, 1 with the mismatches.
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evref  # noqa: E402

lttng = "--lttng" in sys.argv[1:]
evcat, evstat, trace = [a for a in sys.argv[1:] if a != "--lttng"][:3]
failures = []


def fail(msg):
    failures.append(msg)
    print("MISMATCH: " + msg)


def run(cmd, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        sys.exit("FAIL: %s exit %d: %s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


events = [json.loads(line) for line in run([evcat, trace, "--format", "json"]).stdout.splitlines()]
if not events:
    sys.exit("FAIL: no events in %s" % trace)
T0, T1 = events[0]["ts"], events[-1]["ts"]


def evstat_json(args=()):
    p = run([evstat, trace, "--json"] + list(args))
    return json.loads(p.stdout), p.stderr


results = os.path.join(trace, ".evtrace-results")
subprocess.run(["rm", "-rf", results])
st, err = evstat_json()
if err:
    fail("evstat's first run said: %s" % err.strip())
WINDOWS = evref.bt_windows(trace, st["offset_ns"])
threads, syscalls = evref.compare(st, events, T0, T1, "whole trace", {}, fail, WINDOWS)
deep = evref.compare_deep(st, events, T0, T1, "whole trace", {}, fail, WINDOWS)

# The text's system calls: the JSON's latencies in microseconds, and "-" where
# no call returned (exit_group has no exit; it printed 0.000 before).
text = run([evstat, trace, "--top", "1000"]).stdout
rows = {}
for line in text.split("System calls\n", 1)[1].split("\n\n", 1)[0].splitlines()[1:]:
    f = line.split()
    rows[f[0]] = f[3:6]
for y in st["syscalls"]:
    lat = y["latency"]
    want = ["-"] * 3 if not lat["count"] else \
        ["%.3f" % (lat["min_ns"] / 1e3), "%.3f" % (lat["total_ns"] / lat["count"] / 1e3), "%.3f" % (lat["max_ns"] / 1e3)]
    if rows.get(y["name"]) != want:
        fail("evstat's text for %s: %s, its JSON says %s" % (y["name"], rows.get(y["name"]), want))
# The text says first whether the trace is whole, and how much it lost (babeltrace2's count).
head = text.splitlines()[1] if len(text.splitlines()) > 1 else ""
lost = evref.bt_losses(trace)
if (not lost) != head.startswith("  complete:") or (lost and not head.startswith("  INCOMPLETE: ")):
    fail("evstat's header: %r, babeltrace2 reports %d losses" % (head, lost))
print("text: %d syscalls' latencies as the JSON's (%d with none)" %
      (len(st["syscalls"]), sum(1 for y in st["syscalls"] if not y["latency"]["count"])), flush=True)

if lttng:
    def analysis(name):
        p = run([name + "-mi", "--no-intersection", "--skip-validation"] +
                (["--limit", "100000"] if name == "lttng-cputop" else []) + [trace])
        return json.loads(p.stdout)["results"]

    usage = {}
    for table in analysis("lttng-cputop"):
        if table["class"] == "per-process":	# per thread: (process, prio, prio list, usage ratio)
            for row in table["data"]:
                usage[row[0]["tid"]] = 100.0 * row[-1]["value"]
    span = T1 - T0
    bad = {t: (usage.get(t), 100.0 * v / span) for t, v in threads.items()
           if t not in usage or abs(usage[t] - 100.0 * v / span) > 1e-6}
    # tid 0 (the idle tasks) is not a thread evstat ranks.
    bad.update({t: (u, None) for t, u in usage.items() if t not in threads and t != 0 and u > 1e-9})
    if bad:
        fail("lttng-cputop per-thread usage %% (theirs, evstat): %s" % dict(list(bad.items())[:8]))
    print("lttng-cputop: %d threads' usage equal evstat's" % len(usage))
    sc = collections.defaultdict(lambda: [0, None, None])
    for table in analysis("lttng-syscallstats"):
        if isinstance(table["class"], dict) and table["class"].get("inherit") == "per-tid":
            for row in table["data"]:
                t = sc[row[0]["name"]]
                t[0] += row[1]["value"]
                t[1] = row[2]["value"] if t[1] is None else min(t[1], row[2]["value"])
                t[2] = row[4]["value"] if t[2] is None else max(t[2], row[4]["value"])
    # lttng-syscallstats leaves a 32-bit task's compat_sys_* out.
    ours = {n[4:]: v for n, v in syscalls.items() if n.startswith("sys_")}
    if dict(sc) != ours:
        fail("lttng-syscallstats (theirs, evstat): %s" % {k: (sc.get(k), ours.get(k))
             for k in set(sc) | set(ours) if sc.get(k) != ours.get(k)})
    print("lttng-syscallstats: %d syscall names, counts and min/max equal evstat's" % len(sc))

# Saved results: the second run reads no stream file.
if not os.path.isfile(os.path.join(results, "stats.res")) or not os.path.isfile(os.path.join(results, "state.res")):
    fail("evstat saved no results in %s" % results)
log = os.path.join(results, "..", ".evstat-check.strace")
p = subprocess.run(["strace", "-f", "-e", "trace=openat,open", "-o", log, evstat, trace, "--json"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
opened = [l.strip() for l in open(log) if re.search(r"/(compact|normal)_[0-9]+\"", l)]
os.unlink(log)
if p.returncode != 0 or json.loads(p.stdout) != st:
    fail("the second run differs (exit %d): %s" % (p.returncode, p.stderr))
if opened:
    fail("the second run opened stream files: %s" % opened[:3])
print("second run: the same numbers from the saved results, %d stream files opened" % len(opened))

# A window through the ad hoc path, seeded by the saved state.
lo, hi = T0 + (T1 - T0) // 3, T0 + 2 * (T1 - T0) // 3
win = evstat_json(["--from", "@%d" % lo, "--to", "@%d" % hi])[0]
evref.compare(win, events, lo, hi, "window", evref.running_at(events, lo), fail, WINDOWS)
evref.compare_deep(win, events, lo, hi, "window", evref.running_at(events, lo), fail, WINDOWS)

# A corrupt results file: a warning naming it, the same numbers.
res = os.path.join(results, "stats.res")
with open(res, "r+b") as f:
    f.seek(100)
    b = f.read(1)
    f.seek(100)
    f.write(bytes([b[0] ^ 0x20]))
st2, err = evstat_json()
if res not in err or "ignored" not in err:
    fail("a corrupt results file: no warning naming it (stderr: %r)" % err)
if st2 != st:
    fail("a corrupt results file changed the numbers")
print("corrupt results file: %s" % err.strip().splitlines()[0])

# A stream file touched: read again, the same numbers; its packet index (sealed with the file's mtime)
# is said to be ignored and rebuilt, and nothing else is said.
streams = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(trace) for f in fs if re.match(r"(compact|normal)_[0-9]+$", f))
m = os.stat(streams[0]).st_mtime_ns + 1000000000
os.utime(streams[0], ns=(m, m))
log = os.path.join(trace, ".evstat-check.strace")
p = subprocess.run(["strace", "-f", "-e", "trace=openat,open", "-o", log, evstat, trace, "--json"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
reread = [l for l in open(log) if re.search(r"/(compact|normal)_[0-9]+\"", l)]
os.unlink(log)
said = [l for l in p.stderr.splitlines() if l]
index_said = len(said) == 1 and ".evtrace-index/" + os.path.basename(streams[0]) + ".idx" in said[0] and "ignored" in said[0]
if (said and not index_said) or json.loads(p.stdout) != st or not reread:
    fail("a touched stream file: not read again or numbers differ (%d opens, stderr %r)" % (len(reread), p.stderr))
print("touched stream file: read again (%d stream files opened), same numbers" % len(reread))

if failures:
    sys.exit("FAIL: %d mismatches" % len(failures))
print("evstat-check: all agree")
