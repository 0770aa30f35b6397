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
check_churned_traces
echo "every probe detached and attached 20 times under load: still tracing exactly"
