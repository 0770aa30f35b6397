# SPDX-License-Identifier: GPL-2.0
# Sourced by the bench scripts (bash) on the host: LTTng 2.13 in the same boot when it
# can be had. scripts/lttng-vm builds lttng-modules (once, cached) and stages
# lttng-tools; the guest gets it with vm-run --overlay. EVTRACE_BENCH_LTTNG=0
# leaves LTTng out (the benchmarks then run as they did without it); when
# lttng-vm fails (no vendored sources, no network for lttng-tools), the
# benchmark says why and runs without it.
# Sets: lttng_vmargs (vm-run options, empty without LTTng), lttng_version.
lttng_vmargs=() lttng_version=""
lttng_prepare() { # name of the benchmark
	local root
	if [ "${EVTRACE_BENCH_LTTNG:-1}" = 0 ]; then
		echo "$1: LTTng left out (EVTRACE_BENCH_LTTNG=0)"
		return 0
	fi
	if root=$("$top/scripts/lttng-vm" 2> "$out/lttng-vm.log"); then
		lttng_vmargs=(--overlay "$root")
		lttng_version=$(tr '\n' ' ' < "$root/evtrace/lttng-version")
	else
		echo "$1: LTTng left out: scripts/lttng-vm failed:"
		tail -n 5 "$out/lttng-vm.log" | sed 's/^/  /'
	fi
}
