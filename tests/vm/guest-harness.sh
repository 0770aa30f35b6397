#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the harness self-test (t-harness.sh): misbehave as asked.
#   exit3        write $OUT/harness.txt, then exit 3
#   hang         never return (vm-run's time limit must end the run)
#   fault NAME   load $OUT/evt_fault.ko fault=NAME (the scratch module)
case "$1" in
exit3)
	echo "written before exit 3" > "$OUT/harness.txt"
	exit 3 ;;
hang)
	while :; do sleep 60; done ;;
fault)
	insmod "$OUT/evt_fault.ko" "fault=$2" || exit 1
	echo "loaded fault=$2" > "$OUT/harness.txt"
	exit 0 ;;
esac
echo "guest-harness: unknown mode $1"
exit 2
