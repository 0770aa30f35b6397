#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run every query of docs/fleet.md on a cluster and compare with evstat.

usage: fleet-check.py --client 'clickhouse-client --port N' --doc docs/fleet.md
                      --evstat build/bin/evstat HOST=RUN_DIR ...

Each query (a ```sql block after a "<!-- query: NAME -->" line) runs as it
is; the answers are checked against `evstat --json` on each host's run of
chunks: counts, errors and latency min/max/sum exact; percentile buckets of
the histograms equal to those of evstat's histograms, and holding the exact
percentiles of the syscalls table; top threads' CPU time exact; events,
losses and scheduling latency exact. Prints each query's time; exits 1 on
the first difference.
"""
import argparse
import json
import re
import shlex
import subprocess
import sys
import time


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def queries(doc):
    text = open(doc).read()
    found = re.findall(r"<!-- query: ([a-z0-9-]+) -->\s*```sql\n(.*?)```", text, re.S)
    if not found:
        fail("%s: no queries" % doc)
    return dict(found)


def run(client, sql):
    cmd = shlex.split(client) + ["--output_format_json_quote_64bit_integers", "0",
                                 "--query", sql.strip().rstrip(";") + " FORMAT JSONEachRow"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.monotonic() - t0
    if p.returncode:
        fail("query failed: %s\n%s" % (p.stderr.strip(), sql))
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()], dt


def rank_bucket(hist, n, level):
    """The log2 bucket of the call at rank floor(level * n) (quantileExact's), from a histogram."""
    k = min(int(level * n), n - 1)
    cum = 0
    for b, c in enumerate(hist):
        cum += c
        if cum > k:
            return b
    return -1


def bucket_of(ns):
    return min(ns.bit_length(), 63)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--client", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--evstat", required=True)
    ap.add_argument("hosts", nargs="+")
    a = ap.parse_args()
    q = queries(a.doc)
    ev = {}
    for h in a.hosts:
        host, run_dir = h.split("=", 1)
        p = subprocess.run([a.evstat, run_dir, "--json", "--no-saved"], capture_output=True, text=True)
        if p.returncode:
            fail("evstat %s: %s" % (run_dir, p.stderr))
        ev[host] = json.loads(p.stdout)
    res, times = {}, {}
    for name, sql in q.items():
        res[name], times[name] = run(a.client, sql)
    expected = {"syscall-latency-per-host", "syscall-latency-fleet", "syscall-latency-exact", "syscalls-by-kernel",
                "top-threads", "top-threads-stats", "events-and-losses", "lossy-hosts", "sched-latency-per-host",
                "worst-sched-latency"}
    if set(q) != expected:
        fail("docs/fleet.md's queries are %s, this check knows %s" % (sorted(q), sorted(expected)))
    checked = 0

    # System calls per host: from the aggregates and from the rows, against evstat.
    per_host = {(r["host"], r["name"]): r for r in res["syscall-latency-per-host"]}
    exact = {(r["host"], r["name"]): r for r in res["syscall-latency-exact"]}
    fleet_want = {}
    for host, e in ev.items():
        for s in e["syscalls"]:
            lat, key = s["latency"], (host, s["name"])
            r = per_host.get(key)
            if r is None:
                fail("syscall-latency-per-host: no row for %s %s" % key)
            want = (s["count"], s["errors"], lat["count"], lat["total_ns"], lat["min_ns"], lat["max_ns"])
            got = (r["calls"], r["errors"], r["timed"], r["total_ns"], r["min_ns"] if r["timed"] else 0, r["max_ns"])
            if got != want:
                fail("syscall-latency-per-host %s %s: %s, evstat %s" % (host, s["name"], got, want))
            hist = s["hist_log2_ns"] + [0] * (64 - len(s["hist_log2_ns"]))
            f = fleet_want.setdefault(s["name"], [set(), 0, 0, 0, 0, None, 0, [0] * 64])
            f[1] += s["count"]
            f[2] += s["errors"]
            f[3] += lat["count"]
            f[4] += lat["total_ns"]
            if lat["count"]:
                f[0].add(host)
                f[5] = lat["min_ns"] if f[5] is None else min(f[5], lat["min_ns"])
            f[6] = max(f[6], lat["max_ns"])
            f[7] = [x + y for x, y in zip(f[7], hist)]
            if not lat["count"]:
                if key in exact:
                    fail("syscall-latency-exact: rows for %s %s, evstat timed none" % key)
                continue
            for level, col in ((0.5, "p50_bucket"), (0.99, "p99_bucket")):
                b = rank_bucket(hist, lat["count"], level)
                if r[col] != b:
                    fail("syscall-latency-per-host %s %s: %s %d, evstat's histogram %d" % (host, s["name"], col, r[col], b))
            x = exact.get(key)
            if x is None:
                fail("syscall-latency-exact: no row for %s %s" % key)
            got = (x["calls"], x["errors"], x["total_ns"], x["min_ns"], x["max_ns"])
            if got != (lat["count"], s["errors"], lat["total_ns"], lat["min_ns"], lat["max_ns"]):
                fail("syscall-latency-exact %s %s: %s, evstat %s" % (host, s["name"], got, want))
            for level, col in ((0.5, "p50_ns"), (0.99, "p99_ns")):
                if bucket_of(x[col]) != rank_bucket(hist, lat["count"], level):
                    fail("syscall-latency-exact %s %s: %s %d ns is not in the histogram's bucket %d"
                         % (host, s["name"], col, x[col], rank_bucket(hist, lat["count"], level)))
            checked += 1
    if len(per_host) != sum(len(e["syscalls"]) for e in ev.values()):
        fail("syscall-latency-per-host: %d rows, evstat %d syscalls" % (len(per_host), sum(len(e["syscalls"]) for e in ev.values())))
    for r in res["syscall-latency-fleet"]:
        f = fleet_want.get(r["name"])
        if f is None:
            fail("syscall-latency-fleet: %s, which evstat never saw" % r["name"])
        got = (r["calls"], r["errors"], r["timed"], r["total_ns"], r["min_ns"] if r["timed"] else None, r["max_ns"])
        if got != tuple(f[1:7]):
            fail("syscall-latency-fleet %s: %s, evstat summed %s" % (r["name"], got, f[1:7]))
        if f[3] and (r["p50_bucket"], r["p99_bucket"]) != (rank_bucket(f[7], f[3], 0.5), rank_bucket(f[7], f[3], 0.99)):
            fail("syscall-latency-fleet %s: buckets %s, evstat's summed histograms %s" % (
                r["name"], (r["p50_bucket"], r["p99_bucket"]), (rank_bucket(f[7], f[3], 0.5), rank_bucket(f[7], f[3], 0.99))))
    if len(res["syscall-latency-fleet"]) != len(fleet_want):
        fail("syscall-latency-fleet: %d names, evstat %d" % (len(res["syscall-latency-fleet"]), len(fleet_want)))
    kernels = {(r["name"], r["kernel"]) for r in res["syscalls-by-kernel"]}
    if len({k for _, k in kernels}) < 2:
        fail("syscalls-by-kernel: fewer than two kernels: %s" % sorted(kernels)[:5])

    # Top threads per host: the same ten, with the same CPU time (evstat: CPU time down, tid up).
    # The slices' time is the whole time on CPU (evstat's measured cpu_ns and its cpu_lossy_ns,
    # the part in lost ranges); the aggregates carry evstat's measured cpu_ns.
    for qname, lossy in (("top-threads", 1), ("top-threads-stats", 0)):
        for host, e in ev.items():
            want = sorted(((t["cpu_ns"] + lossy * t["cpu_lossy_ns"], t["tid"]) for t in e["threads"]
                           if t["tid"] > 0 and t["cpu_ns"] + lossy * t["cpu_lossy_ns"]),
                          key=lambda x: (-x[0], x[1]))[:10]
            got = [(r["cpu_ns"], r["tid"]) for r in res[qname] if r["host"] == host]
            if got != want:
                fail("%s %s: %s, evstat %s" % (qname, host, got, want))

    # Events and losses per host.
    for host, e in ev.items():
        rows = [r for r in res["events-and-losses"] if r["host"] == host]
        disc = sum(s["discarded"] for s in e["streams"])
        lost = sum(s["lost_packets"] for s in e["streams"])
        got = (sum(r["events"] for r in rows), sum(r["discarded"] for r in rows), sum(r["lost_packets"] for r in rows))
        if got != (e["events"], disc, lost):
            fail("events-and-losses %s: %s, evstat %s" % (host, got, (e["events"], disc, lost)))
        lossy = [r for r in res["lossy-hosts"] if r["host"] == host]
        if bool(lossy) != bool(disc + lost) or (lossy and (lossy[0]["events_discarded"], lossy[0]["packets_lost"]) != (disc, lost)):
            fail("lossy-hosts %s: %s, evstat %d discarded, %d packets lost" % (host, lossy, disc, lost))

    # Scheduling latency per host, and the worst ones.
    for host, e in ev.items():
        sl = e["sched_latency"]
        rows = [r for r in res["sched-latency-per-host"] if r["host"] == host]
        want = (sl["count"], sl["total_ns"], sl["min_ns"], sl["max_ns"])
        got = (rows[0]["wakeups"], rows[0]["total_ns"], rows[0]["min_ns"], rows[0]["max_ns"]) if rows else (0, 0, 0, 0)
        if got != want:
            fail("sched-latency-per-host %s: %s, evstat %s" % (host, got, want))
    worst = res["worst-sched-latency"]
    top = max(e["sched_latency"]["max_ns"] for e in ev.values())
    if not worst or worst[0]["latency_ns"] != top or any(worst[i]["latency_ns"] < worst[i + 1]["latency_ns"]
                                                          for i in range(len(worst) - 1)):
        fail("worst-sched-latency: %s, evstat's worst %d" % (worst[:2], top))

    print("fleet-check: %d hosts, %d syscalls compared with evstat (per host, fleet, exact), top threads, events,"
          " losses, scheduling latency: all equal" % (len(ev), checked))
    for name in q:
        print("  %-26s %5d rows %8.3f s" % (name, len(res[name]), times[name]))


main()
