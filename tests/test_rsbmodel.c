/* The return-stack models on synthetic call/return traces, counted by hand (docs/rsb.md,
 * "Models"): overflow, underflow, recursion, and two stacks switching, for circular and
 * underflow-btb; several candidates in one pass count as each would alone; and the calibration
 * fit (harness/measure/rsbfit.c) recovering a known knee and cost from pingpong-shaped traces. The
 * simulator is driven directly (cb_rsbsim_push/pop), not through instrumented code. */
#include <math.h>

#include "harness/measure/rsbfit.h"
#include "harness/measure/rsbsim.h"
#include "test.h"

/* One trace step: push ret (site 0), or the `ret` at site returns to target. */
typedef struct step {
    uint64_t site, addr;
} step;
#define PUSH(a) {0, a}
#define POP(s, t) {s, t}

static void replay(const step *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (t[i].site)
            cb_rsbsim_pop(t[i].site, t[i].addr);
        else
            cb_rsbsim_push(t[i].addr);
    }
}

/* Runs the trace `times` times under one candidate and compares the five counts. */
static void expect(const char *what, const step *t, size_t n, int times, cb_rsb_model m,
                   unsigned entries, uint64_t rets, uint64_t top, uint64_t uf_mis, uint64_t uf_ok)
{
    cb_rsb_config c = {m, entries};
    CB_CHECK_EQ_INT(cb_rsbsim_begin(&c, 1), 0);
    for (int i = 0; i < times; i++)
        replay(t, n);
    cb_rsbsim_end();
    const cb_rsb_counts *k = cb_rsbsim_counts(0);
    if (k->rets != rets || k->mispredicted_top != top || k->mispredicted_underflow != uf_mis ||
        k->underflow_predicted != uf_ok || k->mispredicted != top + uf_mis)
        CB_FAIL("%s, %s %u: rets %" PRIu64 " top %" PRIu64 " underflow %" PRIu64
                " underflow-predicted %" PRIu64 " (total %" PRIu64 "); by hand %" PRIu64
                " %" PRIu64 " %" PRIu64 " %" PRIu64,
                what, cb_rsb_model_name(m), entries, k->rets, k->mispredicted_top,
                k->mispredicted_underflow, k->underflow_predicted, k->mispredicted, rets, top,
                uf_mis, uf_ok);
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
enum { SW = 0x100, R = 0x200, RA = 0x300, RB = 0x400 }; /* ret sites */

CB_TEST(rsbmodel_overflow)
{
    /* Six nested calls with six different return addresses, all returns by one site; 4 entries
     * keep a3..a6. The two oldest are lost: circular reads the slots a5 and a6 overwrote, the
     * fallback has the previous target of the site (a3, then a2): both miss twice. */
    static const step t[] = {PUSH(1), PUSH(2), PUSH(3), PUSH(4), PUSH(5), PUSH(6),
                             POP(R, 6), POP(R, 5), POP(R, 4), POP(R, 3), POP(R, 2), POP(R, 1)};
    expect("overflow", t, N_OF(t), 1, CB_RSB_CIRCULAR, 4, 6, 0, 2, 0);
    expect("overflow", t, N_OF(t), 1, CB_RSB_UNDERFLOW_BTB, 4, 6, 0, 2, 0);
    expect("overflow", t, N_OF(t), 1, CB_RSB_CIRCULAR, 6, 6, 0, 0, 0);
    expect("overflow", t, N_OF(t), 1, CB_RSB_UNDERFLOW_BTB, 6, 6, 0, 0, 0);
}

CB_TEST(rsbmodel_recursion)
{
    /* A loop calls a recursive function 5 levels deep (return address 7 into the loop, then 8
     * into itself), one ret site. With 4 entries the fifth return finds no live entry: circular
     * reads the slot push 6 left (8, right), the fallback the site's last target (8, right);
     * the sixth wants 7: circular reads 8 (push 5 overwrote the 7), the fallback says 8. */
    static const step t[] = {PUSH(7), PUSH(8), PUSH(8), PUSH(8), PUSH(8), PUSH(8),
                             POP(R, 8), POP(R, 8), POP(R, 8), POP(R, 8), POP(R, 8), POP(R, 7)};
    expect("recursion", t, N_OF(t), 1, CB_RSB_CIRCULAR, 4, 6, 0, 1, 1);
    expect("recursion", t, N_OF(t), 1, CB_RSB_UNDERFLOW_BTB, 4, 6, 0, 1, 1);
    /* Repeated: the same each time. With 3 entries three returns find no live entry; circular
     * reads the slots pushes 6 and 5 wrote (8, right, twice) and misses the bottom one. */
    expect("recursion x3", t, N_OF(t), 3, CB_RSB_CIRCULAR, 4, 18, 0, 3, 3);
    expect("recursion x3", t, N_OF(t), 3, CB_RSB_UNDERFLOW_BTB, 4, 18, 0, 3, 3);
    expect("recursion", t, N_OF(t), 1, CB_RSB_CIRCULAR, 3, 6, 0, 1, 2);
}

CB_TEST(rsbmodel_underflow)
{
    /* Returns with nothing pushed (what a fresh coroutine's entry or a caller's caller looks
     * like). Circular predicts the zeroed slots: both miss. The fallback has nothing for site
     * RA the first time, then the target it learnt. A push/pop pair in between is predicted
     * by both and leaves the stack empty again. */
    static const step t[] = {POP(RA, 5), PUSH(9), POP(RB, 9), POP(RA, 5)};
    expect("underflow", t, N_OF(t), 1, CB_RSB_CIRCULAR, 4, 3, 0, 2, 0);
    expect("underflow", t, N_OF(t), 1, CB_RSB_UNDERFLOW_BTB, 4, 3, 0, 1, 1);
    /* Circular on a second round: the slot below the 9 still holds 0, so RA keeps missing. */
    expect("underflow x2", t, N_OF(t), 2, CB_RSB_CIRCULAR, 4, 6, 0, 4, 0);
    expect("underflow x2", t, N_OF(t), 2, CB_RSB_UNDERFLOW_BTB, 4, 6, 0, 1, 3);
}

/* Two coroutines switching: each descends two levels (a1, a2 / b1, b2) and switches; the switch's
 * `ret` (site SW) resumes the other at its deepest address and its one chain return (RA / RB)
 * takes it up a level. */
static const step two_distinct[] = {PUSH(0xa1), PUSH(0xa2), POP(SW, 0xb2), POP(RB, 0xb1),
                                    PUSH(0xb1), PUSH(0xb2), POP(SW, 0xa2), POP(RA, 0xa1)};
/* The same with both running one copy of the code: the same addresses and sites. */
static const step two_same[] = {PUSH(0xc1), PUSH(0xc2), POP(SW, 0xc2), POP(R, 0xc1),
                                PUSH(0xc1), PUSH(0xc2), POP(SW, 0xc2), POP(R, 0xc1)};

CB_TEST(rsbmodel_two_stacks)
{
    /* Distinct sites, room for both levels: every return pops the other side's entry, 8 of 8
     * live entries wrong in two rounds, in both models. */
    expect("distinct", two_distinct, N_OF(two_distinct), 2, CB_RSB_CIRCULAR, 4, 8, 8, 0, 0);
    expect("distinct", two_distinct, N_OF(two_distinct), 2, CB_RSB_UNDERFLOW_BTB, 4, 8, 8, 0,
           0);
    /* One entry: the switch's ret pops the other side's top (wrong); the chain return finds the
     * stack empty. Circular reads the same stale slot (wrong); the fallback has nothing for RB
     * and RA in round one, and their own last targets in round two (right). */
    expect("distinct", two_distinct, N_OF(two_distinct), 2, CB_RSB_CIRCULAR, 1, 8, 4, 4, 0);
    expect("distinct", two_distinct, N_OF(two_distinct), 2, CB_RSB_UNDERFLOW_BTB, 1, 8, 4, 2,
           2);
    /* Same sites: the other side's entries are exactly ours, nothing misses while both fit. */
    expect("same", two_same, N_OF(two_same), 2, CB_RSB_CIRCULAR, 2, 8, 0, 0, 0);
    expect("same", two_same, N_OF(two_same), 2, CB_RSB_UNDERFLOW_BTB, 2, 8, 0, 0, 0);
    /* One entry: the switch's ret is predicted; the chain return underflows: circular reads
     * c2 every time, the fallback misses only before it has seen R once. */
    expect("same", two_same, N_OF(two_same), 2, CB_RSB_CIRCULAR, 1, 8, 0, 4, 0);
    expect("same", two_same, N_OF(two_same), 2, CB_RSB_UNDERFLOW_BTB, 1, 8, 0, 1, 3);
}

CB_TEST(rsbmodel_candidates_in_one_pass)
{
    /* Every (model, N) of one pass counts what it counts alone. */
    cb_rsb_config c[16];
    size_t n = 0;
    for (unsigned e = 1; e <= 8; e++) {
        c[n++] = (cb_rsb_config){CB_RSB_CIRCULAR, e};
        c[n++] = (cb_rsb_config){CB_RSB_UNDERFLOW_BTB, e};
    }
    cb_rsb_counts together[16];
    CB_CHECK_EQ_INT(cb_rsbsim_begin(c, n), 0);
    CB_CHECK_EQ_U64(cb_rsbsim_ncandidates(), n);
    for (int r = 0; r < 3; r++) {
        replay(two_distinct, N_OF(two_distinct));
        replay(two_same, N_OF(two_same));
    }
    cb_rsbsim_end();
    for (size_t i = 0; i < n; i++)
        together[i] = *cb_rsbsim_counts(i);
    for (size_t i = 0; i < n; i++) {
        CB_CHECK_EQ_INT(cb_rsbsim_begin(&c[i], 1), 0);
        for (int r = 0; r < 3; r++) {
            replay(two_distinct, N_OF(two_distinct));
            replay(two_same, N_OF(two_same));
        }
        cb_rsbsim_end();
        const cb_rsb_counts *k = cb_rsbsim_counts(0);
        CB_CHECK_EQ_U64(k->rets, together[i].rets);
        CB_CHECK_EQ_U64(k->mispredicted_top, together[i].mispredicted_top);
        CB_CHECK_EQ_U64(k->mispredicted_underflow, together[i].mispredicted_underflow);
        CB_CHECK_EQ_U64(k->underflow_predicted, together[i].underflow_predicted);
    }
    /* Outside a pass the trace changes nothing; bad configurations are refused. */
    uint64_t before = cb_rsbsim_counts(0)->rets;
    cb_rsbsim_pop(SW, 1);
    CB_CHECK_EQ_U64(cb_rsbsim_counts(0)->rets, before);
    cb_rsb_config bad = {CB_RSB_CIRCULAR, 0};
    CB_CHECK_EQ_INT(cb_rsbsim_begin(&bad, 1), -1);
    CB_CHECK_EQ_INT(cb_rsbsim_begin(c, 0), -1);
    cb_rsb_model m;
    CB_CHECK_EQ_INT(cb_rsb_model_parse("underflow-btb", &m), 0);
    CB_CHECK_STREQ(cb_rsb_model_name(m), "underflow-btb");
    CB_CHECK_EQ_INT(cb_rsb_model_parse("lifo", &m), -1);
}

/* ---- calibration fit ------------------------------------------------------------------------ */

/* Pingpong as docs/rsb.md describes it for asm: S switches at depth d. Side X resumes at its
 * r_xfer through the switch's ret, returns up its chain (one ret site per copy of the code; the
 * chain's own return address at every level, the loop's at the last) and calls down again. */
static void pingpong_trace(int depth, int same, int switches)
{
    enum { LOOP = 0x1000, CHAIN = 0x2000, XFER = 0x3000, SITE = 0x4000, SWITCH = 0x5000 };
    for (int s = 0; s < switches + 2; s++) {
        uint64_t side = same ? 0 : (uint64_t)(s & 1);
        if (s >= 2) { /* the first two only descend (fresh coroutines) */
            cb_rsbsim_pop(SWITCH, XFER + side);
            for (int l = depth; l >= 1; l--)
                cb_rsbsim_pop(SITE + side, l > 1 ? CHAIN + side : LOOP + side);
        }
        if (depth >= 1)
            cb_rsbsim_push(LOOP + side);
        for (int l = 1; l < depth; l++)
            cb_rsbsim_push(CHAIN + side);
        cb_rsbsim_push(XFER + side);
    }
}

enum { NCAND = 2 * (64 - 8 + 1), MAXD = 40, NPT = 2 * (MAXD + 1) };

/* Mispredictions per switch of every candidate (circular 8..64, then underflow-btb 8..64) at
 * every point (sites distinct, depth 0..40, then same). */
static void simulate(cb_rsb_config *cand, double x[NCAND][NPT])
{
    for (unsigned k = 0; k < NCAND; k++)
        cand[k] = (cb_rsb_config){k < NCAND / 2 ? CB_RSB_CIRCULAR : CB_RSB_UNDERFLOW_BTB,
                                  8 + k % (NCAND / 2)};
    for (int p = 0; p < NPT; p++) {
        CB_CHECK_EQ_INT(cb_rsbsim_begin(cand, NCAND), 0);
        pingpong_trace(p % (MAXD + 1), p > MAXD, 200);
        cb_rsbsim_end();
        for (unsigned k = 0; k < NCAND; k++)
            x[k][p] = (double)cb_rsbsim_counts(k)->mispredicted / 200;
    }
}

/* A machine with the given true candidate: y = cost * x_true + c plus a deterministic
 * +-0.4 ns of noise; the fit must find the candidate and the cost. */
static void recover(const char *name, long truth, double x[NCAND][NPT], const cb_rsb_config *cand)
{
    double y[NPT];
    const double *rows[NCAND];
    cb_rsbfit_line fits[NCAND];
    uint32_t seed = 12345;
    for (int p = 0; p < NPT; p++) {
        seed = seed * 1664525u + 1013904223u;
        y[p] = 4.5 * x[truth][p] + 2.0 + 0.8 * ((double)(seed >> 8) / (1 << 24) - 0.5);
    }
    for (unsigned k = 0; k < NCAND; k++)
        rows[k] = x[k];
    long best = cb_rsbfit_best(rows, NCAND, y, NULL, NPT, fits);
    if (best != truth)
        CB_FAIL("%s: the fit picked %s %u (r2 %.4f), not %s %u (r2 %.4f)", name,
                best < 0 ? "nothing" : cb_rsb_model_name(cand[best].model),
                best < 0 ? 0 : cand[best].entries, best < 0 ? 0 : fits[best].r2,
                cb_rsb_model_name(cand[truth].model), cand[truth].entries, fits[truth].r2);
    CB_CHECK(fabs(fits[best].cost - 4.5) < 0.05);
    CB_CHECK(fabs(fits[best].c - 2.0) < 0.3);
    CB_CHECK(fits[best].r2 > 0.999);
}

CB_TEST(rsbmodel_fit_finds_knee_and_cost)
{
    static double x[NCAND][NPT];
    cb_rsb_config cand[NCAND];
    simulate(cand, x);
    /* The generator is the documented pingpong: circular 32 gives d + 1 per switch (distinct)
     * and 0 (same) while d + 1 <= 32. */
    for (int d = 0; d <= 31; d++) {
        CB_CHECK(fabs(x[32 - 8][d] - (d + 1)) < 1e-9);
        CB_CHECK(x[32 - 8][MAXD + 1 + d] == 0);
    }
    /* underflow-btb 16 levels off once d + 1 > 16, at 17 per switch: 16 live entries (all the
     * other side's), then the fallback predicts the chain's returns (the site's last target is
     * r_chain, learnt from the live returns just before) and misses the last, which wants
     * r_loop. With sites=same only that last one: 1 per switch. */
    for (int d = 16; d <= MAXD; d++) {
        CB_CHECK(fabs(x[NCAND / 2 + 16 - 8][d] - 17) < 1e-9);
        CB_CHECK(fabs(x[NCAND / 2 + 16 - 8][MAXD + 1 + d] - 1) < 1e-9);
    }
    recover("underflow-btb 16", NCAND / 2 + 16 - 8, x, cand);
    recover("circular 32", 32 - 8, x, cand);
    recover("underflow-btb 24", NCAND / 2 + 24 - 8, x, cand);
    recover("circular 12", 12 - 8, x, cand);
}

CB_TEST(rsbmodel_fit_line)
{
    static const double x[] = {0, 1, 2, 3, 4}, y[] = {1, 3, 5, 7, 9}, flat[] = {2, 2, 2, 2, 2};
    cb_rsbfit_line f;
    CB_CHECK_EQ_INT(cb_rsbfit_line_fit(x, y, 5, &f), 1);
    CB_CHECK(fabs(f.cost - 2) < 1e-12 && fabs(f.c - 1) < 1e-12 && f.sse < 1e-20);
    CB_CHECK(fabs(f.r2 - 1) < 1e-12);
    CB_CHECK_EQ_INT(cb_rsbfit_line_fit(flat, y, 5, &f), 0); /* no slope from a constant x */
    /* A candidate whose mispredictions make things faster is not chosen. */
    static const double down[] = {4, 3, 2, 1, 0};
    const double *rows[] = {down, x};
    cb_rsbfit_line fits[2];
    CB_CHECK_EQ_INT(cb_rsbfit_best(rows, 2, y, NULL, 5, fits), 1);
    CB_CHECK_EQ_INT(cb_rsbfit_best(rows, 1, y, NULL, 5, fits), -1);
    /* With a step: a drop of 3 from depth 3 on is found, with the slope; a rise is no step. */
    static const long depth[] = {0, 1, 2, 3, 4};
    static const double ys[] = {1, 3, 5, 4, 6}, yr[] = {1, 3, 5, 10, 12};
    CB_CHECK_EQ_INT(cb_rsbfit_step_fit(x, ys, depth, 5, &f), 1);
    CB_CHECK(f.step_depth == 3 && fabs(f.step + 3) < 1e-9 && fabs(f.cost - 2) < 1e-9);
    CB_CHECK(fabs(f.c - 1) < 1e-9 && f.sse < 1e-18);
    CB_CHECK_EQ_INT(cb_rsbfit_step_fit(x, yr, depth, 5, &f), 1);
    CB_CHECK(f.step_depth == 0 || f.step <= 0);
}

/* The twins (cb_rsbfit_calibrate): a machine whose per-level work is 7 + 1.5 x depth ns and
 * whose true candidate costs 4.5 ns per misprediction. The jmpret build does that work with no
 * return mispredicted, plus an excess of its own: none; a step of 20 ns from depth 11 on (as
 * Zen 4's indirect predictor mispredicts a deep chain's exit, a cost that no longer grows with
 * depth); or a ramp of 1.5 ns per level from depth 5 on, which no step stands for. */
enum excess { NONE, STEP, RAMP };

static void twins(const char *name, long truth, enum excess ex, cb_rsbfit_baseline want,
                  cb_rsbfit_baseline expect, double x[NCAND][NPT], const cb_rsb_config *cand)
{
    cb_rsbfit_point pts[NPT];
    const double *rows[NCAND];
    static cb_rsbfit_line jfits[NCAND], sfits[NCAND];
    uint32_t seed = 777;
    for (int p = 0; p < NPT; p++) {
        long d = p % (MAXD + 1);
        double base = 7 + 1.5 * (double)d;
        double own = ex == STEP   ? (d >= 11 ? 20 : 0)
                     : ex == RAMP ? (d >= 5 ? 1.5 * (double)(d - 4) : 0)
                                  : 0;
        seed = seed * 1664525u + 1013904223u;
        pts[p] = (cb_rsbfit_point){0, p > MAXD, d,
                                   base + 4.5 * x[truth][p] +
                                       0.4 * ((double)(seed >> 8) / (1 << 24) - 0.5),
                                   base + own};
    }
    for (unsigned k = 0; k < NCAND; k++)
        rows[k] = x[k];
    cb_rsbfit_result r;
    CB_CHECK_EQ_INT(cb_rsbfit_calibrate(pts, NPT, rows, NCAND, want, 0.15, jfits, sfits, &r), 0);
    if (r.baseline != expect)
        CB_FAIL("%s: fitted the %s twin, not %s (twin check %d, worst %+.3f at point %ld)", name,
                cb_rsbfit_baseline_name(r.baseline), cb_rsbfit_baseline_name(expect), r.twin_ok,
                r.twin_worst_error, r.twin_worst);
    CB_CHECK_EQ_INT(r.twin_ok, ex != RAMP);
    if (ex == RAMP) /* the check names a deep sites=same point */
        CB_CHECK(r.twin_worst > MAXD && pts[r.twin_worst].depth >= 11);
    const cb_rsbfit_line *fits = r.baseline == CB_RSBFIT_SITES ? sfits : jfits;
    if (r.best != truth)
        CB_FAIL("%s: the %s twin picked %s %u, not %s %u", name,
                cb_rsbfit_baseline_name(r.baseline),
                r.best < 0 ? "nothing" : cb_rsb_model_name(cand[r.best].model),
                r.best < 0 ? 0 : cand[r.best].entries, cb_rsb_model_name(cand[truth].model),
                cand[truth].entries);
    CB_CHECK(fabs(fits[r.best].cost - 4.5) < 0.05);
    if (r.baseline == CB_RSBFIT_JMPRET) { /* the step is found where it is, and only there */
        if (ex == STEP)
            CB_CHECK(fits[r.best].step_depth == 11 && fabs(fits[r.best].step + 20) < 0.3);
        else
            CB_CHECK(fabs(fits[r.best].step) < 0.3);
    }
    /* The fitted twin predicts every distinct point within the bound. */
    for (int p = 0; p <= MAXD; p++) {
        double m = cb_rsbfit_predict(pts, NPT, (size_t)p, x[r.best], &fits[r.best], r.baseline);
        CB_CHECK(fabs(m / pts[p].plain_ns - 1) < 0.15);
    }
}

CB_TEST(rsbmodel_twins)
{
    static double x[NCAND][NPT];
    cb_rsb_config cand[NCAND];
    simulate(cand, x);
    long c32 = 32 - 8, u16 = NCAND / 2 + 16 - 8;
    /* A jmpret twin that is clean, or whose own mispredictions are a step, is the one fitted
     * (the method the calibration was specified with), on either model. */
    twins("clean twin, circular 32", c32, NONE, CB_RSBFIT_AUTO, CB_RSBFIT_JMPRET, x, cand);
    twins("clean twin, underflow-btb 16", u16, NONE, CB_RSBFIT_AUTO, CB_RSBFIT_JMPRET, x, cand);
    twins("stepping twin, circular 32", c32, STEP, CB_RSBFIT_AUTO, CB_RSBFIT_JMPRET, x, cand);
    twins("stepping twin, underflow-btb 16", u16, STEP, CB_RSBFIT_AUTO, CB_RSBFIT_JMPRET, x,
          cand);
    /* One whose own cost grows with depth fails its check; the sites twin, which never sees
     * it, recovers the machine. */
    twins("ramping twin, circular 32", c32, RAMP, CB_RSBFIT_AUTO, CB_RSBFIT_SITES, x, cand);
    twins("ramping twin, underflow-btb 16", u16, RAMP, CB_RSBFIT_AUTO, CB_RSBFIT_SITES, x, cand);
    /* Asked for, either twin is fitted whatever the check says. */
    twins("sites asked for", c32, NONE, CB_RSBFIT_SITES, CB_RSBFIT_SITES, x, cand);
    /* The predictions, by hand: jmpret + cost x m (+ the step from its depth on), and
     * plain(same) + cost x (m - m(same)). */
    static const cb_rsbfit_point pts[] = {{0, 0, 3, 30, 10}, {1, 1, 3, 99, 99}, {0, 1, 3, 12, 11}};
    static const double m[] = {4, 0, 1};
    cb_rsbfit_line f = {.ok = 1, .cost = 5}, fs = {.ok = 1, .cost = 5, .step_depth = 3, .step = -2};
    CB_CHECK_EQ_INT(cb_rsbfit_sites_twin(pts, 3, 0), 2);
    CB_CHECK_EQ_INT(cb_rsbfit_sites_twin(pts, 3, 2), -1);
    CB_CHECK(fabs(cb_rsbfit_predict(pts, 3, 0, m, &f, CB_RSBFIT_SITES) - (12 + 5 * 3)) < 1e-12);
    CB_CHECK(fabs(cb_rsbfit_predict(pts, 3, 0, m, &f, CB_RSBFIT_JMPRET) - (10 + 5 * 4)) < 1e-12);
    CB_CHECK(fabs(cb_rsbfit_predict(pts, 3, 0, m, &fs, CB_RSBFIT_JMPRET) - (10 + 20 - 2)) < 1e-12);
    CB_CHECK(isnan(cb_rsbfit_predict(pts, 3, 2, m, &f, CB_RSBFIT_SITES)));
    /* A sweep without sites=same points has no sites twin: asked for, it is an error; under
     * auto the jmpret twin is fitted (nothing to fall back to). */
    {
        cb_rsbfit_point dist[MAXD + 1];
        const double *rows[NCAND];
        static cb_rsbfit_line jf[NCAND], sf[NCAND];
        for (int p = 0; p <= MAXD; p++)
            dist[p] = (cb_rsbfit_point){0, 0, p, 7 + 1.5 * p + 4.5 * x[c32][p], 7 + 1.5 * p};
        for (unsigned k = 0; k < NCAND; k++)
            rows[k] = x[k];
        cb_rsbfit_result r;
        CB_CHECK_EQ_INT(cb_rsbfit_calibrate(dist, MAXD + 1, rows, NCAND, CB_RSBFIT_SITES, 0.15,
                                            jf, sf, &r),
                        -1);
        CB_CHECK_EQ_INT(cb_rsbfit_calibrate(dist, MAXD + 1, rows, NCAND, CB_RSBFIT_AUTO, 0.15,
                                            jf, sf, &r),
                        0);
        CB_CHECK_EQ_INT(r.baseline, CB_RSBFIT_JMPRET);
        /* Distinct sites alone cannot tell circular stacks apart (every return after a switch
         * misses whatever N is), so the first of the tied candidates is chosen, at the cost. */
        CB_CHECK(r.best >= 0 && fabs(jf[r.best].cost - 4.5) < 1e-9);
        for (int p = 0; p <= MAXD; p++)
            CB_CHECK(x[r.best][p] == x[c32][p]);
        CB_CHECK_EQ_INT(r.twin_worst, -1); /* no sites=same point to check */
    }
    cb_rsbfit_baseline b;
    CB_CHECK_EQ_INT(cb_rsbfit_baseline_parse("sites", &b), 0);
    CB_CHECK_EQ_INT(b, CB_RSBFIT_SITES);
    CB_CHECK_EQ_INT(cb_rsbfit_baseline_parse("plain", &b), -1);
}
