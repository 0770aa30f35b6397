#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""evview's page in a real browser: Debian's Chromium, headless.

usage: evview-browser.py EVVIEW TRACE_DIR OUTDIR [CHROMIUM]

evview is started on a free loopback port. The page is loaded twice with
--dump-dom (the DOM once its requests are answered: --virtual-time-budget)
and --screenshot into OUTDIR: first while the background pass may still
run, then, once /api/progress said ready, the whole trace and a zoomed
view (#view=FROM-TO, 1 % of the span, with lanes for the two busiest
threads: &threads=). Checked in the DOM: a lane per CPU
(#lanes .lane[data-cpu]), the statistics panel ready with the top threads'
names and CPU times equal to /api/stats's, the legend naming threads of
the trace, the thread lanes asked for with their names, no error banner.
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

evview, trace, outdir = sys.argv[1:4]
chromium = sys.argv[4] if len(sys.argv) > 4 else "chromium"
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg, flush=True)


class Dom(html.parser.HTMLParser):
    """Elements with their id, classes, data-* and text (enough for these checks)."""

    def __init__(self):
        super().__init__()
        self.els, self.stack = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        e = {"tag": tag, "id": a.get("id"), "class": (a.get("class") or "").split(), "attrs": a, "text": ""}
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


os.makedirs(outdir, exist_ok=True)
s = subprocess.Popen([evview, trace, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
try:
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", s.stdout.readline())
    if not m:
        sys.exit("FAIL: evview printed no URL")
    url = m.group(1)
    info = json.loads(urllib.request.urlopen(url + "api/trace").read())

    first = browse(url, os.path.join(outdir, "evview-start.png"))
    lanes = [e for e in first.find("lane") if "data-cpu" in e["attrs"]]
    check(sorted(int(e["attrs"]["data-cpu"]) for e in lanes) == info["cpus"],
          "lanes %s, CPUs %s" % ([e["attrs"]["data-cpu"] for e in lanes], info["cpus"]))

    urllib.request.urlopen(url + "api/progress").read()
    stats = json.loads(urllib.request.urlopen(url + "api/stats").read())
    top = sorted((t for t in stats["threads"] if t["tid"]), key=lambda t: (-t["cpu_ns"], t["tid"]))[:15]

    span = info["last_rt"] - info["first_rt"]
    lanes_for = [t["tid"] for t in top[:2]]
    for name, frag in (("whole", ""), ("zoom", "#view=%d-%d&threads=%s" % (span // 2, span // 2 + span // 100,
                                                                           ",".join(map(str, lanes_for))))):
        shot = os.path.join(outdir, "evview-%s.png" % name)
        d = browse(url + frag, shot)
        check(os.path.getsize(shot) > 10000, "%s: no screenshot" % shot)
        lanes = [e for e in d.find("lane") if "data-cpu" in e["attrs"]]
        check(len(lanes) == len(info["cpus"]), "%s: %d lanes for %d CPUs" % (name, len(lanes), len(info["cpus"])))
        st = d.find(id="stats")
        check(st and "ready" in st[0]["class"], "%s: the statistics panel is not ready: %s" %
              (name, d.find(id="stats-status")[0]["text"] if d.find(id="stats-status") else "?"))
        panel = [e for e in d.els if e["tag"] == "td" and "thread-name" in e["class"]]
        cpu_ms = [e for e in d.els if e["tag"] == "td" and "cpu-ms" in e["class"]]
        got = [(a["text"], b["text"]) for a, b in zip(panel, cpu_ms)]
        want = [(t["comm"], "%.3f" % (t["cpu_ns"] / 1e6)) for t in top]
        check(got == want, "%s: top threads %s, /api/stats says %s" % (name, got[:3], want[:3]))
        legend = [e["text"] for e in d.find("thread-name") if e["tag"] == "span"]
        comms = {t["comm"] for t in stats["threads"]}
        check(legend and all(x.rsplit(" (", 1)[0] in comms for x in legend),
              "%s: legend %s names no thread of the trace" % (name, legend[:5]))
        if name == "zoom":
            tl = [e for e in d.find("thread-lane")]
            check(sorted(int(e["attrs"]["data-tid"]) for e in tl) == sorted(lanes_for),
                  "zoom: thread lanes %s, asked %s" % ([e["attrs"].get("data-tid") for e in tl], lanes_for))
            names = [e["text"] for e in d.find("lane-label")][len(info["cpus"]):]
            want_names = ["%s (%d)" % (t["comm"], t["tid"]) for t in top[:2]]
            check(names == want_names, "zoom: thread lane labels %s, want %s" % (names, want_names))
        err = d.find(id="error")
        check(err and "hidden" in err[0]["class"], "%s: error banner: %s" % (name, err[0]["text"] if err else "?"))
        rng = d.find(id="view-range")
        check(rng and "showing" in rng[0]["text"] and "incomplete" not in rng[0]["text"],
              "%s: the view's line after the pass: %s" % (name, rng[0]["text"] if rng else "?"))
        print("%s: %d lanes, %d threads in the legend (%s), statistics ready, %s; %s" %
              (name, len(lanes), len(legend), ", ".join(legend[:3]), rng[0]["text"] if rng else "", shot), flush=True)
finally:
    s.terminate()
    s.wait()

if failures:
    sys.exit(1)
print("evview-browser: all hold")
