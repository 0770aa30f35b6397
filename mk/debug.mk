# Debug-kernel lane (issue 4), included at the end of the top-level Makefile.
#   make debug-kernel   build (once; cached under /var/cache/evtrace/kernels/) the
#                       KASAN + lockdep + kmemleak + UBSAN kernel; prints its tree
#   make check-debug    evtrace.ko against that tree, then every VM test
#                       (tests/vm/t-*.sh) booted on it; any KASAN/lockdep/UBSAN/
#                       kmemleak report, BUG or WARNING fails the test
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

CHECK_DEBUG_TESTS ?=
# Empty by default: by hand, the whole suite runs (a test that hangs the debug
# guest, like netlink-restart at the time of writing, should show, not hide).
CHECK_DEBUG_SKIP ?=
CHECK_DEBUG_SMP ?= max
CHECK_DEBUG_TIMEOUT_SCALE ?= 4

.PHONY: debug-kernel check-debug

debug-kernel:
	@scripts/debug-kernel

check-debug:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory userspace
	@set -e; \
	kdir=$$(scripts/debug-kernel); \
	rel=$$(cat "$$kdir/kernel.release"); \
	scripts/build-module "$$kdir" >/dev/null; \
	echo "  built build/kmod/$$rel/evtrace.ko against the debug kernel $$kdir"; \
	mkdir -p build/test-logs; touch build/test-logs/.check-debug-start; \
	set +e; \
	EVTRACE_VM_OPTS="--kernel-image $$kdir/arch/x86/boot/bzImage --kver $$rel --modules-dir $$kdir/guest-modules --require-checkers $${EVTRACE_VM_OPTS:-}" \
	EVTRACE_VM_KDIR=$$kdir \
	EVTRACE_VM_TIMEOUT_SCALE=$(CHECK_DEBUG_TIMEOUT_SCALE) \
	EVTRACE_VM_SMPS=$(CHECK_DEBUG_SMP) \
	EVTRACE_VM_SKIP="$(CHECK_DEBUG_SKIP)" \
		scripts/run-tests --vm-only $(CHECK_DEBUG_TESTS); \
	rc=$$?; \
	logs=$$(find build/test-logs -name '*.log' -newer build/test-logs/.check-debug-start | sort); \
	proof=$$(grep -l 'kernel checkers: .*KernelAddressSanitizer initialized' $$logs /dev/null | sort); \
	echo "=== debug kernel $$rel: $$(echo $$proof | wc -w) of $$(echo $$logs | wc -w) VM runs logged the checkers' boot banners, e.g. $$(echo $$proof | cut -d' ' -f1):"; \
	[ -z "$$proof" ] || grep '^vm-run: kernel checkers:' $$(echo $$proof | cut -d' ' -f1); \
	exit $$rc
