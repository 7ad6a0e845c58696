/* The implementation table and the parameters of the stackful implementations. */
#include "impls.h"

#include <stdio.h>
#include <string.h>

#include "languages.h"
#include "thread.h"

extern const cb_co_backend cb_backend_asm, cb_backend_asmjmp, cb_backend_inline, cb_backend_ucontext,
    cb_backend_fcontext, cb_backend_copystack, cb_backend_thread;

static const char *const stack_modes[] = {"auto", "guarded", "chunked", NULL};

#define CB_STACKFUL_PARAMS                                                                     \
    {"stack", CB_PARAM_INT, "65536", 8192, (int64_t)1 << 30, NULL,                             \
     "reserved stack bytes per coroutine (rounded up to pages; a guard page is added below)", \
     NULL},                                                                                    \
    {"stack_mode", CB_PARAM_ENUM, "auto", 0, 0, stack_modes,                                   \
     "auto: guarded stacks while vm.max_map_count allows, then chunked; or force one mode", NULL}

const cb_param_def cb_stackful_params[] = {
    CB_STACKFUL_PARAMS,
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

/* The hand-written switches also choose whether the FP control state travels with a coroutine. */
static const cb_param_def asm_params[] = {
    CB_STACKFUL_PARAMS,
    {"fpu", CB_PARAM_INT, "1", 0, 1, NULL,
     "1: switch MXCSR's control bits and the x87 control word with each coroutine (the x86-64 "
     "ABI's rule, as Boost.Context); 0: leave them per thread, as minicoro and libdill (no "
     "difference on AArch64, whose switch never saves FPCR)", NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

static const char *const closure_allocs[] = {"malloc", "pool", NULL};

static const cb_param_def closure_params[] = {
    {"alloc", CB_PARAM_ENUM, "malloc", 0, 0, closure_allocs,
     "malloc: every frame from glibc malloc; pool: a free list per task reuses completed frames "
     "of the same size (pooled ValueTasks, JS engines' bump allocation)", NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

static const cb_param_def go_params[] = {
    {"procs", CB_PARAM_INT, "1", 1, 1024, NULL,
     "GOMAXPROCS: 1 runs goroutines on one thread, like the C runtimes; more lets Go run them "
     "in parallel", NULL},
    {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
};

/* Threads alive at once: one per coroutine the point keeps alive. */
static int thread_check(const cb_impl_point *pt, const cb_params *p, char *err, size_t errlen)
{
    size_t stack = (size_t)cb_params_int(p, "stack"), min = cb_thread_min_stack();
    if (stack < min) {
        snprintf(err, errlen,
                 "thread: stack=%zu is below what a thread needs here (%zu: glibc's minimum "
                 "plus a %d-byte signal stack)",
                 stack, min, CB_TH_ALT_STACK);
        return -1;
    }
    uint64_t need = pt->alive;
    char why[512];
    uint64_t lim = cb_thread_limit(why, sizeof why);
    if (need <= lim)
        return 0;
    snprintf(err, errlen, "thread: %s needs %llu threads alive at once; this machine allows %s",
             pt->workload, (unsigned long long)need, why);
    return -1;
}

static const char *const cap_names[CB_CAP_COUNT] = {
    [CB_CAP_BARE_SWITCH] = "a body of only the switches",
    [CB_CAP_PLACED_FRAMES] = "coroutine stacks and frames that the body places",
    [CB_CAP_ROOT_YIELD] = "a stackful coroutine that yields to a root which resumes the other "
                          "side",
    [CB_CAP_BLOCKING_CODE] = "unmodified blocking read and write suspending inside the "
                             "coroutine (the interposition layer, impls/hook.h)",
    [CB_CAP_TRANSFER] = "a switch from one coroutine straight to another (a symmetric transfer)",
    [CB_CAP_DEAD_LOCALS] = "a body whose large locals are dead before its suspension (spawn "
                           "locals=dead)",
    [CB_CAP_DEEP_ONCE] = "a body that recurses deep once and returns before its suspension "
                         "(spawn deep_once)",
    [CB_CAP_DEEP_SHARE] = "a body in which a share of the coroutines go down `depth` levels and "
                          "the rest suspend in their body (spawn deep_share)",
};

/* A stackless coroutine suspends only by returning to its driver (what its mode=symmetric
 * pingpong cells already do), and only at an await its own code spells out (blocking code must
 * be rewritten for it: its io style=explicit cells). */
#define STACKLESS_ROOT                                                                             \
    "a stackless coroutine always suspends by returning to its driver loop, which resumes the "    \
    "other side: what its mode=symmetric cells already do"
#define STACKLESS_BLOCKING                                                                         \
    "a stackless coroutine can only suspend at an await its own code spells out, so blocking "     \
    "code must be rewritten for it, which is what its style=explicit cells are"

const char *cb_cap_name(cb_cap cap) { return cap_names[cap]; }

static const char *const cap_ids[CB_CAP_COUNT] = {
    [CB_CAP_BARE_SWITCH] = "bare-switch", [CB_CAP_PLACED_FRAMES] = "placed-frames",
    [CB_CAP_ROOT_YIELD] = "root-yield",   [CB_CAP_BLOCKING_CODE] = "blocking-code",
    [CB_CAP_TRANSFER] = "transfer",       [CB_CAP_DEAD_LOCALS] = "dead-locals",
    [CB_CAP_DEEP_ONCE] = "deep-once",     [CB_CAP_DEEP_SHARE] = "deep-share",
};

const char *cb_cap_id(cb_cap cap) { return cap_ids[cap]; }

static const char *const kind_names[CB_KIND_COUNT] = {
    [CB_KIND_OWN] = "corobench", [CB_KIND_PEER] = "peer",         [CB_KIND_LANGUAGE] = "language",
    [CB_KIND_PLUGIN] = "plugin", [CB_KIND_EXTERNAL] = "external",
};

const char *cb_impl_kind_name(cb_impl_kind kind) { return kind_names[kind]; }

/* The languages' programs (lua, go, node) have pingpong's data-path loop only, and their
 * runtimes place their own coroutines. */
#define LANG_LACKS                                                                                 \
    {                                                                                              \
        [CB_CAP_BARE_SWITCH] = "it is written for the C families and cxx20, not in this "          \
                               "language's program",                                               \
        [CB_CAP_PLACED_FRAMES] = "this language's runtime places its own coroutines",              \
        [CB_CAP_ROOT_YIELD] = "not written in the languages' programs: a Lua coroutine can only "  \
                              "yield to its resumer, so its mode=symmetric pingpong already "      \
                              "yields to a driver; goroutines hand over through Go's scheduler; "  \
                              "node's and C#'s async methods are stackless",                       \
        [CB_CAP_BLOCKING_CODE] =                                                                   \
            "corobench's hooks are for its C stackful families; go's runtime "                     \
            "does the same for its own blocking calls (its explicit cells), "                      \
            "node's and C#'s async methods are stackless and the Lua bodies "                      \
            "call their own socket functions",                                                     \
        [CB_CAP_DEAD_LOCALS] = "written for the C families and cxx20 (what a compiler keeps of "   \
                               "dead locals), not in this language's program",                     \
        [CB_CAP_DEEP_ONCE] = "written for the C families and cxx20, not in this language's "       \
                             "program",                                                            \
        [CB_CAP_DEEP_SHARE] = "written for the C families and cxx20, not in this language's "      \
                              "program"                                                            \
    }

/* The cxx20 bodies exist where the Makefile found a C++20 compiler. */
static const char *cxx20_unavailable(void)
{
#if CB_HAVE_CXX20
    return NULL;
#else
    return "built without C++20 coroutines: the Makefile's probe of $(CXX) -std=c++20 failed "
           "(cross builds have no C++ compiler for the target)";
#endif
}

/* The fiber bodies exist where the Makefile linked a fiber against Boost.Fiber. */
static const char *fiber_unavailable(void)
{
#if CB_HAVE_FIBER && defined(__SANITIZE_ADDRESS__)
    return "under AddressSanitizer: Debian's Boost.Context, which Boost.Fiber switches with, is "
           "not built with BOOST_USE_ASAN, so ASan cannot follow its stack switches";
#elif CB_HAVE_FIBER
    return NULL;
#else
    return "built without Boost.Fiber: the Makefile's probe of $(CXX) linking a fiber with "
           "-lboost_fiber failed (Debian: libboost-fiber-dev, installed by "
           "scripts/install-deps.sh; cross builds have no C++ compiler for the target)";
#endif
}

/* The omp bodies exist where the Makefile's probe compiled an OpenMP task with -fopenmp. */
static const char *omp_unavailable(void)
{
#if CB_HAVE_OMP
    return NULL;
#else
    return "built without OpenMP: the Makefile's probe of $(CC) -fopenmp failed (gcc's "
           "libgomp; cross builds leave it out)";
#endif
}

/* cxx20-clang's objects exist where g++'s do and clang++ compiled the same sources. */
static const char *cxx20_clang_unavailable(void)
{
#if CB_HAVE_CXX20_CLANG
    return NULL;
#elif CB_HAVE_CXX20
    return "built without clang++'s C++20 coroutines: the Makefile's probe of $(CLANGXX) "
           "-std=c++20 with <coroutine> failed (scripts/install-deps.sh installs clang)";
#else
    return cxx20_unavailable();
#endif
}

/* What the C++20 implementations (either compiler) refuse, and why. */
#define CXX20_CAPS(name)                                                                       \
    {[CB_CAP_PLACED_FRAMES] = "the compiler allocates " name "'s coroutine frames through "     \
                              "operator new, given the size only",                             \
     [CB_CAP_ROOT_YIELD] = STACKLESS_ROOT, [CB_CAP_BLOCKING_CODE] = STACKLESS_BLOCKING}

/* The languages' programs (cb_impl_program), started by impls/languages.c. */
static const cb_impl_program go_program = {
    .file = "bin/corobench-go",
    .file_missing = "bin/corobench-go not built (go was not installed when make ran; "
                    "scripts/install-deps.sh installs golang-go)",
};
static const cb_impl_program node_program = {
    .runner = "node",
    .runner_missing = "node not found in PATH (scripts/install-deps.sh installs nodejs)",
    /* --expose-gc: the runtime collects between repetitions, untimed. Node's default since 15,
     * pinned: a NODE_OPTIONS of warn or none would let the fault self-test's unhandled
     * rejection pass as a warning (docs/fault.md). */
    .args = {"--expose-gc", "--unhandled-rejections=throw"},
    .file = "impls/node/corobench.mjs",
    .file_missing = "impls/node/corobench.mjs not found",
};
static const cb_impl_program csharp_program = {
    .file = "bin/corobench-csharp.exe",
    .file_missing = "bin/corobench-csharp.exe not built (mcs was not installed when make ran; "
                    "scripts/install-deps.sh installs mono-mcs)",
    .runner = "mono",
    .runner_missing = "mono not found in PATH (scripts/install-deps.sh installs mono-runtime)",
};
static const cb_impl_program luajit_program = {
    .runner = "luajit",
    .runner_missing = "luajit not found in PATH (scripts/install-deps.sh installs luajit)",
    .file = "impls/luajit/corobench.lua",
    .file_missing = "impls/luajit/corobench.lua not found",
    /* Its JSON is lua-cjson's module for Lua 5.1, which LuaJIT loads. */
    .needs = {"/usr/lib/*/lua/5.1/cjson.so", "/usr/local/lib/lua/5.1/cjson.so",
              "/usr/lib/lua/5.1/cjson.so"},
    .needs_missing = "lua-cjson for Lua 5.1 (cjson.so) not installed (scripts/install-deps.sh "
                     "installs lua-cjson)",
};

static const cb_impl builtins[] = {
    [CB_IMPL_ASM] =
        {
            .name = "asm",
            .body = CB_BODY_STACKFUL,
            .family = "stackful",
            .backend = &cb_backend_asm,
            .params = asm_params,
            .kind = CB_KIND_OWN,
            .stackful_order = 1,
            .colour = "#1f77b4",
            .point = 7,
        },
    [CB_IMPL_ASMJMP] =
        {
            .name = "asmjmp",
            .body = CB_BODY_STACKFUL,
            .family = "stackful",
            .backend = &cb_backend_asmjmp,
            .params = asm_params,
            .kind = CB_KIND_OWN,
            .stackful_order = 2,
            .colour = "#17becf",
            .point = 9,
        },
    [CB_IMPL_INLINE] =
        {
            .name = "inline",
            .body = CB_BODY_STACKFUL,
            .family = "stackful",
            .backend = &cb_backend_inline,
            .params = asm_params,
            .kind = CB_KIND_OWN,
            .stackful_order = 3,
            .colour = "#08306b",
            .point = 13,
        },
    [CB_IMPL_UCONTEXT] =
        {
            .name = "ucontext",
            .body = CB_BODY_STACKFUL,
            .family = "stackful",
            .backend = &cb_backend_ucontext,
            .params = cb_stackful_params,
            .kind = CB_KIND_OWN,
            .stackful_order = 5,
            .colour = "#2ca02c",
            .point = 5,
        },
    [CB_IMPL_FCONTEXT] =
        {
            .name = "fcontext",
            .body = CB_BODY_STACKFUL,
            .family = "stackful",
            .backend = &cb_backend_fcontext,
            .params = cb_stackful_params,
            .kind = CB_KIND_PEER,
            .stackful_order = 4,
            .colour = "#98df8a",
            .point = 11,
        },
    [CB_IMPL_COPYSTACK] =
        {
            .name = "copystack",
            .body = CB_BODY_STACKFUL,
            .family = "stackful",
            .backend = &cb_backend_copystack,
            .params = cb_stackful_params,
            .kind = CB_KIND_PEER,
            .stackful_order = 6,
            .colour = "#6b6ecf",
            .point = 15,
        },
    [CB_IMPL_THREAD] =
        {
            .name = "thread",
            .body = CB_BODY_STACKFUL,
            .family = "stackful",
            .backend = &cb_backend_thread,
            .params = cb_stackful_params,
            .check = thread_check,
            .kind = CB_KIND_PEER,
            .stackful_order = 7,
            .colour = "#7f7f7f",
            .point = 4,
        },
    [CB_IMPL_SM] =
        {
            .name = "sm",
            .body = CB_BODY_SM,
            .family = "stackless",
            .description = "stackless state machine in plain C, as compilers lower async/await: "
                           "switch over resume points, live locals in a frame struct, callee "
                           "frames embedded in the caller's",
            .lacks =
                {[CB_CAP_ROOT_YIELD] = STACKLESS_ROOT, [CB_CAP_BLOCKING_CODE] = STACKLESS_BLOCKING},
            .kind = CB_KIND_OWN,
            .colour = "#d62728",
            .point = 7,
        },
    [CB_IMPL_CLOSURE] =
        {
            .name = "closure",
            .body = CB_BODY_CLOSURE,
            .family = "stackless",
            .description =
                "stackless heap closure frames, as C# Tasks and JavaScript async functions: one "
                "heap frame per async call with a continuation, freed on completion",
            .params = closure_params,
            .lacks =
                {[CB_CAP_ROOT_YIELD] = STACKLESS_ROOT, [CB_CAP_BLOCKING_CODE] = STACKLESS_BLOCKING},
            .kind = CB_KIND_OWN,
            .colour = "#ff7f0e",
            .point = 5,
        },
    [CB_IMPL_CXX20] =
        {
            .name = "cxx20",
            .body = CB_BODY_CXX20,
            .family = "stackless",
            .description = "C++20 coroutines (g++ -std=c++20): a task type whose nested co_await "
                           "transfers symmetrically to the child and back, frames on the runtime "
                           "heap; a recursive generator over tasks for recursive",
            .unavailable = cxx20_unavailable,
            .lacks = CXX20_CAPS("cxx20"),
            .kind = CB_KIND_PEER,
            .colour = "#e377c2",
            .point = 9,
        },
    [CB_IMPL_CXX20_CLANG] =
        {
            .name = "cxx20-clang",
            .body = CB_BODY_CXX20_CLANG,
            .family = "stackless",
            .description = "the cxx20 sources (task type and bodies) compiled by clang++ -O2 "
                           "(Debian's clang 14) instead of g++, in the same binary: what the other "
                           "compiler makes of the same coroutines, frame elision included",
            .unavailable = cxx20_clang_unavailable,
            .lacks = CXX20_CAPS("cxx20-clang"),
            .kind = CB_KIND_PEER,
            .colour = "#ad494a",
            .point = 11,
        },
    [CB_IMPL_DIRECT] =
        {
            .name = "direct",
            .body = CB_BODY_DIRECT,
            .family = "baseline",
            .description = "no coroutine at all: each workload's data path with plain calls and "
                           "structs, the same checksum and no suspension; the baseline whose ns "
                           "per op every model's overhead is over",
            .kind = CB_KIND_OWN,
            .colour = "#000000",
            .point = 1,
        },
    [CB_IMPL_LUA] =
        {
            .name = "lua",
            .body = CB_BODY_LUA,
            .family = "stackful",
            .description = "Lua 5.4 coroutines (impls/lua/), embedded in the cell's process: each "
                           "coroutine a Lua stack of its own, resumed and yielded by the Lua VM",
            .unavailable = cb_lang_lua_unavailable,
            .lacks = LANG_LACKS,
            .kind = CB_KIND_LANGUAGE,
            .colour = "#8c564b",
            .point = 6,
        },
    [CB_IMPL_GO] =
        {
            .name = "go",
            .body = CB_BODY_EXTERNAL,
            .family = "stackful",
            .description =
                "Go goroutines and unbuffered channels (impls/go/, bin/corobench-go), scheduled by "
                "the Go runtime; measured by its own program through docs/external.md's protocol",
            .params = go_params,
            .program = &go_program,
            .external = 1,
            .lacks = LANG_LACKS,
            .kind = CB_KIND_LANGUAGE,
            .colour = "#17606e",
            .point = 12,
        },
    [CB_IMPL_NODE] =
        {
            .name = "node",
            .body = CB_BODY_EXTERNAL,
            .family = "stackless",
            .description =
                "JavaScript async functions, promises and async generators on Node.js "
                "(impls/node/); measured by its own program through docs/external.md's protocol",
            .program = &node_program,
            .external = 1,
            .lacks = LANG_LACKS,
            .kind = CB_KIND_LANGUAGE,
            .colour = "#bcbd22",
            .point = 10,
        },
    [CB_IMPL_CSHARP] =
        {
            .name = "csharp",
            .body = CB_BODY_EXTERNAL,
            .family = "stackless",
            .description =
                "C# async methods over Tasks on Mono (impls/csharp/, bin/corobench-csharp.exe "
                "built by mcs): the compiler's state machines, awaits resumed by the program's own "
                "run queue; measured by its own program through docs/external.md's protocol",
            .program = &csharp_program,
            .external = 1,
            .lacks = LANG_LACKS,
            .kind = CB_KIND_LANGUAGE,
            .colour = "#9467bd",
            .point = 14,
        },
    [CB_IMPL_LUAJIT] =
        {
            .name = "luajit",
            .body = CB_BODY_EXTERNAL,
            .family = "stackful",
            .description =
                "the Lua workloads' coroutines on LuaJIT 2.1 (impls/luajit/, with impls/lua/'s "
                "bodies where the two languages write them alike), 64-bit values as FFI uint64_t; "
                "LuaJIT cannot share the cell's process with Lua 5.4, so it is measured by its own "
                "program through docs/external.md's protocol",
            .program = &luajit_program,
            .external = 1,
            .lacks = LANG_LACKS,
            .kind = CB_KIND_LANGUAGE,
            .colour = "#c49c94",
            .point = 8,
        },
    [CB_IMPL_FIBER] =
        {
            .name = "fiber",
            .body = CB_BODY_FIBER,
            .family = "stackful",
            .description =
                "Boost.Fiber's fibers (Debian's libboost-fiber-dev) on its work_stealing "
                "scheduler, `workers` threads each with a ready queue: forkjoin and yieldstorm "
                "only (workloads/sched_fiber.cc, docs/sched.md)",
            .unavailable = fiber_unavailable,
            .kind = CB_KIND_PEER,
            .colour = "#e7ba52",
            .point = 3,
        },
    [CB_IMPL_OMP] =
        {
            .name = "omp",
            .body = CB_BODY_OMP,
            .family = "baseline",
            .description =
                "no coroutine on `workers` OpenMP threads (gcc's libgomp): forkjoin as OpenMP "
                "tasks and taskwait, yieldstorm as direct's loops shared out over the threads; "
                "the many-threads counterpart of direct, for the scheduler's workloads only "
                "(workloads/omp/sched_omp.c, docs/sched.md)",
            .unavailable = omp_unavailable,
            .kind = CB_KIND_PEER,
            .colour = "#9c9ede",
            .point = 2,
        },
};
_Static_assert(sizeof builtins / sizeof builtins[0] == CB_IMPL_BUILTINS,
               "a row of builtins[] without its cb_impl_id, or the other way round");
const cb_impl *cb_impls = builtins;
size_t cb_nimpls = sizeof builtins / sizeof builtins[0];

/* The built-ins copied once, then the plugins. */
static cb_impl registry[CB_IMPLS_MAX];

int cb_impl_add(const cb_impl *impl)
{
    if (cb_nimpls >= CB_IMPLS_MAX)
        return -1;
    if (cb_impls == builtins) {
        memcpy(registry, builtins, sizeof builtins);
        cb_impls = registry;
    }
    registry[cb_nimpls++] = *impl;
    return 0;
}

int cb_utf8_valid(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3
                 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
        for (size_t i = 1; i < n; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        if (!n || (p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
            (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
            return 0;
        p += n;
    }
    return 1;
}

int cb_impl_add_external(const char *name, const char *command, char *err, size_t errlen)
{
    size_t n = strlen(name);
    int ok = n >= 1 && n <= 32 && name[0] >= 'a' && name[0] <= 'z';
    for (size_t i = 0; ok && i < n; i++)
        ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
             name[i] == '_' || name[i] == '-';
    const char *bad = !ok                 ? "is not 1 to 32 of a-z, 0-9, '_', '-' starting with a "
                                            "letter"
                      : cb_impl_find(name) ? "is an implementation's already"
                      : !strcmp(name, "all") ? "is 'all', which --impl reads as every "
                                               "implementation"
                      : !*command          ? "has an empty command"
                      : !cb_utf8_valid(command) ? "has a command that is not valid UTF-8, which "
                                                  "the results record"
                                           : NULL;
    if (bad) {
        snprintf(err, errlen, "invalid value '%s=%s' for --external: the name %s (valid: "
                 "NAME=COMMAND, a new name and a command that speaks docs/external.md's protocol)",
                 cb_quote(name), cb_quote(command), bad);
        return -1;
    }
    if ((bad = cb_lang_command_unsafe(command))) {
        snprintf(err, errlen, "invalid value '%s=%s' for --external: the command %s (valid: "
                 "a command to which the shell appends the request as its last word)",
                 cb_quote(name), cb_quote(command), bad);
        return -1;
    }
    cb_impl im = {.name = name,
                  .body = CB_BODY_EXTERNAL,
                  .description = "a runtime of the user's, a program of its own (--external): "
                                 "measured through docs/external.md's protocol",
                  .external = 1,
                  .family = "external",
                  .lacks = {[CB_CAP_PLACED_FRAMES] = "an external runtime places its own "
                                                     "coroutines",
                            [CB_CAP_DEAD_LOCALS] = "docs/external.md's protocol has no body with "
                                                   "dead locals",
                            [CB_CAP_DEEP_ONCE] = "docs/external.md's protocol has no body that "
                                                 "goes deep once",
                            [CB_CAP_DEEP_SHARE] = "docs/external.md's protocol has no body in "
                                                  "which only a share of the coroutines go "
                                                  "deep"},
                  .kind = CB_KIND_EXTERNAL};
    if (cb_lang_add_user(name, command) != 0 || cb_impl_add(&im) != 0) {
        snprintf(err, errlen, "invalid value '%s=%s' for --external: too many runtimes added "
                 "(valid: at most %d)", cb_quote(name), cb_quote(command), CB_LANG_MAX_USER);
        return -1;
    }
    return 0;
}

const char *cb_impl_name(cb_impl_id id) { return builtins[id].name; }

const cb_impl *cb_impl_find(const char *name)
{
    for (size_t i = 0; i < cb_nimpls; i++)
        if (strcmp(cb_impls[i].name, name) == 0)
            return &cb_impls[i];
    return NULL;
}

/* Per body: the name of the workload body it runs. */
static const char *const bodies[CB_BODY_COUNT] = {
    [CB_BODY_STACKFUL] = "stackful", [CB_BODY_SM] = "state-machine",
    [CB_BODY_CLOSURE] = "closure",   [CB_BODY_DIRECT] = "direct",
    [CB_BODY_LUA] = "lua",           [CB_BODY_CXX20] = "cxx20",
    [CB_BODY_CXX20_CLANG] = "cxx20-clang", [CB_BODY_EXTERNAL] = "external",
    [CB_BODY_FIBER] = "fiber",       [CB_BODY_OMP] = "omp",
};

const char *cb_impl_family(const cb_impl *impl) { return impl->family; }

const char *cb_impl_body_name(const cb_impl *impl) { return bodies[impl->body]; }

int cb_impl_is_language(const cb_impl *impl)
{
    return impl->kind == CB_KIND_LANGUAGE || impl->kind == CB_KIND_PLUGIN ||
           impl->kind == CB_KIND_EXTERNAL;
}

const char *cb_impl_plugin_path(const cb_impl *impl)
{
    return impl->backend ? impl->backend->plugin_path : NULL;
}

const char *cb_impl_plugin_identity(const cb_impl *impl)
{
    return impl->backend ? impl->backend->plugin_identity : NULL;
}

int cb_impl_argv(const char *name, const char *argv[CB_LANG_ARGV], const char **why)
{
    int user = cb_lang_user_argv(name, argv, why);
    if (user)
        return user < 0 ? -1 : 0;
    const cb_impl *im = cb_impl_find(name);
    if (im && im->program)
        return cb_lang_program_argv(im->program, argv, why);
    static char msg[600];
    size_t k = (size_t)snprintf(msg, sizeof msg, "no such language runtime (valid: ");
    const char *sep = "";
    for (size_t i = 0; i < cb_nimpls && k < sizeof msg; i++)
        if (cb_impls[i].program) {
            k += (size_t)snprintf(msg + k, sizeof msg - k, "%s%s", sep, cb_impls[i].name);
            sep = ", ";
        }
    if (k < sizeof msg)
        snprintf(msg + k, sizeof msg - k, ")");
    *why = msg;
    return -1;
}

const char *cb_impl_unavailable(const cb_impl *impl)
{
    if (impl->backend && impl->backend->unavailable)
        return impl->backend->unavailable();
    if (impl->unavailable)
        return impl->unavailable();
    if (impl->program) {
        const char *argv[CB_LANG_ARGV], *why = NULL;
        return cb_lang_program_argv(impl->program, argv, &why) == 0 ? NULL : why;
    }
    return NULL;
}

cb_co_cfg cb_impl_co_cfg(const cb_impl *impl, const cb_params *p)
{
    const cb_param_val *fpu = cb_params_find(p, "fpu");
    const char *m = cb_params_str(p, "stack_mode");
    return (cb_co_cfg){
        .be = fpu && fpu->i == 0 && impl->backend->nofpu ? impl->backend->nofpu : impl->backend,
        .stack_size = cb_impl_stack_size(p),
        .stack_mode = strcmp(m, "guarded") == 0   ? CB_STACK_GUARDED
                      : strcmp(m, "chunked") == 0 ? CB_STACK_CHUNKED
                                                  : CB_STACK_AUTO,
    };
}

int cb_impl_cl_pool(const cb_params *p) { return strcmp(cb_params_str(p, "alloc"), "pool") == 0; }

size_t cb_impl_stack_size(const cb_params *p) { return (size_t)cb_params_int(p, "stack"); }
