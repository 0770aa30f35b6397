#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad parameters fail insmod with -EINVAL and a line naming the parameter
# and its range.
. "$EVTRACE_TESTS/vm/lib.sh"
set -e
try() { # expected-dmesg-text params...
	want=$1
	shift
	if insmod "$EVTRACE_KO" "$@" 2>/tmp/err; then fail "insmod $* succeeded"; fi
	cat /tmp/err
	grep -q 'Invalid argument\|Invalid parameters' /tmp/err || fail "insmod $*: not EINVAL"
	dmesg | grep -q "$want" || fail "insmod $*: no dmesg line '$want'"
	dmesg | grep evtrace
}
try 'subbuf_size=1000 is invalid: it must be a power of two from 4096 (PAGE_SIZE) to 4194304' subbuf_size=1000
try 'subbuf_size=8388608 is invalid' subbuf_size=8388608
try 'num_subbuf=3 is invalid: it must be a power of two from 2 to 4096' num_subbuf=3
try 'num_subbuf=8192 is invalid' num_subbuf=8192
try 'high_water=0 is invalid: it must be a percentage from 1 to 100' high_water=0
try 'high_water=101 is invalid' high_water=101
try 'mode=sometimes is invalid: it must be discard or overwrite' mode=sometimes
try 'flush_ms=4000000 is invalid' flush_ms=4000000
try 'probe_linger_ms=3600001 is invalid' probe_linger_ms=3600001
# Rings that cannot be had: -ENOMEM naming the total asked, before allocating.
if insmod "$EVTRACE_KO" subbuf_size=4194304 num_subbuf=4096 2>/tmp/err; then fail "a 16 GiB ring loaded"; fi
cat /tmp/err
grep -q 'Cannot allocate memory' /tmp/err || fail "not ENOMEM"
dmesg | grep -q 'cannot load: the rings need [0-9]* MiB (subbuf_size=4194304 x num_subbuf=4096 x 2 channels' ||
	fail "no size in the ENOMEM message"
# Good limits load, with the values asked for, and unload.
insmod "$EVTRACE_KO" subbuf_size=4096 num_subbuf=2 high_water=100 flush_ms=0 mode=overwrite ||
	fail "the smallest rings and the limits of every parameter do not load"
for kv in subbuf_size=4096 num_subbuf=2 high_water=100 flush_ms=0; do
	v=$(cat "/sys/module/evtrace/parameters/${kv%%=*}") || fail "no parameter ${kv%%=*} in sysfs"
	[ "$v" = "${kv#*=}" ] || fail "${kv%%=*} is $v in sysfs, not ${kv#*=}"
done
rmmod evtrace || fail "rmmod after the good limits"
echo params ok
