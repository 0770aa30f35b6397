# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmarks' guest scripts when the guest has LTTng
# (scripts/lttng-vm staged it, vm-run --overlay copied it in):
#   lttng_have            true when lttng-tools and lttng-modules are there
#   lttng_up [PROBES]     load the modules (lttng-tracer and the probes named,
#                         comma-separated, default sched) and start lttng-sessiond
#   lttng_down            stop lttng-sessiond and unload every lttng module
#   lttng_consumerd_cpu   user + system CPU seconds of the kernel consumerd so far
#   now_ns                CLOCK_MONOTONIC in ns (busybox date has no %N)
export HOME=/root LTTNG_HOME=/root
lttng_have() { [ -x /usr/bin/lttng-sessiond ] && [ -d "/lib/modules/$(uname -r)/extra" ]; }
lttng_up() {
	probes=${1:-sched}
	mkdir -p /var/run/lttng /root /dev/shm
	# (the user-space domain's shared memory, which the daemon sets up anyway)
	grep -q " /dev/shm " /proc/mounts || mount -t tmpfs shm /dev/shm
	lttng-sessiond -b --kmod-probes="$probes" > /tmp/lttng-sessiond.log 2>&1 || {
		cat /tmp/lttng-sessiond.log; return 1; }
	# The session daemon answers once it has loaded the modules.
	i=0
	until lttng list -k > /dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 120 ] || { echo "lttng-sessiond did not answer"; cat /tmp/lttng-sessiond.log; return 1; }
		sleep 0.5
	done
}
lttng_down() {
	pid=$(pidof lttng-sessiond || true)
	[ -z "$pid" ] || kill $pid
	i=0
	while pidof lttng-sessiond > /dev/null && [ "$i" -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
	# Dependants first: modules nothing uses, over and over.
	for pass in 1 2 3 4 5 6; do
		for m in $(awk '$1 ~ /^lttng/ && $3 == 0 { print $1 }' /proc/modules); do
			rmmod "$m" 2> /dev/null || true
		done
	done
}
lttng_consumerd_cpu() {
	t=0
	for p in $(pidof lttng-consumerd); do
		t=$(awk -v t="$t" '{ print t + ($14 + $15) / 100 }' "/proc/$p/stat" 2>/dev/null || echo "$t")
	done
	echo "$t"
}
now_ns() { awk '/^now at/ { print $3; exit }' /proc/timer_list; }
