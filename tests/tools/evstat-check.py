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
import ast
import collections
import errno
import fnmatch
import functools
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
# The text's percentiles and errors, histograms and per-task tables: the JSON's figures.
text = run([evstat, trace, "--top", "0"]).stdout
sect = text.split("System call latency percentiles", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
prow = {line.split()[0]: line.split(None, 5)[1:] for line in sect}
for y in st["syscalls"]:
    pc = y["percentiles_ns"]
    want = ["%.3f" % (pc[k] / 1e3) if pc else "-" for k in ("p50", "p90", "p99", "p99.9")]
    errs = sorted(y["returns"]["errors"], key=lambda e: -e["count"])
    want.append(", ".join("%s %d" % (e["name"] or e["ret"], e["count"]) for e in errs) or "-")
    if prow.get(y["name"]) != want:
        fail("evstat's text percentiles/errors of %s: %s, its JSON says %s" % (y["name"], prow.get(y["name"]), want))
sect = text.split("Interrupt and softirq duration percentiles", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
got = {" ".join(line.split()[:2]): line.split()[-4:] for line in sect}
want = {"irq %d" % q["irq"]: q["percentiles_ns"] for q in st["irqs"]}
want.update({"softirq " + q["name"]: q["percentiles_ns"] for q in st["softirqs"] if q["count"]})
want = {k: ["%.3f" % (pc[p] / 1e3) if pc else "-" for p in ("p50", "p90", "p99", "p99.9")] for k, pc in want.items()}
if got != want:
    fail("evstat's text IRQ/softirq percentiles: %s, its JSON says %s" % (got, want))
top_sys = max(st["syscalls"], key=lambda y: y["latency"]["count"])
top_irq = max(st["irqs"], key=lambda q: q["count"])
top_soft = max(st["softirqs"], key=lambda q: q["count"])
hists = [("syscall=" + top_sys["name"], top_sys["hist_log2_ns"]), ("irq=%d" % top_irq["irq"], top_irq["hist_log2_ns"]),
         ("softirq=" + top_soft["name"], top_soft["hist_log2_ns"]), ("sched", st["sched_latency_hist_log2_ns"])]
htext = run([evstat, trace] + [a for h, _ in hists for a in ("--hist", h)]).stdout.split("\nHistogram: ")[1:]
for (h, want), got in zip(hists, htext):
    counts = [int(line.split("|")[0].split()[-1]) for line in got.strip().splitlines()[1:]]
    first = next((i for i, c in enumerate(want) if c), 0)
    if counts != want[first:] or ("%d measured" % sum(want)) not in got.splitlines()[0]:
        fail("--hist %s: %s, the JSON's buckets %s" % (h, counts, want[first:]))
if len(htext) != len(hists):
    fail("--hist: %d histograms printed of %d" % (len(htext), len(hists)))
bad = run([evstat, trace, "--hist", "syscall=sys_no_such"], check=False)
if bad.returncode != 2 or "no such syscall" not in bad.stderr:
    fail("--hist of no such syscall: exit %d, %r" % (bad.returncode, bad.stderr))
for by, key in (("process", "processes"), ("thread", "threads")):
    got = len(re.findall(r"^  (?:pid|tid) ", run([evstat, trace, "--by", by, "--top", "0"]).stdout.split(
        "System calls by " + by, 1)[1], re.M))
    want = len([x for x in st[key] if x["syscalls"] and (by == "process" or x["tid"] > 0)])
    if got != want:
        fail("--by %s: %d tasks in the text, %d with syscalls in the JSON" % (by, got, want))
# --pid, --tid, --comm keep the tasks they name (each option given, any of its values), and every
# figure of them as it was.
proc = max(st["processes"], key=lambda p: p["threads"])
glob = proc["comm"][:3] + "*"
tids = [t["tid"] for t in st["threads"] if t["tid"] > 0][:3]
for args, keep in ((["--pid", str(proc["pid"]), "--comm", "no-such-task," + glob],
                    lambda t: t["pid"] == proc["pid"] and fnmatch.fnmatchcase(t["comm"], glob)),
                   (["--tid", "%d,%d" % tuple(tids[:2]), "--tid", str(tids[2])], lambda t: t["tid"] in tids)):
    fst = evstat_json(args)[0]
    want = [t for t in st["threads"] if keep(t)]
    if fst["threads"] != want or not want:
        fail("%s: threads %s, want %s" % (" ".join(args), [t["tid"] for t in fst["threads"]], [t["tid"] for t in want]))
    if args[0] == "--pid" and [p["pid"] for p in fst["processes"]] != [proc["pid"]]:
        fail("%s: processes %s" % (" ".join(args), [p["pid"] for p in fst["processes"]]))
    for k in fst["worst"]:
        want = [w for w in st["worst"][k] if keep(w)]
        if fst["worst"][k] != want:
            fail("%s: worst %s %d rows, want %d" % (" ".join(args), k, len(fst["worst"][k]), len(want)))
    if {k: v for k, v in fst.items() if k not in ("threads", "processes", "worst")} != \
            {k: v for k, v in st.items() if k not in ("threads", "processes", "worst")}:
        fail("%s changed the whole trace's figures" % " ".join(args))
print("text: percentiles, errors, %d histograms, --by tables as the JSON's; --pid %d --comm %s, --tid %s keep "
      "exactly their threads" % (len(htext), proc["pid"], glob, tids), flush=True)
print("text: %d syscalls' latencies as the JSON's (%d with none)" %
      (len(st["syscalls"]), sum(1 for y in st["syscalls"] if not y["latency"]["count"])), flush=True)

if lttng:
    @functools.lru_cache(maxsize=None)
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
    # Per thread: calls, min, max and the return values by errno name. (lttng-syscallstats counts each
    # return value's first one twice: its dict starts at 1 and adds 1; undone here.)
    ltid, otid = {}, {}
    for table in analysis("lttng-syscallstats"):
        if isinstance(table["class"], dict) and table["class"].get("inherit") == "per-tid":
            tid = int(re.search(r"TID: ([0-9]+)\)\]$", table["class"]["title"]).group(1))
            for row in table["data"]:
                rv = {k: v - 1 for k, v in ast.literal_eval(row[6]["value"]).items()}
                ltid[tid, row[0]["name"]] = (row[1]["value"], row[2]["value"], row[4]["value"], rv)
    for t in st["threads"]:
        for y in t["syscalls"]:
            if not y["name"].startswith("sys_") or not y["latency"]["count"]:
                continue
            # Keyed as the analysis keys them (Python's errno table, else the number); the names
            # themselves are checked against the kernel's in evref.compare_deep().
            rv = {"success": y["returns"]["success"]} if y["returns"]["success"] else {}
            for e in y["returns"]["errors"]:
                key = errno.errorcode.get(-e["ret"], str(e["ret"]))
                rv[key] = rv.get(key, 0) + e["count"]
            otid[t["tid"], y["name"][4:]] = (y["latency"]["count"], y["latency"]["min_ns"], y["latency"]["max_ns"], rv)
    if ltid != otid:
        diff = {k: (ltid.get(k), otid.get(k)) for k in set(ltid) | set(otid) if ltid.get(k) != otid.get(k)}
        fail("lttng-syscallstats per thread (theirs, evstat): %d differ: %s" % (len(diff), dict(list(diff.items())[:6])))
    print("lttng-syscallstats: %d (thread, syscall) pairs' counts, min/max and return values by errno equal evstat's" %
          len(ltid))
    # Hard and soft IRQs: count, min, max, total.
    lirq = {}
    for table in analysis("lttng-irqstats"):
        for row in table["data"]:
            kind = "irq" if table["class"] == "hard-stats" else "softirq"
            lirq[kind, row[0]["nr"]] = (row[1]["value"], row[2]["value"], row[4]["value"],
                                        round(row[3]["value"] * row[1]["value"]))
    oirq = {("irq", q["irq"]): (q["duration"]["count"], q["duration"]["min_ns"], q["duration"]["max_ns"],
                                q["duration"]["total_ns"]) for q in st["irqs"] if q["duration"]["count"]}
    oirq.update({("softirq", q["vec"]): (q["duration"]["count"], q["duration"]["min_ns"], q["duration"]["max_ns"],
                                         q["duration"]["total_ns"]) for q in st["softirqs"] if q["duration"]["count"]})
    if lirq != oirq:
        fail("lttng-irqstats (theirs, evstat): %s" % {k: (lirq.get(k), oirq.get(k)) for k in set(lirq) | set(oirq)
                                                     if lirq.get(k) != oirq.get(k)})
    print("lttng-irqstats: %d hard and soft IRQs' counts, min, max, totals equal evstat's" % len(lirq))
    # lttng-schedtop: the worst scheduling latencies (wakee, waker, CPU, priority).
    lsched = []
    for table in analysis("lttng-schedtop"):
        for row in table["data"]:
            lsched.append((row[2]["value"], row[0]["value"] - st["offset_ns"], row[1]["value"] - st["offset_ns"],
                           row[4]["id"], row[5]["tid"], row[3]["value"], (row[6] or {}).get("tid", -1)))
    osched = [(w["duration_ns"], w["begin_ts"], w["end_ts"], w["cpu"], w["tid"], w["prio"], w["waker_tid"])
              for w in st["worst"]["sched"][:len(lsched)]]
    if sorted(lsched, key=lambda x: (-x[0], x[1])) != osched or not lsched:
        fail("lttng-schedtop's worst scheduling latencies (theirs, evstat): %s, %s" % (lsched[:3], osched[:3]))
    print("lttng-schedtop: its %d worst scheduling latencies equal evstat's first" % len(lsched))

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
