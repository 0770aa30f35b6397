#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: evdrain
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 400 "$here/guest-evdrain-fail.sh"
# SIGKILL + --attach: the trace reads, with no duplicate event.
"$evtest" check "$out/first"
babeltrace2 "$out/first" > /dev/null || die "babeltrace2 cannot read the attached trace"
# --force: a complete trace in the place of the old one.
"$evtest" check "$out/forced"
babeltrace2 "$out/forced" > /dev/null || die "babeltrace2 cannot read the trace recorded with --force"
# A directory name with a quote: the summary is still JSON.
python3 - "$out/quoted.json" <<'PY' || die "--stats-json with a quote in the directory name is not JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dir"] == '/tmp/q"d', d["dir"]
PY
# Disk full: whole packets only, babeltrace2 reads them without error.
ls -la "$out/full"
"$evtest" check "$out/full"
babeltrace2 "$out/full" > /dev/null 2> "$out/bt.err" || { cat "$out/bt.err"; die "babeltrace2 fails on the disk-full trace"; }
! grep -q ERROR "$out/bt.err" || die "babeltrace2 errors on the disk-full trace"
echo "bad options and directories refused first; second instance refused; SIGKILL + --attach resumed;"
echo "a trace is never overwritten, --force replaces it; traces private; disk full left a readable trace"
