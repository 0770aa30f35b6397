#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2 4
# vm-boot: recorder
# Load and unload the module; the guest side checks dmesg and sysfs, the host
# side checks that $OUT came back. At 4 vCPUs too: the module's per-CPU rings
# and its "loaded on N CPUs" line are what the CPU count changes.
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-smoke.sh"
grep -qx "loaded on ${SMP:-2} CPUs" "$out/smoke.txt" || die "smoke.txt: $(cat "$out/smoke.txt")"
