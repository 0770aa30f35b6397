#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-smp: 4
# vm-boot: recorder
# (vm-smp: at 4 vCPUs: evview's page shows a lane per CPU and the merge runs over 8 streams; the 2-vCPU run added nothing the 4-vCPU one does not check.)
# The analysis tools on a real trace (issue 18): the LTTng analyses run on
# what evdrain wrote and agree with our own computation from evcat's JSON;
# babeltrace2 and babeltrace 1 read it; the metadata has Trace Compass's
# kernel layout; the state dump lists every thread alive at START; evstat's
# numbers (issue 20) equal the analyses' and our own, and its second run
# reads no stream file. At 4 vCPUs (every lane that runs this test at its
# largest count, the debug lanes too: 5-10 s of the host's time), evview's
# page on this trace in Debian's Chromium, headless (issue 21): a lane per CPU
# of evcat's output, the thread names of the trace, the statistics panel's
# numbers; screenshots in build/evview/. Issue 45: block I/O on a virtio
# disk against lttng-iousagetop, lttng-iolatencytop and evstat; kernel stacks
# (power_cpu_frequency's from the stacks= parameter, block_rq_issue's from
# evctl enable --stack) named through the saved symbols; CPU frequencies the
# fault module sets and the VM's idle states in evstat.
set -eu
. "$(dirname "$0")/hostlib.sh"
# The scratch module's device fires cpu_frequency (the VM has no cpufreq) on
# a known call path (the kernel stacks' test).
build_faultmod
cp "$mod/evt_fault.ko" "$out/"
vm "$here/guest-analyses.sh"
"$evtest" check "$out/trace"
# (EVTRACE_KEEP_TRACE=DIR keeps a copy of the trace, to look at.)
[ -z "${EVTRACE_KEEP_TRACE:-}" ] || cp -a "$out/trace" "$EVTRACE_KEEP_TRACE"
python3 "$here/analyses-check.py" "$top/build/bin/evcat" "$out/trace" "$out"
python3 "$top/tests/tools/evstat-check.py" "$top/build/bin/evcat" "$top/build/bin/evstat" "$out/trace" --lttng
if [ "${SMP:-2}" = 4 ]; then
	command -v chromium > /dev/null || die "chromium not installed (make deps installs it)"
	python3 "$top/tests/tools/evview-browser.py" "$top/build/bin/evview" "$out/trace" "$top/build/evview"
fi
