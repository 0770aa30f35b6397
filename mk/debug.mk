# SPDX-License-Identifier: GPL-2.0
# Debug-kernel lane (issue 4), included at the end of the top-level Makefile.
#   make debug-kernel   build (once; cached under /var/cache/evtrace/kernels/) the
#                       KASAN + lockdep + kmemleak + UBSAN kernel; prints its tree
#   make check-debug    evtrace.ko against that tree, then every VM test
#                       (tests/vm/t-*.sh) booted on it; any KASAN/lockdep/UBSAN/
#                       kmemleak report, BUG or WARNING fails the test
#   make kcsan-kernel   build (once, cached beside it) the second debug kernel:
#                       KCSAN + lockdep + UBSAN (scripts/debug-kernel --flavour
#                       kcsan; KCSAN excludes KASAN); prints its tree
#   make check-kcsan    evtrace.ko against that tree, then the harness, recorder,
#                       hotplug, netlink and evdrain VM tests booted on it; a KCSAN
#                       data-race report fails the test like any other report, and
#                       the distinct reports of all runs are listed at the end
# Each lane logs to its own build/test-logs/<check-debug|check-kcsan>/, so the two
# lanes (and make check) can run at once without mixing their logs.
# Knobs:
#   CHECK_DEBUG_TESTS="word ..."  only the VM tests whose names contain a word
#                                 (default: all)
#   CHECK_DEBUG_SKIP="word ..."   leave out the tests whose names contain a word
#                                 (default below; CHECK_DEBUG_SKIP= runs them all)
#   CHECK_DEBUG_SMP=max|all       each test once at the largest vCPU count of its
#                                 "# vm-smp:" line (default), or at every count
#   CHECK_DEBUG_TIMEOUT_SCALE=N   multiplies every VM test's time limit. Measured:
#                                 a debug-kernel VM run takes 3-5x as long as on the
#                                 stock kernel (~20 s boot, ~20 s of kmemleak scans,
#                                 the test at KASAN + lockdep speed).
#   CHECK_KCSAN_TESTS, CHECK_KCSAN_SKIP, CHECK_KCSAN_SMP, CHECK_KCSAN_TIMEOUT_SCALE
#                                 the same for check-kcsan (its tests default to
#                                 the words below)

CHECK_DEBUG_TESTS ?=
# Empty by default: by hand, the whole suite runs (a test that hangs the debug
# guest, like netlink-restart at the time of writing, should show, not hide).
CHECK_DEBUG_SKIP ?=
CHECK_DEBUG_SMP ?= max
CHECK_DEBUG_TIMEOUT_SCALE ?= 4

CHECK_KCSAN_TESTS ?= harness recorder hotplug netlink evdrain
CHECK_KCSAN_SKIP ?=
CHECK_KCSAN_SMP ?= max
CHECK_KCSAN_TIMEOUT_SCALE ?= 4

.PHONY: debug-kernel check-debug kcsan-kernel check-kcsan

debug-kernel:
	@scripts/debug-kernel

kcsan-kernel:
	@scripts/debug-kernel --flavour kcsan

# The lane, for either kernel: $(1) scripts/debug-kernel's options, $(2) vm-run's
# checkers option, $(3) the tests, $(4) skipped, $(5) vCPU counts, $(6) time-limit
# scale, $(7) the lane's name (its start stamp), $(8) what the kernel is called,
# $(9) the boot banner that proves its checkers, $(10) the name of a variable
# holding a last shell step (before the exit).
define debug_lane
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory userspace
	@set -e; \
	kdir=$$(scripts/debug-kernel$(1)); \
	rel=$$(cat "$$kdir/kernel.release"); \
	scripts/build-module "$$kdir" >/dev/null; \
	echo "  built build/kmod/$$rel/evtrace.ko against the $(8) $$kdir"; \
	logdir=build/test-logs/$(7); mkdir -p $$logdir; touch $$logdir/.start; \
	set +e; \
	EVTRACE_TEST_LOGS=$$(pwd)/$$logdir \
	EVTRACE_VM_OPTS="--kernel-image $$kdir/arch/x86/boot/bzImage --kver $$rel --modules-dir $$kdir/guest-modules $(2) $${EVTRACE_VM_OPTS:-}" \
	EVTRACE_VM_KDIR=$$kdir \
	EVTRACE_VM_TIMEOUT_SCALE=$(6) \
	EVTRACE_VM_SMPS=$(5) \
	EVTRACE_VM_SKIP="$(4)" \
		scripts/run-tests --vm-only $(3); \
	rc=$$?; \
	logs=$$(find $$logdir -name '*.log' -newer $$logdir/.start | sort); \
	proof=$$(grep -l 'kernel checkers: .*$(9)' $$logs /dev/null | sort); \
	echo "=== $(8) $$rel: $$(echo $$proof | wc -w) of $$(echo $$logs | wc -w) VM runs logged the checkers' boot banners, e.g. $$(echo $$proof | cut -d' ' -f1):"; \
	[ -z "$$proof" ] || grep '^vm-run: kernel checkers:' $$(echo $$proof | cut -d' ' -f1) | awk '!seen[$$0]++'; \
	$(if $(10),$($(10))) \
	exit $$rc
endef

check-debug:
	$(call debug_lane,,--require-checkers,$(CHECK_DEBUG_TESTS),$(CHECK_DEBUG_SKIP),$(CHECK_DEBUG_SMP),$(CHECK_DEBUG_TIMEOUT_SCALE),check-debug,debug kernel,KernelAddressSanitizer initialized)

# check-kcsan's last step: every distinct KCSAN report of the runs with a
# module frame, evtrace's or a test's (those fail), with the number of runs that had it (t-harness's
# deliberate evt_fault_racer race left out), then the kernel's own races that
# were dropped (no module frame, scripts/kcsan-report-filter.awk). Each failed
# run's log has the whole report.
kcsan_summary = ignored=$$(for l in $$logs; do tr -d '\r' < "$$l" | sed -n 's/^vm-run: kernel race ignored ([^)]*): //p' | sort -u; done | \
		sort | uniq -c | sort -rn); \
	races=$$(for l in $$logs; do tr -d '\r' < "$$l" > "$$l.judged"; \
		awk 'FNR == NR { if (sub(/^vm-run: kernel race ignored [(][^)]*[)]: /, "")) ignored[$$0] = 1; next } \
			/^vm-run: kernel race ignored/ { next } \
			match($$0, /BUG: KCSAN: .*/) { t = substr($$0, RSTART); if (!(t in ignored) && !(t in seen)) { seen[t] = 1; print t } }' \
			"$$l.judged" "$$l.judged"; rm -f "$$l.judged"; done | \
		grep -v 'evt_fault_racer' | sort | uniq -c | sort -rn); \
	if [ -n "$$races" ]; then \
		echo "=== KCSAN reports with a module frame (runs, first line; the whole reports are in the failed runs' logs):"; echo "$$races"; \
	else echo "=== no KCSAN report with a module frame in $$(echo $$logs | wc -w) VM runs"; fi; \
	[ -z "$$ignored" ] || { echo "=== the kernel's own races, no module frame, not failing (runs, first line):"; echo "$$ignored"; }; \
	for l in $$logs; do tr -d '\r' < "$$l" | grep -m1 '^vm-run: kcsan counters:' | sed "s|^|  $$(basename $$l .log): |"; done;

check-kcsan:
	$(call debug_lane, --flavour kcsan,--require-checkers=kcsan,$(CHECK_KCSAN_TESTS),$(CHECK_KCSAN_SKIP),$(CHECK_KCSAN_SMP),$(CHECK_KCSAN_TIMEOUT_SCALE),check-kcsan,KCSAN kernel,vm-run: KCSAN on from here,kcsan_summary)
