#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-boot: recorder
# (vm-smp: at 4 vCPUs only: the merge (list and tree, threads) over 8 streams with losses on every CPU; 2 CPUs are a special case of it.)
# evcat on a real trace with losses: the generator flat out on every CPU
# into small rings (discard mode) while evdrain writes the trace (guest).
# On the host, evcat --count / --stats / text / json against babeltrace2
# (event count in all and per CPU, its "Tracer discarded N events" warnings
# in all, per CPU and per stream file) and against the module's own counters
# (recorded and discarded per CPU); evcat's merged output is globally
# time-ordered, its text is babeltrace2's line for line (as the unit test
# compares: deltas left out, equal timestamps in any order), and threads,
# the list merge and the tree merge give the same output.
set -eu
export LC_ALL=C
. "$(dirname "$0")/hostlib.sh"
evcat=$top/build/bin/evcat
[ -x "$evcat" ] || die "no $evcat (run make)"
vm --timeout 400 "$here/guest-evcat.sh"
trace=$out/trace
"$evtest" check "$trace"

# The module's counters, per CPU (both channels) and in all.
rec=$(stats_sum "$out/stats" 4)
disc=$(stats_sum "$out/stats" 5)
[ "$(stats_sum "$out/stats" 6)" = 0 ] || die "overwritten events in discard mode"
[ "$rec" -gt 0 ] && [ "$disc" -gt 0 ] || die "recorded $rec, discarded $disc: no losses to compare"
awk '$1 == "compact" || $1 == "normal" { r[$2] += $4; d[$2] += $5 }
     END { for (c in r) print c, r[c], d[c] }' "$out/stats" | sort > "$out/module.cpu"
# ... per stream file (channel_cpu): discarded
awk '$1 == "compact" || $1 == "normal" { print $1 "_" $2, $5 }' "$out/stats" | sort > "$out/module.stream"
echo "module: recorded $rec, discarded $disc; per CPU (cpu recorded discarded):"
cat "$out/module.cpu"

# --count: both merges, one thread and several.
for args in "" "--merge list" "--threads 1" "--threads 3 --slice-bytes 30000" "--merge list --threads 2"; do
	# shellcheck disable=SC2086
	n=$("$evcat" "$trace" --count $args)
	[ "$n" = "$rec" ] || die "evcat --count $args: $n events, the module recorded $rec"
done
bt=$(bt_count "$trace")
[ "$bt" = "$rec" ] || die "babeltrace2 counted '$bt' events, the module recorded $rec"
echo "count: evcat $n = babeltrace2 $bt = recorded $rec"

# babeltrace2's text and its warnings, read once.
babeltrace2 --clock-gmt "$trace" > "$out/bt.txt" 2> "$out/bt.err" || die "babeltrace2 failed: $(tail -n 3 "$out/bt.err")"
btd=$(grep -o 'Tracer discarded [0-9]* events\?' "$out/bt.err" | awk '{ s += $3 } END { print s + 0 }')
[ "$btd" = "$disc" ] || die "babeltrace2 reports $btd discarded events, the module counted $disc"
! grep -q 'discarded [0-9]* packets\?' "$out/bt.err" || die "babeltrace2 reports lost packets in discard mode"
# Per stream file, from "within stream \".../compact_3\"".
sed -n 's/.*Tracer discarded \([0-9]*\) events\{0,1\} .* within stream "[^"]*\/\([a-z]*_[0-9]*\)".*/\2 \1/p' "$out/bt.err" |
	awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort > "$out/bt.stream"
[ "$(awk '{ s += $2 } END { print s + 0 }' "$out/bt.stream")" = "$btd" ] ||
	die "could not attribute every babeltrace2 warning to a stream file: $(head -n 2 "$out/bt.err")"
join -a 1 -e 0 -o 0,1.2,2.2 "$out/module.stream" "$out/bt.stream" |
	awk '$2 != $3 { print "stream " $1 ": module discarded " $2 ", babeltrace2 reports " $3; bad = 1 } END { exit bad }' ||
	die "discarded events per stream file differ"

# --stats (json): totals and per CPU against the module and babeltrace2.
"$evcat" "$trace" --stats --format json > "$out/stats.json"
grep -q "^{\"schema\":\"evtrace.cat-stats/1\",\"events\":$rec,.*\"discarded\":$disc,\"lost_packets\":0," "$out/stats.json" ||
	die "evcat --stats totals are not events $rec, discarded $disc, no packet lost: $(cut -c1-300 "$out/stats.json")"
grep -o '{"cpu":[0-9]*,"events":[0-9]*,"discarded":[0-9]*,"lost_packets":[0-9]*' "$out/stats.json" |
	tr -c '0-9\n' ' ' | awk '{ print $1, $2, $3 }' | sort > "$out/evcat.cpu"
# babeltrace2's events per CPU (from the cpu_id context of each line) and
# discarded per CPU (its warnings' stream files).
sed -n 's/.*{ cpu_id = \([0-9]*\) }.*/\1/p' "$out/bt.txt" | sort | uniq -c | awk '{ print $2, $1 }' | sort > "$out/bt.cpuev"
sed 's/^[a-z]*_//' "$out/bt.stream" | awk '{ s[$1] += $2 } END { for (c in s) print c, s[c] }' | sort > "$out/bt.cpudisc"
echo "per CPU: cpu, module recorded/discarded, evcat --stats events/discarded, babeltrace2 events/discarded"
join -a 1 -e 0 -o 0,1.2,1.3,2.2,2.3 "$out/module.cpu" "$out/evcat.cpu" |
	join -a 1 -e 0 -o 0,1.2,1.3,1.4,1.5,2.2 - "$out/bt.cpuev" |
	join -a 1 -e 0 -o 0,1.2,1.3,1.4,1.5,1.6,2.2 - "$out/bt.cpudisc" > "$out/cmp.cpu"
cat "$out/cmp.cpu"
[ "$(wc -l < "$out/cmp.cpu")" = "$SMP" ] || die "expected $SMP CPUs in the module's stats"
awk '!($2 == $4 && $4 == $6 && $3 == $5 && $5 == $7) { print "cpu " $1 " differs"; bad = 1 }
     $2 == 0 { print "cpu " $1 " recorded nothing"; bad = 1 } END { exit bad }' "$out/cmp.cpu" ||
	die "per-CPU counts differ (or a CPU recorded nothing)"
# --stats (text): the same rows and the losses line.
"$evcat" "$trace" --stats > "$out/stats.txt"
grep -q "^losses: $disc events discarded (events_discarded), 0 packets lost" "$out/stats.txt" ||
	die "evcat --stats: $(grep losses "$out/stats.txt")"
awk 'NF == 5 && $1 ~ /^[0-9]+$/ { print $1, $2, $3 }' "$out/stats.txt" | sort | cmp -s - "$out/evcat.cpu" ||
	die "evcat --stats text rows differ from its JSON"

# Text: babeltrace2's lines once its "HOST name: { cpu_id = N }, { ... }" and
# evcat's "TASK [00N] name: { ... }" are both put as "cpu N name: { ... }", without the deltas, sorted (equal
# timestamps on different CPUs may come in another order).
sed -E 's/^(\[[^]]*\]) \([^)]*\) ([^ ]+ )?([a-z_0-9]+): \{ cpu_id = ([0-9]+) \}, \{/\1 cpu \4 \3: {/;
	s/^(\[[^]]*\]) \([^)]*\) ([^ ]+ )?([a-z_0-9]+): \{ cpu_id = ([0-9]+) \}$/\1 cpu \4 \3: { }/' "$out/bt.txt" |
	LC_ALL=C sort > "$out/bt.sorted"
"$evcat" "$trace" > "$out/evcat.txt"
[ "$(wc -l < "$out/evcat.txt")" = "$rec" ] || die "evcat printed $(wc -l < "$out/evcat.txt") lines, not $rec"
# evcat's "TASK [CPU] name:" (comm/tid, ?/? here: no scheduler events) as "cpu N name:".
sed -E 's/^(\[[^]]*\]) \([^)]*\) .*\/[-?0-9]+ \[0*([0-9]+)\] ([a-z_0-9]+): /\1 cpu \2 \3: /' "$out/evcat.txt" |
	LC_ALL=C sort > "$out/evcat.sorted"
if ! cmp -s "$out/bt.sorted" "$out/evcat.sorted"; then
	diff "$out/bt.sorted" "$out/evcat.sorted" | head -n 10
	die "evcat's text differs from babeltrace2's"
fi
# Every event kind the generator makes is there, fields and all.
for e in gen_compact gen_compact_wide gen_normal; do
	grep -q " cpu [0-9]* $e: {" "$out/evcat.sorted" || die "no $e event in evcat's output"
done

# Globally time-ordered: the raw clock value never goes back, and the text
# deltas are never negative.
"$evcat" "$trace" --format json > "$out/evcat.json"
[ "$(wc -l < "$out/evcat.json")" = "$rec" ] || die "evcat --format json: not $rec lines"
awk -F'"ts":' '{ split($2, a, ","); ts = a[1] + 0; if (NR > 1 && ts < prev) { print "line " NR " goes back"; bad = 1; exit } prev = ts }
     END { exit bad }' "$out/evcat.json" || die "evcat's merged output is not time-ordered"
! grep -q '^\[[^]]*\] (-' "$out/evcat.txt" || die "a negative delta in evcat's text"
# The same bytes on threads, in small slices, and with the list merge.
for args in "--threads 1" "--threads 4 --slice-bytes 20000" "--merge list --threads 2 --slice-bytes 50000"; do
	# shellcheck disable=SC2086
	"$evcat" "$trace" $args | cmp -s - "$out/evcat.txt" || die "evcat $args prints another text"
done
echo "evcat: $rec events on $SMP CPUs (discarded $disc) = babeltrace2 and the module in all and per CPU;" \
	"text = babeltrace2's; time-ordered; threads and merges agree"
