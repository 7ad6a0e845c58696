/* The claims' query helpers (query.h): the numbers of a cell, cells found by what they are,
 * intervals and the decisions on them, and the text of a ratio. */
#include "query.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/measure/rsbfit.h"
#include "harness/report/pick.h"
#include "harness/report/signif.h"
#include "harness/results/cell.h"
#include "harness/results/estimate.h"
#include "harness/results/fields.h"

static const char *const verdict_names[] = {"supported", "contradicted", "inconclusive",
                                            "not measured"};

const char *cb_verdict_name(cb_verdict v) { return v < CB_VERDICTS ? verdict_names[v] : "?"; }

double cq_num(json_t *c, const char *path)
{
    double v = NAN;
    if (c)
        cb_field_number(c, path, &v);
    return v;
}

double cq_median(json_t *c) { return cb_pick_median(c); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cq_mem_range(json_t *cell, const char *field, iv *r)
{
    double x[MAXPTS];
    size_t n = 0, i;
    json_t *inv;
    char path[96];
    *r = (iv){.est = NAN, .lo = NAN, .hi = NAN, .ok = 0, .why = "not measured"};
    snprintf(path, sizeof path, "memory.%s", field);
    json_array_foreach(json_object_get(cell, "invocations"), i, inv)
    {
        double v = cq_num(inv, path);
        if (isfinite(v) && v > 0 && n < MAXPTS)
            x[n++] = v;
    }
    if (!n) {
        double v = cq_num(cell, path);
        if (!(isfinite(v) && v > 0))
            return;
        x[n++] = v;
    }
    qsort(x, n, sizeof x[0], cmp_double);
    *r = (iv){.est = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2, .lo = x[0],
              .hi = x[n - 1], .ok = 1, .why = NULL};
}

iv cq_pairing_ratio(const iv *num, const iv *den)
{
    int ok = num->ok && den->ok;
    return (iv){.est = num->est / den->est, .lo = num->lo / den->hi, .hi = num->hi / den->lo,
                .ok = ok, .why = ok ? NULL : "not measured"};
}

/* The file (from 0) of a merged document a cell came from (claims.h). */
long cq_file_of(json_t *cell) { return cb_pick_file_of(cell); }

/* ---- Intervals --------------------------------------------------------------------------
 * The only place that turns a cell's samples into a 95% interval: estimate.h's, the estimate
 * (median of the invocations' medians) and the hierarchical bootstrap over invocations, then
 * repetitions; one invocation gives no interval, and every rule that needs one is then
 * inconclusive with the reason. */

/* The repetition samples of every invocation, pooled (for the Mann-Whitney p of claim 10). */
size_t cq_samples(json_t *c, double *x)
{
    json_t *invs = json_object_get(c, "invocations"), *inv, *v;
    size_t i, k, n = 0;
    if (!json_is_array(invs)) {
        json_array_foreach(json_object_get(c, "samples_ns_per_op"), i,
                           v) if (json_is_number(v) && n < MAXSAMPLES) x[n++] =
            json_number_value(v);
        return n;
    }
    json_array_foreach(invs, k, inv)
    {
        json_array_foreach(json_object_get(inv, "samples_ns_per_op"), i,
                           v) if (json_is_number(v) && n < MAXSAMPLES) x[n++] =
            json_number_value(v);
    }
    return n;
}

static iv to_iv(const cb_estimate *e, double est)
{
    iv r = {.est = isfinite(e->est) ? e->est : est,
            .lo = NAN,
            .hi = NAN,
            .ok = e->ok,
            .why = e->why ? e->why : "no interval"};
    if (e->ok)
        r.lo = e->lo, r.hi = e->hi;
    return r;
}

iv cq_cell_iv(json_t *cell)
{
    iv r = {.est = cq_median(cell), .lo = NAN, .hi = NAN, .why = "no samples"};
    cb_estimate e;
    if (!cell || cb_cell_estimate(cell, &e))
        return r;
    return to_iv(&e, r.est);
}

iv cq_ratio_iv(json_t *a, json_t *b)
{
    iv r = {.est = cq_median(a) / cq_median(b), .lo = NAN, .hi = NAN, .why = "no samples"};
    cb_estimate e;
    if (!a || !b || cb_cell_ratio(a, b, &e))
        return r;
    return to_iv(&e, r.est);
}
/* ---- end of the intervals ---- */

int cq_decide(iv r, double margin)
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
void cq_ratio_text(char *buf, size_t len, iv r, json_t *a, json_t *b)
{
    if (r.ok)
        cb_append(buf, len, "%.2fx [%.2f, %.2f]", r.est, r.lo, r.hi);
    else
        cb_append(buf, len, "%.2fx, no interval: %s", r.est, r.why);
    if (a && b && cq_file_of(a) != cq_file_of(b))
        cb_append(buf, len, ", across files %ld and %ld", cq_file_of(a) + 1, cq_file_of(b) + 1);
}

/* A time in ns: one decimal (results/cell.h's cb_fig). buf holds 32 characters. */
const char *cq_ns_fig(double v, char *buf) { return cb_fig(v, 1, buf, 32); }

void cq_cell_text(char *buf, size_t len, iv r)
{
    char f[3][32];
    if (r.ok)
        cb_append(buf, len, "%s ns [%s, %s]", cq_ns_fig(r.est, f[0]), cq_ns_fig(r.lo, f[1]),
                  cq_ns_fig(r.hi, f[2]));
    else
        cb_append(buf, len, "%s ns (no interval: %s)", cq_ns_fig(r.est, f[0]), r.why);
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

int cq_matches(json_t *cell, const char *wl, const char *impl, const char *variant,
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
json_t *cq_find_in(json_t *list, const char *wl, const char *impl, const char *variant,
                   const char *match, long file)
{
    json_t *cell;
    size_t i;
    json_array_foreach(list, i, cell) if ((file < 0 || cq_file_of(cell) == file) &&
                                          cq_matches(cell, wl, impl, variant, match)) return cell;
    return NULL;
}

json_t *cq_find(const ctx *c, const char *wl, const char *impl, const char *variant,
                const char *match)
{
    return cq_find_in(c->cells, wl, impl, variant, match, -1);
}

/* The same printf-style: cq_find(c, wl, impl, "plain", "sites=distinct depth=%ld", d). */
json_t *cq_findf(const ctx *c, const char *wl, const char *impl, const char *variant,
                 const char *fmt, ...)
{
    char m[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return cq_find(c, wl, impl, variant, m);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The values of integer parameter x over the ok cells of (wl, impl, variant, match), sorted,
 * distinct; how many. */
size_t cq_values(const ctx *c, const char *wl, const char *impl, const char *variant,
                 const char *match, const char *x, long *out)
{
    size_t n = 0, i;
    json_t *cell;
    json_array_foreach(c->cells, i, cell)
    {
        json_t *v = json_object_get(json_object_get(cell, "params"), x);
        if (!json_is_integer(v) || n == MAXPTS || !cq_matches(cell, wl, impl, variant, match))
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
size_t cq_common(const ctx *c, const char *wl, const char *const *impls,
                 const char *const *variants, size_t k, const char *match, const char *x, long *a)
{
    size_t n = cq_values(c, wl, impls[0], variants ? variants[0] : "plain", match, x, a);
    for (size_t j = 1; j < k; j++) {
        long b[MAXPTS];
        size_t nb = cq_values(c, wl, impls[j], variants ? variants[j] : "plain", match, x, b),
               m = 0;
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
double cq_slope(const long *x, const double *y, size_t n)
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

void cq_not_measured(claim *o, const char *what)
{
    o->v = CB_NOT_MEASURED;
    cb_append(o->text, sizeof o->text, "The results have no %s.", what);
}

int cq_untimed(claim *o, json_t *const *cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(cq_median(cells[i]))) {
            cq_not_measured(o, "timings (ns_per_op) in the cells this claim compares");
            return 1;
        }
    return 0;
}
double cq_shown(double x) { return fabs(x) < 0.005 ? 0 : x; }

/* This build's row of the cell's implementation, for a file written before impl_row. */
static const cb_impl *derived_row(json_t *cell)
{
    return json_object_get(cell, "impl_row") ? NULL : cb_impl_find(cb_str(cell, "impl") ?: "");
}

const char *cq_kind(json_t *cell)
{
    const cb_impl *im = derived_row(cell);
    return im ? cb_impl_kind_name(im->kind) : cb_str(json_object_get(cell, "impl_row"), "kind");
}

int cq_language(json_t *cell)
{
    const char *k = cq_kind(cell);
    return k && (!strcmp(k, cb_impl_kind_name(CB_KIND_LANGUAGE)) ||
                 !strcmp(k, cb_impl_kind_name(CB_KIND_PLUGIN)) ||
                 !strcmp(k, cb_impl_kind_name(CB_KIND_EXTERNAL)));
}

int cq_stackful_order(json_t *cell)
{
    const cb_impl *im = derived_row(cell);
    json_t *o = json_object_get(json_object_get(cell, "impl_row"), "stackful_order");
    return im ? im->stackful_order : json_is_integer(o) ? (int)json_integer_value(o) : 0;
}

/* The fastest (lowest median) ok plain cell of family fam at a point of wl, any implementation
 * (c_only: a C one, no language's runtime); NULL when none. */
json_t *cq_fastest_of(const ctx *c, const char *wl, const char *fam, const char *match, int c_only)
{
    json_t *cell, *best = NULL;
    size_t i;
    json_array_foreach(c->cells, i, cell)
    {
        const char *f = cb_str(cell, "family");
        if (f && !strcmp(f, fam) && cq_matches(cell, wl, NULL, "plain", match) &&
            !(c_only && cq_language(cell)) && isfinite(cq_median(cell)) &&
            (!best || cq_median(cell) < cq_median(best)))
            best = cell;
    }
    return best;
}

/* The point of a cell: "workload | params" without the implementation's own parameters. */
void cq_point_key(json_t *cell, char *buf, size_t len) { cb_pick_point_key(cell, buf, len); }

int cq_family_index(json_t *cell) { return cb_pick_family_index(cell); }

double cq_mwu_p(json_t *a, json_t *b)
{
    static double xa[MAXSAMPLES], xb[MAXSAMPLES];
    size_t na = cq_samples(a, xa), nb = cq_samples(b, xb);
    return na < MIN_SAMPLES || nb < MIN_SAMPLES ? 1 : cb_mwu(xa, na, xb, nb).p;
}

int cq_own_impl(json_t *cell)
{
    const char *k = cq_kind(cell);
    return k && !strcmp(k, cb_impl_kind_name(CB_KIND_OWN));
}

int cq_outside(json_t *cell)
{
    const char *k = cq_kind(cell);
    return k && (!strcmp(k, cb_impl_kind_name(CB_KIND_PLUGIN)) ||
                 !strcmp(k, cb_impl_kind_name(CB_KIND_EXTERNAL)));
}

/* The cells grouped by file and point: "file\tpoint" -> [[fastest own stackful, fastest own
 * stackless] (null where none), [the cells other() takes]]; with any, other()'s cells of
 * neither family too. */
static json_t *own_groups(const ctx *c, int (*other)(json_t *cell), int any)
{
    json_t *groups = json_object(), *cell;
    size_t i;
    json_array_foreach(c->all, i, cell)
    {
        int k = cq_family_index(cell), own = cq_own_impl(cell);
        if ((k < 0 && (own || !any)) || !cb_cell_ok(cell) ||
            strcmp(cb_str(cell, "variant"), "plain") || !cq_at_defaults(cell) ||
            !isfinite(cq_median(cell)) || (!own && !other(cell)))
            continue;
        char key[700], pk[640];
        cq_point_key(cell, pk, sizeof pk);
        snprintf(key, sizeof key, "%ld\t%s", cq_file_of(cell), pk);
        json_t *g = json_object_get(groups, key);
        if (!g)
            json_object_set_new(groups, key, g = json_pack("[[n, n], []]"));
        if (own) {
            json_t *mine = json_array_get(g, 0), *best = json_array_get(mine, (size_t)k);
            if (json_is_null(best) || cq_median(cell) < cq_median(best))
                json_array_set(mine, (size_t)k, cell);
        } else {
            json_array_append(json_array_get(g, 1), cell);
        }
    }
    return groups;
}

cq_pair *cq_own_pairs(const ctx *c, int (*other)(json_t *cell), int any, size_t *n)
{
    json_t *groups = own_groups(c, other, any), *g;
    size_t cap = 16;
    cq_pair *pr = cb_xcalloc(cap, sizeof *pr);
    const char *key;
    *n = 0;
    json_object_foreach(groups, key, g)
    {
        json_t *p;
        size_t k;
        json_array_foreach(json_array_get(g, 1), k, p)
        {
            json_t *mine = json_array_get(g, 0), *own;
            int k = cq_family_index(p);
            if (k >= 0)
                own = json_array_get(mine, (size_t)k);
            else { /* of neither family: the faster of the two */
                json_t *a = json_array_get(mine, 0), *b = json_array_get(mine, 1);
                own = json_is_null(a) || (!json_is_null(b) && cq_median(b) < cq_median(a)) ? b : a;
            }
            if (json_is_null(own))
                continue;
            if (*n == cap)
                pr = cb_xrealloc(pr, (cap *= 2) * sizeof *pr);
            pr[(*n)++] = (cq_pair){own, p};
        }
    }
    json_decref(groups);
    return pr;
}

const char *cq_winner_name(int winner)
{
    return winner == 0 ? "stackful" : winner == 1 ? "stackless" : "undecided";
}

/* A record's points (ctx.points, docs/record.md): each with the record's cells of its two
 * implementations at its point (the fastest of each, as below), its ratio, interval, p and
 * winner those the full results gave. A point whose cells the record lacks is left out. */
static size_t kept_points(const ctx *c, xpoint **pts, json_t **points_out)
{
    json_t *best = json_object(), *keys = json_array(), *cell, *e; /* "point\timpl" -> cell */
    size_t i, n = 0;
    json_array_foreach(c->all, i, cell)
    {
        if (cq_family_index(cell) < 0 || !cb_cell_ok(cell) ||
            strcmp(cb_str(cell, "variant"), "plain") || !isfinite(cq_median(cell)))
            continue;
        char key[640], ki[720];
        cq_point_key(cell, key, sizeof key);
        snprintf(ki, sizeof ki, "%s\t%s", key, cb_str(cell, "impl"));
        json_t *b = json_object_get(best, ki);
        if (!b || cq_median(cell) < cq_median(b))
            json_object_set(best, ki, cell);
    }
    xpoint *x = cb_xcalloc(json_array_size(c->points) + 1, sizeof *x);
    json_array_foreach(c->points, i, e)
    {
        char key[640], ki[720];
        snprintf(key, sizeof key, "%s | %s", cb_str(e, "workload"), cb_str(e, "point"));
        snprintf(ki, sizeof ki, "%s\t%s", key, cb_str(e, "stackful"));
        json_t *sf = json_object_get(best, ki);
        snprintf(ki, sizeof ki, "%s\t%s", key, cb_str(e, "stackless"));
        json_t *sl = json_object_get(best, ki), *ratio = json_object_get(e, "ratio");
        if (cq_family_index(sf) != 0 || cq_family_index(sl) != 1)
            continue;
        json_array_append_new(keys, json_string(key));
        x[n] = (xpoint){.key = json_string_value(json_array_get(keys, json_array_size(keys) - 1)),
                        .sf = sf,
                        .sl = sl,
                        .r = {.est = json_number_value(json_array_get(ratio, 0)),
                              .lo = NAN,
                              .hi = NAN,
                              .why = "the record keeps no interval for it"},
                        .p = json_number_value(json_object_get(e, "p")),
                        .winner = -1};
        if (json_array_size(ratio) == 3) {
            x[n].r.lo = json_number_value(json_array_get(ratio, 1));
            x[n].r.hi = json_number_value(json_array_get(ratio, 2));
            x[n].r.ok = 1;
            x[n].r.why = NULL;
        }
        for (int w = 0; w < 2; w++)
            if (!strcmp(cb_str(e, "winner"), cq_winner_name(w)))
                x[n].winner = w;
        n++;
    }
    json_decref(best);
    *pts = x;
    *points_out = keys;
    return n;
}

json_t *cq_yours_by_point(const ctx *c)
{
    size_t n;
    cq_pair *pr = cq_own_pairs(c, cq_outside, 1, &n);
    json_t *by = json_object();
    char pk[640];
    for (size_t i = 0; i < n; i++) {
        json_t *p = pr[i].other;
        cq_point_key(p, pk, sizeof pk);
        const char *had = cb_str(by, pk);
        char text[1024] = "";
        cb_append(text, sizeof text, "%s%s%s/%s ", had ? had : "", had ? "; " : "",
                  cb_str(p, "impl"), cb_str(pr[i].own, "impl"));
        cq_ratio_text(text, sizeof text, cq_ratio_iv(p, pr[i].own), NULL, NULL);
        /* the pair is its file's: another than the point's says so */
        if (cq_file_of(p) != cb_pick_point_file(c->doc, p))
            cb_append(text, sizeof text, " (file %ld)", cq_file_of(p) + 1);
        json_object_set_new(by, pk, json_string(text));
    }
    free(pr);
    return by;
}

/* The points with both families (*pts: free() it; its keys live in *points: json_decref it):
 * each point's two cells are pick.h's, from the file whose figures the point takes. */
size_t cq_crossover_points(const ctx *c, xpoint **pts, json_t **points_out)
{
    if (c->points)
        return kept_points(c, pts, points_out);
    json_t *points = cb_pick_fastest(c->doc), *e;
    size_t np = json_object_size(points), n = 0;
    xpoint *x = cb_xcalloc(np + 1, sizeof *x);
    const char *key;
    json_object_foreach(points, key, e)
    {
        if (json_is_null(json_array_get(e, 0)) || json_is_null(json_array_get(e, 1)))
            continue;
        x[n].sf = json_array_get(e, 0);
        x[n].sl = json_array_get(e, 1);
        x[n++].key = key;
    }
    double *p = cb_xcalloc(n + 1, sizeof *p), *adj = cb_xcalloc(n + 1, sizeof *adj);
    for (size_t k = 0; k < n; k++) {
        x[k].r = cq_ratio_iv(x[k].sf, x[k].sl);
        p[k] = cq_mwu_p(x[k].sf, x[k].sl);
    }
    if (n)
        cb_holm(p, adj, n);
    for (size_t k = 0; k < n; k++) {
        int dir = cq_decide(x[k].r, DIFF);
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

int cq_at_defaults(json_t *cell)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(cell, "params"), k,
                        v) if (cb_impl_param_at_default(cell, k, v) == 0) return 0;
    return 1;
}
typedef struct ranked {
    int order;
    const char *impl;
} ranked;

static int by_order(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return x->order != y->order ? (x->order > y->order) - (x->order < y->order)
                                : strcmp(x->impl, y->impl);
}

int cq_pair_point(const ctx *c, const char *wl, const char *a, const char *b, const char *x,
                  const char **impl, long *at)
{
    /* The stackful implementations of the cells, by their rows' stackful_order. */
    ranked r[CB_IMPLS_MAX];
    size_t n = 0, i;
    json_t *cell;
    json_array_foreach(c->cells, i, cell)
    {
        int order = cq_stackful_order(cell);
        const char *name = cb_str(cell, "impl");
        int seen = !order || !name;
        for (size_t k = 0; k < n && !seen; k++)
            seen = !strcmp(r[k].impl, name);
        if (!seen && n < CB_IMPLS_MAX)
            r[n++] = (ranked){order, name};
    }
    qsort(r, n, sizeof *r, by_order);
    for (size_t k = 0; k < n; k++) {
        long va[MAXPTS], vb[MAXPTS];
        size_t na = cq_values(c, wl, r[k].impl, "plain", a, x, va);
        size_t nb = cq_values(c, wl, r[k].impl, "plain", b, x, vb);
        for (size_t p = na; p-- > 0;)
            for (size_t q = 0; q < nb; q++)
                if (va[p] == vb[q]) {
                    *impl = r[k].impl;
                    *at = va[p];
                    return 1;
                }
    }
    return 0;
}

/* The same work: equal checksums and suspensions. */
int cq_same_work(json_t *a, json_t *b)
{
    const char *ca = cb_str(a, "checksum"), *cb = cb_str(b, "checksum");
    return ca && cb && !strcmp(ca, cb) && cq_num(a, "suspensions") == cq_num(b, "suspensions");
}

/* The ok plain cell of impl in file f at cell's point (its workload and parameters, the
 * implementations' own aside), NULL when none. */
json_t *cq_same_point(const ctx *c, json_t *cell, const char *impl, long f)
{
    char want[640], key[640];
    cq_point_key(cell, want, sizeof want);
    json_t *x;
    size_t i;
    json_array_foreach(c->all, i, x)
    {
        if (cq_file_of(x) != f || !cb_cell_ok(x) || strcmp(cb_str(x, "impl"), impl) ||
            strcmp(cb_str(x, "variant"), "plain") || !cq_at_defaults(x))
            continue;
        cq_point_key(x, key, sizeof key);
        if (!strcmp(key, want))
            return x;
    }
    return NULL;
}
