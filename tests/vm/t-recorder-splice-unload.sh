#!/usr/bin/env bash
# vm-smp: 2
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-splice-unload.sh"
