# SPDX-License-Identifier: GPL-2.0
# evtrace top-level Makefile.
#   make              evtrace.ko (at the top, against KDIR) + userspace into build/
#   make tools        the programs and man pages alone (build/bin/, build/man/):
#                     no module, tests, sanitizers or benchmarks
#   make deps         install the Debian packages everything needs (idempotent)
#   make check        unit tests (plain and ASan+UBSan) then the VM suite
#   make demo         boot a VM, trace a small workload, show the result
# The kernel build itself is driven by ./Kbuild.

KDIR ?= $(shell scripts/find-kdir 2>/dev/null)
# Its source tree: Debian's headers package splits the kernel's build tree
# (generated headers) from the common one (include/linux/syscalls.h).
KSRC ?= $(or $(shell sed -n 's|^include \(/.*\)/Makefile$$|\1|p' $(KDIR)/Makefile 2>/dev/null | head -n 1),$(KDIR))
# The version, from one place (also Kbuild, dkms.conf, the programs' --version).
VERSION := $(shell cat VERSION)
BUILD := build
CC := gcc

# The library is one folder per job (userspace/lib/<room>/); each program is a
# folder of its own (userspace/<program>/*.c). An include of the library names
# its room ("ctf/evt_trace.h"): userspace/lib is the one include root.
CPPFLAGS_US := -Iinclude -Ikmod/core -I$(BUILD)/gen -Iuserspace/lib -D_GNU_SOURCE
CFLAGS_US := -std=c11 -O2 -g -Wall -Wextra -Werror -fno-strict-aliasing
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
# Every JSON document is written with jansson (lib/json); the analysis
# engine's saved results carry a CRC-32 (zlib): what the library needs.
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null)
LIBEVT_LIBS := -lz $(JANSSON_LIBS)
# evview alone: its HTTP server and JSON (LIBS_<program>, CFLAGS_<program>:
# what one program adds to the common rule).
EVVIEW_LIBS := $(shell pkg-config --libs libmicrohttpd jansson 2>/dev/null)
EVVIEW_CFLAGS := $(shell pkg-config --cflags libmicrohttpd jansson 2>/dev/null) -DEVT_VIEWDIR='"$(VIEWDIR)"'
LIBS_evview = $(EVVIEW_LIBS)
CFLAGS_evview = $(EVVIEW_CFLAGS)

# The portable ring-buffer core: compiled into the module, the unit tests and
# the native benchmark.
CORE_SRC := $(wildcard kmod/core/*.c)
LIB_SRC := $(wildcard userspace/lib/*/*.c)
PROG_NAMES := $(patsubst userspace/%/,%,$(filter-out userspace/lib/ userspace/man/ userspace/dist/,$(sort $(dir $(wildcard userspace/*/*.c)))))
PROGS := $(patsubst %,$(BUILD)/bin/%,$(PROG_NAMES))
# The unit tests link evctl's command line, not its main.
UNIT_SRC := $(wildcard tests/unit/*.c) userspace/evctl/evctl_cli.c userspace/evctl/evctl_out.c
# The readers under the sanitizers (below).
SAN_PROGS := $(patsubst %,$(BUILD)/tests/bin/%-san,evcat evstat evview)
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tests/bin/%,$(wildcard tests/tools/*.c))
BENCH_SRC := $(wildcard scripts/bench/*.c)

US_SRC := $(CORE_SRC) $(LIB_SRC)
US_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(US_SRC))
SAN_OBJ := $(patsubst %.c,$(BUILD)/san/%.o,$(US_SRC))
HDRS := $(wildcard include/*/*.h kmod/core/*.h userspace/lib/*/*.h userspace/*/*.h tests/unit/*.h) \
	$(BUILD)/gen/evt_syscalls.h

.PHONY: all module userspace tools deps check unit vm-check demo clean help
all: module userspace

# What a machine that records and reads traces needs, built from the runtime
# libraries' -dev packages alone (the README lists them; tests/pkg/t-tools.sh
# checks that list against what this target compiles and links).
tools: $(PROGS) man

help:
	@sed -n '3,10p' Makefile | sed 's/^# \{0,1\}//'

module:
	@test -n "$(KDIR)" || scripts/find-kdir
	@scripts/build-module "$(KDIR)" >/dev/null
	@cp "$(BUILD)/kmod/$$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h)/evtrace.ko" evtrace.ko
	@echo "  built evtrace.ko against $(KDIR)"
	@scripts/kdir-check "$(KDIR)"

userspace: $(BUILD)/libevtrace.a $(PROGS) man $(TEST_TOOLS) $(BUILD)/tests/bin/sysloop32 $(BUILD)/tests/unit $(BUILD)/tests/unit-san $(SAN_PROGS) $(BUILD)/bench/bench-native $(BUILD)/bench/bench-engine

# The syscall entry events of the kernel KDIR is (the module's catalogue is
# the same: the module builds it from the same headers).
$(BUILD)/gen/evt_syscalls.h: kmod/gen-syscalls
	@mkdir -p $(dir $@)
	@echo '  GEN     $@'
	@kmod/gen-syscalls events "$(KDIR)" "$(KSRC)" > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) $(NL_CFLAGS) $(CFLAGS_US) -c $< -o $@

$(BUILD)/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) $(NL_CFLAGS) $(CFLAGS_US) $(SANFLAGS) -c $< -o $@

$(BUILD)/libevtrace.a: $(US_OBJ)
	@mkdir -p $(dir $@)
	@echo '  AR      $@'
	@rm -f $@ && ar rcs $@ $^

$(BUILD)/libevtrace-san.a: $(SAN_OBJ)
	@mkdir -p $(dir $@)
	@echo '  AR      $@'
	@rm -f $@ && ar rcs $@ $^

.SECONDEXPANSION:
$(BUILD)/bin/%: $$(wildcard userspace/%/*.c) $(BUILD)/libevtrace.a $(HDRS) VERSION
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) -Iuserspace/$* -DEVT_VERSION='"$(VERSION)"' $(NL_CFLAGS) $(CFLAGS_$*) $(CFLAGS_US) $(filter %.c,$^) -o $@ $(BUILD)/libevtrace.a $(NL_LIBS) $(LIBS_$*) $(LIBEVT_LIBS) -lpthread

$(BUILD)/tests/bin/%: tests/tools/%.c $(BUILD)/libevtrace.a $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) $(CFLAGS_US) $< -o $@ $(BUILD)/libevtrace.a $(LIBEVT_LIBS)

# A 32-bit task's syscalls (compat_sys_<name> events): sysloop as an i386
# static program (gcc-multilib), which the VM's x86-64 kernel runs.
$(BUILD)/tests/bin/sysloop32: tests/tools/sysloop.c
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) -m32 -static -O2 -Wall -Wextra -Werror $< -o $@

$(BUILD)/tests/unit: $(UNIT_SRC) $(BUILD)/libevtrace.a $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) -Iuserspace/evctl $(NL_CFLAGS) $(CFLAGS_US) $(UNIT_SRC) -o $@ $(BUILD)/libevtrace.a $(CHECK_LIBS) $(NL_LIBS) $(LIBEVT_LIBS) -lpthread

$(BUILD)/tests/unit-san: $(UNIT_SRC) $(BUILD)/libevtrace-san.a $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) -Iuserspace/evctl $(NL_CFLAGS) $(CFLAGS_US) $(SANFLAGS) $(UNIT_SRC) -o $@ $(BUILD)/libevtrace-san.a $(CHECK_LIBS) $(NL_LIBS) $(LIBEVT_LIBS) -lpthread

# The readers under ASan+UBSan+LSan: the unit tests run their error paths
# and hostile inputs (a leak turns evcat's exit status 2 into 1).
$(SAN_PROGS): $(BUILD)/tests/bin/%-san: $$(wildcard userspace/%/*.c) $(BUILD)/libevtrace-san.a $(HDRS) VERSION
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) -Iuserspace/$* -DEVT_VERSION='"$(VERSION)"' $(CFLAGS_$*) $(CFLAGS_US) $(SANFLAGS) $(filter %.c,$^) -o $@ $(BUILD)/libevtrace-san.a $(LIBS_$*) $(LIBEVT_LIBS) -lpthread

# Native benchmark: the core as the module compiles it (-O2), not a test.
$(BUILD)/bench/bench-native: scripts/bench/bench_native.c $(CORE_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) $(CFLAGS_US) $< $(CORE_SRC) -o $@

# The analysis engine's benchmark (scripts/bench-analysis).
$(BUILD)/bench/bench-engine: scripts/bench/bench_engine.c $(BUILD)/libevtrace.a $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC      $@'
	@$(CC) $(CPPFLAGS_US) $(CFLAGS_US) $< -o $@ $(BUILD)/libevtrace.a $(LIBEVT_LIBS) -lpthread

deps:
	@scripts/deps

# The table of events in docs/events.md, from include/evtrace/event-defs.h
# (the unit test events_doc_lists_the_catalogue fails while it differs).
.PHONY: events-table
events-table: $(BUILD)/tests/bin/evcatalogue
	@$(BUILD)/tests/bin/evcatalogue --update docs/events.md

# Each of these is the only command a fresh machine needs: deps first, then a
# fresh make (KDIR is looked up again once the headers are there).
check:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory all
	@scripts/run-tests --strict

unit:
	@$(MAKE) --no-print-directory userspace
	@scripts/run-tests --unit-only

vm-check:
	@$(MAKE) --no-print-directory all
	@scripts/run-tests --vm-only

demo:
	@scripts/deps --if-missing
	@$(MAKE) --no-print-directory all
	@scripts/demo

clean:
	rm -rf $(BUILD) evtrace.ko *.o *.mod *.mod.c .*.cmd Module.symvers modules.order .tmp_versions
	find kmod -name '*.o' -o -name '.*.cmd' | xargs rm -f
-include mk/debug.mk
-include mk/fuzz.mk
-include mk/soak.mk
-include mk/install.mk
-include mk/matrix.mk
