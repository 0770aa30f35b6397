# SPDX-License-Identifier: GPL-2.0
# Guest helpers for the netlink/evctl tests (busybox sh), after lib.sh:
#   . "$EVTRACE_TESTS/vm/lib.sh"; . "$EVTRACE_TESTS/vm/nllib.sh"

# Run a command, which must exit with status $1; its stdout and stderr are
# left in /tmp/out and /tmp/err. usage: expect CODE CMD [ARGS...]
expect() {
	want=$1
	shift
	"$@" > /tmp/out 2> /tmp/err && rc=0 || rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, not $want: $(cat /tmp/err)"
}

# The last command's stderr holds this text.
err_has() {
	grep -qF -- "$1" /tmp/err || fail "stderr lacks '$1': $(cat /tmp/err)"
}

# Wait until a backgrounded `evctl watch` (stderr in $1) has subscribed.
wait_watching() {
	t=0
	until grep -q 'watching evtrace notifications' "$1" 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		[ "$t" -lt "${2:-60}" ] || fail "evctl watch did not subscribe: $(cat "$1")"
	done
}

# Wait until no generator thread is still generating (per evctl status).
nl_wait_gen_done() {
	t=0
	while evctl status | awk '$1 == "gen" && $3 == "yes" && $4 == "no" { busy = 1 } END { exit !busy }'; do
		sleep 1
		t=$((t + 1))
		[ "$t" -lt "${1:-120}" ] || fail "generator still running after ${1:-120}s"
	done
}

# Per channel and CPU, from evctl status alone:
# generated == recorded + discarded + too_big + refused; with a file of an
# earlier evctl status as $1, for what happened since then.
nl_check_exact() {
	evctl status > /tmp/nlst || fail "evctl status failed"
	awk '
	FNR == 1 { file++ }
	# file 1 counts negatively (the baseline), file 2 positively.
	{ sign = (file == 1 && base) ? -1 : 1 }
	$1 == "gen" && $2 ~ /^[0-9]+$/ { gen["compact", $2] += sign * $5; gen["normal", $2] += sign * $6 }
	($1 == "compact" || $1 == "normal") && $2 ~ /^[0-9]+$/ {
		sum[$1, $2] += sign * ($4 + $5 + $7 + $8 + $12); rows++
		rec[$1, $2] += sign * $4; dis[$1, $2] += sign * $5; tb[$1, $2] += sign * $7; ref[$1, $2] += sign * $8
		fil[$1, $2] += sign * $12
	}
	END {
		for (k in sum) {
			split(k, p, SUBSEP)
			g = gen[p[1], p[2]] + 0
			printf "%s cpu %s generated %d recorded %d discarded %d too_big %d refused %d filtered %d\n", p[1], p[2], g, rec[k], dis[k], tb[k], ref[k], fil[k]
			if (sum[k] != g) { bad = 1; printf "MISMATCH %s cpu %s: %d != %d\n", p[1], p[2], sum[k], g }
		}
		if (!rows) { print "no ring rows in evctl status"; bad = 1 }
		exit bad
	}' base=$# ${1:+"$1"} /tmp/nlst || fail "evctl status: accounting is not exact${1:+ since $1}"
}

# Sum of the generator's counts for a channel (compact|normal) over CPUs.
nl_gen_sum() {
	evctl status | awk -v col="$([ "$1" = compact ] && echo 5 || echo 6)" \
		'$1 == "gen" && $2 ~ /^[0-9]+$/ { s += $col } END { print s + 0 }'
}

# Sum of a ring column (4 recorded, 5 discarded, ...) for a channel, per evctl.
nl_ring_sum() {
	evctl status | awk -v ch="$1" -v col="$2" \
		'$1 == ch && $2 ~ /^[0-9]+$/ { s += $col } END { print s + 0 }'
}

# evctl status and debugfs agree to the last counter (a quiet tracer).
nl_same_as_debugfs() {
	evctl status > /tmp/nlst || fail "evctl status failed"
	awk '($1 == "compact" || $1 == "normal") && $2 ~ /^[0-9]+$/ {
		$3 = ($3 == "yes") ? 1 : 0; sub(/%$/, "", $13); print }' /tmp/nlst | sort > /tmp/nl.rings
	awk '($1 == "compact" || $1 == "normal") { $1 = $1; print }' "$D/stats" | sort > /tmp/dbg.rings
	cmp -s /tmp/nl.rings /tmp/dbg.rings || {
		echo "evctl:"; cat /tmp/nl.rings; echo "debugfs:"; cat /tmp/dbg.rings
		fail "evctl status and debugfs stats differ"
	}
	awk '$1 == "gen" && $2 ~ /^[0-9]+$/ { print $2, ($3 == "yes"), ($4 == "yes"), $5, $6, $7 }' \
		/tmp/nlst | sort > /tmp/nl.gen
	awk '$1 ~ /^[0-9]+$/ { $1 = $1; print }' "$D/generate" | sort > /tmp/dbg.gen
	cmp -s /tmp/nl.gen /tmp/dbg.gen || {
		echo "evctl:"; cat /tmp/nl.gen; echo "debugfs:"; cat /tmp/dbg.gen
		fail "evctl status and debugfs generate differ"
	}
}

# Only the generator's events stay enabled (kernel tracepoints would add
# events the generator did not offer).
nl_generator_only() {
	evctl disable all || fail "evctl disable all"
	evctl enable gen_compact gen_compact_wide gen_normal || fail "evctl enable"
}

# After a test that churned the session: stop the drainer (pid $1, which
# drained into $OUT/churn), then one short generator run, drained into
# $OUT/final, must still be exact, and the module must unload. The host
# decodes both traces against the module's counters ($OUT/churn.stats,
# $OUT/final.stats): what was recorded is what was read, and the last run
# holds every generator event once (evtest --exact, babeltrace2's count), not
# only the module's counters against its own generator's.
nl_stop_drain_then_exact() {
	evctl stop
	kill -TERM "$1"
	wait "$1"
	cat "$D/stats" > "$OUT/churn.stats"
	nl_generator_only
	evctl status > /tmp/before
	evtest drain "$OUT/final" &
	_final=$!
	evctl start
	evctl generate --events 5000 --rate 0 --channel both --sizes mix
	nl_wait_gen_done 120
	evctl stop
	kill -TERM "$_final"
	wait "$_final"
	nl_check_exact /tmp/before
	cat "$D/stats" > "$OUT/final.stats"
	rmmod evtrace
}
