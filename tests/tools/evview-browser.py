#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""evview's page in a real browser: Debian's Chromium, headless.

usage: evview-browser.py [--losses] EVVIEW TRACE_DIR OUTDIR [CHROMIUM]

evview is started on a free loopback port; evcat (beside EVVIEW) gives the
independent side: the trace's CPUs, its (tid, comm) pairs (sched_switch's
prev and next, the state dump's names) and its events per name. The page is
loaded twice with --dump-dom (the DOM once its requests are answered:
--virtual-time-budget) and --screenshot into OUTDIR: first while the
background pass may still run, then, once /api/progress said ready, the
whole trace and a zoomed view (#view=FROM-TO, 1 % of the span, with lanes
for the two busiest threads: &threads=). Checked in the DOM: a lane per CPU
of evcat's output (#lanes .lane[data-cpu]); the statistics panel ready with
/api/stats's numbers (the top threads' names and CPU times, the system
calls' and interrupts' names and counts, the losses, the event count), and
its event count and system call counts equal to evcat's; every name in the
legend, the panel's threads and the thread lanes' labels a (tid, comm) of
the trace; the thread lanes asked for; no error banner. --losses: the trace
has losses, and the panel must list them.
Issue 43, in the DOM: a legend entry for every state colour (running,
runnable, blocked, idle, IRQ, softirq, lost); the header and the panel say
whether the trace is complete and how much it lost, as `evstat --json`
does; every range evcat warns of lies inside a striped loss box
(.loss-shade) over the lanes; the panel's scheduling latency (count, min,
avg, max) is evstat's, and the first of each worst-latency table is the
largest of evstat's maxima of its kind. A real click (Chromium driven over
--remote-debugging-pipe, its DevTools protocol: a mouse press and release
on a CPU lane) opens the slice panel: its thread, from and to are the
CPU's switches around the clicked time in evcat's events, and it lists the
events evcat has on that CPU between them.
Exit 0 when all hold, 1 with what did not.
"""
import base64
import calendar
import select
import signal
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

args = sys.argv[1:]
want_losses = "--losses" in args
args = [a for a in args if a != "--losses"]
evview, trace, outdir = args[0:3]
chromium = args[3] if len(args) > 3 else "chromium"
evcat = os.path.join(os.path.dirname(os.path.abspath(evview)), "evcat")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg, flush=True)


class Dom(html.parser.HTMLParser):
    """Elements with their id, classes, data-*, text and ancestors (enough for these checks)."""

    def __init__(self):
        super().__init__()
        self.els, self.stack = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        e = {"tag": tag, "id": a.get("id"), "class": (a.get("class") or "").split(), "attrs": a, "text": "",
             "up": list(self.stack)}
        self.els.append(e)
        if tag not in ("br", "img", "input", "meta", "link"):
            self.stack.append(e)

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for e in self.stack:
            e["text"] += data

    def find(self, cls=None, id=None):
        return [e for e in self.els if (cls is None or cls in e["class"]) and (id is None or e["id"] == id)]

    def panel(self, table, cls):
        """The texts of the whole trace's statistics panel cells td.CLS in its table.TABLE."""
        return [e["text"] for e in self.els if e["tag"] == "td" and cls in e["class"] and
                any(u["id"] == "stats-body" for u in e["up"]) and
                any(u["tag"] == "table" and table in u["class"] for u in e["up"])]


def browse(url, shot):
    with tempfile.TemporaryDirectory() as prof:
        common = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--user-data-dir=" + prof, "--window-size=1400,1000", "--virtual-time-budget=8000"]
        p = subprocess.run(common + ["--dump-dom", url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        subprocess.run(common + ["--screenshot=" + shot, url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    d = Dom()
    d.feed(p.stdout)
    return d


class Cdp:
    """Chromium over --remote-debugging-pipe: DevTools commands as NUL-ended JSON on fds 3 (in) and 4 (out)."""

    def __init__(self, prof):
        cmd_r, self.cmd_w = os.pipe()
        self.out_r, out_w = os.pipe()

        def fds():
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)
        self.p = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                   "--user-data-dir=" + prof, "--window-size=1400,1000", "--remote-debugging-pipe",
                                   "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  preexec_fn=fds, close_fds=False, start_new_session=True)
        os.close(cmd_r)
        os.close(out_w)
        self.buf, self.n, self.session = b"", 0, None

    def call(self, method, params=None, timeout=60):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        end = time.time() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                r = json.loads(raw)
                if r.get("id") == self.n:
                    if "error" in r:
                        raise RuntimeError("%s: %s" % (method, r["error"]))
                    return r["result"]
            if not select.select([self.out_r], [], [], max(0, end - time.time()))[0]:
                raise RuntimeError("%s: no answer in %d s" % (method, timeout))
            chunk = os.read(self.out_r, 1 << 20)
            if not chunk:
                raise RuntimeError("%s: Chromium closed its pipe" % method)
            self.buf += chunk

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait(self, expr, what, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            if self.js(expr):
                return True
            time.sleep(0.2)
        check(False, "%s: not within %d s (%s)" % (what, timeout, expr))
        return False

    def close(self):
        # Chromium's helpers outlive its main process and keep writing the profile: asked to close,
        # then the whole process group ended, before the profile is removed.
        self.session = None
        try:
            self.call("Browser.close", timeout=10)
            self.p.wait(timeout=10)
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.p.wait()
        os.close(self.cmd_w)
        os.close(self.out_r)


def iso_ns(text):
    """Realtime ns of 2023-11-14T22:30:00.077268648Z."""
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{9})Z", text)
    return calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) * 10**9 + int(m.group(2))


def us(ns):
    return "%.3f" % (ns / 1000)


# The independent side: evcat's events (and its warnings of what was lost, like babeltrace2's).
ev_cpus, pairs, per_name, ev_count = set(), set(), {}, 0
freqs, idles, powered = {}, set(), set()
switches, by_cpu = {}, {}  # cpu -> [(ts, next_tid, next_comm)], cpu -> [ts of its events]
evcat_run = subprocess.run([evcat, "--format", "json", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, check=True)
lost_ranges = [(iso_ns(a), iso_ns(b)) for a, b in
               re.findall(r"between \[([^]]+)\] and \[([^]]+)\]", evcat_run.stderr)]
for line in evcat_run.stdout.splitlines():
    e = json.loads(line)
    by_cpu.setdefault(e["cpu"], []).append(e["ts"])
    ev_count += 1
    ev_cpus.add(e["cpu"])
    per_name[e["event"]] = per_name.get(e["event"], 0) + 1
    f = e["fields"]
    if e["event"] == "sched_switch":
        pairs.add((f["prev_tid"], f["prev_comm"]))
        pairs.add((f["next_tid"], f["next_comm"]))
        switches.setdefault(e["cpu"], []).append((e["ts"], f["next_tid"], f["next_comm"]))
    elif e["event"] == "lttng_statedump_process_state":
        pairs.add((f["tid"], f["name"]))
    elif e["event"] == "power_cpu_frequency":
        freqs.setdefault(f["cpu_id"], set()).add(f["state"] // 1000)
    elif e["event"] == "power_cpu_idle":
        idles.add(f["cpu_id"])
print("evcat: %d events, CPUs %s, %d (tid, comm) pairs, frequencies %s, %d lost ranges" %
      (ev_count, sorted(ev_cpus), len(pairs), freqs, len(lost_ranges)), flush=True)
evstat = json.loads(subprocess.run([os.path.join(os.path.dirname(os.path.abspath(evview)), "evstat"), "--json", trace],
                                   stdout=subprocess.PIPE, check=True).stdout)
check(not want_losses or lost_ranges, "--losses: evcat warns of no lost range")
STATES = ["running", "runnable", "blocked", "idle", "irq", "softirq", "lost"]


def check_issue43(name, d, info):
    """The legend, the losses said and shaded, the latency figures: against evstat and evcat."""
    states = [e["attrs"].get("data-state") for e in d.find("state") if any(u["id"] == "state-legend" for u in e["up"])]
    check(all(x in states for x in STATES), "%s: state legend %s, want each of %s" % (name, states, STATES))
    lost_sw = [e for e in d.find("swatch") if any(u["attrs"].get("data-state") == "lost" for u in e["up"])]
    check(lost_sw and "loss-pattern" in lost_sw[0]["class"], "%s: the legend's lost swatch is not the loss pattern" % name)
    for where in ("trace-losses", "stats-losses"):
        e = d.find(id=where)
        a = e[0]["attrs"] if e else {}
        got = (a.get("data-discarded"), a.get("data-packets-lost"), a.get("data-ranges"))
        want = (str(evstat["discarded"]), str(evstat["lost_packets"]), str(evstat["loss_ranges"]))
        check(got == want and (("INCOMPLETE" in e[0]["text"]) == (not evstat["complete"])),
              "%s: #%s says %s %r, evstat --json %s complete=%s" % (name, where, got, e and e[0]["text"], want,
                                                                   evstat["complete"]))
    shades = [(int(e["attrs"]["data-from"]), int(e["attrs"]["data-to"])) for e in d.find("loss-shade")]
    off = info["offset_ns"]
    if name == "whole":
        uncovered = [r for r in lost_ranges if not any(a <= r[0] and r[1] <= b for a, b in shades)]
        check(not uncovered and bool(shades) == bool(lost_ranges),
              "%s: %d loss boxes %s; evcat's lost ranges outside them: %s" % (name, len(shades), shades[:3], uncovered[:3]))
    sched = evstat["sched_latency"]
    row = [d.panel("sched-latency", c) for c in ("lat-count", "lat-min", "lat-avg", "lat-max")]
    want = [[str(sched["count"])], [us(sched["min_ns"])], [us(sched["total_ns"] / sched["count"])],
            [us(sched["max_ns"])]] if sched["count"] else [[str(0)], ["–"], ["–"], ["–"]]
    check(row == want, "%s: scheduling latency count/min/avg/max %s, evstat %s" % (name, row, want))
    maxima = {"sched": [sched["max_ns"]] if sched["count"] else [],
              "syscall": [y["latency"]["max_ns"] for y in evstat["syscalls"] if y["latency"]["count"]],
              "irq": [q["duration"]["max_ns"] for q in evstat["irqs"] if q["duration"]["count"]],
              "softirq": [q["duration"]["max_ns"] for q in evstat["softirqs"] if q["duration"]["count"]]}
    worst = {}
    for kind, m in maxima.items():
        got = d.panel("worst-" + kind, "worst-us")
        worst[kind] = got[0] if got else None
        check((got[:1] == [us(max(m))]) if m else not got,
              "%s: worst %s first %s, evstat's largest %s" % (name, kind, got[:1], us(max(m)) if m else None))
    print("%s: legend %s; losses %s (%d boxes, %d of evcat's ranges); scheduling latency %s; worst %s" %
          (name, states, (d.find(id="trace-losses") or [{"text": "?"}])[0]["text"], len(shades), len(lost_ranges),
           row, worst), flush=True)


def click_slice(page, info, shot):
    """A click on the busiest CPU's lane (well inside a thread's slice, near the middle): the slice panel
    against evcat's switches and events."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as prof:
        c = Cdp(prof)
        try:
            target = c.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            c.session = c.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            c.call("Page.navigate", {"url": page})
            if not c.wait("!!document.querySelector('#stats.ready') && view.win !== null && !view.inflight",
                          "the page ready to click"):
                return
            cpu = max(ev_cpus, key=lambda x: len(switches.get(x, [])))
            r = c.js("JSON.stringify(document.querySelector('#lanes .lane[data-cpu=\"%d\"] canvas')"
                     ".getBoundingClientRect())" % cpu)
            r = json.loads(r)
            # A point well inside a thread's slice (by evcat's switches), nearest the lane's middle: at
            # least two columns from either end, so a pixel's rounding cannot move the click across a switch.
            vfrom, vto, cols = c.js("[view.from, view.to, view.win.cols]")
            off0, base0 = info["offset_ns"], info["first_rt"]
            col = (vto - vfrom) / cols
            mid = (vfrom + vto) / 2
            best = None
            sw = switches.get(cpu, [])
            for (a, tid_a, _), (b, _, _) in zip(sw, sw[1:]):
                lo = max(a - base0 + off0, vfrom) + 2 * col   # page-relative ns
                hi = min(b - base0 + off0, vto) - 2 * col
                if tid_a <= 0 or lo > hi:
                    continue
                p = min(max(mid, lo), hi)
                if best is None or abs(p - mid) < abs(best - mid):
                    best = p
            if best is None:
                best = mid
            x, y = r["x"] + (best - vfrom) / (vto - vfrom) * r["width"], r["y"] + r["height"] / 2
            at = best
            for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
                c.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
            c.wait("!document.querySelector('#slice').classList.contains('hidden') && "
                   "/events|no thread/.test(document.querySelector('#slice-page').textContent)", "the slice panel")
            with open(shot, "wb") as f:
                f.write(base64.b64decode(c.call("Page.captureScreenshot")["data"]))
            d = Dom()
            d.feed(c.js("document.documentElement.outerHTML"))
        finally:
            c.close()
    box = d.find(id="slice")[0]
    off, base = info["offset_ns"], info["first_rt"]
    t = base + at - off  # the clicked time, trace clock
    sw = switches.get(cpu, [])
    before = [s for s in sw if s[0] <= t]
    after = [s for s in sw if s[0] > t]
    thread = [e["text"] for e in d.find("slice-thread")]
    if not before:
        check("no thread" in d.find(id="slice-page")[0]["text"], "slice before CPU %d's first switch: %s" % (cpu, thread))
        return
    ts, tid, comm = before[-1]
    end = after[0][0] if after else None
    got_from, got_to = int(box["attrs"].get("data-from", 0)) - off, int(box["attrs"].get("data-to", 0)) - off
    want_thread = "idle (tid 0)" if tid == 0 else "%s (tid %d, " % (comm, tid)
    check(thread and thread[0].startswith(want_thread) and box["attrs"].get("data-tid") == str(tid),
          "slice: thread %s, evcat's switch at %d put %s (%d) on CPU %d" % (thread, ts, comm, tid, cpu))
    check(got_from == ts and (end is None or got_to == end),
          "slice: [%d, %d], evcat's switches on CPU %d around %d: [%d, %s]" % (got_from, got_to, cpu, t, ts, end))
    n = sum(1 for x in by_cpu.get(cpu, []) if got_from <= x <= got_to)
    rows = [e for e in d.els if e["tag"] == "tr" and "event" in e["class"] and
            any(u["id"] == "slice-events" for u in e["up"])]
    check(len(rows) == min(n, 100), "slice: %d events listed, evcat has %d on CPU %d in it" % (len(rows), n, cpu))
    check(any(e["text"].startswith("+") for e in d.find("slice-from")) and d.find("slice-to"),
          "slice: no times shown")
    print("click: CPU %d at %d: %s, [%d, %d] (%d ns), %d events; %s" %
          (cpu, t, thread[0] if thread else "?", got_from, got_to, got_to - got_from, len(rows), shot), flush=True)


def named(text):
    """(tid, comm) from "comm (tid)"."""
    m = re.fullmatch(r"(.*) \((\d+)\)", text)
    return (int(m.group(2)), m.group(1)) if m else (None, text)


os.makedirs(outdir, exist_ok=True)
s = subprocess.Popen([evview, trace, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
try:
    m = re.search(r"(http://127\.0\.0\.1:\d+/)#token=([0-9a-f]+)", s.stdout.readline())
    if not m:
        sys.exit("FAIL: evview printed no URL")
    url, token = m.group(1), m.group(2)

    def api(path):
        """The API as the page calls it: with the URL's token."""
        return urllib.request.urlopen(urllib.request.Request(url + path, headers={"Authorization": "Bearer " + token}))

    info = json.loads(api("api/trace").read())

    first = browse(url + "#token=" + token, os.path.join(outdir, "evview-start.png"))
    lanes = [e for e in first.find("lane") if "data-cpu" in e["attrs"]]
    check(sorted(int(e["attrs"]["data-cpu"]) for e in lanes) == sorted(ev_cpus) == info["cpus"],
          "lanes %s, evcat's CPUs %s, /api/trace's %s" % ([e["attrs"]["data-cpu"] for e in lanes], sorted(ev_cpus),
                                                         info["cpus"]))

    api("api/progress").read()
    stats = json.loads(api("api/stats").read())
    top = sorted((t for t in stats["threads"] if t["tid"]), key=lambda t: (-t["cpu_ns"], t["tid"]))[:15]

    span = info["last_rt"] - info["first_rt"]
    lanes_for = [t["tid"] for t in top[:2]]
    for name, frag in (("whole", "#token=" + token),
                       ("zoom", "#view=%d-%d&threads=%s&token=%s" % (span // 2, span // 2 + span // 100,
                                                                    ",".join(map(str, lanes_for)), token))):
        shot = os.path.join(outdir, "evview-%s.png" % name)
        d = browse(url + frag, shot)
        check(os.path.getsize(shot) > 10000, "%s: no screenshot" % shot)
        lanes = [e for e in d.find("lane") if "data-cpu" in e["attrs"]]
        check(sorted(int(e["attrs"]["data-cpu"]) for e in lanes) == sorted(ev_cpus),
              "%s: lanes %s, evcat's CPUs %s" % (name, [e["attrs"]["data-cpu"] for e in lanes], sorted(ev_cpus)))
        # Each CPU lane's power label: its frequencies (MHz, the column means between the
        # lowest and highest it ran at) and its idle share, where the trace has them.
        for e in (d.find("lane-power") if name == "whole" else []):
            cpu, text = int(e["attrs"]["data-cpu"]), e["text"]
            m = re.search(r"(\d+)(?:-(\d+))? MHz", text)
            mhz = [int(x) for x in m.groups() if x] if m else []
            if cpu in freqs:
                check(mhz and min(freqs[cpu]) <= min(mhz) and max(mhz) <= max(freqs[cpu]),
                      "cpu %d's power label %r: frequencies %s MHz in the trace" % (cpu, text, sorted(freqs[cpu])))
            else:
                check("MHz" not in text, "cpu %d's power label %r: no frequency in the trace" % (cpu, text))
            check(("idle" in text) == (cpu in idles), "cpu %d's power label %r: idle events %s" % (cpu, text, cpu in idles))
            powered.add(cpu)
        st = d.find(id="stats")
        check(st and "ready" in st[0]["class"], "%s: the statistics panel is not ready: %s" %
              (name, d.find(id="stats-status")[0]["text"] if d.find(id="stats-status") else "?"))
        got = list(zip(d.panel("threads", "tid"), d.panel("threads", "thread-name"), d.panel("threads", "cpu-ms")))
        want = [(str(t["tid"]), t["comm"], "%.3f" % (t["cpu_ns"] / 1e6)) for t in top]
        check(got == want, "%s: top threads %s, /api/stats says %s" % (name, got[:3], want[:3]))
        alien = [x for x in got if (int(x[0]), x[1]) not in pairs]
        check(not alien, "%s: panel threads that evcat's switches never name: %s" % (name, alien[:5]))
        got = list(zip(d.panel("syscalls", "syscall-name"), d.panel("syscalls", "count")))
        want = [(y["name"], str(y["count"])) for y in sorted(stats["syscalls"], key=lambda y: -y["count"])][:15]
        check(got and sorted(got) == sorted(want),
              "%s: system calls %s, /api/stats says %s" % (name, got[:3], want[:3]))
        off = [(n, c, per_name.get(n, 0)) for n, c in got if int(c) != per_name.get(n, 0)]
        check(not off, "%s: system call counts (name, panel, evcat): %s" % (name, off[:5]))
        got = sorted(zip(d.panel("irqs", "irq-name"), d.panel("irqs", "count")))
        want = sorted((q["name"], str(q["count"])) for q in stats["irqs"] + stats["softirqs"])
        check(got == want, "%s: interrupts %s, /api/stats says %s" % (name, got[:3], want[:3]))
        got = d.panel("losses", "discarded")
        lossy = [q for q in stats["streams"] if q["discarded"] or q["lost_packets"]]
        want = [str(q["discarded"]) for q in lossy] or ["0"]
        check(got == want, "%s: losses' discarded %s, /api/stats says %s" % (name, got, want))
        check(not want_losses or lossy, "%s: --losses, but /api/stats lists none" % name)
        total = [e["text"] for e in d.find("stats-total") if any(u["id"] == "stats-body" for u in e["up"])]
        check(total == ["%d events" % ev_count] and stats["events"] == ev_count,
              "%s: panel %s, /api/stats %d events, evcat %d" % (name, total, stats["events"], ev_count))
        legend = [e["text"] for e in d.find("thread-name") if e["tag"] == "span"]
        check(legend and all(named(x) in pairs for x in legend),
              "%s: legend names no thread of the trace: %s" % (name, [x for x in legend if named(x) not in pairs][:5]))
        if name == "zoom":
            tl = [e for e in d.find("thread-lane")]
            check(sorted(int(e["attrs"]["data-tid"]) for e in tl) == sorted(lanes_for),
                  "zoom: thread lanes %s, asked %s" % ([e["attrs"].get("data-tid") for e in tl], lanes_for))
            names = [e["text"] for e in d.find("lane-label")][len(info["cpus"]):]
            want_names = ["%s (%d)" % (t["comm"], t["tid"]) for t in top[:2]]
            check(names == want_names and all(named(x) in pairs for x in names),
                  "zoom: thread lane labels %s, want %s (and in evcat's switches)" % (names, want_names))
        if name == "whole":
            check(powered == ev_cpus, "power labels for CPUs %s, the trace's CPUs %s" % (sorted(powered), sorted(ev_cpus)))
        err = d.find(id="error")
        check(err and "hidden" in err[0]["class"], "%s: error banner: %s" % (name, err[0]["text"] if err else "?"))
        rng = d.find(id="view-range")
        check(rng and "showing" in rng[0]["text"] and "incomplete" not in rng[0]["text"],
              "%s: the view's line after the pass: %s" % (name, rng[0]["text"] if rng else "?"))
        check_issue43(name, d, info)
        if name == "zoom":
            try:
                click_slice(url + frag, info, os.path.join(outdir, "evview-click.png"))
            except RuntimeError as e:  # the page or Chromium, not this script
                check(False, "click: %s" % str(e)[:500])
        print("%s: %d lanes, %d threads in the legend (%s), statistics ready (%s), losses %s, %s; %s" %
              (name, len(lanes), len(legend), ", ".join(legend[:3]), total[0] if total else "?",
               "/".join(got), rng[0]["text"] if rng else "", shot), flush=True)
finally:
    s.terminate()
    s.wait()

if failures:
    sys.exit(1)
print("evview-browser: all hold")
