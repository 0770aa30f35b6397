#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: evdrain
# evdrain's rotation (issue 19): every chunk reads alone in babeltrace2,
# babeltrace 1 and evcat; the chunks the hook shipped hold every generator
# event exactly once (concatenated per stream they are the trace a drainer
# without rotation writes); their summaries add up to the module's counts;
# retention removed the oldest; CPU hotplug, SIGKILL + --attach and a full
# disk leave only complete chunks named as such.
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 900 --copy-bin /usr/bin/rsync --copy-bin "$top/userspace/dist/hooks/evtrace-ship-rsync" \
	"$here/guest-rotate.sh"
evcat=$top/build/bin/evcat
name_re='^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9]+$'

# Complete chunks of DIR, oldest first (names sort by time).
chunks() { ls "$1" | grep -E "$name_re" | sort; }
# A chunk reads alone: babeltrace2 and babeltrace 1 without a complaint,
# evcat and evtest's strict decode, and its summary's count is babeltrace2's.
# With "losses" as $2, babeltrace2 may warn of discarded events (the drainer was down).
check_chunk() {
	local c=$1 n sn
	"$evtest" check "$c" > /dev/null || die "$c: evtest check fails"
	babeltrace2 "$c" > /dev/null 2> "$out/bt.err" || { cat "$out/bt.err"; die "$c: babeltrace2 fails"; }
	# (a chunk after the losses starts with a running total above 0: "may have discarded")
	[ "${2:-}" != losses ] || sed -i '/WARNING: Tracer \(may have \)\?discarded \([0-9]* \)\?events/d' "$out/bt.err"
	! grep -q 'ERROR\|WARNING' "$out/bt.err" || { cat "$out/bt.err"; die "$c: babeltrace2 complains"; }
	babeltrace "$c/kernel" > /dev/null 2> "$out/bt1.err" || { cat "$out/bt1.err"; die "$c: babeltrace 1 fails"; }
	"$evcat" --count "$c" > /dev/null || die "$c: evcat fails"
	n=$(bt_count "$c")
	sn=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$c/summary.json")
	[ "$n" = "$sn" ] || die "$c: summary.json says $sn events, babeltrace2 counts $n"
}
# The chunks of DIR concatenated per stream into DEST, in sequence order: the
# first chunk's metadata, each stream file the chunks' files one after another.
concat() {
	local dir=$1 dest=$2 c f
	mkdir -p "$dest/kernel"
	for c in $(ls "$dir" | grep -E "$name_re" | sort -t- -k3,3n); do
		[ -e "$dest/kernel/metadata" ] || cp "$dir/$c/kernel/metadata" "$dest/kernel/"
		cmp -s "$dir/$c/kernel/metadata" "$dest/kernel/metadata" || die "$c: another session's metadata"
		for f in "$dir/$c"/kernel/compact_* "$dir/$c"/kernel/normal_*; do
			[ -e "$f" ] && cat "$f" >> "$dest/kernel/$(basename "$f")"
		done
	done
}
# Per channel and CPU, the events the chunks' summaries count and the module recorded.
sums_match() {
	python3 - "$1" "$2" <<'PY'
import json, os, re, sys
d, stats = sys.argv[1], sys.argv[2]
ours = {}
for c in os.listdir(d):
    if not re.match(r'^\d{8}T\d{6}\.\d{6}Z-\d{8}T\d{6}\.\d{6}Z-\d+$', c):
        continue
    for s in json.load(open(os.path.join(d, c, 'summary.json')))['streams']:
        k = (s['channel'], s['cpu'])
        ours[k] = ours.get(k, 0) + s['events']
mod = {}
for line in open(stats):
    f = line.split()
    if f and f[0] in ('compact', 'normal') and int(f[3]):
        mod[(f[0], int(f[1]))] = int(f[3])
if ours != mod:
    sys.exit('chunks count %s, the module recorded %s' % (sorted(ours.items()), sorted(mod.items())))
print('per channel and CPU, chunks = module:', sorted(mod.items()))
PY
}

# (1) Size, hook, retention.
kept=$(chunks "$out/kept" | wc -l)
shipped=$(chunks "$out/shipped" | wc -l)
echo "size: $shipped chunks shipped, $kept kept"
[ "$shipped" -ge 30 ] || die "only $shipped chunks were shipped (want 30 or more)"
[ "$kept" -le 8 ] && [ "$kept" -ge 1 ] || die "--keep 8 kept $kept chunks"
ls -A "$out/kept" | grep -vE "$name_re" | grep -v '^\.hooked$' && die "something else than complete chunks is left in the directory"
for c in $(chunks "$out/kept"); do
	check_chunk "$out/kept/$c"
	# Packet index files are the readers' cache: a reader here rebuilds those the copy made stale (cp -r keeps no mtime).
	diff -r -x .evtrace-index "$out/kept/$c" "$out/shipped/$c" || die "$c: the shipped copy differs"
done
# The hook saw every chunk once, in sequence, with the summary's figures.
seqs=$(chunks "$out/shipped" | sed 's/.*-//' | sort -n | tr '\n' ' ')
[ "$seqs" = "$(seq 0 $((shipped - 1)) | tr '\n' ' ')" ] || die "shipped sequence numbers: $seqs"
[ "$(wc -l < "$out/hook.log")" = "$shipped" ] || die "the hook ran $(wc -l < "$out/hook.log") times for $shipped chunks"
while read -r path seq events begin end lost; do
	c=$(basename "$path")
	sn=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["events"], d["seq"], d["begin"], d["lost_packets"])' "$out/shipped/$c/summary.json")
	[ "$sn" = "$events $seq $begin $lost" ] || die "$c: the hook was given '$events $seq $begin $lost', summary.json says '$sn'"
	[ -n "$end" ] || die "$c: no EVT_CHUNK_END"
done < "$out/hook.log"
for c in $(chunks "$out/shipped"); do
	check_chunk "$out/shipped/$c"
done
python3 - "$out/rot.json" "$shipped" "$kept" <<'PY' || die "evdrain's --stats-json disagrees with the directory"
import json, sys
c = json.load(open(sys.argv[1]))['chunks']
n, kept = int(sys.argv[2]), int(sys.argv[3])
assert c['completed'] == n and c['hooks_run'] == n and c['hooks_failed'] == 0, c
assert c['deleted'] == n - kept and c['errors'] == 0 and c['lost_packets'] == 0, c
PY
sums_match "$out/shipped" "$out/rot.stats" || die "size: the chunks do not add up to the module's counts"
# Each chunk's summary.json, --stats-json and evcat's statistics of the run against docs/schemas/.
python3 "$top/tests/tools/json-schema-check.py" "$out/rot.json" "$out/shipped"/*/summary.json ||
	die "size: a JSON document does not follow its schema (docs/schemas/)"
# Nothing lost or duplicated at a seam: the run, joined, is one trace of every generator event once.
concat "$out/shipped" "$out/joined"
"$evtest" check "$out/joined" --gen-events 60000 --exact > "$out/joined.check" || { tail "$out/joined.check"; die "the joined chunks miss or repeat events"; }
[ "$(bt_count "$out/joined")" = "$(stats_sum "$out/rot.stats" 4)" ] || die "babeltrace2 on the joined chunks != recorded"
echo "size: every generator event once across $shipped chunks; hooks and summaries agree"
# evcat reads the run of chunks as one trace: the same output as the joined files.
"$evcat" "$out/shipped" > "$out/run.txt" || die "evcat on the run of chunks fails"
"$evcat" "$out/joined" > "$out/joined.txt"
cmp -s "$out/run.txt" "$out/joined.txt" || die "evcat on the run differs from evcat on the joined chunks"
"$evcat" --stats --format json "$out/shipped" > "$out/run-stats.json"
"$evcat" --stats --format json "$out/joined" > "$out/joined-stats.json"
python3 - "$out/run-stats.json" "$out/joined-stats.json" "$shipped" <<'PY' || die "evcat --stats on the run"
import json, sys
run, joined, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
for k in ("events", "cpus", "events_by_name", "discarded", "lost_packets", "first", "last"):
    assert run[k] == joined[k], (k, run[k], joined[k])
assert len(run["chunks"]) == n and len(run["seams"]) == n - 1, (len(run["chunks"]), len(run["seams"]))
assert all(s["lost_packets"] == 0 and not s["chunks_missing"] for s in run["seams"]), run["seams"]
PY
"$evcat" --count "$out/kept" > /dev/null || die "evcat on the chunks retention kept fails"
# --from/--to: only the chunks the times overlap are opened; the events are the joined trace's.
read -r from to <<< "$(chunks "$out/shipped" | sed -n '10p;12p' | python3 -c '
import sys
def t(s):
    return "%s-%s-%sT%s:%s:%s.%s" % (s[0:4], s[4:6], s[6:8], s[9:11], s[11:13], s[13:15], s[16:22])
names = sys.stdin.read().split()
print(t(names[0].split("-")[0]), t(names[1].split("-")[1]))')"
"$evcat" --stats --format json --from "$from" --to "$to" "$out/shipped" > "$out/range.json"
nrange=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["chunks"]), d["events"])' "$out/range.json")
[ "${nrange%% *}" -ge 3 ] && [ "${nrange%% *}" -le 5 ] || die "--from $from --to $to opened ${nrange%% *} chunks (want 3 to 5)"
[ "${nrange##* }" = "$("$evcat" --count --from "$from" --to "$to" "$out/joined")" ] || die "--from/--to on the run and on the joined trace differ"
echo "evcat: the run reads as the joined trace; --from/--to opened ${nrange%% *} of $shipped chunks"

# (2) Interval and hotplug.
n=$(chunks "$out/intv" | wc -l)
[ "$n" -ge 5 ] || die "--rotate-interval 700ms made $n chunks"
for c in $(chunks "$out/intv"); do check_chunk "$out/intv/$c"; done
sums_match "$out/intv" "$out/intv.stats" || die "interval: the chunks do not add up to the module's counts"
concat "$out/intv" "$out/intv-joined"
"$evtest" check "$out/intv-joined" > /dev/null || die "interval: the joined chunks repeat events"
# Each chunk starts with its own state dump; the LTTng analyses read one alone.
for c in $(chunks "$out/intv"); do
	babeltrace2 "$out/intv/$c" 2> /dev/null | grep -q lttng_statedump_start || die "$c: no state dump"
done
c=$(chunks "$out/intv" | sed -n 3p)
lttng-cputop --no-intersection --skip-validation "$out/intv/$c" > "$out/cputop.txt" 2>&1 || { cat "$out/cputop.txt"; die "lttng-cputop on $c fails"; }
! grep -q 'Error\|Traceback' "$out/cputop.txt" || { cat "$out/cputop.txt"; die "lttng-cputop on $c"; }
echo "interval: $n chunks with CPU 1 offline and back; counts exact; each has its state dump"

# (3) SIGKILL and --attach.
grep -q 'left in progress by an earlier evdrain, completed' "$out/kill.out" || die "the killed evdrain's chunk was not completed"
n=$(chunks "$out/killed" | wc -l)
ls -A "$out/killed" | grep -vE "$name_re" | grep -v '^\.hooked$' && die "the killed run left something else than complete chunks"
# Every chunk got its hook, those the killed evdrain left behind from the next one.
for c in $(chunks "$out/killed"); do
	grep -qx "${c##*-}" "$out/hooked.log" || die "$c: its hook never ran"
done
behind=$(( $(chunks "$out/killed" | wc -l) - $(sort -u "$out/hooked-before.log" | wc -l) ))
for c in $(chunks "$out/killed"); do check_chunk "$out/killed/$c" losses; done
# Events the rings discarded while no drainer ran: the summaries and babeltrace2 say as many as the module.
disc=$(python3 -c '
import json, os, re, sys
d = sys.argv[1]
print(sum(json.load(open(os.path.join(d, c, "summary.json")))["discarded"] for c in os.listdir(d)
          if re.match(r"^\d{8}T\d{6}\.\d{6}Z-\d{8}T\d{6}\.\d{6}Z-\d+$", c)))' "$out/killed")
[ "$disc" = "$(stats_sum "$out/kill.stats" 5)" ] || die "the chunks' summaries count $disc discarded, the module $(stats_sum "$out/kill.stats" 5)"
concat "$out/killed" "$out/killed-joined"
"$evtest" check "$out/killed-joined" > "$out/killed.check" || die "SIGKILL + --attach: events repeated"
lost=$(sed -n 's/^packets lost //p' "$out/killed.check")
if [ "$lost" = 0 ]; then
	sums_match "$out/killed" "$out/kill.stats" || die "SIGKILL: nothing lost, yet the counts differ"
fi
echo "SIGKILL + --attach: $n chunks, the one left in progress completed; $lost packets lost at the kill, $disc events discarded meanwhile (as the module counts);"
echo "  every chunk hooked ($behind of them after the restart)"

# (4) Full disk.
# The chunk being written when the disk filled: gone if nothing was in it, else left hidden and said.
for p in "$out"/full/.inprogress-*; do
	[ -e "$p" ] || continue
	grep -q "$(basename "$p"): .*stays under its temporary name" "$out/full.out" || die "$p left and not reported"
done
n=$(chunks "$out/full" | wc -l)
[ "$n" -ge 1 ] || die "no chunk completed before the disk filled"
for c in $(chunks "$out/full"); do check_chunk "$out/full/$c"; done
echo "full disk: exit 6, $n complete chunks read, a partial one reported if left"

# (5) --max-total: the directory stays within it.
bytes=$(cat "$out/capped.du")
n=$(chunks "$out/capped" | wc -l)
python3 - "$out/capped.json" <<'PY' || die "--max-total removed nothing"
import json, sys
c = json.load(open(sys.argv[1]))['chunks']
assert c['deleted'] > 0 and c['errors'] == 0, c
PY
[ "$bytes" -le $((2 * 1024 * 1024)) ] || die "--max-total 2M: the chunks take $bytes bytes"
for c in $(chunks "$out/capped"); do check_chunk "$out/capped/$c"; done
echo "max-total: $n chunks in $bytes bytes (at most 2 MiB)"

# (6) Two evctl rotate, nothing else: three chunks, the events of each round in one.
n=$(chunks "$out/manual" | wc -l)
[ "$n" = 3 ] || die "evctl rotate twice made $n chunks, not 3"
for c in $(chunks "$out/manual"); do
	check_chunk "$out/manual/$c"
	g=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events_per_channel"]["compact"])' "$out/manual/$c/summary.json")
	[ "$g" = 4000 ] || die "$c: $g compact events, not one round's 4000"
done
# The documented log hook: one line of JSON with the path.
c=$(chunks "$out/manual" | head -n 1)
"$top/userspace/dist/hooks/evtrace-chunk-log" "$out/manual/$c" > "$out/log-hook.txt"
[ "$(wc -l < "$out/log-hook.txt")" = 1 ] || die "evtrace-chunk-log printed $(wc -l < "$out/log-hook.txt") lines"
python3 - "$out/log-hook.txt" "$out/manual/$c" <<'PY' || die "evtrace-chunk-log does not print the summary as JSON"
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["path"] == sys.argv[2] and d["events"] == json.load(open(sys.argv[2] + "/summary.json"))["events"], d
PY
echo "evctl rotate: 3 chunks of one round each; evtrace-chunk-log prints JSON"
# A slow hook that fails every other chunk (no retries), --keep 1: no chunk
# is removed under its hook, and none that is not shipped (--keep never
# takes one: the failed ones stay).
! grep -q MISSING "$out/slow.log" || die "retention removed a chunk while its hook ran: $(grep -m1 MISSING "$out/slow.log")"
python3 - "$out/slow.json" "$out/slow.log" "$out/slow.ls" <<'PY' || die "the hook accounting"
import json, re, sys
c = json.load(open(sys.argv[1]))["chunks"]
ran = [int(l) for l in open(sys.argv[2]) if l.strip().isdigit()]
left = sorted(int(n.split("-")[-1]) for n in open(sys.argv[3]).read().split() if re.match(r"^\d{8}T", n))
failed = sorted(s for s in ran if s % 2)
assert c["hooks_run"] == len(ran) > 0 and c["hooks_retried"] == 0, (c, ran)
assert c["hooks_failed"] == c["hooks_given_up"] == len(failed), (c, ran)
assert c["hooks_skipped"] == 0 and c["removed_unshipped"] == 0 and c["hook_queue_max"] > 1, c
assert c["completed"] == c["hooks_run"] + c["hooks_not_run"], c
assert set(failed) <= set(left), ("a chunk whose hook failed was removed", failed, left)
print("slow hook, --keep 1: %(completed)d chunks, %(hooks_run)d hooked (%(hooks_failed)d failed), none removed "
      "unshipped; queue at most %(hook_queue_max)d" % c, "; %d failed chunks kept" % len(failed))
PY
grep -q 'on-chunk /tmp/failhook .*: exit status 1' "$out/slow.out" || die "a failed hook is not logged"

# (7) A hook that fails twice then succeeds ships every chunk, in order, on its third run.
python3 - "$out/flaky.json" "$out/flaky.log" "$out/flaky-shipped" "$out/flaky.ls" <<'PY' || die "the retried hook"
import json, os, re, sys
c = json.load(open(sys.argv[1]))["chunks"]
runs = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if l.strip()]
shipped = sorted(os.listdir(sys.argv[3]), key=lambda n: int(n.split("-")[-1]))
n = c["completed"]
assert n >= 3 and c["hooks_given_up"] == 0 and c["removed_unshipped"] == 0 and c["hooks_skipped"] == 0, c
assert c["hooks_run"] == 3 * n and c["hooks_retried"] == 2 * n and c["hooks_failed"] == 2 * n, c
assert [int(s.split("-")[-1]) for s in shipped] == list(range(n)), shipped
assert [(s, a) for s, a, f in runs] == [(s, a) for s in range(n) for a in (1, 2, 3)], runs
assert [f for s, a, f in runs] == [0] * (3 * n - 3) + [1] * 3, ("EVT_CHUNK_FINAL", runs)
for name in shipped:
    d = json.load(open(os.path.join(sys.argv[3], name, "summary.json")))
    assert d["final"] == (name == shipped[-1]), (name, d["final"])
kept = [l for l in open(sys.argv[4]).read().split() if re.match(r"^\d{8}T", l)]
assert len(kept) == 1, ("--keep 1 once every chunk is shipped", kept)
print("flaky hook: %d chunks, each shipped on its 3rd run (%d retries), in order; the last one final" % (n, c["hooks_retried"]))
PY
grep -q 'on-chunk /tmp/flaky .*: exit status 1 (run 2)' "$out/flaky.out" || die "a failed retry is not logged"

# (8) Unshipped chunks go only when --max-total forces them, said; (9) the next evdrain ships what is left.
python3 - "$out/forced.json" "$out/forced.ls" "$out/reship.log" <<'PY' || die "--max-total and unshipped chunks"
import json, re, sys
c = json.load(open(sys.argv[1]))["chunks"]
left = [l for l in open(sys.argv[2]).read().split() if re.match(r"^\d{8}T", l)]
reshipped = open(sys.argv[3]).read().split()
assert c["removed_unshipped"] > 0 and c["removed_unshipped"] == c["deleted"], c
assert c["hooks_given_up"] == c["completed"] - c["hooks_skipped"] - c["hooks_not_run"], c
assert c["hooks_run"] == 2 * c["hooks_given_up"] and c["hooks_retried"] == c["hooks_given_up"], c
assert left and set(left) <= set(reshipped), ("the next evdrain ships the chunks left", left, reshipped)
assert reshipped[:len(left)] == sorted(left, key=lambda n: int(n.split("-")[-1])), ("oldest first", reshipped, left)
print("failing hook, --max-total: %d chunks, %d removed unshipped (forced);" % (c["completed"], c["removed_unshipped"]),
      "the next evdrain shipped the %d left first" % len(left))
PY
grep -q 'retention: removed .* before its hook succeeded (--max-total)' "$out/forced.out" || die "a forced removal is not said"

# The fleet (issue 47): the interval run's chunks and two synthetic hosts'
# loaded into a real 2-shard ClickHouse cluster, every query of
# docs/fleet.md compared with evstat (on the host: no boot of its own).
bash "$here/fleet-cluster.sh" "$out/intv" || die "the fleet on ClickHouse"
