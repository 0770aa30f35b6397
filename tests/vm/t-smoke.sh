#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2 4
# Load and unload the module; the guest side checks dmesg and sysfs, the host
# side checks that $OUT came back.
set -eu
here=$(dirname "$0")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$here/../../scripts/vm-run" --smp "${SMP:-2}" --out "$out" "$here/guest-smoke.sh"
grep -qx "loaded on ${SMP:-2} CPUs" "$out/smoke.txt"
