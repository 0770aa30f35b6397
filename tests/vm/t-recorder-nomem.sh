#!/usr/bin/env bash
# vm-smp: 2
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --mem 1024 --timeout 600 "$here/guest-nomem.sh"
