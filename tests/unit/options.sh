#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every program's command line, as docs/exit-codes.md promises it: each
# option through both forms (--opt=value and --opt value, the same status),
# --help and --version everywhere, durations and sizes with units, an error
# in one line (an option's with its "try PROG --help" hint), the exit-code table (0 done, 1 failure,
# 2 usage, 4 module not loaded, 5 output directory, 7 events lost), and
# nothing made on disk before the module is found. No VM, no module: a few
# seconds (run by scripts/run-tests' unit lane).
# Usage: tests/unit/options.sh [BINDIR]   (default build/bin)
set -u
bin=${1:-build/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# expect STATUS PROG ARGS...: PROG ARGS exits STATUS; a usage error (2) is
# one line, naming the program (a list of names after it, indented, with
# list=1).
expect() {
	local want=$1 prog=$2 rc=0 lines
	shift 2
	n=$((n + 1))
	"$bin/$prog" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$prog $* exited $rc, not $want: $(head -c 400 "$tmp/err")"
		return
	fi
	if [ "$want" = 2 ]; then
		lines=$(grep -vc "^  " "$tmp/err")
		[ "${list:-0}" = 1 ] && lines=$(grep -v "^  " "$tmp/err" | grep -vc "^$prog: ")
		[ "${list:-0}" = 1 ] && lines=$((lines + 1))
		[ "$lines" = 1 ] && grep -q "^$prog: " "$tmp/err" ||
			fail "$prog $*: not one line naming $prog: $(head -c 400 "$tmp/err")"
	fi
}
# both STATUS PROG OPT VALUE ARGS...: PROG ARGS --opt=value and PROG ARGS
# --opt value exit STATUS.
both() {
	local want=$1 prog=$2 opt=$3 val=$4
	shift 4
	expect "$want" "$prog" "$@" "$opt=$val"
	expect "$want" "$prog" "$@" "$opt" "$val"
}
has() { # what the last command printed (stdout and stderr) holds $1
	grep -q -- "$1" "$tmp/out" "$tmp/err" || fail "no \"$1\" in: $(head -c 400 "$tmp/err")"
}
module_loaded() { [ -e /sys/module/evtrace ]; }

for p in evcat evstat evview evsynth evctl evdrain evexport; do
	expect 0 "$p" --help
	has "usage: $p"
	expect 0 "$p" --version
	grep -q "^$p [0-9]" "$tmp/out" || fail "$p --version printed: $(cat "$tmp/out")"
	expect 2 "$p" --no-such-option
	has "unknown option '\?--no-such-option"
done

# evsynth: the traces the readers read. Both forms give the same trace.
k=(--cpus 2 --events 20000 --kernel --quiet)
expect 0 evsynth "$tmp/k1" "${k[@]}" --period=2us --subbuf=16K --sim-threads=8 --seed=7
expect 0 evsynth "$tmp/k2" "${k[@]}" --period 2000 --subbuf 16384 --sim-threads 8 --seed 7
cmp -s <("$bin/evcat" "$tmp/k1") <("$bin/evcat" "$tmp/k2") || fail "evsynth: --opt=value and --opt value made different traces"
expect 0 evsynth "$tmp/k3" "${k[@]}" --threads 8
has "deprecated, say --sim-threads"
both 2 evsynth --cpus x "$tmp/z"
both 2 evsynth --period 1xs "$tmp/z"
both 2 evsynth --subbuf 1Q "$tmp/z"
expect 2 evsynth --quiet=1 "$tmp/z"
has "takes no value"
expect 2 evsynth --cpus
has "needs a value"
expect 0 evsynth "$tmp/lossy" --cpus 2 --events 200000 --stall-every 20000 --quiet
[ ! -e "$tmp/z" ] || fail "a refused evsynth made its directory"

d=$tmp/k1
# evcat
both 0 evcat --from 1ms "$d" --count
c1=$(cat "$tmp/out")
expect 0 evcat "$d" --from +0.001 --count
[ "$(cat "$tmp/out")" = "$c1" ] || fail "evcat --from 1ms and --from +0.001 differ"
both 0 evcat --to +2ms "$d" --count
both 0 evcat --format json "$d" --count
both 0 evcat --event sched_switch "$d" --count
both 0 evcat --cpu 0-1 "$d" --count
both 0 evcat --threads 2 "$d" --count
both 0 evcat --slice-bytes 1M "$d" --count
both 0 evcat --merge list "$d" --count
both 0 evcat --where 'ret < 0' "$d" --count
both 0 evcat --comm 'k*' "$d" --count
expect 0 evcat "$d" --list-events
[ "$(wc -l < "$tmp/out")" -gt 100 ] || fail "evcat --list-events: $(wc -l < "$tmp/out") names"
both 2 evcat --format xml "$d"
both 2 evcat --threads 0 "$d"
both 2 evcat --slice-bytes 0 "$d"
both 2 evcat --from 1parsec "$d"
expect 2 evcat --count=1 "$d"
has "takes no value"
expect 2 evcat "$d" --from
has "needs a value"
expect 2 evcat
list=1 expect 2 evcat "$d" --event nosuch
has "no event \"nosuch\""
# The names as a list, not ~900 on one line: a few lines, each short, and where the rest are.
[ "$(wc -l < "$tmp/err")" -le 30 ] && [ "$(wc -L < "$tmp/err")" -le 100 ] ||
	fail "evcat --event nosuch: $(wc -l < "$tmp/err") lines, the longest $(wc -L < "$tmp/err") bytes"
has "evcat DIR --list-events"
expect 1 evcat "$tmp/nonexistent"
expect 0 evcat "$d" --fail-on-loss --count
expect 7 evcat "$tmp/lossy" --fail-on-loss --count

# evstat
both 0 evstat --top 3 "$d" --no-saved
both 0 evstat --from 1ms "$d" --no-saved
both 0 evstat --by thread "$d" --no-saved
both 0 evstat --pid 1 "$d" --no-saved
both 0 evstat --hist sched "$d" --no-saved
both 2 evstat --top x "$d"
both 2 evstat --by nosuch "$d"
expect 2 evstat --json=yes "$d"
expect 2 evstat
expect 1 evstat "$tmp/nonexistent"

# evview: refused before it listens
both 2 evview --listen 1.2.3.4:x "$d"
both 2 evview --listen nohost:80 "$d"
both 1 evview --listen 127.0.0.1:0 "$tmp/nonexistent"
expect 2 evview --no-saved=1 "$d"

# evexport
both 2 evexport --tables nosuch "$d"
both 2 evexport --host '' "$d"
both 2 evexport -o "$tmp/nonexistent" "$d"

# evctl: checked before the kernel is asked
both 2 evctl --period-us 9 timer
has "wants microseconds"
both 2 evctl --period-us 1500ns timer
both 2 evctl --timeout 0 watch
has "wants whole seconds"
both 2 evctl --timeout 1.5 watch
both 2 evctl --count x watch
both 2 evctl --events 0 generate
has "wants a number"
both 2 evctl --trigger 0 snapshot -o "$tmp/s"
expect 2 evctl timer --period-us
has "needs a value"
# evdrain: options, then the directory, then the module
both 2 evdrain --duration 0 -o "$tmp/dr"
both 2 evdrain --duration 1parsec -o "$tmp/dr"
both 2 evdrain --rotate-interval 10ms -o "$tmp/dr"
both 2 evdrain --keep-ms 0 --snapshots "$tmp/sn"
both 2 evdrain --keep-mb 512K --snapshots "$tmp/sn"
both 2 evdrain --tick-ms 0 --live
expect 2 evdrain -x
has "unknown option -x"
expect 2 evdrain -o
has "needs a value"
expect 2 evdrain --quiet=1 -o "$tmp/dr"
has "takes no value"
expect 5 evdrain -o "$tmp/nonexistent/dr"
has "cannot create"
if module_loaded; then
	echo "SKIP: the evtrace module is loaded here: exit 4 and 'nothing made' are not checked"
else
	both 4 evctl --period-us 1ms timer
	has "module is not loaded"
	grep -Eq "modprobe evtrace|insmod " "$tmp/err" || fail "evctl: no load command in $(cat "$tmp/err")"
	expect 4 evctl status
	both 4 evctl --timeout 2m watch
	expect 4 evdrain -d 10s -o "$tmp/dr"
	both 4 evdrain --duration 10s -o "$tmp/dr"
	both 4 evdrain --duration 0.5 -o "$tmp/dr"
	both 4 evdrain --rotate-size 1M -o "$tmp/dr"
	both 4 evdrain --keep-ms 5s --snapshots "$tmp/sn"
	both 4 evdrain --keep-mb 2G --snapshots "$tmp/sn"
	both 4 evdrain --tick-ms 1s --live
	[ ! -e "$tmp/dr" ] || fail "evdrain -o made $(find "$tmp/dr") before finding the module missing"
fi

echo "options: $n runs, $fails failed"
[ "$fails" = 0 ]
