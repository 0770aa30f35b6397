#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# docs/design/code-map.md names every .c file of kmod/, userspace/ and
# tests/tools/ and no file that is gone (scripts/check-code-map); and the
# check itself fails, naming the file, on a map with an entry missing and on
# one with a stale entry. Under a second.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
die() { echo "FAIL: $*"; exit 1; }
scripts/check-code-map || die "docs/design/code-map.md is out of date (above)"
map=docs/design/code-map.md
grep -v '^- `kmod/evtrace_rings.c`' "$map" > "$tmp/missing.md"
out=$(scripts/check-code-map "$tmp/missing.md") && die "check-code-map passed a map without kmod/evtrace_rings.c"
grep -q 'kmod/evtrace_rings.c is not in' <<<"$out" || die "check-code-map did not name the missing file: $out"
{ cat "$map"; echo '- `userspace/lib/gone/evt_gone.c` — a file that is not there'; } > "$tmp/stale.md"
out=$(scripts/check-code-map "$tmp/stale.md") && die "check-code-map passed a map with a stale entry"
grep -q 'lists userspace/lib/gone/evt_gone.c, which does not exist' <<<"$out" || die "check-code-map did not name the stale entry: $out"
echo "check-code-map fails naming a missing file and a stale entry"
