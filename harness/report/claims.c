/* The Caveats and Claims sections of `corobench report`: the claims of the stackful-vs-stackless
 * debate, each with one sentence, the numbers and intervals it rests on, its plots and a verdict
 * computed from the results by the rule docs/report.md states with its margins: supported,
 * contradicted, inconclusive (an interval the rule needs straddles its margin, or has too few
 * samples) or not measured (with the command that would measure it). Nothing here is a figure:
 * every number comes from the cells. Timing comparisons are plain build against plain build;
 * the jmpret build appears only next to its plain twin (claim 2). Each claim is one entry of the
 * claims table at the end, with its fixtures in tests/claims/<id>/. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "harness/common/alloc.h"
#include "harness/measure/rsbfit.h"
#include "harness/results/cell.h"
#include "harness/results/estimate.h"
#include "harness/results/fields.h"
#include "harness/results/load.h"
#include "signif.h"

enum { MIN_SAMPLES = 5, MAXPTS = 64, MAXSAMPLES = 1024 };

/* The margins of the rules (docs/report.md). A time difference counts when the ratio's 95%
 * interval lies beyond 1 +- DIFF (compare's threshold); "as fast as" when it lies below
 * 1 + EQUIV. */
#define DIFF 0.05
#define EQUIV 0.10
#define ALPHA 0.05

static const char *const verdict_names[] = {"supported", "contradicted", "inconclusive",
                                            "not measured"};

const char *cb_verdict_name(cb_verdict v) { return v < CB_VERDICTS ? verdict_names[v] : "?"; }

typedef struct ctx {
    json_t *cells; /* each cell's first measurement */
    json_t *all;   /* those and the cells later files measured again, for pairs within a file */
    json_t *rsb;   /* machine.rsb, this CPU's calibrated model, if any */
} ctx;

typedef struct claim {
    cb_verdict v;
    char text[6144];   /* the numbers */
    char command[512]; /* not measured: what would measure it */
    char table[32768]; /* optional Markdown table under the claim */
} claim;

static double num(json_t *c, const char *path)
{
    double v = NAN;
    if (c)
        cb_field_number(c, path, &v);
    return v;
}

static double median(json_t *c) { return num(c, "ns_per_op.median"); }

/* The file (from 0) of a merged document a cell came from (claims.h). */
static long file_of(json_t *cell)
{
    json_t *f = json_object_get(cell, CB_CLAIMS_FILE_KEY);
    return json_is_integer(f) ? (long)json_integer_value(f) : 0;
}

/* ---- Intervals --------------------------------------------------------------------------
 * The only place that turns a cell's samples into a 95% interval: estimate.h's, the estimate
 * (median of the invocations' medians) and the hierarchical bootstrap over invocations, then
 * repetitions; one invocation gives no interval, and every rule that needs one is then
 * inconclusive with the reason. */
typedef struct iv {
    double est, lo, hi;
    int ok;          /* the interval is there */
    const char *why; /* why not */
} iv;

/* The repetition samples of every invocation, pooled (for the Mann-Whitney p of claim 10). */
static size_t samples(json_t *c, double *x)
{
    json_t *invs = json_object_get(c, "invocations"), *inv, *v;
    size_t i, k, n = 0;
    if (!json_is_array(invs)) {
        json_array_foreach(json_object_get(c, "samples_ns_per_op"), i, v) if (
            json_is_number(v) && n < MAXSAMPLES) x[n++] = json_number_value(v);
        return n;
    }
    json_array_foreach(invs, k, inv)
    {
        json_array_foreach(json_object_get(inv, "samples_ns_per_op"), i, v) if (
            json_is_number(v) && n < MAXSAMPLES) x[n++] = json_number_value(v);
    }
    return n;
}

static iv to_iv(const cb_estimate *e, double est)
{
    iv r = {.est = isfinite(e->est) ? e->est : est, .lo = NAN, .hi = NAN, .ok = e->ok,
            .why = e->why ? e->why : "no interval"};
    if (e->ok)
        r.lo = e->lo, r.hi = e->hi;
    return r;
}

static iv cell_iv(json_t *cell)
{
    iv r = {.est = median(cell), .lo = NAN, .hi = NAN, .why = "no samples"};
    cb_estimate e;
    if (!cell || cb_cell_estimate(cell, &e))
        return r;
    return to_iv(&e, r.est);
}

static iv ratio_iv(json_t *a, json_t *b)
{
    iv r = {.est = median(a) / median(b), .lo = NAN, .hi = NAN, .why = "no samples"};
    cb_estimate e;
    if (!a || !b || cb_cell_ratio(a, b, &e))
        return r;
    return to_iv(&e, r.est);
}
/* ---- end of the intervals ---- */

/* Where a ratio's interval lies against 1 +- margin. */
enum { D_FEW = -2, D_FASTER = -1, D_SAME = 0, D_SLOWER = 1, D_OPEN = 2 };

static int decide(iv r, double margin)
{
    if (!r.ok)
        return D_FEW;
    if (r.lo > 1 + margin)
        return D_SLOWER;
    if (r.hi < 1 / (1 + margin))
        return D_FASTER;
    if (r.lo >= 1 / (1 + margin) && r.hi <= 1 + margin)
        return D_SAME;
    return D_OPEN;
}

/* "1.23x [1.10, 1.40]" (and the files when the two cells come from different ones). */
static void ratio_text(char *buf, size_t len, iv r, json_t *a, json_t *b)
{
    if (r.ok)
        cb_append(buf, len, "%.2fx [%.2f, %.2f]", r.est, r.lo, r.hi);
    else
        cb_append(buf, len, "%.2fx, no interval: %s", r.est, r.why);
    if (a && b && file_of(a) != file_of(b))
        cb_append(buf, len, ", across files %ld and %ld", file_of(a) + 1, file_of(b) + 1);
}

/* A time in ns: one decimal, or three significant digits from 1e12 on (1e308 ns printed whole
 * was a 309-digit number: issue 25, row 21). buf holds 32 characters. */
static const char *ns_fig(double v, char *buf)
{
    snprintf(buf, 32, fabs(v) < 1e12 ? "%.1f" : "%.3g", v);
    return buf;
}

static void cell_text(char *buf, size_t len, iv r)
{
    char f[3][32];
    if (r.ok)
        cb_append(buf, len, "%s ns [%s, %s]", ns_fig(r.est, f[0]), ns_fig(r.lo, f[1]),
                  ns_fig(r.hi, f[2]));
    else
        cb_append(buf, len, "%s ns (no interval: %s)", ns_fig(r.est, f[0]), r.why);
}

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

static int matches(json_t *cell, const char *wl, const char *impl, const char *variant,
                   const char *match)
{
    if (strcmp(cb_str(cell, "status"), "ok") || strcmp(cb_str(cell, "workload"), wl) ||
        (impl && strcmp(cb_str(cell, "impl"), impl)) || strcmp(cb_str(cell, "variant"), variant))
        return 0;
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", match);
    int ok = 1;
    for (char *t = strtok_r(buf, " ", &save); t && ok; t = strtok_r(NULL, " ", &save))
        ok = param_is(cell, t);
    return ok;
}

/* The first ok cell of workload wl, implementation impl, build variant, whose parameters satisfy
 * every space-separated NAME=VALUE / NAME!=VALUE of match; in file (from 0), or any (-1), of
 * list. */
static json_t *find_in(json_t *list, const char *wl, const char *impl, const char *variant,
                       const char *match, long file)
{
    json_t *cell;
    size_t i;
    json_array_foreach(list, i, cell) if ((file < 0 || file_of(cell) == file) &&
                                          matches(cell, wl, impl, variant, match)) return cell;
    return NULL;
}

static json_t *find(const ctx *c, const char *wl, const char *impl, const char *variant,
                    const char *match)
{
    return find_in(c->cells, wl, impl, variant, match, -1);
}

/* The same printf-style: find(c, wl, impl, "plain", "sites=distinct depth=%ld", d). */
static json_t *findf(const ctx *c, const char *wl, const char *impl, const char *variant,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static json_t *findf(const ctx *c, const char *wl, const char *impl, const char *variant,
                     const char *fmt, ...)
{
    char m[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return find(c, wl, impl, variant, m);
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
        if (!json_is_integer(v) || n == MAXPTS || !matches(cell, wl, impl, variant, match))
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

/* The values present for every one of the k implementations (plain builds, or variants[j]):
 * intersects into a. */
static size_t common(const ctx *c, const char *wl, const char *const *impls,
                     const char *const *variants, size_t k, const char *match, const char *x,
                     long *a)
{
    size_t n = values(c, wl, impls[0], variants ? variants[0] : "plain", match, x, a);
    for (size_t j = 1; j < k; j++) {
        long b[MAXPTS];
        size_t nb = values(c, wl, impls[j], variants ? variants[j] : "plain", match, x, b), m = 0;
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

/* Least-squares slope of y on x (per unit of x); NAN without two distinct x or with a
 * missing y. */
static double slope(const long *x, const double *y, size_t n)
{
    double xd[MAXPTS];
    cb_rsbfit_line l;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            return NAN;
        xd[i] = (double)x[i];
    }
    /* Finite times can still overflow the fit's sums (1e308 ns): no slope then either. */
    return n >= 2 && cb_rsbfit_line_fit(xd, y, n, &l) && isfinite(l.cost) ? l.cost : NAN;
}

static void not_measured(claim *o, const char *what, const char *command)
{
    o->v = CB_NOT_MEASURED;
    cb_append(o->text, sizeof o->text, "The results have no %s.", what);
    snprintf(o->command, sizeof o->command, "%s", command);
}

/* Whether every one of the n cells has a time (a document of deterministic fields has none:
 * `export --format deterministic`); when not, the claim is not measured. */
static int untimed(claim *o, json_t *const *cells, size_t n, const char *command)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(median(cells[i]))) {
            not_measured(o, "timings (ns_per_op) in the cells this claim compares", command);
            return 1;
        }
    return 0;
}

#define PP "pingpong"
/* mode=asymmetric cells make two switches per op; the claims below are about symmetric ones. */
/* io's style=blocking cells run through the hooks; the io claim is about explicit ones. */
#define IO_EXPLICIT "transport=unix style!=blocking"
#define DISTINCT "sites=distinct mode!=asymmetric"
#define SAME "sites=same mode!=asymmetric"

/* 1: the misprediction cost of resuming at another call site grows with depth, not with the
 * same sites. Margins: growth and difference beyond DIFF on their intervals; "not with the same
 * sites" is the same-sites slope at most SAME_SHARE_MAX of the distinct one's, and contradicted
 * when the same sites' growth is decided and at least SAME_SHARE_CONTRA of it. */
#define SAME_SHARE_MAX 0.25
#define SAME_SHARE_CONTRA 0.5

static void model_text(const ctx *c, claim *o, json_t *a, const long *d, size_t m,
                       const double *md, const double *ms, double sd, double ss)
{
    long D = d[m - 1], knee = -1;
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
        cb_append(o->text, sizeof o->text,
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
        cb_append(o->text, sizeof o->text, " Per extra mispredicted return: %.1f ns in these cells",
                  (sd - ss) / dm);
    double cal = NAN;
    cb_field_number(c->rsb, "ns_per_mispredict", &cal);
    const char *twin = cb_str(c->rsb, "twin"); /* what it measured against */
    if (isfinite(cal))
        cb_append(o->text, sizeof o->text, "%s the calibration (%s%s%s%s) measured %.1f ns",
                  dm > 0.5 ? ";" : " Per mispredicted return:", cb_str(c->rsb, "source"),
                  twin ? ", against the " : "", twin ? twin : "", twin ? " twin" : "", cal);
    if (dm > 0.5 || isfinite(cal))
        cb_append(o->text, sizeof o->text, ".");
}

static void c_depth(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm"};
    long d[MAXPTS], ds[MAXPTS];
    size_t n = common(c, PP, im, NULL, 1, DISTINCT, "depth", d);
    size_t ns = common(c, PP, im, NULL, 1, SAME, "depth", ds);
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
    {
        json_t *e[2] = {findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[0]),
                        findf(c, PP, "asm", "plain", SAME " depth=%ld", d[m - 1])};
        json_t *e2[2] = {findf(c, PP, "asm", "plain", SAME " depth=%ld", d[0]),
                         findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[m - 1])};
        if (untimed(o, e, 2, "corobench run --workload pingpong --impl asm --param "
                             "depth=0,4,8,16,32 --param sites=distinct,same --rsb sim") ||
            untimed(o, e2, 2, "corobench run --workload pingpong --impl asm --param "
                              "depth=0,4,8,16,32 --param sites=distinct,same --rsb sim"))
            return;
    }
    for (size_t i = 0; i < m; i++) {
        json_t *a = findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[i]);
        json_t *b = findf(c, PP, "asm", "plain", SAME " depth=%ld", d[i]);
        td[i] = median(a);
        ts[i] = median(b);
        md[i] = num(a, "rsbsim.mispredicted_per_op");
        ms[i] = num(b, "rsbsim.mispredicted_per_op");
        rsb &= isfinite(md[i]) && isfinite(ms[i]);
    }
    long d0 = d[0], D = d[m - 1];
    json_t *a0 = findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d0),
           *b0 = findf(c, PP, "asm", "plain", SAME " depth=%ld", d0),
           *a = findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", D),
           *b = findf(c, PP, "asm", "plain", SAME " depth=%ld", D);
    iv gd = ratio_iv(a, a0), gs = ratio_iv(b, b0), x = ratio_iv(a, b);
    double sd = slope(d, td, m), ss = slope(d, ts, m), share = ss / sd;
    if (isfinite(sd) && isfinite(ss))
        cb_append(o->text, sizeof o->text,
                  "asm, depth %ld..%ld: each level adds %.1f ns per switch with distinct sites "
                  "and %.1f ns with the same sites",
                  d0, D, sd, ss);
    else
        cb_append(o->text, sizeof o->text,
                  "asm, depth %ld..%ld: the cost per level has no finite value (its times "
                  "overflow a double's arithmetic)",
                  d0, D);
    if (isfinite(sd) && isfinite(ss) && sd > 0)
        cb_append(o->text, sizeof o->text, " (%.0f%% of it)", 100 * share);
    if (rsb)
        cb_append(o->text, sizeof o->text,
                  "; simulated mispredicted returns per level: %.2f and %.2f", slope(d, md, m),
                  slope(d, ms, m));
    cb_append(o->text, sizeof o->text, ". Depth %ld over depth %ld: distinct ", D, d0);
    ratio_text(o->text, sizeof o->text, gd, a, a0);
    cb_append(o->text, sizeof o->text, ", same ");
    ratio_text(o->text, sizeof o->text, gs, b, b0);
    cb_append(o->text, sizeof o->text, ". At depth %ld distinct over same: ", D);
    ratio_text(o->text, sizeof o->text, x, a, b);
    cb_append(o->text, sizeof o->text, ".");
    if (rsb)
        model_text(c, o, a, d, m, md, ms, sd, ss);
    else
        cb_append(o->text, sizeof o->text, " No simulated counts (run with --rsb sim).");
    int grows = decide(gd, DIFF), same_grows = decide(gs, DIFF), apart = decide(x, DIFF);
    if (grows == D_SAME || grows == D_FASTER)
        o->v = CB_CONTRADICTED; /* the distinct-sites cost does not grow */
    else if (same_grows == D_SLOWER && sd > 0 && share >= SAME_SHARE_CONTRA)
        o->v = CB_CONTRADICTED; /* it grows with the same sites too */
    else if (grows == D_SLOWER && apart == D_SLOWER && sd > 0 && share <= SAME_SHARE_MAX)
        o->v = CB_SUPPORTED;
    else
        o->v = CB_INCONCLUSIVE;
}

/* 2: the jmpret build removes most of the distinct-sites cost: the share removed, (plain -
 * jmpret) / (distinct - same), has an interval (from the three cells' intervals, the widest
 * combination) above MOST; contradicted below it. */
#define MOST 0.5

static void c_jmpret(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm", "asm"}, *const va[] = {"plain", "jmpret"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, va, 2, DISTINCT, "depth", d);
    json_t *pd = NULL, *ps = NULL, *jd = NULL;
    long D = -1;
    for (size_t i = n; i-- > 0 && D < 0;) { /* the deepest depth with all three */
        pd = findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[i]);
        jd = findf(c, PP, "asm", "jmpret", DISTINCT " depth=%ld", d[i]);
        ps = findf(c, PP, "asm", "plain", SAME " depth=%ld", d[i]);
        if (pd && jd && ps)
            D = d[i];
    }
    if (D < 0) {
        not_measured(o, "asm pingpong cells in both builds at one depth with both sites",
                     "corobench run --workload pingpong --impl asm --param depth=0,16 "
                     "--param sites=distinct,same --variant plain,jmpret");
        return;
    }
    json_t *three[3] = {pd, ps, jd};
    if (untimed(o, three, 3, "corobench run --workload pingpong --impl asm --param depth=0,16 "
                             "--param sites=distinct,same --variant plain,jmpret"))
        return;
    iv cost = ratio_iv(pd, ps), P = cell_iv(pd), S = cell_iv(ps), J = cell_iv(jd);
    double removed = (P.est - J.est) / (P.est - S.est);
    double lo = (P.lo - J.hi) / (P.hi - S.lo), hi = P.lo > S.hi ? (P.hi - J.lo) / (P.lo - S.hi)
                                                                : INFINITY;
    cb_append(o->text, sizeof o->text, "asm at depth %ld: distinct sites ", D);
    cell_text(o->text, sizeof o->text, P);
    cb_append(o->text, sizeof o->text, ", same sites ");
    cell_text(o->text, sizeof o->text, S);
    cb_append(o->text, sizeof o->text, " (distinct over same ");
    ratio_text(o->text, sizeof o->text, cost, pd, ps);
    cb_append(o->text, sizeof o->text, "); the jmpret build runs the distinct case in ");
    cell_text(o->text, sizeof o->text, J);
    cb_append(o->text, sizeof o->text, ", removing %.0f%% of the difference", 100 * removed);
    int ok = P.ok && S.ok && J.ok;
    if (ok && isfinite(hi))
        cb_append(o->text, sizeof o->text, " [%.0f%%, %.0f%%]", 100 * lo, 100 * hi);
    else if (ok) /* the intervals of distinct and same overlap: no upper bound (was "inf%") */
        cb_append(o->text, sizeof o->text, " [%.0f%%, no upper bound]", 100 * lo);
    cb_append(o->text, sizeof o->text, " (most: %.0f%% or more).", 100 * MOST);
    if (decide(cost, DIFF) != D_SLOWER || !ok) {
        o->v = CB_INCONCLUSIVE;
        cb_append(o->text, sizeof o->text,
                  ok ? " No decided distinct-sites cost to remove at this depth."
                     : " A cell with one invocation has no interval for the share.");
    } else {
        o->v = lo >= MOST ? CB_SUPPORTED : hi < MOST ? CB_CONTRADICTED : CB_INCONCLUSIVE;
    }
}

/* A count per op as printed with two decimals: a difference that rounds to zero is 0, not -0. */
static double shown(double x) { return fabs(x) < 0.005 ? 0 : x; }

/* 3: asmjmp saves one misprediction per switch over asm (distinct sites): simulated, 0.9..1.1
 * at every depth, and asm slower in time at the smallest depth beyond DIFF. */
static void c_asmjmp(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm", "asmjmp"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, NULL, 2, DISTINCT, "depth", d);
    double lo = INFINITY, hi = -INFINITY, sum = 0, same_lo = INFINITY, same_hi = -INFINITY;
    size_t k = 0, ks = 0;
    for (size_t i = 0; i < n; i++) {
        double x = num(findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[i]),
                       "rsbsim.mispredicted_per_op") -
                   num(findf(c, PP, "asmjmp", "plain", DISTINCT " depth=%ld", d[i]),
                       "rsbsim.mispredicted_per_op");
        double y = num(findf(c, PP, "asmjmp", "plain", SAME " depth=%ld", d[i]),
                       "rsbsim.mispredicted_per_op") -
                   num(findf(c, PP, "asm", "plain", SAME " depth=%ld", d[i]),
                       "rsbsim.mispredicted_per_op");
        if (isfinite(x))
            lo = fmin(lo, shown(x)), hi = fmax(hi, shown(x)), sum += x, k++;
        if (isfinite(y))
            same_lo = fmin(same_lo, shown(y)), same_hi = fmax(same_hi, shown(y)), ks++;
    }
    if (!k) {
        not_measured(o, "asm and asmjmp pingpong cells with simulated return-stack counts",
                     "corobench run --workload pingpong --impl asm,asmjmp --param "
                     "depth=0,4,16 --param sites=distinct,same --rsb sim");
        return;
    }
    json_t *a = findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[0]),
           *j = findf(c, PP, "asmjmp", "plain", DISTINCT " depth=%ld", d[0]);
    iv t = ratio_iv(a, j);
    cb_append(o->text, sizeof o->text,
              "Simulated, distinct sites, depth %ld..%ld: asm mispredicts %.2f..%.2f more returns "
              "per switch than asmjmp",
              d[0], d[n - 1], lo, hi);
    if (ks)
        cb_append(o->text, sizeof o->text,
                  "; with the same sites it is the other way round: asmjmp mispredicts %.2f..%.2f "
                  "more than asm (the return after a jmp switch pops a stale entry)",
                  same_lo, same_hi);
    cb_append(o->text, sizeof o->text,
              ". Time at depth %ld (distinct): asm %.1f ns, asmjmp %.1f ns (asm over asmjmp ",
              d[0], median(a), median(j));
    ratio_text(o->text, sizeof o->text, t, a, j);
    cb_append(o->text, sizeof o->text, ").");
    int dir = decide(t, DIFF);
    if (lo >= 0.9 && hi <= 1.1 && dir == D_SLOWER)
        o->v = CB_SUPPORTED;
    else if (sum / (double)k < 0.5 || dir == D_FASTER)
        o->v = CB_CONTRADICTED;
    else
        o->v = CB_INCONCLUSIVE;
}

/* 4: ucontext is an order of magnitude slower than asm: the ratio's interval at or above
 * FACTOR supports, below it contradicts. The claim's cause (a system call per switch) is said
 * only as far as the results time one: they time none, so the report says it is untested. */
#define FACTOR 10.0

static void c_ucontext(const ctx *c, claim *o)
{
    static const char *const im[] = {"ucontext", "asm"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, NULL, 2, DISTINCT, "depth", d);
    if (!n) {
        not_measured(o, "ucontext and asm pingpong cells at a common depth",
                     "corobench run --workload pingpong --impl asm,ucontext --param "
                     "depth=0");
        return;
    }
    json_t *u = findf(c, PP, "ucontext", "plain", DISTINCT " depth=%ld", d[0]),
           *a = findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[0]);
    json_t *two[2] = {u, a};
    if (untimed(o, two, 2, "corobench run --workload pingpong --impl asm,ucontext --param depth=0"))
        return;
    iv r = ratio_iv(u, a);
    cb_append(o->text, sizeof o->text,
              "pingpong depth %ld: ucontext %.0f ns per switch, asm %.1f ns (ucontext over asm ",
              d[0], median(u), median(a));
    ratio_text(o->text, sizeof o->text, r, u, a);
    cb_append(o->text, sizeof o->text,
              "; %.0fx or more supports). The difference is %.0f ns per switch; these results "
              "time no system call, so they do not show that it is one (glibc's swapcontext "
              "calling rt_sigprocmask is the claim's explanation, not tested here).",
              FACTOR, median(u) - median(a));
    o->v = !r.ok              ? CB_INCONCLUSIVE
           : r.lo >= FACTOR  ? CB_SUPPORTED
           : r.hi < FACTOR   ? CB_CONTRADICTED
                             : CB_INCONCLUSIVE;
}

/* A language's own runtime (docs/external.md), not a C implementation. */
static int language(const char *impl)
{
    static const char *const langs[] = {"lua", "luajit", "go", "node", "csharp"};
    for (size_t i = 0; i < sizeof langs / sizeof langs[0]; i++)
        if (!strcmp(impl, langs[i]))
            return 1;
    return 0;
}

/* The fastest (lowest median) ok plain cell of family fam at a point of wl, any implementation
 * (c_only: a C one, no language's runtime); NULL when none. */
static json_t *fastest_of(const ctx *c, const char *wl, const char *fam, const char *match,
                          int c_only)
{
    json_t *cell, *best = NULL;
    size_t i;
    json_array_foreach(c->cells, i, cell)
    {
        const char *f = cb_str(cell, "family");
        if (f && !strcmp(f, fam) && matches(cell, wl, NULL, "plain", match) &&
            !(c_only && language(cb_str(cell, "impl"))) &&
            isfinite(median(cell)) && (!best || median(cell) < median(best)))
            best = cell;
    }
    return best;
}

/* 5: sm is faster at shallow depth and slower past a crossover depth, against the fastest
 * stackful plain build at each depth, per sites layout. The crossover is the smallest depth
 * from which sm is slower beyond DIFF at every deeper depth measured. A layout with none up to
 * the deepest depth contradicts when sm is still faster there and its per-level cost is no
 * larger than the stackful one's (no crossover coming), else is inconclusive. */
static cb_verdict crossover_layout(const ctx *c, claim *o, const char *sites)
{
    long d[MAXPTS], dd[MAXPTS];
    static const char *const im[] = {"sm"};
    char m[64];
    snprintf(m, sizeof m, "sites=%s", sites);
    size_t n = common(c, PP, im, NULL, 1, m, "depth", d), k = 0;
    json_t *sm[MAXPTS], *sf[MAXPTS];
    for (size_t i = 0; i < n; i++) {
        char mt[96];
        snprintf(mt, sizeof mt, "sites=%s depth=%ld", sites, d[i]);
        json_t *s = find(c, PP, "sm", "plain", mt), *f = fastest_of(c, PP, "stackful", mt, 0);
        if (s && f && isfinite(median(s)) && isfinite(median(f)))
            dd[k] = d[i], sm[k] = s, sf[k++] = f;
    }
    if (k < 2) {
        cb_append(o->text, sizeof o->text, " Sites %s: not measured at two depths.", sites);
        return CB_NOT_MEASURED;
    }
    iv r[MAXPTS];
    int dir[MAXPTS];
    double ys[MAXPTS], yf[MAXPTS];
    for (size_t i = 0; i < k; i++) {
        r[i] = ratio_iv(sm[i], sf[i]);
        dir[i] = decide(r[i], DIFF);
        ys[i] = median(sm[i]);
        yf[i] = median(sf[i]);
    }
    long cross = -1;
    for (size_t i = k; i-- > 0 && dir[i] == D_SLOWER;)
        cross = dd[i];
    double s_sm = slope(dd, ys, k), s_sf = slope(dd, yf, k);
    cb_append(o->text, sizeof o->text, " Sites %s, sm over the fastest stackful plain build:",
              sites);
    for (size_t i = 0; i < k; i++) {
        cb_append(o->text, sizeof o->text, "%s depth %ld %s ", i ? ";" : "", dd[i],
                  cb_str(sf[i], "impl"));
        ratio_text(o->text, sizeof o->text, r[i], sm[i], sf[i]);
    }
    cb_append(o->text, sizeof o->text, ". Per level: sm %.1f ns, stackful %.1f ns.", s_sm, s_sf);
    cb_verdict v;
    if (dir[0] == D_FEW || dir[0] == D_OPEN || dir[0] == D_SAME) {
        cb_append(o->text, sizeof o->text, " sm is not decided faster at depth %ld.", dd[0]);
        v = CB_INCONCLUSIVE;
    } else if (dir[0] == D_SLOWER) {
        cb_append(o->text, sizeof o->text, " sm is slower already at depth %ld.", dd[0]);
        v = CB_CONTRADICTED;
    } else if (cross >= 0) {
        cb_append(o->text, sizeof o->text, " Crossover depth: %ld.", cross);
        v = CB_SUPPORTED;
    } else if (dir[k - 1] == D_FASTER && !(s_sm > s_sf)) {
        cb_append(o->text, sizeof o->text,
                  " No crossover up to depth %ld, and none coming: sm is faster there and its "
                  "cost per level is not larger.",
                  dd[k - 1]);
        v = CB_CONTRADICTED;
    } else {
        cb_append(o->text, sizeof o->text, " No crossover up to depth %ld", dd[k - 1]);
        if (s_sm > s_sf && yf[k - 1] > ys[k - 1])
            cb_append(o->text, sizeof o->text, "; the per-level costs meet near depth %.0f",
                      (double)dd[k - 1] + (yf[k - 1] - ys[k - 1]) / (s_sm - s_sf));
        cb_append(o->text, sizeof o->text, ".");
        v = CB_INCONCLUSIVE;
    }
    return v;
}

static void c_crossover_sm(const ctx *c, claim *o)
{
    cb_verdict v[2] = {crossover_layout(c, o, "distinct"), crossover_layout(c, o, "same")};
    if (v[0] == CB_NOT_MEASURED && v[1] == CB_NOT_MEASURED) {
        o->text[0] = '\0';
        not_measured(o, "sm and stackful pingpong cells at two or more depths",
                     "corobench run --workload pingpong --impl asm,asmjmp,sm --param "
                     "depth=0,2,4,8,16,32 --param sites=distinct,same");
        return;
    }
    if (v[0] == CB_CONTRADICTED || v[1] == CB_CONTRADICTED)
        o->v = CB_CONTRADICTED;
    else if ((v[0] == CB_SUPPORTED || v[0] == CB_NOT_MEASURED) &&
             (v[1] == CB_SUPPORTED || v[1] == CB_NOT_MEASURED))
        o->v = CB_SUPPORTED;
    else
        o->v = CB_INCONCLUSIVE;
}

/* 6: closure frames pay a heap allocation per async call: closure's heap allocations per
 * switch over sm's, per level of depth (least squares), at least ALLOCS_MIN supports, below
 * ALLOCS_CONTRA contradicts. The time they cost is reported with its interval. */
#define ALLOCS_MIN 0.9
#define ALLOCS_CONTRA 0.5

static void c_closure(const ctx *c, claim *o)
{
    static const char *const im[] = {"closure", "sm"};
    long d[MAXPTS];
    size_t n = common(c, PP, im, NULL, 2, DISTINCT " alloc!=pool", "depth", d);
    double yc[MAXPTS], ys[MAXPTS], ya[MAXPTS];
    int counted = 1;
    for (size_t i = 0; i < n; i++) {
        json_t *cl = findf(c, PP, "closure", "plain", DISTINCT " alloc!=pool depth=%ld", d[i]),
               *sm = findf(c, PP, "sm", "plain", DISTINCT " depth=%ld", d[i]);
        yc[i] = median(cl);
        ys[i] = median(sm);
        ya[i] = (num(cl, "memory.totals.heap_allocs") - num(sm, "memory.totals.heap_allocs")) /
                num(cl, "ops");
        counted &= isfinite(ya[i]);
    }
    if (n < 2 || !counted) {
        not_measured(o,
                     n < 2 ? "closure and sm pingpong cells at two or more depths"
                           : "heap allocation counts in the closure and sm pingpong cells",
                     "corobench run --workload pingpong --impl closure,sm --param "
                     "depth=0,4,16 --param alloc=malloc,pool");
        return;
    }
    long D = d[n - 1];
    json_t *cl = findf(c, PP, "closure", "plain", DISTINCT " alloc!=pool depth=%ld", D),
           *sm = findf(c, PP, "sm", "plain", DISTINCT " depth=%ld", D);
    iv t = ratio_iv(cl, sm);
    double allocs = slope(d, ya, n);
    cb_append(o->text, sizeof o->text,
              "pingpong, distinct sites, depth %ld..%ld: closure makes %.2f more heap allocations "
              "per switch and level than sm (%.1f or more supports, under %.1f contradicts); it "
              "costs %.1f ns more per level (%.1f vs %.1f ns per level); at depth %ld closure "
              "over sm ",
              d[0], D, allocs, ALLOCS_MIN, ALLOCS_CONTRA, slope(d, yc, n) - slope(d, ys, n),
              slope(d, yc, n), slope(d, ys, n), D);
    ratio_text(o->text, sizeof o->text, t, cl, sm);
    cb_append(o->text, sizeof o->text, ".");
    json_t *pool = findf(c, PP, "closure", "plain", DISTINCT " alloc=pool depth=%ld", D);
    if (pool) {
        iv tp = ratio_iv(cl, pool);
        cb_append(o->text, sizeof o->text,
                  " With alloc=pool (completed frames reused): %.1f ns at depth %ld, %.0f%% of "
                  "the gap to sm closed (malloc over pool ",
                  median(pool), D, 100 * (median(cl) - median(pool)) / (median(cl) - median(sm)));
        ratio_text(o->text, sizeof o->text, tp, cl, pool);
        cb_append(o->text, sizeof o->text, ").");
    } else {
        cb_append(o->text, sizeof o->text, " No alloc=pool cells (closure --param alloc=pool).");
    }
    o->v = allocs >= ALLOCS_MIN      ? CB_SUPPORTED
           : allocs < ALLOCS_CONTRA ? CB_CONTRADICTED
                                     : CB_INCONCLUSIVE;
}

/* Bytes per level, least squares over the heights of recursive. */
static double per_level(const ctx *c, const char *impl, const char *field, const long *h, size_t n)
{
    double y[MAXPTS];
    for (size_t i = 0; i < n; i++)
        y[i] = num(findf(c, "recursive", impl, "plain", "height=%ld", h[i]), field);
    return slope(h, y, n);
}

/* 7: a recursive async function keeps its stack anyway, in heap frames: closure's heap bytes
 * per level of recursion against asm's stack bytes per level (what a stack keeps for it), at
 * least KEEP_MIN of it supports, under KEEP_CONTRA contradicts. */
#define KEEP_MIN 0.5
#define KEEP_CONTRA 0.25

static void c_recursive(const ctx *c, claim *o)
{
    static const char *const im[] = {"closure", "asm"};
    long h[MAXPTS];
    size_t n = common(c, "recursive", im, NULL, 2, "alloc!=pool", "height", h);
    double cl = n >= 2 ? per_level(c, "closure", "memory.heap_bytes_per_coro", h, n) : NAN;
    double sf = n >= 2 ? per_level(c, "asm", "memory.stack_used_bytes_per_coro", h, n) : NAN;
    if (!isfinite(cl) || !isfinite(sf) || !(sf > 0)) {
        not_measured(o,
                     n < 2 ? "closure and asm recursive cells at two or more heights"
                           : "closure heap bytes and asm stack bytes growing with the height "
                             "in the recursive cells",
                     "corobench run --workload recursive --impl asm,closure,sm --param "
                     "height=8,12,16,20");
        return;
    }
    double sm = per_level(c, "sm", "memory.heap_bytes_per_coro", h, n), q = cl / sf;
    cb_append(o->text, sizeof o->text,
              "recursive, height %ld..%ld: closure holds %.0f heap bytes per level, asm's stack "
              "%.0f bytes per level: %.2f of it (%.2f or more supports, under %.2f contradicts)",
              h[0], h[n - 1], cl, sf, q, KEEP_MIN, KEEP_CONTRA);
    if (isfinite(sm))
        cb_append(o->text, sizeof o->text, "; sm %.0f heap bytes per level", sm);
    cb_append(o->text, sizeof o->text, ".");
    o->v = q >= KEEP_MIN ? CB_SUPPORTED : q < KEEP_CONTRA ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

/* 8: stackful coroutines waste memory on worst-case stacks: what a stackful coroutine really
 * occupies (the stack pages it touched plus its heap) against what the stackless alternative
 * allocates (the largest of the stackless implementations measured), and against what its stack
 * needed (stack bytes used). Supported when it is WASTE times both or more; contradicted when
 * it is at most NO_WASTE times the stackless one's. Reserved (virtual) bytes are reported, not
 * counted: they cost address space, not memory. */
#define WASTE 2.0
#define NO_WASTE 1.25

static void c_memory(const ctx *c, claim *o)
{
    static const char *const im[] = {"asm"};
    long nn[MAXPTS];
    size_t n = common(c, "spawn", im, NULL, 1, "depth=0 layout!=offset", "n", nn);
    json_t *a = NULL, *less = NULL;
    long N = -1;
    for (size_t i = n; i-- > 0 && !less;) { /* the largest n with a stackless cell too */
        char mt[64];
        snprintf(mt, sizeof mt, "depth=0 layout!=offset n=%ld", nn[i]);
        a = find(c, "spawn", "asm", "plain", mt);
        json_t *cell;
        size_t k;
        json_array_foreach(c->cells, k, cell)
        {
            const char *f = cb_str(cell, "family");
            double hb = num(cell, "memory.heap_bytes_per_coro");
            if (f && !strcmp(f, "stackless") && matches(cell, "spawn", NULL, "plain", mt) &&
                isfinite(hb) && (!less || hb > num(less, "memory.heap_bytes_per_coro")))
                less = cell;
        }
        N = nn[i];
    }
    double res = num(a, "memory.reserved_bytes_per_coro"),
           tou = num(a, "memory.touched_bytes_per_coro"),
           used = num(a, "memory.stack_used_bytes_per_coro"),
           ah = num(a, "memory.heap_bytes_per_coro"), lh = num(less, "memory.heap_bytes_per_coro");
    if (!less || !isfinite(tou) || !isfinite(ah) || !isfinite(used) || !(lh > 0)) {
        not_measured(o, "asm and stackless spawn cells at depth 0 with their bytes per coroutine",
                     "corobench run --workload spawn --impl asm,sm,closure --param "
                     "n=1000,10000,100000");
        return;
    }
    double foot = tou + ah, vs_less = foot / lh, vs_need = foot / (used + ah);
    cb_append(o->text, sizeof o->text,
              "spawn, n = %ld, depth 0, bytes per coroutine: asm reserves %.0f, touches %.0f "
              "(its stack uses %.0f of it) and allocates %.0f; %s allocates %.0f. asm occupies "
              "%.1fx what %s does and %.1fx what its stack needed (%.0fx or more of both "
              "supports; %.2fx or less of the stackless one's contradicts)",
              N, res, tou, used, ah, cb_str(less, "impl"), lh, vs_less, cb_str(less, "impl"),
              vs_need, WASTE, NO_WASTE);
    double ka = num(a, "memory.kernel_bytes_per_coro");
    if (isfinite(ka))
        cb_append(o->text, sizeof o->text, "; kernel bytes: asm %.0f", ka);
    cb_append(o->text, sizeof o->text, ".");
    o->v = vs_less >= WASTE && vs_need >= WASTE ? CB_SUPPORTED
           : vs_less <= NO_WASTE                ? CB_CONTRADICTED
                                                : CB_INCONCLUSIVE;
}

/* 9: for I/O-bound work the switch cost disappears in the system calls: the switch's share of a
 * message (the switch's time at pingpong depth 0, from the io cell's own file where it has one,
 * times the io cell's switches per message, over its time per message), for the fastest
 * stackful and the fastest stackless implementation (by that switch time) and for ucontext, at
 * every io point. Supported when every share's interval lies under SHARE_MAX; contradicted when
 * one lies at or above it. How the implementations differ on io is a note, not a verdict. */
#define SHARE_MAX 0.10
#define SWITCH_POINT DISTINCT " depth=0 work!=none fpu!=0"

static json_t *fastest_switch(const ctx *c, const char *fam)
{
    json_t *cell, *best = NULL;
    size_t i;
    json_array_foreach(c->cells, i, cell)
    {
        const char *f = cb_str(cell, "family");
        if (f && !strcmp(f, fam) && matches(cell, PP, NULL, "plain", SWITCH_POINT) &&
            find(c, "io", cb_str(cell, "impl"), "plain", "transport=unix style!=blocking") &&
            (!best || median(cell) < median(best)))
            best = cell;
    }
    return best;
}

/* The rows of one implementation; 1 when it had any. Raises *lo_max and *hi_max. */
static int io_rows(const ctx *c, claim *o, const char *impl, double *lo_max, double *hi_max)
{
    json_t *cell, *sw0 = find(c, PP, impl, "plain", SWITCH_POINT);
    size_t i;
    int any = 0;
    json_array_foreach(c->all, i, cell)
    {
        if (!sw0 || !matches(cell, "io", impl, "plain", "transport=unix style!=blocking"))
            continue;
        json_t *sw = find_in(c->all, PP, impl, "plain", SWITCH_POINT, file_of(cell));
        int across = !sw;
        if (!sw)
            sw = sw0;
        double s = num(cell, "suspensions") / num(cell, "ops");
        if (!isfinite(s))
            continue;
        iv t = cell_iv(sw), m = cell_iv(cell);
        double share = s * t.est / m.est, lo = s * t.lo / m.hi, hi = s * t.hi / m.lo;
        if (!isfinite(share)) /* no timing: not a row */
            continue;
        int ok = t.ok && m.ok;
        /* Without an interval the estimate bounds nothing: it may not decide a contradiction. */
        if (ok)
            *lo_max = fmax(*lo_max, lo);
        *hi_max = ok ? fmax(*hi_max, hi) : INFINITY;
        char sh[64] = "";
        if (ok)
            snprintf(sh, sizeof sh, "%.1f%% [%.1f, %.1f]", 100 * share, 100 * lo, 100 * hi);
        else
            snprintf(sh, sizeof sh, "%.1f%% (no interval)", 100 * share);
        cb_append(o->table, sizeof o->table,
                  "| %s | %lld | %ld%s | %.2f | %.1f | %.0f | %s |\n", impl,
                  (long long)json_integer_value(json_object_get(json_object_get(cell, "params"),
                                                                "conns")),
                  file_of(cell) + 1, across ? " (switch from another file)" : "", s, t.est,
                  m.est, sh);
        any = 1;
    }
    return any;
}

static void c_io(const ctx *c, claim *o)
{
    json_t *sf = fastest_switch(c, "stackful"), *sl = fastest_switch(c, "stackless");
    if (!sf || !sl) {
        not_measured(o,
                     "io cells (unix transport) and pingpong cells at depth 0 of a stackful and "
                     "a stackless implementation",
                     "corobench run --workload io,pingpong --impl asm,ucontext,sm --param "
                     "conns=1,16,256 --param depth=0");
        return;
    }
    const char *impls[3] = {cb_str(sf, "impl"), cb_str(sl, "impl"), "ucontext"};
    size_t ni = strcmp(impls[0], "ucontext") ? 3 : 2;
    cb_append(o->table, sizeof o->table,
              "| implementation | conns | file | switches per message | ns per switch (depth 0) "
              "| ns per message | switch share |\n|---|---:|---|---:|---:|---:|---:|\n");
    double lo = 0, hi = 0;
    int had[3] = {0, 0, 0};
    for (size_t k = 0; k < ni; k++)
        had[k] = io_rows(c, o, impls[k], &lo, &hi);
    if (!had[0] || !had[1]) {
        o->table[0] = '\0';
        not_measured(o, "timed io cells with switch counts (suspensions, ops) of a stackful and "
                        "a stackless implementation",
                     "corobench run --workload io,pingpong --impl asm,ucontext,sm --param "
                     "conns=1,16,256 --param depth=0");
        return;
    }
    cb_append(o->text, sizeof o->text,
              "The switch's share of an io message (switches per message x ns per switch at "
              "pingpong depth 0, over ns per message) for the fastest stackful (%s) and "
              "stackless (%s) switch%s, at every io point (table below): the largest share's "
              "interval reaches from %.1f%% to ",
              impls[0], impls[1], ni == 3 && had[2] ? " and for ucontext" : "", 100 * lo);
    if (isfinite(hi))
        cb_append(o->text, sizeof o->text, "%.1f%%", 100 * hi);
    else
        cb_append(o->text, sizeof o->text, "an unknown bound (a cell with one invocation has no interval)");
    cb_append(o->text, sizeof o->text, " (under %.0f%% supports, %.0f%% or more contradicts).%s",
              100 * SHARE_MAX, 100 * SHARE_MAX,
              ni == 3 && !had[2] ? " ucontext has no io cells." : "");
    /* The note: do two implementations still differ on io, beyond the switch? */
    static const char *const im[] = {"asm", "sm"};
    long cn[MAXPTS];
    size_t n = common(c, "io", im, NULL, 2, "transport=unix style!=blocking", "conns", cn);
    if (n) {
        json_t *ia = findf(c, "io", "asm", "plain", IO_EXPLICIT " conns=%ld", cn[n - 1]),
               *is = findf(c, "io", "sm", "plain", IO_EXPLICIT " conns=%ld", cn[n - 1]);
        iv r = ratio_iv(ia, is);
        cb_append(o->text, sizeof o->text, " Note (not part of the verdict): asm over sm on io at "
                                           "%ld connections: ",
                  cn[n - 1]);
        ratio_text(o->text, sizeof o->text, r, ia, is);
        int dir = decide(r, DIFF);
        cb_append(o->text, sizeof o->text, "%s.",
                  dir == D_SLOWER || dir == D_FASTER
                      ? "; a difference the switch does not explain (stack memory, the order "
                        "of the work)"
                      : "");
    }
    o->v = lo >= SHARE_MAX ? CB_CONTRADICTED : hi < SHARE_MAX ? CB_SUPPORTED : CB_INCONCLUSIVE;
}

/* The point of a cell: "workload | params" without the implementation's own parameters. */
static void point_key(json_t *cell, char *buf, size_t len)
{
    char params[512];
    cb_cell_params_text(cell, 0, params, sizeof params);
    snprintf(buf, len, "%s | %s", cb_str(cell, "workload"), params);
}

static int family_index(json_t *cell)
{
    const char *f = cb_str(cell, "family");
    return !f ? -1 : !strcmp(f, "stackful") ? 0 : !strcmp(f, "stackless") ? 1 : -1;
}

static double mwu_p(json_t *a, json_t *b)
{
    static double xa[MAXSAMPLES], xb[MAXSAMPLES];
    size_t na = samples(a, xa), nb = samples(b, xb);
    return na < MIN_SAMPLES || nb < MIN_SAMPLES ? 1 : cb_mwu(xa, na, xb, nb).p;
}

/* One workload point of claim 10 (and of the report's summary): the fastest plain cell of each
 * family there (both from one file), their ratio with its interval, Mann-Whitney's p
 * Holm-corrected over all the points, and the winner: 0 stackful, 1 stackless, -1 undecided. */
typedef struct xpoint {
    const char *key; /* "workload | params" */
    json_t *sf, *sl;
    iv r;
    double p;
    int winner;
} xpoint;

/* The points with both families (*pts: free() it; its keys live in *points: json_decref it). */
static size_t crossover_points(const ctx *c, xpoint **pts, json_t **points_out)
{
    json_t *points = json_object(), *cell; /* key -> {file -> [sf, sl, count]} */
    size_t i;
    json_array_foreach(c->all, i, cell)
    {
        int k = family_index(cell);
        if (k < 0 || !cb_cell_ok(cell) || strcmp(cb_str(cell, "variant"), "plain") ||
            !isfinite(median(cell)))
            continue;
        char key[640], fk[32];
        point_key(cell, key, sizeof key);
        snprintf(fk, sizeof fk, "%ld", file_of(cell));
        json_t *files = json_object_get(points, key);
        if (!files)
            json_object_set_new(points, key, files = json_object());
        json_t *e = json_object_get(files, fk);
        if (!e)
            json_object_set_new(files, fk, e = json_pack("[n, n, i]", 0));
        json_t *best = json_array_get(e, (size_t)k);
        if (json_is_null(best) || median(cell) < median(best))
            json_array_set(e, (size_t)k, cell);
        json_array_set_new(e, 2, json_integer(json_integer_value(json_array_get(e, 2)) + 1));
    }
    size_t np = json_object_size(points), n = 0;
    xpoint *x = cb_xcalloc(np + 1, sizeof *x);
    const char *key;
    json_t *files;
    json_object_foreach(points, key, files)
    {
        const char *fk;
        json_t *e, *pick = NULL;
        json_object_foreach(files, fk, e)
        {
            if (json_is_null(json_array_get(e, 0)) || json_is_null(json_array_get(e, 1)))
                continue;
            if (!pick || json_integer_value(json_array_get(e, 2)) >
                             json_integer_value(json_array_get(pick, 2)))
                pick = e;
        }
        if (!pick)
            continue;
        x[n].sf = json_array_get(pick, 0);
        x[n].sl = json_array_get(pick, 1);
        x[n++].key = key;
    }
    double *p = cb_xcalloc(n + 1, sizeof *p), *adj = cb_xcalloc(n + 1, sizeof *adj);
    for (size_t k = 0; k < n; k++) {
        x[k].r = ratio_iv(x[k].sf, x[k].sl);
        p[k] = mwu_p(x[k].sf, x[k].sl);
    }
    if (n)
        cb_holm(p, adj, n);
    for (size_t k = 0; k < n; k++) {
        int dir = decide(x[k].r, DIFF);
        x[k].p = adj[k];
        x[k].winner = adj[k] < ALPHA && dir == D_FASTER   ? 0
                      : adj[k] < ALPHA && dir == D_SLOWER ? 1
                                                          : -1;
    }
    free(p);
    free(adj);
    *pts = x;
    *points_out = points;
    return n;
}

/* 10: neither model wins everywhere. At every workload point (of one file: the one with the
 * most implementations there), the fastest plain cell of each family; a family wins a point
 * when the ratio's interval lies beyond DIFF its way and Mann-Whitney's p on the repetitions,
 * Holm-corrected over all the points, is under ALPHA. Supported when each family wins
 * somewhere; contradicted when only one does. */
static void c_crossover_table(const ctx *c, claim *o)
{
    xpoint *x;
    json_t *points;
    size_t n = crossover_points(c, &x, &points);
    if (!n) {
        not_measured(o, "points with both a stackful and a stackless cell",
                     "corobench run --workload all");
        goto out;
    }
    size_t wins[2] = {0, 0}, open = 0;
    cb_append(o->table, sizeof o->table,
              "| workload | point | file | fastest stackful | fastest stackless | stackful / "
              "stackless [95%%] | p (Holm) | winner |\n|---|---|---|---|---|---:|---:|---|\n");
    for (size_t k = 0; k < n; k++) {
        int w = x[k].winner;
        if (w >= 0)
            wins[w]++;
        else
            open++;
        char rt[128] = "", f[2][32];
        ratio_text(rt, sizeof rt, x[k].r, NULL, NULL);
        cb_append(o->table, sizeof o->table,
                  "| %s | %ld | %s %s ns | %s %s ns | %s | %.2g | %s |\n", x[k].key,
                  file_of(x[k].sf) + 1, cb_str(x[k].sf, "impl"), ns_fig(median(x[k].sf), f[0]),
                  cb_str(x[k].sl, "impl"), ns_fig(median(x[k].sl), f[1]), rt, x[k].p,
                  w == 0 ? "stackful" : w == 1 ? "stackless" : "undecided");
    }
    cb_append(o->text, sizeof o->text,
              "Over %zu workload points (plain builds, the fastest implementation of each family, "
              "both from one file): stackful wins %zu, stackless wins %zu, %zu undecided (a win: "
              "the ratio's interval beyond %.0f%% and Holm-corrected p < %.2g; table below).",
              n, wins[0], wins[1], open, 100 * DIFF, ALPHA);
    o->v = wins[0] && wins[1]     ? CB_SUPPORTED
           : (wins[0] || wins[1]) ? CB_CONTRADICTED
                                  : CB_INCONCLUSIVE;
out:
    free(x);
    json_decref(points);
}

/* 11: corobench's runtimes are as fast as the fastest peers: at every point (workload and
 * parameters, the implementations' own parameters at their defaults) where a peer and one of
 * corobench's runtimes of its family ran in the same file, the fastest of corobench's there
 * over the peer. "As fast" is that ratio's interval below 1 + EQUIV (faster counts). Supported
 * when it holds for every pair; contradicted when a pair's interval lies above it. */
static int own_impl(const char *impl)
{
    static const char *const own[] = {"asm", "asmjmp", "inline", "ucontext", "sm", "closure"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (!strcmp(own[i], impl))
            return 1;
    return 0;
}

static int at_defaults(json_t *cell)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(cell, "params"), k, v) if (
        cb_impl_param_at_default(cell, k, v) == 0) return 0;
    return 1;
}

static void c_peers(const ctx *c, claim *o)
{
    json_t *groups = json_object(), *cell; /* "file\tpoint" -> [[own sf, own sl], [peers]] */
    size_t i;
    json_array_foreach(c->all, i, cell)
    {
        int k = family_index(cell);
        if (k < 0 || !cb_cell_ok(cell) || strcmp(cb_str(cell, "variant"), "plain") ||
            !at_defaults(cell) || !isfinite(median(cell)))
            continue;
        char key[700], pk[640];
        point_key(cell, pk, sizeof pk);
        snprintf(key, sizeof key, "%ld\t%s", file_of(cell), pk);
        json_t *g = json_object_get(groups, key);
        if (!g)
            json_object_set_new(groups, key, g = json_pack("[[n, n], []]"));
        if (own_impl(cb_str(cell, "impl"))) {
            json_t *own = json_array_get(g, 0), *best = json_array_get(own, (size_t)k);
            if (json_is_null(best) || median(cell) < median(best))
                json_array_set(own, (size_t)k, cell);
        } else {
            json_array_append(json_array_get(g, 1), cell);
        }
    }
    size_t pairs = 0, same = 0, slower = 0, open = 0, faster_rows = 0;
    const char *key;
    json_t *g;
    cb_append(o->table, sizeof o->table,
              "| workload | point | file | corobench's fastest | peer | corobench's / peer "
              "[95%%] | as fast? |\n|---|---|---|---|---|---:|---|\n");
    json_object_foreach(groups, key, g)
    {
        json_t *p;
        size_t k;
        json_array_foreach(json_array_get(g, 1), k, p)
        {
            json_t *own = json_array_get(json_array_get(g, 0), (size_t)family_index(p));
            if (json_is_null(own))
                continue;
            iv r = ratio_iv(own, p);
            int as_fast = r.ok && r.hi <= 1 + EQUIV, behind = r.ok && r.lo > 1 + EQUIV;
            pairs++;
            same += as_fast;
            slower += behind;
            open += !as_fast && !behind;
            if (!(r.est > 1))
                continue;
            faster_rows++;
            char rt[128] = "", f[2][32];
            ratio_text(rt, sizeof rt, r, own, p);
            cb_append(o->table, sizeof o->table, "| %s | %ld | %s %s ns | %s %s ns | %s | %s |\n",
                      strchr(key, '\t') + 1, file_of(p) + 1, cb_str(own, "impl"),
                      ns_fig(median(own), f[0]), cb_str(p, "impl"), ns_fig(median(p), f[1]), rt,
                      as_fast ? "yes (within the margin)" : behind ? "no" : "undecided");
        }
    }
    if (!pairs) {
        o->table[0] = '\0';
        not_measured(o,
                     "points where a peer (fcontext, copystack, thread, cxx20, cxx20-clang, lua, "
                     "luajit, go, node, csharp) and one of corobench's runtimes of its family ran "
                     "in the same file",
                     "corobench run --workload pingpong --impl all --param depth=0");
        json_decref(groups);
        return;
    }
    cb_append(o->text, sizeof o->text,
              "Over %zu pairs (a point, a peer, and the fastest of corobench's runtimes of the "
              "peer's family there: asm, asmjmp, inline, ucontext, sm, closure, all in one "
              "file): as fast (the ratio's interval under %.2f) at %zu, slower beyond that at "
              "%zu, undecided at %zu. Where a peer is faster by the estimate: %s.",
              pairs, 1 + EQUIV, same, slower, open, faster_rows ? "the table below" : "nowhere");
    if (!faster_rows)
        o->table[0] = '\0';
    o->v = slower ? CB_CONTRADICTED : same == pairs ? CB_SUPPORTED : CB_INCONCLUSIVE;
    json_decref(groups);
}

/* ---- The thread's four remaining claims (issue 21): hooks, asymmetric switching, awaits
 * that complete at once, depth-first scheduling. ---- */

/* The stackful implementations, corobench's asm first, then its other two asm switches (asmjmp
 * and inline, the switch inlined at the call site), then the peers: the first with ok plain
 * cells at both parameter sets a and b of workload wl sharing a value of x gives *impl and the
 * largest such value *at. */
static const char *const stackful_order[] = {"asm",      "asmjmp",    "inline", "fcontext",
                                             "ucontext", "copystack", "thread"};

static int pair_point(const ctx *c, const char *wl, const char *a, const char *b,
                      const char *x, const char **impl, long *at)
{
    for (size_t i = 0; i < sizeof stackful_order / sizeof stackful_order[0]; i++) {
        long va[MAXPTS], vb[MAXPTS];
        size_t na = values(c, wl, stackful_order[i], "plain", a, x, va);
        size_t nb = values(c, wl, stackful_order[i], "plain", b, x, vb);
        for (size_t k = na; k-- > 0;)
            for (size_t q = 0; q < nb; q++)
                if (va[k] == vb[q]) {
                    *impl = stackful_order[i];
                    *at = va[k];
                    return 1;
                }
    }
    return 0;
}

/* The same work: equal checksums and suspensions. */
static int same_work(json_t *a, json_t *b)
{
    const char *ca = cb_str(a, "checksum"), *cb = cb_str(b, "checksum");
    return ca && cb && !strcmp(ca, cb) && num(a, "suspensions") == num(b, "suspensions");
}

#define IO_BLOCKING "transport=unix style=blocking"
#define HOOKS_CMD                                                                              \
    "corobench run --workload io --impl asm --param style=explicit,blocking --param conns=16"

/* 12: hooks make blocking code asynchronous at a cost of X per call. At the most connections
 * with both styles (stackful_order's first): the blocking cell must do explicit's work with
 * suspensions (it went asynchronous; else contradicted), and blocking over explicit below
 * 1 + EQUIV supports (the hooks cost under 10% of a message), above it contradicts. X =
 * (blocking - explicit) ns per message / calls through the hooks per message, with the cells'
 * intervals combined. */
static void c_hooks(const ctx *c, claim *o)
{
    const char *impl;
    long n;
    if (!pair_point(c, "io", IO_BLOCKING, IO_EXPLICIT, "conns", &impl, &n)) {
        not_measured(o, "io cells of a stackful implementation in both styles", HOOKS_CMD);
        return;
    }
    json_t *b = findf(c, "io", impl, "plain", IO_BLOCKING " conns=%ld", n),
           *e = findf(c, "io", impl, "plain", IO_EXPLICIT " conns=%ld", n);
    json_t *two[2] = {b, e};
    if (untimed(o, two, 2, HOOKS_CMD))
        return;
    double calls = num(b, "hooked_calls_per_op");
    iv r = ratio_iv(b, e), ib = cell_iv(b), ie = cell_iv(e);
    cb_append(o->text, sizeof o->text,
              "io, %s, %ld connections: blocking read/write through the hooks %.0f ns per "
              "message, explicit %.0f ns (blocking over explicit ",
              impl, n, median(b), median(e));
    ratio_text(o->text, sizeof o->text, r, b, e);
    cb_append(o->text, sizeof o->text, "; under %.2f supports). ", 1 + EQUIV);
    if (isfinite(calls) && calls > 0) {
        cb_append(o->text, sizeof o->text,
                  "%.2f calls per message went through the hooks: %.1f ns per call", calls,
                  (median(b) - median(e)) / calls);
        if (ib.ok && ie.ok)
            cb_append(o->text, sizeof o->text, " [%.1f, %.1f]", (ib.lo - ie.hi) / calls,
                      (ib.hi - ie.lo) / calls);
        cb_append(o->text, sizeof o->text, ".");
    } else {
        cb_append(o->text, sizeof o->text, "The blocking cell counts no call through the hooks.");
    }
    int work = same_work(b, e) && num(b, "suspensions") > 0;
    cb_append(o->text, sizeof o->text,
              work ? " The same checksum and %.0f suspensions as explicit: the blocking code ran "
                     "asynchronously."
                   : " The blocking cell did not do explicit's work with suspensions (it made "
                     "%.0f).",
              num(b, "suspensions"));
    o->v = !work                ? CB_CONTRADICTED
           : !r.ok              ? CB_INCONCLUSIVE
           : r.hi < 1 + EQUIV   ? CB_SUPPORTED
           : r.lo > 1 + EQUIV   ? CB_CONTRADICTED
                                : CB_INCONCLUSIVE;
}

/* 13: asymmetric switching reduces return mispredictions. Simulated mispredicted returns per op
 * (one hand-over between the sides: the same work in both modes) of asm pingpong, distinct
 * sites, symmetric against asymmetric at every common depth: ASYM_GAIN fewer at every depth
 * supports; not fewer at some depth contradicts. Per switch (asymmetric makes two per op) and
 * the time per op are reported. The counts are the simulator's: no interval. */
#define ASYM_GAIN 0.5
#define ASYM "sites=distinct mode=asymmetric"
#define ASYM_CMD                                                                               \
    "corobench run --workload pingpong --impl asm --param depth=0,8,16,32 "                    \
    "--param mode=symmetric,asymmetric --rsb sim"

static void c_asymmetric(const ctx *c, claim *o)
{
    long ds[MAXPTS], da[MAXPTS], d[MAXPTS];
    size_t ns = values(c, PP, "asm", "plain", DISTINCT, "depth", ds);
    size_t na = values(c, PP, "asm", "plain", ASYM, "depth", da);
    size_t n = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < na; k++)
            if (ds[i] == da[k] &&
                isfinite(num(findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", ds[i]),
                             "rsbsim.mispredicted_per_op")) &&
                isfinite(num(findf(c, PP, "asm", "plain", ASYM " depth=%ld", ds[i]),
                             "rsbsim.mispredicted_per_op")))
                d[n++] = ds[i];
    if (!n) {
        not_measured(o, "asm pingpong cells in both modes with simulated return-stack counts",
                     ASYM_CMD);
        return;
    }
    int fewer = 0, not_fewer = 0;
    cb_append(o->table, sizeof o->table,
              "| depth | symmetric, per op (1 switch) | asymmetric, per op (2 switches) | "
              "asymmetric, per switch | asymmetric over symmetric, time per op |\n"
              "|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) {
        json_t *s = findf(c, PP, "asm", "plain", DISTINCT " depth=%ld", d[i]),
               *a = findf(c, PP, "asm", "plain", ASYM " depth=%ld", d[i]);
        double ms = num(s, "rsbsim.mispredicted_per_op"), ma = num(a, "rsbsim.mispredicted_per_op");
        fewer += ma <= ms - ASYM_GAIN;
        not_fewer += ma >= ms;
        char rt[128] = "";
        if (isfinite(median(a)) && isfinite(median(s)))
            ratio_text(rt, sizeof rt, ratio_iv(a, s), a, s);
        cb_append(o->table, sizeof o->table, "| %ld | %.2f | %.2f | %.2f | %s |\n", d[i], ms, ma,
                  ma / 2, rt[0] ? rt : "not timed");
    }
    cb_append(o->text, sizeof o->text,
              "asm pingpong, distinct sites, simulated (%s model): an asymmetric op (side to root, "
              "root to the other side: two switches) mispredicts at least %.1f fewer returns "
              "than a symmetric one (one switch) at %d of %zu depths, and not fewer at %d (%.1f "
              "fewer at every depth supports; not fewer at one contradicts). Per switch the "
              "asymmetric count is also halved by the second switch, which is not a saving: the "
              "verdict compares ops, the same work.",
              cb_str(c->rsb, "model") ? cb_str(c->rsb, "model") : "the run's", ASYM_GAIN, fewer,
              n, not_fewer, ASYM_GAIN);
    double npm = num(c->rsb, "ns_per_mispredict");
    if (isfinite(npm))
        cb_append(o->text, sizeof o->text,
                  " The calibration measured %.1f ns per misprediction on this CPU.", npm);
    o->v = (size_t)fewer == n ? CB_SUPPORTED : not_fewer ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

/* 14: awaits that complete at once cost stackless little. await with suspend_every=never (no
 * await suspends) at the deepest depth with both families: the fastest stackless C cell over
 * the fastest stackful C one (plain calls down a stack) below 1 + EQUIV supports; above it
 * contradicts. The languages' runtimes are not the comparators (their own async functions, in
 * another language), but every implementation at every K, with its heap allocations per call,
 * is in the table. */
#define AWAIT_CMD                                                                              \
    "corobench run --workload await --impl all --param suspend_every=1,10,100,never"

static void c_await(const ctx *c, claim *o)
{
    long d[MAXPTS];
    size_t n = values(c, "await", NULL, "plain", "suspend_every=never", "depth", d);
    json_t *sl = NULL, *sf = NULL;
    long D = 0;
    for (size_t i = n; i-- > 0 && !(sl && sf);) {
        char m[64];
        snprintf(m, sizeof m, "suspend_every=never depth=%ld", d[i]);
        sl = fastest_of(c, "await", "stackless", m, 1);
        sf = fastest_of(c, "await", "stackful", m, 1);
        D = d[i];
    }
    if (!sl || !sf) {
        not_measured(o, "timed await cells of a stackless and a stackful C implementation at "
                        "suspend_every=never",
                     AWAIT_CMD);
        return;
    }
    iv r = ratio_iv(sl, sf);
    cb_append(o->text, sizeof o->text,
              "await, depth %ld, no await suspending: the fastest stackless, %s, %.1f ns per "
              "call; the fastest stackful, %s (plain calls), %.1f ns (%s over %s ",
              D, cb_str(sl, "impl"), median(sl), cb_str(sf, "impl"), median(sf),
              cb_str(sl, "impl"), cb_str(sf, "impl"));
    ratio_text(o->text, sizeof o->text, r, sl, sf);
    cb_append(o->text, sizeof o->text, "; under %.2f supports).", 1 + EQUIV);
    static const char *const ks[] = {"1", "10", "100", "never"};
    cb_append(o->table, sizeof o->table,
              "| implementation | K=1 | K=10 | K=100 | never | heap allocations per call "
              "(never) |\n|---|---:|---:|---:|---:|---:|\n");
    json_t *cell;
    size_t i;
    json_array_foreach(c->cells, i, cell)
    {
        if (!matches(cell, "await", NULL, "plain", "suspend_every=never") ||
            num(cell, "params.depth") != (double)D)
            continue;
        const char *impl = cb_str(cell, "impl");
        cb_append(o->table, sizeof o->table, "| %s |", impl);
        for (size_t k = 0; k < 4; k++) {
            json_t *x = findf(c, "await", impl, "plain", "suspend_every=%s depth=%ld", ks[k], D);
            if (x && isfinite(median(x)))
                cb_append(o->table, sizeof o->table, " %.1f ns |", median(x));
            else
                cb_append(o->table, sizeof o->table, " - |");
        }
        double al = num(cell, "heap_allocs_per_op"); /* run()'s alone, where recorded */
        if (!isfinite(al))
            al = num(cell, "memory.totals.heap_allocs") / num(cell, "ops");
        if (isfinite(al))
            cb_append(o->table, sizeof o->table, " %.2f |\n", al);
        else
            cb_append(o->table, sizeof o->table, " - |\n");
    }
    o->v = !r.ok               ? CB_INCONCLUSIVE
           : r.hi < 1 + EQUIV  ? CB_SUPPORTED
           : r.lo > 1 + EQUIV  ? CB_CONTRADICTED
                               : CB_INCONCLUSIVE;
}

/* 15: depth-first scheduling improves locality. pipeline at the most stages with both schedules
 * (stackful_order's first): direct (each stage switches straight to its consumer) over fifo (a
 * central run queue) decided faster beyond DIFF supports; the same or slower contradicts. L1 data
 * misses per item where a PMU counted them; sm's pair (its direct hand-over goes through its
 * driver) is reported. */
#define PIPE_CMD                                                                               \
    "corobench run --workload pipeline --impl asm,sm --param stages=4,32 "                     \
    "--param sched=fifo,direct"

static void c_depthfirst(const ctx *c, claim *o)
{
    const char *impl;
    long n;
    if (!pair_point(c, "pipeline", "sched=direct", "sched=fifo", "stages", &impl, &n)) {
        not_measured(o, "pipeline cells of a stackful implementation under both schedules",
                     PIPE_CMD);
        return;
    }
    json_t *dr = findf(c, "pipeline", impl, "plain", "sched=direct stages=%ld", n),
           *ff = findf(c, "pipeline", impl, "plain", "sched=fifo stages=%ld", n);
    json_t *two[2] = {dr, ff};
    if (untimed(o, two, 2, PIPE_CMD))
        return;
    iv r = ratio_iv(dr, ff);
    cb_append(o->text, sizeof o->text,
              "pipeline, %s, %ld stages: direct %.0f ns per item, fifo %.0f ns (direct over fifo ",
              impl, n, median(dr), median(ff));
    ratio_text(o->text, sizeof o->text, r, dr, ff);
    cb_append(o->text, sizeof o->text, "; under %.3f supports).", 1 / (1 + DIFF));
    double ld = num(dr, "counters.l1d-misses.per_op"), lf = num(ff, "counters.l1d-misses.per_op");
    if (isfinite(ld) && isfinite(lf))
        cb_append(o->text, sizeof o->text, " L1 data misses per item: direct %.0f, fifo %.0f.",
                  ld, lf);
    else
        cb_append(o->text, sizeof o->text,
                  " No L1 miss counts (no PMU, or no --events l1d-misses): locality is inferred "
                  "from time only.");
    json_t *sd = findf(c, "pipeline", "sm", "plain", "sched=direct stages=%ld", n),
           *sf = findf(c, "pipeline", "sm", "plain", "sched=fifo stages=%ld", n);
    if (sd && sf && isfinite(median(sd)) && isfinite(median(sf))) {
        cb_append(o->text, sizeof o->text,
                  " sm, whose direct hand-over returns the next stage to its driver: %.0f vs "
                  "%.0f ns (",
                  median(sd), median(sf));
        ratio_text(o->text, sizeof o->text, ratio_iv(sd, sf), sd, sf);
        cb_append(o->text, sizeof o->text, ").");
    }
    int dd = decide(r, DIFF);
    o->v = dd == D_FASTER                    ? CB_SUPPORTED
           : dd == D_SAME || dd == D_SLOWER ? CB_CONTRADICTED
                                             : CB_INCONCLUSIVE;
}

/* ---- The seed's first pair and two more of the thread's points (issue 20): C# against Go,
 * C++ coroutines optimised away, Lua's state per coroutine. ---- */

/* The ok plain cell of impl in file f at cell's point (its workload and parameters, the
 * implementations' own aside), NULL when none. */
static json_t *same_point(const ctx *c, json_t *cell, const char *impl, long f)
{
    char want[640], key[640];
    point_key(cell, want, sizeof want);
    json_t *x;
    size_t i;
    json_array_foreach(c->all, i, x)
    {
        if (file_of(x) != f || !cb_cell_ok(x) || strcmp(cb_str(x, "impl"), impl) ||
            strcmp(cb_str(x, "variant"), "plain") || !at_defaults(x))
            continue;
        point_key(x, key, sizeof key);
        if (!strcmp(key, want))
            return x;
    }
    return NULL;
}

#define CSGO_CMD                                                                               \
    "corobench run --impl csharp,go --workload pingpong,recursive,spawn,io --quick"

/* 16: C#'s async/await is faster than Go's goroutines. At every point (workload and parameters,
 * each runtime's own at its defaults) where csharp and go ran in one file: csharp/go's interval
 * below 1/(1 + DIFF) is faster. Supported when csharp is faster at every point; contradicted
 * when, at some point, it is decided the same (within DIFF) or slower. A table per point. */
static void c_csharp_go(const ctx *c, claim *o)
{
    size_t pairs = 0, faster = 0, not_faster = 0, i;
    json_t *cs;
    cb_append(o->table, sizeof o->table,
              "| workload | point | file | csharp | go | csharp / go [95%%] | decided |\n"
              "|---|---|---|---:|---:|---:|---|\n");
    json_array_foreach(c->all, i, cs)
    {
        if (!cb_cell_ok(cs) || strcmp(cb_str(cs, "impl"), "csharp") ||
            strcmp(cb_str(cs, "variant"), "plain") || !at_defaults(cs) || !isfinite(median(cs)))
            continue;
        json_t *go = same_point(c, cs, "go", file_of(cs));
        if (!go || !isfinite(median(go)))
            continue;
        iv r = ratio_iv(cs, go);
        int d = decide(r, DIFF);
        pairs++;
        faster += d == D_FASTER;
        not_faster += d == D_SAME || d == D_SLOWER;
        char pk[640], rt[128] = "";
        point_key(cs, pk, sizeof pk);
        ratio_text(rt, sizeof rt, r, NULL, NULL);
        cb_append(o->table, sizeof o->table, "| %s | %ld | %.1f ns | %.1f ns | %s | %s |\n", pk,
                  file_of(cs) + 1, median(cs), median(go), rt,
                  d == D_FASTER   ? "csharp faster"
                  : d == D_SLOWER ? "go faster"
                  : d == D_SAME   ? "the same"
                                  : "undecided");
    }
    if (!pairs) {
        o->table[0] = '\0';
        not_measured(o, "timed csharp and go cells at a common point in one file", CSGO_CMD);
        return;
    }
    cb_append(o->text, sizeof o->text,
              "Over %zu point%s where csharp (Mono's async/await over Task) and go (goroutines "
              "and unbuffered channels) ran in one file: csharp is faster beyond %.0f%% at %zu, "
              "the same or slower at %zu, undecided at %zu (faster at every point supports; the "
              "same or slower at one contradicts). Mono is not current .NET (docs/external.md).",
              pairs, pairs == 1 ? "" : "s", 100 * DIFF, faster, not_faster,
              pairs - faster - not_faster);
    o->v = faster == pairs ? CB_SUPPORTED : not_faster ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

/* 17: C++ coroutines can be optimised away. For each compiler (cxx20: g++, cxx20-clang:
 * clang++) at every point where it and direct (the same work without coroutines) ran in one
 * file: its heap allocations per op (heap_allocs_per_op: a frame the compiler elided is not
 * one) and its time over direct's. A coroutine is optimised away at a point when it allocates
 * under GONE_ALLOCS per op and its time's interval over direct's lies below 1 + EQUIV; it is
 * decidedly there when it allocates ALLOC_ONE or more per op, or its interval lies above
 * 1 + EQUIV. Supported when some compiler optimises it away at some point; contradicted when
 * both are decidedly there at every point. Points without a direct cell (io) show the
 * allocations only. */
#define GONE_ALLOCS 0.01
#define ALLOC_ONE 0.5
#define CXX_CMD                                                                                \
    "corobench run --impl cxx20,cxx20-clang,direct --workload pingpong,recursive,spawn,await"

static void c_cxx_away(const ctx *c, claim *o)
{
    static const char *const im[] = {"cxx20", "cxx20-clang"};
    size_t pairs = 0, gone = 0, there = 0, i;
    int any = 0;
    json_t *x;
    cb_append(o->table, sizeof o->table,
              "| implementation | workload | point | file | heap allocations per op | ns per op "
              "| over direct [95%%] | optimised away? |\n|---|---|---|---|---:|---:|---:|---|\n");
    for (size_t k = 0; k < 2; k++)
        json_array_foreach(c->all, i, x)
        {
            double al = num(x, "heap_allocs_per_op");
            if (!cb_cell_ok(x) || strcmp(cb_str(x, "impl"), im[k]) ||
                strcmp(cb_str(x, "variant"), "plain") || !isfinite(al) || !isfinite(median(x)))
                continue;
            any = 1;
            json_t *d = same_point(c, x, "direct", file_of(x));
            char pk[640], rt[128] = "-";
            point_key(x, pk, sizeof pk);
            const char *verdict = "no direct cell";
            if (d && isfinite(median(d))) {
                iv r = ratio_iv(x, d);
                rt[0] = '\0';
                ratio_text(rt, sizeof rt, r, NULL, NULL);
                int away = al < GONE_ALLOCS && r.ok && r.hi < 1 + EQUIV,
                    present = al >= ALLOC_ONE || (r.ok && r.lo > 1 + EQUIV);
                pairs++;
                gone += away;
                there += present;
                verdict = away ? "yes" : present ? "no" : "undecided";
            }
            cb_append(o->table, sizeof o->table, "| %s | %s | %ld | %.2f | %.1f | %s | %s |\n",
                      im[k], pk, file_of(x) + 1, al, median(x), rt, verdict);
        }
    if (!any || !pairs) {
        o->table[0] = '\0';
        not_measured(o,
                     any ? "cxx20 or cxx20-clang cells beside a direct cell at one point in one "
                           "file"
                         : "cxx20 or cxx20-clang cells with heap allocations per op",
                     CXX_CMD);
        return;
    }
    cb_append(o->text, sizeof o->text,
              "Over %zu point%s of cxx20 (g++) and cxx20-clang (clang++) beside direct (the same "
              "work without coroutines) in one file: optimised away (under %.2f heap "
              "allocations per op and the time's interval over direct's under %.2f) at %zu, "
              "decidedly there (%.1f or more allocations per op, or slower than that) at %zu, "
              "undecided at %zu (one optimised away supports; all there contradicts).",
              pairs, pairs == 1 ? "" : "s", GONE_ALLOCS, 1 + EQUIV, gone, ALLOC_ONE, there,
              pairs - gone - there);
    /* Where the two compilers allocate differently at one point: frames one of them elided. */
    json_array_foreach(c->all, i, x)
    {
        if (!cb_cell_ok(x) || strcmp(cb_str(x, "impl"), "cxx20") ||
            strcmp(cb_str(x, "variant"), "plain"))
            continue;
        json_t *y = same_point(c, x, "cxx20-clang", file_of(x));
        double a = num(x, "heap_allocs_per_op"), b = num(y, "heap_allocs_per_op");
        if (y && isfinite(a) && isfinite(b) && fabs(a - b) >= ALLOC_ONE) {
            char pk[640];
            point_key(x, pk, sizeof pk);
            cb_append(o->text, sizeof o->text,
                      " At %s, g++ allocates %.2f per op and clang++ %.2f: %s elides %.2f "
                      "frames per op that the other allocates.",
                      pk, a, b, a > b ? "clang++" : "g++", fabs(a - b));
        }
    }
    o->v = gone ? CB_SUPPORTED : there == pairs ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

/* 18: Lua keeps a whole state per coroutine, so it costs more memory. spawn at depth 0, the
 * largest n with a Lua cell (lua, luajit) and a stackless C cell in one file: each Lua
 * runtime's bytes per coroutine at rest (memory.heap_bytes_per_coro: its allocator's for lua,
 * the runtime's own count for luajit) over the largest stackless C implementation's heap
 * bytes (a coroutine that keeps only its frames). Supported when every Lua runtime holds
 * LUA_MORE times it or more; contradicted when one holds LUA_NO_MORE times or less. Against the
 * stackful C family (asm: its touched stack plus heap) the ratio is reported, not decided: a
 * stack page is not a state. */
#define LUA_MORE 2.0
#define LUA_NO_MORE 1.25
#define LUA_CMD                                                                                \
    "corobench run --impl lua,luajit,asm,sm,closure,cxx20 --workload spawn --param n=1000,10000"

static void c_lua_memory(const ctx *c, claim *o)
{
    static const char *const luas[] = {"lua", "luajit"};
    json_t *l[2] = {NULL, NULL}, *less = NULL, *x;
    size_t i;
    long N = -1;
    /* The largest n where a Lua runtime and a stackless C implementation ran in one file. */
    json_array_foreach(c->all, i, x)
    {
        const char *impl = cb_str(x, "impl");
        if (!matches(x, "spawn", NULL, "plain", "depth=0 layout!=offset") ||
            (strcmp(impl, "lua") && strcmp(impl, "luajit")) ||
            !isfinite(num(x, "memory.heap_bytes_per_coro")))
            continue;
        long n = (long)num(x, "params.n");
        json_t *y;
        size_t k;
        json_array_foreach(c->all, k, y)
        {
            const char *f = cb_str(y, "family");
            if (file_of(y) == file_of(x) && f && !strcmp(f, "stackless") &&
                !language(cb_str(y, "impl")) && num(y, "params.n") == (double)n &&
                matches(y, "spawn", NULL, "plain", "depth=0 layout!=offset") &&
                num(y, "memory.heap_bytes_per_coro") > 0 && n > N)
                N = n;
        }
    }
    if (N < 0) {
        not_measured(o, "spawn cells at depth 0 of a Lua runtime and a stackless C "
                        "implementation in one file, with their bytes per coroutine",
                     LUA_CMD);
        return;
    }
    char mt[64];
    snprintf(mt, sizeof mt, "depth=0 layout!=offset n=%ld", N);
    json_array_foreach(c->all, i, x)
    {
        const char *f = cb_str(x, "family"), *impl = cb_str(x, "impl");
        if (!matches(x, "spawn", NULL, "plain", mt))
            continue;
        for (size_t k = 0; k < 2; k++)
            if (!strcmp(impl, luas[k]) && !l[k] && isfinite(num(x, "memory.heap_bytes_per_coro")))
                l[k] = x;
        double hb = num(x, "memory.heap_bytes_per_coro");
        if (f && !strcmp(f, "stackless") && !language(impl) && isfinite(hb) &&
            (!less || hb > num(less, "memory.heap_bytes_per_coro")))
            less = x;
    }
    json_t *sf = find(c, "spawn", "asm", "plain", mt);
    double lh = num(less, "memory.heap_bytes_per_coro"),
           sfb = num(sf, "memory.touched_bytes_per_coro") + num(sf, "memory.heap_bytes_per_coro");
    cb_append(o->table, sizeof o->table,
              "| implementation | bytes per coroutine | over %s (%.0f) | over asm (touched + heap%s) "
              "|\n|---|---:|---:|---:|\n",
              cb_str(less, "impl"), lh, isfinite(sfb) ? "" : ": not measured");
    int more = 1, no_more = 0;
    for (size_t k = 0; k < 2; k++) {
        if (!l[k])
            continue;
        double b = num(l[k], "memory.heap_bytes_per_coro"), q = b / lh;
        more &= q >= LUA_MORE;
        no_more |= q <= LUA_NO_MORE;
        char s[32] = "-";
        if (isfinite(sfb) && sfb > 0)
            snprintf(s, sizeof s, "%.2fx", b / sfb);
        cb_append(o->table, sizeof o->table, "| %s | %.0f | %.2fx | %s |\n", luas[k], b, q, s);
    }
    cb_append(o->text, sizeof o->text,
              "spawn, n = %ld, depth 0, bytes per coroutine at rest: %s%s%s against the largest "
              "stackless C implementation's heap, %s's %.0f (%.0fx or more for every Lua runtime "
              "supports, %.2fx or less for one contradicts; table below). A stackful C coroutine "
              "is reported, not decided: ",
              N, l[0] ? "lua" : "", l[0] && l[1] ? " and " : "", l[1] ? "luajit" : "",
              cb_str(less, "impl"), lh, LUA_MORE, LUA_NO_MORE);
    if (isfinite(sfb))
        cb_append(o->text, sizeof o->text,
                  "asm occupies %.0f bytes (its touched stack and heap; each Lua runtime over it "
                  "in the table).",
                  sfb);
    else
        cb_append(o->text, sizeof o->text, "no asm spawn cell at this point.");
    o->v = more ? CB_SUPPORTED : no_more ? CB_CONTRADICTED : CB_INCONCLUSIVE;
}

/* 19: a stackful switch inlined at the call site costs about as much as a stackless resume.
 * pingpong at depth 0, distinct sites, symmetric, work=none where both ran it (the switches
 * alone), else work=chain: inline over sm. inline with fpu=0 where it ran (sm keeps no
 * floating-point control state either; the issue's bound is on that pair), else with fpu=1, and
 * the text says so. "About as much" is the ratio's interval under INLINE_MAX (cheaper counts: the
 * claim answers "stackful must be slower"); above it, contradicted. asmjmp with fpu=0, the
 * fastest function-call switch, is a note. */
#define INLINE_MAX 1.30
#define INLINE_CMD                                                                             \
    "corobench run --workload pingpong --impl inline,sm,asmjmp --param depth=0 "               \
    "--param work=none --param fpu=0,1"

static void c_inline(const ctx *c, claim *o)
{
    static const char *const works[] = {"none", "chain"}, *const fpus[] = {"0", "1"};
    json_t *in = NULL, *sm = NULL;
    const char *work = NULL, *fpu = NULL;
    for (size_t w = 0; w < 2 && !in; w++) {
        sm = findf(c, PP, "sm", "plain", DISTINCT " depth=0 work=%s", works[w]);
        for (size_t f = 0; f < 2 && sm && !in; f++)
            if ((in = findf(c, PP, "inline", "plain", DISTINCT " depth=0 work=%s fpu=%s",
                            works[w], fpus[f])))
                work = works[w], fpu = fpus[f];
    }
    if (!in) {
        not_measured(o, "pingpong cells of inline and sm at depth 0 (distinct sites)",
                     INLINE_CMD);
        return;
    }
    json_t *two[2] = {in, sm};
    if (untimed(o, two, 2, INLINE_CMD))
        return;
    iv r = ratio_iv(in, sm);
    cb_append(o->text, sizeof o->text,
              "pingpong, depth 0, distinct sites, work=%s: inline (fpu=%s) %.2f ns per switch, "
              "sm %.2f ns per resume (inline over sm ",
              work, fpu, median(in), median(sm));
    ratio_text(o->text, sizeof o->text, r, in, sm);
    cb_append(o->text, sizeof o->text, "; under %.2f supports).", INLINE_MAX);
    if (!strcmp(fpu, "1"))
        cb_append(o->text, sizeof o->text,
                  " No inline cell with fpu=0 here: this one also keeps MXCSR and the x87 "
                  "control word per coroutine, which sm does not.");
    json_t *f1 = findf(c, PP, "inline", "plain", DISTINCT " depth=0 work=%s fpu=1", work);
    if (f1 && f1 != in && isfinite(median(f1))) {
        cb_append(o->text, sizeof o->text,
                  " With fpu=1 (the FPU control words kept per coroutine): %.2f ns (", median(f1));
        ratio_text(o->text, sizeof o->text, ratio_iv(f1, sm), f1, sm);
        cb_append(o->text, sizeof o->text, " sm's).");
    }
    json_t *aj = findf(c, PP, "asmjmp", "plain", DISTINCT " depth=0 work=%s fpu=%s", work, fpu);
    if (aj && isfinite(median(aj))) {
        cb_append(o->text, sizeof o->text,
                  " asmjmp, the fastest switch through a call, with fpu=%s: %.2f ns (inline over "
                  "asmjmp ",
                  fpu, median(aj));
        ratio_text(o->text, sizeof o->text, ratio_iv(in, aj), in, aj);
        cb_append(o->text, sizeof o->text, ").");
    }
    o->v = !r.ok                   ? CB_INCONCLUSIVE
           : r.hi < INLINE_MAX     ? CB_SUPPORTED
           : r.lo > INLINE_MAX     ? CB_CONTRADICTED
                                   : CB_INCONCLUSIVE;
}

typedef struct claim_def {
    const char *id; /* its fixtures: tests/claims/<id>/ */
    const char *sentence;
    void (*eval)(const ctx *, claim *);
    unsigned verdicts; /* the verdicts its rule can give, bit per cb_verdict */
    const char *plots[3];
} claim_def;

#define ALL_VERDICTS                                                                           \
    (1u << CB_SUPPORTED | 1u << CB_CONTRADICTED | 1u << CB_INCONCLUSIVE | 1u << CB_NOT_MEASURED)

static const claim_def claims[] = {
    {"depth",
     "After a stackful switch, returns mispredict and the cost grows with call depth when the two "
     "sides suspend at different call sites, not when they share the code (sites=same).",
     c_depth, ALL_VERDICTS,
     {"pingpong-depth-distinct", "pingpong-depth-same", "pingpong-mispredict"}},
    {"jmpret",
     "Replacing every ret with a pop and an indirect jump (the jmpret build) removes most of that "
     "cost.",
     c_jmpret, ALL_VERDICTS, {"pingpong-jmpret"}},
    {"asmjmp",
     "A switch that leaves through an indirect jump (asmjmp) saves one misprediction per switch "
     "over one that returns (asm).",
     c_asmjmp, ALL_VERDICTS, {"pingpong-mispredict"}},
    {"ucontext",
     "ucontext is far slower (10x or more) than an asm switch: it makes a system call per switch "
     "for the signal mask.",
     c_ucontext, ALL_VERDICTS, {"pingpong-depth-distinct"}},
    {"crossover",
     "Stackless state machines resume faster at shallow depth but pay re-entry through every "
     "frame as depth grows: there is a crossover depth against stackful switches.",
     c_crossover_sm, ALL_VERDICTS, {"pingpong-depth-distinct", "pingpong-depth-same"}},
    {"closure", "Closure frames pay a heap allocation per async call.", c_closure, ALL_VERDICTS,
     {"pingpong-depth-distinct"}},
    {"recursive", "A recursive async function keeps its stack anyway, in heap frames.",
     c_recursive, ALL_VERDICTS, {"recursive"}},
    {"memory", "Stackful coroutines waste memory on worst-case stacks.", c_memory, ALL_VERDICTS,
     {"spawn-memory"}},
    {"io",
     "For I/O-bound work the switch cost disappears in the system calls (under 10% of a "
     "message).",
     c_io, ALL_VERDICTS, {"io"}},
    {"models", "Neither model wins everywhere.", c_crossover_table, ALL_VERDICTS,
     {"pingpong-depth-distinct", "recursive", "io"}},
    {"peers",
     "corobench's own runtimes are as fast as the fastest peers (other libraries and languages).",
     c_peers, ALL_VERDICTS, {"pingpong-depth-distinct"}},
    {"hooks",
     "With hooks, stackful coroutines make existing blocking code asynchronous, at a cost of X "
     "per call.",
     c_hooks, ALL_VERDICTS, {"io"}},
    {"asymmetric", "Asymmetric switching (through a root coroutine) reduces return mispredictions.",
     c_asymmetric, ALL_VERDICTS, {"pingpong-modes"}},
    {"await",
     "Awaits that complete at once cost stackless coroutines little (their fast path: no "
     "suspension).",
     c_await, ALL_VERDICTS, {NULL}},
    {"depthfirst",
     "Depth-first scheduling (switching straight to the consumer) improves locality over a "
     "central run queue.",
     c_depthfirst, ALL_VERDICTS, {NULL}},
    {"csharp-go", "C#'s async/await is faster than Go's goroutines.", c_csharp_go, ALL_VERDICTS,
     {NULL}},
    {"cxx-away",
     "C++ coroutines can be optimised away (no frame allocated, as fast as no coroutine), "
     "depending on the compiler.",
     c_cxx_away, ALL_VERDICTS, {NULL}},
    {"lua-memory",
     "Lua keeps a whole state per coroutine, so it costs more memory (against the C families' "
     "coroutines that keep only their frames).",
     c_lua_memory, ALL_VERDICTS, {"spawn-memory"}},
    {"inline",
     "A stackful switch inlined at the call site costs about as much as a stackless resume.",
     c_inline, ALL_VERDICTS, {NULL}},
};

enum { NCLAIMS = sizeof claims / sizeof claims[0] };

size_t cb_claims_count(void) { return NCLAIMS; }
const char *cb_claims_id(size_t k) { return k < NCLAIMS ? claims[k].id : NULL; }
unsigned cb_claims_verdicts(size_t k) { return k < NCLAIMS ? claims[k].verdicts : 0; }

static ctx make_ctx(json_t *doc)
{
    ctx c = {.cells = json_object_get(doc, "cells"),
             .all = json_array(),
             .rsb = json_object_get(json_object_get(doc, "machine"), "rsb")};
    json_array_extend(c.all, c.cells);
    json_t *aside = json_object_get(doc, CB_CLAIMS_ASIDE_KEY);
    if (json_is_array(aside))
        json_array_extend(c.all, aside);
    return c;
}

static void eval(const ctx *c, size_t k, claim *o)
{
    memset(o, 0, sizeof *o);
    claims[k].eval(c, o);
}

cb_verdict cb_claims_verdict(json_t *doc, size_t k)
{
    if (k >= NCLAIMS)
        return CB_VERDICTS;
    ctx c = make_ctx(doc);
    claim *o = cb_xmalloc(sizeof *o);
    eval(&c, k, o);
    cb_verdict v = o->v;
    free(o);
    json_decref(c.all);
    return v;
}

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
            fprintf(out, "[%s](", name);
            cb_md_dest(out, rel, base ? base + 1 : png);
            fputc(')', out);
        } else {
            fprintf(out, "%s (not drawn: %s)", name, cb_str(p, "skipped"));
        }
        return;
    }
    fprintf(out, "%s (plots not drawn: run `corobench report` with -o FILE.md, without "
                 "--no-plots)", name);
}

/* ---- Caveats: what limits every verdict, from the files the cells came from. */

/* The distinct workloads of file f's cells ("pingpong, io"). */
static void file_workloads(const ctx *c, long f, char *buf, size_t len)
{
    json_t *seen = json_object(), *cell;
    size_t i;
    buf[0] = '\0';
    json_array_foreach(c->all, i, cell)
    {
        const char *wl = cb_str(cell, "workload");
        if (file_of(cell) != f || !wl || json_object_get(seen, wl))
            continue;
        json_object_set_new(seen, wl, json_true());
        cb_append(buf, len, "%s%s", json_object_size(seen) > 1 ? ", " : "", wl);
    }
    json_decref(seen);
}

/* Counters: a hardware event counted in some cell, or why none was. */
static void counters_caveat(FILE *out, const ctx *c)
{
    json_t *cell, *v;
    size_t i;
    const char *name, *why = NULL;
    int counted = 0, asked = 0;
    json_array_foreach(c->all, i, cell)
    {
        json_object_foreach(json_object_get(cell, "counters"), name, v)
        {
            asked = 1;
            counted |= !json_is_null(v) && strcmp(name, "page-faults") &&
                       strcmp(name, "context-switches") && strcmp(name, "task-clock");
        }
        json_object_foreach(json_object_get(cell, "counters_unavailable"), name, v)
        {
            asked = 1;
            if (!why && json_is_string(v))
                why = json_string_value(v);
        }
    }
    if (counted)
        fprintf(out, "- Hardware counters: counted (a PMU is visible).\n");
    else if (asked)
        fprintf(out, "- Hardware counters: none counted%s%s; return mispredictions here are the "
                     "simulator's, not the CPU's.\n",
                why ? ": " : "", why ? why : "");
    else
        fprintf(out, "- Hardware counters: not asked for (no `--events`); return mispredictions "
                     "here are the simulator's, not the CPU's.\n");
}

static void caveats(FILE *out, json_t *doc, const ctx *c, const claim *res)
{
    fprintf(out, "\n## Caveats\n\nWhat limits every verdict below.\n\n");
    json_t *files = json_object_get(doc, CB_CLAIMS_FILES_KEY), *one = NULL;
    if (!json_is_array(files) || !json_array_size(files)) {
        one = json_pack("[{s:s, s:O?, s:O?, s:O?, s:O?}]", "file", "these results", "run",
                        json_object_get(doc, "run"), "build", json_object_get(doc, "build"),
                        "environment",
                        json_object_get(json_object_get(doc, "machine"), "environment"),
                        "unavailable", json_object_get(doc, "unavailable"));
        files = one;
    }
    json_t *f, *w;
    size_t i, k;
    json_t *warned = json_object();
    json_array_foreach(files, i, f)
    {
        json_array_foreach(json_object_get(json_object_get(f, "environment"), "warnings"), k, w)
        {
            if (!json_is_string(w) || json_object_get(warned, json_string_value(w)))
                continue;
            json_object_set_new(warned, json_string_value(w), json_true());
            fprintf(out, "- Environment: %s.\n", json_string_value(w));
        }
    }
    if (!json_object_size(warned))
        fprintf(out, "- Environment: no warning recorded.\n");
    json_decref(warned);
    counters_caveat(out, c);
    json_t *rsb = c->rsb;
    if (json_is_object(rsb)) {
        double r2 = NAN;
        cb_field_number(rsb, "r2", &r2);
        const char *src = cb_str(rsb, "source");
        int cal = src && !strcmp(src, "calibrated");
        fprintf(out, "- Return-stack model: %s %lld, %s", cb_str(rsb, "model") ?: "?",
                (long long)json_integer_value(json_object_get(rsb, "entries")),
                cal ? "calibrated on this CPU" : "not calibrated on this CPU");
        if (cal && isfinite(r2))
            fprintf(out, " (R^2 %.2f)", r2);
        else if (!cal)
            fprintf(out, " (%s; `corobench calibrate` fits it)", src ? src : "no source");
        fprintf(out, ".\n");
    } else {
        fprintf(out, "- Return-stack model: none recorded.\n");
    }
    size_t timed = 0, single = 0;
    json_t *tc;
    size_t ti;
    json_array_foreach(c->all, ti, tc)
    {
        size_t k = cb_cell_ok(tc) ? cb_cell_invocations(tc) : 0;
        timed += k > 0;
        single += k == 1;
    }
    fprintf(out, "- Intervals: 95%%, a hierarchical bootstrap over each cell's invocations "
                 "(processes), then their repetitions (docs/measurement.md)");
    if (single)
        fprintf(out, "; %zu of %zu timed cells ran in one invocation and have none (one process "
                     "says nothing of the spread between processes, which on this machine moves "
                     "single figures 2-3x): every rule that needs one is inconclusive there "
                     "(`corobench run --invocations K`, K >= 2)",
                single, timed);
    fprintf(out, ".\n");
    json_array_foreach(files, i, f)
    {
        json_t *run = json_object_get(f, "run"), *b = json_object_get(f, "build");
        json_t *pin = json_object_get(run, "pin_cpu"), *inv = json_object_get(run, "invocations");
        char wls[256] = "";
        file_workloads(c, one ? 0 : (long)i, wls, sizeof wls);
        fprintf(out, "- File %zu (`%s`: %s): ", i + 1, cb_str(f, "file"), wls[0] ? wls : "no cells");
        if (json_is_integer(pin))
            fprintf(out, "pinned to CPU %lld", (long long)json_integer_value(pin));
        else
            fprintf(out, "not pinned");
        fprintf(out, "; %s, `%s`; %lld invocation%s x %lld repetitions per cell",
                cb_str(b, "compiler") ?: "compiler not recorded", cb_str(b, "cflags") ?: "",
                json_is_integer(inv) ? (long long)json_integer_value(inv) : 1LL,
                json_is_integer(inv) && json_integer_value(inv) != 1 ? "s" : "",
                (long long)json_integer_value(json_object_get(run, "reps")));
        if (json_is_true(json_object_get(run, "quick")))
            fprintf(out, " (--quick)");
        const char *rs = cb_str(run, "rsb");
        fprintf(out, "; simulated return stack %s", rs && !strcmp(rs, "sim") ? "on" : "off");
        const char *u;
        json_t *why;
        json_object_foreach(json_object_get(f, "unavailable"), u, why)
            fprintf(out, "; unavailable: %s (%s)", u, json_string_value(why));
        fprintf(out, ".\n");
    }
    if (json_array_size(files) > 1)
        fprintf(out, "- A cell measured in several files keeps its first measurement; a ratio of "
                     "cells from two files says so (\"across files\").\n");
    size_t failed = 0;
    json_t *cell;
    json_array_foreach(c->all, i, cell) failed += !cb_cell_ok(cell);
    if (failed)
        fprintf(out, "- %zu cells did not run (listed at the end).\n", failed);
    int first = 1;
    for (size_t j = 0; j < NCLAIMS; j++)
        if (res[j].v == CB_NOT_MEASURED) {
            fprintf(out, "%s%zu", first ? "- Not measured in these results: claims " : ", ",
                    j + 1);
            first = 0;
        }
    fprintf(out, "%s", first ? "- Every claim had data in these results.\n" : ".\n");
    json_decref(one);
}

static int by_est(const void *a, const void *b)
{
    double x = (*(const xpoint *const *)a)->r.est, y = (*(const xpoint *const *)b)->r.est;
    return (x > y) - (x < y);
}

/* "## Summary": the answer first. Per workload, claim 10's points (the fastest stackful against
 * the fastest stackless implementation at each point): how many each family wins, the typical
 * point (the median ratio) with its interval and the parameters that vary, the range; then which
 * claims hold. Every figure is the claims' own, on the same rules. */
static void summary(FILE *out, json_t *doc, const ctx *c, const claim *res)
{
    json_t *m = json_object_get(doc, "machine");
    const char *cpu = json_string_value(json_object_get(m, "cpu_model"));
    fprintf(out, "\n## Summary\n\nWhich model is faster where on this machine (%s, %lld logical "
                 "CPUs; the caveats below say what limits it): at each workload point, the fastest "
                 "stackful implementation against the fastest stackless one (plain builds; under "
                 "1x: stackful faster; a point is won when the ratio's 95%% interval lies beyond "
                 "%.0f%% and Holm-corrected p < %.2g, as claim 10).\n\n",
            cpu ? cpu : "unknown CPU", (long long)json_integer_value(json_object_get(m, "logical_cpus")),
            100 * DIFF, ALPHA);
    xpoint *x;
    json_t *points;
    size_t n = crossover_points(c, &x, &points);
    if (!n)
        fprintf(out, "No workload point has both a stackful and a stackless cell: nothing to "
                     "compare (`corobench run --workload all`).\n");
    else
        fprintf(out, "| workload | points | stackful faster | stackless faster | undecided | "
                     "typical stackful / stackless [95%%] | range |\n"
                     "|---|---:|---:|---:|---:|---|---|\n");
    json_t *done = json_object();
    const xpoint **mine = cb_xcalloc(n + 1, sizeof *mine);
    for (size_t i = 0; i < n; i++) {
        const char *wl = cb_str(x[i].sf, "workload");
        if (json_object_get(done, wl))
            continue;
        json_object_set_new(done, wl, json_true());
        size_t k = 0, wins[2] = {0, 0}, open = 0;
        for (size_t j = i; j < n; j++)
            if (!strcmp(cb_str(x[j].sf, "workload"), wl)) {
                mine[k++] = &x[j];
                if (x[j].winner >= 0)
                    wins[x[j].winner]++;
                else
                    open++;
            }
        qsort(mine, k, sizeof *mine, by_est);
        const xpoint *t = mine[k / 2];
        /* the typical point's parameters that differ between the workload's points */
        char params[512], vary[256] = "", *save = NULL;
        cb_cell_params_text(t->sf, 0, params, sizeof params);
        for (char *tok = strtok_r(params, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            int differs = 0;
            for (size_t j = 0; j < k && !differs; j++) {
                char other[512];
                cb_cell_params_text(mine[j]->sf, 0, other, sizeof other);
                differs = !cb_has_token(other, tok);
            }
            if (differs)
                cb_append(vary, sizeof vary, "%s%s", *vary ? " " : "", tok);
        }
        char typ[256] = "";
        if (t->r.ok)
            cb_append(typ, sizeof typ, "%.2fx [%.2f, %.2f]", t->r.est, t->r.lo, t->r.hi);
        else
            cb_append(typ, sizeof typ, "%.2fx (no interval)", t->r.est);
        fprintf(out, "| %s | %zu | %zu | %zu | %zu | %s %s/%s%s%s | %.2gx .. %.2gx |\n", wl, k,
                wins[0], wins[1], open, typ, cb_str(t->sf, "impl"), cb_str(t->sl, "impl"),
                *vary ? " at " : "", vary, mine[0]->r.est, mine[k - 1]->r.est);
    }
    free(mine);
    json_decref(done);
    free(x);
    json_decref(points);
    fprintf(out, "\nClaims on this machine (numbered as in the Claims section):");
    for (int v = 0; v < CB_VERDICTS; v++) {
        char list[256] = "";
        for (size_t i = 0; i < NCLAIMS; i++)
            if ((int)res[i].v == v)
                cb_append(list, sizeof list, "%s%zu", *list ? ", " : "", i + 1);
        fprintf(out, "%s **%s** %s", v ? ";" : "", cb_verdict_name((cb_verdict)v),
                *list ? list : "none");
    }
    fprintf(out, ".\n");
}

void cb_claims_section(FILE *out, json_t *doc, json_t *plots, const char *plots_rel)
{
    ctx c = make_ctx(doc);
    claim *res = cb_xcalloc(NCLAIMS, sizeof *res);
    for (size_t i = 0; i < NCLAIMS; i++)
        eval(&c, i, &res[i]);
    summary(out, doc, &c, res);
    caveats(out, doc, &c, res);
    fprintf(out,
            "\n## Claims\n\nEach verdict is computed from the cells of these results by the rule "
            "docs/report.md states. A time difference counts when the 95%% interval of the ratio "
            "of two cells lies beyond %.0f%% either way; \"as fast as\" is that interval below "
            "%.2f. A rule whose interval straddles its margin, or that has no interval (a cell of "
            "one invocation), is *inconclusive*. Ratios compare plain builds with plain builds.\n\n",
            100 * DIFF, 1 + EQUIV);
    /* A list, not a table: a claim's sentence is too long for a row of 120 columns. */
    for (size_t i = 0; i < NCLAIMS; i++)
        fprintf(out, "- %zu. **%s**: %s\n", i + 1, cb_verdict_name(res[i].v), claims[i].sentence);
    for (size_t i = 0; i < NCLAIMS; i++) {
        fprintf(out, "\n### %zu. %s\n\n**%s.** %s", i + 1, claims[i].sentence,
                cb_verdict_name(res[i].v), res[i].text + (res[i].text[0] == ' '));
        if (res[i].v == CB_NOT_MEASURED)
            fprintf(out, " To measure it: `%s`.", res[i].command);
        fprintf(out, "\nPlots: ");
        for (size_t k = 0; k < 3 && claims[i].plots[k]; k++) {
            fprintf(out, "%s", k ? ", " : "");
            plot_ref(out, plots, claims[i].plots[k], plots_rel);
        }
        fprintf(out, "%s.\n", claims[i].plots[0] ? ""
                               : res[i].table[0] ? "none (the table below)"
                                                 : "none");
        if (res[i].table[0])
            fprintf(out, "\n%s", res[i].table);
    }
    free(res);
    json_decref(c.all);
}
