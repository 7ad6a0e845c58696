# corobench build. Every knob is a `?=` default that the command line can override:
#   make                      bin/corobench for this machine, and on x86-64 its variant builds
#                             (bin/corobench-jmpret, -rsbsim, -jmpret-rsbsim; docs/rsb.md)
#   make check                installs what it needs (scripts/install-deps.sh test), then every
#                             test: native, the AArch64 port under qemu-aarch64, the whole
#                             tree under ASan+UBSan (check-sanitize-all), the runtime and workload
#                             tests under valgrind, then the deterministic gate (tests/gate.sh)
#   make baseline             rewrite the deterministic gate's results/baselines/gate-$(ARCH).json
#   make aa                   the A/A test of ab: 10 A/A runs of the --quick grid, a known 1.25x
#                             slowdown of one cell, 1.10x and 1.05x of all (tests/aa.sh; docs/ci.md)
#   make check-aarch64        only the cross-built AArch64 runtime and workload tests
#   make check-sanitize       only the runtime and workload tests under ASan+UBSan
#   make check-sanitize-all   the whole tree (CLI, variants, tools, every test) under ASan+UBSan
#   make fuzz                 the libFuzzer targets of tests/fuzz/ (clang), FUZZ_RUNS inputs each
#   make ARCH=aarch64 CC=aarch64-linux-gnu-gcc BUILD=build/aarch64 tests   (what check-aarch64 runs)
# Sources are found by wildcard; objects go to $(BUILD); dependencies come from -MMD -MP.
# The switch assembly is picked by directory: impls/asm/$(ARCH)/. An unknown ARCH is an error.

ARCH      ?= $(shell uname -m)
CC        ?= cc
ifeq ($(origin CC),default)
CC        := gcc
endif
OPT       ?= -O2
# -fstack-clash-protection probes every page of a large frame, so a coroutine frame bigger than
# the guard page still faults in the guard instead of jumping over it.
CFLAGS    ?= $(OPT) -g -Wall -Wextra -Werror -fstack-clash-protection
CSTD      ?= -std=gnu11
BUILD     ?= build/$(ARCH)
BIN       ?= bin
LIBS      ?= -ljansson -lpfm -lm $(LUA_LIBS)
TEST_LIBS ?= -lm
# Every binary: threads (the thread backend) and Boost.Context when the probe found it.
CORE_LIBS  = $(FCONTEXT_LIBS) $(URCU_LIBS) $(CXX20_LIBS) $(FIBER_LIBS) $(OMP_LIBS) -pthread
QEMU      ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
CROSS_CC  ?= aarch64-linux-gnu-gcc

# The languages' own runtimes (docs/external.md). Lua 5.4 is embedded (the runtime impls/lua/*.c)
# when pkg-config finds $(LUA_PC) (liblua5.4-dev); without it, or with HAVE_LUA=0 (the AArch64
# cross build), the lua implementation reports itself unavailable. bin/corobench-go is built when `go`
# is installed, with its caches inside $(BUILD) and no network (GOPROXY=off); node needs no build.
LUA_PC     ?= lua5.4
HAVE_LUA   := $(shell pkg-config --exists $(LUA_PC) 2>/dev/null && echo 1 || echo 0)
LUA_CFLAGS := $(if $(filter 1,$(HAVE_LUA)),$(shell pkg-config --cflags $(LUA_PC)))
LUA_LIBS   := $(if $(filter 1,$(HAVE_LUA)),$(shell pkg-config --libs $(LUA_PC)))
LUA_SRC    := $(if $(filter 1,$(HAVE_LUA)),$(wildcard impls/lua/*.c))
GO         ?= go
GO_BIN     := $(if $(shell command -v $(GO) 2>/dev/null),$(BIN)/corobench-go)
# bin/corobench-csharp.exe is built when Mono's C# compiler is installed (mono-mcs), at C# 7.2,
# mcs's newest; BuildInfo.cs records mcs's version and that language version for the results.
MCS        ?= mcs
CS_LANG    ?= 7.2
CS_BIN     := $(if $(shell command -v $(MCS) 2>/dev/null),$(BIN)/corobench-csharp.exe)

# Boost.Context (the fcontext backend), found as stress-ng's Makefile.config finds libraries: a
# link probe with this CC. Without it the build goes on and `corobench list` says why fcontext
# is unavailable. The probe declares the symbol itself, so no C++ header is needed.
HAVE_FCONTEXT ?= $(shell printf 'void jump_fcontext(void);\nint main(void){jump_fcontext();return 0;}\n' | \
	$(CC) -x c - -o /dev/null -lboost_context 2>/dev/null && echo 1 || echo 0)
FCONTEXT_LIBS := $(if $(filter 1,$(HAVE_FCONTEXT)),-lboost_context)

# The scheduler layer's central queues (impls/sched/cqueue.c, docs/sched.md), probed the same
# way: liburcu's wfcqueue (liburcu-dev; its functions are in -lurcu-common) and Concurrency Kit's
# ck_fifo_mpmc (libck-dev; header-only, nothing to link). Without one its queue reports itself
# unavailable (the AArch64 cross build sets both to 0: Debian's cross gcc would find the host's
# x86-64 ck headers in /usr/include); the work-stealing deque (impls/sched/deque.c) needs neither and always builds.
HAVE_URCU ?= $(shell printf '#include <urcu/wfcqueue.h>\nint main(void){struct cds_wfcq_head h; struct cds_wfcq_tail t; cds_wfcq_init(&h,&t);return 0;}\n' | \
	$(CC) -x c - -o /dev/null -lurcu-common 2>/dev/null && echo 1 || echo 0)
URCU_LIBS := $(if $(filter 1,$(HAVE_URCU)),-lurcu-common)
HAVE_CK   ?= $(shell printf '#include <ck_fifo.h>\n#ifndef CK_F_FIFO_MPMC\n#error no MPMC FIFO\n#endif\nint main(void){return 0;}\n' | \
	$(CC) -x c - -o /dev/null 2>/dev/null && echo 1 || echo 0)

# C++20 coroutines (the cxx20 family: the task type impls/cxx20/task.hh, the workloads' bodies
# workloads/<workload>_cxx20.cc, the only C++ sources): built when $(CXX) compiles a coroutine;
# cross builds set HAVE_CXX20=0 (no C++ compiler for the target).
CXX       ?= g++
HAVE_CXX20 ?= $(shell printf '#include <coroutine>\nint main(){return 0;}\n' | \
	$(CXX) -std=c++20 -x c++ - -o /dev/null 2>/dev/null && echo 1 || echo 0)
CXX_SRC    := $(if $(filter 1,$(HAVE_CXX20)),$(wildcard workloads/*_cxx20.cc))
CXX20_LIBS := $(if $(filter 1,$(HAVE_CXX20)),-lstdc++)
# The C flags less the C standard, plus C++20 without exceptions or RTTI (none is used).
ALL_CXXFLAGS = -std=c++20 -fno-exceptions -fno-rtti $(CFLAGS)
# cxx20-clang: the same C++20 sources compiled a second time by clang++ (Debian's clang 14) at -O2,
# into workloads/<workload>_cxx20.clang.o beside g++'s objects in the same binaries. The
# preprocessor renames the task type's namespace (cbx) and the C entry points (cb_cxx20_*), so the
# linker neither clashes nor merges one compiler's inline functions into the other's code. Built
# when g++'s cxx20 is and clang++ compiles a coroutine with libstdc++'s <coroutine>; otherwise the
# implementation says why it is unavailable. Its flags are its own, not $(CFLAGS): the sanitizer
# builds' runtime is gcc's, whose ASan clang's instrumentation does not target.
CLANGXX    ?= clang++
# -gdwarf-4: clang 14's default DWARF 5 forms (strx1, rnglistx) stop Debian 12's valgrind 3.19
# reading the test binaries ("unhandled dwarf2 abbrev form code 0x25", the whole stage lost).
CXX20_CLANG_FLAGS ?= -O2 -gdwarf-4 -Wall -Wextra -Werror
HAVE_CXX20_CLANG ?= $(if $(filter 1,$(HAVE_CXX20)),$(shell printf '#include <coroutine>\nint main(){return 0;}\n' | \
	$(CLANGXX) -std=c++20 -x c++ - -o /dev/null 2>/dev/null && echo 1 || echo 0),0)
CLANG_OBJ  := $(if $(filter 1,$(HAVE_CXX20_CLANG)),$(patsubst %.cc,$(BUILD)/%.clang.o,$(CXX_SRC)))
CXX20_CLANG_RENAME := -Dcbx=cbx_clang $(foreach w,$(patsubst workloads/%_cxx20.cc,%,$(CXX_SRC)),\
	$(foreach f,setup run finish,-Dcb_cxx20_$(w)_$(f)=cb_cxx20_clang_$(w)_$(f)))

# Boost.Fiber (the `fiber` peer of the scheduler's workloads, workloads/sched_fiber.cc, docs/sched.md):
# built when $(CXX) links a fiber against Debian's libboost-fiber-dev; its own flags (C++17, with
# the exceptions and RTTI Boost.Fiber's headers use). Cross builds set HAVE_FIBER=0.
HAVE_FIBER ?= $(shell printf '#include <boost/fiber/all.hpp>\nint main(){boost::fibers::fiber f([]{}); f.join(); return 0;}\n' | \
	$(CXX) -std=c++17 -x c++ - -o /dev/null -lboost_fiber -lboost_context 2>/dev/null && echo 1 || echo 0)
FIBER_SRC  := $(if $(filter 1,$(HAVE_FIBER)),workloads/sched_fiber.cc)
FIBER_OBJ  := $(patsubst %.cc,$(BUILD)/%.o,$(FIBER_SRC))
FIBER_LIBS := $(if $(filter 1,$(HAVE_FIBER)),-lboost_fiber -lboost_context -lstdc++)
FIBER_CXXFLAGS = -std=c++17 $(CFLAGS)

# OpenMP (the `omp` implementation, workloads/omp/sched_omp.c, docs/sched.md): the scheduler's
# workloads with no coroutine on libgomp's threads, built when $(CC) -fopenmp links a task; the
# file is in a folder of its own, out of CORE_SRC, so -fopenmp stays on it alone (and out of the
# rewritten variants' assembly: the variants link this object as it is). Cross builds set 0.
HAVE_OMP ?= $(shell printf '#include <omp.h>\nint main(void){int x=0;\n_Pragma("omp parallel")\n_Pragma("omp single")\n_Pragma("omp task shared(x)")\nx=omp_get_thread_num();\nreturn x;}\n' | \
	$(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo 1 || echo 0)
OMP_SRC  := $(if $(filter 1,$(HAVE_OMP)),workloads/omp/sched_omp.c)
OMP_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(OMP_SRC))
OMP_LIBS := $(if $(filter 1,$(HAVE_OMP)),-fopenmp)

ALL_CPPFLAGS := $(CPPFLAGS) -D_GNU_SOURCE -I. -DCB_SWITCH_INLINE_FILE='"impls/asm/$(ARCH)/switch_inline.h"' \
	-DCB_LEGACY_LIB='"$(BIN)/examples/liblegacy_client.so"' \
	-DCB_HAVE_LUA=$(HAVE_LUA) $(LUA_CFLAGS) \
	-DCB_HAVE_FCONTEXT=$(HAVE_FCONTEXT) -DCB_HAVE_CXX20=$(HAVE_CXX20) -DCB_HAVE_FIBER=$(HAVE_FIBER) \
	-DCB_HAVE_OMP=$(HAVE_OMP) \
	-DCB_HAVE_URCU=$(HAVE_URCU) -DCB_HAVE_CK=$(HAVE_CK) \
	-DCB_HAVE_CXX20_CLANG=$(HAVE_CXX20_CLANG)
ALL_CFLAGS   := $(CSTD) $(CFLAGS)

ASM_SRC := $(wildcard impls/asm/$(ARCH)/*.S)
ifeq ($(ASM_SRC),)
$(error no switch assembly for ARCH=$(ARCH): impls/asm/ has $(notdir $(wildcard impls/asm/*)))
endif

# The workloads compiled a second time with the coroutine verbs inlined at their call sites
# (-DCB_CO_INLINE, impls/coro_inline.h): the `inline` implementation runs their stackful bodies.
# Each twin's table is renamed cb_wl_NAME_inline and objcopy keeps it the object's only global
# symbol, so the twin's copies of the workload's functions stay its own. workloads/workloads.c
# lists the twins; the objects come last in the link, so the code of the plain build keeps its
# place.
INLINE_WL    := pingpong recursive io spawn await pipeline fault forkjoin yieldstorm
OBJCOPY      ?= objcopy
INLINE_DEFS   = -DCB_CO_INLINE=1 -Dcb_wl_$*=cb_wl_$*_inline
INLINE_COPY   = $(OBJCOPY) -G cb_wl_$*_inline

CLOCK_SRC := $(or $(wildcard harness/measure/clock_$(ARCH).c),harness/measure/clock_generic.c)

# The parameters, runtimes and workloads: portable to every ARCH, no third-party library but the
# optional Lua (and the C++20 family where a C++ compiler is found).
CORE_SRC    := $(wildcard params/*.c impls/*.c impls/sched/*.c) $(LUA_SRC) $(ASM_SRC) $(wildcard workloads/*.c) \
	$(CXX_SRC)
# The harness by layer (docs/architecture.md, checked by tests/test_layers.c): common/ what every
# part uses, measure/ inside a cell's child, results/ the schema's writer and reader, run/ the
# parent, report/ the readers of results, ab/ the paired A/B gate (run's cells in two builds,
# decided on paired ratios); main.c (the command table) above them.
HARNESS_SRC := $(filter-out harness/main.c harness/measure/clock_%.c,\
	$(wildcard harness/*.c harness/common/*.c harness/measure/*.c harness/results/*.c \
	harness/run/*.c harness/report/*.c harness/report/claims/*.c harness/ab/*.c)) $(CLOCK_SRC)
# Tests that need only the core run on every ARCH (and under qemu); the rest need the harness.
TEST_CORE   := tests/runner.c tests/support.c tests/test_coro.c tests/test_inline.c \
	tests/test_workloads.c
TEST_HOST   := $(filter-out $(TEST_CORE),$(wildcard tests/*.c))

obj = $(patsubst %,$(BUILD)/%.o,$(basename $(1)))
CORE_OBJ    := $(call obj,$(CORE_SRC)) $(patsubst %,$(BUILD)/workloads/inline/%.o,$(INLINE_WL)) \
	$(CLANG_OBJ) $(FIBER_OBJ) $(OMP_OBJ)
HARNESS_OBJ := $(call obj,$(HARNESS_SRC))

GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

.PHONY: all examples tests check check-stages aa baseline check-aarch64 check-aarch64-build check-sanitize check-sanitize-build \
	check-sanitize-all check-sanitize-all-build check-tsan check-tsan-build clean FORCE variants
all: $(BIN)/corobench variants $(GO_BIN) $(CS_BIN) examples

# Runtime plugins (docs/plugin.md), each built with only the public header include/corobench/
# and a compiler line, as a user builds one: the two examples (fcontext's where Boost.Context is
# found) and the deliberately broken ones tests/test_plugin.c loads (tests/plugins/bad.c).
PLUGIN_CC   = $(CC) $(CSTD) $(CFLAGS) -fPIC -shared -Iinclude
EXAMPLES   := $(BIN)/examples/libcb_ucontext.so \
	$(if $(filter 1,$(HAVE_FCONTEXT)),$(BIN)/examples/libcb_fcontext.so)
BAD_PLUGINS := $(patsubst %,$(BIN)/test-plugins/libcb_bad_%.so,checksum family crash fields stdout exit \
	ctorexit list)
# A legacy client library, blocking code built apart from corobench: its own compiler line (its
# own flags, no corobench include path or header, nothing of corobench linked), loaded by io
# style=prebuilt from $(LEGACY_LIB) (docs/workloads-io.md). Its read and write reach corobench's
# hooks as any binary's calls do: the executable's definitions come first in the lookup.
LEGACY_LIB := $(BIN)/examples/liblegacy_client.so
LEGACY_CC   = $(CC) -std=c99 -O2 -g -Wall -Wextra -Werror -fPIC -shared
examples: $(EXAMPLES) $(BAD_PLUGINS) $(LEGACY_LIB)

# The public header where a plugin's build finds it: $(PREFIX)/include/corobench/runtime.h.
PREFIX ?= /usr/local
.PHONY: install-header
install-header:
	install -D -m 644 include/corobench/runtime.h $(DESTDIR)$(PREFIX)/include/corobench/runtime.h

$(BIN)/examples/libcb_ucontext.so: examples/ucontext/ucontext_plugin.c include/corobench/runtime.h
	@mkdir -p $(@D)
	$(PLUGIN_CC) -o $@ $< $(LDFLAGS)
$(BIN)/examples/libcb_fcontext.so: examples/fcontext/fcontext_plugin.c include/corobench/runtime.h
	@mkdir -p $(@D)
	$(PLUGIN_CC) -o $@ $< $(LDFLAGS) -lboost_context
$(LEGACY_LIB): examples/legacy-client/legacy_client.c examples/legacy-client/legacy_client.h
	@mkdir -p $(@D)
	$(LEGACY_CC) -o $@ $<
$(BIN)/test-plugins/libcb_bad_%.so: tests/plugins/bad.c examples/ucontext/ucontext_plugin.c \
		include/corobench/runtime.h
	@mkdir -p $(@D)
	$(PLUGIN_CC) -I. -DBAD_$(shell echo $* | tr a-z A-Z) -o $@ $< $(LDFLAGS)

$(BIN)/corobench: $(call obj,harness/main.c) $(HARNESS_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS) $(CORE_LIBS)

# Build facts baked into the binary. They are written to $(BUILDINFO_STAMP) on every make, which
# keeps its time unless they changed: buildinfo.c is recompiled, and the binaries relinked, only
# when the commit (or its -dirty mark), the compilers or the flags change, never on every make.
BUILDINFO_DEFS = -DCB_GIT_COMMIT='"$(GIT_COMMIT)"' -DCB_CC='"$(CC)"' \
	-DCB_CFLAGS='"$(CSTD) $(CFLAGS)"' -DCB_ARCH='"$(ARCH)"' \
	-DCB_CXX20='"$(if $(filter 1,$(HAVE_CXX20)),$(CXX) $(shell $(CXX) -dumpfullversion 2>/dev/null) $(ALL_CXXFLAGS))"' \
	-DCB_CXX20_CLANG='"$(if $(CLANG_OBJ),$(CLANGXX) $(shell $(CLANGXX) -dumpversion 2>/dev/null) -std=c++20 -fno-exceptions -fno-rtti $(CXX20_CLANG_FLAGS))"'
BUILDINFO_STAMP = $(BUILD)/buildinfo.defs
$(BUILDINFO_STAMP): FORCE
	$(shell mkdir -p $(@D))$(file >$@.tmp,$(BUILDINFO_DEFS))
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
$(BUILD)/harness/common/buildinfo.o: ALL_CPPFLAGS += $(BUILDINFO_DEFS) -DCB_VARIANT='"plain"'
$(BUILD)/harness/common/buildinfo.o: $(BUILDINFO_STAMP)

$(BUILD)/cbtest-core: $(call obj,$(TEST_CORE) harness/common/proc.c harness/common/alloc.c \
		harness/common/untrusted.c) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LUA_LIBS) $(TEST_LIBS) $(CORE_LIBS)

$(BUILD)/cbtest: $(call obj,$(TEST_CORE) $(TEST_HOST)) $(HARNESS_OBJ) $(CORE_OBJ) | $(LEGACY_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS) $(TEST_LIBS) $(CORE_LIBS)

tests: $(BUILD)/cbtest-core

$(BIN)/corobench-go: $(wildcard impls/go/*.go) impls/go/go.mod
	@mkdir -p $(@D)
	cd impls/go && GOCACHE=$(abspath $(BUILD))/go-cache GOPATH=$(abspath $(BUILD))/gopath \
		GOENV=off GOFLAGS= GOPROXY=off GO111MODULE=on \
		$(GO) build -buildvcs=false -trimpath -o $(abspath $@) .

$(BIN)/corobench-csharp.exe: $(wildcard impls/csharp/*.cs)
	@mkdir -p $(@D) $(BUILD)/csharp
	printf 'static class BuildInfo { public const string Compiler = "%s, -langversion:%s"; }\n' \
		"$$($(MCS) --version)" "$(CS_LANG)" > $(BUILD)/csharp/BuildInfo.cs
	$(MCS) -langversion:$(CS_LANG) -optimize+ -warnaserror+ -nologo -out:$@ \
		$(filter %.cs,$^) $(BUILD)/csharp/BuildInfo.cs

# Variant builds (x86-64 only; docs/rsb.md): every source of corobench's own code, the switch
# assembly included, is compiled to assembly with the same flags, rewritten by tools/asmrw.c
# (which first learns from all the files which functions are corobench's), then assembled.
#   bin/corobench-jmpret         every `ret` becomes `lea 8(%rsp), %rsp; jmp *-8(%rsp)`
#   bin/corobench-rsbsim         calls and returns drive the return-stack simulator
#   bin/corobench-jmpret-rsbsim  both: the simulator's view of the jmpret build
# The simulator itself (harness/measure/rsbsim.c, rsbsim_$(ARCH).S) is never rewritten.
VARIANTS     := jmpret rsbsim jmpret-rsbsim
VARIANT_BINS := $(if $(filter x86_64,$(ARCH)),$(patsubst %,$(BIN)/corobench-%,$(VARIANTS)))
ASMRW        := $(BUILD)/tools/cb_asmrw
RW_SRC       := $(filter-out harness/measure/rsbsim.c,harness/main.c $(HARNESS_SRC) $(CORE_SRC))
variants: $(VARIANT_BINS)

$(ASMRW): tools/asmrw.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

# $(1) variant, $(2) rewriter flags, $(3) the code's variant name, $(4) 1 if simulated
define VARIANT_RULES
$(1)_DIR := $(BUILD)-$(1)
$(1)_ASM_C := $$(patsubst %.c,$$($(1)_DIR)/%.s,$$(filter %.c,$(RW_SRC)))
$(1)_ASM_S := $$(patsubst %.S,$$($(1)_DIR)/%.s,$$(filter %.S,$(RW_SRC)))
$(1)_ASM_I := $(patsubst %,$$($(1)_DIR)/workloads/inline/%.s,$(INLINE_WL))
$(1)_ASM := $$($(1)_ASM_C) $$($(1)_ASM_S) $$($(1)_ASM_I)
$(1)_RW := $$($(1)_ASM:.s=.rw.s)
# The C++ objects (cxx20) are the plain build's, not rewritten (docs/rsb.md says what that means).
$(1)_OBJ := $$($(1)_ASM:.s=.o) $$($(1)_DIR)/harness/measure/rsbsim.o \
	$(if $(filter 1,$(4)),$$($(1)_DIR)/harness/measure/rsbsim_$(ARCH).o) $(call obj,$(CXX_SRC)) \
	$(CLANG_OBJ) $(FIBER_OBJ) $(OMP_OBJ)

# Static pattern rules only: no generic rule in these directories (make must not chain them).
$$($(1)_ASM_C): $$($(1)_DIR)/%.s: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CPPFLAGS) $$(ALL_CFLAGS) -MMD -MP -MT $$@ -S -o $$@ $$<
$$($(1)_ASM_S): $$($(1)_DIR)/%.s: %.S
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CPPFLAGS) -MMD -MP -MT $$@ -E -o $$@ $$<
$$($(1)_ASM_I): $$($(1)_DIR)/workloads/inline/%.s: workloads/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CPPFLAGS) $$(INLINE_DEFS) $$(ALL_CFLAGS) -MMD -MP -MT $$@ -S -o $$@ $$<
$$($(1)_DIR)/harness/common/buildinfo.s: ALL_CPPFLAGS += $$(BUILDINFO_DEFS) -DCB_VARIANT='"$(3)"'
$$($(1)_DIR)/harness/common/buildinfo.s: $(BUILDINFO_STAMP)
# One pass over all files (the rewriter needs them all); unchanged outputs keep their times.
$$($(1)_DIR)/rewritten: $$($(1)_ASM) $(ASMRW)
	$(ASMRW) $(2) $$($(1)_ASM)
	@touch $$@
$$($(1)_RW): $$($(1)_DIR)/rewritten ;
$$(filter-out $$($(1)_ASM_I:.s=.o),$$($(1)_ASM:.s=.o)): $$($(1)_DIR)/%.o: $$($(1)_DIR)/%.rw.s
	$$(CC) -c -o $$@ $$<
$$($(1)_ASM_I:.s=.o): $$($(1)_DIR)/workloads/inline/%.o: $$($(1)_DIR)/workloads/inline/%.rw.s
	$$(CC) -c -o $$@.tmp $$<
	$$(INLINE_COPY) $$@.tmp $$@ && rm -f $$@.tmp
$$($(1)_DIR)/harness/measure/rsbsim.o: harness/measure/rsbsim.c
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CPPFLAGS) $(if $(filter 1,$(4)),-DCB_RSBSIM=1) $$(ALL_CFLAGS) -MMD -MP -c -o $$@ $$<
$$($(1)_DIR)/harness/measure/rsbsim_$(ARCH).o: harness/measure/rsbsim_$(ARCH).S
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CPPFLAGS) -MMD -MP -c -o $$@ $$<
$(BIN)/corobench-$(1): $$($(1)_OBJ)
	@mkdir -p $$(@D)
	$$(CC) $$(ALL_CFLAGS) -o $$@ $$^ $$(LDFLAGS) $$(LIBS) $$(CORE_LIBS)
endef
$(eval $(call VARIANT_RULES,jmpret,--jmpret,jmpret,0))
$(eval $(call VARIANT_RULES,rsbsim,--rsbsim,plain,1))
$(eval $(call VARIANT_RULES,jmpret-rsbsim,--jmpret --rsbsim,jmpret,1))

$(BUILD)/workloads/inline/%.o: workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(INLINE_DEFS) $(ALL_CFLAGS) -MMD -MP -MT $@ -c -o $@.tmp $<
	$(INLINE_COPY) $@.tmp $@ && rm -f $@.tmp

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.cc
	@mkdir -p $(@D)
	$(CXX) $(ALL_CPPFLAGS) $(ALL_CXXFLAGS) -MMD -MP -c -o $@ $<

$(OMP_OBJ): $(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -fopenmp -MMD -MP -c -o $@ $<

$(FIBER_OBJ): $(BUILD)/%.o: %.cc
	@mkdir -p $(@D)
	$(CXX) $(ALL_CPPFLAGS) $(FIBER_CXXFLAGS) -MMD -MP -c -o $@ $<

$(CLANG_OBJ): $(BUILD)/%.clang.o: %.cc
	@mkdir -p $(@D)
	$(CLANGXX) $(ALL_CPPFLAGS) -std=c++20 -fno-exceptions -fno-rtti $(CXX20_CLANG_FLAGS) \
		$(CXX20_CLANG_RENAME) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -MMD -MP -c -o $@ $<

# make check: the native suite, the AArch64 port under qemu-user, the whole tree built with
# AddressSanitizer and UBSan running the native suite (check-sanitize-all, which includes the
# runtime and workload tests that check-sanitize runs alone), the runtime and workload tests under
# valgrind's memcheck (which follows the stack switches through the VALGRIND_STACK_REGISTER
# annotations; any error fails the test), the deterministic gate (tests/gate.sh; docs/ci.md), then
# the short A/A test (tests/aa.sh --short: ab's false positives on an unchanged build).
# tests/check.sh prints one summary line at the end. First, what the stages need is installed
# (scripts/install-deps.sh test: apt-get as root, asking nothing; otherwise it names the packages
# to install), then a new make builds and runs the stages, so the build's probes see what was just
# installed. A stage whose tool is still missing (the cross compiler, qemu-user, valgrind) is
# skipped with the reason, not failed.
VALGRIND_RUN ?= valgrind -q --error-exitcode=99 $(BUILD)/cbtest-core
check:
	@scripts/install-deps.sh test || echo "make check: not every package of the test set is" \
		"installed (above): a stage whose tool is missing is skipped" >&2
	@$(MAKE) --no-print-directory check-stages
check-stages: $(BIN)/corobench variants $(GO_BIN) $(CS_BIN) examples $(BUILD)/cbtest $(BUILD)/cbtest-core
	@tests/check.sh \
		native "" true "$(BUILD)/cbtest" \
		aarch64 "$(CROSS_CC) $(firstword $(QEMU)) /usr/aarch64-linux-gnu/include/stdio.h" \
			"$(MAKE) --no-print-directory check-aarch64-build" "$(QEMU) build/aarch64/cbtest-core" \
		sanitize-all "" "$(MAKE) --no-print-directory check-sanitize-all-build" "$(SANALL_RUN)" \
		valgrind "valgrind" true "$(VALGRIND_RUN)" \
		tsan "" "$(MAKE) --no-print-directory check-tsan-build" "$(TSAN_RUN)" \
		gate "" true "tests/gate.sh check" \
		aa "" true "tests/aa.sh --short"

# The A/A test (docs/ci.md): its figures, minutes of runs; ARGS="--pin 1" pins them.
aa: all
	tests/aa.sh

# The deterministic gate's baseline (docs/ci.md): rerun its grid and rewrite
# results/baselines/gate-$(ARCH).json. Only on purpose, when a change of those fields is intended.
baseline: $(BIN)/corobench variants
	tests/gate.sh baseline

check-aarch64-build:
	@$(MAKE) --no-print-directory ARCH=aarch64 CC=$(CROSS_CC) BUILD=build/aarch64 \
		OBJCOPY=aarch64-linux-gnu-objcopy LIBS= HAVE_LUA=0 HAVE_CXX20=0 HAVE_FIBER=0 HAVE_OMP=0 HAVE_URCU=0 HAVE_CK=0 \
		build/aarch64/cbtest-core

check-aarch64: check-aarch64-build
	$(QEMU) build/aarch64/cbtest-core

# The sanitizer build (build/$(ARCH)-sanitize-all): AddressSanitizer and UBSan, any UB report
# fatal; impls/coro.c tells ASan about every stack switch (__sanitizer_start/finish_switch_fiber).
# check-sanitize-all builds the whole tree with it: the CLI, the variant binaries, tools/asmrw
# (which runs, leak-checked, while building them) and every test, then runs the full native suite
# against that build (a stage of make check); tests whose exact figures the instrumentation
# changes skip with the reason (CB_SKIP_UNDER_ASAN). check-sanitize is its quick part: only the
# runtime and workload tests, from the same build.
SAN_FLAGS    ?= -fsanitize=address,undefined -fno-omit-frame-pointer
SANALL_BUILD := build/$(ARCH)-sanitize-all
SAN_MAKE      = $(MAKE) --no-print-directory BUILD=$(SANALL_BUILD) BIN=$(SANALL_BUILD)/bin \
	CFLAGS="$(OPT) -g -Wall -Wextra -Werror $(SAN_FLAGS) -fno-sanitize-recover=undefined" \
	LDFLAGS="$(SAN_FLAGS)"
SAN_ENV      := ASAN_OPTIONS=detect_leaks=0:allow_user_segv_handler=1
SAN_RUN      ?= $(SAN_ENV) $(SANALL_BUILD)/cbtest-core
SANALL_RUN   ?= $(SAN_ENV) CB_BUILD_ROOT=$(SANALL_BUILD) $(SANALL_BUILD)/cbtest
check-sanitize-build:
	@$(SAN_MAKE) $(SANALL_BUILD)/cbtest-core

check-sanitize: check-sanitize-build
	$(SAN_RUN)

check-sanitize-all-build:
	@$(SAN_MAKE) all $(SANALL_BUILD)/cbtest
	@ln -sfn $(CURDIR)/plots $(SANALL_BUILD)/plots # the report finds its gnuplot scripts at bin/../plots

check-sanitize-all: check-sanitize-all-build
	$(SANALL_RUN)

# ThreadSanitizer over the scheduler layer's work-stealing deque and its runtime with work stealing
# (docs/sched.md): their tests (tests/test_sched.c, deque_* and sched_runtime_steal_*) built alone
# with -fsanitize=thread, any race report fatal (a stage of make check). The deque and the
# runtime are C11 atomics and futexes only, which TSan models; the central queues' libraries are
# not built with TSan, so their synchronisation (liburcu's and ck's own atomics) is invisible to
# it and their tests (central_queue_*, sched_runtime_central_*) are not run here.
TSAN_BUILD := build/$(ARCH)-tsan
TSAN_FLAGS ?= -fsanitize=thread
TSAN_SRC   := tests/runner.c tests/test_sched.c tests/test_stask.c impls/sched/deque.c \
	impls/sched/cqueue.c impls/sched/sched.c impls/tasks.c impls/coro.c impls/stack.c \
	impls/runtime.c impls/backend_asm.c impls/backend_inline.c $(ASM_SRC) \
	harness/common/proc.c harness/common/alloc.c harness/common/untrusted.c
TSAN_RUN   ?= TSAN_OPTIONS=halt_on_error=1 $(TSAN_BUILD)/cbtest-sched deque_ sched_runtime_steal_ \
	stask_
$(TSAN_BUILD)/cbtest-sched: $(TSAN_SRC) $(wildcard impls/sched/*.h impls/*.h tests/test.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(CSTD) $(OPT) -g -Wall -Wextra -Werror $(TSAN_FLAGS) -o $@ \
		$(TSAN_SRC) $(URCU_LIBS) -pthread
check-tsan-build: $(TSAN_BUILD)/cbtest-sched
check-tsan: check-tsan-build
	$(TSAN_RUN)

# make fuzz: libFuzzer targets (tests/fuzz/fuzz_*.c, clang) for the results reader behind report,
# export and compare, for the parameter parser, for the calibration file's loader, for the external
# protocol's reply parser and for the escaping layer, built with AddressSanitizer and UBSan. Each
# runs from its seed corpus tests/fuzz/<target>/ (new inputs go to a copy in the build directory)
# until FUZZ_RUNS inputs or FUZZ_SECONDS, and fails on a crash, a hang (FUZZ_TIMEOUT s per
# input), a leak, a sanitizer report, or fewer than FUZZ_RUNS inputs run (a loaded machine: raise
# FUZZ_SECONDS). It prints each target's executions.
FUZZ_CC      ?= clang
FUZZ_RUNS    ?= 1000000
FUZZ_SECONDS ?= 900
FUZZ_TIMEOUT ?= 5
FUZZ_BUILD   := build/$(ARCH)-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# The code is GNU C for GCC: clang must accept a flexible-array struct inside another, GCC's
# noclone attribute, and positional initializers that leave a struct's last fields zero.
FUZZ_WNO     := -Wno-gnu-variable-sized-type-not-at-end -Wno-unknown-attributes \
                -Wno-missing-field-initializers
FUZZ_TARGETS := $(notdir $(basename $(wildcard tests/fuzz/fuzz_*.c)))
.PHONY: fuzz fuzz-build
fuzz-build:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) HAVE_CXX20=0 HAVE_FIBER=0 HAVE_OMP=0 \
		CFLAGS="-O1 -g -Wall -Wextra -Werror $(FUZZ_WNO) $(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		$(patsubst %,$(FUZZ_BUILD)/%,$(FUZZ_TARGETS))

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(HARNESS_OBJ) $(CORE_OBJ)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS) $(TEST_LIBS) $(CORE_LIBS)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
		echo "== $$t (up to $(FUZZ_RUNS) inputs or $(FUZZ_SECONDS) s)"; \
		case $$t in fuzz_params) len=256 ;; fuzz_escape) len=1024 ;; *) len=8192 ;; esac; \
		$(FUZZ_BUILD)/$$t -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS) \
			-timeout=$(FUZZ_TIMEOUT) -max_len=$$len \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/$$t- \
			$(FUZZ_BUILD)/corpus/$$t tests/fuzz/$$t > $(FUZZ_BUILD)/$$t.log 2>&1 \
			|| { tail -n 40 $(FUZZ_BUILD)/$$t.log; echo "FAIL $$t"; exit 1; }; \
		grep -E '^(Done|stat::number_of_executed_units)' $(FUZZ_BUILD)/$$t.log; \
		runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_BUILD)/$$t.log); \
		[ "$${runs:-0}" -ge $(FUZZ_RUNS) ] || { echo "FAIL $$t: $$runs inputs in $(FUZZ_SECONDS) s"; exit 1; }; \
	done

clean:
	rm -rf $(BUILD) build $(BIN)

FORCE:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
-include $(shell find $(patsubst %,$(BUILD)-%,$(VARIANTS)) -name '*.d' 2>/dev/null)
