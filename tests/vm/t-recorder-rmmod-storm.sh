#!/usr/bin/env bash
# vm-smp: 2 4
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 "$here/guest-rmmod-storm.sh"
