#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the DKMS test: the module DKMS built loads, reports its version,
# answers evctl and records the generator's events, and unloads.
set -e
insmod "$EVTRACE_KO"
cat /sys/module/evtrace/version > "$OUT/version"
uname -r > "$OUT/release"
evctl start
evctl generate --events 1000 --rate 0 --channel both --cpus all
i=0
# Generator rows: gen CPU RUNNING DONE COMPACT NORMAL TIMER.
until evctl status | awk '$1 == "gen" { n++; if ($4 != "yes") bad++ } END { exit !(n > 0 && !bad) }'; do
	i=$((i + 1)); [ $i -lt 100 ] || { evctl status; echo "generator did not finish"; exit 1; }
	sleep 0.1
done
evctl stop
evctl status > "$OUT/status"
# Ring rows: CHANNEL CPU ONLINE RECORDED ...: something was recorded.
awk '($1 == "compact" || $1 == "normal") { s += $4 } END { print s; exit !(s > 0) }' "$OUT/status" > "$OUT/recorded"
rmmod evtrace
echo dkms guest ok
