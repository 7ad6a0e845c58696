/* calibrate's fit (calibrate.h): the counting run's candidates and the points handed to
 * harness/measure/rsbfit.c, which checks the jmpret twin and picks the twin and the candidate;
 * why that twin, and the calibration document from the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "harness/common/alloc.h"

/* The candidates of the counting run: cand[k] (model and size) and x[k][i], candidate k's
 * simulated mispredictions per switch at point i. Their number. */
static size_t candidates(const cb_cal_point *pts, long n, cb_rsb_config **cand, double ***x)
{
    json_t *c0 = pts[0].cand;
    size_t ncand = json_array_size(c0);
    *cand = cb_xcalloc(ncand + 1, sizeof **cand);
    *x = cb_xcalloc(ncand + 1, sizeof **x);
    for (size_t k = 0; k < ncand; k++) {
        json_t *ck = json_array_get(c0, k);
        cb_rsb_model_parse(json_string_value(json_object_get(ck, "model")) ?: "",
                           &(*cand)[k].model);
        (*cand)[k].entries = (unsigned)json_integer_value(json_object_get(ck, "entries"));
        (*x)[k] = cb_xcalloc((size_t)n, sizeof *(*x)[k]);
        for (long i = 0; i < n; i++)
            (*x)[k][i] = json_number_value(
                json_object_get(json_array_get(pts[i].cand, k), "mispredicted_per_op"));
    }
    return ncand;
}

/* Why the fit's twin was chosen, for the file and the table. */
static void twin_reason(const cb_cal_opts *o, const cb_rsbfit_result *res, const cb_cal_point *pts,
                        char *reason, size_t len)
{
    if (o->baseline != CB_RSBFIT_AUTO)
        snprintf(reason, len, "chosen with --baseline");
    else if (res->baseline == CB_RSBFIT_JMPRET)
        snprintf(reason, len,
                 "the jmpret build passed its check as a twin: at sites=same, jmpret + cost x "
                 "mispredicted + its step is within %.0f%% of plain at every depth",
                 100 * CB_CAL_BOUND);
    else
        snprintf(reason, len,
                 "the jmpret build failed its check as a twin: at sites=same, %s depth %ld, "
                 "jmpret + cost x mispredicted + its step is %+.0f%% off plain (docs/rsb.md, "
                 "\"Why two twins\")",
                 pts[res->twin_worst].impl, pts[res->twin_worst].depth,
                 100 * res->twin_worst_error);
}

json_t *cb_cal_fit(const cb_cal_opts *o, json_t *run, const cb_cpu_id *cpu,
                   const cb_cal_point *pts, long n, const char *pmu_why, double secs)
{
    cb_rsb_config *cand;
    double **x;
    size_t ncand = candidates(pts, n, &cand, &x);
    cb_rsbfit_line *jfits = cb_xcalloc(ncand + 1, sizeof *jfits);
    cb_rsbfit_line *sfits = cb_xcalloc(ncand + 1, sizeof *sfits);
    cb_rsbfit_point *rp = cb_xcalloc((size_t)n + 1, sizeof *rp);
    for (long i = 0; i < n; i++)
        rp[i] = (cb_rsbfit_point){strcmp(pts[i].impl, pts[0].impl) != 0,
                                  !strcmp(pts[i].sites, "same"), pts[i].depth, pts[i].plain_ns,
                                  pts[i].jmpret_ns};
    cb_rsbfit_result res;
    json_t *doc = NULL;
    if (cb_rsbfit_calibrate(rp, (size_t)n, (const double *const *)x, ncand, o->baseline,
                            CB_CAL_BOUND, jfits, sfits, &res) != 0 ||
        res.best < 0) {
        fprintf(stderr, "corobench calibrate: no candidate fits the %s twin (no model's "
                        "mispredictions grow with the time it measures here)\n",
                cb_rsbfit_baseline_name(res.baseline));
    } else {
        char reason[512];
        twin_reason(o, &res, pts, reason, sizeof reason);
        doc = cb_cal_doc(o, run, cpu, pts, rp, (size_t)n, cand, jfits, sfits, ncand, &res,
                         reason, x, pmu_why, secs);
    }
    for (size_t k = 0; k < ncand; k++)
        free(x[k]);
    free(x);
    free(rp);
    free(cand);
    free(jfits);
    free(sfits);
    return doc;
}
