/* Expands --impl x --workload x --param into cells: for each workload, each parameter point
 * (the cartesian product of the values given for its parameters and the implementation's,
 * defaults elsewhere), each implementation. Everything is validated before any cell runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* --quick replaces these defaults (never a value the user gave). */
static const struct {
    const char *workload, *param, *value;
} quick_defaults[] = {
    {"pingpong", "switches", "20000"},
    {"recursive", "height", "10"},
    {"io", "conns", "8"},
    {"io", "msgs", "200"},
};

static const cb_param_arg *user_values(const cb_run_opts *o, const char *name)
{
    for (size_t i = 0; i < o->nparams; i++)
        if (strcmp(o->params[i].name, name) == 0)
            return &o->params[i];
    return NULL;
}

static const char *quick_value(const cb_run_opts *o, const cb_workload *wl, const char *name)
{
    if (!o->quick)
        return NULL;
    for (size_t i = 0; i < sizeof quick_defaults / sizeof quick_defaults[0]; i++)
        if (!strcmp(quick_defaults[i].workload, wl->name) && !strcmp(quick_defaults[i].param, name))
            return quick_defaults[i].value;
    return NULL;
}

typedef struct axis {
    const cb_param_def *def;
    cb_param_val vals[64];
    size_t n;
} axis;

static int add_axis(axis *ax, const cb_param_def *def, const cb_run_opts *o, const cb_workload *wl,
                    char *err, size_t errlen)
{
    const cb_param_arg *ua = user_values(o, def->name);
    const char *q = quick_value(o, wl, def->name);
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
    }
    return 0;
}

static int push_cell(cb_cell **cells, size_t *n, size_t *cap, const cb_cell *c)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        cb_cell *nc = realloc(*cells, *cap * sizeof *nc);
        if (!nc)
            return -1;
        *cells = nc;
    }
    (*cells)[(*n)++] = *c;
    return 0;
}

/* Every --param must name a parameter of some selected workload or implementation. */
static int check_param_names(const cb_run_opts *o, char *err, size_t errlen)
{
    for (size_t k = 0; k < o->nparams; k++) {
        int found = 0;
        char valid[512] = "";
        size_t vl = 0;
        for (size_t pass = 0; pass < 2; pass++) {
            size_t count = pass ? o->nimpls : o->nworkloads;
            for (size_t i = 0; i < count; i++) {
                const cb_param_def *d = pass ? o->impls[i]->params : o->workloads[i]->params;
                for (; d && d->name; d++) {
                    found |= !strcmp(d->name, o->params[k].name);
                    if (!strstr(valid, d->name) && vl < sizeof valid)
                        vl += (size_t)snprintf(valid + vl, sizeof valid - vl, "%s%s",
                                               vl ? ", " : "", d->name);
                }
            }
        }
        if (!found) {
            snprintf(err, errlen,
                     "unknown parameter '%s' for the selected workloads and implementations "
                     "(valid: %s)",
                     o->params[k].name, valid);
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
int cb_grid_build(const cb_run_opts *o, cb_cell **cells, size_t *ncells, char *err, size_t errlen)
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
