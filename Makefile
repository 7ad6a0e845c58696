# corobench build. Every knob is a `?=` default that the command line can override:
#   make                      bin/corobench for this machine
#   make check                every test (native, then the AArch64 port under qemu-aarch64)
#   make check-aarch64        only the cross-built AArch64 runtime and workload tests
#   make ARCH=aarch64 CC=aarch64-linux-gnu-gcc BUILD=build/aarch64 tests   (what check-aarch64 runs)
# Sources are found by wildcard; objects go to $(BUILD); dependencies come from -MMD -MP.
# The switch assembly is picked by directory: impls/asm/$(ARCH)/. An unknown ARCH is an error.

ARCH      ?= $(shell uname -m)
CC        ?= cc
ifeq ($(origin CC),default)
CC        := gcc
endif
OPT       ?= -O2
CFLAGS    ?= $(OPT) -g -Wall -Wextra -Werror
CSTD      ?= -std=gnu11
BUILD     ?= build/$(ARCH)
BIN       ?= bin
LIBS      ?= -ljansson -lpfm
TEST_LIBS ?= -lm
QEMU      ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
CROSS_CC  ?= aarch64-linux-gnu-gcc

ALL_CPPFLAGS := $(CPPFLAGS) -D_GNU_SOURCE -I.
ALL_CFLAGS   := $(CSTD) $(CFLAGS)

ASM_SRC := $(wildcard impls/asm/$(ARCH)/*.S)
ifeq ($(ASM_SRC),)
$(error no switch assembly for ARCH=$(ARCH): impls/asm/ has $(notdir $(wildcard impls/asm/*)))
endif

CLOCK_SRC := $(or $(wildcard harness/clock_$(ARCH).c),harness/clock_generic.c)

# The runtimes and workloads: portable to every ARCH, no third-party libraries.
CORE_SRC    := $(wildcard impls/*.c) $(ASM_SRC) $(wildcard workloads/*.c)
HARNESS_SRC := $(filter-out harness/clock_%.c harness/main.c,$(wildcard harness/*.c)) $(CLOCK_SRC)
# Tests that need only the core run on every ARCH (and under qemu); the rest need the harness.
TEST_CORE   := tests/runner.c tests/test_coro.c tests/test_workloads.c
TEST_HOST   := $(filter-out $(TEST_CORE),$(wildcard tests/*.c))

obj = $(patsubst %,$(BUILD)/%.o,$(basename $(1)))
CORE_OBJ    := $(call obj,$(CORE_SRC))
HARNESS_OBJ := $(call obj,$(HARNESS_SRC))

GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

.PHONY: all tests check check-aarch64 check-aarch64-build check-sanitize clean FORCE
all: $(BIN)/corobench

$(BIN)/corobench: $(call obj,harness/main.c) $(HARNESS_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)

# Build facts baked into the binary; rebuilt every time so the commit is never stale.
$(BUILD)/harness/buildinfo.o: ALL_CPPFLAGS += -DCB_GIT_COMMIT='"$(GIT_COMMIT)"' \
	-DCB_CC='"$(CC)"' -DCB_CFLAGS='"$(CSTD) $(CFLAGS)"' -DCB_ARCH='"$(ARCH)"'
$(BUILD)/harness/buildinfo.o: FORCE

$(BUILD)/cbtest-core: $(call obj,$(TEST_CORE) harness/proc.c) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(TEST_LIBS)

$(BUILD)/cbtest: $(call obj,$(TEST_CORE) $(TEST_HOST)) $(HARNESS_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS) $(TEST_LIBS)

tests: $(BUILD)/cbtest-core

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -MMD -MP -c -o $@ $<

# make check: the native suite, then the AArch64 port; one summary line at the end.
check: $(BIN)/corobench $(BUILD)/cbtest
	@tests/check.sh "$(BUILD)/cbtest" "$(MAKE) --no-print-directory check-aarch64-build" \
		"$(QEMU) build/aarch64/cbtest-core"

check-aarch64-build:
	@$(MAKE) --no-print-directory ARCH=aarch64 CC=$(CROSS_CC) BUILD=build/aarch64 \
		LIBS= build/aarch64/cbtest-core

check-aarch64: check-aarch64-build
	$(QEMU) build/aarch64/cbtest-core

# The runtime and workload tests under AddressSanitizer and UBSan; impls/coro.c tells ASan about
# every stack switch (__sanitizer_start/finish_switch_fiber).
SAN_FLAGS ?= -fsanitize=address,undefined -fno-omit-frame-pointer
check-sanitize:
	@$(MAKE) --no-print-directory BUILD=build/$(ARCH)-sanitize CFLAGS="$(OPT) -g -Wall -Wextra -Werror $(SAN_FLAGS)" \
		LDFLAGS="$(SAN_FLAGS)" build/$(ARCH)-sanitize/cbtest-core
	ASAN_OPTIONS=detect_leaks=0:allow_user_segv_handler=1 build/$(ARCH)-sanitize/cbtest-core

clean:
	rm -rf $(BUILD) build $(BIN)

FORCE:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
