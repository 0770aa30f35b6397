#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# evview's page in Debian's Chromium, headless (issue 21): on an evsynth
# --kernel trace (4 CPUs, with losses), tests/tools/evview-browser.py loads
# the page while the background pass runs and after it, the whole trace and
# a zoomed view, and checks the DOM (a lane per CPU, the statistics panel
# ready with /api/stats's top threads, the legend naming the trace's
# threads, no error banner). Screenshots: build/evview/*.png.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
command -v chromium > /dev/null || { echo "FAIL: chromium not installed (make deps installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/bin/evsynth "$tmp/trace" --kernel --events 400000 --cpus 4 --stall-every 60000 --quiet
python3 tests/tools/evview-browser.py build/bin/evview "$tmp/trace" build/evview
