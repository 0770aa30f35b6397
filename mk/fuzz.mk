# SPDX-License-Identifier: GPL-2.0
# Fuzzing (issue 10), included from the top-level Makefile.
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS="trace reorder"]
#       build every libFuzzer target (tests/fuzz/fuzz_*.c, clang,
#       -fsanitize=fuzzer,address,undefined) and run each for N seconds
#       (default 60) from its committed seed corpus tests/fuzz/corpus/<target>/
#       plus a working corpus in build/fuzz/corpus/<target>/; prints
#       executions per second and coverage per target and fails on any crash
#       (the reproducer is left in build/fuzz/artifacts/<target>/).
#   make fuzz-build     only build them
#   make fuzz-smoke     build them and run each once over its seed corpus
#                       (seconds; part of scripts/run-tests when clang is there)
#   make fuzz-corpus    regenerate the seed corpus (evsynth traces, see
#                       scripts/fuzz-corpus)
# Knobs: FUZZ_CC (default clang, else clang-14), FUZZ_JOBS is not used: one
# process per target, one target at a time (the machine is shared).

FUZZ_SECONDS ?= 60
comma := ,
FUZZ_CC ?= $(shell command -v clang 2>/dev/null || command -v clang-14 2>/dev/null)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_NAMES))
# The library code the targets reach (no netlink; the ring core for evsynth's
# template traces; the engine and its reports for saved results).
FUZZ_LIB := $(wildcard kmod/core/*.c) $(wildcard userspace/lib/ctf/*.c) userspace/lib/format/evt_format.c \
	userspace/lib/format/evt_errno.c \
	userspace/lib/format/evt_symbols.c \
	userspace/lib/consumer/evt_reorder.c userspace/lib/util/evt_io.c userspace/lib/util/evt_esc.c userspace/lib/util/evt_safedir.c userspace/lib/synth/evt_synth.c userspace/lib/synth/evt_synth_kernel.c userspace/lib/synth/evt_synth_writer.c \
	userspace/lib/chunk/evt_chunk.c $(wildcard userspace/lib/engine/*.c) userspace/lib/report/evt_report.c \
	userspace/lib/util/evt_cpulist.c userspace/lib/json/evt_json.c
FUZZ_FLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -fno-strict-aliasing \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: fuzz fuzz-build fuzz-smoke fuzz-corpus

# The library is compiled once for every target (instrumented, not linked with libFuzzer's main).
FUZZ_OBJS := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(FUZZ_LIB))

$(BUILD)/fuzz/obj/%.o: %.c $(HDRS)
	@test -n "$(FUZZ_CC)" || { echo "fuzz: clang is not installed (make deps)"; exit 1; }
	@mkdir -p $(dir $@)
	@echo '  CLANG   $@'
	@$(FUZZ_CC) $(CPPFLAGS_US) $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_FLAGS)) -c $< -o $@

$(BUILD)/fuzz/libfuzz.a: $(FUZZ_OBJS)
	@rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(BUILD)/fuzz/libfuzz.a $(HDRS)
	@test -n "$(FUZZ_CC)" || { echo "fuzz: clang is not installed (make deps)"; exit 1; }
	@mkdir -p $(dir $@)
	@echo '  CLANG   $@'
	@$(FUZZ_CC) $(CPPFLAGS_US) -Itests/fuzz $(FUZZ_FLAGS) $< $(BUILD)/fuzz/libfuzz.a -o $@ $(LIBEVT_LIBS) -lpthread

fuzz-build: $(FUZZ_BINS)

fuzz-smoke: fuzz-build
	@scripts/fuzz --smoke $(FUZZ_TARGETS)

fuzz: fuzz-build
	@scripts/fuzz --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-corpus: userspace
	@scripts/fuzz-corpus

# The unit tests replay the targets (tests/unit/test_fuzz.c includes them).
$(BUILD)/tests/unit $(BUILD)/tests/unit-san: $(wildcard tests/fuzz/*.c tests/fuzz/*.h)
