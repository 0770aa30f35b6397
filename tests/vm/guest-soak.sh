#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The soak (make soak, scripts/soak; not a t-*.sh test): for SECONDS, sessions
# of about SESSION seconds each, four kinds in turn: discard and overwrite,
# each with "pinned" and with "live" hotplug. In a session: the generator on
# every online CPU at a rate that changes every few seconds (flat out now and
# then), evdrain draining into $OUT/sN; every other step CPU 1 is unplugged
# and replugged; every third step evdrain is killed with SIGKILL and
# restarted with --attach; now and then it is stopped (SIGSTOP) for a second
# so that the rings fill. Pinned: the generator is stopped around each
# transition and runs on CPU 0 while CPU 1 is away, so no generator thread
# migrates and the invariant holds per channel and CPU (recorded + discarded
# + too_big + refused == generated, as check_exact). Live: the generator runs
# through the unplug (its CPU 1 thread is pushed to CPU 0 and records there),
# so the invariant is checked per channel over all CPUs. At the end of a
# session: evdrain stopped with SIGTERM (it must exit 0), the invariant, the
# module unloaded. Problems are counted, not fatal: one line per session in
# $OUT/sessions, the problems in $OUT/errors. Throughout a session two
# netlink FLUSH loops run beside the flush work and the hotplug (remote
# flushes of an offline CPU's rings from several CPUs at once); after it, a
# short rmmod storm (guest-rmmod-storm.sh: load/unload cycles under netlink
# and device fire, STATUS as nobody).
#   guest-soak.sh SECONDS [SESSION_SECONDS [KINDS [nokill [ROTATE]]]]
# KINDS: the session kinds to cycle through (default "discard-pinned
# overwrite-pinned discard-live overwrite-live"); nokill: no SIGKILL/--attach
# (to narrow a failure down); ROTATE: seconds between chunks (evdrain
# --rotate-interval, a hook logging every chunk to $OUT/sN.hooked), 0: none.
. "$EVTRACE_TESTS/vm/lib.sh"
total=${1:-300} sess_len=${2:-120}
kinds=${3:-discard-pinned overwrite-pinned discard-live overwrite-live}
nokill=${4:-}
rotate=${5:-0}
printf '#!/bin/sh\necho "$EVT_CHUNK_SEQ" >> "$SOAK_HOOKED"\n' > /tmp/soak-hook
chmod +x /tmp/soak-hook
nkinds=$(echo $kinds | wc -w)
CPU1=/sys/devices/system/cpu/cpu1/online
start=$(date +%s)
end=$((start + total))
n=0 errors=0
: > "$OUT/sessions"
: > "$OUT/errors"

err() {
	echo "SOAK ERROR (session $n): $*"
	echo "session $n: $*" >> "$OUT/errors"
	errors=$((errors + 1))
}
# (the low bits of busybox's RANDOM repeat short patterns)
rnd() { echo $(((RANDOM >> 3) % $1)); }
gen_stop() { evctl generate-stop || err "generate stop refused"; }
# Stopped first: GENERATE once set the new rate before it stopped the old
# threads, and a thread that ran flat out (rate=0) and sees a rate then
# sleeps (uninterruptibly, in usleep_range) until its seq / rate schedule
# catches up: minutes, with the write blocked in kthread_stop (found by this
# soak; kmod/evtrace_gen.c).
gen() {
	gen_stop
	evctl generate --events 1000000000 --rate $1 --channel both --sizes mix --cpus all ||
		err "generate rate=$1 refused"
}
# The drainer: the first one configures and starts tracing, the others attach.
drainer() { # extra options
	if [ "$rotate" != 0 ]; then
		SOAK_HOOKED=$OUT/s$n.hooked evdrain -q -o "$dir" --rotate-interval "${rotate}s" \
			--on-chunk /tmp/soak-hook "$@" >> "/tmp/evdrain.$n.log" 2>&1 &
	else
		evdrain -q -o "$dir" "$@" >> "/tmp/evdrain.$n.log" 2>&1 &
	fi
	pid=$!
}
# Stop the drainer with SIGKILL; it must still have been running.
kill_drainer() {
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid
		err "evdrain died by itself (exit $?): $(tail -n 3 /tmp/evdrain.$n.log)"
		return
	fi
	kill -KILL $pid
	wait $pid 2>/dev/null
}
# The drainer has its ring devices open (its signal handlers are in place).
drainer_up() { ls -l /proc/$pid/fd 2>/dev/null | grep -q /dev/evtrace/; }
# lib.sh's exactness check, counted instead of fatal ("total": per channel).
exact() {
	exact_report "$@" > /tmp/exact || err "accounting is not exact: $(grep MISMATCH /tmp/exact)"
}

while [ $(date +%s) -lt $((end - 10)) ]; do
	n=$((n + 1))
	dir=$OUT/s$n
	kind=$(echo $kinds | cut -d' ' -f$(((n - 1) % nkinds + 1)))
	mode=${kind%-*} hp=${kind#*-}
	# Sub-buffers of 4 KiB in sessions 1-4, 16 KiB in 5-8, and so on: each
	# kind of session with both.
	sb=4096
	[ $(((n - 1) / 4 % 2)) = 0 ] || sb=16384
	sess_end=$(($(date +%s) + sess_len))
	[ $sess_end -le $end ] || sess_end=$end
	insmod "$EVTRACE_KO" probes=0 flush_ms=200 subbuf_size=$sb num_subbuf=8 || { err "insmod failed"; break; }
	mkdir -p "$dir"
	drainer --mode $mode
	wait_tracing 120
	rm -f /tmp/soak-flush.stop
	flushers=""
	for k in 1 2; do
		( while [ ! -e /tmp/soak-flush.stop ]; do evctl flush >/dev/null 2>&1; sleep 0.0$(rnd 10); done ) &
		flushers="$flushers $!"
	done
	step=0 cycles=0 restarts=0 stalls=0 rates=""
	while [ $(date +%s) -lt $sess_end ]; do
		step=$((step + 1))
		# Mostly paced rates (events/s per CPU and channel), flat out one step in six.
		case $(rnd 6) in
		0) rate=0 ;; 1) rate=500 ;; 2) rate=2000 ;; 3) rate=5000 ;; 4) rate=10000 ;; *) rate=20000 ;;
		esac
		rates="$rates $rate"
		gen $rate
		sleep $((1 + $(rnd 3)))
		if [ $((step % 2)) = 0 ]; then
			[ $hp = live ] || gen_stop
			echo 0 > $CPU1 || err "CPU 1 would not go offline"
			grep -q '^compact 1 0 ' $D/stats || err "CPU 1's ring is not shown offline"
			[ $hp = live ] || gen $rate
			sleep 1
			[ $hp = live ] || gen_stop
			echo 1 > $CPU1 || err "CPU 1 would not come back"
			grep -q '^compact 1 1 ' $D/stats || err "CPU 1's ring is not shown online"
			gen $rate
			cycles=$((cycles + 1))
		fi
		if [ $((step % 3)) = 0 ] && [ -z "$nokill" ]; then
			kill_drainer
			drainer --attach
			restarts=$((restarts + 1))
		elif [ "$(rnd 4)" = 0 ]; then
			kill -STOP $pid
			sleep 1
			kill -CONT $pid
			stalls=$((stalls + 1))
		fi
	done
	gen_stop
	touch /tmp/soak-flush.stop
	for f in $flushers; do wait "$f"; done
	# A drainer restarted just now may not have set up yet: SIGTERM would kill it.
	wait_until 120 "evdrain never opened the rings" drainer_up
	if kill -0 $pid 2>/dev/null; then
		kill -TERM $pid
		wait $pid
		rc=$?
		[ $rc = 0 ] || err "evdrain exit $rc at the end: $(tail -n 3 /tmp/evdrain.$n.log)"
	else
		wait $pid
		err "evdrain died by itself (exit $?): $(tail -n 3 /tmp/evdrain.$n.log)"
	fi
	tracing_stopped || err "tracing not stopped after evdrain exited"
	if [ $hp = live ]; then exact total; else exact; fi
	cp $D/stats "$OUT/s$n.stats"
	cp $D/generate "$OUT/s$n.gen"
	cp /tmp/evdrain.$n.log "$OUT/s$n.evdrain.log"
	rmmod evtrace || err "rmmod failed"
	STORM_CYCLES=5 sh "$EVTRACE_TESTS/vm/guest-rmmod-storm.sh" > /tmp/storm.$n.log 2>&1 ||
		err "rmmod storm: $(tail -n 3 /tmp/storm.$n.log)"
	echo "session $n mode $mode subbuf $sb hotplug $hp steps $step cycles $cycles restarts $restarts stalls $stalls rates$rates" |
		tee -a "$OUT/sessions"
done
echo "soak guest: $n sessions in $(($(date +%s) - start)) s, $errors errors"
echo "$(($(date +%s) - start))" > "$OUT/seconds"
[ $errors = 0 ]
