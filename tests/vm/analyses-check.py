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
- lttng-cputop's priorities of two workloads (nice 0 and nice 10) are the
  kernel's prio (120, 130), and every thread's are values evtrace recorded;
- every thread alive before and after START is in the state dump with its
  process and parent;
- syscall arguments (64- and 32-bit tasks) carry the values the program
  passed, widened as their C types say.
Prints the text outputs of lttng-cputop and lttng-syscallstats.
"""
import calendar
import collections
import http.client
import json
import os
import re
import subprocess
import sys
import time

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

# ---- cputop: priorities. The analyses take tracer_major/minor/patchlevel
# for the LTTng version whose fields the trace has; before 2.7.1 they
# subtract 100 from sched_wakeup's prio. evtrace records the kernel's prio
# (p->prio) everywhere, so every thread's list must hold only the kernel's
# value: the workload at nice 0 prio 120 only, the one at nice 10 130 only
# (each prints its /proc/self/stat).
prio_lists = {}
for table in cputop:
    if table["class"] == "per-process":
        for row in table["data"]:
            prio_lists[row[0]["tid"]] = row[2]["value"]
recorded = collections.defaultdict(set)  # tid -> every prio evtrace recorded for it
for e in events:
    f = e["fields"]
    if e["event"] == "sched_switch":
        recorded[f["prev_tid"]].add(f["prev_prio"])
        recorded[f["next_tid"]].add(f["next_prio"])
    elif e["event"] in ("sched_wakeup", "sched_wakeup_new", "sched_waking", "sched_migrate_task"):
        recorded[f["tid"]].add(f["prio"])
wrong = [(tid, l) for tid, l in prio_lists.items()
         if not {int(p) for p in re.findall(r"(?:\[|, )(\d+)", l)} <= recorded[tid]]
if wrong:
    fail("cputop priorities not recorded by evtrace for %d threads, e.g. %s" % (len(wrong), wrong[:3]))
with open(os.path.join(guest_out, "prio.txt")) as f:
    known = [line.split()[1:] for line in f if line.startswith("prio ")]


def row_began_at_migration(tid, prio):
    """lttng-cputop lists no priority for a thread whose row it opened at a
    sched_migrate_task when the thread's prio was known already (a wakeup
    before it carried the same prio): it adds a priority when it opens the
    row at a switch in, or when the prio changes, neither of which then
    happens. A task forked at nice 10 and pulled to another CPU before it
    first ran is such a thread (t-analyses under KASAN, 2026-11-27). True when
    the trace shows exactly that order for tid."""
    woken_at_prio = False
    for e in events:
        f = e["fields"]
        if e["event"] == "sched_switch" and tid in (f["next_tid"], f["prev_tid"]):
            return False
        if e["event"] == "sched_migrate_task" and f["tid"] == tid:
            return woken_at_prio and f["prio"] == prio
        if e["event"] in ("sched_wakeup", "sched_wakeup_new", "sched_waking") and f["tid"] == tid:
            woken_at_prio = f["prio"] == prio
    return False


for tid, prio in known:
    got = prio_lists.get(int(tid), "(no row)")
    print("cputop priorities of workload %s (kernel prio %s): %s" % (tid, prio, got))
    if recorded[int(tid)] != {int(prio)}:
        fail("evtrace recorded priorities %s for workload %s, the kernel's prio is %s" % (sorted(recorded[int(tid)]), tid, prio))
    if got == "[]" and row_began_at_migration(int(tid), int(prio)):
        print("  (lttng-cputop opened the row at a migration before the first switch in, with the prio known: it lists none)")
    elif re.sub(r" \(\d+ times\)", "", got) != "[%s]" % prio:
        fail("cputop: thread %s has priorities %s, the kernel's prio is %s" % (tid, got, prio))
if sorted(p for _, p in known) != ["120", "130"]:
    fail("the guest's workloads at nice 0 and 10: prio %s" % known)

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

# ---- Arguments as the syscall's C types say (sysloop N args, 64- and 32-bit),
# each in the width of its type (a 32-bit task's in 4 bytes): an int
# -999999, unsigned ints 32 bits (-5, -3), a 64-bit offset as is, pointers
# in hex; each register in its place (compat lseek's prototype names no
# argument). The 32-bit calls run twice, once with garbage in the upper
# halves of their registers (sysloop N args32): the kernel uses the low
# halves only, and the trace shows the same values (40 each). The metadata
# says each field's width.
want_args = {
    "sys_kill": {"pid": -999999, "sig": 0},
    "sys_futex": {"op": 129, "val": 1, "utime": "0x1000", "uaddr2": "0x2000", "val3": 4294967291},
    "sys_lseek": {"fd": 4294967293, "offset": -1, "whence": 1},
    "compat_sys_kill": {"pid": -999999, "sig": 0},
    "compat_sys_futex": {"op": 129, "val": 1, "utime": "0x1000", "uaddr2": "0x2000", "val3": 4294967291},
    "compat_sys_lseek": {"arg0": 4294967293, "arg1": -1, "arg2": 1},
}
want_types = {
    "sys_lseek": {"fd": "uint32_t", "offset": "int64a32_t", "whence": "uint32_t"},
    "sys_futex": {"uaddr": "uint64a32_hex_t", "op": "int32_t", "val": "uint32_t", "val3": "uint32_t"},
    "sys_openat": {"dfd": "int32_t", "filename": "string", "flags": "int32_t", "mode": "uint16_t"},
    "sys_read": {"fd": "uint32_t", "buf": "uint64a32_hex_t", "count": "uint64a32_t"},
    "compat_sys_futex": {"uaddr": "uint32_hex_t", "op": "int32_t", "utime": "uint32_hex_t", "val3": "uint32_t"},
    "compat_sys_read": {"fd": "uint32_t", "buf": "uint32_hex_t", "count": "uint32_t"},
    "compat_sys_lseek": {"arg0": "uint32_t", "arg1": "int32_t", "arg2": "uint32_t"},
}
for name, want in sorted(want_types.items()):
    for f, t in want.items():
        if blocks.get(name, {}).get(f) != t:
            fail("%s.%s: %s in the metadata, want %s (the width of its C type)" % (name, f, blocks.get(name, {}).get(f), t))
print("syscall argument types: %d events as their C types say" % len(want_types))
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


# ---- Block I/O and I/O syscalls (issue 45): our computation from the events,
# by the rules the LTTng analyses document (a request pending under its disk
# and sector, taken back to the partition a remap came from, completed by
# the completion of the same sector and size), against lttng-iousagetop,
# lttng-iolatencytop and evstat's I/O section; the workload's own report
# (blkio.out) says what it read and wrote.
evstat = sys.argv[4] if len(sys.argv) > 4 else os.path.join(os.path.dirname(evcat), "evstat")
# The analyses' times are realtime: the clock's value plus the trace's offset.
_d, _f = events[0]["time"].rstrip("Z").split(".")
offset_ns = (calendar.timegm(time.strptime(_d, "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(_f.ljust(9, "0"))) - events[0]["ts"]
names = {}      # dev -> disk name
remaps = []     # [dev, sector, old_dev, old_sector]
pending = {}    # (dev, sector) -> (ts, nr, write, tid)
done = collections.defaultdict(list)     # (dev name, write) -> [(ns, bytes)]
blk_by_pid = collections.defaultdict(lambda: [0, 0])
tid_pid = {}
sc_open = {}    # tid -> (name, fields, ts)
io_sc = collections.defaultdict(list)     # (tid, syscall) -> [(begin, ns, ret, fd)]
current = {}
for e in events:
    ev, cpu, f = e["event"], e["cpu"], e["fields"]
    if ev == "lttng_statedump_block_device":
        names[f["dev"]] = f["diskname"]
    elif ev == "lttng_statedump_process_state":
        tid_pid[f["tid"]] = f["pid"]
    elif ev == "sched_process_fork":
        tid_pid[f["child_tid"]] = f["child_pid"]
    elif ev == "sched_switch":
        current[cpu] = f["next_tid"]
    elif ev == "block_bio_remap":
        for r in remaps:
            if r[0] == f["old_dev"] and r[1] == f["old_sector"]:
                r[0], r[1] = f["dev"], f["sector"]
                break
        else:
            remaps.append([f["dev"], f["sector"], f["old_dev"], f["old_sector"]])
    elif ev == "block_bio_backmerge":
        remaps = [r for r in remaps if not (r[0] == f["dev"] and r[1] == f["sector"])]
    elif ev == "block_rq_issue" and f["nr_sector"]:
        dev = next((r[2] for r in remaps if r[0] == f["dev"] and r[1] == f["sector"]), f["dev"])
        pending[(dev, f["sector"])] = (e["ts"], f["nr_sector"], f["rwbs"] % 2, f["tid"])
    elif ev == "block_rq_complete" and f["nr_sector"]:
        dev = f["dev"]
        for r in remaps:
            if r[0] == dev and r[1] == f["sector"]:
                dev = r[2]
                remaps.remove(r)
                break
        p = pending.get((dev, f["sector"]))
        if p and p[1] == f["nr_sector"]:
            del pending[(dev, f["sector"])]
            done[(names.get(dev, "?"), p[2])].append((e["ts"] - p[0], p[1] * 512))
            blk_by_pid[tid_pid.get(p[3], p[3])][p[2]] += p[1] * 512
    elif ev.startswith("sys_p") and ev[4:] in ("pread64", "pwrite64") and cpu in current:
        sc_open[current[cpu]] = (ev[4:], f, e["ts"])
    elif ev == "exit_syscall" and cpu in current and current[cpu] in sc_open:
        name, af, t = sc_open.pop(current[cpu])
        io_sc[(current[cpu], name)].append((t, e["ts"] - t, f["ret"], af["fd"]))
blkio_pid = int(open(os.path.join(guest_out, "blkio.pid")).read())
told = collections.Counter()
for line in open(os.path.join(guest_out, "blkio.out")):
    w = line.split()
    if w[0] in ("read", "write"):
        told[w[0]] += int(w[3])
ours_rd = sum(r for _, _, r, _ in io_sc[(blkio_pid, "pread64")])
ours_wr = sum(r for _, _, r, _ in io_sc[(blkio_pid, "pwrite64")])
disks = collections.defaultdict(lambda: [0, 0, 0])   # name -> requests, sectors, total ns
for (name, _), reqs in done.items():
    for ns, b in reqs:
        disks[name][0] += 1
        disks[name][1] += b // 512
        disks[name][2] += ns
print("block I/O (ours): %s; blkio's pread64/pwrite64 returned %d/%d bytes, it says %d/%d" %
      (", ".join("%s %d requests, %d sectors" % (n, d[0], d[1]) for n, d in sorted(disks.items())),
       ours_rd, ours_wr, told["read"], told["write"]))
if (ours_rd, ours_wr) != (told["read"], told["write"]) or ours_wr != 1 << 20:
    fail("blkio's syscalls: %d/%d bytes in the trace, %d/%d done" % (ours_rd, ours_wr, told["read"], told["write"]))
if "vda1" not in disks or disks["vda1"][0] < 88:
    fail("block requests on vda1: %s" % dict(disks))
sizes = collections.Counter((w, b) for (n, w), reqs in done.items() if n == "vda1" for _, b in reqs)
for (w, b, n) in ((1, 65536, 16), (0, 4096, 64), (0, 131072, 8)):
    if sizes[(w, b)] < n:
        fail("vda1: %d %s requests of %d bytes, want %d (direct I/O: one request each)" %
             (sizes[(w, b)], "write" if w else "read", b, n))


def mi(name, *extra):
    out = run(["/usr/bin/" + name + "-mi", "--no-intersection", "--skip-validation"] + list(extra) + [trace]).stdout
    res = json.loads(out)
    if "results" not in res:
        sys.exit("FAIL: %s-mi: %s" % (name, out[:2000]))
    text = run(["/usr/bin/" + name, "--no-intersection", "--skip-validation", trace])
    if "Error" in text.stdout + text.stderr or "Traceback" in text.stderr:
        sys.exit("FAIL: %s: %s%s" % (name, text.stdout[-2000:], text.stderr[-2000:]))
    return res["results"]


def tables(results, cls):
    return [t for t in results if t["class"] == cls or
            (isinstance(t["class"], dict) and t["class"].get("inherit") == cls)]


def title(t):
    return t["class"].get("title", "") if isinstance(t["class"], dict) else ""


usage = mi("lttng-iousagetop")
theirs = {}
for key, cls in (("requests", "per-disk-top-request"), ("sectors", "per-disk-top-sector"),
                 ("avg_ns", "per-disk-top-rps")):
    for t in tables(usage, cls):
        for row in t["data"]:
            theirs.setdefault(row[0]["name"], {})[key] = row[1]["value"]
for name, (n, sectors, total) in disks.items():
    th = theirs.get(name, {})
    if th.get("requests") != n or th.get("sectors") != sectors or abs(th.get("avg_ns", -1) - total / n) > 1e-6:
        fail("iousagetop %s: theirs %s, ours %d requests, %d sectors, %.3f ns each" % (name, th, n, sectors, total / n))
print("iousagetop per disk: %s" % theirs)
for t in tables(usage, "per-process-top-block"):
    write = "written" in title(t)
    for row in t["data"]:
        if row[1]["value"] != blk_by_pid[row[0]["pid"]][write]:
            fail("iousagetop block %s of pid %d: theirs %d, ours %d" % ("writes" if write else "reads",
                 row[0]["pid"], row[1]["value"], blk_by_pid[row[0]["pid"]][write]))
files = {}
for t in tables(usage, "per-file-top"):
    for row in t["data"]:
        files.setdefault(row[0]["path"], {})["written" if "written" in title(t) else "read"] = row[1]["value"]
if files.get("/dev/vda1") != {"read": told["read"], "written": told["write"]}:
    fail("iousagetop per file /dev/vda1: %s, blkio did %s" % (files.get("/dev/vda1"), dict(told)))
# Every call listed (its top 10 may be others' slower calls).
latency = mi("lttng-iolatencytop", "--limit", "100000")
rows = 0
for t in tables(latency, "top-syscall"):
    for row in t["data"]:
        if row[5]["tid"] != blkio_pid or row[3]["name"] not in ("pread64", "pwrite64"):
            continue
        rows += 1
        begin = row[0]["begin"]["value"] - offset_ns
        mine = [x for x in io_sc[(blkio_pid, row[3]["name"])] if x[0] == begin]
        if not mine or mine[0][1] != row[2]["value"] or row[6]["path"] != "/dev/vda1":
            fail("iolatencytop %s at %d: %d ns on %s, ours %s" % (row[3]["name"], begin, row[2]["value"],
                 row[6]["path"], mine))
if rows != len(io_sc[(blkio_pid, "pread64")]) + len(io_sc[(blkio_pid, "pwrite64")]):
    fail("iolatencytop lists %d of blkio's %d pread64 and pwrite64" %
         (rows, len(io_sc[(blkio_pid, "pread64")]) + len(io_sc[(blkio_pid, "pwrite64")])))
print("iolatencytop: %d of blkio's syscalls listed, each with our duration; iousagetop: /dev/vda1 %s" % (rows, files["/dev/vda1"]))
whole = json.loads(run([evstat, trace, "--json"]).stdout)
st = whole["io"]
# A complete trace: no request can span a lost range.
if not whole["complete"]:
    fail("evstat: the analyses' trace lost events: %s" % {k: whole[k] for k in ("discarded", "lost_packets")})
dev = next((d for d in st["devices"] if d["name"] == "vda1"), None)
for w, key in ((0, "reads"), (1, "writes")):
    reqs = done[("vda1", w)]
    mine = {"count": len(reqs), "bytes": sum(b for _, b in reqs),
            "latency": {"count": len(reqs), "total_ns": sum(n for n, _ in reqs),
                        "min_ns": min(n for n, _ in reqs), "max_ns": max(n for n, _ in reqs),
                        "spans_loss": 0}}
    if not dev or dev[key] != mine:
        fail("evstat vda1 %s: %s, ours %s" % (key, dev and dev[key], mine))
for sz in (dev or {}).get("sizes", []):
    n = sum(1 for ns, b in done[("vda1", sz["op"] == "write")] if sz["max_bytes"] // 2 < b <= sz["max_bytes"])
    if sz["count"] != n:
        fail("evstat vda1 %s up to %d bytes: %d requests, ours %d" % (sz["op"], sz["max_bytes"], sz["count"], n))
pr = next((p for p in st["processes"] if p["pid"] == blkio_pid), {})
fi = next((f for f in st["files"] if f["name"] == "/dev/vda1"), {})
if (pr.get("block_read"), pr.get("read"), fi.get("read"), fi.get("write")) != \
        (blk_by_pid[blkio_pid][0], told["read"], told["read"], told["write"]):
    fail("evstat blkio: %s, /dev/vda1: %s" % (pr, fi))
print("evstat I/O: vda1 %d reads, %d writes, %d request sizes; blkio and /dev/vda1 as blkio says" %
      (dev["reads"]["count"], dev["writes"]["count"], len(dev["sizes"])))

# ---- Kernel stacks (issue 45): power_cpu_frequency's (the stacks= parameter)
# go through the fault module's write path, named from the saved symbols.
ids = {n: int(i) for n, i, sid in re.findall(r'event \{\n\tname = "([^"]+)";\n\tid = (\d+);\n\tstream_id = (\d+);', md)
       if sid == "0"}
named = [json.loads(l) for l in run([evcat, trace, "--stacks", "--format", "json", "--event", "kernel_stack"]).stdout.splitlines()]
cpus = sorted({e["cpu"] for e in events})
fstacks = [e["fields"]["stack"] for e in named if e["fields"]["event_id"] == ids["power_cpu_frequency"]]
bstacks = [e["fields"]["stack"] for e in named if e["fields"]["event_id"] == ids["block_rq_issue"]]
path = ["evt_fault_freq", "evt_fault_write", "vfs_write", "ksys_write", "do_syscall_64"]
for st in fstacks:
    funcs = [f.split("+")[0] for f in st]
    at = [funcs.index(p) if p in funcs else -1 for p in path]
    if -1 in at or at != sorted(at) or any("[evtrace]" in f for f in st):
        fail("a power_cpu_frequency stack is not the write path %s: %s" % (" <- ".join(path), st))
        break
print("kernel stacks: %d of power_cpu_frequency (3 per CPU: %d CPUs), innermost %s; %d of block_rq_issue, e.g. %s" %
      (len(fstacks), len(cpus), " <- ".join((fstacks or [["?"]])[0][:6]), len(bstacks), (bstacks or [["?"]])[0][:3]))
if len(fstacks) != 3 * len(cpus):
    fail("%d power_cpu_frequency stacks, want 3 per CPU (%d CPUs)" % (len(fstacks), len(cpus)))
if not bstacks or all(f.startswith("0x") for st in bstacks for f in st):
    fail("block_rq_issue's stacks: none, or no function named: %s" % bstacks[:2])
# The stacks as text (addresses), as babeltrace2 prints them: the same fields.
# (babeltrace2 puts the stream's context first, "{ cpu_id = 0 }, ", evcat not)
def stack_fields(lines):
    return sorted(re.sub(r"^\{ cpu_id = \d+ \}, ", "", l.split(" kernel_stack: ", 1)[1])
                  for l in lines if " kernel_stack: " in l)


ours_text = stack_fields(run([evcat, trace, "--event", "kernel_stack"]).stdout.splitlines())
bt2_text = stack_fields(run(["babeltrace2", trace]).stdout.splitlines())
if not ours_text or ours_text != bt2_text:
    diff = [(a, b) for a, b in zip(ours_text, bt2_text) if a != b][:1]
    fail("evcat's kernel_stack text: %d events, babeltrace2's %d; first difference %s" % (len(ours_text), len(bt2_text), diff))
print("kernel stacks as text: %d, babeltrace2's fields each" % len(ours_text))
# evview names them too: /api/events' kernel_stack events carry evcat --stacks' names.
evview = os.path.join(os.path.dirname(evcat), "evview")
srv = subprocess.Popen([evview, trace, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
try:
    m = re.search(r"http://127\.0\.0\.1:(\d+)/#token=([0-9a-f]{64})$", srv.stdout.readline().strip())
    seen = []
    if m:
        c = http.client.HTTPConnection("127.0.0.1", int(m.group(1)), timeout=120)
        c.request("GET", "/api/events?event=kernel_stack&limit=1000", headers={"Authorization": "Bearer " + m.group(2)})
        seen = [e["fields"]["stack"] for e in json.loads(c.getresponse().read()).get("events", [])]
        c.close()
finally:
    srv.terminate()
    srv.wait(timeout=30)
want = [e["fields"]["stack"] for e in named]
if not want or sorted(map(tuple, seen)) != sorted(map(tuple, want)):
    fail("evview's kernel stacks: %d, evcat --stacks' %d; e.g. %s" % (len(seen), len(want), seen[:1]))
print("evview: %d kernel stacks, named as evcat --stacks names them" % len(seen))
folded = run([evstat, trace, "--folded", "power_cpu_frequency"]).stdout.splitlines()
total = sum(int(l.rsplit(" ", 1)[1]) for l in folded)
if total != len(fstacks) or not all(l.startswith("power_cpu_frequency;") and
                                    ";vfs_write;evt_fault_write [evt_fault];evt_fault_freq [evt_fault] " in l for l in folded):
    fail("evstat --folded power_cpu_frequency: %d stacks, want %d; %s" % (total, len(fstacks), folded[:2]))
print("evstat --folded power_cpu_frequency: %d lines, %d stacks" % (len(folded), total))

# ---- CPU idle states and frequencies (issue 45): per CPU (the events' cpu_id),
# each value from its event to the CPU's next one, the last to the trace's end.
changes = collections.defaultdict(list)
for e in events:
    if e["event"] in ("power_cpu_idle", "power_cpu_frequency"):
        k = (e["fields"]["cpu_id"], e["event"] == "power_cpu_idle")
        if not changes[k] or changes[k][-1][1] != e["fields"]["state"]:
            changes[k].append((e["ts"], e["fields"]["state"]))
ours = collections.defaultdict(lambda: collections.Counter())
for k, ch in changes.items():
    for i, (ts, v) in enumerate(ch):
        ours[k][v] += (ch[i + 1][0] if i + 1 < len(ch) else T1) - ts
pw = {c["cpu"]: c for c in json.loads(run([evstat, trace, "--json"]).stdout)["power"]["cpus"]}
for (cpu, idle), counter in sorted(ours.items()):
    theirs = {x["state" if idle else "khz"]: x["ns"] for x in pw.get(cpu, {}).get("idle" if idle else "frequency", [])}
    if theirs != dict(counter):
        fail("evstat power cpu %d %s: %s, ours %s" % (cpu, "idle" if idle else "frequency", theirs, dict(counter)))
for cpu in cpus:
    f = ours[(cpu, False)]
    if set(f) != {1200000, 2400000} or not 200e6 < f[2400000] < 2e9:
        fail("cpu %d frequencies: %s (the fault module set 1.2, 2.4 then 1.2 GHz, 300 ms each)" % (cpu, dict(f)))
print("power: frequencies per CPU %s; idle states per CPU %s: evstat agrees" %
      ({c: sorted(ours[(c, False)]) for c in cpus}, {c: sorted(ours[(c, True)]) for c in cpus}))

if failures:
    sys.exit("FAIL: %d mismatches" % len(failures))
print("analyses: counts, cputop, syscallstats, irqstats, Trace Compass layout, state dump, block and file I/O, "
      "kernel stacks and CPU power states agree")
