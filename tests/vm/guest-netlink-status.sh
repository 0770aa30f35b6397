#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evctl status against the generator over netlink: per channel and CPU,
# recorded + discarded + too_big + refused == generated exactly, the same
# counters as debugfs, the same numbers in --json; configuration set with
# evctl config reads back; a disabled event is neither generated nor
# recorded. Then 600 fake CPUs' rings (debugfs status_fake_cpus): all of
# them arrive, as root and as nobody, and the real figures stay right.
. "$EVTRACE_TESTS/vm/lib.sh"
. "$EVTRACE_TESTS/vm/nllib.sh"
set -e
insmod "$EVTRACE_KO" subbuf_size=4096 num_subbuf=16 flush_ms=0
nl_generator_only
evctl config mode=discard high_water=80 flush_ms=250
evctl status > /tmp/st
cat /tmp/st
grep -q '^state  *stopped$' /tmp/st || fail "not stopped"
grep -q '^mode  *discard$' /tmp/st || fail "mode"
grep -q '^high_water  *80%$' /tmp/st || fail "high_water did not read back"
grep -q '^flush_ms  *250$' /tmp/st || fail "flush_ms did not read back"
grep -q '^sub-buffers  *16 x 4096 bytes' /tmp/st || fail "sub-buffer geometry"
[ "$(grep -c '^gen  ' /tmp/st)" -eq "$(grep -c ^processor /proc/cpuinfo)" ] || fail "a generator row per CPU"

# Flat out on every CPU, both channels, nobody reading: the rings fill and
# discard, and every event offered is still accounted for.
evctl start
evctl status | grep -q '^state  *tracing$' || fail "not tracing"
evctl generate --events 20000 --rate 0 --channel both --sizes mix
nl_wait_gen_done 300
evctl stop
nl_check_exact
nl_same_as_debugfs
[ "$(nl_ring_sum compact 5)" -gt 0 ] || fail "nothing discarded with nobody reading"
[ "$(nl_gen_sum normal)" -eq $((20000 * $(grep -c ^processor /proc/cpuinfo))) ] || fail "normal generated"

# gen_compact_wide off: of 4000 mixed compact events (every 4th wide) the
# generator offers 3000; accounting stays exact.
evctl disable gen_compact_wide
evctl status | grep -q '^  gen_compact_wide  *compact  *no  *no$' || fail "gen_compact_wide still enabled"
before=$(nl_gen_sum compact)
evctl start
evctl generate --events 4000 --rate 0 --channel compact --sizes mix --cpus 0
nl_wait_gen_done 300
evctl stop
after=$(nl_gen_sum compact)
[ $((after - before)) -eq 3000 ] || fail "generated $((after - before)) compact events, not 3000, with gen_compact_wide disabled"
nl_check_exact
nl_same_as_debugfs
evctl enable all
evctl status | grep -q '^  gen_compact_wide  *compact  *yes  *no$' || fail "enable all"
evctl status | grep -q '^  [a-z_*]*  *[a-z]*  *no$' && fail "enable all left some disabled"
nl_generator_only

# The JSON document says what the table says.
evctl status > "$OUT/status.txt"
evctl status --json > "$OUT/status.json"
cat "$OUT/status.json"
sed -n 's/^ *{"channel": "\([a-z]*\)", "cpu": \([0-9]*\), "online": \([a-z]*\), "recorded": \([0-9]*\), "discarded": \([0-9]*\), "overwritten": \([0-9]*\), "too_big": \([0-9]*\), "refused": \([0-9]*\), "produced": \([0-9]*\).*/\1 \2 \3 \4 \5 \6 \7 \8 \9/p' \
	"$OUT/status.json" | sed 's/ true / yes /; s/ false / no /' | sort > /tmp/j
awk '($1 == "compact" || $1 == "normal") && $2 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6, $7, $8, $9 }' \
	"$OUT/status.txt" | sort > /tmp/t
[ -s /tmp/t ] && cmp -s /tmp/j /tmp/t || { cat /tmp/j /tmp/t; fail "JSON and table differ"; }
grep -q '^  "state": "stopped",$' "$OUT/status.json" || fail "JSON state"
grep -q '"config": {"mode": "discard", "high_water": 80, "flush_ms": 250, "subbuf_size": 4096, "num_subbuf": 16}' \
	"$OUT/status.json" || fail "JSON config"
nproc_=$(grep -c ^processor /proc/cpuinfo)
echo "$nproc_" > "$OUT/ncpu"

# More rings than any machine here has: the root-only test hook makes STATUS
# report the rings of 600 fake CPUs too (1,200 entries of about 140 bytes,
# far past the 65,535 bytes a nest's 16-bit length can say). Every real ring
# must still match debugfs; every fake entry must arrive, intact, kept apart
# (counted, in the JSON's fake_rings, never in the table); nobody gets the
# same. The host checks every fake entry's figures.
[ -e "$D/status_fake_cpus" ] || fail "no test hook $D/status_fake_cpus"
echo 4097 > "$D/status_fake_cpus" 2>/dev/null && fail "status_fake_cpus took 4097 (at most 4096)"
echo 600 > "$D/status_fake_cpus"
evctl status > /tmp/big || fail "evctl status with 600 fake CPUs"
head -8 /tmp/big
grep -q '^fake rings  *1200 synthetic entries from the test hook' /tmp/big ||
	fail "evctl status does not count the 1200 fake rings"
[ "$(awk '($1 == "compact" || $1 == "normal") && $2 ~ /^[0-9]+$/' /tmp/big | wc -l)" -eq $((2 * nproc_)) ] ||
	fail "the ring table holds other than the $((2 * nproc_)) real rings"
nl_same_as_debugfs
evctl status --json > "$OUT/big.json" || fail "evctl status --json with 600 fake CPUs"
nopriv evctl status > /tmp/big-nopriv || fail "nobody's evctl status with 600 fake CPUs"
cmp -s /tmp/big /tmp/big-nopriv || { diff /tmp/big /tmp/big-nopriv | head; fail "nobody's status differs"; }
nopriv evctl status --json > "$OUT/big-nopriv.json" || fail "nobody's evctl status --json"
# The raw dump: every message's attributes tile it (no wrapped length).
evnl --dump status > "$OUT/big-evnl.txt" || fail "STATUS as a dump: $(cat "$OUT/big-evnl.txt")"
cat "$OUT/big-evnl.txt"
echo 0 > "$D/status_fake_cpus"
evctl status > /tmp/st
grep -q '^fake' /tmp/st && fail "fake rings reported after the hook went back to 0"
cmp -s /tmp/st "$OUT/status.txt" || { diff "$OUT/status.txt" /tmp/st | head; fail "status changed"; }
rmmod evtrace
echo netlink status ok
