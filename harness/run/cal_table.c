/* calibrate's table on stdout (calibrate.h), from the calibration document: a row per point,
 * then the fit, the twin, how far ahead the winner is, and the acceptance bound. */
#include <string.h>

#include "calibrate.h"

static void print_pct(FILE *out, json_t *v)
{
    if (json_is_number(v))
        fprintf(out, " %+8.1f%%", 100 * json_number_value(v));
    else
        fprintf(out, " %9s", "-");
}

/* One row per point of the sweep. */
static void print_points(json_t *doc, FILE *out)
{
    json_t *p;
    int pmu = json_is_true(json_object_get(json_object_get(doc, "pmu"), "available"));
    size_t i;
    fprintf(out, "%-7s %-9s %5s %9s %9s %13s %9s %9s %9s%s\n", "impl", "sites", "depth",
            "plain ns", "jmpret ns", "mispredicted", "resid ns", "jmpret%", "sites%",
            pmu ? "  hw ret-mispredicts" : "");
    json_array_foreach(json_object_get(doc, "points"), i, p)
    {
        json_t *r = json_object_get(p, "residual_ns");
        fprintf(out, "%-7s %-9s %5d %9.1f %9.1f %13.2f",
                json_string_value(json_object_get(p, "impl")),
                json_string_value(json_object_get(p, "sites")),
                (int)json_integer_value(json_object_get(p, "depth")),
                json_number_value(json_object_get(p, "plain_ns")),
                json_number_value(json_object_get(p, "jmpret_ns")),
                json_number_value(json_object_get(p, "mispredicted_per_op")));
        if (json_is_number(r))
            fprintf(out, " %9.1f", json_number_value(r));
        else
            fprintf(out, " %9s", "-");
        print_pct(out, json_object_get(p, "jmpret_model_error"));
        print_pct(out, json_object_get(p, "sites_model_error"));
        if (pmu)
            fprintf(out, "  %19.2f",
                    json_number_value(json_object_get(p, "hw_ret_mispredicts_per_op")));
        fputc('\n', out);
    }
}

/* calibrate.h */
void cb_cal_print_table(json_t *doc, FILE *out)
{
    json_t *fit = json_object_get(doc, "fit");
    print_points(doc, out);
    json_t *cpu = json_object_get(doc, "cpu");
    fprintf(out,
            "fit: %s %d on %s (%s family %d model %d stepping %d, microcode %s): "
            "%.2f ns per mispredicted return",
            json_string_value(json_object_get(fit, "model")),
            (int)json_integer_value(json_object_get(fit, "entries")),
            json_string_value(json_object_get(cpu, "model_name")),
            json_string_value(json_object_get(cpu, "vendor")),
            (int)json_integer_value(json_object_get(cpu, "family")),
            (int)json_integer_value(json_object_get(cpu, "model")),
            (int)json_integer_value(json_object_get(cpu, "stepping")),
            json_string_value(json_object_get(cpu, "microcode")),
            json_number_value(json_object_get(fit, "ns_per_mispredict")));
    if (json_is_number(json_object_get(fit, "tsc_cycles_per_mispredict")))
        fprintf(out, " (%.1f TSC cycles)",
                json_number_value(json_object_get(fit, "tsc_cycles_per_mispredict")));
    fprintf(out, ", intercept %.1f ns, R^2 %.3f, rms residual %.1f ns\n",
            json_number_value(json_object_get(fit, "intercept_ns")),
            json_number_value(json_object_get(fit, "r2")),
            json_number_value(json_object_get(fit, "rms_residual_ns")));
    fprintf(out, "twin: %s (%s)\n", json_string_value(json_object_get(fit, "baseline")),
            json_string_value(json_object_get(fit, "baseline_reason")));
    json_t *jt = json_object_get(json_object_get(doc, "jmpret_twin"), "fit");
    if (json_is_integer(json_object_get(jt, "step_depth")))
        fprintf(out, "the jmpret build's own mispredictions: %+.1f ns per switch from depth %d on "
                     "(its fit's step)\n",
                -json_number_value(json_object_get(jt, "step_ns")),
                (int)json_integer_value(json_object_get(jt, "step_depth")));
    long n = (long)json_integer_value(json_object_get(fit, "entries"));
    long up = (long)json_integer_value(json_object_get(fit, "entries_tied_up_to"));
    if (up > n)
        fprintf(out, "note: %s %ld..%ld count the same over this sweep (its depths never fill "
                     "them): %ld entries is a lower bound\n",
                json_string_value(json_object_get(fit, "model")), n, up, n);
    /* How far ahead the winner is: the best of the other model, and the vendor default. */
    const char *def_model = json_string_value(json_object_get(json_object_get(doc, "default"),
                                                              "model"));
    long def_n = (long)json_integer_value(json_object_get(json_object_get(doc, "default"),
                                                          "entries"));
    json_t *other = NULL, *def = NULL, *k;
    size_t i2;
    json_array_foreach(json_object_get(doc, "candidates"), i2, k)
    {
        const char *km = json_string_value(json_object_get(k, "model"));
        if (!json_is_number(json_object_get(k, "r2")))
            continue;
        if (def_model && !strcmp(km, def_model) &&
            json_integer_value(json_object_get(k, "entries")) == def_n)
            def = k;
        if (strcmp(km, json_string_value(json_object_get(fit, "model"))) &&
            (!other || json_number_value(json_object_get(k, "r2")) >
                           json_number_value(json_object_get(other, "r2"))))
            other = k;
    }
    json_t *show[2] = {other, def};
    static const char *const what[2] = {"best of the other model", "this vendor's default"};
    for (int w = 0; w < 2; w++)
        if (show[w])
            fprintf(out, "%s: %s %d, R^2 %.3f, %.2f ns per mispredicted return\n", what[w],
                    json_string_value(json_object_get(show[w], "model")),
                    (int)json_integer_value(json_object_get(show[w], "entries")),
                    json_number_value(json_object_get(show[w], "r2")),
                    json_number_value(json_object_get(show[w], "ns_per_mispredict")));
    fprintf(out, "bound (model within %.0f%% of plain):", 100 * CB_CAL_BOUND);
    json_array_foreach(json_object_get(doc, "bound"), i2, k)
        fprintf(out, "%s %s twin, %s %s 0..%d: %d of %d", i2 ? ";" : "",
                json_string_value(json_object_get(k, "twin")),
                json_string_value(json_object_get(k, "impl")),
                json_string_value(json_object_get(k, "sites")),
                (int)json_integer_value(json_object_get(k, "max_depth")),
                (int)json_integer_value(json_object_get(k, "within")),
                (int)json_integer_value(json_object_get(k, "of")));
    fputc('\n', out);
    fprintf(out, "columns: mispredicted = simulated per switch under the fit's model (plain "
                 "build); resid = the fitted twin's residual; jmpret%% = (jmpret + cost x "
                 "mispredicted + step) / plain - 1; sites%% = (plain at sites=same + cost x "
                 "(mispredicted "
                 "- its mispredicted)) / plain - 1\n");
}
