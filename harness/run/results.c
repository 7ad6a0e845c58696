/* The results document of `corobench run` (docs/results-schema.md): its run object from the
 * options, the cells' headers from the plan, and what an interrupted run leaves unfinished; the
 * document itself and its write are harness/results/write.c's. */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"
#include "harness/results/cell.h"
#include "harness/measure/clock.h"
#include "harness/measure/rsbsim.h"
#include "harness/common/untrusted.h"

/* A string from outside (an argument, a plugin's path or description) as JSON: valid UTF-8
 * (invalid bytes as U+FFFD), or json_string would be NULL and the value lost from the record. */
static json_t *text_json(const char *s)
{
    size_t n = strlen(s);
    if (cb_text_is_clean(s, n))
        return json_string(s);
    char *t = cb_text_clean_dup(s, n, 3 * n + 4, 0);
    json_t *j = json_string(t);
    free(t);
    return j;
}

json_t *cb_run_results_new(const cb_run_opts *o)
{
    json_t *argv = json_array();
    for (int i = 0; i < o->argc; i++)
        json_array_append_new(argv, text_json(o->argv[i]));
    json_t *unavailable = json_object();
    for (size_t i = 0; i < cb_nimpls; i++) {
        const char *why = cb_impl_unavailable(&cb_impls[i]);
        if (why) {
            char key[128];
            snprintf(key, sizeof key, "impl:%s", cb_impls[i].name);
            json_object_set_new(unavailable, key, json_string(why));
        }
    }
    if (strcmp(cb_clock_source(), "tsc") != 0)
        json_object_set_new(unavailable, "tsc",
                            json_string("no invariant TSC; timing uses clock_gettime"));
    json_t *run = json_pack(
        "{s:o, s:i, s:i, s:f, s:o, s:b, s:f, s:s}", "argv", argv, "reps", (int)o->measure.reps,
        "warmup", (int)o->measure.warmup, "min_rep_ms", o->measure.min_rep_ms, "pin_cpu",
        o->pin_cpu >= 0 ? json_integer(o->pin_cpu) : json_null(), "quick", o->quick, "timeout_s",
        o->timeout_s, "statistic",
        "median of the invocations' medians of the repetitions' ns per op, ci95 its 95% interval "
        "from a hierarchical bootstrap (invocations, then repetitions); mad = the median of the "
        "invocations' median absolute deviations");
    /* run.variants, run.rsb, run.rsb_model, run.rsb_entries (docs/rsb.md) */
    json_t *v = json_array();
    for (size_t i = 0; i < o->nvariants; i++)
        json_array_append_new(v, json_string(o->variants[i]));
    json_object_set_new(run, "variants", v);
    json_object_set_new(run, "rsb", json_string(o->rsb_sim ? "sim" : "off"));
    char seed[32];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)o->layout_seed);
    json_object_set_new(run, "invocations", json_integer(o->invocations));
    json_object_set_new(run, "layout_seed", json_string(seed));
    json_object_set_new(run, "interleaved", json_true());
    json_object_set_new(run, "rsb_model",
                        o->rsb_sim ? json_string(cb_rsb_model_name(
                                         (cb_rsb_model)o->measure.rsb_model))
                                   : json_null());
    /* run.plugins: each --impl-lib runtime's name, path, identity when the run started and
     * description (docs/plugin.md) */
    json_t *plugins = json_array();
    for (size_t i = 0; i < cb_nimpls; i++)
        if (cb_impl_plugin_path(&cb_impls[i]))
            json_array_append_new(plugins, json_pack("{s:s, s:o, s:s, s:o}", "name",
                                                     cb_impls[i].name, "path",
                                                     text_json(cb_impl_plugin_path(&cb_impls[i])),
                                                     "identity",
                                                     cb_impl_plugin_identity(&cb_impls[i]),
                                                     "description",
                                                     text_json(cb_impls[i].description)));
    json_object_set_new(run, "plugins", plugins);
    json_object_set_new(run, "rsb_entries", o->rsb_sim
                                                ? json_integer((json_int_t)o->measure.rsb_entries)
                                                : json_null());
    return cb_results_new(run, unavailable, o->pin_cpu);
}

/* The implementation's row as this build has it (docs/results-schema.md, impl_row): the facts a
 * reader takes from the file rather than from its own table, which may be another build's. */
static json_t *impl_row(const cb_impl *im)
{
    json_t *lacks = json_array(), *defaults = json_object();
    for (int c = 0; c < CB_CAP_COUNT; c++)
        if (im->lacks[c])
            json_array_append_new(lacks, json_string(cb_cap_id((cb_cap)c)));
    for (const cb_param_def *d = im->params; d && d->name; d++)
        json_object_set_new(defaults, d->name,
                            d->kind == CB_PARAM_INT
                                ? json_integer((json_int_t)strtoll(d->defval, NULL, 10))
                                : json_string(d->defval));
    json_t *row = json_pack("{s:s, s:o, s:o}", "kind", cb_impl_kind_name(im->kind), "lacks",
                            lacks, "defaults", defaults);
    if (im->stackful_order)
        json_object_set_new(row, "stackful_order", json_integer(im->stackful_order));
    if (im->colour) {
        json_object_set_new(row, "colour", json_string(im->colour));
        json_object_set_new(row, "point", json_integer(im->point));
    }
    return row;
}

json_t *cb_cell_header(const cb_plan_cell *pc)
{
    const cb_cell *c = &pc->cell;
    json_t *params = cb_params_json(&c->params);
    return json_pack("{s:s, s:s, s:o, s:s, s:o, s:s, s:s}", "impl", c->impl->name, "family",
                     cb_impl_family(c->impl), "impl_row", impl_row(c->impl), "workload",
                     c->wl->name, "params", params, "variant", pc->variant, "unit",
                     cb_wl_unit(c->wl, &c->params));
}

void cb_results_interrupted(json_t *doc, const cb_plan *plan, size_t done)
{
    json_t *run = json_object_get(doc, "run"), *unfinished = json_array();
    json_object_set_new(run, "interrupted", json_true());
    for (size_t i = done; i < plan->ncells; i++) {
        const cb_plan_cell *pc = &plan->cells[i];
        json_t *h = cb_cell_header(pc);
        char p[512];
        cb_cell_params_text(h, 1, p, sizeof p);
        char *text =
            cb_xasprintf("%s %s/%s %s", pc->cell.wl->name, pc->cell.impl->name, pc->variant, p);
        json_array_append_new(unfinished, json_string(text));
        free(text);
        json_decref(h);
    }
    json_object_set_new(run, "unfinished", unfinished);
}

