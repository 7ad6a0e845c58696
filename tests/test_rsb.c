/* The return-stack-buffer simulator against the counts docs/rsb.md derives from each workload's
 * call structure: exact returns and mispredicted returns for pingpong in every family, inside and
 * past the simulated stack, for both switch endings and the jmpret build; determinism; and the
 * `run --rsb sim` / `--variant` plumbing of the CLI. Counting passes run in the instrumented
 * binaries (bin/corobench-rsbsim, bin/corobench-jmpret-rsbsim) through `corobench cell
 * --request`, each cell's request built as a run builds it (harness/run/request.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/measure/rsbcal.h"
#include "harness/measure/rsbsim.h"
#include "harness/run/request.h"
#include "impls/impls.h"
#include "test.h"
#include "workloads/run_once.h"

typedef struct counts {
    uint64_t rets, mispredicted;
} counts;

static void bin_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/bin/%s", cb_test_root(), name);
    if (access(buf, X_OK) != 0)
        CB_FAIL("%s is not built (make variants)", buf);
}

/* The counting pass of impl on workload (its parameters at their defaults but those in set:
 * NAME, VALUE, ..., NULL) in the instrumented binary, under model with entries: the request a
 * run would hand it (cb_request_build) in a file, `BINARY cell --request FILE`; the exit status,
 * stdout and stderr. */
static int count_cell(const char *binary, const char *impl, const char *workload,
                      const char *const *set, const char *model, unsigned entries, char **out,
                      char **err)
{
    char path[4096], file[256];
    bin_path(path, sizeof path, binary);
    const cb_impl *im = cb_impl_find(impl);
    const cb_workload *wl = cb_workload_find(workload);
    cb_rsb_model m;
    CB_CHECK(im != NULL && wl != NULL && cb_rsb_model_parse(model, &m) == 0);
    cb_run_opts o = {.measure = {.reps = 1, .min_rep_ms = 1, .rsb_entries = entries,
                                 .rsb_model = (int)m},
                     .timeout_s = 60, .pin_cpu = -1};
    cb_plan_cell pc = {.variant = strstr(binary, "jmpret") ? "jmpret" : "plain"};
    pc.cell = (cb_cell){.impl = im, .wl = wl};
    cb_test_params(wl, im, set, &pc.cell.params);
    json_t *req = cb_request_build(&o, &pc, 0, CB_REQUEST_COUNT);
    cb_test_tmp_path(file, sizeof file, "count-request.json");
    CB_CHECK_EQ_INT(json_dump_file(req, file, JSON_COMPACT), 0);
    json_decref(req);
    char *argv[] = {path, "cell", "--request", file, NULL};
    int st = cb_test_spawn(argv, out, err);
    unlink(file);
    return st;
}

static json_t *parse(const char *text, const char *what)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    if (!j)
        CB_FAIL("%s: unreadable JSON (%s): %s", what, e.text, text);
    return j;
}

/* One counting pass of pingpong in the given instrumented binary, under the given model; the
 * pass's own split of its mispredictions into *split (top, underflow, underflow predicted). */
static counts sim_model_mode(const char *binary, const char *model, const char *impl,
                             int64_t depth, const char *sites, const char *mode, uint64_t switches,
                             unsigned entries, uint64_t split[3])
{
    char dp[64], sw[64];
    snprintf(dp, sizeof dp, "%lld", (long long)depth);
    snprintf(sw, sizeof sw, "%llu", (unsigned long long)switches);
    const char *set[] = {"mode", mode, "depth", dp, "sites", sites, "switches", sw, NULL};
    char *out, *err;
    int st = count_cell(binary, impl, "pingpong", set, model, entries, &out, &err);
    if (st != 0)
        CB_FAIL("%s %s depth=%s sites=%s switches=%s: exit %d: %s", binary, impl, dp, sites, sw, st,
                err);
    json_t *j = parse(out, binary);
    CB_CHECK_STREQ(json_string_value(json_object_get(j, "status")), "ok");
    json_t *r = json_object_get(j, "rsbsim");
    CB_CHECK(r != NULL);
    CB_CHECK_EQ_U64(json_integer_value(json_object_get(r, "entries")), entries);
    CB_CHECK_STREQ(json_string_value(json_object_get(r, "model")), model);
    counts c = {(uint64_t)json_integer_value(json_object_get(r, "rets")),
                (uint64_t)json_integer_value(json_object_get(r, "mispredicted"))};
    static const char *const parts[] = {"mispredicted_top", "mispredicted_underflow",
                                        "underflow_predicted"};
    for (int i = 0; i < 3; i++)
        split[i] = (uint64_t)json_integer_value(json_object_get(r, parts[i]));
    CB_CHECK_EQ_U64(split[0] + split[1], c.mispredicted);
    double per = json_real_value(json_object_get(r, "mispredicted_per_op"));
    CB_CHECK(per * (double)switches > (double)c.mispredicted - 0.5 &&
             per * (double)switches < (double)c.mispredicted + 0.5);
    json_decref(j);
    free(out);
    free(err);
    return c;
}

static counts sim_model(const char *binary, const char *model, const char *impl, int64_t depth,
                        const char *sites, uint64_t switches, unsigned entries, uint64_t split[3])
{
    return sim_model_mode(binary, model, impl, depth, sites, "symmetric", switches, entries,
                          split);
}

/* The same under circular N, the model the expected counts below are derived for. */
static counts sim(const char *binary, const char *impl, int64_t depth, const char *sites,
                  uint64_t switches, unsigned entries)
{
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    uint64_t split[3];
    return sim_model(binary, "circular", impl, depth, sites, switches, entries, split);
}

static void check(const char *what, counts got, counts want)
{
    if (got.rets != want.rets || got.mispredicted != want.mispredicted)
        CB_FAIL("%s: rets %" PRIu64 ", mispredicted %" PRIu64 "; docs/rsb.md predicts %" PRIu64
                ", %" PRIu64,
                what, got.rets, got.mispredicted, want.rets, want.mispredicted);
}

static uint64_t b(int cond) { return cond ? 1 : 0; }

/* The formulas below are written with u = d - 1, the number of chain levels below level 0 (the
 * loop's own, inlined): at d = 0 the loop switches itself and u = -1. Arithmetic is signed so the
 * d = 0 case follows from the same expressions (docs/rsb.md). */

/* docs/rsb.md, "Stackful, ret switch": S switches at depth d, sites distinct or same, N entries. */
static counts expect_asm(int64_t d, int same, uint64_t S_, uint64_t N_)
{
    int64_t u = d - 1, S = (int64_t)S_, N = (int64_t)N_;
    int64_t per = same ? (int64_t)b(u + 2 > N) + (u > 0 ? u / N : 0) : u + 2;
    return (counts){(uint64_t)((S - 1) * (u + 2) + 5),
                    (uint64_t)(2 + (S - 1) * per + (int64_t)b(u + 2 >= N) + 2)};
}

/* "ucontext": the same chain, no simulated return into a fresh coroutine (glibc's). */
static counts expect_ucontext(int64_t d, int same, uint64_t S_, uint64_t N_)
{
    int64_t u = d - 1, S = (int64_t)S_, N = (int64_t)N_;
    int64_t per = same ? (int64_t)b(u + 2 > N) + (u > 0 ? u / N : 0) : u + 2;
    return (counts){(uint64_t)((S - 1) * (u + 2) + 3),
                    (uint64_t)((S - 1) * per + (int64_t)b(u + 2 >= N) + 2)};
}

/* "Stackful, jmp switch (asmjmp)": valid while d + 1 <= N. */
static counts expect_asmjmp(int64_t d, int same, uint64_t S_)
{
    int64_t u = d - 1, S = (int64_t)S_, rets = (S - 1) * (u + 1) + 2;
    return (counts){(uint64_t)rets,
                    (uint64_t)(same ? (S - 1) * ((int64_t)b(u >= 0) + (int64_t)b(u >= 1)) + 2
                                    : rets)};
}

/* "Stackful, inline switch (inline)": nothing is pushed or popped by the switch, so resumed side
 * X's d chain returns pop the other side's d entries (distinct: all miss; same: all hit). */
static counts expect_inline(int64_t d, int same, uint64_t S_)
{
    int64_t S = (int64_t)S_, rets = (S - 1) * d + 2;
    return (counts){(uint64_t)rets, (uint64_t)(same ? 1 : rets - 1)};
}

/* "sm": every resumption re-enters through all d + 1 frames and descends again. */
static counts expect_sm(int64_t d, uint64_t S_, uint64_t N_)
{
    int64_t u = d - 1, S = (int64_t)S_, N = (int64_t)N_;
    int64_t a = (int64_t)b(u >= N), c = (int64_t)b(u + 1 >= N);
    return (counts){(uint64_t)(3 * (u + 2) + (S - 2) * (2 * u + 3) + 1),
                    (uint64_t)(3 * (a + c) + (S - 2) * (2 * a + c) + (int64_t)b(u + 2 >= N))};
}

/* "closure", while the deepest chain (d + 3 entries) fits. */
static counts expect_closure(int64_t d, uint64_t S_)
{
    int64_t S = (int64_t)S_;
    return (counts){(uint64_t)(S * (d + 2) + 3), 0};
}

static const int64_t fit_depths[] = {0, 1, 4, 8, 16};

CB_TEST_T(rsb_asm_distinct_one_miss_per_level, 300)
{
    for (size_t i = 0; i < sizeof fit_depths / sizeof fit_depths[0]; i++) {
        int64_t d = fit_depths[i];
        char what[64];
        snprintf(what, sizeof what, "asm depth=%lld distinct", (long long)d);
        check(what, sim("corobench-rsbsim", "asm", d, "distinct", 1000, 32),
              expect_asm(d, 0, 1000, 32));
    }
    /* Per switch, the slope: exactly d + 1 mispredicted returns (the switch, then d chain
     * functions; cb_co_transfer tail-jumps into the switch, so it adds none). */
    counts a = sim("corobench-rsbsim", "asm", 8, "distinct", 1000, 32);
    counts c = sim("corobench-rsbsim", "asm", 8, "distinct", 3000, 32);
    CB_CHECK_EQ_U64(c.mispredicted - a.mispredicted, 2000 * (8 + 1));
}

/* pingpong mode=asymmetric under circular 32 (docs/rsb.md, "mode=asymmetric"): per op, the
 * side's switch into the root and the root's into the other side both miss, and the d returns of
 * the resumed chain miss as in symmetric mode with distinct sites: d + 2 per op where symmetric
 * makes d + 1; with the same sites only the two switches miss; asmjmp's and inline's jumps pop
 * nothing, so their d per op (distinct; inline's 0 with the same sites) are unchanged. The slope over 2000 more ops, at depth 8. */
CB_TEST_T(rsb_asymmetric_per_op, 300)
{
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    static const struct {
        const char *impl, *sites;
        uint64_t per_op;
    } rows[] = {{"asm", "distinct", 8 + 2}, {"asm", "same", 2}, {"asmjmp", "distinct", 8},
              {"inline", "distinct", 8}, {"inline", "same", 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t split[3];
        counts a = sim_model_mode("corobench-rsbsim", "circular", rows[i].impl, 8, rows[i].sites,
                                  "asymmetric", 1000, 32, split);
        counts c = sim_model_mode("corobench-rsbsim", "circular", rows[i].impl, 8, rows[i].sites,
                                  "asymmetric", 3000, 32, split);
        if (c.mispredicted - a.mispredicted != 2000 * rows[i].per_op)
            CB_FAIL("%s sites=%s asymmetric: %" PRIu64 " more mispredicted over 2000 ops, "
                    "docs/rsb.md predicts %" PRIu64,
                    rows[i].impl, rows[i].sites, c.mispredicted - a.mispredicted,
                    2000 * rows[i].per_op);
    }
}

CB_TEST_T(rsb_asm_same_sites_predicted, 300)
{
    /* Both sides return through the same addresses: only the run's ends mispredict. */
    for (size_t i = 0; i < sizeof fit_depths / sizeof fit_depths[0]; i++) {
        int64_t d = fit_depths[i];
        counts c = sim("corobench-rsbsim", "asm", d, "same", 1000, 32);
        check("asm same", c, expect_asm(d, 1, 1000, 32));
        CB_CHECK_EQ_U64(c.mispredicted, 4);
    }
}

CB_TEST_T(rsb_chain_deeper_than_rsb, 600)
{
    /* A plain call chain (sites=same) deeper than the simulated stack: its bottom entries were
     * overwritten, and the returns that need them mispredict, on 32 and on 16 entries. */
    static const int64_t d32[] = {29, 30, 31, 32, 40, 64, 65};
    for (size_t i = 0; i < sizeof d32 / sizeof d32[0]; i++)
        check("asm same, 32 entries", sim("corobench-rsbsim", "asm", d32[i], "same", 500, 32),
              expect_asm(d32[i], 1, 500, 32));
    static const int64_t d16[] = {13, 14, 15, 16, 33};
    for (size_t i = 0; i < sizeof d16 / sizeof d16[0]; i++)
        check("asm same, 16 entries", sim("corobench-rsbsim", "asm", d16[i], "same", 500, 16),
              expect_asm(d16[i], 1, 500, 16));
    /* Distinct sites mispredict everything anyway, overflow or not. */
    check("asm distinct d=40", sim("corobench-rsbsim", "asm", 40, "distinct", 500, 32),
          expect_asm(40, 0, 500, 32));
}

CB_TEST_T(rsb_underflow_btb_levels_off, 300)
{
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    /* underflow-btb 16 on real pingpong (tests/test_rsbmodel.c works the trace through): per
     * switch, min(d + 1, 16) live entries of the other side missed, and past 16 only the chain's
     * last return, which its site's last target (r_chain) does not predict; with sites=same only
     * that one. Measured as the slope between 500 and 1500 switches, so the ends cancel. */
    static const struct {
        int64_t d;
        const char *sites;
        uint64_t per, underflow_per;
    } pts[] = {{8, "distinct", 9, 0},  {15, "distinct", 16, 0}, {20, "distinct", 17, 1},
               {40, "distinct", 17, 1}, {8, "same", 0, 0},      {20, "same", 1, 1},
               {40, "same", 1, 1}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        uint64_t sa[3], sc[3];
        counts a = sim_model("corobench-rsbsim", "underflow-btb", "asm", pts[i].d, pts[i].sites,
                             500, 16, sa);
        counts c = sim_model("corobench-rsbsim", "underflow-btb", "asm", pts[i].d, pts[i].sites,
                             1500, 16, sc);
        CB_CHECK_EQ_U64(c.mispredicted - a.mispredicted, 1000 * pts[i].per);
        CB_CHECK_EQ_U64(sc[1] - sa[1], 1000 * pts[i].underflow_per);
        /* The returns past the 16 live entries, all but the last predicted by the fallback. */
        uint64_t past = pts[i].d + 1 > 16 ? (uint64_t)pts[i].d + 1 - 16 : 0;
        CB_CHECK_EQ_U64(sc[2] - sa[2], 1000 * (past ? past - 1 : 0));
    }
}

/* The jump switches at depths 0, 1, 4 and 16, both layouts, against docs/rsb.md's counts. */
static void jump_switch(const char *impl, counts (*expect)(int64_t, int, uint64_t))
{
    static const int64_t ds[] = {0, 1, 4, 16};
    static const char *const sites[] = {"distinct", "same"};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
        for (int same = 0; same < 2; same++) {
            char what[64];
            snprintf(what, sizeof what, "%s depth=%lld %s", impl, (long long)ds[i], sites[same]);
            check(what, sim("corobench-rsbsim", impl, ds[i], sites[same], 1000, 32),
                  expect(ds[i], same, 1000));
        }
}

CB_TEST_T(rsb_asmjmp, 300) { jump_switch("asmjmp", expect_asmjmp); }

CB_TEST_T(rsb_inline, 300) { jump_switch("inline", expect_inline); }


CB_TEST_T(rsb_ucontext, 300)
{
    static const int64_t ds[] = {0, 4, 31};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        check("ucontext distinct",
              sim("corobench-rsbsim", "ucontext", ds[i], "distinct", 300, 32),
              expect_ucontext(ds[i], 0, 300, 32));
        check("ucontext same", sim("corobench-rsbsim", "ucontext", ds[i], "same", 300, 32),
              expect_ucontext(ds[i], 1, 300, 32));
    }
}

CB_TEST_T(rsb_sm_fits_then_overflows, 600)
{
    /* 0 while the d + 2 entries fit; past that, exactly the overflow of docs/rsb.md. */
    static const int64_t ds[] = {0, 4, 16, 28, 29, 30, 31, 32, 40, 64};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        check("sm distinct", sim("corobench-rsbsim", "sm", ds[i], "distinct", 500, 32),
              expect_sm(ds[i], 500, 32));
        check("sm same", sim("corobench-rsbsim", "sm", ds[i], "same", 500, 32),
              expect_sm(ds[i], 500, 32));
    }
    static const int64_t d16[] = {13, 14, 15, 16, 20};
    for (size_t i = 0; i < sizeof d16 / sizeof d16[0]; i++)
        check("sm distinct, 16 entries", sim("corobench-rsbsim", "sm", d16[i], "distinct", 500, 16),
              expect_sm(d16[i], 500, 16));
}

CB_TEST_T(rsb_closure, 600)
{
    static const int64_t ds[] = {0, 4, 8, 13};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
        check("closure", sim("corobench-rsbsim", "closure", ds[i], "distinct", 500, 32),
              expect_closure(ds[i], 500));
    /* Past d + 3 > 32: per switch, the entries at depths 2, 3, 4 (k + 32 <= d + 3). */
    static const struct {
        int64_t d;
        uint64_t per;
    } over[] = {{29, 0}, {31, 1}, {32, 2}, {33, 3}, {40, 3}};
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        counts a = sim("corobench-rsbsim", "closure", over[i].d, "distinct", 500, 32);
        counts c = sim("corobench-rsbsim", "closure", over[i].d, "distinct", 1500, 32);
        CB_CHECK_EQ_U64(c.mispredicted - a.mispredicted, 1000 * over[i].per);
        CB_CHECK_EQ_U64(c.rets - a.rets, 1000 * ((uint64_t)over[i].d + 2));
    }
}

/* One counting pass of recursive (height h) in bin/corobench-rsbsim, under the given model. */
static counts sim_recursive(const char *impl, int h, cb_rsb_config m)
{
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    char hp[32];
    snprintf(hp, sizeof hp, "%d", h);
    const char *set[] = {"height", hp, NULL};
    char *out, *err;
    int st = count_cell("corobench-rsbsim", impl, "recursive", set, cb_rsb_model_name(m.model),
                        m.entries, &out, &err);
    if (st != 0)
        CB_FAIL("recursive %s %s: exit %d: %s", impl, hp, st, err);
    json_t *j = parse(out, "recursive"), *r = json_object_get(j, "rsbsim");
    CB_CHECK(r != NULL);
    CB_CHECK_STREQ(json_string_value(json_object_get(r, "model")), cb_rsb_model_name(m.model));
    counts c = {(uint64_t)json_integer_value(json_object_get(r, "rets")),
                (uint64_t)json_integer_value(json_object_get(r, "mispredicted"))};
    json_decref(j);
    free(out);
    free(err);
    return c;
}

/* docs/rsb.md, "recursive", at height h on N entries under either model: the stackful counts
 * do not depend on the stack's size (the switches pop what they push, or nothing); sm's chain is
 * at most h + 2 deep and closure's 2h + 2, so both predict every return while that fits. Past it
 * only closure's count depends on the model (circular 16 and underflow-btb 16 differ at h = 10):
 * it is then checked to be nonzero, not for a figure. */
static void check_recursive(cb_rsb_config m, const int *hs, size_t nh)
{
    for (size_t i = 0; i < nh; i++) {
        int h = hs[i];
        uint64_t n = ((uint64_t)1 << h) - 1, leaves = (uint64_t)1 << (h - 1);
        CB_CHECK_EQ_U64(sim_recursive("asm", h, m).mispredicted, 2 * n + 3);
        CB_CHECK_EQ_U64(sim_recursive("ucontext", h, m).mispredicted, 2 * n + 2);
        CB_CHECK_EQ_U64(sim_recursive("asmjmp", h, m).mispredicted, leaves + 2);
        uint64_t reentries = (uint64_t)(h - 1) * ((uint64_t)1 << h) + 1;
        if ((unsigned)h + 2 <= m.entries)
            check("recursive sm", sim_recursive("sm", h, m), (counts){n + reentries + 1, 0});
        uint64_t closure = sim_recursive("closure", h, m).mispredicted;
        if (2 * (unsigned)h + 2 <= m.entries)
            CB_CHECK_EQ_U64(closure, 0);
        else if (closure == 0)
            CB_FAIL("recursive closure h=%d on %u entries: 0 mispredicted, its chain of %d "
                    "entries does not fit", h, m.entries, 2 * h + 2);
    }
}

CB_TEST_T(rsb_recursive, 300)
{
    /* Under circular 32 (named, not this machine's `auto`): closure's chain fits to h = 15. */
    static const int hs[] = {1, 2, 5, 10};
    check_recursive((cb_rsb_config){CB_RSB_CIRCULAR, 32}, hs, sizeof hs / sizeof hs[0]);
}

/* The vendor defaults `auto` falls back to (harness/measure/rsbcal.c, docs/rsb.md): the expected
 * counts under each, whichever CPU runs the test, so that a test assuming one vendor's model
 * fails on either machine. Within the stack both models agree with the circular formulas; past
 * it, pingpong's per-switch misses follow the model in force (circular: every level of the
 * other side, d + 1; underflow-btb: the N live entries and the chain's last return, N + 1). */
CB_TEST_T(rsb_expected_counts_under_both_vendor_defaults, 300)
{
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    static const struct {
        const char *vendor, *model;
        unsigned entries;
    } vendors[] = {{"AuthenticAMD", "circular", 32}, {"GenuineIntel", "underflow-btb", 16}};
    for (size_t v = 0; v < sizeof vendors / sizeof vendors[0]; v++) {
        cb_cpu_id id = {.family = 6, .model = 207, .stepping = 0};
        snprintf(id.vendor, sizeof id.vendor, "%s", vendors[v].vendor);
        cb_rsb_config m = cb_rsbcal_vendor_default(&id);
        CB_CHECK_STREQ(cb_rsb_model_name(m.model), vendors[v].model);
        CB_CHECK_EQ_U64(m.entries, vendors[v].entries);
        static const int hs[] = {2, 6, 10};
        check_recursive(m, hs, sizeof hs / sizeof hs[0]);
        const char *mn = cb_rsb_model_name(m.model);
        uint64_t split[3];
        int64_t N = (int64_t)m.entries, fit[] = {0, 4, N - 2};
        for (size_t i = 0; i < sizeof fit / sizeof fit[0]; i++) {
            check("asm distinct", sim_model("corobench-rsbsim", mn, "asm", fit[i], "distinct", 500,
                                            m.entries, split),
                  expect_asm(fit[i], 0, 500, m.entries));
            check("asm same", sim_model("corobench-rsbsim", mn, "asm", fit[i], "same", 500,
                                        m.entries, split),
                  expect_asm(fit[i], 1, 500, m.entries));
            check("sm distinct", sim_model("corobench-rsbsim", mn, "sm", fit[i], "distinct", 500,
                                           m.entries, split),
                  expect_sm(fit[i], 500, m.entries));
        }
        int64_t d = 20; /* past 16, inside 32 */
        counts a = sim_model("corobench-rsbsim", mn, "asm", d, "distinct", 500, m.entries, split);
        counts c = sim_model("corobench-rsbsim", mn, "asm", d, "distinct", 1500, m.entries, split);
        int64_t per = m.model == CB_RSB_CIRCULAR || d + 1 <= N ? d + 1 : N + 1;
        CB_CHECK_EQ_U64(c.mispredicted - a.mispredicted, 1000 * (uint64_t)per);
    }
}

CB_TEST_T(rsb_jmpret_build_has_no_returns, 300)
{
    /* In the jmpret build corobench's code never executes `ret`, and no foreign function is
     * reached by a tail call in these loops (closure calls free, cb_rt_free being inline). */
    static const char *const impls[] = {"asm", "asmjmp", "inline", "ucontext", "sm", "closure"};
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++)
        check(impls[i], sim("corobench-jmpret-rsbsim", impls[i], 4, "distinct", 1000, 32),
              (counts){0, 0});
}

/* The variant builds assemble the switch files as rewritten by tools/asmrw.c: their switch entries
 * start a 64-byte line as the plain build's do (impls/asm/x86_64/frame.h, docs/switch.md), so a
 * variant's timing does not move with where the rewriting put the code around them. */
CB_TEST(rsb_switch_entries_line_aligned_in_every_build)
{
    static const char *const bins[] = {"corobench", "corobench-jmpret", "corobench-rsbsim",
                                       "corobench-jmpret-rsbsim"};
    for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
        char path[4096], cmd[4200], line[512], name[256], type[8];
        unsigned long long addr;
        bin_path(path, sizeof path, bins[i]);
        snprintf(cmd, sizeof cmd, "nm -P '%s'", path);
        FILE *nm = popen(cmd, "r");
        CB_CHECK(nm != NULL);
        int n = 0;
        while (fgets(line, sizeof line, nm)) { /* name type address size; undefined: no address */
            if (sscanf(line, "%255s %7s %llx", name, type, &addr) != 3 ||
                (strncmp(name, "cb_asm_ret_", 11) && strncmp(name, "cb_asm_jmp_", 11)))
                continue;
            n++;
            if (addr % 64)
                CB_FAIL("%s: %s at 0x%llx, %llu bytes into its 64-byte line", bins[i], name, addr,
                        addr % 64);
        }
        CB_CHECK_EQ_INT(pclose(nm), 0);
        CB_CHECK_EQ_INT(n, 8); /* jump, jump_nofpu, make, entry of each switch */
    }
}

CB_TEST(rsb_deterministic)
{
    counts a = sim("corobench-rsbsim", "closure", 3, "distinct", 777, 32);
    counts c = sim("corobench-rsbsim", "closure", 3, "distinct", 777, 32);
    CB_CHECK_EQ_U64(a.rets, c.rets);
    CB_CHECK_EQ_U64(a.mispredicted, c.mispredicted);
    a = sim("corobench-rsbsim", "asm", 5, "distinct", 777, 16);
    c = sim("corobench-rsbsim", "asm", 5, "distinct", 777, 16);
    CB_CHECK_EQ_U64(a.rets, c.rets);
    CB_CHECK_EQ_U64(a.mispredicted, c.mispredicted);
}

CB_TEST(rsb_instrumented_binary_refuses_to_time)
{
    char path[4096], *out, *err;
    bin_path(path, sizeof path, "corobench-rsbsim");
    char *argv[] = {path, "run", "--impl", "sm", "--workload", "pingpong", "-o", "/dev/null",
                    NULL};
    CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 2);
    CB_CHECK_CONTAINS(err, "only runs counting passes");
    free(out);
    free(err);
}

CB_TEST(rsb_plain_binary_refuses_to_count)
{
    char *out, *err;
    CB_CHECK_EQ_INT(count_cell("corobench", "sm", "pingpong", NULL, "circular", 32, &out, &err), 0);
    json_t *j = parse(out, "corobench cell");
    CB_CHECK_STREQ(json_string_value(json_object_get(j, "status")), "failed");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(j, "error")), "not instrumented");
    json_decref(j);
    free(out);
    free(err);
}

/* bin/corobench with arguments; exit status, stdout, stderr. */
static int corobench(char **out, char **err, const char *a0, ...)
{
    char path[4096], *argv[40];
    va_list ap;
    va_start(ap, a0);
    cb_test_argv(argv, 40, path, sizeof path, "corobench", a0, ap);
    va_end(ap);
    return cb_test_spawn(argv, out, err);
}

static void expect_usage(const char *needle, const char *a0, const char *a1, const char *a2,
                         const char *a3)
{
    char *out, *err;
    int st = corobench(&out, &err, "run", "--invocations", "1", "--impl", "sm", "--param", "switches=10", "-o",
                       "/dev/null", a0, a1, a2, a3, NULL);
    CB_CHECK_EQ_INT(st, 2);
    CB_CHECK_CONTAINS(err, needle);
    CB_CHECK_CONTAINS(err, "valid");
    char *nl = strchr(err, '\n');
    CB_CHECK(nl && nl[1] == '\0');
    free(out);
    free(err);
}

CB_TEST(rsb_cli_bad_input)
{
    expect_usage("invalid value '0' for --rsb-entries", "--rsb", "sim", "--rsb-entries", "0");
    expect_usage("invalid value 'x' for --rsb-entries", "--rsb-entries", "x", NULL, NULL);
    expect_usage("invalid value 'pmu' for --rsb", "--rsb", "pmu", NULL, NULL);
    expect_usage("invalid value 'lifo' for --rsb-model", "--rsb-model", "lifo", NULL, NULL);
    expect_usage("unknown variant 'fast'", "--variant", "plain,fast", NULL, NULL);
    expect_usage("empty item", "--variant", "plain,", NULL, NULL);
}

CB_TEST_T(rsb_cli_variants_side_by_side, 300)
{
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    char out_path[256];
    snprintf(out_path, sizeof out_path, "/tmp/cbtest-%ld-rsb.json", (long)getpid());
    char *out, *err;
    int st = corobench(&out, &err, "run", "--invocations", "1", "--impl", "asm,sm", "--workload", "pingpong", "--param",
                       "depth=3", "--param", "switches=2000", "--reps", "2", "--min-rep-ms", "1",
                       "--variant", "plain,jmpret", "--rsb", "sim", "--rsb-model", "circular",
                       "--rsb-entries", "16", "-o", out_path, NULL);
    if (st != 0)
        CB_FAIL("exit %d: %s", st, err);
    CB_CHECK_CONTAINS(out, "jmpret");
    json_error_t e;
    json_t *doc = json_load_file(out_path, 0, &e);
    CB_CHECK(doc != NULL);
    json_t *run = json_object_get(doc, "run");
    CB_CHECK_STREQ(json_string_value(json_object_get(run, "rsb")), "sim");
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(run, "rsb_entries")), 16);
    json_t *cells = json_object_get(doc, "cells");
    CB_CHECK_EQ_INT(json_array_size(cells), 4);
    /* Order: asm plain, asm jmpret, sm plain, sm jmpret; one checksum for all. */
    static const char *const want_impl[] = {"asm", "asm", "sm", "sm"};
    static const char *const want_var[] = {"plain", "jmpret", "plain", "jmpret"};
    /* asm plain: expect_asm at d=3; sm plain: 0; both jmpret: no returns at all. */
    counts want[4] = {expect_asm(3, 0, 2000, 16), {0, 0}, expect_sm(3, 2000, 16), {0, 0}};
    for (size_t i = 0; i < 4; i++) {
        json_t *c = json_array_get(cells, i);
        CB_CHECK_STREQ(json_string_value(json_object_get(c, "status")), "ok");
        CB_CHECK_STREQ(json_string_value(json_object_get(c, "impl")), want_impl[i]);
        CB_CHECK_STREQ(json_string_value(json_object_get(c, "variant")), want_var[i]);
        CB_CHECK(json_equal(json_object_get(c, "checksum"),
                            json_object_get(json_array_get(cells, 0), "checksum")));
        json_t *r = json_object_get(c, "rsbsim");
        CB_CHECK(r != NULL);
        CB_CHECK_EQ_INT(json_integer_value(json_object_get(r, "entries")), 16);
        counts got = {(uint64_t)json_integer_value(json_object_get(r, "rets")),
                      (uint64_t)json_integer_value(json_object_get(r, "mispredicted"))};
        check(want_var[i], got, want[i]);
        CB_CHECK(json_real_value(json_object_get(json_object_get(c, "ns_per_op"), "median")) > 0);
    }
    json_decref(doc);
    unlink(out_path);
    free(out);
    free(err);
}

CB_TEST_T(rsb_jmpret_same_work, 600)
{
    /* Every workload and implementation, both builds: the same checksum and suspensions per
     * point (the harness fails a variant that differs; this checks none does). */
    char out_path[256];
    snprintf(out_path, sizeof out_path, "/tmp/cbtest-%ld-variants.json", (long)getpid());
    char *out, *err;
    /* --timeout 240: thread spawn's 10,000 threads took 33-65 s on a loaded 2-core VM, past the
     * 60 s default; this test is about the same work, not the time. */
    int st = corobench(&out, &err, "run", "--invocations", "1", "--quick", "--variant",
                       "plain,jmpret", "--timeout", "240", "--no-table", "-o", out_path, NULL);
    if (st != 0)
        CB_FAIL("exit %d: %s", st, err);
    json_error_t e;
    json_t *doc = json_load_file(out_path, 0, &e), *c;
    CB_CHECK(doc != NULL);
    json_t *cells = json_object_get(doc, "cells");
    size_t i, jmpret = 0;
    json_array_foreach(cells, i, c)
    {
        const char *status = json_string_value(json_object_get(c, "status"));
        const cb_impl *im = cb_impl_find(json_string_value(json_object_get(c, "impl")));
        if (cb_impl_is_language(im)) { /* plain only: not corobench's code (docs/external.md) */
            /* and a workload its program has no body for (pipeline) */
            const char *why = json_string_value(json_object_get(c, "error"));
            int nobody = why && (strstr(why, "no body for workload") || strstr(why, " has no "));
            CB_CHECK_STREQ(status,
                           i % 2 || cb_impl_unavailable(im) || nobody ? "unsupported" : "ok");
            continue;
        }
        if (!strcmp(status, "unsupported")) {
            /* a workload without a body for the family (io for direct, pipeline for closure),
             * or an implementation unavailable in this build (copystack under
             * AddressSanitizer); both variants say so */
            const cb_workload *wl =
                cb_workload_find(json_string_value(json_object_get(c, "workload")));
            cb_params dp;
            char r[512];
            if (wl && im)
                cb_test_params(wl, im, NULL, &dp);
            /* or a body that cannot run here at its defaults (copystack's and thread's
             * coroutines as the scheduler's tasks, docs/sched.md) */
            if (!cb_impl_unavailable(im) && (!wl || cb_wl_family(wl, im)) &&
                !(wl && im && cb_wl_unsupported(wl, im, &dp, r, sizeof r)))
                CB_FAIL("%s %s unsupported: %s", json_string_value(json_object_get(c, "impl")),
                        json_string_value(json_object_get(c, "workload")),
                        json_string_value(json_object_get(c, "error")));
            continue;
        }
        CB_CHECK_STREQ(status, "ok");
        CB_CHECK_STREQ(json_string_value(json_object_get(c, "variant")),
                       i % 2 ? "jmpret" : "plain");
        json_t *plain = json_array_get(cells, i - i % 2);
        CB_CHECK(json_equal(json_object_get(c, "checksum"), json_object_get(plain, "checksum")));
        CB_CHECK(json_equal(json_object_get(c, "suspensions"),
                            json_object_get(plain, "suspensions")));
        jmpret += i % 2;
    }
    CB_CHECK(jmpret >= 4 * 5);
    json_decref(doc);
    unlink(out_path);
    free(out);
    free(err);
}

/* ---- this machine's model: auto, the calibration file, calibrate ---------------------------- */

/* A private calibration directory for this test process (docs/rsb.md, "Calibration"). */
static const char *cal_dir(void)
{
    static char dir[256];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-cal", (long)getpid());
    mkdir(dir, 0700);
    setenv("COROBENCH_CALIBRATION_DIR", dir, 1);
    return dir;
}

/* `run --rsb sim` of asm pingpong depth 20 (auto model) into a results document. */
static json_t *auto_run(char **out)
{
    char path[512], *err;
    snprintf(path, sizeof path, "%s/run.json", cal_dir());
    int st = corobench(out, &err, "run", "--invocations", "1", "--impl", "asm", "--workload", "pingpong", "--param",
                       "depth=20", "--param", "switches=500", "--reps", "1", "--min-rep-ms", "1",
                       "--rsb", "sim", "-o", path, NULL);
    if (st != 0)
        CB_FAIL("exit %d: %s", st, err);
    free(err);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    CB_CHECK(doc != NULL);
    unlink(path);
    return doc;
}

CB_TEST_T(rsb_auto_model_from_calibration, 300)
{
    CB_SKIP_UNDER_ASAN("its instrumentation adds calls and returns to every count");
    /* No calibration for this CPU: the vendor's default, named as such. */
    char *out;
    json_t *doc = auto_run(&out), *rsb = json_object_get(json_object_get(doc, "machine"), "rsb");
    CB_CHECK_STREQ(json_string_value(json_object_get(rsb, "source")), "default");
    CB_CHECK(json_is_null(json_object_get(rsb, "ns_per_mispredict")));
    CB_CHECK_CONTAINS(out, "uncalibrated default)");
    json_t *cell = json_array_get(json_object_get(doc, "cells"), 0);
    CB_CHECK_STREQ(json_string_value(json_object_get(json_object_get(cell, "rsbsim"), "model")),
                   json_string_value(json_object_get(rsb, "model")));
    json_decref(doc);
    free(out);

    /* A calibration file for this CPU (as calibrate writes it): its model and size are used. */
    char key_path[512], cmd[1024];
    snprintf(key_path, sizeof key_path, "%s/key", cal_dir());
    snprintf(cmd, sizeof cmd, "%s/bin/corobench calibrate --print-key > %s", cb_test_root(),
             key_path);
    CB_CHECK_EQ_INT(system(cmd), 0);
    char key[200] = "";
    FILE *f = fopen(key_path, "r");
    CB_CHECK(f && fgets(key, sizeof key, f));
    fclose(f);
    key[strcspn(key, "\n")] = '\0';
    char file[600];
    snprintf(file, sizeof file, "%s/%s.json", cal_dir(), key);
    json_t *cal = json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:i, s:f, s:f, s:f}}", "schema",
                            "corobench-calibration/1", "created_utc", "2026-01-01T00:00:00Z",
                            "cpu", "key", key, "fit", "model", "underflow-btb", "entries", 16,
                            "ns_per_mispredict", 4.25, "tsc_cycles_per_mispredict", 12.5, "r2",
                            0.987);
    CB_CHECK_EQ_INT(json_dump_file(cal, file, 0), 0);
    doc = auto_run(&out);
    rsb = json_object_get(json_object_get(doc, "machine"), "rsb");
    CB_CHECK_STREQ(json_string_value(json_object_get(rsb, "source")), "calibrated");
    CB_CHECK_STREQ(json_string_value(json_object_get(rsb, "model")), "underflow-btb");
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(rsb, "entries")), 16);
    CB_CHECK(json_real_value(json_object_get(rsb, "ns_per_mispredict")) == 4.25);
    CB_CHECK_CONTAINS(out, "mispredicted/op (underflow-btb 16, calibrated R^2 0.99)");
    /* Counted under that model: 17 per switch at depth 20 (16 live entries and the chain's
     * last return), where circular 32 would give 21. */
    cell = json_array_get(json_object_get(doc, "cells"), 0);
    json_t *r = json_object_get(cell, "rsbsim");
    CB_CHECK_STREQ(json_string_value(json_object_get(r, "model")), "underflow-btb");
    CB_CHECK(json_real_value(json_object_get(r, "mispredicted_per_op")) < 17.1);
    CB_CHECK(json_real_value(json_object_get(r, "mispredicted_per_op")) > 16.9);
    json_decref(doc);
    free(out);

    /* A calibration of another CPU (another key) is not this machine's. */
    json_object_set_new(json_object_get(cal, "cpu"), "key", json_string("GenuineIntel-6-0-0-0x0"));
    CB_CHECK_EQ_INT(json_dump_file(cal, file, 0), 0);
    doc = auto_run(&out);
    CB_CHECK_STREQ(json_string_value(json_object_get(
                       json_object_get(json_object_get(doc, "machine"), "rsb"), "source")),
                   "default");
    json_decref(doc);
    json_decref(cal);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cal_dir());
    CB_CHECK_EQ_INT(system(cmd), 0);
}

CB_TEST_T(rsb_calibrate_small_sweep, 300)
{
    /* A small sweep (depth 0..6): the file, its fields and the PMU line; figures are not
     * checked (the machine is shared), only that they are there and consistent. */
    char *out, *err, path[512];
    snprintf(path, sizeof path, "%s/c.json", cal_dir());
    /* -o names a file that is there: --force replaces it, its mode kept (docs/bad-input.md has
     * the refusal without --force). */
    FILE *old = fopen(path, "w");
    CB_CHECK(old != NULL && fputs("old\n", old) >= 0 && fclose(old) == 0);
    CB_CHECK_EQ_INT(chmod(path, 0600), 0);
    int st = corobench(&out, &err, "calibrate", "--max-depth", "6", "--switches", "400",
                       "--reps", "3", "--min-rep-ms", "1", "-o", path, "--force", NULL);
    if (st != 0)
        CB_FAIL("calibrate: exit %d: %s%s", st, out, err);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    CB_CHECK(doc != NULL);
    CB_CHECK_STREQ(json_string_value(json_object_get(doc, "schema")), "corobench-calibration/1");
    struct stat sb;
    CB_CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    json_t *fit = json_object_get(doc, "fit"), *cpu = json_object_get(doc, "cpu");
    CB_CHECK(json_string_value(json_object_get(fit, "model")) != NULL);
    CB_CHECK(json_integer_value(json_object_get(fit, "entries")) >= 8);
    CB_CHECK(json_real_value(json_object_get(fit, "ns_per_mispredict")) > 0);
    CB_CHECK(json_is_number(json_object_get(fit, "r2")));
    CB_CHECK(json_string_value(json_object_get(cpu, "key")) != NULL);
    CB_CHECK(json_string_value(json_object_get(cpu, "microcode")) != NULL);
    /* 2 implementations x 2 sites x depth 0..6; 2 models x N 8..64 candidates. */
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "points")), 28);
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "candidates")), 114);
    json_t *p = json_array_get(json_object_get(doc, "points"), 0);
    CB_CHECK(fabs(json_real_value(json_object_get(p, "diff_ns")) -
                  (json_real_value(json_object_get(p, "plain_ns")) -
                   json_real_value(json_object_get(p, "jmpret_ns")))) < 1e-6);
    /* The twin: one of the two, with its reason; the jmpret twin's check whichever was fitted;
     * each point predicted from the jmpret twin, and from the sites twin at sites=distinct. */
    const char *twin = json_string_value(json_object_get(fit, "baseline"));
    CB_CHECK(twin && (!strcmp(twin, "jmpret") || !strcmp(twin, "sites")));
    CB_CHECK(json_string_value(json_object_get(fit, "baseline_reason")) != NULL);
    CB_CHECK(json_is_boolean(json_object_get(json_object_get(doc, "jmpret_twin"), "ok")));
    CB_CHECK_CONTAINS(out, "twin: ");
    size_t i;
    json_t *jf = json_object_get(json_object_get(doc, "jmpret_twin"), "fit");
    double cost = json_real_value(json_object_get(jf, "ns_per_mispredict"));
    double step = json_real_value(json_object_get(jf, "step_ns"));
    long step_depth = json_is_integer(json_object_get(jf, "step_depth"))
                          ? (long)json_integer_value(json_object_get(jf, "step_depth"))
                          : 1000;
    CB_CHECK(cost > 0 && step <= 0);
    json_array_foreach(json_object_get(doc, "points"), i, p)
    {
        double m = json_real_value(json_object_get(p, "mispredicted_per_op"));
        long d = (long)json_integer_value(json_object_get(p, "depth"));
        CB_CHECK(fabs(json_real_value(json_object_get(p, "jmpret_model_ns")) -
                      (json_real_value(json_object_get(p, "jmpret_ns")) + cost * m +
                       (d >= step_depth ? step : 0))) < 1e-6);
        int same = !strcmp(json_string_value(json_object_get(p, "sites")), "same");
        /* Three runs by default; the point's time is the median of their fastest repetitions. */
        json_t *runs = json_object_get(p, "plain_ns_runs");
        CB_CHECK_EQ_INT(json_array_size(runs), 3);
        double r[3];
        for (size_t k = 0; k < 3; k++)
            r[k] = json_real_value(json_array_get(runs, k));
        double lo = fmin(r[0], fmin(r[1], r[2])), hi = fmax(r[0], fmax(r[1], r[2]));
        CB_CHECK(fabs(json_real_value(json_object_get(p, "plain_ns")) -
                      (r[0] + r[1] + r[2] - lo - hi)) < 1e-9);
        CB_CHECK_EQ_INT(json_is_null(json_object_get(p, "sites_model_ns")), same);
    }
    /* The bound: 4 series under the jmpret twin, the 2 distinct ones under the sites twin,
     * 7 depths each. */
    json_t *b;
    CB_CHECK_EQ_INT(json_array_size(json_object_get(doc, "bound")), 6);
    json_array_foreach(json_object_get(doc, "bound"), i, b)
        CB_CHECK_EQ_INT(json_integer_value(json_object_get(b, "of")), 7);
    CB_CHECK_CONTAINS(out, "bound (model within 15% of plain): jmpret twin, asm distinct 0..32: ");
    if (!json_is_true(json_object_get(json_object_get(doc, "pmu"), "available")))
        CB_CHECK_CONTAINS(out, "no PMU: calibrated against timing only");
    CB_CHECK_CONTAINS(out, "fit: ");
    json_decref(doc);
    free(out);
    free(err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cal_dir());
    CB_CHECK_EQ_INT(system(cmd), 0);
}

CB_TEST(rsb_calibrate_bad_input)
{
    static const char *const bad[][3] = {{"--max-depth", "1", "invalid value '1' for --max-depth"},
                                         {"--switches", "x", "invalid value 'x' for --switches"},
                                         {"--baseline", "ret",
                                          "invalid value 'ret' for --baseline"},
                                         {"--frobnicate", NULL, "unknown option '--frobnicate'"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out, *err;
        CB_CHECK_EQ_INT(corobench(&out, &err, "calibrate", bad[i][0], bad[i][1], NULL), 2);
        CB_CHECK_CONTAINS(err, bad[i][2]);
        CB_CHECK_CONTAINS(err, "valid");
        char *nl = strchr(err, '\n');
        CB_CHECK(nl && nl[1] == '\0');
        free(out);
        free(err);
    }
}

/* ---- the rewriter, on a small hand-written input ------------------------------------------ */

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        CB_FAIL("write %s", path);
}

static const char rw_a[] = "\t.file 1 \"a.c\"\n"
                           "\t.text\n"
                           "\t.type\tlocalf, @function\n"
                           "localf:\n"
                           "\t.cfi_startproc\n"
                           "\t.loc 1 2 3\n"
                           "\tcall\tfoo@PLT # foreign\n"
                           "\tcall\tbar@PLT\n"
                           "\tcall\tlocalf\n"
                           "\tcall\t*8(%rax)\n"
                           "\tjmp\t.L3\n"
                           ".L3:\tret\n"
                           "\trep ret\n"
                           "\tret\t$16\n"
                           "\tjmp\tfree@PLT\n"
                           "\t.cfi_endproc\n"
                           "\t.size\tlocalf, .-localf\n";
static const char rw_b[] = "\t.text\n"
                           "\t.globl\tbar\n"
                           "\t.type\tbar, @function\n"
                           "bar:\n"
                           "\tret\n";

static void rewriter(const char *flag, const char *dir, int want_status)
{
    char tool[4096], a[512], b[512], *out, *err;
    /* Beside this test binary: $(BUILD)/tools/, in the plain build and the sanitizer build. */
    ssize_t n = readlink("/proc/self/exe", tool, sizeof tool - 32);
    if (n < 0)
        CB_FAIL("readlink /proc/self/exe: %s", strerror(errno));
    tool[n] = '\0';
    strcpy(strrchr(tool, '/') ?: tool, "/tools/cb_asmrw");
    if (access(tool, X_OK) != 0)
        CB_SKIP("%s is not built (x86-64 variants only)", tool);
    snprintf(a, sizeof a, "%s/a.s", dir);
    snprintf(b, sizeof b, "%s/b.s", dir);
    char *argv[] = {tool, (char *)flag, a, b, NULL};
    int st = cb_test_spawn(argv, &out, &err);
    if (st != want_status)
        CB_FAIL("cb_asmrw %s: exit %d, want %d: %s", flag, st, want_status, err);
    free(out);
    free(err);
}

static void assembles(const char *path)
{
    char obj[600], *out, *err;
    snprintf(obj, sizeof obj, "%s.o", path);
    char *argv[] = {"/usr/bin/cc", "-c", "-o", obj, (char *)path, NULL};
    int st = cb_test_spawn(argv, &out, &err);
    if (st != 0)
        CB_FAIL("cc -c %s: exit %d: %s", path, st, err);
    free(out);
    free(err);
}

CB_TEST(rsb_rewriter_rules)
{
    char dir[256], a[300], b[300], rw[300];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-asmrw", (long)getpid());
    if (mkdir(dir, 0700) != 0)
        CB_FAIL("mkdir %s", dir);
    snprintf(a, sizeof a, "%s/a.s", dir);
    snprintf(b, sizeof b, "%s/b.s", dir);
    snprintf(rw, sizeof rw, "%s/a.rw.s", dir);
    spit(a, rw_a);
    spit(b, rw_b);

    rewriter("--rsbsim", dir, 0);
    const char *s = cb_test_slurp(rw);
    /* Pushes only for corobench callees (bar: exported by b.s; localf; any indirect call). */
    CB_CHECK_CONTAINS(s, "\t.loc 1 2 3\n\tcall\tfoo@PLT\n\tcall\tcb_rsbsim_on_call\n"
                         "\t.long\t.Lcb_rsb_0 - .\n\tcall\tbar@PLT\n.Lcb_rsb_0:\n");
    CB_CHECK_CONTAINS(s, "\tcall\tcb_rsbsim_on_call\n\t.long\t.Lcb_rsb_1 - .\n\tcall\tlocalf\n");
    CB_CHECK_CONTAINS(s, "\tcall\tcb_rsbsim_on_call\n\t.long\t.Lcb_rsb_2 - .\n\tcall\t*8(%rax)\n");
    CB_CHECK_CONTAINS(s, "\tjmp\t.L3\n.L3:\n\tcall\tcb_rsbsim_on_ret\n\tret\n");
    CB_CHECK_CONTAINS(s, "\tcall\tcb_rsbsim_on_ret\n\trep ret\n");
    CB_CHECK_CONTAINS(s, "\tcall\tcb_rsbsim_on_ret\n\tret\t$16\n");
    CB_CHECK_CONTAINS(s, "\tcall\tcb_rsbsim_on_ret\n\tjmp\tfree@PLT\n"); /* a tail call out */
    CB_CHECK(strstr(s, "on_ret\n\tjmp\t.L3") == NULL);
    CB_CHECK_CONTAINS(s, "\t.cfi_endproc\n\t.size\tlocalf, .-localf\n");
    assembles(rw);

    rewriter("--jmpret", dir, 0);
    s = cb_test_slurp(rw);
    CB_CHECK(strstr(s, "ret\n") == NULL && strstr(s, "ret\t") == NULL);
    CB_CHECK_CONTAINS(s, ".L3:\n\tleaq\t8(%rsp), %rsp\n\tjmp\t*-8(%rsp)\n");
    CB_CHECK_CONTAINS(s, "\tleaq\t24(%rsp), %rsp\n\tjmp\t*-24(%rsp)\n");
    CB_CHECK(strstr(s, "cb_rsbsim") == NULL);
    assembles(rw);

    /* A conditional tail call to foreign code cannot be instrumented: the build stops. */
    spit(a, "\t.text\nf:\n\tjne\tfree@PLT\n");
    rewriter("--rsbsim", dir, 1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CB_CHECK_EQ_INT(system(cmd), 0);
}
