#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The module builds with W=1 and without a single warning against the 6.1 and
# 6.12 kernel headers (6.12-rt: t-kbuild-rt.sh, skipped where make
# check-matrix has not installed its headers). Any compiler or modpost output
# fails; kbuild's "Skipping BTF generation ... unavailability of vmlinux"
# notice is not a warning. KBUILD_KERNELS="6.1 6.12" chooses the kernels
# (scripts/kernel-matrix labels); each must have its headers installed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernels=${KBUILD_KERNELS:-"6.1 6.12"}
rc=0
for k in $kernels; do
	if ! kver=$(scripts/kernel-matrix kver "$k" 2>/dev/null); then
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
	# The syscall events are this kernel's: every name of its unistd_64.h
	# and unistd_32.h, nothing else, and arguments named as its prototypes.
	gen=$tmp/$kver/kmod/gen/evt_syscalls.h
	uapi=/lib/modules/$kver/build/arch/x86/include/generated/uapi/asm
	for abi in 64:sys_ 32:compat_sys_; do
		want=$(sed -n "s/^#define __NR_\([a-z0-9_]*\) [0-9]*\$/${abi#*:}\1/p" "$uapi/unistd_${abi%%:*}.h" | grep -v "_syscalls$" | sort)
		have=$(grep -o "EV0\?(\"${abi#*:}[a-z0-9_]*\"" "$gen" | sed 's/.*("//; s/"//' | grep -v "unknown_" | sort)
		if [ -z "$want" ] || [ "$want" != "$have" ]; then
			echo "FAIL: $k: the ${abi#*:}* events are not $uapi/unistd_${abi%%:*}.h's names:"
			diff <(echo "$want") <(echo "$have") | head -n 10
			rc=1
		fi
	done
	# Each argument at its C type's width (0.2), a 32-bit task's in 4 bytes.
	for want in 'f_sc_sys_read[] = { F("fd", EVT_F_U32), F("buf", EVT_F_X64), F("count", EVT_F_U64) }' \
		    'f_sc_sys_sendto[] = { F("fd", EVT_F_S32), F("buff", EVT_F_X64), F("len", EVT_F_U64),' \
		    'f_sc32_sys_read[] = { F("fd", EVT_F_U32), F("buf", EVT_F_X32), F("count", EVT_F_U32) }' \
		    'EV0("sys_getppid", EVT_CHAN_COMPACT, EVT_ID_SYS_BASE + 110)'; do
		grep -qF "$want" "$gen" || { echo "FAIL: $k: $gen lacks $want"; rc=1; }
	done
	echo "$k: $(grep -c '"sys_' "$gen") syscall entry events, $(grep -c '"compat_sys_' "$gen") compat ones"
done

# A kernel whose syscall tables outgrow their id ranges (EVT_ID_SYS_BASE up to
# EVT_ID_COMPAT_SYS_BASE, then up to EVT_ID_SYS_END) fails the build with a
# message, rather than giving two syscalls one id: the catalogue of a made-up
# kernel (N native, M compat syscalls) compiled as the module compiles it.
fake_tables() { # DIR N M
	mkdir -p "$1/arch/x86/include/generated/asm"
	seq 0 $(($2 - 1)) | sed 's/.*/__SYSCALL(&, sys_ni_x&)/' > "$1/arch/x86/include/generated/asm/syscalls_64.h"
	seq 0 $(($3 - 1)) | sed 's/.*/__SYSCALL(&, sys_ni_y&)/' > "$1/arch/x86/include/generated/asm/syscalls_32.h"
	kmod/gen-syscalls events "$1" "$1" > "$1/evt_syscalls.h"
}
ids_build() { # DIR: compile the catalogue against DIR's tables
	${CC:-cc} -std=gnu11 -fsyntax-only -D_GNU_SOURCE -Iinclude -Ikmod/core -I"$1" kmod/core/evt_events.c 2>&1
}
for t in "768 1024 ok" "769 0 more native syscalls" "0 1025 more compat syscalls"; do
	set -- $t
	fake=$tmp/ids-$1-$2
	fake_tables "$fake" "$1" "$2"
	if out=$(ids_build "$fake"); then
		[ "$3" = ok ] || { echo "FAIL: $1 native and $2 compat syscalls built: no id range check"; rc=1; }
	elif [ "$3" = ok ] || ! grep -q "$3" <<<"$out"; then
		echo "FAIL: $1 native and $2 compat syscalls: $(grep -m1 error <<<"$out")"; rc=1
	fi
done
[ $rc -ne 0 ] || echo "syscall id ranges: 768 native + 1024 compat build, 769 native or 1025 compat fail naming the range"
exit $rc
