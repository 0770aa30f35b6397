#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""evview's API against an independent computation from `evcat --format json`.

usage: evview-check.py EVVIEW EVCAT TRACE_DIR [--chunks N]

evview is started on --listen 127.0.0.1:0 (the URL it prints says the port)
and stopped at the end. Checked:
- /api/trace: the CPUs, the clock offset and a span holding every event;
  /api/progress ends with "ready"; one background pass.
- /api/window at three zoom levels (the whole span, 10 %, 0.1 %) against the
  rule below, computed here from evcat's events; the irq and softirq counts;
  the lost marks against babeltrace2's loss warnings.
- /api/events pages (offset, limit, more; cpu and event filters) equal
  evcat's JSON lines of the range, with "realtime" = ts + offset.
- Paging by cursor (after=next): walking a range page by page equals
  evcat's events of it (page sizes 1000, 333, 7, and pages sized so that each
  ends inside a run of equal times, after its first and its last but one;
  with cpu and event filters); each page's "next" equals the one of the page
  reached by offset;
  "next" is null exactly when "more" is false. Bad cursors (not TIME:COUNT,
  outside [from, to], more events at TIME than the selection has, with
  offset) get 400 naming "after". Then (not with --chunks) on a trace of evsynth's with many
  equal times across CPUs (runs of 2 to 4): page sizes from 1 (a page inside
  a run) up, and the filters.
- /api/thread (a thread's lane): the running share per column of the three
  busiest threads equals the one computed from every CPU's switches.
- /api/stats, once ready and with from/to, against this script's own
  numbers from evcat's events (tests/tools/evref.py: events per name and CPU,
  syscall latencies, IRQ durations, CPU time per thread) and its losses
  against babeltrace2's (evstat shares evview's engine: it is no judge).
- Usage errors exit 2. Bad parameters: 400 naming the parameter; unknown paths 404; path
  traversal (.., %2e%2e, absolute, encoded slashes) 404 and never a byte of
  /etc/passwd; a Host header naming anything but an address or localhost
  403 (DNS rebinding); a second evview on the same port exits 1 saying it is in use;
  a directory that is no trace exits 1; a corrupt stream still serves and
  /api/trace names the file (not on a run of chunks).
- With --chunks N: TRACE_DIR is a run of N chunks, /api/trace lists them.
- A trace of 5 M events (evsynth beside EVVIEW; not with --chunks): a window is answered while
  the background pass runs (/api/stats still says computing after it), two
  concurrent clients see one pass, the percent only grows.

The window rule (evview's evv_api.c says the same): [from, to] is cut into
cols columns, column k = [from + floor(k*n/cols), from + floor((k+1)*n/cols))
with n = to - from + 1. A CPU runs next_tid from one sched_switch to its next
switch (to + 1 at the end). At from: the thread the last switch before from
put there; a CPU with no switch before from but an event before it runs the
prev_tid of its first switch (the state computation counts that thread from
the CPU's first event); else the CPU's thread is unknown until its first
switch in the window, whose prev_tid runs from the CPU's first event in the
window. A column's tid: the thread other than 0 that ran longest in it (ties:
the smaller tid; none: null); busy: the time of threads other than 0 over the
column's length.
Exit 0 when all agree, 1 with the mismatches.
"""
import bisect
import collections
import datetime
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evref  # noqa: E402

evview, evcat, trace = sys.argv[1:4]
nchunks = int(sys.argv[sys.argv.index("--chunks") + 1]) if "--chunks" in sys.argv else 0
evsynth = os.path.join(os.path.dirname(evview), "evsynth")
failures = []


def fail(msg):
    failures.append(msg)
    print("MISMATCH: " + msg, flush=True)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("FAIL: %s exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return p.stdout


class Server:
    def __init__(self, d, *args):
        # stderr to a file: a pipe nobody reads would stop the server once full.
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen([evview, d, "--listen", "127.0.0.1:0"] + list(args),
                                  stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.p.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/#token=([0-9a-f]{64})$", line.strip())
        if not m:
            self.p.kill()
            self.p.wait()
            self.err.seek(0)
            sys.exit("FAIL: evview printed no URL: %r %s" % (line, self.err.read()))
        self.port = int(m.group(1))
        self.token = m.group(2)
        self.hint = self.p.stdout.readline()

    def raw(self, path, method="GET", token=True):
        """token: True the server's (as the page sends it), a string that one, None none."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        c.putrequest(method, path, skip_accept_encoding=True)
        if token:
            c.putheader("Authorization", "Bearer " + (self.token if token is True else token))
        c.endheaders()
        r = c.getresponse()
        body = r.read().decode("utf-8", "replace")
        c.close()
        return r.status, body

    def get(self, path, want=200):
        status, body = self.raw(path)
        if status != want:
            fail("GET %s: status %d, not %d: %s" % (path, status, want, body[:300]))
        try:
            return json.loads(body)
        except ValueError:
            fail("GET %s: not JSON: %s" % (path, body[:300]))
            return {}

    def stop(self):
        self.p.terminate()
        try:
            rc = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("evview did not stop on SIGTERM")
            return
        self.err.seek(0)
        check(rc == 0, "evview exit %d after SIGTERM: %s" % (rc, self.err.read()[-3000:]))


def iso_ns(s):
    """2023-11-14T22:30:00.000000000Z -> ns since the epoch."""
    sec, frac = s.rstrip("Z").split(".")
    dt = datetime.datetime.strptime(sec, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return int(dt.timestamp()) * 10**9 + int(frac.ljust(9, "0"))


# ---- The reference ----

lines = run([evcat, trace, "--format", "json"]).splitlines()
events = [json.loads(line) for line in lines]
if not events:
    sys.exit("FAIL: no events in %s" % trace)
OFF = iso_ns(events[0]["time"]) - events[0]["ts"]
for e in events:
    e["rt"] = e["ts"] + OFF
by_cpu = collections.defaultdict(list)
for e in events:
    by_cpu[e["cpu"]].append(e)
CPUS = sorted(by_cpu)


def seed(cpu, lo):
    """The CPU's thread at @lo (rt) as the ready state result says it, or None."""
    evs = by_cpu[cpu]
    cur = None
    before = False
    for e in evs:
        if e["rt"] >= lo:
            break
        before = True
        if e["event"] == "sched_switch":
            cur = e["fields"]["next_tid"]
    if cur is None and before:
        first = next((e for e in evs if e["event"] == "sched_switch"), None)
        if first is not None:
            cur = first["fields"]["prev_tid"]
    return cur


def ref_window(lo, hi, cols):
    n = hi - lo + 1
    bounds = [lo + k * n // cols for k in range(cols)] + [hi + 1]
    out = {}
    for cpu in CPUS:
        acc = [collections.Counter() for _ in range(cols)]
        irq = [0] * cols
        soft = [0] * cols
        cur = seed(cpu, lo)
        since = lo
        first = None
        switched = False

        def charge(tid, a, z):
            while a < z:
                k = bisect.bisect_right(bounds, a) - 1
                end = min(z, bounds[k + 1])
                if tid is not None and tid > 0:
                    acc[k][tid] += end - a
                a = end

        for e in by_cpu[cpu]:
            if e["rt"] < lo or e["rt"] > hi:
                continue
            if first is None:
                first = e["rt"]
            k = bisect.bisect_right(bounds, e["rt"]) - 1
            if e["event"] == "sched_switch":
                if cur is None and not switched:
                    cur, since = e["fields"]["prev_tid"], first
                charge(cur, since, e["rt"])
                cur, since, switched = e["fields"]["next_tid"], e["rt"], True
            elif e["event"] == "irq_handler_entry":
                irq[k] += 1
            elif e["event"] == "softirq_entry":
                soft[k] += 1
        charge(cur, since, hi + 1)
        tids, busy = [], []
        for k in range(cols):
            a = acc[k]
            tids.append(min(a, key=lambda t: (-a[t], t)) if a else None)
            busy.append(sum(a.values()) / (bounds[k + 1] - bounds[k]))
        out[cpu] = (tids, busy, irq, soft, acc)
    return out


# ---- The server on TRACE ----

s = Server(trace, "--no-saved")
print("evview on port %d; %s" % (s.port, s.hint.strip()), flush=True)
check("ssh -L %d:127.0.0.1:%d" % (s.port, s.port) in s.hint, "no ssh -L hint: %r" % s.hint)

# /api/progress: progress events, then ready.
check(s.hint.strip().endswith("/#token=" + s.token), "the ssh -L hint has no token: %r" % s.hint)

# The API answers only with the URL's token (the page itself holds no data).
for path in ["/api/trace", "/api/window?cols=10", "/api/events?limit=1", "/api/stats", "/api/thread?cols=1&tid=1",
             "/api/latency", "/api/slice?cpu=0&at=1", "/api/progress", "/api/nothing"]:
    for tok, how in [(None, "none"), ("0" * 64, "a wrong one"), (s.token[:-1], "one cut short"),
                     (s.token + "0", "one too long")]:
        status, body = s.raw(path, token=tok)
        check(status == 401 and "token" in body, "%s with %s token: %d %s" % (path, how, status, body[:100]))
    if path != "/api/progress":  # streams until the pass is done: below
        status, body = s.raw(path + ("&" if "?" in path else "?") + "token=" + s.token, token=None)
        check(status != 401, "%s?token=: %d" % (path, status))
c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
c.request("GET", "/")
r = c.getresponse()
r.read()
check(r.status == 200 and r.getheader("Referrer-Policy") == "no-referrer", "the page: %d, Referrer-Policy %r" %
      (r.status, r.getheader("Referrer-Policy")))
c.close()
print("the API refuses requests without the token (none, wrong, cut, too long); the page is served", flush=True)

# Issue 43's paths: bad parameters named, 400, before anything is computed.
for path, says in (("/api/slice", "cpu and at"), ("/api/slice?cpu=0", "cpu and at"), ("/api/slice?cpu=x&at=1", "cpu"),
                   ("/api/slice?cpu=999999&at=1", "no CPU 999999"), ("/api/latency?limit=0", "limit"),
                   ("/api/latency?limit=101", "limit"), ("/api/latency?limit=-1", "limit")):
    status, body = s.raw(path)
    check(status == 400 and says in body, "%s: %d %s, want 400 naming %r" % (path, status, body[:120], says))

c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=300)
c.request("GET", "/api/progress?token=" + s.token)
r = c.getresponse()
check(r.getheader("Content-Type", "").startswith("text/event-stream"), "progress: not text/event-stream")
stream = r.read().decode()
c.close()
check("event: ready" in stream, "progress stream ends without ready: %r" % stream[-300:])

info = s.get("/api/trace")
check(info.get("offset_ns") == OFF, "offset %s, evcat says %d" % (info.get("offset_ns"), OFF))
check(info.get("cpus") == CPUS or set(CPUS) <= set(info.get("cpus", [])), "cpus %s vs %s" % (info.get("cpus"), CPUS))
F, L = info["first_rt"], info["last_rt"]
check(F <= events[0]["rt"] and L >= events[-1]["rt"], "span [%d, %d] does not hold the events" % (F, L))
check(info.get("events") == len(events), "events %s, evcat printed %d" % (info.get("events"), len(events)))
check(info.get("passes") == 1, "passes %s, not 1" % info.get("passes"))
check(info.get("error") is None, "error %s" % info.get("error"))
check(all(info["ready"].values()), "not ready after progress said so: %s" % info["ready"])
check(len(info.get("chunks", [])) == nchunks, "%d chunks listed, not %d" % (len(info.get("chunks", [])), nchunks))

# Issue 43: /api/trace's losses against babeltrace2's warnings: as many
# ranges, each of its windows inside one of the merged windows the page
# shades (realtime), complete only without any; a slice outside the span 400.
lo = info.get("losses") or {}
bt_win = [(a + OFF, b + OFF) for a, b in evref.bt_windows(trace, OFF)]
merged = [(w["from"], w["to"]) for w in lo.get("windows", [])]
outside = [w for w in bt_win if not any(a <= w[0] and w[1] <= b for a, b in merged)]
check(lo.get("loss_ranges") == len(bt_win) == len(lo.get("records", [])) and lo.get("complete") == (not bt_win)
      and not outside and lo.get("windows_total") == len(merged) and bool(merged) == bool(bt_win),
      "/api/trace losses: %d ranges, %d records, %d windows, complete %s; babeltrace2 %d, outside: %s" %
      (lo.get("loss_ranges", -1), len(lo.get("records", [])), len(merged), lo.get("complete"), len(bt_win), outside[:3]))
check(lo.get("discarded") == sum(r["discarded"] for r in lo.get("records", [])),
      "/api/trace losses: discarded %s, its records sum to another" % lo.get("discarded"))
status, body = s.raw("/api/slice?cpu=%d&at=%d" % (info["cpus"][0], F - 1))
check(status == 400 and "outside" in body, "/api/slice before the span: %d %s" % (status, body[:120]))
print("losses: %d ranges as babeltrace2's, inside %d merged windows" % (len(bt_win), len(merged)), flush=True)

# Power columns: per CPU (the events' cpu_id), the idle state held longest in
# the column (-1 running; ties: the smaller), the frequency's time-weighted
# mean (kHz, rounded); each value until the CPU's next one of its kind, the
# last until the trace's last event; None before the first.
power_changes = collections.defaultdict(list)
for e in events:
    if e["event"] in ("power_cpu_idle", "power_cpu_frequency"):
        key = (e["fields"]["cpu_id"], e["event"] == "power_cpu_idle")
        if not power_changes[key] or power_changes[key][-1][1] != e["fields"]["state"]:
            power_changes[key].append((e["rt"], e["fields"]["state"]))


def ref_power(cpu, idle, lo, hi, cols):
    n = hi - lo + 1
    bounds = [lo + k * n // cols for k in range(cols)] + [hi + 1]
    ch = power_changes.get((cpu, idle), [])
    out = []
    for k in range(cols):
        a, z = bounds[k], bounds[k + 1]
        held = collections.Counter()
        wsum = wns = 0
        for i, (ts, v) in enumerate(ch):
            end = ch[i + 1][0] if i + 1 < len(ch) else events[-1]["rt"]
            x, y = max(ts, a), min(end, z)
            if y > x:
                held[v] += y - x
                if v != 4294967295:
                    wsum += v * (y - x)
                    wns += y - x
        if not held:
            out.append(None)
        elif idle:
            v = min(held, key=lambda v: (-held[v], v))
            out.append(-1 if v == 4294967295 else v)
        else:
            out.append(int(wsum / wns + 0.5) if wns else 0)
    return out


# Windows at three zoom levels.
E0, E1 = events[0]["rt"], events[-1]["rt"]
zooms = [(F, L, 200), (F, L, 3), (E0 + (E1 - E0) * 45 // 100, E0 + (E1 - E0) * 55 // 100, 100),
         (E0 + (E1 - E0) * 500 // 1000, E0 + (E1 - E0) * 501 // 1000, 50)]
for lo, hi, cols in zooms:
    ref = ref_window(lo, hi, cols)
    for read in ("auto", "events", "summary", "sample"):
        w = s.get("/api/window?from=%d&to=%d&cols=%d&read=%s" % (lo, hi, cols, read))
        # Every window of this trace is small enough to be read (16 MB of packets).
        check(w.get("detail") == ("events" if read == "auto" else read), "read=%s: detail %s" % (read, w.get("detail")))
        check(w.get("incomplete") is (read == "sample"),
              "window %d..%d read=%s: incomplete %s once the state is ready" % (lo, hi, read, w.get("incomplete")))
        got = {c["cpu"]: c for c in w.get("cpus", [])}
        bad = 0
        nest = 0
        for cpu in CPUS:
            tids, busy, irq, soft, acc = ref[cpu]
            g = got.get(cpu)
            if not g:
                fail("window %d..%d: no cpu %d" % (lo, hi, cpu))
                continue
            est = set(g["estimated"])
            nest += len(est)
            check(read == "summary" or not est, "read=%s: estimated columns %s" % (read, sorted(est)[:5]))
            for k in range(cols):
                if read == "sample":
                    # A sample names a thread that ran in the column, sees interrupts only where there are.
                    ok = (g["tid"][k] is None or g["tid"][k] in acc[k]) and 0 <= g["busy"][k] <= 1 + 1e-9 and \
                        (g["irq"][k] == 0 or irq[k] > 0) and (g["softirq"][k] == 0 or soft[k] > 0)
                elif k in est:
                    # A column of many switches: one of the threads that ran in it, the rest exact.
                    ok = (g["tid"][k] in acc[k] if acc[k] else g["tid"][k] is None) and \
                        abs(g["busy"][k] - busy[k]) <= 2e-6 and g["irq"][k] == irq[k] and g["softirq"][k] == soft[k]
                else:
                    ok = g["tid"][k] == tids[k] and abs(g["busy"][k] - busy[k]) <= 2e-6 and \
                        g["irq"][k] == irq[k] and g["softirq"][k] == soft[k]
                if not ok:
                    bad += 1
                    if bad <= 5:
                        fail("window %d..%d/%d read=%s cpu %d col %d: got tid %s busy %s irq %s soft %s, want %s %s %s %s" %
                             (lo, hi, cols, read, cpu, k, g["tid"][k], g["busy"][k], g["irq"][k], g["softirq"][k],
                              tids[k], busy[k], irq[k], soft[k]))
        for cpu in CPUS:
            for idle, key in ((True, "idle"), (False, "freq")):
                want = ref_power(cpu, idle, lo, hi, cols)
                if got.get(cpu, {}).get(key) != want:
                    fail("window %d..%d/%d cpu %d %s: %s, want %s" % (lo, hi, cols, cpu, key,
                                                                      got.get(cpu, {}).get(key), want))
        names = w.get("threads", {})
        for cpu in CPUS:
            for t in got.get(cpu, {}).get("tid", []):
                if t is not None and not names.get(str(t)):
                    fail("window read=%s: thread %d has no name" % (read, t))
                    break
        print("window %d cols over %.6f s read=%s: %d CPUs, %s%s" %
              (cols, (hi - lo) / 1e9, read, len(CPUS), "agrees" if not bad else "%d columns differ" % bad,
               " (%d columns' threads estimated)" % nest if nest else ""), flush=True)

# Thread lanes: a thread's running share per column, from the switches of
# every CPU (the state result's rule: a CPU's first switch's prev_tid runs from
# the CPU's first event; the last thread of each CPU until the trace's last event).
running = collections.defaultdict(list)
for cpu in CPUS:
    cur, since = None, None
    for e in by_cpu[cpu]:
        if since is None:
            since = e["rt"]
        if e["event"] == "sched_switch":
            if cur is None:
                cur = e["fields"]["prev_tid"]
            if cur:
                running[cur].append((since, e["rt"]))
            cur, since = e["fields"]["next_tid"], e["rt"]
    if cur:
        running[cur].append((since, events[-1]["rt"]))


def ref_thread(tid, lo, hi, cols):
    n = hi - lo + 1
    bounds = [lo + k * n // cols for k in range(cols)] + [hi + 1]
    ns = [0] * cols
    for a, z in running[tid]:
        a, z = max(a, lo), min(z, hi + 1)
        while a < z:
            k = bisect.bisect_right(bounds, a) - 1
            end = min(z, bounds[k + 1])
            ns[k] += end - a
            a = end
    return [ns[k] / (bounds[k + 1] - bounds[k]) for k in range(cols)]


stats = s.get("/api/stats")
top = sorted((t for t in stats["threads"] if t["tid"]), key=lambda t: (-t["cpu_ns"], t["tid"]))[:3]
for lo, hi, cols in zooms[:2]:
    for t in top:
        got = s.get("/api/thread?tid=%d&from=%d&to=%d&cols=%d" % (t["tid"], lo, hi, cols))
        want = ref_thread(t["tid"], lo, hi, cols)
        bad = [k for k in range(cols) if abs(got["running"][k] - want[k]) > 2e-6]
        check(not bad, "thread %d over %d..%d/%d: running share differs in %d columns, first %s: %s vs %s" %
              (t["tid"], lo, hi, cols, len(bad), bad[:1], [got["running"][k] for k in bad[:1]],
               [want[k] for k in bad[:1]]))
        check(got["comm"] == t["comm"], "thread %d: comm %s, /api/stats says %s" % (t["tid"], got["comm"], t["comm"]))
        check(all(st in (None, "user", "syscall", "irq", "softirq", "runnable", "blocked", "exited", "unknown")
                  for st in got["state"]), "thread %d: states %s" % (t["tid"], set(got["state"])))
print("thread lanes: running shares of the 3 busiest threads agree at 2 zoom levels", flush=True)

# Lost marks over the whole span: one per loss babeltrace2 reports (each of
# its "Tracer discarded" warnings is one gap in one stream).
w = s.get("/api/window?from=%d&to=%d&cols=10" % (F, L))
marks = sum(sum(c["lost"]) for c in w["cpus"])
want = evref.bt_losses(trace)
check(marks == want, "lost marks %d, babeltrace2 reports %d losses" % (marks, want))
print("lost marks: %d, as babeltrace2's loss warnings" % marks, flush=True)

# Event pages.
lo, hi = zooms[1][0], zooms[1][1]
ref = [e for e in events if lo <= e["rt"] <= hi]


# evcat's task context (tid, pid, comm, an exit's syscall) is evcat's own: evview's events carry the record.
EVCAT_CONTEXT = ("rt", "tid", "pid", "comm", "syscall", "syscall_from")


def strip(e):
    return {k: v for k, v in e.items() if k not in EVCAT_CONTEXT}


def pages(query, want, limit):
    got, off = [], 0
    # Events before each at its realtime: what an offset page must still skip once the index is
    # ready (it starts at the offset-th event's time); with event= it reads and skips them all.
    tie = [0] * len(want)
    for j in range(1, len(want)):
        tie[j] = tie[j - 1] + 1 if want[j]["rt"] == want[j - 1]["rt"] else 0
    while True:
        p = s.get("/api/events?from=%d&to=%d&offset=%d&limit=%d%s" % (lo, hi, off, limit, query))
        evs = p.get("events", [])
        if off < len(want):
            skip = off if "event=" in query else tie[off]
            if not check(p.get("skipped") == skip, "events%s offset %d: the server skipped %s events, not %d" %
                         (query, off, p.get("skipped"), skip)):
                return
        for e in evs:
            if e.get("realtime") != e.get("ts", 0) + OFF:
                fail("events: realtime %s for ts %s" % (e.get("realtime"), e.get("ts")))
                return
            del e["realtime"]
        got += evs
        off += limit
        if not p.get("more") or not evs:
            break
        if len(got) > len(want) + limit:
            break
    wl = [strip(e) for e in want]
    if got != wl:
        i = next((i for i, (a, b) in enumerate(zip(got, wl)) if a != b), min(len(got), len(wl)))
        fail("events%s: %d events vs evcat's %d, first difference at %d: %s vs %s" %
             (query, len(got), len(wl), i, got[i] if i < len(got) else None, wl[i] if i < len(wl) else None))
    else:
        print("events%s: %d in pages of %d agree with evcat" % (query or " (all)", len(got), limit), flush=True)


pages("", ref, 1000)
pages("&cpu=1", [e for e in ref if e["cpu"] == 1], 333)
pages("&event=sched_switch,irq_handler_entry",
      [e for e in ref if e["event"] in ("sched_switch", "irq_handler_entry")], 1000)


def tie_runs(want):
    """(first index, length) of each run of equal realtimes (length >= 2) in @want."""
    runs, i = [], 0
    while i < len(want):
        j = i
        while j + 1 < len(want) and want[j + 1]["rt"] == want[i]["rt"]:
            j += 1
        if j > i:
            runs.append((i, j - i + 1))
        i = j + 1
    return runs


def walk(srv, lo, hi, query, want, limit):
    """Page through [lo, hi] with after=next; compare with @want (evcat's) and, page by page,
    with the page offset paging gives. @limit "runs": each page's size chosen so that its end
    falls inside the next run of equal times (after its first event, and after its last but
    one). Returns how many page boundaries fell inside a run."""
    got, pos, cur, inside, n = [], 0, None, 0, 0
    cuts = sorted(set(c for i, k in tie_runs(want) for c in (i + 1, i + k - 1))) if limit == "runs" else []
    while True:
        lim = limit
        if limit == "runs":
            while cuts and cuts[0] <= pos:
                cuts.pop(0)
            lim = min(1000, cuts[0] - pos) if cuts else 1000
        q = "/api/events?from=%d&to=%d&limit=%d%s" % (lo, hi, lim, query)
        p = srv.get(q + ("&after=" + cur if cur is not None else "&offset=0"))
        evs = p.get("events", [])
        n += 1
        if not check(p.get("more") == (p.get("next") is not None),
                     "events%s after %s: more %s but next %s" % (query, cur, p.get("more"), p.get("next"))):
            return 0
        if n <= 40 or n % 10 == 0:
            po = srv.get(q + "&offset=%d" % pos)
            if not check(po.get("events") == evs and po.get("next") == p.get("next"),
                         "events%s limit %d: the page after %s differs from offset %d's (next %s vs %s)" %
                         (query, lim, cur, pos, p.get("next"), po.get("next"))):
                return 0
        for e in evs:
            e.pop("realtime", None)
        got += evs
        pos += len(evs)
        if p.get("next") is None or not evs or len(got) > len(want):
            break
        t, k = p["next"].split(":")
        if not check(pos <= len(want) and int(t) == want[pos - 1]["rt"],
                     "events%s: next %s after %d events" % (query, p["next"], pos)):
            return 0
        if pos < len(want) and want[pos]["rt"] == want[pos - 1]["rt"]:
            inside += 1
        cur = p["next"]
    wl = [strip(e) for e in want]
    if got != wl:
        i = next((i for i, (a, b) in enumerate(zip(got, wl)) if a != b), min(len(got), len(wl)))
        fail("events%s by cursor, pages of %s: %d events vs evcat's %d, first difference at %d: %s vs %s" %
             (query, limit, len(got), len(wl), i, got[i] if i < len(got) else None, wl[i] if i < len(wl) else None))
    else:
        print("events%s: %d by cursor in %d pages of %s agree with evcat, %d page boundaries inside runs of "
              "equal times" % (query or " (all)", len(got), n, limit, inside), flush=True)
    return inside


def bad_cursors(srv, lo, hi, want):
    """Cursors that are no place in the selection: 400 naming after."""
    q = "/api/events?from=%d&to=%d&limit=5" % (lo, hi)
    cases = ["x", "", "1", "1:0", ":5", "5:", "-1:1", "1:-1", "1.5:1", "0x10:1", "%d:1x" % lo, "%d:%d:1" % (lo, lo),
             "99999999999999999999:1", "%d:99999999999999999999" % lo, "%d:1" % (lo - 1), "%d:1" % (hi + 1)]
    runs = tie_runs(want)
    if runs:
        i, n = runs[0]
        cases.append("%d:%d" % (want[i]["rt"], n + 1))	# more events at that time than there are
    hole = next((a["rt"] + 1 for a, b in zip(want, want[1:]) if b["rt"] > a["rt"] + 1), None)
    if hole is not None:
        cases.append("%d:1" % hole)			# no event at that time
    cases.append("%d:2" % want[-1]["rt"] if len(want) < 2 or want[-2]["rt"] != want[-1]["rt"] else
                 "%d:%d" % (want[-1]["rt"], len(want) + 1))	# beyond the last event
    for c in cases:
        status, body = srv.raw(q + "&after=" + c)
        try:
            msg = json.loads(body).get("error", "")
        except ValueError:
            msg = ""
        check(status == 400 and "after" in msg, "after=%s: %d %s (want 400 naming after)" % (c, status, body[:200]))
    p = srv.get(q + "&offset=0")
    status, body = srv.raw(q + "&offset=0&after=" + (p.get("next") or "1:1"))
    check(status == 400 and "offset" in body, "after and offset: %d %s" % (status, body[:200]))
    print("events: %d bad cursors and after with offset: 400" % (len(cases) + 1), flush=True)


def cursor_walks(srv, lo, hi, evs, filters, limits, filter_limits):
    """Walk [lo, hi] at each page size of @limits, then with each filter at @filter_limits;
    returns the page boundaries that fell inside runs of equal times."""
    want = [e for e in evs if lo <= e["rt"] <= hi]
    inside = sum(walk(srv, lo, hi, "", want, lim) for lim in limits)
    for query, keep in filters:
        fw = [e for e in want if keep(e)]
        inside += sum(walk(srv, lo, hi, query, fw, lim) for lim in filter_limits)
    return inside


inside = cursor_walks(s, lo, hi, events, [
    ("&cpu=1", lambda e: e["cpu"] == 1), ("&cpu=0,2", lambda e: e["cpu"] in (0, 2)),
    ("&event=sched_switch,irq_handler_entry", lambda e: e["event"] in ("sched_switch", "irq_handler_entry"))],
    [1000, 333, 7, "runs"], [333, "runs"])
# The whole span too: its runs of equal times (the state dump's, across CPUs).
inside += cursor_walks(s, F, L, events, [("&cpu=0,2", lambda e: e["cpu"] in (0, 2))], [1000, "runs"], ["runs"])
check(inside > 0 or not tie_runs(events), "no page boundary fell inside a run of equal times")
bad_cursors(s, lo, hi, ref)
p = s.get("/api/events?from=%d&to=%d&limit=10" % (lo, hi))
check(len(p["events"]) == 10 and p["more"], "a page of 10: %d events, more %s" % (len(p["events"]), p["more"]))

# Statistics: against this script's own computation from evcat's events
# (evref.py; evstat runs on the same engine as evview, so it is no judge):
# events per name and CPU, syscall latencies, IRQ durations, CPU time per
# thread; the losses against babeltrace2's.
got = s.get("/api/stats")
evref.compare(got, events, events[0]["ts"], events[-1]["ts"], "/api/stats", {}, fail, evref.bt_windows(trace, OFF))
check(len(got["losses"]) == evref.bt_losses(trace),
      "/api/stats lists %d losses, babeltrace2 reports %d" % (len(got["losses"]), evref.bt_losses(trace)))
a, b = zooms[1][0], zooms[1][1]
got = s.get("/api/stats?from=%d&to=%d" % (a, b))
evref.compare(got, events, a - OFF, b - OFF, "/api/stats?from&to", evref.running_at(events, a - OFF), fail,
              evref.bt_windows(trace, OFF))
print("stats: whole trace and a window as computed from evcat's events", flush=True)

# Bad parameters: 400 naming the parameter.
for q, word in [("/api/window?cols=10&read=all", "read"), ("/api/window?cols=abc", "cols"), ("/api/window?cols=0", "cols"), ("/api/window?cols=4097", "cols"),
                ("/api/window", "cols"),
                ("/api/window?cols=10&from=%d&to=%d" % (F + 10, F), "after"),
                ("/api/window?cols=10&from=%d" % (F - 1), "span"),
                ("/api/window?cols=10&to=%d" % (L + 1), "span"),
                ("/api/window?cols=10&from=-5", "from"), ("/api/window?cols=10&to=1e9", "to"),
                ("/api/events?limit=1001", "limit"), ("/api/events?limit=0", "limit"),
                ("/api/events?offset=x", "offset"), ("/api/events?event=no_such_event", "event"),
                ("/api/events?cpu=zz", "cpu"), ("/api/stats?from=1", "span"),
                ("/api/stats?from=%d&to=%d" % (L, F), "after"),
                ("/api/thread?cols=10", "tid"), ("/api/thread?cols=10&tid=999999", "tid"),
                ("/api/thread?cols=10&tid=0", "tid"), ("/api/thread?tid=%d" % CPUS[0], "cols")]:
    status, body = s.raw(q)
    ok = status == 400
    try:
        msg = json.loads(body).get("error", "")
    except ValueError:
        msg = ""
    check(ok and word in msg, "%s: %d %s (want 400 naming %s)" % (q, status, body[:200], word))
check(s.raw("/api/nothing")[0] == 404, "/api/nothing not 404")
check(s.raw("/nothing.html")[0] == 404, "/nothing.html not 404")
check(s.raw("/api/trace", "POST")[0] == 405, "POST not 405")

# Path traversal: nothing outside the page's fixed files.
passwd = open("/etc/passwd").read().splitlines()[0]
for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd",
             "//etc/passwd", "/etc/passwd", "/view.js/../../../../../etc/passwd", "/%2fetc%2fpasswd",
             "/www/../../../../etc/passwd", "/index.html/..", "/.%2e/.%2e/etc/passwd",
             "/userspace/evview/evview.c", "/../evview.c", "/api/../../etc/passwd", "/index.html%00.js"]:
    status, body = s.raw(path)
    check(status == 404 and passwd not in body and "root:" not in body, "%s: %d %r" % (path, status, body[:100]))
for path in ["/", "/index.html", "/view.js", "/view.css"]:
    check(s.raw(path)[0] == 200, "%s not served" % path)
print("bad parameters and path traversal: refused", flush=True)


def host_get(port, host):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.putrequest("GET", "/api/trace", skip_host=True, skip_accept_encoding=True)
    c.putheader("Host", host)
    c.putheader("Authorization", "Bearer " + s.token)
    c.endheaders()
    r = c.getresponse()
    body = r.read().decode("utf-8", "replace")
    c.close()
    return r.status, body


# DNS rebinding: a request naming another host is refused; addresses and localhost are served.
for host, want in [("evil.example:%d" % s.port, 403), ("evil.example", 403), ("127.0.0.1.nip.io:%d" % s.port, 403),
                   ("", 403), ("[::1", 403), ("[::1]x", 403), ("localhost:%d" % s.port, 200), ("LOCALHOST", 200),
                   ("127.0.0.1:%d" % s.port, 200), ("[::1]:%d" % s.port, 200), ("10.1.2.3", 200)]:
    status, body = host_get(s.port, host)
    check(status == want and (want == 200 or "Host" in body), "Host: %r: status %d, not %d: %s" %
          (host, status, want, body[:200]))
print("Host: other names refused (DNS rebinding), addresses and localhost served", flush=True)

# The port in use.
p = subprocess.run([evview, trace, "--listen", "127.0.0.1:%d" % s.port], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True, timeout=30)
check(p.returncode == 1 and "127.0.0.1:%d is in use (choose another with --listen)" % s.port in p.stderr,
      "second evview on the port: exit %d %s" % (p.returncode, p.stderr))
s.stop()


def corrupt_stream(tmp):
    """A packet header in the middle of a stream spoilt: served, and /api/trace says where."""
    bad = os.path.join(tmp, "bad")
    shutil.copytree(trace, bad, ignore=shutil.ignore_patterns(".evtrace-results"))
    kdir = os.path.join(bad, "kernel") if os.path.isdir(os.path.join(bad, "kernel")) else bad
    victim = next(st for st in info["streams"] if st["packets"] >= 4)
    fn = os.path.join(kdir, victim["file"])
    pk = os.path.getsize(fn) // victim["packets"]
    with open(fn, "r+b") as f:
        f.seek(pk * (victim["packets"] // 2))
        f.write(b"\xde\xad\xbe\xef")
    s = Server(bad, "--no-saved")
    i2 = s.get("/api/trace")
    check(i2.get("error") and victim["file"] in i2["error"], "corrupt stream: /api/trace error %s" % i2.get("error"))
    w = s.get("/api/window?from=%d&to=%d&cols=20" % (i2["first_rt"], i2["last_rt"]))
    check(any(t is not None for c in w.get("cpus", []) for t in c["tid"]), "corrupt stream: an empty window")
    print("corrupt stream: served, /api/trace says %s" % i2.get("error"), flush=True)
    s.stop()


def tie_trace(tmp):
    """Many equal times across CPUs (evsynth: 4 CPUs, a mean gap of 2 ns, bursts): cursors
    at every kind of boundary, a page inside a run (sizes 1 and 2), the filters."""
    d = os.path.join(tmp, "ties")
    run([evsynth, d, "--cpus", "4", "--events", "12000", "--period", "2", "--normal-pct", "30",
         "--burst-every", "50", "--burst-len", "20", "--burst-gap", "0", "--subbuf", "4096", "--quiet"])
    evs = [json.loads(line) for line in run([evcat, d, "--format", "json"]).splitlines()]
    off = iso_ns(evs[0]["time"]) - evs[0]["ts"]
    for e in evs:
        e["rt"] = e["ts"] + off
    runs = tie_runs(evs)
    check(len(runs) > 1000 and max(n for _, n in runs) >= 3, "the tie trace has %d runs of equal times" % len(runs))
    srv = Server(d, "--no-saved")
    a, b = evs[0]["rt"], evs[-1]["rt"]
    # A narrow range for the small pages (each page a request).
    m0, m1 = evs[len(evs) // 3]["rt"], evs[len(evs) // 3 + 600]["rt"]
    inside = cursor_walks(srv, m0, m1, evs, [("&cpu=0,2", lambda e: e["cpu"] in (0, 2))],
                          [1, 2, 3, 4, "runs"], [1, 3, "runs"])
    inside += cursor_walks(srv, a, b, evs, [
        ("&cpu=1-3", lambda e: e["cpu"] in (1, 2, 3)),
        ("&event=gen_normal", lambda e: e["event"] == "gen_normal"),
        ("&cpu=0,3&event=gen_compact", lambda e: e["cpu"] in (0, 3) and e["event"] == "gen_compact")],
        [1000, 97], [1000, 97])
    check(inside > 100, "tie trace: only %d page boundaries inside runs of equal times" % inside)
    bad_cursors(srv, m0, m1, [e for e in evs if m0 <= e["rt"] <= m1])
    srv.stop()


def big_trace(tmp):
    """The window while the pass runs, two clients, one pass."""
    big = os.path.join(tmp, "big")
    run([evsynth, big, "--kernel", "--events", "5000000", "--cpus", "4", "--quiet"])
    s = Server(big, "--no-saved")
    i3 = s.get("/api/trace")
    results = {}

    def client(name):
        seen = []
        a = i3["first_rt"] + (i3["last_rt"] - i3["first_rt"]) // 2
        w = s.get("/api/window?from=%d&to=%d&cols=800" % (a, a + 10**7))
        # The whole span: more packets than a window reads, sampled while the pass runs.
        whole = s.get("/api/window?from=%d&to=%d&cols=1000" % (i3["first_rt"], i3["last_rt"]))
        early = s.raw("/api/window?from=%d&to=%d&cols=10&read=summary" % (i3["first_rt"], i3["last_rt"]))
        st = s.get("/api/stats")
        results[name + "-during"] = st.get("computing", False) and w.get("cpus") is not None
        if results[name + "-during"]:
            check(w.get("incomplete") is True, "a window answered during the pass is not flagged incomplete")
            check(whole.get("detail") == "sample" and whole.get("incomplete") is True,
                  "the whole span during the pass: detail %s incomplete %s" % (whole.get("detail"), whole.get("incomplete")))
            check(early[0] == 409 and "not done" in early[1],
                  "read=summary during the pass: %s" % (early,))
        while st.get("computing"):
            seen.append(st["percent"])
            time.sleep(0.02)
            st = s.get("/api/stats")
        results[name + "-percent"] = seen
        results[name + "-events"] = st.get("events")

    ts = [threading.Thread(target=client, args=(n,)) for n in ("a", "b")]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    i3 = s.get("/api/trace")
    whole = s.get("/api/window?from=%d&to=%d&cols=1000" % (i3["first_rt"], i3["last_rt"]))
    check(whole.get("detail") == "summary" and whole.get("incomplete") is False,
          "the whole span once ready: detail %s incomplete %s" % (whole.get("detail"), whole.get("incomplete")))
    check(results["a-during"] or results["b-during"], "no window answered while the pass ran")
    check(i3.get("passes") == 1, "two clients: %s passes" % i3.get("passes"))
    check(results["a-events"] == results["b-events"] == 5000000,
          "big trace: %s / %s events" % (results["a-events"], results["b-events"]))
    for n in ("a", "b"):
        pc = results[n + "-percent"]
        check(pc == sorted(pc) and all(0 <= x < 100 for x in pc), "percent not growing: %s" % pc)
    print("big trace: window during the pass %s, one pass, percents %s" %
          (results["a-during"] or results["b-during"], results["a-percent"][:12]), flush=True)
    s.stop()


tmp = tempfile.mkdtemp(prefix="evview-check-")
try:
    # Usage errors: exit 2 with a message.
    for args in ([], [trace, "--listen", "localhost"], [trace, "--listen", "127.0.0.1:65536"],
                 [trace, "--listen", "127.0.0.1:-1"], [trace, "--listen", "::1:80"], [trace, "--bogus"],
                 [trace, trace], [trace, "--listen"]):
        p = subprocess.run([evview] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        check(p.returncode == 2 and p.stderr.startswith("evview: "), "evview %s: exit %d %s" %
              (" ".join(args), p.returncode, p.stderr))
    p = subprocess.run([evview, "--help"], stdout=subprocess.PIPE, text=True, timeout=30)
    check(p.returncode == 0 and "--listen" in p.stdout, "evview --help: exit %d" % p.returncode)
    # Not a trace.
    p = subprocess.run([evview, tmp, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=30)
    check(p.returncode == 1 and p.stderr.startswith("evview: ") and not p.stdout,
          "not a trace: exit %d %s" % (p.returncode, p.stderr))
    if nchunks:
        # The server's own behaviour on traces of their own: checked once, on the whole trace's run.
        print("corrupt stream, ties, big trace: not tried on a run of chunks (see the whole trace's check)",
              flush=True)
    else:
        corrupt_stream(tmp)
        tie_trace(tmp)
        big_trace(tmp)
finally:
    shutil.rmtree(tmp)

if failures:
    print("evview-check: %d mismatches" % len(failures))
    sys.exit(1)
print("evview-check: all agree")
