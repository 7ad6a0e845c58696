/* The registry of implementations: every runtime corobench can measure, available here or not
 * (an unavailable one still registers and says why, so results say "unsupported: reason"
 * instead of silently dropping a row). */
#ifndef CB_IMPLS_H
#define CB_IMPLS_H

#include "params/params.h"
#include "coro.h"
#include "languages.h"

/* Which body of a workload an implementation runs. lua's body of every workload is its Lua file,
 * run in the cell's process (impls/lua/cb_lua.c); the other languages' runtimes (go, node...) are
 * programs of their own (their row's program), measured through the external protocol as a
 * user's runtime is, so no workload has a C body for them: they run CB_BODY_EXTERNAL. cxx20 and
 * cxx20-clang are the C++20 bodies beside each workload's C ones. */
typedef enum cb_body {
    CB_BODY_STACKFUL,
    CB_BODY_SM,
    CB_BODY_CLOSURE,
    CB_BODY_DIRECT, /* no coroutine: the workload's data path with plain calls, the baseline */
    CB_BODY_LUA,
    CB_BODY_CXX20,  /* C++20 coroutines (the task type impls/cxx20/task.hh) */
    CB_BODY_CXX20_CLANG, /* the same C++20 sources compiled by clang++ */
    CB_BODY_FIBER,  /* Boost.Fiber's fibers (workloads/sched_fiber.cc): the scheduler's workloads */
    CB_BODY_OMP,    /* OpenMP threads, no coroutine (workloads/omp/sched_omp.c): the same two */
    CB_BODY_EXTERNAL, /* a program of its own: a language's (its row's program) or a user's
                       * (--external NAME=COMMAND) */
    CB_BODY_COUNT
} cb_body;

/* What a runtime may lack that a workload's parameter value needs; the workload names the values
 * (cb_workload.needs), the implementation why it lacks one (cb_impl.lacks), and the cell is then
 * unsupported with both (cb_wl_unsupported). */
typedef enum cb_cap {
    CB_CAP_BARE_SWITCH,   /* a body of only the switches, without the data path */
    CB_CAP_PLACED_FRAMES, /* stacks and frames placed by the body, not by the runtime */
    CB_CAP_ROOT_YIELD,    /* a stackful coroutine that yields to a root which resumes another */
    CB_CAP_BLOCKING_CODE, /* unmodified blocking calls suspending inside a coroutine (hook.h) */
    CB_CAP_TRANSFER,      /* a switch from one coroutine straight to another (cb_co_transfer) */
    CB_CAP_DEAD_LOCALS,   /* a body whose large locals are dead before its suspension */
    CB_CAP_DEEP_ONCE,     /* a body that recurses deep once and returns before its suspension */
    CB_CAP_DEEP_SHARE,    /* a body in which only some coroutines go down `depth` levels */
    CB_CAP_COUNT
} cb_cap;

/* What an implementation is to corobench (the results' impl_row.kind): one of its own runtimes,
 * a peer it measures (a library, a compiler's coroutines), a language's own runtime, a plugin
 * (--impl-lib), or a user's program (--external). */
typedef enum cb_impl_kind {
    CB_KIND_OWN,
    CB_KIND_PEER,
    CB_KIND_LANGUAGE,
    CB_KIND_PLUGIN,
    CB_KIND_EXTERNAL,
    CB_KIND_COUNT
} cb_impl_kind;

/* What an implementation's check is told of a workload's point, by the workload. */
typedef struct cb_impl_point {
    const char *workload; /* for messages */
    uint64_t alive;       /* coroutines the point keeps alive at once */
} cb_impl_point;

typedef struct cb_impl {
    const char *name;
    cb_body body;
    const char *description;
    const cb_co_backend *backend; /* stackful only */
    const cb_param_def *params;   /* implementation parameters, NULL-name-terminated */
    /* Where there is no backend: NULL when it runs here, else why not. */
    const char *(*unavailable)(void);
    /* A program of its own measures the cell (harness/measure/external.c), not a C body. */
    int external;
    /* A language's program (CB_BODY_EXTERNAL; a user's runtime has its command instead). */
    const cb_impl_program *program;
    /* "stackful", "stackless", "baseline" or "external" (the results' "family"): goroutines and
     * Lua coroutines each have a stack of their own, JavaScript async functions do not. */
    const char *family;
    /* Optional: 0 when this implementation can run the point at p, else -1 and a one-line
     * reason (a thread limit, say); the cell is then recorded as unsupported. */
    int (*check)(const cb_impl_point *pt, const cb_params *p, char *err, size_t errlen);
    /* Why it lacks a capability, NULL where it has it. */
    const char *lacks[CB_CAP_COUNT];
    cb_impl_kind kind;
    /* Its place in the stackful order that claims 12 and 15 take (the first implementation
     * with the cells a claim needs), from 1: corobench's asm first, its other asm switches,
     * then the peers; 0: not in it. */
    int stackful_order;
    /* Its plot colour ("#rrggbb") and gnuplot point type (harness/results/style.c); NULL: a
     * spare one, first come first served (a plugin, a user's program). */
    const char *colour;
    int point;
} cb_impl;

/* The built-in implementations by their place in the table (cb_impls[CB_IMPL_ASM]): how code
 * outside impls/ names one (the report's claims) without writing its name. */
typedef enum cb_impl_id {
    CB_IMPL_ASM,
    CB_IMPL_ASMJMP,
    CB_IMPL_INLINE,
    CB_IMPL_UCONTEXT,
    CB_IMPL_FCONTEXT,
    CB_IMPL_COPYSTACK,
    CB_IMPL_THREAD,
    CB_IMPL_SM,
    CB_IMPL_CLOSURE,
    CB_IMPL_CXX20,
    CB_IMPL_CXX20_CLANG,
    CB_IMPL_DIRECT,
    CB_IMPL_LUA,
    CB_IMPL_GO,
    CB_IMPL_NODE,
    CB_IMPL_CSHARP,
    CB_IMPL_LUAJIT,
    CB_IMPL_FIBER,
    CB_IMPL_OMP,
    CB_IMPL_BUILTINS
} cb_impl_id;
/* A built-in implementation's name. */
const char *cb_impl_name(cb_impl_id id);

/* The built-in implementations, then the plugins loaded so far (cb_impl_add). */
extern const cb_impl *cb_impls;
extern size_t cb_nimpls;

/* Appends impl to the registry; 0, or -1 when the registry is full (CB_IMPLS_MAX). The first
 * call moves the registry: a pointer into it taken before (a selection) must be taken again. */
enum { CB_IMPLS_MAX = 64 };
int cb_impl_add(const cb_impl *impl);
/* Registers a user's runtime (--external NAME=COMMAND) as an implementation measured through
 * the external protocol. 0, or -1 with one line in err (a bad or taken name, too many). */
int cb_impl_add_external(const char *name, const char *command, char *err, size_t errlen);
/* The parameters of a stackful implementation without an FP choice: stack and stack_mode. */
extern const cb_param_def cb_stackful_params[];

const cb_impl *cb_impl_find(const char *name);
/* Its row's family (cb_impl.family). */
const char *cb_impl_family(const cb_impl *impl);
/* Which body of a workload it runs: "stackful", "state-machine", "closure", "direct", "lua",
 * "cxx20", "cxx20-clang" or "external". */
const char *cb_impl_body_name(const cb_impl *impl);
/* The command line that starts the runtime `name`, a user's (--external) or a row's with a
 * program (languages.h): 0, or -1 with *why set. */
int cb_impl_argv(const char *name, const char *argv[CB_LANG_ARGV], const char **why);
/* NULL when the implementation runs here, else the reason. */
const char *cb_impl_unavailable(const cb_impl *impl);
/* A language's own runtime (lua, go, node...), a plugin (--impl-lib) or a user's program
 * (--external), by its row's kind: not code corobench compiles, so the build variants and the
 * return-stack simulator do not apply to it. */
int cb_impl_is_language(const cb_impl *impl);
/* Whether s is valid UTF-8, as jansson takes it: a plugin's path and a user's command are
 * recorded in the results and carried in each cell's JSON request, which hold no other text
 * (impls/ cannot reach harness/common/untrusted.c, whose cb_text_is_clean says the same). */
int cb_utf8_valid(const char *s);
/* The shared object a plugin was loaded from (--impl-lib, impls/plugin.h); NULL for a built-in. */
const char *cb_impl_plugin_path(const cb_impl *impl);
/* What that shared object was when it was loaded: its size, modification time and content hash
 * ("16384 bytes, mtime 1764680000.123456789, fnv1a64 0x..."); NULL for a built-in. */
const char *cb_impl_plugin_identity(const cb_impl *impl);
/* What a capability is, for messages ("a body of only the switches"). */
const char *cb_cap_name(cb_cap cap);
/* A capability's name in the results ("bare-switch": impl_row.lacks). */
const char *cb_cap_id(cb_cap cap);
/* A kind's name in the results: "corobench", "peer", "language", "plugin", "external". */
const char *cb_impl_kind_name(cb_impl_kind kind);
/* A cell's configuration, from its implementation's parameters, for what its body creates (no
 * process state: the body passes it on). A stackful cell's coroutines: the backend (fpu=0 picks
 * the backend's nofpu twin), the stack bytes and mode. */
cb_co_cfg cb_impl_co_cfg(const cb_impl *impl, const cb_params *p);
/* A closure cell's alloc=pool (1) or malloc (0): each task's pool (closure.h). */
int cb_impl_cl_pool(const cb_params *p);
/* Reserved stack bytes for a stackful cell (parameter "stack"). */
size_t cb_impl_stack_size(const cb_params *p);

#endif
