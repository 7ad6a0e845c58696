/* The pace of a plan's cells (pace.h). */
#include "pace.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/common/untrusted.h"
#include "harness/measure/rsbcal.h"
#include "harness/results/load.h"
#include "impls/root.h"
#include "results.h"

double cb_pace_model(const cb_run_opts *o, const cb_plan_cell *pc)
{
    const cb_measure_opts *m = &o->measure;
    return (CB_PACE_CALIBRATION_REPS + m->warmup + m->reps) * m->min_rep_ms / 1e3 +
           CB_PACE_PROCESS_S + (pc->cell.impl->external ? CB_PACE_RUNTIME_S : 0);
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

double cb_pace_predict(json_t *pace, unsigned reps, double min_rep_ms)
{
    double wall = num(pace, "wall_s"), rep = num(pace, "rep_ms");
    double warm = num(pace, "warmup_reps"), timed = num(pace, "reps");
    if (!(wall >= 0) || !(rep >= 0) || !(warm >= 0) || !(timed >= 0) || !isfinite(wall + rep))
        return NAN;
    if (rep == 0) /* a program that does not say how long its repetitions were: as it was */
        return wall;
    double fixed = wall - (warm + timed) * rep / 1e3;
    if (fixed < 0)
        fixed = 0;
    return fixed + (warm + reps) * (rep > min_rep_ms ? rep : min_rep_ms) / 1e3;
}

json_t *cb_pace_of(json_t *invocations)
{
    double wall = 0, rep = 0, warm = 0, timed = 0;
    size_t n = json_array_size(invocations), i;
    json_t *e;
    json_array_foreach(invocations, i, e)
    {
        double w = num(e, "wall_s"), r = num(e, "shortest_rep_ms"), u = num(e, "warmup_reps");
        if (!isfinite(w))
            return NULL;
        if (!isfinite(r) || !isfinite(u)) /* a language's program does not say them */
            r = u = 0;
        wall += w, rep += r, warm += u;
        timed += (double)json_array_size(json_object_get(e, "samples_ns_per_op"));
    }
    if (!n)
        return NULL;
    const double v[CB_PACE_FIELDS] = {wall / n, rep / n, warm / n, timed / n};
    json_t *pace = json_object();
    for (size_t f = 0; f < CB_PACE_FIELDS; f++)
        json_object_set_new(pace, cb_pace_fields[f], json_real(v[f]));
    return pace;
}

/* A cell's identity as one text: workload, implementation, variant and every parameter. */
static char *cell_key(const char *wl, const char *impl, const char *variant, json_t *params)
{
    char *p = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
    char *k = cb_xasprintf("%s\x1f%s\x1f%s\x1f%s", wl, impl, variant ? variant : "plain",
                           p ? p : "");
    free(p);
    return k;
}

/* Whether doc was measured on a CPU of the kind of c (vendor, family, model). */
static int same_kind(json_t *doc, const cb_cpu_id *c)
{
    json_t *cpu = json_object_get(json_object_get(doc, "machine"), "cpu");
    const char *v = json_string_value(json_object_get(cpu, "vendor"));
    return v && !strcmp(v, c->vendor) &&
           json_integer_value(json_object_get(cpu, "family")) == c->family &&
           json_integer_value(json_object_get(cpu, "model")) == c->model &&
           json_is_integer(json_object_get(cpu, "family")) &&
           json_is_integer(json_object_get(cpu, "model"));
}

/* This CPU kind's record in DIR (results/fleet/), or NULL with why. */
static json_t *kind_record(const char *dir, char *path, size_t plen, char *why, size_t wlen)
{
    cb_cpu_id c;
    cb_cpu_identify(&c);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, wlen, "no record of this CPU kind: %s cannot be read", dir);
        return NULL;
    }
    json_t *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") || e->d_name[0] == '.')
            continue;
        snprintf(path, plen, "%s/%s", dir, e->d_name);
        json_t *doc = cb_results_load(path, NULL);
        if (doc && cb_results_is_record(doc) && same_kind(doc, &c))
            found = doc;
        else
            json_decref(doc);
    }
    closedir(d);
    if (!found)
        snprintf(why, wlen, "no record of this CPU kind (%s family %d model %d) in %s",
                 cb_quote(c.vendor), c.family, c.model, dir);
    return found;
}

int cb_pace_plan(const cb_run_opts *o, const cb_plan *plan, cb_pace *p, char *err, size_t len)
{
    memset(p, 0, sizeof *p);
    p->ncells = plan->ncells;
    p->pred = cb_xcalloc(plan->ncells + 1, sizeof *p->pred);
    p->extra = cb_xcalloc(plan->ncells + 1, sizeof *p->extra);
    p->measured = cb_xcalloc(plan->ncells + 1, 1);
    json_t *doc = NULL;
    char path[PATH_MAX + 64];
    if (o->pace_path && !strcmp(o->pace_path, "none")) {
        snprintf(p->why, sizeof p->why, "--pace none");
    } else if (o->pace_path) {
        cb_error e;
        if (!(doc = cb_results_load(o->pace_path, &e))) {
            snprintf(err, len, "invalid value '%s' for --pace: %s (valid: a record or results "
                               "file, or none)",
                     cb_quote(o->pace_path), e.msg);
            cb_pace_free(p);
            return -1;
        }
        snprintf(path, sizeof path, "%s", o->pace_path);
    } else {
        char dir[PATH_MAX];
        const char *root = cb_root_dir();
        snprintf(dir, sizeof dir, "%s/results/fleet", root ? root : ".");
        doc = kind_record(dir, path, sizeof path, p->why, sizeof p->why);
    }
    json_t *index = json_object(), *c;
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        /* A cell that file found unsupported took no time there, nor will here. */
        json_t *pace = json_object_get(c, "pace");
        const char *st = json_string_value(json_object_get(c, "status"));
        int unsupported = st && !strcmp(st, "unsupported");
        if (!json_is_object(pace) && !unsupported)
            continue;
        char *k = cell_key(json_string_value(json_object_get(c, "workload")),
                           json_string_value(json_object_get(c, "impl")),
                           json_string_value(json_object_get(c, "variant")),
                           json_object_get(c, "params"));
        json_object_set_new(index, k, unsupported ? json_integer(0) : json_incref(pace));
        free(k);
    }
    if (doc && !json_object_size(index))
        snprintf(p->why, sizeof p->why, "%s keeps no cell's pace (written before it)",
                 cb_quote(path));
    for (size_t j = 0; j < plan->ncells; j++) {
        const cb_plan_cell *pc = &plan->cells[j];
        json_t *h = cb_cell_header(pc);
        char *k = cell_key(pc->cell.wl->name, pc->cell.impl->name, pc->variant,
                           json_object_get(h, "params"));
        json_t *known = json_object_get(index, k);
        double v = json_is_integer(known) ? 0
                                          : cb_pace_predict(known, o->measure.reps,
                                                            o->measure.min_rep_ms);
        free(k);
        json_decref(h);
        p->measured[j] = isfinite(v);
        p->pred[j] = isfinite(v) ? v : cb_pace_model(o, pc);
        p->nmeasured += p->measured[j];
        /* the counting pass: one more process of the cell, in the instrumented build */
        p->extra[j] = pc->counter ? p->pred[j] : 0;
    }
    if (p->nmeasured)
        snprintf(p->source, sizeof p->source, "%s", path);
    else if (!p->why[0]) /* a file with paces, none of them these cells' */
        snprintf(p->why, sizeof p->why, "none of these cells is in %s", cb_quote(path));
    json_decref(index);
    json_decref(doc);
    return 0;
}

void cb_pace_free(cb_pace *p)
{
    free(p->pred);
    free(p->extra);
    free(p->measured);
    p->pred = p->extra = NULL;
    p->measured = NULL;
}
