# SPDX-License-Identifier: GPL-2.0
# Kernel matrix and packaging checks (issue 9), included by the top-level Makefile.
#   make check-matrix   6.1, 6.12 and 6.12-rt (bookworm-backports, added to apt's
#                       sources from the machine's own mirror when missing):
#                       install headers + images, build with W=1 (a warning fails),
#                       the VM suite on each kernel, then the DKMS test; prints a
#                       summary per kernel (scripts/check-matrix; knobs there:
#                       CHECK_MATRIX_KERNELS, CHECK_MATRIX_TESTS, CHECK_MATRIX_SMP,
#                       CHECK_MATRIX_DKMS)
#   make check-dkms     only the DKMS test (root): dkms add/build/install/remove
#                       for every installed headers package, the module loaded
#                       in the VM for each kernel
#   make check-pkg      only the packaging tests of make check (install, man
#                       pages, unit, W=1 builds against 6.1 and 6.12)

.PHONY: check-matrix check-dkms check-pkg

check-matrix:
	@scripts/check-matrix

check-dkms:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory userspace
	@bash tests/pkg/dkms-test.sh

check-pkg:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory userspace
	@scripts/run-tests --pkg-only
