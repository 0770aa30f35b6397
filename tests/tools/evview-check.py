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
  the lost marks against the losses evstat reports.
- /api/events pages (offset, limit, more; cpu and event filters) equal
  evcat's JSON lines of the range, with "realtime" = ts + offset.
- /api/thread (a thread's lane): the running share per column of the three
  busiest threads equals the one computed from every CPU's switches.
- /api/stats equals `evstat --json` once ready, and with from/to equals
  `evstat --json --from @A --to @B`.
- Usage errors exit 2. Bad parameters: 400 naming the parameter; unknown paths 404; path
  traversal (.., %2e%2e, absolute, encoded slashes) 404 and never a byte of
  /etc/passwd; a second evview on the same port exits 1 saying it is in use;
  a directory that is no trace exits 1; a corrupt stream still serves and
  /api/trace names the file (not on a run of chunks).
- With --chunks N: TRACE_DIR is a run of N chunks, /api/trace lists them.
- A trace of 5 M events (evsynth beside EVVIEW): a window is answered while
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

evview, evcat, trace = sys.argv[1:4]
nchunks = int(sys.argv[sys.argv.index("--chunks") + 1]) if "--chunks" in sys.argv else 0
evstat = os.path.join(os.path.dirname(evcat), "evstat")
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
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            self.p.kill()
            self.p.wait()
            self.err.seek(0)
            sys.exit("FAIL: evview printed no URL: %r %s" % (line, self.err.read()))
        self.port = int(m.group(1))
        self.hint = self.p.stdout.readline()

    def raw(self, path, method="GET"):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        c.putrequest(method, path, skip_accept_encoding=True)
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
c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=300)
c.request("GET", "/api/progress")
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
        check(got["comm"] == t["comm"], "thread %d: comm %s, evstat says %s" % (t["tid"], got["comm"], t["comm"]))
        check(all(st in (None, "user", "syscall", "irq", "softirq", "runnable", "blocked", "exited", "unknown")
                  for st in got["state"]), "thread %d: states %s" % (t["tid"], set(got["state"])))
print("thread lanes: running shares of the 3 busiest threads agree at 2 zoom levels", flush=True)

# Lost marks: one per loss evstat reports in the window.
st = json.loads(run([evstat, trace, "--json"]))
w = s.get("/api/window?from=%d&to=%d&cols=10" % (F, L))
marks = sum(sum(c["lost"]) for c in w["cpus"])
want = sum(1 for l in st["losses"] if F <= l["ts"] + OFF <= L)
check(marks == want, "lost marks %d, evstat says %d losses" % (marks, want))
print("lost marks: %d, as evstat's losses" % marks, flush=True)

# Event pages.
lo, hi = zooms[1][0], zooms[1][1]
ref = [e for e in events if lo <= e["rt"] <= hi]


def strip(e):
    return {k: v for k, v in e.items() if k != "rt"}


def pages(query, want, limit):
    got, off = [], 0
    while True:
        p = s.get("/api/events?from=%d&to=%d&offset=%d&limit=%d%s" % (lo, hi, off, limit, query))
        evs = p.get("events", [])
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
p = s.get("/api/events?from=%d&to=%d&limit=10" % (lo, hi))
check(len(p["events"]) == 10 and p["more"], "a page of 10: %d events, more %s" % (len(p["events"]), p["more"]))

# Statistics: evstat's numbers.
got = s.get("/api/stats")
check(got == st, "/api/stats differs from evstat --json: %s" %
      [k for k in st if got.get(k) != st[k]])
a, b = zooms[1][0], zooms[1][1]
sw = json.loads(run([evstat, trace, "--json", "--from", "@%d" % (a - OFF), "--to", "@%d" % (b - OFF)]))
got = s.get("/api/stats?from=%d&to=%d" % (a, b))
check(got == sw, "/api/stats?from&to differs from evstat --json --from --to: %s" %
      [k for k in sw if got.get(k) != sw[k]])
print("stats: whole trace and a window equal evstat --json", flush=True)

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
        print("corrupt stream: not tried on a run of chunks (see the whole trace's check)", flush=True)
    else:
        corrupt_stream(tmp)
    big_trace(tmp)
finally:
    shutil.rmtree(tmp)

if failures:
    print("evview-check: %d mismatches" % len(failures))
    sys.exit(1)
print("evview-check: all agree")
