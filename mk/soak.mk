# SPDX-License-Identifier: GPL-2.0
# The soak test (issue 10), included from the top-level Makefile; not part of
# make check.
#   make soak [SOAK_MINUTES=N]        N minutes (default 10) in one VM boot of the
#                                     stock kernel: generator on all CPUs at varying
#                                     rates, evdrain draining, CPU 1 unplugged and
#                                     replugged, evdrain SIGKILLed and restarted with
#                                     --attach, discard and overwrite sessions in turn;
#                                     then the exactness invariant and babeltrace2 and
#                                     evcat reading every trace (scripts/soak)
#   make soak-debug [SOAK_MINUTES=N]  the same on the debug kernel (mk/debug.mk's,
#                                     built once and cached)
#   make soak-kcsan [SOAK_MINUTES=N]  the same on the KCSAN kernel (make kcsan-kernel's;
#                                     a data-race report fails the soak)
# Knobs: SOAK_SESSION_SECONDS (default 120), SOAK_OPTS (more scripts/soak options,
# e.g. --keep to keep the traces in build/soak/).

SOAK_MINUTES ?= 10
SOAK_SESSION_SECONDS ?= 120
SOAK_OPTS ?=

.PHONY: soak soak-debug soak-kcsan

# Only what the VM and the host checks use: the module and the programs (not
# the unit tests).
soak:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory module $(PROGS) $(TEST_TOOLS)
	@scripts/soak --minutes $(SOAK_MINUTES) --session-seconds $(SOAK_SESSION_SECONDS) $(SOAK_OPTS)

soak-debug:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory $(PROGS) $(TEST_TOOLS)
	@scripts/soak --debug --minutes $(SOAK_MINUTES) --session-seconds $(SOAK_SESSION_SECONDS) $(SOAK_OPTS)

soak-kcsan:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory $(PROGS) $(TEST_TOOLS)
	@scripts/soak --kernel-flavour kcsan --minutes $(SOAK_MINUTES) --session-seconds $(SOAK_SESSION_SECONDS) $(SOAK_OPTS)
