#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# evview's page in Debian's Chromium, headless (issue 21), on what the VM
# trace of t-analyses (which runs tests/tools/evview-browser.py at 4 vCPUs)
# does not have: losses. On an evsynth --kernel trace (4 CPUs, stalls: every
# stream discards events), evview-browser.py --losses checks the statistics
# panel's losses table (each lossy stream's discarded count, /api/stats's)
# besides the rest (a lane per CPU, /api/stats's and evcat's numbers, the
# names of the trace's threads, no error banner), and (issue 43) the loss
# windows striped over the lanes around every range evcat warns of, the
# header's and panel's loss totals as evstat --json's, the state legend,
# the scheduling and worst latencies, and a click on a slice; it runs
# without a VM (make check-pkg). Screenshots: build/evview/synth/*.png.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
command -v chromium > /dev/null || { echo "FAIL: chromium not installed (make deps installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/bin/evsynth "$tmp/trace" --kernel --events 400000 --cpus 4 --stall-every 60000 --quiet
python3 tests/tools/evview-browser.py --losses build/bin/evview "$tmp/trace" build/evview/synth
