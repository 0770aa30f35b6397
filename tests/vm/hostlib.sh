# SPDX-License-Identifier: GPL-2.0
# Host-side helpers for VM tests (bash).
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
top=$(cd "$here/../.." && pwd)
evtest=$top/build/tests/bin/evtest
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

die() { echo "FAIL: $*"; exit 1; }

# Boot the VM on a guest script: vm [vm-run options] GUEST_SCRIPT [ARGS...],
# once per test, as a plain command (not in $(...) or a pipe). Under
# scripts/run-tests the boot may be shared with other tests' guest scripts
# ("# vm-boot: GROUP", docs/testing.md): run-tests first runs the test with
# EVTRACE_VM_PLAN=FILE, where vm records its call and what $out holds (the
# guest finds it in $OUT) and ends the test; after the boot, it runs the test
# again with EVTRACE_VM_RESULT=DIR, where vm takes the guest's $OUT, prints
# what vm-run printed about this script and returns its status.
vm() {
	if [ -n "${EVTRACE_VM_PLAN:-}" ]; then
		printf '%s\0' --smp "${SMP:-2}" "$@" > "$EVTRACE_VM_PLAN"
		mkdir -p "$EVTRACE_VM_PLAN.in"
		cp -a "$out/." "$EVTRACE_VM_PLAN.in/"
		exit 0
	fi
	if [ -n "${EVTRACE_VM_RESULT:-}" ]; then
		[ -z "${vm_called:-}" ] || die "vm called twice: a test that boots more than once says '# vm-boot: own'"
		vm_called=1
		printf '%s\0' --smp "${SMP:-2}" "$@" | cmp -s - "$EVTRACE_VM_RESULT.req" ||
			die "vm called with other arguments than when run-tests planned the boot: $*"
		rm -rf "$out"
		mv "$EVTRACE_VM_RESULT" "$out"
		cat "$EVTRACE_VM_RESULT.log"
		return "$(cat "$EVTRACE_VM_RESULT.rc")"
	fi
	"$top/scripts/vm-run" --smp "${SMP:-2}" --out "$out" "$@"
}

# Sum a column of the guest's stats copy for a channel (or all).
stats_sum() { # file col [channel]
	awk -v col="$2" -v ch="${3:-}" '($1 == "compact" || $1 == "normal") && (ch == "" || $1 == ch) { s += $col } END { print s + 0 }' "$1"
}

# Events babeltrace2 reads from a trace directory.
bt_count() {
	# The counter prints running totals on long traces: the last one counts.
	babeltrace2 -c sink.utils.counter "$1" 2>/dev/null | awk '/Event messages/ { gsub(",", "", $1); n = $1 } END { print n }'
}

# Events babeltrace2 reports as discarded (its warnings on stderr).
bt_discarded() {
	babeltrace2 "$1" 2>&1 >/dev/null | grep -o 'Tracer discarded [0-9]* events\?' | awk '{ s += $3 } END { print s + 0 }'
}

# The scratch module tests/vm/faultmod (kernel reports on demand), built
# against the VM's kernel: the lanes say which (the debug lane sets
# EVTRACE_VM_KDIR; the matrix passes --kver), else the default KDIR. Sets
# kdir, mod (the folder of evt_fault.ko), debug (1 on a KASAN kernel) and
# kcsan (1 on a KCSAN one).
build_faultmod() {
	kdir=${EVTRACE_VM_KDIR:-}
	if [ -z "$kdir" ]; then
		local kver
		kver=$(sed -n 's/.*--kver  *\([^ ]*\).*/\1/p' <<<"${EVTRACE_VM_OPTS:-}")
		if [ -n "$kver" ]; then kdir=/lib/modules/$kver/build; else kdir=$("$top/scripts/find-kdir"); fi
	fi
	mod=$top/build/tests/faultmod/$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
	# Built once per kernel and source (a test runs twice under run-tests'
	# shared boots, and several tests use it).
	if ! { [ -f "$mod/evt_fault.ko" ] && cmp -s "$here/faultmod/evt_fault.c" "$mod/evt_fault.c" &&
	       cmp -s "$here/faultmod/Kbuild" "$mod/Kbuild" && [ "$mod/evt_fault.ko" -nt "$kdir/Module.symvers" ]; }; then
		rm -rf "$mod"; mkdir -p "$mod"
		cp "$here/faultmod/Kbuild" "$here/faultmod/evt_fault.c" "$mod/"
		make -s -C "$kdir" M="$mod" modules
	fi
	debug=0 kcsan=0
	grep -q '^CONFIG_KASAN=y' "$kdir/.config" 2>/dev/null && debug=1
	grep -q '^CONFIG_KCSAN=y' "$kdir/.config" 2>/dev/null && kcsan=1
	return 0
}

# A saved trace read alone: babeltrace2 (no error), evtest check and evcat
# read DIR, and both count the same; evcat's JSON goes to $out/NAME.json.
read_alone() { # DIR NAME
	local d=$1 n=$2 ev bt
	babeltrace2 "$d" > /dev/null 2> "$out/bt.err" || { cat "$out/bt.err"; die "babeltrace2 cannot read $n alone"; }
	grep -qi 'error' "$out/bt.err" && { cat "$out/bt.err"; die "babeltrace2 reports an error on $n"; }
	"$evtest" check "$d" > /dev/null || die "evtest check fails on $n"
	ev=$("$top/build/bin/evcat" "$d" --count) || die "evcat cannot read $n"
	bt=$(bt_count "$d")
	[ "${bt:-0}" = "$ev" ] || die "$n: babeltrace2 counts '${bt:-0}', evcat $ev"
	"$top/build/bin/evcat" "$d" --format json > "$out/$n.json" || die "evcat --format json on $n"
	echo "$n: $ev events (babeltrace2 agrees)"
}

# The traces a guest drained with nllib.sh's nl_stop_drain_then_exact, decoded
# here: every event the module recorded while churning was read ($out/churn
# against $out/churn.stats), and the last generator run is in its trace
# exactly once ($out/final: evtest --exact, babeltrace2's count).
check_churned_traces() {
	local churn read_back final
	"$evtest" check "$out/churn" > "$out/churn.check" || { tail -n 5 "$out/churn.check"; die "evtest check fails on the churned trace"; }
	churn=$(stats_sum "$out/churn.stats" 4)
	read_back=$(sed -n 's/^total events \([0-9]*\).*/\1/p' "$out/churn.check")
	[ "$read_back" = "$churn" ] || die "the module recorded $churn events while churning, the trace holds $read_back"
	[ "$(bt_count "$out/churn")" = "$churn" ] || die "babeltrace2 does not count the $churn events of the churned trace"
	"$evtest" check "$out/final" --gen-events 5000 --exact > "$out/final.check" ||
		{ tail -n 5 "$out/final.check"; die "the last generator run is not in its trace exactly once"; }
	final=$(( $(stats_sum "$out/final.stats" 4) - churn ))
	[ "$(bt_count "$out/final")" = "$final" ] || die "babeltrace2 counts '$(bt_count "$out/final")' events in the last run, the module recorded $final"
	echo "churned trace: $churn events recorded = read back = babeltrace2's; last run: every generator event once ($final events)"
}
