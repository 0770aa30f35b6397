#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2 4
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 "$here/guest-rmmod-storm.sh"
