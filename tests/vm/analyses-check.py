#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The analysis tools on a trace evdrain wrote, against our own numbers.

usage: analyses-check.py EVCAT TRACE_DIR GUEST_OUT_DIR

- babeltrace2, babeltrace 1 and evcat count the same events;
- lttng-cputop, -schedtop, -irqstats, -syscallstats and their -mi forms run
  without error; from the -mi JSON: per-CPU usage, syscall counts and
  min/max latencies per name, hard IRQ counts and min/max durations per irq
  with their names equal what this script computes from `evcat --format
  json` (written here from the tools' documented rules, not their code);
- the metadata carries every event and field Trace Compass's kernel
  analysis reads (docs/tracecompass-layout.md);
- every thread alive before and after START is in the state dump with its
  process and parent;
- syscall arguments (64- and 32-bit tasks) carry the values the program
  passed, widened as their C types say.
Prints the text outputs of lttng-cputop and lttng-syscallstats.
"""
import collections
import json
import os
import re
import subprocess
import sys

evcat, trace, guest_out = sys.argv[1:4]
failures = []


def fail(msg):
    failures.append(msg)
    print("MISMATCH: " + msg)


def run(cmd, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        sys.exit("FAIL: %s exit %d: %s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


# ---- Counts: three readers
n_evcat = int(run([evcat, trace, "--count"]).stdout.split()[0])
bt2 = run(["babeltrace2", "-c", "sink.utils.counter", trace]).stdout
n_bt2 = int([l for l in bt2.splitlines() if "Event messages" in l][-1].split()[0].replace(",", ""))
n_bt1 = len(run(["babeltrace", trace]).stdout.splitlines())
print("events: evcat %d, babeltrace2 %d, babeltrace 1 %d" % (n_evcat, n_bt2, n_bt1))
if not n_evcat == n_bt2 == n_bt1:
    fail("event counts differ")

# ---- The events, as evcat gives them
events = []
for line in run([evcat, trace, "--format", "json"]).stdout.splitlines():
    events.append(json.loads(line))
T0, T1 = events[0]["ts"], events[-1]["ts"]

# ---- The LTTng analyses
def analysis(name):
    args = ["--no-intersection", "--skip-validation"]
    if name in ("lttng-cputop", "lttng-schedtop"):
        args += ["--limit", "1000"]
    text = run([name] + args + [trace])
    if "Error" in text.stdout or "Traceback" in text.stderr:
        sys.exit("FAIL: %s: %s%s" % (name, text.stdout[-2000:], text.stderr[-2000:]))
    mi = run([name + "-mi"] + args + [trace])
    res = json.loads(mi.stdout)
    if "results" not in res:
        sys.exit("FAIL: %s-mi: %s" % (name, mi.stdout[:2000]))
    return text.stdout, res["results"]


cputop_text, cputop = analysis("lttng-cputop")
sysc_text, sysc = analysis("lttng-syscallstats")
irq_text, irqs = analysis("lttng-irqstats")
sched_text, sched = analysis("lttng-schedtop")
print(cputop_text)
print(sysc_text[:6000])

# ---- Our numbers, by the rules the tools document
CPU_EVENTS = {"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking", "irq_handler_entry",
              "irq_handler_exit", "softirq_entry", "softirq_exit", "softirq_raise"}
busy = {}          # cpu -> ns
running_since = {}  # cpu -> ts or None (idle)
current = {}       # cpu -> tid or None
known_cpus = set()
pending_sc = {}    # tid -> (name, ts)
sc = collections.defaultdict(list)   # name -> [durations]
pending_irq = {}   # cpu -> (irq, name, ts)
hard = collections.defaultdict(list)  # irq -> [durations]
irq_names = {}

for e in events:
    ev, cpu, ts, f = e["event"], e["cpu"], e["ts"], e["fields"]
    if ev in CPU_EVENTS:
        known_cpus.add(cpu)
        if "target_cpu" in f:
            known_cpus.add(f["target_cpu"])
    if ev == "sched_switch":
        # Busy from the period's start (or the last switch-in of a task) to
        # this switch; idle while tid 0 runs.
        start = running_since.get(cpu, T0)
        if start is not None:
            busy[cpu] = busy.get(cpu, 0) + ts - start
        running_since[cpu] = None if f["next_tid"] == 0 else ts
        current[cpu] = None if f["next_tid"] == 0 else f["next_tid"]
    elif ev.startswith("sys_"):
        tid = current.get(cpu)
        if cpu in known_cpus and tid is not None:
            pending_sc[tid] = (ev[4:], ts)
    elif ev == "exit_syscall":
        tid = current.get(cpu)
        if cpu in known_cpus and tid is not None and tid in pending_sc:
            name, t = pending_sc.pop(tid)
            sc[name].append(ts - t)
    elif ev == "irq_handler_entry":
        pending_irq[cpu] = (f["irq"], f["name"], ts)
    elif ev == "irq_handler_exit":
        p = pending_irq.pop(cpu, None)
        if p and p[0] == f["irq"]:
            hard[p[0]].append(ts - p[2])
            irq_names.setdefault(p[0], p[1])
for cpu, start in running_since.items():
    if start is not None:
        busy[cpu] = busy.get(cpu, 0) + T1 - start

# ---- cputop: per-CPU usage
theirs = {}
for table in cputop:
    if table["class"] == "per-cpu":
        for row in table["data"]:
            theirs[row[0]["id"]] = row[1]["value"]
ours = {cpu: b / (T1 - T0) for cpu, b in busy.items()}
print("cputop per CPU (theirs / ours): " +
      ", ".join("%d: %.4f / %.4f" % (c, theirs.get(c, -1), ours.get(c, -1)) for c in sorted(set(ours) | set(theirs))))
if set(theirs) != set(ours) or any(abs(theirs[c] - ours[c]) > 1e-9 for c in ours):
    fail("cputop per-CPU usage")
if len(ours) < 2:
    fail("cputop: fewer than two CPUs busy")

# ---- syscallstats: per name, over every thread
theirs = collections.defaultdict(lambda: [0, None, None])
for table in sysc:
    if isinstance(table["class"], dict) and table["class"].get("inherit") == "per-tid":
        for row in table["data"]:
            t = theirs[row[0]["name"]]
            t[0] += row[1]["value"]
            t[1] = row[2]["value"] if t[1] is None else min(t[1], row[2]["value"])
            t[2] = row[4]["value"] if t[2] is None else max(t[2], row[4]["value"])
for name in sorted(set(theirs) | set(sc)):
    mine = [len(sc[name]), min(sc[name]) if sc[name] else None, max(sc[name]) if sc[name] else None]
    if list(theirs.get(name, [0, None, None])) != mine:
        fail("syscall %s: theirs %s, ours %s" % (name, theirs.get(name), mine))
for want in ("clone", "execve", "openat", "write", "read", "sendto", "recvfrom", "socket", "nanosleep",
             "clock_nanosleep", "wait4", "close"):
    if want in sc:
        print("syscall %-16s %5d calls, %d..%d ns" % (want, len(sc[want]), min(sc[want]), max(sc[want])))
missing = [w for w in ("execve", "openat", "sendto", "socket", "wait4") if not sc.get(w)]
if missing:
    fail("the workload's syscalls are not all there: no %s" % ", ".join(missing))

# ---- irqstats: hard IRQs per irq
theirs = {}
for table in irqs:
    if table["class"] == "hard-stats":
        for row in table["data"]:
            theirs[row[0]["nr"]] = (row[0]["name"], row[1]["value"], row[2]["value"], row[4]["value"])
mine = {irq: (irq_names[irq], len(d), min(d), max(d)) for irq, d in hard.items()}
print("hard irqs: " + ", ".join("%d %s x%d" % (i, m[0], m[1]) for i, m in sorted(mine.items())))
if theirs != mine:
    fail("irqstats hard IRQs: theirs %s, ours %s" % (theirs, mine))
if not mine:
    fail("no hard IRQ in the trace")
if not any(t["class"] == "top" and t["data"] for t in sched):
    fail("schedtop: no wakeup latency")

# ---- Trace Compass's kernel layout (docs/tracecompass-layout.md)
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
layout = {}
for line in open(os.path.join(top, "docs", "tracecompass-layout.md")):
    m = re.match(r"^\| `([a-z_*]+)` \| ([^|]*) \|", line)
    if m:
        layout[m.group(1)] = re.findall(r"`([a-z_]+)`", m.group(2))
md = open(os.path.join(trace, "kernel", "metadata")).read()
blocks = {}
for m in re.finditer(r'event \{\n\tname = "([^"]+)";.*?fields := struct \{\n(.*?)\t\};\n\};', md, re.S):
    blocks[m.group(1)] = {name: typ for typ, name in re.findall(r"(\w+) (\w+)(?:\[[^]]*\])?;", m.group(2))}
for ev, fields in layout.items():
    names = [n for n in blocks if n == ev or (ev.endswith("*") and n.startswith(ev[:-1]))]
    if not names:
        fail("Trace Compass reads event %s: not in the metadata" % ev)
    for n in names[:1]:
        for f in fields:
            if f not in blocks[n]:
                fail("Trace Compass reads %s.%s: not in the metadata" % (n, f))
                continue
            # Casts: (String) for names and comms, (Long) for the rest.
            want = ("char_t", "string") if f in ("name", "child_comm", "prev_comm", "next_comm",
                                                 "filename") else ("int", "uint")
            if not blocks[n][f].startswith(want):
                fail("Trace Compass reads %s.%s as %s: it is %s" % (n, f, want[0], blocks[n][f]))
env = md[md.index("env {"):md.index("};", md.index("env {"))]
for key in ("domain = \"kernel\"", "tracer_name = \"evtrace\"", "tracer_major = ", "tracer_minor = ",
            "tracer_patchlevel = ", "hostname = ", "sysname = ", "kernel_release = ", "kernel_version = ",
            "trace_name = ", "trace_creation_datetime = "):
    if key not in env:
        fail("env lacks %s" % key)
print("Trace Compass layout: %d events checked" % len(layout))

# ---- A 32-bit task's syscalls: compat_sys_getppid (ia32 number 64), each with its exit
compat = [i for i, e in enumerate(events) if e["event"] == "compat_sys_getppid"]
exits = 0
for i in compat:
    cpu = events[i]["cpu"]
    nxt = next((e for e in events[i + 1:] if e["cpu"] == cpu and e["event"] in ("exit_syscall", "sched_switch")), None)
    if nxt and nxt["event"] == "exit_syscall" and nxt["fields"]["id"] == 64 and nxt["fields"]["ret"] > 0:
        exits += 1
print("32-bit getppid: %d compat_sys_getppid events, %d followed by their exit_syscall (id 64)" % (len(compat), exits))
if len(compat) < 500 or exits < 400:
    fail("compat syscalls: %d entries, %d exits" % (len(compat), exits))

# ---- Arguments as the syscall's C types say (sysloop N args, 64- and 32-bit):
# an int sign-extended (-999999), unsigned ints masked to 32 bits (-5, -3), a
# 64-bit offset as is, pointers in hex; each register in its place. The
# 32-bit calls run twice, once with garbage in the upper halves of their
# registers (sysloop N args32): the kernel uses the low halves only, and the
# trace shows the same values (40 each).
want_args = {
    "sys_kill": {"pid": -999999, "sig": 0},
    "sys_futex": {"op": 129, "val": 1, "utime": "0x1000", "uaddr2": "0x2000", "val3": 4294967291},
    "sys_lseek": {"fd": 4294967293, "offset": -1, "whence": 1},
    "compat_sys_kill": {"pid": -999999, "sig": 0},
    "compat_sys_futex": {"op": 129, "val": 1, "utime": "0x1000", "uaddr2": "0x2000", "val3": 4294967291},
    "compat_sys_lseek": {"arg0": 4294967293, "arg1": -1, "arg2": 1},
}
for name, want in sorted(want_args.items()):
    seen = [e["fields"] for e in events if e["event"] == name]
    match = sum(1 for f in seen if all(f.get(k) == v for k, v in want.items()))
    print("%s: %d with the arguments sysloop gave, of %d" % (name, match, len(seen)))
    need = 40 if name.startswith("compat_") else 20
    if match < need:
        fail("%s: %d events with %s (want %d); others: %s" % (name, match, want, need,
             [f for f in seen if not all(f.get(k) == v for k, v in want.items())][:3]))

# ---- prev_state: the kernel's stable report bits, one at most (0: running or preempted)
states = collections.Counter(e["fields"]["prev_state"] for e in events if e["event"] == "sched_switch")
print("prev_state values: %s" % dict(states))
if set(states) - {0, 1, 2, 4, 8, 16, 32, 64, 128}:
    fail("prev_state values outside the report bits: %s" % sorted(set(states)))

# ---- The state dump
dump = {}
for e in events:
    if e["event"] == "lttng_statedump_process_state":
        f = e["fields"]
        dump[f["tid"]] = (f["pid"], f["ppid"], f["name"])
starts = sum(1 for e in events if e["event"] == "lttng_statedump_start")
ends = sum(1 for e in events if e["event"] == "lttng_statedump_end")
if starts != 1 or ends != 1:
    fail("state dump: %d starts, %d ends" % (starts, ends))


def threads(path):
    return {int(a): (int(b), int(c)) for a, b, c in (l.split() for l in open(path))}


before = threads(os.path.join(guest_out, "threads-before.txt"))
after = threads(os.path.join(guest_out, "threads-after.txt"))
alive = {t: v for t, v in before.items() if after.get(t) == v}
bad = [t for t, (pid, ppid) in alive.items() if dump.get(t, (None, None))[:2] != (pid, ppid)]
print("state dump: %d threads, %d alive before and after START, %d interrupts" %
      (len(dump), len(alive), sum(1 for e in events if e["event"] == "lttng_statedump_interrupt")))
if bad:
    fail("state dump: threads missing or wrong: %s" % ", ".join("%d %s %s" % (t, alive[t], dump.get(t)) for t in bad[:10]))
multi = [t for t, (pid, _) in alive.items() if pid != t]
if not multi:
    fail("no thread other than a leader was alive: the test's holder process did not run")



if failures:
    sys.exit("FAIL: %d mismatches" % len(failures))
print("analyses: counts, cputop, syscallstats, irqstats, Trace Compass layout and state dump agree")
