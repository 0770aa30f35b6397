# SPDX-License-Identifier: GPL-2.0
"""The tests' own numbers of a trace, from `evcat --format json`'s events,
written from the definitions (not from the engine's code): what evstat and
evview are judged against (evstat-check.py, evview-check.py).

- replay(events, lo, hi, seed, windows): events per name and CPU; per syscall
  name the latencies entry -> exit of the thread running on the CPU (count,
  min, max); per hard IRQ the durations on its CPU; CPU time per thread from
  sched_switch, a thread running when the range starts counted from its first
  event (as lttng-cputop does); @seed: each CPU's thread at lo. An interval
  (a, b) that spans one of the loss @windows (from < b and a < to) is no
  measurement: a latency or a duration is left out; CPU time loses the part
  of a slice inside the windows.
- bt_windows(trace, offset_ns): the loss windows babeltrace2 reports (its
  "discarded N events between [A] and [B]" warnings, --clock-seconds), in
  the trace clock.
- running_at(events, lo): each CPU's thread at lo (the last switch before it).
- compare(st, events, lo, hi, what, seed, fail): a statistics document (evstat
  --json's layout) against replay(); each difference goes to fail(msg).
- bt_losses(trace): the loss records babeltrace2 reports (its "Tracer
  discarded N events|packets" warnings), one per gap in a stream.
"""
import collections
import re
import subprocess


def spans(windows, a, b):
    return any(f < b and a < t for f, t in windows)


def overlap(windows, a, b):
    """How much of [a, b] the windows cover (each instant once)."""
    cut = sorted((max(f, a), min(t, b)) for f, t in windows if f < b and a < t)
    total, end = 0, a
    for f, t in cut:
        f = max(f, end)
        if t > f:
            total += t - f
            end = t
    return total


def replay(events, lo, hi, seed, windows=()):
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
    lossy = collections.Counter()       # ("sys", name) or ("irq", n): spans a loss, not measured
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
            # A CPU runs next_tid from one switch to its next one (evview's
            # window rule); before its first switch, the prev_tid of that
            # switch ran from the first event. (The two differ only where a
            # loss took switches away.)
            owner = cur.get(cpu, f["prev_tid"])
            if owner:
                a = since.get(cpu, start0)
                cpu_ns[owner] += ts - a - overlap(windows, a, ts)
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
                if not spans(windows, t, ts):
                    scs[name].append(ts - t)
                else:
                    lossy["sys", name] += 1
        elif ev == "irq_handler_entry":
            pirq[cpu] = (f["irq"], ts)
        elif ev == "irq_handler_exit":
            p = pirq.pop(cpu, None)
            if p and p[0] == f["irq"] and not spans(windows, p[1], ts):
                hirq[p[0]].append(ts - p[1])
            elif p and p[0] == f["irq"]:
                lossy["irq", p[0]] += 1
    for cpu, tid in cur.items():
        if tid and start0 is not None:
            a = since.get(cpu, start0)
            cpu_ns[tid] += last - a - overlap(windows, a, last)
    return (names, cpus, {n: [len(d), min(d), max(d)] for n, d in scs.items()},
            {i: [len(d), min(d), max(d)] for i, d in hirq.items()}, {t: v for t, v in cpu_ns.items() if v}, lossy)


def running_at(events, lo):
    """Each CPU's thread at lo: the last switch before it."""
    cur = {}
    for e in events:
        if e["ts"] >= lo:
            break
        if e["event"] == "sched_switch":
            cur[e["cpu"]] = e["fields"]["next_tid"]
    return cur


def compare(st, events, lo, hi, what, seed, fail, windows=()):
    names, cpus, scs, hirq, cpu_ns, lossy = replay(events, lo, hi, seed, windows)
    # What spans a loss is counted apart, beside the figure it would have spoilt.
    spanned = {("sys", y["name"]): y["latency"]["spans_loss"] for y in st["syscalls"] if y["latency"]["spans_loss"]}
    spanned.update({("irq", q["irq"]): q["duration"]["spans_loss"] for q in st["irqs"] if q["duration"]["spans_loss"]})
    if spanned != dict(lossy):
        fail("%s: spans a loss (evstat, ours): %s" % (what, {k: (spanned.get(k), lossy.get(k))
             for k in set(spanned) | set(lossy) if spanned.get(k) != lossy.get(k)}))
    if st["complete"] != (not windows) and what == "whole trace":
        fail("%s: complete %s, with %d loss windows" % (what, st["complete"], len(windows)))
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
    print("%s: %d events, %d syscalls with latencies, %d irqs, %d threads with CPU time, %d spanning a loss: "
          "as computed from evcat's events" %
          (what, st["events"], sum(v[0] for v in theirs.values()), len(irq), len(threads), sum(lossy.values())))
    return threads, theirs


def bt_windows(trace, offset_ns):
    """babeltrace2's loss windows on @trace, (from, to) in the trace clock."""
    p = subprocess.run(["babeltrace2", "--clock-seconds", trace], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    out = []
    for a, b in re.findall(r"Tracer discarded [0-9]+ (?:events?|packets?) between \[([0-9.]+)\] and \[([0-9.]+)\]",
                           p.stderr):
        out.append((sec_ns(a) - offset_ns, sec_ns(b) - offset_ns))
    return out


def sec_ns(text):
    """"S.nnnnnnnnn" as integer nanoseconds (no float: they would round)."""
    s, _, n = text.partition(".")
    return int(s) * 1000000000 + int((n + "000000000")[:9])


def bt_losses(trace):
    """babeltrace2's loss warnings (events discarded, packets lost) on @trace."""
    p = subprocess.run(["babeltrace2", trace], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return len(re.findall(r"Tracer discarded [0-9]+ (?:events?|packets?)", p.stderr))
