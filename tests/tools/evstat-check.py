#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""evstat's numbers against an independent computation and the LTTng analyses.

usage: evstat-check.py EVCAT EVSTAT TRACE_DIR [--lttng]

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

evcat, evstat, trace = sys.argv[1:4]
lttng = "--lttng" in sys.argv[4:]
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


def replay(lo, hi, seed):
    """The numbers of the events in [lo, hi]; @seed: each CPU's thread at lo."""
    names = collections.Counter()
    cpus = collections.Counter()
    cur = dict(seed)
    since = {}
    cpu_ns = collections.Counter()
    pend = {}
    scs = collections.defaultdict(list)
    pirq = {}
    hirq = collections.defaultdict(list)
    start0 = last = None
    for e in events:
        ts = e["ts"]
        if ts < lo or ts > hi:
            continue
        ev, cpu, f = e["event"], e["cpu"], e["fields"]
        names[ev] += 1
        cpus[cpu] += 1
        if start0 is None:
            start0 = ts
        last = ts
        if ev == "sched_switch":
            if f["prev_tid"] != 0:
                cpu_ns[f["prev_tid"]] += ts - since.get(cpu, start0)
            cur[cpu] = f["next_tid"]
            since[cpu] = ts
        elif ev.startswith("sys_") or ev.startswith("compat_sys_"):
            tid = cur.get(cpu)
            if tid:
                pend[tid] = (ev, ts)
        elif ev == "exit_syscall":
            tid = cur.get(cpu)
            if tid and tid in pend:
                name, t = pend.pop(tid)
                scs[name].append(ts - t)
        elif ev == "irq_handler_entry":
            pirq[cpu] = (f["irq"], ts)
        elif ev == "irq_handler_exit":
            p = pirq.pop(cpu, None)
            if p and p[0] == f["irq"]:
                hirq[p[0]].append(ts - p[1])
    for cpu, tid in cur.items():
        if tid and start0 is not None:
            cpu_ns[tid] += last - since.get(cpu, start0)
    return (names, cpus, {n: [len(d), min(d), max(d)] for n, d in scs.items()},
            {i: [len(d), min(d), max(d)] for i, d in hirq.items()}, {t: v for t, v in cpu_ns.items() if v})


def running_at(lo):
    """Each CPU's thread at lo: the last switch before it."""
    cur = {}
    for e in events:
        if e["ts"] >= lo:
            break
        if e["event"] == "sched_switch":
            cur[e["cpu"]] = e["fields"]["next_tid"]
    return cur


def evstat_json(args=()):
    p = run([evstat, trace, "--json"] + list(args))
    return json.loads(p.stdout), p.stderr


def compare(st, lo, hi, what, seed):
    names, cpus, scs, hirq, cpu_ns = replay(lo, hi, seed)
    if st["events"] != sum(names.values()):
        fail("%s: evstat %d events, evcat %d" % (what, st["events"], sum(names.values())))
    if st["events_by_name"] != dict(names):
        fail("%s: events by name: %s" % (what, {k: (st["events_by_name"].get(k), names.get(k))
                                               for k in set(names) | set(st["events_by_name"])
                                               if st["events_by_name"].get(k) != names.get(k)}))
    mine = {c["cpu"]: c["events"] for c in st["cpus"] if c["events"]}
    if mine != dict(cpus):
        fail("%s: events per CPU %s, evcat %s" % (what, mine, dict(cpus)))
    theirs = {y["name"]: [y["latency"]["count"], y["latency"]["min_ns"], y["latency"]["max_ns"]]
              for y in st["syscalls"] if y["latency"]["count"]}
    if theirs != scs:
        fail("%s: syscall latencies (evstat, ours): %s" % (what, {k: (theirs.get(k), scs.get(k))
             for k in set(theirs) | set(scs) if theirs.get(k) != scs.get(k)}))
    irq = {q["irq"]: [q["duration"]["count"], q["duration"]["min_ns"], q["duration"]["max_ns"]]
           for q in st["irqs"] if q["duration"]["count"]}
    if irq != hirq:
        fail("%s: hard IRQs %s, ours %s" % (what, irq, hirq))
    threads = {t["tid"]: t["cpu_ns"] for t in st["threads"] if t["cpu_ns"] and t["tid"] != 0}
    if threads != cpu_ns:
        diff = {t: (threads.get(t), cpu_ns.get(t)) for t in set(threads) | set(cpu_ns) if threads.get(t) != cpu_ns.get(t)}
        fail("%s: CPU time of %d threads (evstat, ours): %s" % (what, len(diff), dict(list(diff.items())[:8])))
    print("%s: %d events, %d syscalls with latencies, %d irqs, %d threads with CPU time: evstat agrees" %
          (what, st["events"], sum(v[0] for v in theirs.values()), len(irq), len(threads)))
    return threads, theirs


results = os.path.join(trace, ".evtrace-results")
subprocess.run(["rm", "-rf", results])
st, err = evstat_json()
if err:
    fail("evstat's first run said: %s" % err.strip())
threads, syscalls = compare(st, T0, T1, "whole trace", {})

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
compare(evstat_json(["--from", "@%d" % lo, "--to", "@%d" % hi])[0], lo, hi, "window", running_at(lo))

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

# A stream file touched: read again (no warning), the same numbers.
streams = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(trace) for f in fs if re.match(r"(compact|normal)_[0-9]+$", f))
m = os.stat(streams[0]).st_mtime_ns + 1000000000
os.utime(streams[0], ns=(m, m))
log = os.path.join(trace, ".evstat-check.strace")
p = subprocess.run(["strace", "-f", "-e", "trace=openat,open", "-o", log, evstat, trace, "--json"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
reread = [l for l in open(log) if re.search(r"/(compact|normal)_[0-9]+\"", l)]
os.unlink(log)
if p.stderr or json.loads(p.stdout) != st or not reread:
    fail("a touched stream file: not read again or numbers differ (%d opens, stderr %r)" % (len(reread), p.stderr))
print("touched stream file: read again (%d stream files opened), same numbers" % len(reread))

if failures:
    sys.exit("FAIL: %d mismatches" % len(failures))
print("evstat-check: all agree")
