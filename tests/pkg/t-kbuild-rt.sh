#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# skip-ok: make check-matrix installs the 6.12-rt headers, make check does not
# t-kbuild against the 6.12-rt headers (PREEMPT_RT): W=1, not a single warning,
# the syscall events of that kernel. Skipped (exit 77, run-tests' SKIP) where
# the headers are not installed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
if ! "$top/scripts/kernel-matrix" kver 6.12-rt > /dev/null 2>&1; then
	echo "SKIP: the 6.12-rt headers are not installed (make check-matrix installs them)"
	exit 77
fi
KBUILD_KERNELS=6.12-rt exec bash "$top/tests/pkg/t-kbuild.sh"
