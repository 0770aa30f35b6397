#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: evdrain
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --copy-bin /bin/ls "$here/guest-events.sh"
"$evtest" check "$out/trace"
babeltrace2 --clock-gmt "$out/trace" > "$out/bt.txt"
grep -m3 'sched_switch' "$out/bt.txt"
grep -m1 'sched_process_exec' "$out/bt.txt"
grep -m2 'marker' "$out/bt.txt"
# Pass 1 finds the tid of the ls exec'ed between the first two markers; pass 2
# attributes syscalls per CPU to whoever the last sched_switch put there.
awk '
function field(name,    r) { if (match($0, "[ {]" name " = [^,}]*")) { r = substr($0, RSTART + length(name) + 4, RLENGTH - length(name) - 4); gsub(/"/, "", r); sub(/ +$/, "", r); return r } return "" }
FNR == 1 { pass++; phase = 0 }
{
	ev = ""; if (match($0, /[a-z_0-9]+: \{/)) ev = substr($0, RSTART, RLENGTH - 3)
	cpu = field("cpu_id")
}
ev == "marker" { m = field("text"); if (m == "before ls") phase = 1; if (m == "after ls") phase = 2; if (m == "syscalls off") phase = 3; if (m == "syscalls on") phase = 4; next }
pass == 1 { if (ev == "sched_process_exec" && phase == 1 && field("filename") == "/usr/local/bin/ls") { lstid = field("tid"); exec_seen = 1 } next }
ev == "sched_switch" { cur[cpu] = field("next_tid"); if (cur[cpu] == lstid) switched_in = 1; next }
ev ~ /^(compat_)?sys_/ {
	if (phase == 3) off_syscalls++
	if (cur[cpu] == lstid) {
		if (phase == 0) early++
		if (phase == 1) { if (ev == "sys_openat") openat++; if (ev == "sys_getdents64") getdents++ }
	}
}
ev == "exit_syscall" && cur[cpu] == lstid && phase == 1 && field("id") == 217 && field("ret") + 0 > 0 { getdents_ret = 1 }
ev ~ /^(irq_handler_entry|softirq_entry)$/ { irqs++ }
END {
	printf "ls tid %s exec %d switched_in %d openat %d getdents64 %d getdents_ret>0 %d irqs %d syscalls_while_off %d ls_before_marker %d\n", lstid, exec_seen, switched_in, openat, getdents, getdents_ret, irqs, off_syscalls, early
	exit !(exec_seen && switched_in && openat > 0 && getdents > 0 && getdents_ret && irqs > 0 && off_syscalls == 0 && early == 0)
}' "$out/bt.txt" "$out/bt.txt" || die "the ls trace is not as expected"
recorded=$(stats_sum "$out/stats" 4)
[ "$(bt_count "$out/trace")" = "$recorded" ] || die "babeltrace2 count != recorded $recorded"
echo "ls traced: exec, switch-in, openat/getdents64 with results, irqs, markers in order"
