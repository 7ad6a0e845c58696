/* The plan (plan.h). Expands --impl x --workload x --param into cells: for each workload, each
 * parameter point (the cartesian product of the values given for its parameters and the
 * implementation's, defaults elsewhere), each implementation; then each build variant, naming
 * the binary of each. Everything is validated before any cell runs. */
#include "plan.h"

#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/measure/rsbsim.h"

/* The values given for a parameter of wl: `--param WORKLOAD.NAME=...` (that workload only)
 * before `--param NAME=...` (every workload and implementation that has NAME). */
static const cb_param_arg *user_values(const cb_run_opts *o, const cb_workload *wl,
                                       const char *name)
{
    const cb_param_arg *any = NULL;
    size_t wn = strlen(wl->name);
    for (size_t i = 0; i < o->nparams; i++) {
        const char *n = o->params[i].name;
        if (!strncmp(n, wl->name, wn) && n[wn] == '.' && !strcmp(n + wn + 1, name))
            return &o->params[i];
        if (!strcmp(n, name))
            any = &o->params[i];
    }
    return any;
}

typedef struct axis {
    const cb_param_def *def;
    cb_param_val vals[64];
    size_t n;
} axis;

static int add_axis(axis *ax, const cb_param_def *def, const cb_run_opts *o, const cb_workload *wl,
                    char *err, size_t errlen)
{
    const cb_param_arg *ua = user_values(o, wl, def->name);
    const char *q = o->quick ? def->quick : NULL; /* never over a value the user gave */
    ax->def = def;
    ax->n = 0;
    size_t n = ua ? ua->nvalues : 1;
    if (n > sizeof ax->vals / sizeof ax->vals[0]) {
        snprintf(err, errlen, "too many values for parameter %s (at most %zu)", def->name,
                 sizeof ax->vals / sizeof ax->vals[0]);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *text = ua ? ua->values[i] : q ? q : def->defval;
        if (cb_param_parse(def, text, &ax->vals[ax->n++], err, errlen) != 0)
            return -1;
        /* The same value twice would be the same cell twice, which no reader accepts. */
        for (size_t j = 0; j < i; j++)
            if (def->kind == CB_PARAM_INT ? ax->vals[j].i == ax->vals[i].i
                                          : !strcmp(ax->vals[j].s, ax->vals[i].s)) {
                snprintf(err, errlen,
                         "parameter %s lists the same value twice ('%s' and '%s') (valid: each "
                         "value once)",
                         def->name, cb_quote(ua->values[j]), cb_quote(text));
                return -1;
            }
    }
    return 0;
}

static int push_cell(cb_cell **cells, size_t *n, size_t *cap, const cb_cell *c)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        cb_cell *nc = cb_xrealloc(*cells, *cap * sizeof *nc);
        *cells = nc;
    }
    (*cells)[(*n)++] = *c;
    return 0;
}

/* Whether list ("a, b, c") holds name as one of its items: exactly, not as part of another
 * (strstr dropped spawn's `n`, in `conns`, from the valid names). */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Every --param must name a parameter of some selected workload or implementation; a
 * WORKLOAD.NAME one, a parameter of that selected workload (or of an implementation). */
static int check_param_names(const cb_run_opts *o, char *err, size_t errlen)
{
    for (size_t k = 0; k < o->nparams; k++) {
        int found = 0;
        char valid[512] = "";
        size_t vl = 0;
        const char *name = o->params[k].name, *dot = strchr(name, '.');
        for (size_t pass = 0; pass < 2; pass++) {
            size_t count = pass ? o->nimpls : o->nworkloads;
            for (size_t i = 0; i < count; i++) {
                const cb_param_def *d = pass ? o->impls[i]->params : o->workloads[i]->params;
                const char *wl = o->workloads[pass ? 0 : i]->name, *want = name;
                if (dot && !pass && (strncmp(name, wl, (size_t)(dot - name)) ||
                                     wl[dot - name] != '\0'))
                    continue; /* scoped to another workload */
                if (dot)
                    want = dot + 1;
                for (; d && d->name; d++) {
                    found |= !strcmp(d->name, want);
                    if (!listed(valid, d->name) && vl < sizeof valid)
                        vl += (size_t)snprintf(valid + vl, sizeof valid - vl, "%s%s",
                                               vl ? ", " : "", d->name);
                }
            }
        }
        if (!found) {
            /* The nearest of every NAME and WORKLOAD.NAME of the selection. */
            cb_nearest near;
            cb_nearest_init(&near, name);
            for (size_t w = 0; w < o->nworkloads; w++)
                for (size_t pass = 0; pass < 2; pass++) {
                    size_t count = pass ? o->nimpls : 1;
                    for (size_t i = 0; i < count; i++)
                        for (const cb_param_def *d = pass ? o->impls[i]->params
                                                          : o->workloads[w]->params;
                             d && d->name; d++) {
                            char scoped[160];
                            snprintf(scoped, sizeof scoped, "%s.%s", o->workloads[w]->name,
                                     d->name);
                            cb_nearest_offer(&near, dot ? scoped : d->name);
                        }
                }
            snprintf(err, errlen,
                     "unknown parameter '%s' for the selected workloads and implementations%s "
                     "(valid: %s)",
                     cb_quote(o->params[k].name), cb_nearest_hint(&near), valid);
            return -1;
        }
    }
    return 0;
}

/* Advances an odometer over axes; 0 when it wrapped around (all points visited). */
static int next_point(const axis *axes, size_t nax, size_t *idx)
{
    size_t a = nax;
    while (a > 0 && ++idx[a - 1] == axes[a - 1].n)
        idx[--a] = 0;
    return a > 0;
}

static int build_axes(axis *axes, size_t *nax, const cb_param_def *defs, const cb_run_opts *o,
                      const cb_workload *wl, char *err, size_t errlen)
{
    *nax = 0;
    for (const cb_param_def *d = defs; d && d->name; d++)
        if (add_axis(&axes[(*nax)++], d, o, wl, err, errlen))
            return -1;
    return 0;
}

/* Order: workload, then workload parameter point, then implementation (then its own
 * parameters), so that cells which compare sit next to each other. */
static int grid_build(const cb_run_opts *o, cb_cell **cells, size_t *ncells, char *err,
                      size_t errlen)
{
    size_t cap = 0;
    *cells = NULL;
    *ncells = 0;
    if (check_param_names(o, err, errlen))
        return -1;
    for (size_t w = 0; w < o->nworkloads; w++) {
        const cb_workload *wl = o->workloads[w];
        axis wax[CB_MAX_PARAMS], iax[CB_MAX_PARAMS];
        size_t nw, ni, widx[CB_MAX_PARAMS] = {0};
        if (build_axes(wax, &nw, wl->params, o, wl, err, errlen))
            return -1;
        do {
            for (size_t i = 0; i < o->nimpls; i++) {
                const cb_impl *im = o->impls[i];
                size_t iidx[CB_MAX_PARAMS] = {0};
                if (build_axes(iax, &ni, im->params, o, wl, err, errlen))
                    return -1;
                do {
                    cb_cell c = {.impl = im, .wl = wl};
                    for (size_t a = 0; a < nw; a++)
                        c.params.v[c.params.n++] = wax[a].vals[widx[a]];
                    for (size_t a = 0; a < ni; a++)
                        c.params.v[c.params.n++] = iax[a].vals[iidx[a]];
                    if (wl->check && wl->check(&c.params, err, errlen))
                        return -1;
                    if (push_cell(cells, ncells, &cap, &c)) {
                        snprintf(err, errlen, "out of memory building the grid");
                        return -1;
                    }
                } while (next_point(iax, ni, iidx));
            }
        } while (next_point(wax, nw, widx));
    }
    return 0;
}

/* bin/corobench, bin/corobench-jmpret, bin/corobench-rsbsim, bin/corobench-jmpret-rsbsim: next
 * to the running binary. */
static char *variant_binary(const char *variant, int counting)
{
    char dir[PATH_MAX];
    cb_bin_dir(dir, sizeof dir);
    int plain = !strcmp(variant, "plain");
    return cb_xasprintf("%s/corobench%s%s%s", dir, plain ? "" : "-", plain ? "" : variant,
                        counting ? "-rsbsim" : "");
}

static int need_binary(const char *path, const char *why)
{
    if (access(path, X_OK) == 0)
        return 0;
    return cb_usage_error("%s needs %s, which is not built (valid: build it with 'make "
                          "variants', x86-64 only)",
                          why, path);
}

/* The binaries of each variant: the timing one (NULL for this build's own variant) and the
 * counting one. Both must exist before anything runs. */
static int name_binaries(const cb_run_opts *o, cb_plan *plan, const char *bins[][2])
{
    int rc;
    if (cb_rsbsim_instrumented())
        return cb_usage_error("this binary is instrumented for the return-stack simulator and "
                              "only runs counting passes (valid: time with bin/corobench or "
                              "bin/corobench-jmpret, adding --rsb sim)");
    for (size_t v = 0; v < o->nvariants; v++) {
        char why[64];
        snprintf(why, sizeof why, "--variant %s", o->variants[v]);
        bins[v][0] = bins[v][1] = NULL;
        if (strcmp(o->variants[v], cb_build_variant))
            bins[v][0] = plan->paths[2 * v] = variant_binary(o->variants[v], 0);
        if (o->rsb_sim)
            bins[v][1] = plan->paths[2 * v + 1] = variant_binary(o->variants[v], 1);
        if (o->binaries_unchecked)
            continue;
        if ((bins[v][0] && (rc = need_binary(bins[v][0], why))) ||
            (bins[v][1] && (rc = need_binary(bins[v][1], "--rsb sim"))))
            return rc;
    }
    return CB_OPTS_PARSED;
}

/* --filter: keeps the cells whose text matches (a leading '-': those that do not), each with
 * its index in the whole plan, so that a cell's layouts are the ones it has in the whole run. */
static int filter_cells(const char *filter, cb_plan *plan)
{
    int invert = filter[0] == '-';
    regex_t re;
    if (regcomp(&re, filter + invert, REG_EXTENDED | REG_NOSUB) != 0) /* checked by options.c */
        return cb_usage_error("invalid --filter '%s'", cb_quote(filter));
    size_t kept = 0;
    for (size_t i = 0; i < plan->ncells; i++) {
        char text[1024];
        cb_plan_cell_text(&plan->cells[i], text, sizeof text);
        if ((regexec(&re, text, 0, NULL, 0) == 0) != invert)
            plan->cells[kept++] = plan->cells[i];
    }
    regfree(&re);
    plan->ncells = kept;
    if (kept)
        return CB_OPTS_PARSED;
    char first[1024] = "";
    if (plan->nselected)
        cb_plan_cell_text(&plan->cells[0], first, sizeof first);
    return cb_usage_error("--filter '%s' matches none of the %zu cells selected (valid: a POSIX "
                          "extended regular expression over their WORKLOAD/IMPL/NAME=VALUE/... "
                          "text, as '%s')",
                          cb_quote(filter), plan->nselected, cb_quote(first));
}

int cb_plan_build(const cb_run_opts *o, cb_plan *plan)
{
    cb_cell *cells;
    size_t ncells;
    char err[1024];
    const char *bins[2][2];
    int rc;
    *plan = (cb_plan){0};
    if (grid_build(o, &cells, &ncells, err, sizeof err) != 0)
        return cb_usage_error("%s", err);
    if ((rc = name_binaries(o, plan, bins)) != CB_OPTS_PARSED) {
        free(cells);
        return rc;
    }
    size_t n = ncells * o->nvariants;
    plan->cells = cb_xcalloc(n ? n : 1, sizeof *plan->cells);
    for (size_t i = 0, k = 0; i < ncells; i++)
        for (size_t v = 0; v < o->nvariants; v++, k++)
            plan->cells[k] = (cb_plan_cell){cells[i], o->variants[v], bins[v][0],
                                            /* the simulator sees corobench's code only */
                                            cb_impl_is_language(cells[i].impl) ? NULL
                                                                               : bins[v][1],
                                            k};
    plan->ncells = plan->nselected = n;
    free(cells);
    if (o->filter && (rc = filter_cells(o->filter, plan)) != CB_OPTS_PARSED) {
        cb_plan_free(plan);
        return rc;
    }
    return CB_OPTS_PARSED;
}

void cb_plan_cell_text(const cb_plan_cell *pc, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s/%s", pc->cell.wl->name, pc->cell.impl->name);
    for (size_t i = 0; i < pc->cell.params.n && n < len; i++) {
        const cb_param_val *v = &pc->cell.params.v[i];
        n += v->def->kind == CB_PARAM_INT
                 ? (size_t)snprintf(buf + n, len - n, "/%s=%" PRId64, v->def->name, v->i)
                 : (size_t)snprintf(buf + n, len - n, "/%s=%s", v->def->name, v->s);
    }
    if (n < len)
        snprintf(buf + n, len - n, "/variant=%s", pc->variant);
}

void cb_plan_free(cb_plan *plan)
{
    free(plan->cells);
    for (size_t i = 0; i < sizeof plan->paths / sizeof plan->paths[0]; i++)
        free(plan->paths[i]);
    *plan = (cb_plan){0};
}
