#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: control
# The task filter (evctl track): the guest runs each case on a fresh module
# (guest-filter.sh); here evcat reads every case's trace and the rings'
# figures are checked against who wrote what.
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 "$here/guest-filter.sh"
python3 - "$out" "$top/build/bin/evcat" <<'PY'
import json, subprocess, sys
out, evcat = sys.argv[1:3]
N = 1000
# Which writers each case tracks, by their names (markers' pid files name them).
cases = {
    "pid": {"evtf-a"},
    "pid-follow": {"evtf-a", "evtf-a-1"},
    "comm": {"evtf-b"},
    "cgroup": {"evtf-c", "evtf-c-1"},
    "two": {"evtf-b", "evtf-c-1"},
    "sched": {"evtf-a", "evtf-a-1"},
}
def col(stats, ch, k):
    return sum(int(l.split()[k - 1]) for l in open(stats) if l.split()[:1] == [ch])
for name, tracked in cases.items():
    pids = dict(l.split() for l in open("%s/%s.pids" % (out, name)))
    assert len(pids) == 5, (name, pids)
    by_tid = {int(p): n for n, p in pids.items()}
    ev = subprocess.run([evcat, "--format", "json", "%s/%s" % (out, name)], check=True,
                        capture_output=True, text=True).stdout
    seen = {}
    tracked_tids = {int(pids[w]) for w in tracked}
    about = {}
    for line in ev.splitlines():
        e = json.loads(line)
        f = e["fields"]
        if e["event"] == "sched_switch":
            assert f["prev_tid"] in tracked_tids or f["next_tid"] in tracked_tids, (name, e)
            # Switched in from an untracked task: kept by the task it is about.
            about.setdefault("sched_switch from an untracked task", set()).add(
                f["next_tid"] in tracked_tids and f["prev_tid"] not in tracked_tids)
        elif e["event"] in ("sched_wakeup", "sched_waking", "sched_migrate_task",
                            "sched_process_exit", "sched_process_free"):
            assert f["tid"] in tracked_tids, (name, e)
            about.setdefault(e["event"], set()).add(True)
        elif e["event"] == "sched_process_fork":
            assert f["parent_tid"] in tracked_tids, (name, e)
            about.setdefault(e["event"], set()).add(True)
        if e["event"] != "marker":
            continue
        f = e["fields"]
        who = by_tid.get(f["tid"])
        assert who is not None, (name, "a marker of a task that is no writer", e)
        assert f["text"].startswith(who + " "), (name, e)
        seen.setdefault(who, set()).add(int(f["text"].split()[1]))
    assert set(seen) == tracked, (name, "writers in the trace", sorted(seen), "tracked", sorted(tracked))
    for who, idx in seen.items():
        assert idx == set(range(N)), (name, who, "markers", len(idx))
    filtered = col("%s/%s.stats" % (out, name), "normal", 12)
    want = N * (len(pids) - len(tracked))
    if name == "sched":
        # The others' scheduler events are filtered too (the compact channel's).
        assert filtered == want and col("%s/%s.stats" % (out, name), "compact", 12) > 0, \
            (name, "filtered", filtered, "the others' markers", want)
        for ev_name in ("sched_switch from an untracked task", "sched_waking", "sched_process_fork",
                        "sched_process_exit"):
            assert True in about.get(ev_name, ()), (name, "no", ev_name, sorted(about))
        print("sched      every switch has a tracked task, every wakeup/migration/exit/free names "
              "one, every fork's parent is one: %s" % ", ".join(sorted(about)))
    else:
        assert filtered == want, (name, "filtered", filtered, "the others wrote", want)
        print("%-10s tracked %-20s: %d markers each in the trace, %d filtered = what the others wrote"
              % (name, ",".join(sorted(tracked)), N, filtered))
    assert col("%s/%s.stats" % (out, name), "normal", 5) == 0, (name, "discarded")
    st = json.load(open("%s/%s.status.json" % (out, name)))
    assert st["filter"] is not None, (name, st["filter"])
# evdrain -- CMD: every event recorded while a task runs is the command's
# (its process and those it forked); the untracked futex loop left nothing.
import re
summary = open("%s/cmd.evdrain" % out).read()
cmd_pid = int(re.search(r"\(pid (\d+)\) exited with status 3", summary).group(1))
noise = int(open("%s/cmd.noise" % out).read())
ev = subprocess.run([evcat, "--format", "json", "%s/cmd" % out], check=True, capture_output=True,
                    text=True).stdout
procs, running, counts, checked = {cmd_pid}, {}, {}, 0
for line in ev.splitlines():
    e = json.loads(line)
    f, name, cpu = e["fields"], e["event"], e["cpu"]
    counts[name] = counts.get(name, 0) + 1
    if name == "sched_process_fork" and f["parent_pid"] in procs:
        procs.add(f["child_pid"])
    if name == "sched_switch":
        running[cpu] = f["next_tid"]
    elif name.startswith("sys_") or name in ("exit_syscall", "page_fault_user", "sched_process_exec"):
        tid = running.get(cpu)
        if tid is not None:
            assert tid in procs, ("recorded while task %d ran" % tid, e)
            checked += 1
    assert name in ("sched_switch", "lttng_statedump_process_state") or f.get("tid") != noise, ("the noise", e)
assert len(procs) >= 2, ("the command's children", procs)
assert counts.get("sys_lseek", 0) >= 3000, ("the child's lseeks", counts.get("sys_lseek"))
assert counts.get("sys_futex", 0) < 100, ("the untracked loop's futex calls", counts.get("sys_futex"))
assert "sysloop" in summary and re.search(r"its threads: [2-9]", summary), summary
print("evdrain -- CMD: %d processes (the command and its children), %d events checked against the "
      "running task, %d sys_lseek, %d sys_futex (the untracked loop made millions)"
      % (len(procs), checked, counts.get("sys_lseek", 0), counts.get("sys_futex", 0)))
gen = {}
for l in open("%s/gen.generate" % out):
    f = l.split()
    if f and f[0].isdigit():
        gen["compact"] = gen.get("compact", 0) + int(f[3])
        gen["normal"] = gen.get("normal", 0) + int(f[4])
for ch in ("compact", "normal"):
    fil = col("%s/gen.stats" % out, ch, 12)
    assert fil == gen[ch] > 0, (ch, "filtered", fil, "offered", gen[ch])
    # The normal channel may hold the state dump (never filtered), the compact one nothing.
    assert ch == "normal" or col("%s/gen.stats" % out, ch, 4) == 0, (ch, "recorded")
    print("generator %s: %d offered, %d filtered" % (ch, gen[ch], fil))
PY
echo "filters: only the tracked tasks' events recorded, the others' counted filtered"
