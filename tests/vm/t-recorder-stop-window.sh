#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: windows
set -eu
. "$(dirname "$0")/hostlib.sh"
# The fault-injection build, against the kernel the VM boots.
kdir=${EVTRACE_VM_KDIR:-$("$top/scripts/find-kdir")}
ko=$(EVTRACE_KMOD_DIR="$top/build/kmod-windows" "$top/scripts/build-module" "$kdir" EVT_TEST_WINDOWS=y)
vm --module "$ko" "$here/guest-stop-window.sh"
