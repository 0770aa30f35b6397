# SPDX-License-Identifier: GPL-2.0
# Helpers for guest scripts (busybox sh). Source with: . "$EVTRACE_TESTS/vm/lib.sh"
D=/sys/kernel/debug/evtrace

fail() { echo "FAIL: $*"; exit 1; }

# expect_refusal STATUS WORDS COMMAND...: COMMAND (60 s at most) exits with STATUS and
# WORDS are in its stderr (printed).
expect_refusal() {
	want=$1 words=$2
	shift 2
	rc=0
	timeout 60 "$@" > /tmp/x.out 2> /tmp/x.err || rc=$?
	cat /tmp/x.err
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, not $want"
	grep -q "$words" /tmp/x.err || fail "'$*': no '$words' in its message"
}

# Wait until every generator thread is done (or time out, in seconds).
wait_gen_done() {
	t=0
	# Columns: cpu running done ...; counts of 1 and 0 must not look like flags.
	while awk 'NR > 1 && $2 == 1 && $3 == 0 { busy = 1 } END { exit !busy }' "$D/generate" 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		[ "$t" -lt "${1:-120}" ] || fail "generator still running after ${1:-120}s"
	done
}

# Per CPU and channel: generated == recorded + discarded + too_big + refused
# + filtered (the task filter's, evctl track).
# Only valid when the generator is the only source and did not migrate.
check_exact() {
	exact_report || fail "accounting is not exact"
}

# The same check, reported instead of fatal: prints each ring's figures and a
# MISMATCH line per difference, status 1 if there is one. "exact_report total"
# compares per channel over all CPUs (a generator thread that migrated when
# its CPU went away recorded on another CPU).
exact_report() {
	cat "$D/stats" > /tmp/stats
	cat "$D/generate" > /tmp/gen
	awk -v total="${1:-}" '
	FNR == 1 { file++ }
	file == 1 && $1 ~ /^[0-9]+$/ {
		k = total ? "all" : $1
		gen["compact", k] += $4
		gen["normal", k] += $5
	}
	file == 2 && ($1 == "compact" || $1 == "normal") {
		k = total ? "all" : $2
		sum[$1, k] += $4 + $5 + $7 + $8 + $12
		if (!total)
			printf "%s cpu %s generated %d recorded %d discarded %d too_big %d refused %d filtered %d\n", $1, $2, gen[$1, $2] + 0, $4, $5, $7, $8, $12
	}
	END {
		for (key in sum) {
			split(key, a, SUBSEP)
			if (sum[key] != gen[key] + 0) {
				bad = 1
				printf "MISMATCH %s cpu %s: recorded + discarded + too_big + refused + filtered %d != generated %d\n", a[1], a[2], sum[key], gen[key] + 0
			}
		}
		exit bad
	}' /tmp/gen /tmp/stats
}

# Sum of one stats column (4 recorded, 5 discarded, 6 overwritten, 7 too_big,
# 8 refused, 11 skipped, 12 filtered) over a channel.
stat_sum() {
	awk -v ch="$1" -v col="$2" '$1 == ch { s += $col } END { print s + 0 }' "$D/stats"
}

# Wait up to SECONDS for a shell condition to hold; fail naming WHAT otherwise.
# Sleeps are no synchronisation: a debug kernel under TCG can take seconds to
# start a program, so every "is it ready yet" goes through here.
wait_until() {
	_secs=$1 _what=$2
	shift 2
	_t=0
	until "$@"; do
		[ "$_t" -lt $((_secs * 10)) ] || fail "$_what (after ${_secs}s)"
		sleep 0.1
		_t=$((_t + 1))
	done
}

# The first line of debugfs stats: "tracing 1 mode ...".
tracing_started() { head -n 1 "$D/stats" | grep -q '^tracing 1 '; }
tracing_stopped() { head -n 1 "$D/stats" | grep -q '^tracing 0 '; }
# A drainer (evdrain) is up: it holds its lock and has started tracing.
wait_tracing() { wait_until "${1:-60}" "tracing never started" tracing_started; }
# START sets tracing before it attaches the probes, one after another: wait
# until their count is above 0 and has not changed for 0.6 s, so that what
# runs next has every switch of its own recorded.
wait_probes() {
	_last=-1 _same=0 _t=0
	while [ "$_same" -lt 3 ]; do
		[ "$_t" -lt 300 ] || fail "the probes never settled (after 60s)"
		_n=$(sed -n 's/.* probes_attached \([0-9]*\).*/\1/p' "$D/stats")
		if [ "${_n:-0}" -gt 0 ] && [ "$_n" = "$_last" ]; then _same=$((_same + 1)); else _same=0; fi
		_last=$_n
		sleep 0.2
		_t=$((_t + 1))
	done
}
# The file exists and is not empty.
wait_file() { wait_until "${2:-60}" "no $1" test -s "$1"; }

# Every non-empty stream file of the trace directory $1 has its packet index
# file, sealed (byte 64, the flags: 1), and evcat reads it saying nothing (issue 46).
check_sealed_index() {
	for f in "$1"/compact_* "$1"/normal_*; do
		[ -s "$f" ] || continue
		i="$1/.evtrace-index/${f##*/}.idx"
		[ "$(od -An -tu1 -j64 -N1 "$i" 2>/dev/null | tr -d ' ')" = 1 ] || {
			date +%s; stat -c '%n %s %y' "$f" || true; ls -la --full-time "$1/.evtrace-index/" || true
			od -An -tx1 -N80 "$i" || true
			fail "$i: missing or not sealed"
		}
	done
	evcat "$1" --count > /dev/null 2> /tmp/idx.err || fail "evcat $1: exit $?"
	[ ! -s /tmp/idx.err ] || { cat /tmp/idx.err; fail "evcat $1 warned"; }
}
