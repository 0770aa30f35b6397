#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The fleet on a real ClickHouse cluster (issue 47; docs/fleet.md): two
# clickhouse-server processes on 127.0.0.1, each with its own ports and data
# directory, form a 2-shard cluster; three hosts' chunks are loaded through
# evtrace-ch-load as evdrain's hook runs it (one chunk twice: it loads once;
# one host over the HTTP interface, the others with clickhouse-client):
# the guest's rotated run given as $1 (t-rotate's --rotate-interval run:
# every event on, CPU 1 offline and back) and two evsynth --kernel runs cut
# into chunks (one with losses, another kernel release); each host lands on
# the shard cityHash64(host) picks, both shards hold rows; every query of
# docs/fleet.md runs through the Distributed tables and tests/tools/fleet-check.py
# compares the answers with evstat on each host's run. The servers
# (scripts/ch-cluster) are stopped by their PIDs at the end, whatever happened.
# usage: fleet-cluster.sh VM_RUN_DIR   (t-rotate.sh calls it)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vm_run=${1:?usage: fleet-cluster.sh VM_RUN_DIR}
die() { echo "FAIL: fleet: $*"; exit 1; }
work=$(mktemp -d)
trap '"$top/scripts/ch-cluster" stop "$work/cluster"; rm -rf "$work"' EXIT
start=$(date +%s)
read -r -a ports <<< "$("$top/scripts/ch-cluster" start "$work/cluster")" || die "the cluster did not start"
pids=$(tr '\n' ' ' < "$work/cluster/pids")
echo "fleet: 2 clickhouse-server $(clickhouse-client --port "${ports[0]}" --query 'SELECT version()') on 127.0.0.1:${ports[0]} and :${ports[1]} (PIDs $pids), up in $(( $(date +%s) - start ))s"

# The loader as the docs configure it, from a configuration file (scripts/ch-cluster writes it).
export EVTRACE_CH_CONF=$work/cluster/clickhouse.conf EVTRACE_CH_EVEXPORT=$top/build/bin/evexport EVTRACE_CH_STATE=$work/state
load=$top/userspace/dist/clickhouse/evtrace-ch-load
"$load" --create-tables || die "--create-tables"
# A bad configuration is refused, naming it.
printf 'EVTRACE_CH_SHARDZ=x\n' > "$work/bad.conf"
rc=0; EVTRACE_CH_CONF=$work/bad.conf "$load" /nonexistent > "$work/bad.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q 'bad.conf:1: not a setting of evtrace-ch-load: EVTRACE_CH_SHARDZ' "$work/bad.out" ||
	{ cat "$work/bad.out"; die "a bad configuration file: exit $rc"; }

# Three hosts: the guest (its chunks under their own host name) and two synthetic machines.
"$top/build/bin/evsynth" "$work/synth-1" --kernel --chunks 3 --cpus 4 --events 90000 --seed 11 --host synth-1 \
	--kernel-release 6.1.0-synthetic --quiet
"$top/build/bin/evsynth" "$work/synth-2" --kernel --chunks 3 --cpus 2 --events 60000 --seed 12 --stall-every 15000 \
	--host synth-2 --kernel-release 6.12.0-synthetic --quiet
chunks() { ls "$1" | grep -E '^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9]+$' | sort -t- -k3,3n; }
# Each host's chunks in order through the hook, as evdrain runs it (the hosts side by side).
load_host() { # host dir [EVTRACE_CH_HOST]
	local c
	for c in $(chunks "$2"); do
		EVTRACE_CH_HOST=${3:-} "$load" "$2/$c" >> "$work/load-$1.log" 2>&1 || { cat "$work/load-$1.log"; return 1; }
	done
}
t0=$(date +%s.%N)
# The guest's chunks over HTTP (curl), the others with clickhouse-client: the same shards, in the same order.
EVTRACE_CH_CONF=$work/cluster/clickhouse-http.conf load_host vm "$vm_run" vm & a=$!
load_host synth-1 "$work/synth-1" & b=$!
load_host synth-2 "$work/synth-2" & c=$!
wait $a || die "loading the guest's chunks"
wait $b || die "loading synth-1"
wait $c || die "loading synth-2"
t1=$(date +%s.%N)
nchunks=$(cat "$work"/load-*.log | grep -c ' -> shard ')
q() { clickhouse-client --port "${ports[0]}" --query "$1"; }
rows=$(q "SELECT count() FROM evtrace.events")
echo "fleet: $nchunks chunks of 3 hosts loaded ($rows events) in $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')s"
sed 's/^/  /' "$work/load-synth-2.log"
grep -q ' -> shard [12] (http://127.0.0.1:' "$work/load-vm.log" || die "the guest's chunks did not go over HTTP"

# A hook run twice loads once: every table's count of the chunk is the same after a second load.
counts() { q "SELECT (SELECT count() FROM evtrace.events WHERE host = 'synth-1'), (SELECT count() FROM evtrace.syscalls WHERE host = 'synth-1'),
	(SELECT count() FROM evtrace.sched_slices WHERE host = 'synth-1'), (SELECT count() FROM evtrace.wakeups WHERE host = 'synth-1'),
	(SELECT count() FROM evtrace.stats WHERE host = 'synth-1')" | tr '\t' ' '; }
before=$(counts)
c=$(chunks "$work/synth-1" | sed -n 2p)
"$load" "$work/synth-1/$c" || die "loading $c again"
after=$(counts)
[ "$before" = "$after" ] || die "a second load of $c: counts $before became $after"
echo "fleet: $c loaded twice, the tables hold it once ($after)"

# Each host on the shard its hash picks; both shards hold a host.
for i in 0 1; do
	hosts=$(clickhouse-client --port "${ports[$i]}" --query "SELECT arrayStringConcat(groupUniqArray(host), ' ') FROM evtrace.events_local")
	want=$(q "SELECT arrayStringConcat(arraySort(groupArray(h)), ' ') FROM (SELECT arrayJoin(['vm', 'synth-1', 'synth-2']) AS h) WHERE cityHash64(h) % 2 = $i")
	[ -n "$hosts" ] || die "shard $((i + 1)) holds no host"
	[ "$(tr ' ' '\n' <<< "$hosts" | sort | tr '\n' ' ')" = "$(tr ' ' '\n' <<< "$want" | sort | tr '\n' ' ')" ] ||
		die "shard $((i + 1)) holds '$hosts', cityHash64 picks '$want'"
	echo "fleet: shard $((i + 1)) holds $hosts"
done

# Every documented query, compared with evstat.
python3 "$top/tests/tools/fleet-check.py" --client "clickhouse-client --port ${ports[0]}" --doc "$top/docs/fleet.md" \
	--evstat "$top/build/bin/evstat" vm="$vm_run" synth-1="$work/synth-1" synth-2="$work/synth-2" || die "fleet-check"
! grep -h '<Error>' "$work"/cluster/ch*/err.log || die "the servers logged errors"
"$top/scripts/ch-cluster" stop "$work/cluster"
for p in $pids; do ! kill -0 "$p" 2> /dev/null || die "server $p still runs"; done
echo "fleet: servers stopped; $(( $(date +%s) - start ))s in all"
