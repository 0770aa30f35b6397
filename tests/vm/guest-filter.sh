#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The task filter (evctl track), case by case, each on a fresh module with
# only the marker event on: three processes write 1000 markers each, two of
# them with a child writing 1000 more (markers, tests/tools/markers.c), the
# third one's pair in a cgroup. The host reads each case's trace with evcat
# and checks that only the tracked tasks' markers are in it, every one of
# them, and that the rings' filtered count is what the others wrote. Then
# the generator (kernel threads, never tracked) is filtered out whole,
# exactly; bad input is refused with the kernel's message, changing nothing;
# an unprivileged STATUS shows how many names and cgroups are tracked, not
# which; a tracked cgroup removed and created again is tracked (by its path);
# the processes a followed fork tracked leave the count when they end.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
N=1000
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup || fail "cannot mount cgroup2"
mkdir /sys/fs/cgroup/evtf

load() {
	insmod "$EVTRACE_KO" flush_ms=200 "$@"
	evctl disable all
	evctl enable marker
}

# case NAME TRACK-ARGS [EVENT...]: $A, $B, $C in TRACK-ARGS are the three
# processes' IDs; the events are enabled besides the marker.
run_case() {
	name=$1 args=$2
	shift 2
	load
	[ $# -eq 0 ] || evctl enable "$@"
	rm -f /tmp/go /tmp/pids
	markers --name evtf-a --count $N --kids 1 --go /tmp/go --pids /tmp/pids &
	pa=$!
	markers --name evtf-b --count $N --go /tmp/go --pids /tmp/pids &
	pb=$!
	markers --name evtf-c --count $N --kids 1 --go /tmp/go --pids /tmp/pids &
	pc=$!
	three_named() { [ -f /tmp/pids ] && [ "$(wc -l < /tmp/pids)" -ge 3 ]; }
	wait_until 30 "the marker writers did not start" three_named
	A=$pa B=$pb C=$pc
	echo "$C" > /sys/fs/cgroup/evtf/cgroup.procs
	eval "evctl track $args" || fail "$name: evctl track $args"
	evctl status > "$OUT/$name.status"
	evctl status --json > "$OUT/$name.status.json"
	evdrain -q -o "$OUT/$name" > "$OUT/$name.evdrain" 2>&1 &
	drain=$!
	wait_until 30 "$name: evdrain did not start tracing" sh -c 'evctl status > /tmp/st; grep -q "^state  *tracing" /tmp/st'
	touch /tmp/go
	wait $pa && wait $pb && wait $pc || fail "$name: a marker writer failed"
	kill -TERM $drain
	wait $drain || fail "$name: evdrain exit $?"
	cp /tmp/pids "$OUT/$name.pids"
	cp "$D/stats" "$OUT/$name.stats"
	# A tracked process leaves the set when it ends: none is left.
	left_empty() { [ ! -s "$D/filter" ]; }
	wait_until 30 "$name: ended processes still in the filter: $(cat "$D/filter" | tr '\n' ' ')" left_empty
	rmmod evtrace
	echo "case $name done"
}

run_case pid '--pid $A'
run_case pid-follow '--pid $A --follow-fork'
run_case comm '--comm evtf-b'
run_case cgroup '--cgroup /sys/fs/cgroup/evtf'
run_case two '--pid $B --comm evtf-c-1'
# Events about other tasks go by those tasks: a switch by either of its two.
run_case sched '--pid $A --follow-fork' sched_switch sched_wakeup sched_waking \
	sched_migrate_task sched_process_fork sched_process_exit sched_process_free

# evdrain -- CMD (issue 45): the command and what it forks, and only them,
# run as the sudo user (SUDO_UID/SUDO_GID: no passwd here, so no groups),
# with no descriptor of evdrain's; its exit status is evdrain's. A task
# making futex calls all along is not tracked (the host checks the trace).
insmod "$EVTRACE_KO" flush_ms=200
sysloop 100000000 futex > /dev/null &
noise=$!
echo "$noise" > "$OUT/cmd.noise"
sleep 0.2
rc=0
SUDO_UID=1000 SUDO_GID=1001 evdrain -o "$OUT/cmd" -- sh -c \
	'echo $(id -u) $(id -g) $(id -G) > /tmp/cmd.id; ls /proc/self/fd > /tmp/cmd.fds; sysloop 3000 lseek > /dev/null & wait; exit 3' \
	> "$OUT/cmd.evdrain" 2>&1 || rc=$?
kill $noise
cat "$OUT/cmd.evdrain"
[ "$rc" = 3 ] || fail "evdrain -- CMD exited $rc, not the command's 3"
[ "$(cat /tmp/cmd.id)" = "1000 1001 1001" ] || fail "the command ran as $(cat /tmp/cmd.id), not 1000 1001"
[ "$(tr '\n' ' ' < /tmp/cmd.fds)" = "0 1 2 3 " ] || fail "the command had descriptors: $(tr '\n' ' ' < /tmp/cmd.fds)"
evctl status | grep -q '^filter  *none' || fail "evdrain -- CMD left a filter: $(evctl status | grep ^filter)"
grep -q "exited with status 3" "$OUT/cmd.evdrain" || fail "no summary line"
# A signal sent to evdrain alone goes to the command; the run ends when it exits.
rc=0
evdrain -q -o /tmp/cmd-term -- sleep 30 &
drain=$!
sleep 2
kill -TERM $drain
wait $drain || rc=$?
[ "$rc" = 143 ] || fail "evdrain -- sleep, SIGTERM: exit $rc, not 143 (the command's, killed by SIGTERM)"
[ -s /tmp/cmd-term/kernel/metadata ] || fail "evdrain -- sleep, SIGTERM: no trace"
expect_refusal 127 "cannot run /no/such: No such file" evdrain -q -o /tmp/cmd-none -- /no/such arg
expect_refusal 126 "cannot run /tmp: Permission denied" evdrain -q -o /tmp/cmd-dir -- /tmp
evctl status | grep -q '^filter  *none' || fail "a command that could not run left a filter"
evctl track --comm evtf-z
expect_refusal 125 "a task filter is set already" evdrain -q -o /tmp/cmd-filter -- true
evctl untrack --all
# Usage errors: one line, naming what was wrong.
for args in "-o /tmp/u sleep 1" "-o /tmp/u --" "-o /tmp/u -d 2 -- true" "--bogus" "-o"; do
	rc=0
	# shellcheck disable=SC2086
	evdrain $args > /tmp/u.out 2>&1 || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < /tmp/u.out)" = 1 ] || { cat /tmp/u.out; fail "evdrain $args: exit $rc"; }
	echo "evdrain $args: $(cat /tmp/u.out)"
done
rmmod evtrace

# The generator's kernel threads are never tracked: every event it offers is
# counted filtered, per CPU and channel, none recorded.
load probes=0
sleep 1000 &
keep=$!
evctl track --pid $keep
evctl enable gen_compact gen_compact_wide gen_normal
evctl start
evctl generate --events 3000 --rate 0 --channel both --sizes mix
wait_gen_done 120
evctl stop
check_exact
[ "$(stat_sum compact 4)" -eq 0 ] || fail "the generator's compact events were recorded"
[ "$(stat_sum normal 12)" -gt 0 ] || fail "nothing filtered on the normal channel"
cp "$D/stats" "$OUT/gen.stats"
cp "$D/generate" "$OUT/gen.generate"

# Bad input: the kernel's message, exit 1, nothing changed.
evctl status > /tmp/before
refused() { # what, expected message, evctl args...
	what=$1 msg=$2
	shift 2
	if evctl "$@" > /tmp/err 2>&1; then fail "$what: accepted"; fi
	grep -q "$msg" /tmp/err || { cat /tmp/err; fail "$what: not the expected message ($msg)"; }
	echo "$what: $(cat /tmp/err)"
}
refused "a pid that does not exist" "no process has the ID 999999" track --pid 999999
refused "a name too long" "process name of 20 bytes" track --comm abcdefghijklmnopqrst
refused "a cgroup that does not exist" "no cgroup /evtf-none in the cgroup v2" track --cgroup /evtf-none
refused "a cgroup that is a file" "/evtf/cgroup.procs is not a cgroup" track --cgroup /evtf/cgroup.procs
workload --hold 60 --threads 2 &
threads=$!
two_threads() { [ "$(ls /proc/$threads/task | wc -l)" -eq 3 ]; }
wait_until 30 "workload's threads did not start" two_threads
tid=$(ls /proc/$threads/task | grep -v "^$threads\$" | head -1)
refused "a thread's ID" "$tid is a thread, not a process" track --pid "$tid"
kill $threads
refused "untracking what is not tracked" "process 1 is not tracked" untrack --pid 1
refused "untracking a name not tracked" "process name evtf-x is not tracked" untrack --comm evtf-x
refused "a pid and a bad name together" "process name of 20 bytes" track --pid 1 --comm abcdefghijklmnopqrst
if nopriv evctl track --pid 1 > /tmp/err 2>&1; then fail "nobody could track"; fi
grep -q "ermission" /tmp/err || { cat /tmp/err; fail "nobody: not a permission error"; }
echo "nobody: $(cat /tmp/err)"
evctl status > /tmp/after
cmp -s /tmp/before /tmp/after || { diff /tmp/before /tmp/after; fail "a refused request changed something"; }
grep -q "^filter  *1 process ID" /tmp/after || fail "the filter line: $(grep ^filter /tmp/after)"
# What an unprivileged user sees: how many, not which (names and paths are
# other users' business); root sees them.
evctl track --comm evtf-secret --cgroup /evtf
nopriv evctl status > /tmp/st || fail "evctl status as nobody failed"
grep -q '^filter  *1 process ID, 1 process name, 1 cgroup (which: CAP_NET_ADMIN only)$' /tmp/st ||
	fail "nobody's filter line: $(grep ^filter /tmp/st)"
nopriv evctl status --json > /tmp/st.json
if grep -q 'evtf-secret\|/evtf' /tmp/st /tmp/st.json; then fail "nobody sees what the filter names"; fi
grep -q '"nr_comms": 1, "nr_cgroups": 1, "comms": null, "cgroups": null' /tmp/st.json ||
	fail "nobody's JSON filter: $(grep filter /tmp/st.json)"
evctl status | grep -q '^filter  *1 process ID, comm evtf-secret, cgroup /evtf$' ||
	fail "root's filter line: $(evctl status | grep ^filter)"
evctl untrack --comm evtf-secret --cgroup /evtf
evctl untrack --all
evctl status | grep -q '^filter  *none' || fail "untrack --all left a filter"
evctl track --pid $keep --comm evtf-z
evctl untrack --pid $keep
evctl status | grep -q '^filter  *0 process IDs, comm evtf-z$' || fail "untrack --pid: $(evctl status | grep ^filter)"
evctl untrack --comm evtf-z
evctl status | grep -q '^filter  *none' || fail "untracking the last item left a filter"
kill $keep
# Processes a followed fork tracked leave the count when they end: a
# tracked shell forks 200 commands; once they are gone only it is counted
# (each STATUS reads a count, never walks the process ID bitmap).
rm -f /tmp/go2 /tmp/forked
sh -c 'while [ ! -e /tmp/go2 ]; do sleep 0.1; done; for i in $(seq 200); do /bin/true; done; touch /tmp/forked; sleep 1000' &
forker=$!
evctl track --pid $forker --follow-fork
touch /tmp/go2
wait_until 60 "the tracked shell did not fork its 200 commands" test -e /tmp/forked
one_left() { evctl status | grep -q '^filter  *1 process ID (follow fork)$'; }
wait_until 30 "the ended processes stay counted: $(evctl status | grep ^filter)" one_left
[ "$(cat $D/filter)" = "$forker" ] || fail "debugfs filter lists: $(cat $D/filter | tr '\n' ' ')"
kill $forker
wait_until 30 "the ended shell stays counted: $(evctl status | grep ^filter)" \
	sh -c "evctl status | grep -q '^filter  *0 process IDs (follow fork)$'"
evctl untrack --all
# Unload with a filter set, its fork probe busy: forks on every CPU, tracing.
evctl track --comm sh --follow-fork
evctl enable all
evctl start
loops=""
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sh -c 'while :; do /bin/true; done' &
	loops="$loops $!"
done
sleep 2
rmmod evtrace
kill $loops

# A tracked cgroup is its path: removed and created again (a service
# restarted), the new one is tracked, and tracking the path again neither
# fails nor doubles it. It used to keep the dead cgroup: the new one's tasks
# were filtered out and a second track did nothing.
load
evctl start
mkdir /sys/fs/cgroup/evtr
evctl track --cgroup /evtr
rmdir /sys/fs/cgroup/evtr
mkdir /sys/fs/cgroup/evtr
in_evtr() { sh -c 'echo $$ > /sys/fs/cgroup/evtr/cgroup.procs && exec markers --name evtr-a --count 100'; }
in_evtr || fail "the marker writer in the new /evtr failed"
[ "$(stat_sum normal 12)" = 0 ] || fail "the new /evtr's markers were filtered out: $(stat_sum normal 12)"
[ "$(stat_sum normal 4)" -ge 100 ] || fail "the new /evtr's markers were not recorded: $(stat_sum normal 4)"
rmdir /sys/fs/cgroup/evtr
mkdir /sys/fs/cgroup/evtr
evctl track --cgroup /evtr || fail "tracking a recreated cgroup's path again failed"
evctl status | grep -q '^filter  *0 process IDs, cgroup /evtr$' || fail "filter after tracking /evtr again: $(evctl status | grep ^filter)"
in_evtr || fail "the marker writer in the third /evtr failed"
[ "$(stat_sum normal 12)" = 0 ] || fail "the third /evtr's markers were filtered out: $(stat_sum normal 12)"
[ "$(stat_sum normal 4)" -ge 200 ] || fail "the third /evtr's markers were not recorded: $(stat_sum normal 4)"
evctl untrack --cgroup /evtr
rmmod evtrace
echo "filter cases ok"
