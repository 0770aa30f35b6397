#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# Triggers: see guest-trigger.sh. The run ends in 125 by design (the fault
# module's reports are kernel reports): here every line vm-run reported must
# be one of them, and the guest must have finished its checks. Then each
# snapshot is read alone by babeltrace2, evcat and evtest; trigger 1's holds
# the ring's content before the report; the events saved add up to the
# module's counters (snapshot-check.py); no ring trigger 2 held overwrote a
# packet while a plain snapshot came and expired; the snapshot taken with
# CPU 1 stuck holds what its rings had closed. On the debug kernel (KASAN)
# the first report is a KASAN slab-out-of-bounds write, else a WARN.
set -eu
. "$(dirname "$0")/hostlib.sh"

build_faultmod
fault=warn
[ "$debug" = 0 ] || fault=kasan

cp "$mod/evt_fault.ko" "$out/"
rc=0
vm "$here/guest-trigger.sh" "$fault" > "$out.log" 2>&1 || rc=$?
trap 'rm -rf "$out" "$out.log"' EXIT
[ -f "$out/result" ] || { tail -n 60 "$out.log"; die "the guest did not finish its checks (vm-run exited $rc)"; }
[ "$rc" = 125 ] || { tail -n 40 "$out.log"; die "vm-run exited $rc, want 125 (the fault module's reports)"; }
# Every kernel line vm-run reported is the fault module's.
reported=$(sed -n '/^vm-run: FAIL: dmesg has kernel warnings:/,/^vm-run: dmesg from the first report on:/p' "$out.log" |
	sed '1d;$d')
# A report's call trace is its own (its frames are indented: "]  ? lockdep_...").
# The BUG() of the last case heads its oops "invalid opcode: 0000 [#1] ...
# KASAN ..." on the debug kernel (its config in the line), the first and only oops.
others=$(grep -vE 'WARNING: .*evt_fault|BUG: KASAN: slab-out-of-bounds in evt_fault|\] invalid opcode: 0000 \[#1\] |\] Call Trace:$|^\[ *[0-9.]+\]  ' <<<"$reported" || true)
[ -z "$others" ] || { echo "$reported"; die "vm-run reported other kernel lines: $others"; }
grep -q 'WARNING: .*evt_fault' <<<"$reported" || die "no WARN among: $reported"
# The oops of the last case (a BUG() in evt_fault, whose only line vm-run
# reports is its Call Trace), in the console's log.
grep -q 'kernel BUG at .*evt_fault.c' "$out.log" || die "no oops of evt_fault in the log"
[ "$fault" = warn ] || grep -q 'BUG: KASAN: slab-out-of-bounds in evt_fault' <<<"$reported" ||
	die "no KASAN report among: $reported"
awk '!seen[$0]++' <<<"$reported" | sed 's/^/kernel reported (expected): /'
# The checkers' boot banners (debug kernel), as proof for the lane's summary.
grep "^vm-run: kernel checkers:" "$out.log" || true

for d in "$out"/snap/* "$out/keep1"; do
	read_alone "$d" "$(basename "$d")"
done
python3 "$here/trigger-check.py" "$out" "$fault" "$out/hold-before.json" "$out/hold-after.json"
python3 "$here/snapshot-check.py" "$out" status.json t1 t2 rest --triggers "$out/triggers-1"
