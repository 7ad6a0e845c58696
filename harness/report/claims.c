/* The Claims section of `corobench report`: the claims of the stackful-vs-stackless debate, each
 * with one sentence, the numbers it rests on, its plots and a verdict computed from the results
 * (docs/report.md): supported, contradicted, inconclusive (the difference is within the noise
 * by compare's test, or fewer than 5 samples a side) or not measured (with the command that
 * would measure it). Nothing here is a figure: every number comes from the cells.
 * Timing comparisons are plain build against plain build; the jmpret build appears only next
 * to its plain twin (claim 2, claim 5's "asm (jmpret build)" comparator). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "harness/results/load.h"
#include "harness/measure/rsbfit.h"
#include "signif.h"

enum { MIN_SAMPLES = 5, MAXPTS = 64 };

typedef enum { V_SUPPORTED, V_CONTRADICTED, V_INCONCLUSIVE, V_NOT_MEASURED } verdict;
static const char *const verdict_name[] = {"supported", "contradicted", "inconclusive",
                                           "not measured"};

typedef struct ctx {
    json_t *cells, *run, *rsb; /* rsb: machine.rsb, this CPU's calibrated model, if any */
    double threshold, alpha; /* as compare's defaults */
} ctx;

typedef struct claim {
    verdict v;
    char text[4096];   /* the numbers */
    char command[512]; /* not measured: what would measure it */
    char table[16384]; /* optional Markdown table under the claim */
} claim;

/* Does param NAME of c equal (or, with "!=", differ from) the text value? */
static int param_is(json_t *c, const char *tok)
{
    char name[64];
    const char *op = strstr(tok, "!="), *eq = strchr(tok, '=');
    int neg = op != NULL;
    size_t nl = (size_t)((neg ? op : eq) - tok);
    if (!eq || nl >= sizeof name)
        return 0;
    memcpy(name, tok, nl);
    name[nl] = '\0';
    const char *want = neg ? op + 2 : eq + 1;
    json_t *v = json_object_get(json_object_get(c, "params"), name);
    char buf[64];
    const char *have = json_is_string(v) ? json_string_value(v) : NULL;
    if (json_is_integer(v)) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
        have = buf;
    }
    int same = have && !strcmp(have, want);
    return neg ? !same : same;
}

/* The first ok cell of workload wl, implementation impl, build variant, whose parameters satisfy
 * every space-separated NAME=VALUE / NAME!=VALUE of match. */
static json_t *find(const ctx *c, const char *wl, const char *impl, const char *variant,
                    const char *match)
{
    json_t *cell;
    size_t i;
    json_array_foreach(c->cells, i, cell)
    {
        if (strcmp(cb_str(cell, "status"), "ok") || strcmp(cb_str(cell, "workload"), wl) ||
            strcmp(cb_str(cell, "impl"), impl) || strcmp(cb_str(cell, "variant"), variant))
            continue;
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", match);
        int ok = 1;
        for (char *t = strtok_r(buf, " ", &save); t && ok; t = strtok_r(NULL, " ", &save))
            ok = param_is(cell, t);
        if (ok)
            return cell;
    }
    return NULL;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The values of integer parameter x over the ok cells of (wl, impl, variant, match), sorted,
 * distinct; how many. */
static size_t values(const ctx *c, const char *wl, const char *impl, const char *variant,
                     const char *match, const char *x, long *out)
{
    size_t n = 0, i;
    json_t *cell;
    json_array_foreach(c->cells, i, cell)
    {
        json_t *v = json_object_get(json_object_get(cell, "params"), x);
        if (!json_is_integer(v) || n == MAXPTS)
            continue;
        char m[256];
        snprintf(m, sizeof m, "%s %s=%lld", match, x, (long long)json_integer_value(v));
        if (find(c, wl, impl, variant, m) != cell)
            continue;
        long val = (long)json_integer_value(v);
        int dup = 0;
        for (size_t k = 0; k < n; k++)
            dup |= out[k] == val;
        if (!dup)
            out[n++] = val;
    }
    qsort(out, n, sizeof *out, cmp_long);
    return n;
}

/* The values present for every one of the k (impl, variant) pairs: intersects into a. */
static size_t common(const ctx *c, const char *wl, const char *const *impls,
                     const char *const *variants, size_t k, const char *match, const char *x,
                     long *a)
{
    size_t n = values(c, wl, impls[0], variants[0], match, x, a);
    for (size_t j = 1; j < k; j++) {
        long b[MAXPTS];
        size_t nb = values(c, wl, impls[j], variants[j], match, x, b), m = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t q = 0; q < nb; q++)
                if (a[i] == b[q]) {
                    a[m++] = a[i];
                    break;
                }
        n = m;
    }
    return n;
}

static double median(json_t *c)
{
    double v = NAN;
    cb_field_number(c, "ns_per_op.median", &v);
    return v;
}

static double num(json_t *c, const char *path)
{
    double v = NAN;
    if (c)
        cb_field_number(c, path, &v);
    return v;
}

/* compare's test on two cells' samples: dir +1 when a is slower than b by more than the
 * threshold with p < alpha, -1 faster likewise, 0 within the noise or the threshold, -2 when a
 * side has fewer than MIN_SAMPLES samples. */
typedef struct test {
    double a, b, ratio, p;
    int dir;
} test;

static size_t samples(json_t *c, double *x)
{
    json_t *s = json_object_get(c, "samples_ns_per_op"), *v;
    size_t i, n = 0;
    json_array_foreach(s, i, v) if (json_is_number(v) && n < 1024) x[n++] = json_number_value(v);
    return n;
}

static test compare(const ctx *c, json_t *a, json_t *b)
{
    test t = {.a = median(a), .b = median(b), .p = 1, .dir = -2};
    t.ratio = t.a / t.b;
    double xa[1024], xb[1024];
    size_t na = samples(a, xa), nb = samples(b, xb);
    if (na < MIN_SAMPLES || nb < MIN_SAMPLES)
        return t;
    t.p = cb_mwu(xa, na, xb, nb).p;
    double f = 1 + c->threshold / 100;
    t.dir = t.p < c->alpha && t.ratio > f ? 1 : t.p < c->alpha && t.ratio < 1 / f ? -1 : 0;
    return t;
}

static void test_text(char *buf, size_t len, const test *t)
{
    if (t->dir == -2)
        cb_append(buf, len, "%.2fx, fewer than %d samples a side", t->ratio, MIN_SAMPLES);
    else
        cb_append(buf, len, "%.2fx, p = %.2g", t->ratio, t->p);
}

/* Least-squares slope of y on x (per unit of x); NAN without two distinct x. */
static double slope(const long *x, const double *y, size_t n)
{
    double xd[MAXPTS];
    cb_rsbfit_line l;
    for (size_t i = 0; i < n; i++)
        xd[i] = (double)x[i];
    return n >= 2 && cb_rsbfit_line_fit(xd, y, n, &l) ? l.cost : NAN;
}

static void not_measured(claim *o, const char *what, const char *command)
{
    o->v = V_NOT_MEASURED;
    cb_append(o->text, sizeof o->text, "The results have no %s.", what);
    snprintf(o->command, sizeof o->command, "%s", command);
}

#define PP "pingpong"
#define DISTINCT "sites=distinct"
#define SAME "sites=same"

/* 1: the misprediction cost of resuming at another call site grows with depth. */
static void c_depth(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm", "asm"}, *const va[] = {"plain", "plain"};
    long d[MAXPTS], ds[MAXPTS];
    size_t n = common(c, PP, im, va, 1, DISTINCT, "depth", d);
    size_t ns = common(c, PP, im, va, 1, SAME, "depth", ds);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) /* depths with both sites */
        for (size_t k = 0; k < ns; k++)
            if (d[i] == ds[k])
                d[m++] = d[i];
    if (m < 2) {
        not_measured(o, "asm pingpong cells at two or more depths with both sites",
                     "corobench run --workload pingpong --impl asm --param "
                     "depth=0,4,8,16,32 --param sites=distinct,same --rsb sim");
        return;
    }
    double td[MAXPTS], ts[MAXPTS], md[MAXPTS], ms[MAXPTS];
    int rsb = 1;
    char mt[64];
    for (size_t i = 0; i < m; i++) {
        snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[i]);
        json_t *a = find(c, PP, "asm", "plain", mt);
        snprintf(mt, sizeof mt, "%s depth=%ld", SAME, d[i]);
        json_t *b = find(c, PP, "asm", "plain", mt);
        td[i] = median(a);
        ts[i] = median(b);
        md[i] = num(a, "rsbsim.mispredicted_per_op");
        ms[i] = num(b, "rsbsim.mispredicted_per_op");
        rsb &= isfinite(md[i]) && isfinite(ms[i]);
    }
    long D = d[m - 1];
    snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, D);
    json_t *a = find(c, PP, "asm", "plain", mt);
    snprintf(mt, sizeof mt, "%s depth=%ld", SAME, D);
    json_t *b = find(c, PP, "asm", "plain", mt);
    test t = compare(c, a, b);
    double sd = slope(d, td, m), ss = slope(d, ts, m);
    cb_append(
        o->text, sizeof o->text,
        "asm, depth %ld..%ld: each level adds %.1f ns per switch with distinct sites and %.1f ns "
        "with the same sites",
        d[0], D, sd, ss);
    if (rsb)
        cb_append(o->text, sizeof o->text,
                  "; simulated mispredicted returns per level: %.2f and %.2f", slope(d, md, m),
                  slope(d, ms, m));
    cb_append(o->text, sizeof o->text, ". At depth %ld: %.1f ns (distinct) vs %.1f ns (same), ", D,
              t.a, t.b);
    test_text(o->text, sizeof o->text, &t);
    cb_append(o->text, sizeof o->text, ".");
    if (rsb) {
        long knee = -1;
        for (size_t i = 0; i < m && knee < 0; i++)
            if (ms[i] >= 0.5)
                knee = d[i];
        json_t *r = json_object_get(a, "rsbsim");
        const char *model = cb_str(r, "model");
        long long N = json_integer_value(json_object_get(r, "entries"));
        /* The model named with how well it fits this CPU (calibrated R^2, or an uncalibrated
         * default), as the stdout table names it. */
        char label[160];
        cb_results_rsb_label(c->rsb, model ? model : "circular", (long)N, label, sizeof label);
        if (knee >= 0)
            cb_append(
                o->text, sizeof o->text,
                " Model (%s): with the same sites returns start to mispredict at depth %ld, "
                "where the chain no longer fits.",
                label, knee);
        else
            cb_append(o->text, sizeof o->text,
                      " Model (%s): with the same sites no return mispredicts up to depth %ld "
                      "(the knee is where depth + 1 exceeds %lld).",
                      label, D, N);
        /* What one misprediction costs here: the extra time per level over the extra
         * mispredictions per level; and the calibration's figure for this CPU, if it has one. */
        double dm = slope(d, md, m) - slope(d, ms, m);
        if (dm > 0.5)
            cb_append(o->text, sizeof o->text,
                      " Per extra mispredicted return: %.1f ns in these cells", (sd - ss) / dm);
        double cal = NAN;
        cb_field_number(c->rsb, "ns_per_mispredict", &cal);
        const char *twin = cb_str(c->rsb, "twin"); /* what it measured against */
        if (isfinite(cal))
            cb_append(o->text, sizeof o->text, "%s the calibration (%s%s%s%s) measured %.1f ns",
                      dm > 0.5 ? ";" : " Per mispredicted return:", cb_str(c->rsb, "source"),
                      twin ? ", against the " : "", twin ? twin : "", twin ? " twin" : "", cal);
        if (dm > 0.5 || isfinite(cal))
            cb_append(o->text, sizeof o->text, ".");
    } else {
        cb_append(o->text, sizeof o->text, " No simulated counts (run with --rsb sim).");
    }
    o->v = t.dir == 1 && sd > ss ? V_SUPPORTED : t.dir == -1 ? V_CONTRADICTED : V_INCONCLUSIVE;
    if (t.dir == 1 && !(sd > ss))
        o->v = V_CONTRADICTED;
}

/* 2: the jmpret build removes most of the distinct-sites cost. */
static void c_jmpret(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm", "asm"}, *const va[] = {"plain", "jmpret"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, va, 2, DISTINCT, "depth", d);
    json_t *pd = NULL, *ps = NULL, *jd = NULL;
    char mt[64];
    for (size_t i = n; i-- > 0 && !ps;) { /* the deepest depth with all three */
        snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[i]);
        pd = find(c, PP, "asm", "plain", mt);
        jd = find(c, PP, "asm", "jmpret", mt);
        snprintf(mt, sizeof mt, "%s depth=%ld", SAME, d[i]);
        ps = find(c, PP, "asm", "plain", mt);
        if (ps)
            n = i + 1;
    }
    if (!ps || !pd || !jd) {
        not_measured(o, "asm pingpong cells in both builds at one depth with both sites",
                     "corobench run --workload pingpong --impl asm --param depth=0,16 "
                     "--param sites=distinct,same --variant plain,jmpret");
        return;
    }
    long D = d[n - 1];
    test t = compare(c, pd, jd);
    double cost = median(pd) - median(ps), removed = (median(pd) - median(jd)) / cost;
    cb_append(
        o->text, sizeof o->text,
        "asm at depth %ld: distinct sites cost %.1f ns per switch more than the same sites "
        "(%.1f vs %.1f ns); the jmpret build runs the distinct case in %.1f ns (plain/jmpret ",
        D, cost, median(pd), median(ps), median(jd));
    test_text(o->text, sizeof o->text, &t);
    cb_append(o->text, sizeof o->text, "), removing %.0f%% of that cost.", 100 * removed);
    if (t.dir == -2 || t.dir == 0 || !(cost > 0))
        o->v = V_INCONCLUSIVE;
    else
        o->v = t.dir == 1 && removed >= 0.5 ? V_SUPPORTED : V_CONTRADICTED;
}

/* A count per op as printed with two decimals: a difference that rounds to zero is 0, not -0. */
static double shown(double x) { return fabs(x) < 0.005 ? 0 : x; }

/* 3: asmjmp saves one misprediction per switch over asm (distinct sites). */
static void c_asmjmp(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm", "asmjmp"}, *const va[] = {"plain", "plain"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, va, 2, DISTINCT, "depth", d);
    double lo = INFINITY, hi = -INFINITY, sum = 0, same_lo = INFINITY, same_hi = -INFINITY;
    size_t k = 0, ks = 0;
    char mt[64];
    for (size_t i = 0; i < n; i++) {
        snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[i]);
        double x = num(find(c, PP, "asm", "plain", mt), "rsbsim.mispredicted_per_op") -
                   num(find(c, PP, "asmjmp", "plain", mt), "rsbsim.mispredicted_per_op");
        snprintf(mt, sizeof mt, "%s depth=%ld", SAME, d[i]);
        double y = num(find(c, PP, "asmjmp", "plain", mt), "rsbsim.mispredicted_per_op") -
                   num(find(c, PP, "asm", "plain", mt), "rsbsim.mispredicted_per_op");
        if (isfinite(x)) {
            lo = fmin(lo, shown(x)), hi = fmax(hi, shown(x)), sum += x, k++;
        }
        if (isfinite(y)) {
            same_lo = fmin(same_lo, shown(y)), same_hi = fmax(same_hi, shown(y)), ks++;
        }
    }
    if (!k) {
        not_measured(o,
                     "asm and asmjmp pingpong cells with simulated return-stack "
                     "counts",
                     "corobench run --workload pingpong --impl asm,asmjmp --param "
                     "depth=0,4,16 --param sites=distinct,same --rsb sim");
        return;
    }
    snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[0]);
    json_t *a = find(c, PP, "asm", "plain", mt), *j = find(c, PP, "asmjmp", "plain", mt);
    test t = compare(c, a, j);
    cb_append(
        o->text, sizeof o->text,
        "Simulated, distinct sites, depth %ld..%ld: asm mispredicts %.2f..%.2f more returns per "
        "switch than asmjmp",
        d[0], d[n - 1], lo, hi);
    if (ks)
        cb_append(
            o->text, sizeof o->text,
            "; with the same sites it is the other way round: asmjmp mispredicts %.2f..%.2f more "
            "than asm (the return after a jmp switch pops a stale entry)",
            same_lo, same_hi);
    cb_append(o->text, sizeof o->text,
              ". Time at depth %ld (distinct): asm %.1f ns, asmjmp %.1f ns (", d[0], t.a, t.b);
    test_text(o->text, sizeof o->text, &t);
    cb_append(o->text, sizeof o->text, ").");
    double mean = sum / (double)k;
    if (lo >= 0.9 && hi <= 1.1 && t.dir == 1)
        o->v = V_SUPPORTED;
    else if (mean < 0.5 || t.dir == -1)
        o->v = V_CONTRADICTED;
    else
        o->v = V_INCONCLUSIVE;
}

/* 4: ucontext is an order of magnitude slower than asm. */
static void c_ucontext(const ctx *c, claim *o)
{
    static const char *const im[] = {"ucontext", "asm"}, *const va[] = {"plain", "plain"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, va, 2, DISTINCT, "depth", d);
    if (!n) {
        not_measured(o, "ucontext and asm pingpong cells at a common depth",
                     "corobench run --workload pingpong --impl asm,ucontext --param "
                     "depth=0");
        return;
    }
    char mt[64];
    snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[0]);
    test t = compare(c, find(c, PP, "ucontext", "plain", mt), find(c, PP, "asm", "plain", mt));
    cb_append(o->text, sizeof o->text,
              "pingpong depth %ld: ucontext %.0f ns per switch, asm %.1f ns (", d[0], t.a, t.b);
    test_text(o->text, sizeof o->text, &t);
    cb_append(
        o->text, sizeof o->text,
        "); the %.0f ns difference is the size of a system call: glibc's swapcontext saves and "
        "restores the signal mask with rt_sigprocmask on every switch.",
        t.a - t.b);
    /* Significant but under 10x (even within the threshold) answers the claim: contradicted. */
    o->v = t.dir == -2 || t.p >= c->alpha ? V_INCONCLUSIVE
           : t.ratio >= 10                ? V_SUPPORTED
                                          : V_CONTRADICTED;
}

/* 5: sm is faster at shallow depth; the crossover depths against stackful switches. */
static void c_crossover_sm(const ctx *c, claim *o)
{
    static const struct {
        const char *impl, *variant, *label;
    } rivals[] = {{"asm", "plain", "asm"},
                  {"asmjmp", "plain", "asmjmp"},
                  {"asm", "jmpret", "asm (jmpret build)"}};
    static const char *const im[] = {"sm", "asm"}, *const va[] = {"plain", "plain"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, va, 2, DISTINCT, "depth", d);
    if (n < 2) {
        not_measured(o, "sm and asm pingpong cells at two or more depths",
                     "corobench run --workload pingpong --impl asm,asmjmp,sm --param "
                     "depth=0,2,4,8,16,32 --variant plain,jmpret");
        return;
    }
    char mt[64];
    snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[0]);
    test first = compare(c, find(c, PP, "sm", "plain", mt), find(c, PP, "asm", "plain", mt));
    cb_append(o->text, sizeof o->text, "At depth %ld sm takes %.1f ns per switch, asm %.1f ns (",
              d[0], first.a, first.b);
    test_text(o->text, sizeof o->text, &first);
    cb_append(o->text, sizeof o->text, "). Depth from which sm is significantly slower than");
    int crossed = 0, all_faster_at_end = 1;
    for (size_t r = 0; r < sizeof rivals / sizeof rivals[0]; r++) {
        long cross = -1;
        int seen = 0;
        test last = {.dir = -2};
        for (size_t i = 0; i < n; i++) {
            snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[i]);
            json_t *s = find(c, PP, "sm", "plain", mt),
                   *x = find(c, PP, rivals[r].impl, rivals[r].variant, mt);
            if (!s || !x)
                continue;
            seen = 1;
            last = compare(c, s, x);
            if (last.dir == 1 && cross < 0)
                cross = d[i];
        }
        if (!seen)
            cb_append(o->text, sizeof o->text, "%s %s: not in the results", r ? ";" : "",
                      rivals[r].label);
        else if (cross >= 0)
            cb_append(o->text, sizeof o->text, "%s %s: %ld", r ? ";" : "", rivals[r].label, cross);
        else
            cb_append(o->text, sizeof o->text, "%s %s: none up to %ld", r ? ";" : "",
                      rivals[r].label, d[n - 1]);
        crossed |= cross >= 0;
        if (seen)
            all_faster_at_end &= last.dir == -1;
    }
    double ys[MAXPTS], ya[MAXPTS];
    for (size_t i = 0; i < n; i++) {
        snprintf(mt, sizeof mt, "%s depth=%ld", DISTINCT, d[i]);
        ys[i] = median(find(c, PP, "sm", "plain", mt));
        ya[i] = median(find(c, PP, "asm", "plain", mt));
    }
    cb_append(
        o->text, sizeof o->text,
        " (distinct sites). Per level of depth: sm %.1f ns (re-entering every frame), asm %.1f "
        "ns.",
        slope(d, ys, n), slope(d, ya, n));
    if (first.dir == -2)
        o->v = V_INCONCLUSIVE;
    else if (first.dir != -1)
        o->v = V_CONTRADICTED;
    else
        o->v = crossed ? V_SUPPORTED : all_faster_at_end ? V_CONTRADICTED : V_INCONCLUSIVE;
}

/* 6: closure frames pay a heap allocation per async call. */
static void c_closure(const ctx *c, claim *o)
{
    static const char *const im[] = {"closure", "sm"}, *const va[] = {"plain", "plain"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, va, 2, DISTINCT " alloc!=pool", "depth", d);
    if (n < 2 || d[n - 1] == 0) {
        not_measured(o, "closure and sm pingpong cells at two or more depths",
                     "corobench run --workload pingpong --impl closure,sm --param "
                     "depth=0,4,16 --param alloc=malloc,pool");
        return;
    }
    double yc[MAXPTS], ys[MAXPTS];
    char mt[96];
    for (size_t i = 0; i < n; i++) {
        snprintf(mt, sizeof mt, "%s alloc!=pool depth=%ld", DISTINCT, d[i]);
        yc[i] = median(find(c, PP, "closure", "plain", mt));
        ys[i] = median(find(c, PP, "sm", "plain", mt));
    }
    long D = d[n - 1];
    snprintf(mt, sizeof mt, "%s alloc!=pool depth=%ld", DISTINCT, D);
    json_t *cl = find(c, PP, "closure", "plain", mt), *sm = find(c, PP, "sm", "plain", mt);
    test t = compare(c, cl, sm);
    double ops = num(cl, "ops");
    double allocs = (num(cl, "memory.totals.heap_allocs") - num(sm, "memory.totals.heap_allocs")) /
                    ops / (double)D;
    cb_append(
        o->text, sizeof o->text,
        "pingpong, distinct sites, depth %ld..%ld: closure costs %.1f ns more per level than sm "
        "(%.1f vs %.1f ns per level); at depth %ld closure %.1f ns, sm %.1f ns (",
        d[0], D, slope(d, yc, n) - slope(d, ys, n), slope(d, yc, n), slope(d, ys, n), D, t.a, t.b);
    test_text(o->text, sizeof o->text, &t);
    cb_append(o->text, sizeof o->text,
              "); closure makes %.2f more heap allocations per switch and level.", allocs);
    snprintf(mt, sizeof mt, "%s alloc=pool depth=%ld", DISTINCT, D);
    json_t *pool = find(c, PP, "closure", "plain", mt);
    if (pool) {
        test tp = compare(c, cl, pool);
        cb_append(
            o->text, sizeof o->text,
            " With alloc=pool (completed frames reused): %.1f ns at depth %ld, %.0f%% of the gap "
            "to sm closed (malloc/pool ",
            tp.b, D, 100 * (tp.a - tp.b) / (t.a - t.b));
        test_text(o->text, sizeof o->text, &tp);
        cb_append(o->text, sizeof o->text, ").");
    } else {
        cb_append(o->text, sizeof o->text, " No alloc=pool cells (closure --param alloc=pool).");
    }
    o->v = t.dir == -2 || t.dir == 0     ? V_INCONCLUSIVE
           : t.dir == 1 && allocs >= 0.9 ? V_SUPPORTED
                                         : V_CONTRADICTED;
}

/* Bytes per level at the deepest point of recursive, least squares over the heights. */
static double per_level(const ctx *c, const char *impl, const char *field, const long *h, size_t n)
{
    double y[MAXPTS];
    char mt[64];
    for (size_t i = 0; i < n; i++) {
        snprintf(mt, sizeof mt, "height=%ld", h[i]);
        y[i] = num(find(c, "recursive", impl, "plain", mt), field);
    }
    return slope(h, y, n);
}

/* 7: a recursive async function keeps its stack anyway, in heap frames. */
static void c_recursive(const ctx *c, claim *o)
{
    static const char *const im[] = {"closure", "asm"}, *const va[] = {"plain", "plain"};
    long h[MAXPTS];
    size_t n = common(c, "recursive", im, va, 2, "", "height", h);
    if (n < 2) {
        not_measured(o, "closure and asm recursive cells at two or more heights",
                     "corobench run --workload recursive --param height=8,12,16,20");
        return;
    }
    double cl = per_level(c, "closure", "memory.heap_bytes_per_coro", h, n);
    double sf = per_level(c, "asm", "memory.stack_used_bytes_per_coro", h, n);
    double sm = per_level(c, "sm", "memory.heap_bytes_per_coro", h, n);
    char mt[64];
    snprintf(mt, sizeof mt, "height=%ld", h[n - 1]);
    cb_append(o->text, sizeof o->text,
              "recursive, height %ld..%ld, at the deepest point: closure holds %.0f heap bytes per "
              "level (%.0f bytes at height %ld), asm %.0f stack bytes per level (%.0f touched)",
              h[0], h[n - 1], cl,
              num(find(c, "recursive", "closure", "plain", mt), "memory.heap_bytes_per_coro"),
              h[n - 1], sf,
              num(find(c, "recursive", "asm", "plain", mt), "memory.touched_bytes_per_coro"));
    if (isfinite(sm))
        cb_append(o->text, sizeof o->text, ", sm %.0f heap bytes per level", sm);
    cb_append(o->text, sizeof o->text, ".");
    o->v = cl >= 8 ? V_SUPPORTED : V_CONTRADICTED;
}

/* 8: stackful coroutines set aside worst-case stacks. */
static void c_memory(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm", "closure"}, *const va[] = {"plain", "plain"};
    long nn[MAXPTS];
    size_t n = common(c, "spawn", im, va, 2, "depth=0 layout!=offset", "n", nn);
    if (!n) {
        not_measured(o, "asm and closure spawn cells at depth 0",
                     "corobench run --workload spawn --param n=1000,10000,100000");
        return;
    }
    char mt[64];
    snprintf(mt, sizeof mt, "depth=0 layout!=offset n=%ld", nn[n - 1]);
    json_t *a = find(c, "spawn", "asm", "plain", mt),
           *cl = find(c, "spawn", "closure", "plain", mt),
           *sm = find(c, "spawn", "sm", "plain", mt);
    double res = num(a, "memory.reserved_bytes_per_coro"),
           tou = num(a, "memory.touched_bytes_per_coro"),
           used = num(a, "memory.stack_used_bytes_per_coro"),
           ah = num(a, "memory.heap_bytes_per_coro"), ch = num(cl, "memory.heap_bytes_per_coro");
    cb_append(o->text, sizeof o->text,
              "spawn, n = %ld, depth 0, bytes per coroutine: asm reserves %.0f, touches %.0f (uses "
              "%.0f of it) and allocates %.0f; RSS %.0f; closure allocates %.0f (RSS %.0f)",
              nn[n - 1], res, tou, used, ah, num(a, "memory.rss_bytes_per_coro"), ch,
              num(cl, "memory.rss_bytes_per_coro"));
    if (sm)
        cb_append(o->text, sizeof o->text, ", sm %.0f", num(sm, "memory.heap_bytes_per_coro"));
    double ka = num(a, "memory.kernel_bytes_per_coro"),
           kc = num(cl, "memory.kernel_bytes_per_coro");
    if (isfinite(ka))
        cb_append(o->text, sizeof o->text, "; kernel bytes: asm %.0f, closure %.0f", ka, kc);
    else
        cb_append(o->text, sizeof o->text, "; kernel bytes not measured");
    cb_append(o->text, sizeof o->text, ". asm's real footprint is %.0fx closure's.",
              (tou + ah) / ch);
    o->v = res >= 4 * tou && tou + ah >= 2 * ch ? V_SUPPORTED : V_CONTRADICTED;
}

/* 9: for I/O-bound work the switch cost disappears in the system calls. */
static void c_io(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm", "sm"}, *const va[] = {"plain", "plain"};
    long cn[MAXPTS];
    size_t n = common(c, "io", im, va, 2, "transport=unix", "conns", cn);
    char mt[64];
    snprintf(mt, sizeof mt, "%s depth=0", DISTINCT);
    json_t *sw = find(c, PP, "asm", "plain", mt), *swu = find(c, PP, "ucontext", "plain", mt);
    if (!n || !sw) {
        not_measured(o, "asm and sm io cells and an asm pingpong cell at depth 0",
                     "corobench run --workload io,pingpong --impl asm,sm --param "
                     "conns=1,16,256 --param depth=0");
        return;
    }
    snprintf(mt, sizeof mt, "transport=unix conns=%ld", cn[n - 1]);
    json_t *ia = find(c, "io", "asm", "plain", mt), *is = find(c, "io", "sm", "plain", mt),
           *iu = find(c, "io", "ucontext", "plain", mt);
    double per_msg = num(ia, "suspensions") / num(ia, "ops");
    double share = per_msg * median(sw) / median(ia);
    test t = compare(c, ia, is);
    cb_append(
        o->text, sizeof o->text,
        "io over %ld unix socket pairs: asm %.0f ns per message with %.2f switches per message; "
        "a switch costs %.1f ns (pingpong, depth 0), so switching is %.1f%% of a message. asm vs "
        "sm on io: ",
        cn[n - 1], median(ia), per_msg, median(sw), 100 * share);
    test_text(o->text, sizeof o->text, &t);
    if (iu && swu)
        cb_append(o->text, sizeof o->text,
                  ". ucontext's switch (%.0f ns) is %.0f%% of its io message (%.0f ns)",
                  median(swu), 100 * per_msg * median(swu) / median(iu), median(iu));
    cb_append(o->text, sizeof o->text, ".");
    /* The switch's share decides; when it is small yet the implementations still differ on io,
     * something other than the switch (the stacks' memory, the order of the work) does, and
     * the data cannot say the switch cost is all that disappeared. */
    if (share >= 0.10)
        o->v = V_CONTRADICTED;
    else if (t.dir == 1 || t.dir == -1) {
        o->v = V_INCONCLUSIVE;
        cb_append(
            o->text, sizeof o->text,
            " The switch is a small share, yet asm and sm differ on io by more than it explains.");
    } else
        o->v = V_SUPPORTED;
}

/* 10: neither model wins everywhere: per workload and point, the fastest of each family. */
static void c_crossover_table(const ctx *c, claim *o)
{
    json_t *points = json_object(), *cell;
    size_t i;
    /* point key -> [best stackful cell, best stackless cell] */
    json_array_foreach(c->cells, i, cell)
    {
        const char *fam = cb_str(cell, "family");
        if (strcmp(cb_str(cell, "status"), "ok") || strcmp(cb_str(cell, "variant"), "plain") ||
            !fam || (strcmp(fam, "stackful") && strcmp(fam, "stackless")))
            continue;
        char params[512], key[640];
        cb_cell_params_text(cell, 0, params, sizeof params);
        snprintf(key, sizeof key, "%s | %s", cb_str(cell, "workload"), params);
        json_t *pair = json_object_get(points, key);
        if (!pair) {
            pair = json_pack("[n, n]");
            json_object_set_new(points, key, pair);
        }
        size_t k = strcmp(fam, "stackful") ? 1 : 0;
        json_t *best = json_array_get(pair, k);
        if (json_is_null(best) || median(cell) < median(best))
            json_array_set(pair, k, cell);
    }
    size_t wins[2] = {0, 0}, ties = 0, undecided = 0;
    const char *key;
    json_t *pair;
    cb_append(o->table, sizeof o->table,
              "| workload | point | fastest stackful | fastest stackless | stackful / stackless | "
              "winner |\n|---|---|---|---|---:|---|\n");
    json_object_foreach(points, key, pair)
    {
        json_t *sf = json_array_get(pair, 0), *sl = json_array_get(pair, 1);
        if (json_is_null(sf) || json_is_null(sl))
            continue;
        test t = compare(c, sf, sl);
        const char *w = t.dir == 1    ? "stackless"
                        : t.dir == -1 ? "stackful"
                        : t.dir == 0  ? "within noise"
                                      : "too few samples";
        wins[0] += t.dir == -1;
        wins[1] += t.dir == 1;
        ties += t.dir == 0;
        undecided += t.dir == -2;
        char tt[96] = "";
        test_text(tt, sizeof tt, &t);
        cb_append(o->table, sizeof o->table, "| %s | %s %.1f ns | %s %.1f ns | %s | %s |\n", key,
                  cb_str(sf, "impl"), t.a, cb_str(sl, "impl"), t.b, tt, w);
    }
    json_decref(points);
    size_t total = wins[0] + wins[1] + ties + undecided;
    if (!total) {
        o->table[0] = '\0';
        {
            not_measured(o, "points with both a stackful and a stackless cell",
                         "corobench run --workload all");
            return;
        }
    }
    cb_append(
        o->text, sizeof o->text,
        "Over %zu workload points (plain builds, the fastest implementation of each family): "
        "stackful wins %zu, stackless wins %zu, %zu within the noise, %zu with too few samples "
        "(table below).",
        total, wins[0], wins[1], ties, undecided);
    o->v = wins[0] && wins[1]     ? V_SUPPORTED
           : (wins[0] || wins[1]) ? V_CONTRADICTED
                                  : V_INCONCLUSIVE;
}

/* 11: corobench's runtimes among the peers (other libraries and languages). The claim is about
 * corobench's runtimes as a set, so each family's fastest own runtime in these results (asm or
 * asmjmp for stackful; sm or closure for stackless) meets that family's fastest peer; the text
 * names the one chosen and every own figure it was chosen from. One point for all: pingpong
 * depth 0, distinct sites, the chain of work, and the asm switches saving the FPU control words
 * as fcontext does (fpu=1; fpu=0 would compare less work per switch). */
#define PEER_POINT DISTINCT " depth=0 work!=none fpu!=0"

static int own_impl(const char *impl)
{
    static const char *const own[] = {"asm", "asmjmp", "ucontext", "sm", "closure", "direct"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (!strcmp(own[i], impl))
            return 1;
    return 0;
}

static void c_peers(const ctx *c, claim *o)
{
    static const char *const fam[] = {"stackful", "stackless"};
    json_t *cell, *best[2][2] = {{NULL, NULL}, {NULL, NULL}}; /* [own?][stackless?] */
    size_t i, n[2] = {0, 0};
    char list[2][2048] = {"", ""};
    json_array_foreach(c->cells, i, cell)
    {
        const char *impl = cb_str(cell, "impl"), *f = cb_str(cell, "family");
        int k = f && !strcmp(f, fam[1]);
        if (!f || (strcmp(f, fam[0]) && !k) || find(c, PP, impl, "plain", PEER_POINT) != cell)
            continue;
        int own = own_impl(impl);
        cb_append(list[own], sizeof list[own], "%s%s %.1f", n[own]++ ? ", " : "", impl,
                  median(cell));
        if (!own)
            cb_append(list[own], sizeof list[own], " (%s)", f);
        if (!best[own][k] || median(cell) < median(best[own][k]))
            best[own][k] = cell;
    }
    if (!n[0] || !n[1]) {
        not_measured(o,
                     n[0] ? "corobench's own runtimes on pingpong at depth 0"
                          : "peer implementations (fcontext, cxx20, copystack, thread, lua, go, "
                            "node) on pingpong at depth 0",
                     "corobench run --workload pingpong --impl all --param depth=0");
        return;
    }
    cb_append(o->text, sizeof o->text,
              "pingpong depth 0 (distinct sites, work=chain, asm switches with fpu=1), ns per "
              "switch: corobench's %s; peers: %s.",
              list[1], list[0]);
    int dirs[2] = {-3, -3};
    for (int k = 0; k < 2; k++) {
        json_t *ours = best[1][k], *peer = best[0][k];
        if (!ours || !peer)
            continue;
        test t = compare(c, ours, peer);
        dirs[k] = t.dir;
        cb_append(o->text, sizeof o->text, " Fastest %s: corobench's %s %.1f ns vs %s %.1f ns, ",
                  fam[k], cb_str(ours, "impl"), t.a, cb_str(peer, "impl"), t.b);
        test_text(o->text, sizeof o->text, &t);
        cb_append(o->text, sizeof o->text, ".");
    }
    if (dirs[0] == 1 || dirs[1] == 1)
        o->v = V_CONTRADICTED;
    else if (dirs[0] == -2 || dirs[1] == -2 || (dirs[0] == -3 && dirs[1] == -3))
        o->v = V_INCONCLUSIVE;
    else
        o->v = V_SUPPORTED;
}

typedef struct claim_def {
    const char *sentence;
    void (*eval)(const ctx *, claim *);
    const char *plots[3];
} claim_def;

static const claim_def claims[] = {
    {"After a stackful switch, returns mispredict and the cost grows with call depth when the two "
     "sides suspend at different call sites, not when they share the code (sites=same).",
     c_depth,
     {"pingpong-depth-distinct", "pingpong-depth-same", "pingpong-mispredict"}},
    {"Replacing every ret with a pop and an indirect jump (the jmpret build) removes most of that "
     "cost.",
     c_jmpret,
     {"pingpong-jmpret"}},
    {"A switch that leaves through an indirect jump (asmjmp) saves one misprediction per switch "
     "over one that returns (asm).",
     c_asmjmp,
     {"pingpong-mispredict"}},
    {"ucontext is far slower (10x or more) than an asm switch: it makes a system call per switch "
     "for the signal mask.",
     c_ucontext,
     {"pingpong-depth-distinct"}},
    {"Stackless state machines resume faster at shallow depth but pay re-entry through every "
     "frame as depth grows: there is a crossover depth against stackful switches.",
     c_crossover_sm,
     {"pingpong-depth-distinct", "pingpong-jmpret"}},
    {"Closure frames pay a heap allocation per async call.",
     c_closure,
     {"pingpong-depth-distinct"}},
    {"A recursive async function keeps its stack anyway, in heap frames.",
     c_recursive,
     {"recursive"}},
    {"Stackful coroutines waste memory on worst-case stacks.", c_memory, {"spawn-memory"}},
    {"For I/O-bound work the switch cost disappears in the system calls (under 10% of a "
     "message).",
     c_io,
     {"io"}},
    {"Neither model wins everywhere.",
     c_crossover_table,
     {"pingpong-depth-distinct", "recursive", "io"}},
    {"corobench's own runtimes are as fast as the fastest peers (other libraries and languages).",
     c_peers,
     {"pingpong-depth-distinct"}},
};

/* The plot's link (relative to the report) or why it is missing. */
static void plot_ref(FILE *out, json_t *plots, const char *name, const char *rel)
{
    json_t *p;
    size_t i;
    json_array_foreach(plots, i, p)
    {
        if (strcmp(cb_str(p, "name"), name))
            continue;
        const char *png = cb_str(p, "png");
        if (png) {
            const char *base = strrchr(png, '/');
            fprintf(out, "[%s](%s%s%s)", name, rel ? rel : "", rel ? "/" : "",
                    base ? base + 1 : png);
        } else {
            fprintf(out, "%s (not drawn: %s)", name, cb_str(p, "skipped"));
        }
        return;
    }
    fprintf(out, "%s (plots not drawn: run `corobench report` with -o or --plots)", name);
}

void cb_claims_section(FILE *out, json_t *doc, json_t *plots, const char *plots_rel)
{
    ctx c = {.cells = json_object_get(doc, "cells"),
             .run = json_object_get(doc, "run"),
             .rsb = json_object_get(json_object_get(doc, "machine"), "rsb"),
             .threshold = 5,
             .alpha = 0.05};
    size_t nc = sizeof claims / sizeof claims[0];
    claim *res = cb_xcalloc(nc, sizeof *res);
    for (size_t i = 0; i < nc; i++)
        claims[i].eval(&c, &res[i]);
    fprintf(out,
            "\n## Claims\n\nEach verdict is computed from the cells of these results. A time "
            "difference counts when compare's test finds it (two-sided Mann-Whitney U on the "
            "repetition samples, p < %.2g, and more than %.0f%% apart); otherwise it is "
            "*inconclusive*, as with fewer than %d samples a side. Ratios compare plain builds "
            "with plain builds.\n\n| # | claim | verdict |\n|---|---|---|\n",
            c.alpha, c.threshold, MIN_SAMPLES);
    for (size_t i = 0; i < nc; i++)
        fprintf(out, "| %zu | %s | **%s** |\n", i + 1, claims[i].sentence, verdict_name[res[i].v]);
    for (size_t i = 0; i < nc; i++) {
        fprintf(out, "\n### %zu. %s\n\n**%s.** %s", i + 1, claims[i].sentence,
                verdict_name[res[i].v], res[i].text);
        if (res[i].v == V_NOT_MEASURED)
            fprintf(out, " To measure it: `%s`.", res[i].command);
        fprintf(out, "\nPlots: ");
        for (size_t k = 0; k < 3 && claims[i].plots[k]; k++) {
            fprintf(out, "%s", k ? ", " : "");
            plot_ref(out, plots, claims[i].plots[k], plots_rel);
        }
        fprintf(out, ".\n");
        if (res[i].table[0])
            fprintf(out, "\n%s", res[i].table);
    }
    free(res);
}

size_t cb_claims_count(void) { return sizeof claims / sizeof claims[0]; }
