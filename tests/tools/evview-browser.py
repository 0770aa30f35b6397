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
Exit 0 when all hold, 1 with what did not.
"""
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile
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


# The independent side: evcat's events.
ev_cpus, pairs, per_name, ev_count = set(), set(), {}, 0
freqs, idles, powered = {}, set(), set()
for line in subprocess.run([evcat, "--format", "json", trace], stdout=subprocess.PIPE, text=True,
                           check=True).stdout.splitlines():
    e = json.loads(line)
    ev_count += 1
    ev_cpus.add(e["cpu"])
    per_name[e["event"]] = per_name.get(e["event"], 0) + 1
    f = e["fields"]
    if e["event"] == "sched_switch":
        pairs.add((f["prev_tid"], f["prev_comm"]))
        pairs.add((f["next_tid"], f["next_comm"]))
    elif e["event"] == "lttng_statedump_process_state":
        pairs.add((f["tid"], f["name"]))
    elif e["event"] == "power_cpu_frequency":
        freqs.setdefault(f["cpu_id"], set()).add(f["state"] // 1000)
    elif e["event"] == "power_cpu_idle":
        idles.add(f["cpu_id"])
print("evcat: %d events, CPUs %s, %d (tid, comm) pairs, frequencies %s" % (ev_count, sorted(ev_cpus), len(pairs), freqs),
      flush=True)


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
        print("%s: %d lanes, %d threads in the legend (%s), statistics ready (%s), losses %s, %s; %s" %
              (name, len(lanes), len(legend), ", ".join(legend[:3]), total[0] if total else "?",
               "/".join(got), rng[0]["text"] if rng else "", shot), flush=True)
finally:
    s.terminate()
    s.wait()

if failures:
    sys.exit(1)
print("evview-browser: all hold")
