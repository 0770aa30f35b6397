#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The module builds with W=1 and without a single warning against the 6.1 and
# 6.12 kernel headers (and 6.12-rt when its headers are installed: make
# check-matrix installs them). Any compiler or modpost output fails; kbuild's
# "Skipping BTF generation ... unavailability of vmlinux" notice is not a warning.
# KBUILD_KERNELS="6.1 6.12 6.12-rt" chooses the kernels (scripts/kernel-matrix labels).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernels=${KBUILD_KERNELS:-"6.1 6.12 6.12-rt"}
rc=0
for k in $kernels; do
	if ! kver=$(scripts/kernel-matrix kver "$k" 2>/dev/null); then
		if [ "$k" = 6.12-rt ] && [ -z "${KBUILD_KERNELS:-}" ]; then
			echo "$k: headers not installed (make check-matrix installs them): not built here"
			continue
		fi
		echo "FAIL: $k: no headers installed (scripts/deps installs 6.12, scripts/kernel-matrix install $k)"
		rc=1; continue
	fi
	start=$(date +%s)
	EVTRACE_KMOD_DIR=$tmp scripts/build-module "/lib/modules/$kver/build" W=1 > /dev/null 2> "$tmp/$k.log"
	brc=$?
	grep -v 'Skipping BTF generation for .* due to unavailability of vmlinux' "$tmp/$k.log" > "$tmp/$k.out" || true
	warnings=$(grep -c 'warning:' "$tmp/$k.out" || true)
	secs=$(( $(date +%s) - start ))
	if [ $brc -ne 0 ] || [ -s "$tmp/$k.out" ]; then
		echo "FAIL: $k ($kver): build exit $brc, $warnings warnings, W=1 (${secs}s):"
		sed 's/^/    /' "$tmp/$k.out" | head -n 60
		rc=1
	else
		echo "$k ($kver): built with W=1, 0 warnings (${secs}s), vermagic $(modinfo -F vermagic "$tmp/$kver/evtrace.ko" | cut -d' ' -f1-2)"
	fi
done
exit $rc
