/* Identical work across implementations: for every workload, on a grid of parameter points,
 * every implementation must finish with the same ops, checksum and suspension count. Runs the
 * family bodies directly (no harness), so it also runs cross-built under qemu-aarch64. */
#include <valgrind/valgrind.h>

#include "impls/runtime.h"
#include "test.h"
#include "workloads/run_once.h"
#include "workloads/sched_wl.h"
#include "workloads/workload.h"

typedef struct point {
    const char *workload;
    const char *set[13]; /* name, value, name, value, ..., NULL */
} point;

static const point grid[] = {
    {"pingpong", {"depth", "0", "sites", "distinct", "switches", "1000"}},
    {"pingpong", {"depth", "1", "sites", "distinct", "switches", "1000"}},
    {"pingpong", {"depth", "7", "sites", "distinct", "switches", "1000"}},
    {"pingpong", {"depth", "40", "sites", "distinct", "switches", "1000"}},
    {"pingpong", {"depth", "0", "sites", "same", "switches", "1000"}},
    {"pingpong", {"depth", "1", "sites", "same", "switches", "1000"}},
    {"pingpong", {"depth", "7", "sites", "same", "switches", "1000"}},
    {"pingpong", {"depth", "40", "sites", "same", "switches", "1001"}},
    {"pingpong", {"depth", "0", "sites", "distinct", "switches", "1000", "work", "none"}},
    {"pingpong", {"depth", "0", "sites", "same", "switches", "1001", "work", "none"}},
    {"pingpong", {"depth", "7", "sites", "distinct", "switches", "1000", "fpu", "0"}},
    {"pingpong", {"depth", "0", "switches", "1000", "mode", "asymmetric"}},
    {"pingpong", {"depth", "7", "switches", "1001", "mode", "asymmetric"}},
    {"pingpong", {"depth", "3", "sites", "same", "switches", "1000", "mode", "asymmetric"}},
    {"pingpong", {"depth", "0", "switches", "1000", "work", "none", "mode", "asymmetric"}},
    {"recursive", {"height", "1"}},
    {"recursive", {"height", "5"}},
    {"recursive", {"height", "12"}},
    {"io", {"conns", "1", "size", "1", "msgs", "50"}},
    {"io", {"conns", "1", "size", "4096", "msgs", "50"}},
    {"io", {"conns", "8", "size", "1", "msgs", "50"}},
    {"io", {"conns", "8", "size", "4096", "msgs", "50"}},
    {"io", {"conns", "100", "size", "1", "msgs", "20"}},
    {"io", {"conns", "100", "size", "4096", "msgs", "20"}},
    {"io", {"conns", "8", "transport", "tcp", "msgs", "50"}},
    {"io", {"conns", "4", "size", "1", "msgs", "20", "style", "blocking"}},
    {"io", {"conns", "2", "size", "4096", "msgs", "20", "style", "blocking"}},
    {"io", {"conns", "4", "transport", "tcp", "msgs", "20", "style", "blocking"}},
    {"spawn", {"n", "1", "depth", "0", "frame", "8"}},
    {"spawn", {"n", "1", "depth", "3", "frame", "256"}},
    {"spawn", {"n", "100", "depth", "0", "frame", "256"}},
    {"spawn", {"n", "100", "depth", "3", "frame", "8"}},
    {"spawn", {"n", "3000", "depth", "0", "frame", "8"}},
    {"spawn", {"n", "3000", "depth", "3", "frame", "256"}},
    {"spawn", {"n", "300", "depth", "2", "frame", "24", "layout", "offset"}},
    {"spawn", {"n", "300", "depth", "2", "frame", "24", "order", "random"}},
    {"spawn",
     {"n", "300", "depth", "0", "frame", "4096", "layout", "offset", "order", "random", "seed",
      "7"}},
    {"spawn", {"n", "200", "depth", "3", "frame", "8", "alloc", "pool"}},
    {"spawn", {"n", "200", "depth", "3", "frame", "1024", "locals", "dead"}},
    {"spawn", {"n", "50", "depth", "1", "frame", "256", "deep_once", "12"}},
    {"spawn", {"n", "200", "depth", "5", "frame", "256", "deep_share", "3"}},
    {"spawn",
     {"n", "300", "depth", "2", "frame", "24", "layout", "offset", "order", "random",
      "deep_share", "40"}},
    {"pingpong", {"depth", "5", "switches", "1000", "alloc", "pool"}},
    {"recursive", {"height", "9", "alloc", "pool"}},
    {"io", {"conns", "4", "msgs", "30", "alloc", "pool"}},
    {"await", {"depth", "0", "suspend_every", "1", "calls", "300"}},
    {"await", {"depth", "4", "suspend_every", "10", "calls", "1000"}},
    {"await", {"depth", "9", "suspend_every", "100", "calls", "1000"}},
    {"await", {"depth", "3", "suspend_every", "never", "calls", "500"}},
    {"await", {"depth", "5", "suspend_every", "10", "calls", "400", "alloc", "pool"}},
    {"pipeline", {"stages", "2", "items", "100", "size", "64", "sched", "fifo"}},
    {"pipeline", {"stages", "2", "items", "100", "size", "64", "sched", "direct"}},
    {"pipeline", {"stages", "5", "items", "101", "size", "8", "sched", "fifo"}},
    {"pipeline", {"stages", "5", "items", "101", "size", "8", "sched", "direct"}},
    {"pipeline", {"stages", "16", "items", "50", "size", "1024", "sched", "fifo"}},
    {"pipeline", {"stages", "16", "items", "50", "size", "1024", "sched", "direct"}},
    {"forkjoin", {"fanout", "2", "depth", "9"}},
    {"forkjoin", {"fanout", "3", "depth", "5", "leaf_work", "7", "workers", "2"}},
    {"forkjoin", {"fanout", "2", "depth", "14", "shape", "unbalanced", "q", "800", "workers", "2"}},
    {"forkjoin", {"fanout", "5", "depth", "4", "workers", "2", "queue", "wfcq"}},
    {"forkjoin", {"fanout", "4", "depth", "5", "workers", "2", "queue", "ck", "alloc", "pool"}},
    {"yieldstorm", {"coros", "50", "yields", "20"}},
    {"yieldstorm", {"coros", "7", "yields", "300", "workers", "2"}},
    {"yieldstorm", {"coros", "64", "yields", "10", "workers", "2", "queue", "wfcq"}},
    {"yieldstorm", {"coros", "64", "yields", "10", "workers", "2", "queue", "ck"}},
};

typedef struct outcome {
    cb_wl_result r;
    uint64_t suspensions;
} outcome;

/* Whether impl runs wl at p here; an unsupported point must say why. */
static int supported(const cb_workload *wl, const cb_impl *im, const cb_params *p)
{
    char buf[1024];
    const char *why = cb_wl_unsupported(wl, im, p, buf, sizeof buf);
    if (why && !why[0])
        CB_FAIL("%s/%s: unsupported without a reason", wl->name, im->name);
    return why == NULL;
}

static outcome run_point(const cb_workload *wl, const cb_impl *im, const cb_params *p)
{
    char err[512] = "";
    cb_wl_once once;
    if (cb_wl_run_once(wl, im, p, NULL, &once, err, sizeof err))
        CB_FAIL("%s/%s: %s", wl->name, im->name, err);
    return (outcome){once.res, once.suspensions};
}

/* Available here and with an in-process body for wl: every C implementation (io has no direct
 * body: it says why), and lua where it was built in (go and node run as programs of their own:
 * tests/test_external.c). Not lua under valgrind: its interpreter there outlasts the tests'
 * timeout (it runs natively and under ASan). */
static int runs_here(const cb_workload *wl, const cb_impl *im)
{
    if (im->body == CB_BODY_LUA && RUNNING_ON_VALGRIND)
        return 0;
    /* fiber sets its threads up once per process, for one `workers`: its points run a process
     * each (tests/test_sched_peers.c) */
    if (im->body == CB_BODY_FIBER)
        return 0;
    return !cb_impl_unavailable(im) && cb_wl_family(wl, im);
}

/* The baseline family (direct, and omp on threads) has no coroutine: it must do the same work
 * with no suspension at all. */
static int is_direct(const cb_impl *im) { return !strcmp(cb_impl_family(im), "baseline"); }

/* A point where no family suspends (await with suspend_every=never). */
static int never_suspends(const point *pt)
{
    for (size_t i = 0; pt->set[i] && pt->set[i + 1]; i += 2)
        if (!strcmp(pt->set[i], "suspend_every") && !strcmp(pt->set[i + 1], "never"))
            return 1;
    return 0;
}

static void check_workload(const cb_workload *wl)
{
    const char *name = wl->name;
    size_t points = 0;
    for (size_t g = 0; g < sizeof grid / sizeof grid[0]; g++) {
        if (strcmp(grid[g].workload, name))
            continue;
        outcome ref = {{0, 0}, 0};
        const char *ref_impl = NULL;
        uint64_t heap0 = cb_rt.heap_live_bytes;
        for (size_t i = 0; i < cb_nimpls; i++) {
            const cb_impl *im = &cb_impls[i];
            if (!runs_here(wl, im))
                continue;
            cb_params p;
            cb_test_params(wl, im, grid[g].set, &p);
            if (!supported(wl, im, &p))
                continue;
            outcome o = run_point(wl, im, &p);
            outcome again = run_point(wl, im, &p);
            char where[256];
            snprintf(where, sizeof where, "%s point %zu impl %s", name, g,
                     im->name);
            if (o.r.checksum != again.r.checksum || o.suspensions != again.suspensions)
                CB_FAIL("%s: not deterministic", where);
            if (is_direct(im) || never_suspends(&grid[g]) ? o.suspensions != 0
                                                           : o.suspensions == 0)
                CB_FAIL("%s: %llu suspensions", where, (unsigned long long)o.suspensions);
            if (!ref_impl && is_direct(im))
                continue; /* the reference is a coroutine family's (direct comes after them) */
            if (!ref_impl) {
                ref = o;
                ref_impl = im->name;
                continue;
            }
            if (o.r.ops != ref.r.ops || o.r.checksum != ref.r.checksum ||
                (!is_direct(im) && o.suspensions != ref.suspensions))
                CB_FAIL("%s: ops %llu checksum 0x%016llx suspensions %llu, but %s gave ops %llu "
                        "checksum 0x%016llx suspensions %llu",
                        where, (unsigned long long)o.r.ops, (unsigned long long)o.r.checksum,
                        (unsigned long long)o.suspensions, ref_impl,
                        (unsigned long long)ref.r.ops, (unsigned long long)ref.r.checksum,
                        (unsigned long long)ref.suspensions);
        }
        /* Everything the runtimes allocated for the runs was given back. */
        CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
        points++;
    }
    CB_CHECK(points > 0);
}

CB_TEST_PER_WORKLOAD(check_workload, "workload_", "_identical_across_impls")

/* One op and one suspension per coroutine; one coroutine more, one level deeper or one word
 * more of live locals changes the checksum, in every family. */
CB_TEST(workload_spawn_checksum_depends_on_every_coroutine)
{
    const cb_workload *wl = cb_workload_find("spawn");
    static const point base = {"spawn", {"n", "50", "depth", "2", "frame", "16"}};
    static const point other[] = {
        {"spawn", {"n", "51", "depth", "2", "frame", "16"}},
        {"spawn", {"n", "50", "depth", "3", "frame", "16"}},
        {"spawn", {"n", "50", "depth", "2", "frame", "24"}},
    };
    for (size_t i = 0; i < cb_nimpls; i++) {
        if (!runs_here(wl, &cb_impls[i]))
            continue;
        cb_params pb;
        cb_test_params(wl, &cb_impls[i], base.set, &pb);
        if (!supported(wl, &cb_impls[i], &pb))
            continue;
        outcome ob = run_point(wl, &cb_impls[i], &pb);
        CB_CHECK_EQ_U64(ob.r.ops, 50);
        CB_CHECK_EQ_U64(ob.suspensions, is_direct(&cb_impls[i]) ? 0 : 50);
        for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
            cb_params po;
            cb_test_params(wl, &cb_impls[i], other[k].set, &po);
            outcome oo = run_point(wl, &cb_impls[i], &po);
            if (oo.r.checksum == ob.r.checksum)
                CB_FAIL("%s: variation %zu has the base point's checksum", cb_impls[i].name, k);
        }
    }
}

/* The checksum must see every switch: one switch more or less changes it, for every family. */
CB_TEST(workload_checksum_sees_every_switch)
{
    const cb_workload *wl = cb_workload_find("pingpong");
    point a = {"pingpong", {"depth", "3", "switches", "999"}};
    point b = {"pingpong", {"depth", "3", "switches", "1000"}};
    for (size_t i = 0; i < cb_nimpls; i++) {
        if (!runs_here(wl, &cb_impls[i]))
            continue;
        cb_params pa, pb;
        cb_test_params(wl, &cb_impls[i], a.set, &pa);
        cb_test_params(wl, &cb_impls[i], b.set, &pb);
        if (!supported(wl, &cb_impls[i], &pa) || !supported(wl, &cb_impls[i], &pb))
            continue;
        outcome oa = run_point(wl, &cb_impls[i], &pa), ob = run_point(wl, &cb_impls[i], &pb);
        CB_CHECK(oa.r.checksum != ob.r.checksum);
        CB_CHECK_EQ_U64(oa.suspensions + !is_direct(&cb_impls[i]), ob.suspensions);
    }
}

/* pingpong mode=asymmetric: the same checksum and suspensions as symmetric, for every stackful
 * implementation (each side's yield to the root is its one suspension per op); its op is a round
 * trip through the root, named so in the cell's unit, where a symmetric op is a switch. */
CB_TEST(workload_pingpong_asymmetric_same_work)
{
    const cb_workload *wl = cb_workload_find("pingpong");
    static const char *const sym[] = {"depth", "4", "switches", "777", NULL};
    static const char *const asym[] = {"depth", "4", "switches", "777", "mode", "asymmetric",
                                       NULL};
    size_t ran = 0;
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        if (im->body != CB_BODY_STACKFUL || !runs_here(wl, im))
            continue;
        cb_params ps, pa;
        cb_test_params(wl, im, sym, &ps);
        cb_test_params(wl, im, asym, &pa);
        if (!supported(wl, im, &ps) || !supported(wl, im, &pa))
            continue;
        outcome os = run_point(wl, im, &ps), oa = run_point(wl, im, &pa);
        CB_CHECK_EQ_U64(oa.r.checksum, os.r.checksum);
        CB_CHECK_EQ_U64(oa.suspensions, 777);
        CB_CHECK_EQ_U64(os.suspensions, 777);
        CB_CHECK_STREQ(cb_wl_unit(wl, &pa), "round trip");
        CB_CHECK_STREQ(cb_wl_unit(wl, &ps), "switch");
        ran++;
    }
    CB_CHECK(ran > 0);
}

/* await: one call in K suspends (K = 1, 10, 100; none with never) and the checksum does not depend
 * on K (the delivered value is the one a ready await finds), but on every call and level. Heap
 * allocations per call, the fast path's price: none for stackful, sm and direct (frames on the
 * stack or embedded in the task's), one frame per level for closure and cxx20 (by either
 * compiler: clang elides none here either, workload_cxx20_frames_elided_per_compiler). */
CB_TEST(workload_await_suspensions_and_allocations)
{
    const cb_workload *wl = cb_workload_find("await");
    static const struct {
        const char *k;
        uint64_t suspensions;
    } ks[] = {{"1", 600}, {"10", 60}, {"100", 6}, {"never", 0}};
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        if (!runs_here(wl, im) || cb_impl_is_language(im))
            continue;
        uint64_t first = 0;
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
            const char *set[] = {"depth", "3", "calls", "600", "suspend_every", ks[k].k, NULL};
            cb_params p;
            cb_test_params(wl, im, set, &p);
            if (!supported(wl, im, &p))
                break;
            uint64_t a0 = cb_rt.heap_allocs;
            outcome o = run_point(wl, im, &p);
            uint64_t allocs = cb_rt.heap_allocs - a0;
            CB_CHECK_EQ_U64(o.r.ops, 600);
            CB_CHECK_EQ_U64(o.suspensions, is_direct(im) ? 0 : ks[k].suspensions);
            if (k == 0)
                first = o.r.checksum;
            CB_CHECK_EQ_U64(o.r.checksum, first);
            int frames = im->body == CB_BODY_CLOSURE || im->body == CB_BODY_CXX20 ||
                         im->body == CB_BODY_CXX20_CLANG;
            /* setup's few (the instance, a control block or the task's frame) plus per call */
            if (frames ? allocs < 600 * 4 || allocs > 600 * 4 + 8 : allocs > 8)
                CB_FAIL("%s suspend_every=%s: %" PRIu64 " heap allocations for 600 calls of "
                        "depth 3",
                        im->name, ks[k].k, allocs);
        }
        const char *deeper[] = {"depth", "4", "calls", "600", NULL};
        cb_params p;
        cb_test_params(wl, im, deeper, &p);
        if (supported(wl, im, &p) && run_point(wl, im, &p).r.checksum == first)
            CB_FAIL("%s: depth 4 has depth 3's checksum", im->name);
    }
}

/* pipeline: the schedule changes the order of the work, not the work: fifo and direct give one
 * checksum; direct switches twice per stage boundary and item (down to the consumer, back up to
 * the producer), fifo once per hand-over; one stage more changes the checksum. */
CB_TEST(workload_pipeline_sched_same_work)
{
    const cb_workload *wl = cb_workload_find("pipeline");
    static const char *const fifo[] = {"stages", "4", "items", "30", "size", "32", "sched",
                                       "fifo", NULL};
    static const char *const direct[] = {"stages", "4", "items", "30", "size", "32", "sched",
                                         "direct", NULL};
    static const char *const more[] = {"stages", "5", "items", "30", "size", "32", NULL};
    size_t ran = 0;
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        if (!runs_here(wl, im))
            continue;
        cb_params pf, pd, pm;
        cb_test_params(wl, im, fifo, &pf);
        cb_test_params(wl, im, direct, &pd);
        cb_test_params(wl, im, more, &pm);
        if (!supported(wl, im, &pf))
            continue;
        outcome of = run_point(wl, im, &pf), od = run_point(wl, im, &pd);
        CB_CHECK_EQ_U64(of.r.ops, 30);
        CB_CHECK_EQ_U64(od.r.checksum, of.r.checksum);
        CB_CHECK(run_point(wl, im, &pm).r.checksum != of.r.checksum);
        if (!is_direct(im)) /* 3 boundaries: down and back up per item, less the last climb */
            CB_CHECK_EQ_U64(od.suspensions, 30 * 2 * 3 - 3);
        ran++;
    }
    CB_CHECK(ran > 0);
}

/* io style=blocking: the same checksum and suspensions as explicit for every stackful
 * implementation, with every read and write through the hook (2 a message a side, more where a
 * message moves in pieces) and none with style=explicit. */
CB_TEST(workload_io_blocking_same_work_through_the_hook)
{
    const cb_workload *wl = cb_workload_find("io");
    static const char *const ex[] = {"conns", "4", "msgs", "30", NULL};
    static const char *const bl[] = {"conns", "4", "msgs", "30", "style", "blocking", NULL};
    size_t ran = 0;
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        if (im->body != CB_BODY_STACKFUL || !runs_here(wl, im))
            continue;
        cb_params pe, pb;
        cb_test_params(wl, im, ex, &pe);
        cb_test_params(wl, im, bl, &pb);
        if (!supported(wl, im, &pe) || !supported(wl, im, &pb))
            continue;
        uint64_t h0 = cb_rt.hooked_calls;
        outcome oe = run_point(wl, im, &pe);
        uint64_t h1 = cb_rt.hooked_calls;
        outcome ob = run_point(wl, im, &pb);
        uint64_t h2 = cb_rt.hooked_calls;
        CB_CHECK_EQ_U64(ob.r.checksum, oe.r.checksum);
        CB_CHECK_EQ_U64(ob.suspensions, oe.suspensions);
        CB_CHECK_EQ_U64(h1 - h0, 0);
        CB_CHECK(h2 - h1 >= 4 * 4 * 30);
        ran++;
    }
    CB_CHECK(ran > 0);
}

/* A different tree gives a different checksum (the consumer folds every node, in order). */
CB_TEST(workload_recursive_checksum_depends_on_every_node)
{
    const cb_workload *wl = cb_workload_find("recursive");
    point a = {"recursive", {"height", "6"}}, b = {"recursive", {"height", "7"}};
    for (size_t i = 0; i < cb_nimpls; i++) {
        if (!runs_here(wl, &cb_impls[i]))
            continue;
        cb_params pa, pb;
        cb_test_params(wl, &cb_impls[i], a.set, &pa);
        cb_test_params(wl, &cb_impls[i], b.set, &pb);
        if (!supported(wl, &cb_impls[i], &pa) || !supported(wl, &cb_impls[i], &pb))
            continue;
        outcome oa = run_point(wl, &cb_impls[i], &pa), ob = run_point(wl, &cb_impls[i], &pb);
        CB_CHECK_EQ_U64(oa.r.ops, 63);
        CB_CHECK_EQ_U64(ob.r.ops, 127);
        CB_CHECK_EQ_U64(oa.suspensions, is_direct(&cb_impls[i]) ? 0 : 63);
        CB_CHECK(oa.r.checksum != ob.r.checksum);
    }
}

/* A workload without a body for a family: run_once says so instead of calling through NULL (the
 * harness records such a cell as "unsupported: <workload> has no <family> body"). */
CB_TEST(workload_missing_body_is_named)
{
    const cb_workload *pp = cb_workload_find("pingpong");
    CB_CHECK(pp != NULL);
    cb_workload partial = *pp;
    partial.name = "partial";
    partial.family[CB_BODY_SM] = (cb_family_ops){NULL, NULL, NULL, NULL};
    const cb_impl *sm = cb_impl_find("sm"), *asm_ = cb_impl_find("asm");
    CB_CHECK(sm && asm_);
    CB_CHECK(cb_wl_family(&partial, sm) == NULL);
    CB_CHECK(cb_wl_family(&partial, asm_) == &partial.family[CB_BODY_STACKFUL]);
    cb_params p;
    cb_test_params(&partial, sm, NULL, &p);
    char err[256] = "";
    cb_wl_once once;
    CB_CHECK_EQ_INT(cb_wl_run_once(&partial, sm, &p, NULL, &once, err, sizeof err), -1);
    CB_CHECK_STREQ(err, "partial has no state-machine body");
}

#if CB_HAVE_LUA
#include "impls/lua/cb_lua.h"

/* tests/lua/finish_error.lua, named from impls/lua/ as the runtime names every body. */
static void *lua_finish_error_setup(const cb_impl *impl, const cb_params *p, char *err,
                                    size_t errlen)
{
    (void)impl;
    return cb_lua_setup("../../tests/lua/finish_error", p, NULL, err, errlen);
}

static int lua_finish_error_finish(void *inst, cb_wl_result *out, char *err, size_t errlen)
{
    return cb_lua_finish(inst, &out->ops, &out->checksum, err, errlen);
}
#endif

/* A Lua error in finish is the cell's error (it was ops 0 and checksum 0, a result), and the
 * runtime gives back what the instance allocated. */
CB_TEST(workload_lua_finish_error_reported)
{
#if CB_HAVE_LUA
    const cb_workload *pp = cb_workload_find("pingpong");
    const cb_impl *lua = cb_impl_find("lua");
    CB_CHECK(pp && lua);
    if (cb_impl_unavailable(lua))
        CB_SKIP("lua: %s", cb_impl_unavailable(lua));
    cb_workload bad = *pp;
    bad.family[CB_BODY_LUA] =
        (cb_family_ops){lua_finish_error_setup, cb_lua_run, lua_finish_error_finish, NULL};
    cb_params p;
    cb_test_params(&bad, lua, NULL, &p);
    char err[512] = "";
    cb_wl_once once;
    uint64_t heap0 = cb_rt.heap_live_bytes;
    CB_CHECK_EQ_INT(cb_wl_run_once(&bad, lua, &p, NULL, &once, err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "lua: finish: ");
    CB_CHECK_CONTAINS(err, "finish failed on purpose");
    CB_CHECK_EQ_U64(cb_rt.heap_live_bytes, heap0);
#else
    CB_SKIP("built without Lua (CB_HAVE_LUA 0)");
#endif
}

/* spawn's order and seed reach the checksum (the resume order is folded in), layout does not
 * (only addresses move); equal seeds give equal checksums in every family (the grid above). */
CB_TEST(workload_spawn_order_and_layout)
{
    const cb_workload *wl = cb_workload_find("spawn");
    static const char *const fifo[] = {"n", "64", "depth", "1", NULL};
    static const char *const offset[] = {"n", "64", "depth", "1", "layout", "offset", NULL};
    static const char *const rnd[] = {"n", "64", "depth", "1", "order", "random", NULL};
    static const char *const rnd2[] = {"n", "64", "depth", "1", "order", "random", "seed", "2",
                                       NULL};
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        if (!runs_here(wl, im) || cb_impl_is_language(im))
            continue; /* they refuse layout=offset; their order: tests/test_external.c */
        cb_params pf, po, pr, pr2;
        cb_test_params(wl, im, fifo, &pf);
        cb_test_params(wl, im, offset, &po);
        if (!supported(wl, im, &pf) || !supported(wl, im, &po))
            continue;
        cb_test_params(wl, im, rnd, &pr);
        cb_test_params(wl, im, rnd2, &pr2);
        outcome of = run_point(wl, im, &pf), oo = run_point(wl, im, &po);
        outcome orr = run_point(wl, im, &pr), orr2 = run_point(wl, im, &pr2);
        CB_CHECK_EQ_U64(oo.r.checksum, of.r.checksum);
        CB_CHECK(orr.r.checksum != of.r.checksum);
        CB_CHECK(orr2.r.checksum != orr.r.checksum);
        CB_CHECK_EQ_U64(orr.suspensions, is_direct(im) ? 0 : 64);
    }
}

/* deep_share: the coroutines that do not go deep suspend in their body. At deep_share=0 every
 * family does depth 0's work (its checksum), at 100 depth's, and in between neither (a
 * deep_share below 100 at depth 0 is refused: docs/bad-input.md's table). */
CB_TEST(workload_spawn_deep_share_rest_at_level_0)
{
    const cb_workload *wl = cb_workload_find("spawn");
    static const char *const sets[][9] = {
        {"n", "64", "depth", "0", NULL},
        {"n", "64", "depth", "6", "deep_share", "0", NULL},
        {"n", "64", "depth", "6", NULL},
        {"n", "64", "depth", "6", "deep_share", "100", NULL},
        {"n", "64", "depth", "6", "deep_share", "5", NULL},
    };
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        cb_params p[5];
        int ok = runs_here(wl, im);
        for (size_t k = 0; ok && k < 5; k++) {
            cb_test_params(wl, im, sets[k], &p[k]);
            ok = supported(wl, im, &p[k]);
        }
        if (!ok)
            continue;
        uint64_t sum[5];
        for (size_t k = 0; k < 5; k++) {
            outcome o = run_point(wl, im, &p[k]);
            CB_CHECK_EQ_U64(o.suspensions, is_direct(im) ? 0 : 64);
            sum[k] = o.r.checksum;
        }
        CB_CHECK_EQ_U64(sum[1], sum[0]);
        CB_CHECK_EQ_U64(sum[3], sum[2]);
        if (sum[4] == sum[0] || sum[4] == sum[2])
            CB_FAIL("%s: deep_share=5 has the checksum of none or all deep", im->name);
    }
}

/* A frame size that is not compiled in is refused with the valid list. */
CB_TEST(workload_spawn_frame_sizes)
{
    const cb_workload *wl = cb_workload_find("spawn");
    static const char *const bad[] = {"frame", "200", NULL}, *const good[] = {"frame", "2048", NULL};
    cb_params p;
    char err[256] = "";
    cb_test_params(wl, cb_impl_find("sm"), bad, &p);
    CB_CHECK_EQ_INT(wl->check(&p, err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "frame=200");
    CB_CHECK_CONTAINS(err, "valid: 8, 16, 24");
    cb_test_params(wl, cb_impl_find("sm"), good, &p);
    CB_CHECK_EQ_INT(wl->check(&p, err, sizeof err), 0);
}

/* alloc=pool: a closure task reuses its completed frames instead of calling malloc again. */
CB_TEST(workload_closure_alloc_pool_reuses_frames)
{
    /* malloc: a frame per async call; pool: only the first descent's frames. pingpong: 4 chain
     * calls per switch; await: 5 levels per call (depth 4), one call in 10 suspending. */
    static const struct {
        const char *wl, *set[9];
        uint64_t malloc_min;
    } pts[] = {{"pingpong", {"depth", "4", "switches", "1000"}, 4000},
               {"await", {"depth", "4", "suspend_every", "10", "calls", "1000"}, 5000}};
    const cb_impl *im = cb_impl_find("closure");
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        const cb_workload *wl = cb_workload_find(pts[i].wl);
        const char *m[11] = {0}, *pl[11] = {0};
        size_t n = 0;
        for (; pts[i].set[n]; n++)
            m[n] = pl[n] = pts[i].set[n];
        pl[n] = "alloc", pl[n + 1] = "pool";
        cb_params pm, pp;
        cb_test_params(wl, im, m, &pm);
        cb_test_params(wl, im, pl, &pp);
        uint64_t a0 = cb_rt.heap_allocs;
        outcome om = run_point(wl, im, &pm);
        uint64_t a1 = cb_rt.heap_allocs;
        outcome op = run_point(wl, im, &pp);
        uint64_t a2 = cb_rt.heap_allocs;
        CB_CHECK_EQ_U64(op.r.checksum, om.r.checksum);
        if (a1 - a0 < pts[i].malloc_min || a2 - a1 > 50)
            CB_FAIL("%s allocations: malloc %" PRIu64 ", pool %" PRIu64, pts[i].wl, a1 - a0,
                    a2 - a1);
    }
}

/* The sm generator re-enters from the root: same nodes, same checksum as the iterator (the
 * grid), and its frames are one allocation of `height` frames. */
CB_TEST(workload_recursive_sm_one_allocation)
{
    const cb_workload *wl = cb_workload_find("recursive");
    const cb_impl *im = cb_impl_find("sm");
    static const char *const pt[] = {"height", "10", NULL};
    cb_params p;
    cb_test_params(wl, im, pt, &p);
    uint64_t a0 = cb_rt.heap_allocs;
    outcome o = run_point(wl, im, &p);
    CB_CHECK_EQ_U64(o.r.ops, 1023);
    CB_CHECK_EQ_U64(o.suspensions, 1023);
    CB_CHECK_EQ_U64(cb_rt.heap_allocs - a0, 2); /* the instance and the frames */
}

/* Allocations through cb_rt made by run() alone (setup's and finish's excluded). */
static uint64_t allocs_at_start, allocs_in_run;
static void allocs_before(void *ctx)
{
    (void)ctx;
    allocs_at_start = cb_rt.heap_allocs;
}
static void allocs_after(void *ctx)
{
    (void)ctx;
    allocs_in_run = cb_rt.heap_allocs - allocs_at_start;
}

/* Which workloads have their C++20 coroutine frames elided, per compiler: the same sources
 * (workloads/<workload>_cxx20.cc) built by g++ (cxx20) and by clang++ (cxx20-clang), the heap
 * allocations run() makes per op against the frames each body creates per op. With Debian 12's
 * compilers (g++ 12.2, clang 14): g++ elides no frame in any workload (it has no heap allocation
 * elision); clang elides none in pingpong, recursive, spawn and await (its depth + 1 frames per
 * call, even where no await suspends), and 2 of io's 4 transfer frames per message. Another compiler version that elides more or fewer fails here, naming the
 * workload and both counts, so the statement is kept true. */
CB_TEST(workload_cxx20_frames_elided_per_compiler)
{
    static const struct {
        const char *wl, *set[7];
        double frames;      /* coroutine frames the body creates per op */
        double allocs[2];   /* what run() allocates per op: g++, clang++ */
    } rows[] = {
        {"pingpong", {"switches", "1000", "depth", "4", NULL}, 4, {4, 4}},
        {"recursive", {"height", "10", NULL}, 1, {1, 1}},
        {"spawn", {"n", "1000", "depth", "3", NULL}, 4, {4, 4}},
        {"io", {"conns", "4", "msgs", "50", NULL}, 4, {4, 2}},
        {"await", {"calls", "1000", "depth", "4", "suspend_every", "never", NULL}, 5, {5, 5}},
    };
    static const char *const impls[] = {"cxx20", "cxx20-clang"};
    size_t ran = 0;
    for (size_t k = 0; k < 2; k++) {
        const cb_impl *im = cb_impl_find(impls[k]);
        const char *why = cb_impl_unavailable(im);
        if (why) {
            fprintf(stderr, "%s: skipped: %s\n", impls[k], why);
            continue;
        }
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            const cb_workload *wl = cb_workload_find(rows[i].wl);
            cb_params p;
            cb_test_params(wl, im, rows[i].set, &p);
            cb_wl_around around = {allocs_before, allocs_after, NULL};
            cb_wl_once once;
            char err[512];
            if (cb_wl_run_once(wl, im, &p, &around, &once, err, sizeof err))
                CB_FAIL("%s %s: %s", impls[k], rows[i].wl, err);
            /* Rounded: a top-level frame or two per instance is not per op. */
            double per_op = (double)allocs_in_run / (double)once.res.ops;
            if (per_op < rows[i].allocs[k] - 0.01 || per_op > rows[i].allocs[k] + 0.01)
                CB_FAIL("%s %s: %.3f heap allocations per op, expected %g of the %g frames it "
                        "creates (%g elided)",
                        impls[k], rows[i].wl, per_op, rows[i].allocs[k], rows[i].frames,
                        rows[i].frames - rows[i].allocs[k]);
        }
        ran++;
    }
    if (!ran)
        CB_SKIP("neither cxx20 nor cxx20-clang is built here");
}

/* io has no direct body, and the reason is part of what the harness records. */
CB_TEST(workload_direct_io_unsupported_with_reason)
{
    const cb_workload *wl = cb_workload_find("io");
    const cb_impl *im = cb_impl_find("direct");
    CB_CHECK(wl && im && cb_wl_family(wl, im) == NULL);
    char buf[512];
    cb_wl_no_body(wl, im, buf, sizeof buf);
    CB_CHECK_CONTAINS(buf, "io has no direct body: ");
    CB_CHECK_CONTAINS(buf, "system calls");
}

/* A value that needs a capability an implementation lacks is refused, naming the value, the
 * capability and what it runs instead; the neighbouring value passes the same check. */
CB_TEST(workload_value_refused_by_impl)
{
    static const struct {
        const char *impl, *workload, *bad[3], *good[3], *valid;
    } rows[] = {
        {"cxx20", "spawn", {"layout", "offset", NULL}, {"layout", "aligned", NULL},
         "spawn layout=offset needs coroutine stacks and frames that the body places; cxx20: "
         "the compiler allocates cxx20's coroutine frames through operator new, given the size "
         "only (valid here: layout=aligned)"},
        {"go", "pingpong", {"work", "none", NULL}, {"work", "chain", NULL},
         "pingpong work=none needs a body of only the switches; go: it is written for the C "
         "families and cxx20, not in this language's program (valid here: work=chain)"},
        {"sm", "pingpong", {"mode", "asymmetric", NULL}, {"mode", "symmetric", NULL},
         "valid here: mode=symmetric"},
        {"closure", "pingpong", {"mode", "asymmetric", NULL}, {"mode", "symmetric", NULL},
         "valid here: mode=symmetric"},
        {"cxx20", "pingpong", {"mode", "asymmetric", NULL}, {"mode", "symmetric", NULL},
         "valid here: mode=symmetric"},
        {"lua", "pingpong", {"mode", "asymmetric", NULL}, {"mode", "symmetric", NULL},
         "valid here: mode=symmetric"},
        {"sm", "io", {"style", "blocking", NULL}, {"style", "explicit", NULL},
         "valid here: style=explicit"},
        {"closure", "io", {"style", "blocking", NULL}, {"style", "explicit", NULL},
         "valid here: style=explicit"},
        {"go", "io", {"style", "blocking", NULL}, {"style", "explicit", NULL},
         "valid here: style=explicit"},
        {"lua", "spawn", {"layout", "offset", NULL}, {"layout", "aligned", NULL},
         "valid here: layout=aligned"},
        {"go", "spawn", {"layout", "offset", NULL}, {"layout", "aligned", NULL},
         "valid here: layout=aligned"},
        {"node", "spawn", {"layout", "offset", NULL}, {"layout", "aligned", NULL},
         "valid here: layout=aligned"},
        {"csharp", "spawn", {"layout", "offset", NULL}, {"layout", "aligned", NULL},
         "valid here: layout=aligned"},
        {"luajit", "spawn", {"layout", "offset", NULL}, {"layout", "aligned", NULL},
         "valid here: layout=aligned"},
        {"lua", "spawn", {"deep_once", "16", NULL}, {"deep_once", "0", NULL},
         "spawn deep_once=16 needs a body that recurses deep once and returns before its "
         "suspension (spawn deep_once); lua: written for the C families and cxx20, not in this "
         "language's program (valid here: deep_once=0)"},
        {"go", "spawn", {"locals", "dead", NULL}, {"locals", "live", NULL},
         "valid here: locals=live"},
        {"go", "spawn", {"deep_share", "1", NULL}, {"deep_share", "100", NULL},
         "valid here: deep_share=100"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const cb_impl *im = cb_impl_find(rows[i].impl);
        const cb_workload *wl = cb_workload_find(rows[i].workload);
        CB_CHECK(im && wl);
        if (cb_impl_unavailable(im))
            continue; /* its reason comes first; the refusal is the same table either way */
        cb_params p;
        char err[512] = "";
        cb_test_params(wl, im, rows[i].bad, &p);
        const char *why = cb_wl_unsupported(wl, im, &p, err, sizeof err);
        CB_CHECK(why != NULL);
        CB_CHECK_CONTAINS(why, rows[i].bad[1]);
        CB_CHECK_CONTAINS(why, rows[i].valid);
        cb_test_params(wl, im, rows[i].good, &p);
        CB_CHECK(cb_wl_unsupported(wl, im, &p, err, sizeof err) == NULL);
    }
}

/* Every workload says how many coroutines a point keeps alive, and the thread implementation
 * (a thread per coroutine) refuses a point by that count, named in its reason. */
CB_TEST(workload_alive_reaches_thread_limit)
{
    for (size_t w = 0; w < cb_nworkloads; w++)
        if (!cb_workloads[w]->alive)
            CB_FAIL("%s: no alive()", cb_workloads[w]->name);
    const cb_impl *th = cb_impl_find("thread");
    CB_CHECK(th != NULL);
    if (cb_impl_unavailable(th))
        CB_SKIP("thread: %s", cb_impl_unavailable(th));
    /* 1 MiB stacks: above a thread's minimum on every architecture (AArch64: 147456 bytes) */
    static const struct {
        const char *workload, *set[5], *need;
    } rows[] = {
        {"spawn", {"n", "10000000", "stack", "1048576", NULL},
         "spawn needs 10000000 threads alive at once"},
        {"io", {"conns", "1000000", "stack", "1048576", NULL},
         "io needs 2000000 threads alive at once"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const cb_workload *wl = cb_workload_find(rows[i].workload);
        CB_CHECK(wl != NULL);
        cb_params p;
        char err[1024] = "";
        cb_test_params(wl, th, rows[i].set, &p);
        const char *why = cb_wl_unsupported(wl, th, &p, err, sizeof err);
        CB_CHECK(why != NULL);
        CB_CHECK_CONTAINS(why, rows[i].need);
    }
    cb_params p;
    char err[1024] = "";
    static const char *const big_stack[] = {"stack", "1048576", NULL};
    cb_test_params(cb_workload_find("pingpong"), th, big_stack, &p);
    CB_CHECK(cb_wl_unsupported(cb_workload_find("pingpong"), th, &p, err, sizeof err) == NULL);
}

/* forkjoin's reference (direct, a recursion) against the definition walked another way: an
 * explicit stack, each node's value summed as it is popped (docs/sched.md, "Workloads"). */
CB_TEST(workload_forkjoin_reference_sums_every_node)
{
    const cb_workload *wl = cb_workload_find("forkjoin");
    const cb_impl *im = cb_impl_find("direct");
    static const point pts[] = {
        {"forkjoin", {"fanout", "2", "depth", "10"}},
        {"forkjoin", {"fanout", "1", "depth", "30", "leaf_work", "5"}},
        {"forkjoin", {"fanout", "7", "depth", "0"}},
        {"forkjoin", {"fanout", "3", "depth", "12", "shape", "unbalanced", "q", "400"}},
        {"forkjoin", {"fanout", "2", "depth", "40", "shape", "unbalanced", "q", "550",
                      "leaf_work", "3"}},
    };
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        cb_params p;
        cb_test_params(wl, im, pts[k].set, &p);
        outcome o = run_point(wl, im, &p);
        uint64_t fanout = (uint64_t)cb_params_int(&p, "fanout"), q = (uint64_t)cb_params_int(&p, "q");
        uint64_t work = (uint64_t)cb_params_int(&p, "leaf_work");
        int64_t depth = cb_params_int(&p, "depth");
        int unb = !strcmp(cb_params_str(&p, "shape"), "unbalanced");
        size_t cap = 1 + (size_t)depth * (size_t)fanout, sp = 0;
        uint64_t *ids = malloc(cap * sizeof *ids), n = 0, sum = 0;
        int64_t *lvl = malloc(cap * sizeof *lvl);
        ids[sp] = 0, lvl[sp++] = 0;
        while (sp) {
            uint64_t id = ids[--sp];
            int64_t l = lvl[sp];
            int kids = l < depth && (!unb || l == 0 || cb_swl_mix(id) % 1000 < q);
            uint64_t v = cb_swl_mix(id);
            for (uint64_t s = 0; !kids && s < work; s++)
                v = cb_swl_mix(v);
            sum += v, n++;
            for (uint64_t i = 0; kids && i < fanout; i++)
                ids[sp] = id * fanout + i + 1, lvl[sp++] = l + 1;
        }
        free(ids), free(lvl);
        CB_CHECK(n > 1 || depth == 0);
        CB_CHECK_EQ_U64(o.r.ops, n);
        CB_CHECK_EQ_U64(o.r.checksum, sum);
    }
}

/* yieldstorm's reference (direct: each coroutine's states in turn) against the definition in
 * another order: round robin, every coroutine's k-th step before any's k+1-th. */
CB_TEST(workload_yieldstorm_reference_any_order)
{
    const cb_workload *wl = cb_workload_find("yieldstorm");
    const cb_impl *im = cb_impl_find("direct");
    static const char *const set[] = {"coros", "37", "yields", "11", NULL};
    cb_params p;
    cb_test_params(wl, im, set, &p);
    outcome o = run_point(wl, im, &p);
    uint64_t s[37], sum = 0;
    for (uint64_t id = 0; id < 37; id++)
        s[id] = cb_swl_mix(id);
    for (uint64_t k = 0; k < 11; k++)
        for (uint64_t id = 0; id < 37; id++)
            s[id] = cb_swl_mix(s[id] ^ k);
    for (uint64_t id = 0; id < 37; id++)
        sum += s[id];
    CB_CHECK_EQ_U64(o.r.ops, 37 * 11);
    CB_CHECK_EQ_U64(o.r.checksum, sum);
}
