#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 64-bit only, and said so (issue 15, item 9): ring positions are byte counts
# in an unsigned long (on 32 bits the consumed word would wrap at 2 GiB, the
# first-lap test at 4 GiB). DKMS must not try other architectures
# (BUILD_EXCLUSIVE_ARCH, matched the way dkms matches it), and the portable
# core must refuse a 32-bit build with a message (gcc -m32).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
rc=0
# dkms sources dkms.conf with bash and tests [[ $arch =~ $BUILD_EXCLUSIVE_ARCH ]].
BUILD_EXCLUSIVE_ARCH=$(bash -c 'source ./dkms.conf >/dev/null 2>&1; printf %s "$BUILD_EXCLUSIVE_ARCH"')
[ -n "$BUILD_EXCLUSIVE_ARCH" ] || { echo "FAIL: dkms.conf sets no BUILD_EXCLUSIVE_ARCH"; exit 1; }
for a in x86_64 aarch64; do
	[[ $a =~ $BUILD_EXCLUSIVE_ARCH ]] || { echo "FAIL: DKMS would not build on $a"; rc=1; }
done
for a in i386 i686 armv7l arm mips x86_64x; do
	[[ $a =~ $BUILD_EXCLUSIVE_ARCH ]] && { echo "FAIL: DKMS would build on $a"; rc=1; }
done
echo "dkms.conf: BUILD_EXCLUSIVE_ARCH=$BUILD_EXCLUSIVE_ARCH (x86_64, aarch64 in; i386, i686, armv7l, arm, mips out)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if gcc -m32 -fsyntax-only -Iinclude -Ikmod/core -D_GNU_SOURCE kmod/core/evt_ring.c 2> "$tmp/err"; then
	echo "FAIL: the ring core compiled for 32 bits"; rc=1
elif grep -q 'needs a 64-bit' "$tmp/err"; then
	echo "gcc -m32: the ring core refuses: $(grep -m1 'needs a 64-bit' "$tmp/err" | sed 's/.*error: //')"
else
	echo "FAIL: gcc -m32 failed without the 64-bit message:"; sed 's/^/    /' "$tmp/err" | head; rc=1
fi
# Same core, 64 bits: the check is not what fails.
gcc -fsyntax-only -Iinclude -Ikmod/core -D_GNU_SOURCE kmod/core/evt_ring.c || { echo "FAIL: 64-bit build"; rc=1; }
exit $rc
