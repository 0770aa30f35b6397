#!/usr/bin/env bash
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-clock-offset.sh"
