#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 2
# vm-boot: evdrain
set -eu
. "$(dirname "$0")/hostlib.sh"
vm "$here/guest-clock-offset.sh"
