#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: control
set -eu
. "$(dirname "$0")/hostlib.sh"
# FUZZ_SEED=N repeats a run (the seed is printed on the console).
vm --timeout 600 "$here/guest-netlink-fuzz.sh" ${FUZZ_SEED:+"$FUZZ_SEED"}
f=$out/fuzz.txt
n=$(sed -n 's/^evfuzz: fuzzed \([0-9]*\) messages.*/\1/p' "$f")
[ "${n:-0}" -ge 10000 ] || die "only ${n:-0} messages fuzzed"
ok=$(sed -n 's/.* \([0-9]*\) succeeded,.*/\1/p' "$f")
[ "${ok:-0}" -gt 0 ] || die "no fuzzed request succeeded: the handlers were not reached"
for e in EINVAL ERANGE EOPNOTSUPP; do
	grep -q "^evfuzz: $e " "$f" || die "no $e among the replies: the fuzzer missed a class of errors"
done
grep -q '^evfuzz: EPERM ' "$out/fuzz-nopriv.txt" || die "the unprivileged fuzzer was never refused"
# The clean run after the fuzzing: every (cpu, seq) once, babeltrace2 agrees.
"$evtest" check "$out/trace" --gen-events 12000 --exact
rec() { awk '($1 == "compact" || $1 == "normal") && $2 ~ /^[0-9]+$/ { s += $4 } END { print s + 0 }' "$1"; }
recorded=$(( $(rec "$out/after.txt") - $(rec "$out/before.txt") ))
bt=$(bt_count "$out/trace")
[ "$bt" = "$recorded" ] || die "babeltrace2 counted '$bt' events, the tracer recorded $recorded after the fuzzing"
echo "$n fuzzed messages (and 2000 unprivileged); then $recorded events traced, every one read back"
