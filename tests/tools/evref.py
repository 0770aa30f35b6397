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


# ---- The deeper sections (evstat's per-task tables, percentiles, errno, worst, CPU time) ----

PCTS = (("p50", 500), ("p90", 900), ("p99", 990), ("p99.9", 999))


def nearest_rank(sorted_values, permille):
    """The value of rank ceil(permille / 1000 * n) (1-based): the exact percentile."""
    n = len(sorted_values)
    k = max(1, -(-permille * n // 1000))
    return sorted_values[k - 1]


def pct_ok(reported, durations, fail, what):
    """evstat's percentiles (log-linear buckets) are never below the exact value, at most 1/128 above."""
    if not durations:
        if reported:
            fail("%s: percentiles %s with no measurement" % (what, reported))
        return
    d = sorted(durations)
    for name, pm in PCTS:
        exact = nearest_rank(d, pm)
        got = reported.get(name)
        if got is None or not exact <= got <= exact + exact // 128:
            fail("%s: %s %s, exact %d (allowed %d .. %d)" % (what, name, got, exact, exact, exact + exact // 128))


def softirq_name(vec):
    names = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"]
    return names[vec] if vec < len(names) else "vec%d" % vec


def deep(events, lo, hi, seed, windows=()):
    """Per syscall and per (tid, syscall): durations and return values; per IRQ and softirq: durations;
    per thread: wakeup latencies and wakers; the worst of each kind; where each CPU's time went."""
    r = {"sys": collections.defaultdict(list), "rets": collections.defaultdict(collections.Counter),
         "tsys": collections.defaultdict(list), "trets": collections.defaultdict(collections.Counter),
         "tcalls": collections.Counter(), "irq": collections.defaultdict(list),
         "soft": collections.defaultdict(list), "wake": collections.defaultdict(list),
         "wakers": collections.defaultdict(collections.Counter), "sched": [],
         "worst": {"syscall": [], "irq": [], "softirq": [], "sched": []}, "cpu_changes": collections.Counter(),
         "migrations": collections.Counter()}
    cur = dict(seed)
    running = set(t for t in seed.values() if t)
    last_cpu = {t: c for c, t in seed.items() if t}
    comm = {0: "swapper"}       # the idle tasks, whatever each CPU's is called
    pend, pirq, psoft, wait = {}, {}, {}, {}
    # Where each CPU's time goes: (mode_since, irq depth, softirq depth, task time of the slice, switched)
    cpu = {}
    use = collections.defaultdict(lambda: collections.Counter())
    start0 = last = None

    def charge(c, ts):
        st = cpu[c]
        if ts <= st["mode"]:
            return
        lossy = overlap(windows, st["mode"], ts)
        use[c]["lossy_ns"] += lossy
        d = ts - st["mode"] - lossy
        if st["irq"]:
            use[c]["irq_ns"] += d
        elif st["soft"]:
            use[c]["softirq_ns"] += d
        else:
            st["task"] += d
        st["mode"] = ts

    def slice_end(c, owner, ts):
        charge(c, ts)
        if owner is not None and owner > 0:
            use[c]["busy_ns"] += cpu[c]["task"]
        elif owner == 0:
            use[c]["idle_ns"] += cpu[c]["task"]
        cpu[c]["task"] = 0

    def who(c):
        t = cur.get(c)
        return (-1, "") if t is None else (t, comm.get(t, ""))

    for e in events:
        ts = e["ts"]
        if ts < lo or ts > hi:
            continue
        ev, c, f = e["event"], e["cpu"], e["fields"]
        if start0 is None:
            start0 = ts
            for k in seed:
                cpu[k] = {"mode": ts, "irq": 0, "soft": 0, "task": 0, "switched": True}
        last = ts
        if c not in cpu:
            cpu[c] = {"mode": start0, "irq": 0, "soft": 0, "task": 0, "switched": False}
        if ev == "sched_switch":
            prev, nxt = f["prev_tid"], f["next_tid"]
            st = cpu[c]
            slice_end(c, cur.get(c) if st["switched"] else prev, ts)
            st["switched"] = True
            running.discard(cur.get(c))
            running.discard(prev)
            if prev:
                comm[prev] = f["prev_comm"]
            if nxt:
                comm[nxt] = f["next_comm"]
                if last_cpu.get(nxt, c) != c:
                    r["cpu_changes"][nxt] += 1
                last_cpu[nxt] = c
            w = wait.pop(nxt, None)
            if w and nxt:
                if spans(windows, w[0], ts):
                    r["sched_lossy"] = r.get("sched_lossy", 0) + 1
                else:
                    r["wake"][nxt].append(ts - w[0])
                    r["wakers"][nxt][w[1]] += 1
                    r["worst"]["sched"].append((ts - w[0], w[0], c, nxt, 0, {
                        "prio": f["next_prio"], "waker_tid": w[1], "waker_comm": comm.get(w[1], "") if w[1] > 0 else "",
                        "comm": comm.get(nxt, "")}))
            running.add(nxt)
            cur[c] = nxt
            st["irq"] = st["soft"] = 0
            pirq.pop(c, None)
            psoft.pop(c, None)
        elif ev in ("sched_wakeup", "sched_waking", "sched_wakeup_new"):
            t = f["tid"]
            if t > 0:
                comm[t] = f["comm"]
                if t not in running and t not in wait:
                    wk = cur.get(c)
                    wk = wk if wk else -1
                    wait[t] = (ts, wk)
        elif ev == "sched_migrate_task":
            if f["tid"] > 0:
                r["migrations"][f["tid"]] += 1
        elif ev.startswith("sys_") or ev.startswith("compat_sys_"):
            tid = cur.get(c)
            if tid is not None:
                r["tcalls"][tid, ev] += 1
                pend[tid] = (ev, ts, c)
        elif ev == "exit_syscall":
            tid = cur.get(c)
            p = pend.pop(tid, None) if tid is not None else None
            if p and not spans(windows, p[1], ts):
                name, t0, c0 = p
                d, ret = ts - t0, f["ret"]
                r["sys"][name].append(d)
                r["rets"][name][ret] += 1
                r["tsys"][tid, name].append(d)
                r["trets"][tid, name][ret] += 1
                r["worst"]["syscall"].append((d, t0, c0, tid, name, {"syscall": name, "ret": ret,
                                              "comm": comm.get(tid, "")}))
        elif ev == "irq_handler_entry":
            # Handlers do not nest on a CPU: an entry while one is open replaces it (its exit was lost).
            charge(c, ts)
            cpu[c]["irq"] = 1
            pirq[c] = (f["irq"], ts)
        elif ev == "irq_handler_exit":
            charge(c, ts)
            p = pirq.pop(c, None)
            if cpu[c]["irq"]:
                cpu[c]["irq"] = cpu[c]["irq"] - 1 if p and p[0] == f["irq"] else 0
            if p and p[0] == f["irq"] and not spans(windows, p[1], ts):
                r["irq"][p[0]].append(ts - p[1])
                t, cm = who(c)
                r["worst"]["irq"].append((ts - p[1], p[1], c, t, p[0], {"irq": p[0], "comm": cm}))
        elif ev == "softirq_entry":
            charge(c, ts)
            cpu[c]["soft"] = 1
            psoft[c] = (f["vec"], ts)
        elif ev == "softirq_exit":
            charge(c, ts)
            p = psoft.pop(c, None)
            if cpu[c]["soft"]:
                cpu[c]["soft"] = cpu[c]["soft"] - 1 if p and p[0] == f["vec"] else 0
            if p and p[0] == f["vec"] and not spans(windows, p[1], ts):
                r["soft"][p[0]].append(ts - p[1])
                t, cm = who(c)
                r["worst"]["softirq"].append((ts - p[1], p[1], c, t, p[0], {"vec": p[0], "name": softirq_name(p[0]),
                                              "comm": cm}))
    for c, st in cpu.items():
        if last is not None and last >= st["mode"]:
            slice_end(c, cur.get(c) if st["switched"] else None, last)
    r["cpus"] = {c: {k: n for k, n in v.items() if n} for c, v in use.items()}
    for k in r["worst"]:
        r["worst"][k].sort(key=lambda w: (-w[0], w[1], w[2], w[3], w[4]))
    return r


def worst_rows(rows, n):
    """Our worst rows as evstat's JSON gives them (the first @n)."""
    out = []
    for d, b, c, t, _, extra in rows[:n]:
        row = {"begin_ts": b, "end_ts": b + d, "duration_ns": d, "cpu": c, "tid": t}
        row.update(extra)
        out.append(row)
    return out


def rets_of(returns):
    """evstat's "returns" object as {ret: count} with success under 0 (and the names checked apart)."""
    out = collections.Counter({0: returns["success"]} if returns["success"] else {})
    for e in returns["errors"]:
        out[e["ret"]] += e["count"]
    return out


def ours_rets(counter):
    out = collections.Counter()
    for ret, n in counter.items():
        out[0 if ret >= 0 else ret] += n
    return out


def errno_names():
    """The kernel's errno names by value (Python's table, its aliases put back to the kernel's first spelling)."""
    import errno
    names = dict(errno.errorcode)
    names.update({errno.EAGAIN: "EAGAIN", errno.EDEADLK: "EDEADLK", errno.EOPNOTSUPP: "EOPNOTSUPP"})
    names.update({512: "ERESTARTSYS", 513: "ERESTARTNOINTR", 514: "ERESTARTNOHAND", 515: "ENOIOCTLCMD",
                  516: "ERESTART_RESTARTBLOCK"})
    return names


def compare_deep(st, events, lo, hi, what, seed, fail, windows=(), whole=True):
    """evstat --json's deeper sections against deep(); @whole: st is not filtered by --pid/--comm."""
    r = deep(events, lo, hi, seed, windows)
    names = errno_names()
    n = {"sys": 0, "pct": 0, "tsys": 0, "worst": 0, "wake": 0}

    def rets_check(where, returns, ours):
        if rets_of(returns) != ours_rets(ours):
            fail("%s: %s return values (evstat, ours): %s, %s" % (what, where, dict(rets_of(returns)), dict(ours_rets(ours))))
        for e in returns["errors"]:
            if e["name"] != names.get(-e["ret"]):
                fail("%s: %s errno %d named %s, the kernel's name is %s" % (what, where, e["ret"], e["name"],
                                                                          names.get(-e["ret"])))
    if whole:
        for y in st["syscalls"]:
            rets_check(y["name"], y["returns"], r["rets"].get(y["name"], {}))
            pct_ok(y["percentiles_ns"], r["sys"].get(y["name"], []), fail, "%s: %s" % (what, y["name"]))
            if y["errors"] != sum(c for ret, c in r["rets"].get(y["name"], {}).items() if ret < 0):
                fail("%s: %s errors %d" % (what, y["name"], y["errors"]))
            n["sys"] += 1
        for q in st["irqs"]:
            pct_ok(q["percentiles_ns"], r["irq"].get(q["irq"], []), fail, "%s: irq %d" % (what, q["irq"]))
        for q in st["softirqs"]:
            d = r["soft"].get(q["vec"], [])
            if [q["duration"]["count"], q["duration"]["min_ns"], q["duration"]["max_ns"]] != \
                    ([len(d), min(d), max(d)] if d else [0, 0, 0]):
                fail("%s: softirq %s durations %s, ours %d" % (what, q["name"], q["duration"], len(d)))
            pct_ok(q["percentiles_ns"], d, fail, "%s: softirq %s" % (what, q["name"]))
        alls = [x for v in r["wake"].values() for x in v]
        if st["sched_latency"]["count"] != len(alls) or (alls and [st["sched_latency"]["min_ns"], st["sched_latency"]["max_ns"]] != [min(alls), max(alls)]):
            fail("%s: scheduling latency %s, ours %d" % (what, st["sched_latency"], len(alls)))
        pct_ok(st["sched_latency_percentiles_ns"], alls, fail, "%s: scheduling latency" % what)
        if st["sched_latency"]["spans_loss"] != r.get("sched_lossy", 0):
            fail("%s: scheduling latency spans loss %d, ours %d" % (what, st["sched_latency"]["spans_loss"], r.get("sched_lossy", 0)))
        for c in st["cpus"]:
            mine = {k: c[k] for k in ("busy_ns", "idle_ns", "irq_ns", "softirq_ns", "lossy_ns") if c[k]}
            if mine != r["cpus"].get(c["cpu"], {}):
                fail("%s: CPU %d time (evstat, ours): %s, %s" % (what, c["cpu"], mine, r["cpus"].get(c["cpu"])))
        # The worst of each kind: the first 100 as ours, in order.
        for k in ("syscall", "irq", "softirq", "sched"):
            got = [{x: w[x] for x in w if x not in ("pid", "name", "errno")} if k != "softirq" else
                   {x: w[x] for x in w if x != "pid"} for w in st["worst"][k]]
            want = worst_rows(r["worst"][k], 100)
            if got != want:
                bad = [(i, a, b) for i, (a, b) in enumerate(zip(got, want)) if a != b][:2]
                fail("%s: worst %s: %d rows, ours %d; first differences (evstat, ours): %s" % (what, k, len(got), len(want), bad))
            for w in st["worst"]["syscall"]:
                if w["errno"] != names.get(-w["ret"]):
                    fail("%s: worst syscall ret %d errno %s" % (what, w["ret"], w["errno"]))
            n["worst"] += len(got)
    # Per thread: its syscalls (entries, latencies, return values, percentiles), wakeups and wakers, CPU changes.
    for t in st["threads"]:
        tid = t["tid"]
        if tid <= 0:
            continue
        for y in t["syscalls"]:
            d = r["tsys"].get((tid, y["name"]), [])
            lat = y["latency"]
            if y["count"] != r["tcalls"].get((tid, y["name"]), 0) or lat["count"] != len(d) or \
                    (d and [lat["min_ns"], lat["max_ns"], lat["total_ns"]] != [min(d), max(d), sum(d)]):
                fail("%s: thread %d %s: %d calls %s, ours %d calls %d measured" %
                     (what, tid, y["name"], y["count"], lat, r["tcalls"].get((tid, y["name"]), 0), len(d)))
            rets_check("thread %d %s" % (tid, y["name"]), y["returns"], r["trets"].get((tid, y["name"]), {}))
            pct_ok(y["percentiles_ns"], d, fail, "%s: thread %d %s" % (what, tid, y["name"]))
            n["tsys"] += 1
        got = {y["name"] for y in t["syscalls"]}
        want = {name for (x, name), c in r["tcalls"].items() if x == tid and c}
        if got != want and t is [u for u in st["threads"] if u["tid"] == tid][-1]:
            fail("%s: thread %d syscalls %s, ours %s" % (what, tid, sorted(got), sorted(want)))
        w = t["wakeup"]
        if w and t is [u for u in st["threads"] if u["tid"] == tid][-1]:
            d = r["wake"].get(tid, [])
            if w["latency"]["count"] != len(d) or (d and [w["latency"]["min_ns"], w["latency"]["max_ns"]] != [min(d), max(d)]):
                fail("%s: thread %d wakeups %s, ours %d" % (what, tid, w["latency"], len(d)))
            pct_ok(w["percentiles_ns"], d, fail, "%s: thread %d wakeup" % (what, tid))
            if {x["tid"]: x["count"] for x in w["wakers"]} != dict(r["wakers"].get(tid, {})):
                fail("%s: thread %d wakers %s, ours %s" % (what, tid, w["wakers"], dict(r["wakers"].get(tid, {}))))
            if t["cpu_changes"] != r["cpu_changes"].get(tid, 0) or t["migrations"] != r["migrations"].get(tid, 0):
                fail("%s: thread %d cpu changes %d migrations %d, ours %d %d" % (what, tid, t["cpu_changes"], t["migrations"],
                     r["cpu_changes"].get(tid, 0), r["migrations"].get(tid, 0)))
            n["wake"] += 1
    # Per process: its threads' calls added up.
    pid_of = {t["tid"]: t["pid"] for t in st["threads"]}
    procs = collections.defaultdict(lambda: collections.defaultdict(list))
    pcalls = collections.defaultdict(collections.Counter)
    kept = {t["tid"] for t in st["threads"]}
    for (tid, name), c in r["tcalls"].items():
        if tid > 0 and tid in kept:
            key = pid_of.get(tid, -1)
            key = key if key >= 0 else ("tid", tid)
            pcalls[key][name] += c
            procs[key][name] += r["tsys"].get((tid, name), [])
    got = {}
    for p in st["processes"]:
        if p["pid"] < 0:
            continue            # a thread of an unknown process: its own row, checked as a thread above
        key = p["pid"]
        for y in p["syscalls"]:
            d = procs.get(key, {}).get(y["name"], [])
            pct_ok(y["percentiles_ns"], d, fail, "%s: process %d %s" % (what, p["pid"], y["name"]))
            got.setdefault(key, {})[y["name"]] = (y["count"], y["latency"]["count"])
    want = {k: {name: (pcalls[k][name], len(procs[k][name])) for name in pcalls[k]}
            for k in pcalls if not isinstance(k, tuple)}
    if got != want:
        fail("%s: syscalls per process differ: %s" % (what, {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
                                                           if got.get(k) != want.get(k)}))
    print("%s: %d syscalls' errno and percentiles, %d thread syscalls, %d processes, %d worst rows, %d threads' wakeups: "
          "as computed from evcat's events" % (what, n["sys"], n["tsys"], len(got), n["worst"], n["wake"]), flush=True)
    return r
