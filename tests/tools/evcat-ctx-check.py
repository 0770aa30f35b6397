#!/usr/bin/env python3
"""evcat's task context and selections against an independent computation.

usage: evcat-ctx-check.py EVCAT TRACE

From the events alone (`evcat --format json --threads 1`, their "fields"),
this script works out which task ran each event and compares it with what
evcat says (tid, pid, comm; an exit's syscall and where its name came
from), then checks evcat's text byte for byte against lines rebuilt from
that computation, on one thread and on several (small slices), and every
selection (--pid, --tid, --comm, --event globs, --where, with --cpu and
--from/--to) against the subset this script picks (JSON: the same lines;
text: the same lines with each delta to the line before it shown).

The rules (evcat(1), Task context): a CPU's task is the next_tid of its
last sched_switch; before its first, that switch's prev_tid; a switch is
its prev_tid's, under the prev_comm it carries. A thread's pid and name
come from the state dump, fork (child), exec (the file's base name), and
the names switches and wakeups carry (a negative pid or an empty name says
nothing); every CPU's idle task is tid 0, pid
0, named swapper/CPU. An exit_syscall ends the syscall its thread entered
last (by name, "entry"), else the kernel's table by its number ("id":
read here from the metadata's text: the sys_ events' ids from sys_read's).
"""
import fnmatch
import json
import os
import re
import subprocess
import sys

evcat, trace = sys.argv[1:3]
bad = []


def fail(msg):
    bad.append(msg)
    print("MISMATCH: " + msg, flush=True)


def run(args):
    p = subprocess.run([evcat, trace] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    if p.returncode != 0:
        fail("evcat %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")[-300:]))
    return p.stdout.decode("utf-8", errors="surrogateescape").splitlines()


J = [json.loads(line) for line in run(["--format", "json", "--threads", "1"])]
if not J:
    fail("no events")
    sys.exit(1)

threads = {}        # tid -> [pid, comm]


def valid_switch(e):
    """A switch with a negative tid (a damaged event) says nothing."""
    return e["event"] == "sched_switch" and e["fields"]["prev_tid"] >= 0 and e["fields"]["next_tid"] >= 0


def first_switches():
    """Each CPU's task before its first switch: that switch's prev_tid, under its prev_comm."""
    cur = {}
    for e in J:
        if valid_switch(e) and e["cpu"] not in cur:
            cur[e["cpu"]] = e["fields"]["prev_tid"]
            learn(e["fields"]["prev_tid"], comm=e["fields"]["prev_comm"])
    return cur



def learn(tid, pid=None, comm=None):
    if tid is None or tid <= 0:
        return
    t = threads.setdefault(tid, [None, ""])
    if pid is not None and pid >= 0:
        t[0] = pid
    if comm:
        t[1] = comm[:15]


def ident(tid, cpu):
    if tid is None:
        return None, None, None
    if tid == 0:
        return 0, 0, "swapper/%d" % cpu
    pid, comm = threads.get(tid, [None, ""])
    return tid, pid, comm if comm else None


def is_entry(name):
    return name.startswith("sys_") or name.startswith("compat_sys_")


# The kernel's 64-bit syscall table, from the metadata's own text: its sys_ events' ids
# from sys_read's (number 0 on x86-64) up to compat_sys_restart_syscall's.
meta = os.path.join(trace, "metadata")
if not os.path.exists(meta):
    meta = os.path.join(trace, "kernel", "metadata")
ids = dict(re.findall(r'name = "([A-Za-z_0-9]+)";\s*id = (\d+);', open(meta, errors="replace").read()))
ids = {k: int(v) for k, v in ids.items()}
table = {}
if "sys_read" in ids:
    base = ids["sys_read"]
    top = ids.get("compat_sys_restart_syscall", 1 << 31)
    table = {v - base: k for k, v in ids.items() if k.startswith("sys_") and base <= v < top}

# The context of every event, in order.
threads = {}
cur = first_switches()
pending = {}
REF = []
for e in J:
    f, name, cpu = e["fields"], e["event"], e["cpu"]
    if valid_switch(e):
        tid = f["prev_tid"]
        learn(tid, comm=f["prev_comm"])
    else:
        tid = cur.get(cpu)
    r = dict(zip(("tid", "pid", "comm"), ident(tid, cpu)))
    if name == "exit_syscall":
        sc = pending.get(tid)
        if sc:
            r["syscall"], r["syscall_from"] = sc, "entry"
        elif f["id"] in table:
            r["syscall"], r["syscall_from"] = table[f["id"]], "id"
        pending[tid] = None
    elif is_entry(name):
        pending[tid] = name
    REF.append(r)
    # The event's effect, after its line.
    if valid_switch(e):
        learn(f["next_tid"], comm=f["next_comm"])
        cur[cpu] = f["next_tid"]
    elif name in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
        learn(f["tid"], comm=f["comm"])
    elif name == "sched_process_fork":
        learn(f["child_tid"], pid=f["child_pid"], comm=f["child_comm"])
    elif name == "sched_process_exec":
        learn(f["tid"], comm=os.path.basename(f["filename"]))
    elif name == "lttng_statedump_process_state":
        learn(f["tid"], pid=f["pid"], comm=f["name"])

n = 0
for i, (e, r) in enumerate(zip(J, REF)):
    got = {k: e.get(k) for k in ("tid", "pid", "comm", "syscall", "syscall_from") if k in e or k in r}
    if got != r:
        n += 1
        if n <= 5:
            fail("event %d (%s at %d, CPU %d): evcat says %s, the reference %s" %
                 (i, e["event"], e["ts"], e["cpu"], got, r))
print("context: %d events, %d threads named, %d syscalls in the table, %d differ" %
      (len(J), len(threads), len(table), n), flush=True)

STATES = "SDTtXZPI"


def state_text(v):
    if v == 0:
        return "R"
    if v >> 8:
        return str(v)
    return "|".join(STATES[b] for b in range(8) if v >> b & 1)


def delta(prev, ts):
    if prev is None:
        return "+?.?????????"
    d = ts - prev
    sign = "+" if d >= 0 else "-"
    d = abs(d)
    return "%s%d.%09d" % (sign, d // 10**9, d % 10**9)


BODY = re.compile(r"^\[[^]]*\] \([^)]*\) .* \[\d+\] [A-Za-z_0-9]+: \{(?: syscall = [^ ,]+,)?(.*)$")


def bodies(lines):
    """The fields' text of every line (the part babeltrace2's comparison checks)."""
    out = []
    for line in lines:
        m = BODY.match(line)
        out.append(m.group(1) if m else None)
    return out


T1 = run(["--threads", "1"])
if len(T1) != len(J):
    fail("text on one thread: %d lines, JSON %d" % (len(T1), len(J)))
B = bodies(T1)


def text_line(i, prev):
    e, r = J[i], REF[i]
    task = "%s/%s" % (r["comm"] if r["comm"] else "?", "?" if r["tid"] is None else r["tid"])
    sc = " syscall = %s," % r["syscall"] if r.get("syscall") else ""
    body = B[i] if i < len(B) and B[i] is not None else ""
    if e["event"] == "sched_switch":
        want = "prev_state = %s," % state_text(e["fields"]["prev_state"])
        if want not in body:
            fail("line %d: %s not in %s" % (i, want, body))
    return "[%s] (%s) %s [%03d] %s: {%s%s" % (e["time"][11:-1], delta(prev, e["ts"]), task, e["cpu"], e["event"],
                                             sc, body)


def expect_text(idx):
    out, prev = [], None
    for i in idx:
        out.append(text_line(i, prev))
        prev = J[i]["ts"]
    return out


def compare(what, got, want):
    if got == want:
        return True
    k = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    fail("%s: %d lines vs %d expected, first difference at %d:\n  got  %r\n  want %r" %
         (what, len(got), len(want), k, got[k] if k < len(got) else None, want[k] if k < len(want) else None))
    return False


ALL = list(range(len(J)))
want_text = expect_text(ALL)
want_json = [json.dumps(e, separators=(",", ":"), ensure_ascii=False) for e in J]
for mode in (["--threads", "1"], [], ["--threads", "2", "--slice-bytes", "65536"]):
    ok = compare("text %s" % " ".join(mode), T1 if mode == ["--threads", "1"] else run(mode), want_text)
    got = [json.dumps(json.loads(x), separators=(",", ":"), ensure_ascii=False)
           for x in run(["--format", "json"] + mode)]
    ok &= compare("json %s" % " ".join(mode), got, want_json)
    if ok:
        print("all events, %s: text and JSON as computed" % (" ".join(mode) or "default threads"), flush=True)

# Selections.
pids = sorted({r["pid"] for r in REF if r["pid"]})
tids = sorted({r["tid"] for r in REF if r["tid"]})
P, T2 = pids[len(pids) // 2], tids[:2]
first, last = J[0]["ts"], J[-1]["ts"]
lo, hi = first + (last - first) // 3, first + 2 * (last - first) // 3


def where_cmp(v, op, x):
    return {"==": v == x, "!=": v != x, "<": v < x, "<=": v <= x, ">": v > x, ">=": v >= x}[op]


cases = [
    (["--pid", str(P)], lambda e, r: r["pid"] == P),
    (["--tid", "%d,%d" % tuple(T2)], lambda e, r: r["tid"] in T2),
    (["--comm", "worker-1*"], lambda e, r: r["comm"] is not None and fnmatch.fnmatchcase(r["comm"], "worker-1*")),
    (["--comm", "kworker*", "--comm", "swapper/[02]"],
     lambda e, r: r["comm"] is not None and (fnmatch.fnmatchcase(r["comm"], "kworker*") or
                                             fnmatch.fnmatchcase(r["comm"], "swapper/[02]"))),
    (["--event", "sys_*", "--event", "exit_syscall"], lambda e, r: e["event"].startswith("sys_") or
     e["event"] == "exit_syscall"),
    (["--event", "sched_sw?tch,irq_*"], lambda e, r: fnmatch.fnmatchcase(e["event"], "sched_sw?tch") or
     e["event"].startswith("irq_")),
    (["--where", "ret < 0"], lambda e, r: "ret" in e["fields"] and e["fields"]["ret"] < 0),
    (["--where", "fd >= 10 and count == 4096"], lambda e, r: "fd" in e["fields"] and "count" in e["fields"] and
     where_cmp(e["fields"]["fd"], ">=", 10) and e["fields"]["count"] == 4096),
    (["--where", "next_comm ~ \"worker-?\""], lambda e, r: "next_comm" in e["fields"] and
     fnmatch.fnmatchcase(e["fields"]["next_comm"], "worker-?")),
    (["--comm", "worker-*", "--event", "exit_syscall", "--where", "ret != 0", "--cpu", "1,3",
      "--from", "@%d" % lo, "--to", "@%d" % hi],
     lambda e, r: r["comm"] is not None and fnmatch.fnmatchcase(r["comm"], "worker-*") and
     e["event"] == "exit_syscall" and e["fields"]["ret"] != 0 and e["cpu"] in (1, 3) and lo <= e["ts"] <= hi),
]
for opts, pred in cases:
    idx = [i for i in ALL if pred(J[i], REF[i])]
    if not idx:
        print("%s: selects nothing in this trace (compared all the same)" % " ".join(opts), flush=True)
    wt, wj = expect_text(idx), [want_json[i] for i in idx]
    ok = True
    for mode in (["--threads", "1"], ["--threads", "2", "--slice-bytes", "65536"]):
        ok &= compare("%s %s (text)" % (" ".join(opts), " ".join(mode)), run(opts + mode), wt)
        got = [json.dumps(json.loads(x), separators=(",", ":"), ensure_ascii=False)
               for x in run(opts + mode + ["--format", "json"])]
        ok &= compare("%s %s (json)" % (" ".join(opts), " ".join(mode)), got, wj)
        c = run(opts + mode + ["--count"])
        if c != [str(len(idx))]:
            fail("%s %s --count: %s, the reference %d" % (" ".join(opts), " ".join(mode), c, len(idx)))
            ok = False
    if ok:
        print("%s: %d of %d events, text, JSON and count as computed" % (" ".join(opts), len(idx), len(J)),
              flush=True)

if bad:
    print("evcat-ctx-check: %d mismatches" % len(bad))
    sys.exit(1)
print("evcat-ctx-check: all agree")
