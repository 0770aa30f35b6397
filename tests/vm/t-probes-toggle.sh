#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# Single-threaded TCG (vm-run --tcg-single): multi-threaded TCG, even qemu 10,
# can leave a vCPU executing an int3 the kernel has already patched away when
# text is patched again and again under running vCPUs ("Oops: int3" in
# syscall_trace_enter on 6.12 at 4 vCPUs within 300 rounds): that is the
# emulator's, not what this test is about. With the vCPUs taking turns on one
# host thread the patching is coherent and the module's attach/detach path is
# what is tested, its CPUs still interleaved at any instruction boundary.
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --tcg-single --timeout 300 "$here/guest-probes-toggle.sh" 20
# The traces the guest drained, decoded here (nllib.sh's nl_stop_drain_then_exact):
# every event the module recorded while churning was read, and the last
# generator run is in its trace exactly once.
"$evtest" check "$out/churn" > "$out/churn.check" || { tail -n 5 "$out/churn.check"; die "evtest check fails on the churned trace"; }
churn=$(stats_sum "$out/churn.stats" 4)
read_back=$(sed -n 's/^total events \([0-9]*\).*/\1/p' "$out/churn.check")
[ "$read_back" = "$churn" ] || die "the module recorded $churn events while churning, the trace holds $read_back"
[ "$(bt_count "$out/churn")" = "$churn" ] || die "babeltrace2 does not count the $churn events of the churned trace"
"$evtest" check "$out/final" --gen-events 5000 --exact > "$out/final.check" || { tail -n 5 "$out/final.check"; die "the last generator run is not in its trace exactly once"; }
final=$(( $(stats_sum "$out/final.stats" 4) - churn ))
[ "$(bt_count "$out/final")" = "$final" ] || die "babeltrace2 counts '$(bt_count "$out/final")' events in the last run, the module recorded $final"
echo "churned trace: $churn events recorded = read back = babeltrace2's; last run: every generator event once ($final events)"
echo "every probe detached and attached 20 times under load: still tracing exactly"
