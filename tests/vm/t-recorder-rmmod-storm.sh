#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-boot: recorder
# (vm-smp: at 4 vCPUs only: unloads race with writers, readers and flushes on four CPUs at once.)
set -eu
. "$(dirname "$0")/hostlib.sh"
vm --timeout 600 "$here/guest-rmmod-storm.sh"
