#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# The VM harness judges runs as its users rely on: a guest's exit status comes
# back (3 stays 3, with $OUT's files on the host), a guest that never ends is
# cut at --timeout (124), and a kernel report fails the run (125) with the
# offending line printed: a WARNING on every kernel; on a debug kernel (KASAN,
# lockdep, kmemleak) also a KASAN out-of-bounds write, an inconsistent lock
# state and a leaked allocation; on the KCSAN kernel (debug-kernel --flavour
# kcsan) the inconsistent lock state and a data race between two threads. The
# reports come from a scratch module, tests/vm/faultmod/evt_fault.c, built here
# against the VM's kernel.
set -eu
. "$(dirname "$0")/hostlib.sh"

# The VM's kernel tree: the lanes say which (the debug lane sets
# EVTRACE_VM_KDIR; the matrix passes --kver), else the default KDIR.
kdir=${EVTRACE_VM_KDIR:-}
if [ -z "$kdir" ]; then
	kver=$(sed -n 's/.*--kver  *\([^ ]*\).*/\1/p' <<<"${EVTRACE_VM_OPTS:-}")
	if [ -n "$kver" ]; then kdir=/lib/modules/$kver/build; else kdir=$("$top/scripts/find-kdir"); fi
fi
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
mod=$top/build/tests/faultmod/$kver
rm -rf "$mod"; mkdir -p "$mod"
cp "$here/faultmod/Kbuild" "$here/faultmod/evt_fault.c" "$mod/"
make -s -C "$kdir" M="$mod" modules
debug=0 kcsan=0
grep -q '^CONFIG_KASAN=y' "$kdir/.config" 2>/dev/null && debug=1
grep -q '^CONFIG_KCSAN=y' "$kdir/.config" 2>/dev/null && kcsan=1

run() { # expected-status log-name vm-run-arguments...
	local want=$1 name=$2 rc=0
	shift 2
	rm -rf "$out"/*; cp "$mod/evt_fault.ko" "$out/"
	vm "$@" > "$out.$name.log" 2>&1 || rc=$?
	if [ "$rc" != "$want" ]; then
		tail -n 40 "$out.$name.log"
		die "$name: vm-run exited $rc, want $want"
	fi
	echo "ok: $name: vm-run exited $rc"
}
expect_line() { # log-name regex: vm-run printed it as the offending kernel line
	local found
	found=$(sed -n '/^vm-run: FAIL: dmesg has kernel warnings:/,$p' "$out.$1.log" | grep -E "$2" || true)
	[ -n "$found" ] || { tail -n 40 "$out.$1.log"; die "$1: no '$2' among the lines vm-run reported"; }
	awk '!seen[$0]++' <<<"$found" | head -n 2 | sed "s/^/    $1 reported: /"
}
trap 'rm -rf "$out" "$out".*.log "$out.fakeqemu"' EXIT

run 0 clean "$here/guest-harness.sh" fault none
# The checkers' boot banners (debug kernel), as proof for the lane's summary.
grep '^vm-run: kernel checkers:' "$out.clean.log" || true
run 3 exit3 "$here/guest-harness.sh" exit3
grep -qx "written before exit 3" "$out/harness.txt" || die "exit3: \$OUT/harness.txt did not reach the host"
run 125 warn "$here/guest-harness.sh" fault warn
expect_line warn 'WARNING: .*evt_fault'
if [ "$debug" = 1 ]; then
	run 125 kasan "$here/guest-harness.sh" fault kasan
	expect_line kasan 'BUG: KASAN: slab-out-of-bounds'
	run 125 lockdep "$here/guest-harness.sh" fault lockdep
	expect_line lockdep 'inconsistent lock state'
	run 125 leak "$here/guest-harness.sh" fault leak
	expect_line leak 'unreferenced object'
elif [ "$kcsan" = 1 ]; then
	run 125 lockdep "$here/guest-harness.sh" fault lockdep
	expect_line lockdep 'inconsistent lock state'
	run 125 race "$here/guest-harness.sh" fault race
	expect_line race 'BUG: KCSAN: data-race in evt_fault_racer'
else
	# (On the debug kernel every limit is scaled up and the boot alone takes
	# 20 s: the time-out is proven here.)
	run 124 hang --timeout 30 "$here/guest-harness.sh" hang
	# qemu crashing on its own before the guest starts (as qemu 10's
	# multi-threaded TCG has done) is retried once; the guest's status counts.
	fake=$out.fakeqemu
	mkdir -p "$fake"
	cat > "$fake/qemu-system-x86_64" <<-EOF
	#!/usr/bin/env bash
	if [ "\$1" != --version ] && [ ! -e "$fake/crashed" ]; then
		touch "$fake/crashed"
		echo "qemu-system-x86_64: system/physmem.c:2678: iotlb_to_section: Assertion (simulated) failed." >&2
		kill -ABRT \$\$
	fi
	exec $(command -v qemu-system-x86_64) "\$@"
	EOF
	chmod +x "$fake/qemu-system-x86_64"
	PATH=$fake:$PATH run 3 qemu-crash "$here/guest-harness.sh" exit3
	grep -q '^vm-run: qemu itself crashed (rc 134' "$out.qemu-crash.log" ||
		die "qemu-crash: vm-run did not say qemu crashed"
	echo "ok: qemu-crash: retried after: $(grep -o 'iotlb_to_section.*' "$out.qemu-crash.log" | head -n 1)"
	# A qemu that crashes again is not retried a second time: the run fails
	# and says why.
	cat > "$fake/qemu-system-x86_64" <<-EOF
	#!/usr/bin/env bash
	[ "\$1" != --version ] || exec $(command -v qemu-system-x86_64) "\$@"
	echo "qemu-system-x86_64: system/physmem.c:2678: iotlb_to_section: Assertion (simulated) failed." >&2
	kill -ABRT \$\$
	EOF
	PATH=$fake:$PATH run 124 qemu-crash-twice "$here/guest-harness.sh" exit3
	grep -q '^vm-run: FAIL: qemu itself crashed' "$out.qemu-crash-twice.log" ||
		die "qemu-crash-twice: no failure message"
fi
extra=""
[ "$kcsan" = 0 ] || extra=", kcsan checks: 1"
echo "harness self-test ok (debug checks: $debug$extra)"
