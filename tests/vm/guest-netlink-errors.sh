#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# evctl's errors and exit codes: 2 for usage errors (caught before anything
# is sent), 1 with the kernel's own message when it refuses (CONFIG of the
# mode while tracing: -EBUSY), 1 with "permission denied" for a process
# without CAP_NET_ADMIN (uid 65534, no capabilities), which may still read
# STATUS and watch notifications; 4 with "module is not loaded" and the
# command that loads it without the module (docs/exit-codes.md); 3 when
# watch times out; --help for the program and every command.
. "$EVTRACE_TESTS/vm/lib.sh"
. "$EVTRACE_TESTS/vm/nllib.sh"
set -e
ncpu=$(grep -c ^processor /proc/cpuinfo)

expect 4 evctl status
err_has "evtrace module is not loaded"
expect 4 evctl start
# Not installed under /lib/modules in the guest: insmod with the module's path.
err_has "insmod "

insmod "$EVTRACE_KO" flush_ms=0

# Usage errors: exit 2, the message names the problem.
expect 2 evctl
err_has "no command"
expect 2 evctl begin
err_has "unknown command 'begin'"
expect 2 evctl config
expect 2 evctl config high_water=0
err_has "high_water is a percentage 1..100"
expect 2 evctl config flush_ms=3600001
expect 2 evctl config colour=blue
err_has "unknown key 'colour'"
expect 2 evctl config mode=ring
expect 2 evctl enable no_such_event
err_has "unknown event 'no_such_event'"
expect 2 evctl disable gen_compact bogus
expect 2 evctl generate --channel fast
err_has "--channel is compact, normal or both"
expect 2 evctl generate --cpus 3-1
err_has "bad CPU list"
expect 2 evctl generate --cpus 0,,1
expect 2 evctl generate --events 0
expect 2 evctl generate --rate 4294967296
expect 2 evctl timer --period-us 9
err_has "--period-us wants microseconds 10..1000000 (or with a unit: 1ms), not '9'"
expect 2 evctl timer
err_has "timer: give --period-us N"
expect 2 evctl timer-stop now
expect 2 evctl watch --count 0
expect 2 evctl status --xml
expect 2 evctl start now
evctl status | grep -q '^  gen_compact  *compact  *yes  *no$' || fail "a refused enable/disable changed something"

# Help: exit 0 on stdout, for the program and each command.
expect 0 evctl --help
grep -q '^usage: evctl COMMAND' /tmp/out || fail "evctl --help"
grep -q '^exit status: 0' /tmp/out || fail "exit codes are not documented in --help"
for c in start stop status config flush enable disable generate generate-stop timer timer-stop watch rotate statedump; do
	expect 0 evctl $c --help
	grep -q "^usage: evctl $c" /tmp/out || fail "evctl $c --help"
done

# The kernel refuses: exit 1, its extack message printed.
expect 1 evctl statedump
err_has "tracing is not running: the state dump is recorded while tracing"
expect 1 evctl rotate
err_has "no drainer is listening to the notify group"
expect 2 evctl rotate now
err_has "rotate takes no arguments"
evctl start
expect 0 evctl statedump
expect 1 evctl config mode=overwrite
err_has "the mode can only change while tracing is stopped"
cat /tmp/err
evctl status | grep -q '^mode  *discard$' || fail "the mode changed anyway"
expect 0 evctl config high_water=90 flush_ms=100
evctl status | grep -q '^high_water  *90%$' || fail "high_water while tracing"
expect 1 evctl generate --cpus $ncpu-$((ncpu + 3))
err_has "bad CPU list"
cat /tmp/err
echo 0 > /sys/devices/system/cpu/cpu1/online
expect 1 evctl generate --cpus 1
err_has "none of the CPUs asked for is online"
cat /tmp/err
echo 1 > /sys/devices/system/cpu/cpu1/online
evctl stop
expect 0 evctl config mode=overwrite
evctl status | grep -q '^mode  *overwrite$' || fail "mode after stop"
evctl config mode=discard

# Strict validation of every command, through hand-made messages (evnl): a
# non-zero reserved byte of the genl header, reserved nlmsg_flags bits, an
# unknown attribute, one the command does not take, trailing bytes after
# the attributes and inside a nest, a nest without NLA_F_NESTED. Each one:
# EINVAL with the kernel's message, and nothing changed.
strict() { # MESSAGE EVNL_ARGS...
	m=$1
	shift
	expect 1 evnl "$@"
	err_has "error EINVAL: $m"
	echo "evnl $*: $(cat /tmp/err)"
}
expect 0 evnl config high_water:u32:90
expect 0 evnl flush
strict "genlmsghdr.reserved field is not 0" --reserved 1 start
strict "genlmsghdr.reserved field is not 0" --reserved 0x8000 config high_water:u32:10
strict "ambiguous or reserved bits set in nlmsg_flags" --nlflags 100 start
strict "Unknown attribute type" config high_water:u32:10 999:u32:1
strict "Unsupported attribute" config high_water:u32:10 gen_events:u64:5
strict "this command takes no attributes" start mode:u8:0
strict "this command takes no attributes" flush high_water:u32:10
strict "this command takes no attributes" timer-stop timer_period_us:u32:100
for us in 9 1000001; do
	expect 1 evnl timer timer_period_us:u32:$us
	err_has "error ERANGE: integer out of range"
done
strict "TIMER needs TIMER_PERIOD_US" timer
strict "Unsupported attribute" timer timer_period_us:u32:100 gen_rate:u32:5
strict "bytes leftover after parsing attributes" config high_water:u32:10 raw:0102
# EVENTS { EVENT { NAME "gen_ping", ENABLED 0 } } and 2 bytes of garbage in EVENTS
strict "bytes leftover after parsing attributes" config \
	raw:220007801c0008800d00010067656e5f70696e67000000000500020000000000abcd0000
# EVENTS { EVENT without NLA_F_NESTED { NAME "gen_ping", ENABLED 0 } }
strict "NLA_F_NESTED is missing" config \
	raw:200007801c0008000d00010067656e5f70696e67000000000500020000000000
evctl status > /tmp/st
grep -q '^state  *stopped$' /tmp/st || fail "a refused START started tracing"
grep -q '^high_water  *90%$' /tmp/st || fail "a refused CONFIG changed high_water"
grep -q '^  gen_ping  *compact  *yes  *no$' /tmp/st || fail "a refused CONFIG disabled gen_ping"
evctl start
sleep 0.3
evctl stop
awk 'NR > 1 && $6 != 0 { exit 1 }' $D/generate || fail "a refused TIMER started the hrtimer source"

# Without CAP_NET_ADMIN: status yes, changes no.
expect 0 nopriv evctl status
grep -q '^state  *stopped$' /tmp/out || fail "unprivileged status"
expect 0 nopriv evctl status --json
for c in start stop flush generate-stop timer-stop "timer --period-us 100" rotate statedump \
	 "config mode=overwrite" "config high_water=10" \
	 "enable gen_ping" "disable gen_compact" "generate --events 1 --cpus 0"; do
	expect 1 nopriv evctl $c
	err_has "permission denied: evtrace control needs CAP_NET_ADMIN"
done
cat /tmp/err
evctl status > /tmp/st
grep -q '^state  *stopped$' /tmp/st || fail "started by an unprivileged process"
grep -q '^high_water  *90%$' /tmp/st || fail "configured by an unprivileged process"
grep -q '^  gen_ping  *compact  *yes  *no$' /tmp/st || fail "an unprivileged process changed an event"
nopriv id

# debugfs is read-only: no file there changes the tracer's state, and the
# old control files are gone (netlink is the one control plane).
for f in control timer; do
	[ ! -e $D/$f ] || fail "debugfs still has $f"
done
for f in stats generate; do
	[ "$(stat -c %a $D/$f)" = 444 ] || fail "debugfs $f is mode $(stat -c %a $D/$f), not 444"
	! echo start 2>/dev/null > $D/$f || fail "root wrote to debugfs $f"
done

# Notifications are open to everyone too.
nopriv evctl watch --reason STOPPED --count 1 --timeout 60 > /tmp/np 2> /tmp/np.err &
np=$!
wait_watching /tmp/np.err
evctl start
evctl stop
wait $np || fail "unprivileged watch (exit $?): $(cat /tmp/np.err)"
grep -q '^STOPPED ' /tmp/np || fail "unprivileged watch got no STOPPED"

# watch: 3 when --count is not reached in --timeout.
expect 3 evctl watch --reason STOPPED --count 1 --timeout 2
err_has "0 of 1 notifications before the time-out"

rmmod evtrace
expect 4 evctl stop
err_has "evtrace module is not loaded"
echo netlink errors ok
