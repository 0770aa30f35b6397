#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-boot: own
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

build_faultmod

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
	found=$(sed -n '/^vm-run: FAIL: dmesg has kernel warnings:/,$p' "$out.$1.log" | grep -v '^vm-run: kernel race ignored' | grep -E "$2" || true)
	[ -n "$found" ] || { tail -n 40 "$out.$1.log"; die "$1: no '$2' among the lines vm-run reported"; }
	awk '!seen[$0]++' <<<"$found" | head -n 2 | sed "s/^/    $1 reported: /"
}
trap 'rm -rf "$out" "$out".*.log "$out.fakeqemu" "$out.bin" "$out.rule" "$out.rule.out" "$out.retries" "$out.batch"' EXIT

run 0 clean "$here/guest-harness.sh" fault none
# The checkers' boot banners (debug kernel), as proof for the lane's summary.
grep '^vm-run: kernel checkers:' "$out.clean.log" || true
# The exit status and --copy-bin are the harness's own, the same on every
# kernel: proven on the stock one (a debug-kernel boot costs a minute).
if [ "$debug" = 0 ] && [ "$kcsan" = 0 ]; then
	run 3 exit3 "$here/guest-harness.sh" exit3
	grep -qx "written before exit 3" "$out/harness.txt" || die "exit3: \$OUT/harness.txt did not reach the host"
	# --copy-bin of a statically linked program: copied as it is (no libraries).
	mkdir -p "$out.bin"
	printf '#include <stdio.h>\nint main(int argc, char **argv) { for (int i = 2; i < argc; i++) printf("%%s%%s", argv[i], i + 1 < argc ? " " : "\\n"); return 0; }\n' |
		gcc -static -O1 -o "$out.bin/evt-static" -x c - || die "gcc -static (the C library's static archive: make deps)"
	file "$out.bin/evt-static" | grep -q 'statically linked' || die "the test program is not static: $(file "$out.bin/evt-static")"
	run 0 static --copy-bin "$out.bin/evt-static" "$here/guest-harness.sh" static
	grep -qx "a static program ran" "$out/static.txt" || die "static: the program's output did not come back"
	echo "ok: static: a statically linked program copied with --copy-bin ran in the guest"
fi
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
	# A stall of the lost-timer kind (CPUs idle, the RCU kthread's timer never
	# fired) boots once more, without the first boot's files; any other
	# stall fails (the hang case above runs to the limit, a real lockup is
	# reported as such).
	# Every boot-again is logged for run-tests' summary (this test's own go
	# to a log of its own: they are on purpose).
	retries=$out.retries
	EVTRACE_VM_RETRY_LOG=$retries EVTRACE_TEST_NAME=harness-lost-timer EVTRACE_VM_STALL_GRACE=2 \
		run 0 lost-timer "$here/guest-harness.sh" lost-timer
	grep -qx "booted again" "$out/harness.txt" || die "lost-timer: the second boot did not run"
	grep -q '^vm-run: the guest stalled: an RCU stall with every stalled CPU idle' "$out.lost-timer.log" ||
		die "lost-timer: vm-run did not say why it booted again"
	IFS=$'\t' read -r rname rkver rwhy rreport < "$retries" || die "lost-timer: no line in EVTRACE_VM_RETRY_LOG"
	[ "$rname" = harness-lost-timer ] && [ -n "$rkver" ] && [[ $rwhy == *"timer wakeup lost"* ]] ||
		die "lost-timer: the retry log says '$rname' '$rkver' '$rwhy'"
	grep -q "kthread timer wakeup didn't happen" "$rreport" || die "lost-timer: the first boot's report is not kept in $rreport"
	rm -f "$rreport"
	echo "ok: lost-timer: booted again after a simulated lost-timer stall, logged: $rname, $rkver, $rwhy"
	# The same stall with evtrace loaded and CPU 1 not idle ("Task dump for
	# CPU 1:", the non-idle form): a module bug could look like that, so
	# it fails at once, no second boot.
	: > "$retries"
	EVTRACE_VM_RETRY_LOG=$retries EVTRACE_VM_STALL_GRACE=2 run 124 lost-timer-busy "$here/guest-harness.sh" lost-timer busy-loaded
	! grep -q 'booting again' "$out.lost-timer-busy.log" || die "lost-timer-busy: vm-run booted again with evtrace loaded and a CPU not idle"
	[ ! -s "$retries" ] || die "lost-timer-busy: a retry was logged: $(cat "$retries")"
	echo "ok: lost-timer-busy: evtrace loaded, a CPU in a task dump: failed at once"
	# The rule itself, on canned consoles (vm-run --retry-rule LOG: status 0
	# when it would boot again): every form it names, and the near misses.
	rule() { # want(0 boot again|1 not) name lines...
		local want=$1 name=$2 got=0
		shift 2
		printf '%s\n' "$@" > "$out.rule"
		"$top/scripts/vm-run" --retry-rule "$out.rule" > "$out.rule.out" || got=$?
		[ "$got" = "$want" ] || die "retry rule, $name: status $got, want $want ($(cat "$out.rule.out"))"
		echo "ok: retry rule, $name: $( [ "$want" = 0 ] && echo "boots again" || echo "fails at once")"
	}
	S='[   30.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
	C1=$'[   30.1] rcu: \t1-...!: (0 ticks this GP) idle=1/0/0x0'
	C0=$'[   30.1] rcu: \t0-...!: (0 ticks this GP) idle=1/0/0x0'
	I1='[   30.2] NMI backtrace for cpu 1 skipped: idling at native_safe_halt+0xb/0x10'
	I0='[   30.2] NMI backtrace for cpu 0 skipped: idling at default_idle+0xe/0x20'
	T1='[   30.2] Task dump for CPU 1:'
	N1='[   30.2] NMI backtrace for cpu 1'
	LT="[   30.3] rcu: rcu_preempt kthread timer wakeup didn't happen for 5251 jiffies!"
	L='[    3.6] evtrace: loaded, 2 CPUs, 32 x 16384 bytes per CPU and channel, mode discard'
	U='[    9.6] evtrace: unloaded'
	rule 0 "idle form, evtrace loaded" "$L" "$S" "$C1" "$I1" "$LT"
	rule 0 "two CPUs idle, evtrace loaded" "$L" "$S" "$C0" "$C1" "$I0" "$I1" "$LT"
	rule 1 "one of two stalled CPUs not shown idle, evtrace loaded" "$L" "$S" "$C0" "$C1" "$I1" "$LT"
	rule 1 "Task dump for CPU 1, evtrace loaded" "$L" "$S" "$C1" "$T1" "$LT"
	rule 1 "a whole NMI backtrace, evtrace loaded" "$L" "$S" "$C1" "$N1" "$LT"
	rule 0 "Task dump for CPU 1, evtrace unloaded before" "$L" "$U" "$S" "$C1" "$T1" "$LT"
	rule 0 "Task dump for CPU 1, evtrace never loaded" "$S" "$C1" "$T1" "$LT"
	rule 1 "Task dump for CPU 1, evtrace loaded after an unload" "$L" "$U" "$L" "$S" "$C1" "$T1" "$LT"
	rule 1 "no lost timer wakeup" "$S" "$C1" "$I1"
	rule 1 "a soft lockup too, evtrace never loaded" "$S" "$C1" "$I1" "$LT" '[   31.0] watchdog: BUG: soft lockup - CPU#1 stuck for 22s!'
	rule 1 "a self-detected stall" "$S" '[   30.1] rcu: INFO: rcu_preempt self-detected stall on CPU' "$C1" "$I1" "$LT" "$L"
	# KCSAN reports with no module frame (evtrace, the tests' evt_fault), the kernel's own races, are
	# dropped report by report, on canned dmesg (vm-run --race-filter), and a run
	# with only those is judged clean (vm-run --judge; CI failed one such run,
	# 2026-11-27: the judge took the "race ignored" line for a report):
	# two reports CI met, and the near misses, which all still fail.
	race() { # want(dropped|kept) name lines...
		local want=$1 name=$2 got
		shift 2
		printf '%s\n' "$@" > "$out.rule"
		"$top/scripts/vm-run" --race-filter "$out.rule" > "$out.rule.out" || die "race filter, $name: vm-run failed"
		if grep -v '^vm-run: kernel race ignored' "$out.rule.out" | grep -q 'BUG: KCSAN'; then got=kept; else got=dropped; fi
		[ "$got" = "$want" ] || die "race filter, $name: $got, want $want: $(cat "$out.rule.out")"
		if [ "$got" = dropped ]; then
			grep -q '^vm-run: kernel race ignored (no module frame, scripts/kcsan-report-filter.awk): BUG: KCSAN: data-race in ' "$out.rule.out" ||
				die "race filter, $name: dropped without saying so: $(cat "$out.rule.out")"
			[ "$(grep -c . "$out.rule.out")" = 3 ] || die "race filter, $name: lines around the report lost: $(cat "$out.rule.out")"
		else
			cmp -s "$out.rule" "$out.rule.out" || die "race filter, $name: kept but changed: $(cat "$out.rule.out")"
		fi
		# And the verdict a run gets on that log, by vm-run's own judge: a dropped report (and the
		# line that says so) fails nothing, a kept one fails the run.
		if "$top/scripts/vm-run" --judge "$out.rule" > "$out.rule.judge"; then got=clean; else got=trouble; fi
		[ "$got" = "$([ "$want" = dropped ] && echo clean || echo trouble)" ] ||
			die "race filter, $name: judged $got: $(cat "$out.rule.judge")"
		echo "ok: race filter, $name: $want, judged $got"
	}
	E='[   15.952857] =================================================================='
	B='[   15.952857] BUG: KCSAN: data-race in _find_next_and_bit+0x40/0x110'
	Z='[   15.952857] '
	U='[   15.952857] race at unknown origin, with read to 0xffffffff8353ecc0 of 8 bytes by interrupt on cpu 0:'
	F1='[   15.952857]  _find_next_and_bit+0x40/0x110'
	F2='[   15.952857]  trigger_load_balance+0x169/0x6f0'
	F3='[   15.952857]  update_process_times+0xcb/0x100'
	V='[   15.952857] value changed: 0x0000000000000002 -> 0x0000000000000000'
	R='[   15.952857] Reported by Kernel Concurrency Sanitizer on:'
	P='[   15.952857] CPU: 0 PID: 0 Comm: swapper/0 Not tainted 6.1.192-evtkcsan #1'
	before='[   15.900000] evtrace: loaded, 2 CPUs, 32 x 16384 bytes per CPU and channel, mode discard'
	after='[   16.000000] evtrace: unloaded'
	race dropped "the scheduler's nohz mask, unknown origin (CI, 2026-11-27)" "$before" "$E" "$B" "$Z" "$U" "$F1" "$F2" "$F3" "$Z" "$V" "$Z" "$R" "$P" "$E" "$after"
	D='[   41.549803]  d_add+0x302/0x390'
	L='[   41.549803]  simple_lookup+0x58/0x80'
	race dropped "dcache's d_add against d_add (CI, 2026-11-27)" "$before" "$E" '[   41.549803] BUG: KCSAN: data-race in d_add / d_add' "$Z" \
		'[   41.549803] write (marked) to 0xffff888006108588 of 4 bytes by task 1200 on cpu 2:' '[   41.549803]  d_add+0x20f/0x390' "$L" "$Z" \
		'[   41.549803] read to 0xffff888006108588 of 4 bytes by task 1199 on cpu 3:' "$D" "$L" "$Z" "$R" "$P" "$E" "$after"
	race kept "the same helper from evtrace" "$E" "$B" "$Z" "$U" "$F1" '[   15.952857]  evt_gen_cpus+0x19/0x80 [evtrace]' "$F3" "$Z" "$V" "$Z" "$R" "$P" "$E"
	race kept "the same race, an evtrace frame deep below" "$E" "$B" "$Z" "$U" "$F1" "$F2" "$F3" '[   15.952857]  evt_probe_tick+0x19/0x80 [evtrace]' "$Z" "$V" "$Z" "$R" "$P" "$E"
	race kept "two accesses, evtrace's on the other side" "$E" '[   15.952857] BUG: KCSAN: data-race in _find_next_and_bit / evt_ring_reserve' "$Z" \
		'[   15.952857] write to 0xffffffff8353ecc0 of 8 bytes by task 12 on cpu 1:' '[   15.952857]  evt_ring_reserve+0x1/0x2 [evtrace]' "$F3" "$Z" \
		'[   15.952857] read to 0xffffffff8353ecc0 of 8 bytes by interrupt on cpu 0:' "$F1" "$F2" "$F3" "$Z" "$R" "$P" "$E"
	race kept "a frame the kernel could not name" "$E" "$B" "$Z" "$U" "$F1" '[   15.952857]  0xffffffffc0a1b2c3' "$F3" "$Z" "$R" "$P" "$E"
	race kept "a report cut short" "$E" "$B" "$Z" "$U" "$F1" "$F2"
	race kept "the tests' scratch module (t-harness's deliberate race)" "$E" '[   20.1] BUG: KCSAN: data-race in evt_fault_racer [evt_fault] / evt_fault_racer [evt_fault]' "$Z" \
		'[   20.1] write to 0xffffffffc0200000 of 8 bytes by task 90 on cpu 1:' '[   20.1]  evt_fault_racer+0x1/0x2 [evt_fault]' '[   20.1]  kthread+0x1/0x2' "$Z" \
		'[   20.1] read to 0xffffffffc0200000 of 8 bytes by task 91 on cpu 0:' '[   20.1]  evt_fault_racer+0x3/0x4 [evt_fault]' '[   20.1]  kthread+0x1/0x2' "$Z" "$R" "$P" "$E"
	race kept "an assertion report, no access line read" "$E" '[   15.952857] BUG: KCSAN: assert: race in evt_x+0x1/0x2' "$Z" "$R" "$P" "$E"
	# A kernel that fails before the guest script starts (here: no init)
	# boots once more, then the run fails.
	run 124 boot-fail --append "rdinit=/nonexistent init=/nonexistent" "$here/guest-harness.sh" exit3
	[ "$(grep -c '^vm-run: the kernel failed before the guest script started' "$out.boot-fail.log")" = 1 ] ||
		die "boot-fail: vm-run did not boot exactly once more"
	echo "ok: boot-fail: booted once more, then failed"
	# A boot that never reaches the guest script (here init is cat, reading a
	# console nobody writes to) is stopped after EVTRACE_VM_BOOT_GRACE, not at
	# the time limit, booted once more, then fails.
	EVTRACE_VM_BOOT_GRACE=15 run 124 stuck-boot --timeout 600 --append "rdinit=/bin/cat" "$here/guest-harness.sh" exit3
	[ "$(grep -c 'no guest script started within 15s: the boot is stuck' "$out.stuck-boot.log")" = 2 ] ||
		die "stuck-boot: vm-run did not stop the stuck boot twice"
	echo "ok: stuck-boot: stopped after 15 s, booted once more, then failed"
	# vm-run --batch (run-tests' shared boots): each script judged on its
	# own stretch; a kernel report fails that script only and ends the boot,
	# the scripts after it boot anew.
	b=$out.batch
	mkdir -p "$b/out/warn"
	cp "$mod/evt_fault.ko" "$b/out/warn/"
	g=$here/guest-harness.sh
	printf 'first\t60\t%s\texit3\nwarn\t60\t%s\tfault\twarn\nafter\t60\t%s\texit3\n' "$g" "$g" "$g" > "$b/list"
	"$top/scripts/vm-run" --smp "${SMP:-2}" --out "$b/out" --batch "$b/list" > "$out.batch.log" 2>&1 ||
		{ tail -n 30 "$out.batch.log"; die "batch: vm-run --batch exited $?"; }
	got="$(cat "$b/out/first.rc") $(cat "$b/out/warn.rc") $(cat "$b/out/after.rc")"
	[ "$got" = "3 125 3" ] || { tail -n 30 "$out.batch.log"; die "batch: statuses $got, want 3 125 3"; }
	[ "$(grep -c '^vm-run: booting' "$out.batch.log")" = 2 ] || die "batch: not two boots (the WARN must end the first)"
	grep -q 'WARNING: .*evt_fault' "$b/out/warn.log" || die "batch: the WARN is not in warn's verdict"
	! grep -q 'WARNING:' "$b/out/first.log" "$b/out/after.log" || die "batch: another script was charged with the WARN"
	grep -qx "written before exit 3" "$b/out/after/harness.txt" || die "batch: the script after the report did not run"
	echo "ok: batch: exit 3, the WARN (125, ending the boot), exit 3 in a second boot"
fi
extra=""
[ "$kcsan" = 0 ] || extra=", kcsan checks: 1"
echo "harness self-test ok (debug checks: $debug$extra)"
