/* The calibration document (calibrate.h; docs/results-schema.md, "Calibration file"): the
 * sweep, the fit and its twin, every candidate's fit, every point with what each twin predicts
 * there, and the acceptance bound per series. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "calibrate.h"
#include "harness/common/build.h"

/* Two candidates' mispredictions per switch closer than this at every point count the same for
 * the fit: with 2000 switches, one misprediction more at the start or end of a run is 0.0005. */
#define CAL_SAME_COUNT 0.01

static int same_counts(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) >= CAL_SAME_COUNT)
            return 0;
    return 1;
}

/* How the chosen twin's fit predicts one point, for the table, the file and the plot. */
typedef struct cal_pred {
    double jmpret_ns, sites_ns; /* the plain time predicted from each twin (NAN: none) */
    double residual;            /* of the chosen twin's fit (NAN: not one of its points) */
} cal_pred;

/* Each twin predicts with its own fit of the chosen candidate (jf: jmpret's, sf: sites'). */
static cal_pred predict(const cb_rsbfit_point *rp, size_t n, size_t i, const double *xk,
                        const cb_rsbfit_line *jf, const cb_rsbfit_line *sf,
                        cb_rsbfit_baseline twin)
{
    cal_pred p = {cb_rsbfit_predict(rp, n, i, xk, jf, CB_RSBFIT_JMPRET),
                  cb_rsbfit_predict(rp, n, i, xk, sf, CB_RSBFIT_SITES), NAN};
    double m = twin == CB_RSBFIT_JMPRET ? p.jmpret_ns : p.sites_ns;
    if (!isnan(m))
        p.residual = rp[i].plain_ns - m - (twin == CB_RSBFIT_JMPRET ? jf : sf)->c;
    return p;
}

static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

/* The acceptance bound per series (docs/rsb.md, "Calibration"): of the depths it covers (0..32
 * at sites=distinct, 0..40 at same), how many the twin's prediction puts within CB_CAL_BOUND of
 * the measured plain time. The sites twin predicts distinct points only. */
static json_t *bound_json(const cb_cal_point *pts, const cb_rsbfit_point *rp, size_t n,
                          const double *xk, const cb_rsbfit_line *jf, const cb_rsbfit_line *sf)
{
    json_t *rows = json_array();
    for (int twin = CB_RSBFIT_JMPRET; twin <= CB_RSBFIT_SITES; twin++)
        for (size_t i = 0; i < n; i++) {
            /* One row per (impl, sites), made at its first point. */
            size_t first = 0;
            while (first < i && (rp[first].impl != rp[i].impl || rp[first].same != rp[i].same))
                first++;
            if (first != i || (twin == CB_RSBFIT_SITES && rp[i].same))
                continue;
            long max_depth = rp[i].same ? 40 : 32, within = 0, of = 0;
            for (size_t j = 0; j < n; j++) {
                if (rp[j].impl != rp[i].impl || rp[j].same != rp[i].same ||
                    rp[j].depth > max_depth)
                    continue;
                double m = cb_rsbfit_predict(rp, n, j, xk, twin == CB_RSBFIT_JMPRET ? jf : sf,
                                             (cb_rsbfit_baseline)twin);
                if (isnan(m))
                    continue;
                of++;
                within += fabs(m / rp[j].plain_ns - 1) <= CB_CAL_BOUND;
            }
            json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:i, s:I, s:I}", "twin",
                                                  cb_rsbfit_baseline_name((cb_rsbfit_baseline)twin),
                                                  "impl", pts[i].impl, "sites", pts[i].sites,
                                                  "max_depth", (int)max_depth, "within",
                                                  (json_int_t)within, "of", (json_int_t)of));
        }
    return rows;
}

/* Every candidate's fit against the chosen twin (fits), for the file. */
static json_t *candidates_json(const cb_rsb_config *cand, const cb_rsbfit_line *fits,
                               size_t ncand)
{
    json_t *cands = json_array();
    for (size_t k = 0; k < ncand; k++)
        json_array_append_new(
            cands, fits[k].ok ? json_pack("{s:s, s:i, s:f, s:f, s:f, s:f}", "model",
                                          cb_rsb_model_name(cand[k].model), "entries",
                                          (int)cand[k].entries, "ns_per_mispredict", fits[k].cost,
                                          "intercept_ns", fits[k].c, "r2", fits[k].r2, "sse",
                                          fits[k].sse)
                              : json_pack("{s:s, s:i, s:n}", "model",
                                          cb_rsb_model_name(cand[k].model), "entries",
                                          (int)cand[k].entries, "r2"));
    return cands;
}

/* Every point with the chosen candidate's counts (xb) and what each twin's fit predicts there;
 * the fitted twin's squared residuals summed into *sse over *fitted points. */
static json_t *points_json(const cb_cal_opts *o, const cb_cal_point *pts, const cb_rsbfit_point *rp,
                           size_t n, const double *xb, const cb_rsbfit_line *jfit,
                           const cb_rsbfit_line *sfit, cb_rsbfit_baseline baseline, double *sse,
                           size_t *fitted)
{
    json_t *points = json_array();
    for (size_t i = 0; i < n; i++) {
        cal_pred p = predict(rp, n, i, xb, jfit, sfit, baseline);
        if (!isnan(p.residual)) {
            *sse += p.residual * p.residual;
            (*fitted)++;
        }
        json_t *pr = json_array(), *jr = json_array();
        for (long r = 0; r < o->runs; r++) {
            json_array_append_new(pr, json_real(pts[i].plain_runs[r]));
            json_array_append_new(jr, json_real(pts[i].jmpret_runs[r]));
        }
        json_array_append_new(
            points,
            json_pack("{s:s, s:s, s:i, s:f, s:f, s:o, s:o, s:f, s:f, s:o, s:f, s:f, s:o, s:o, "
                      "s:o}",
                      "impl", pts[i].impl, "sites", pts[i].sites, "depth", (int)pts[i].depth,
                      "plain_ns", pts[i].plain_ns, "jmpret_ns", pts[i].jmpret_ns,
                      "plain_ns_runs", pr, "jmpret_ns_runs", jr, "diff_ns",
                      pts[i].plain_ns - pts[i].jmpret_ns, "mispredicted_per_op", xb[i],
                      "residual_ns", real_or_null(p.residual), "jmpret_model_ns", p.jmpret_ns,
                      "jmpret_model_error", p.jmpret_ns / pts[i].plain_ns - 1, "sites_model_ns",
                      real_or_null(p.sites_ns), "sites_model_error",
                      real_or_null(p.sites_ns / pts[i].plain_ns - 1), "hw_ret_mispredicts_per_op",
                      real_or_null(pts[i].hw_per_op)));
    }
    return points;
}

/* The jmpret twin's own check (cb_rsbfit_calibrate), whichever twin was fitted. */
static json_t *twin_json(const cb_cal_point *pts, const cb_rsb_config *cand,
                         const cb_rsbfit_line *jfits, long best, const cb_rsbfit_result *res)
{
    json_t *twin = json_pack("{s:b, s:f}", "ok", res->twin_ok, "tolerance", CB_CAL_BOUND);
    if (res->jmpret_best >= 0) /* the candidate it would have chosen, and checked */
        json_object_set_new(twin, "best",
                            json_pack("{s:s, s:i, s:f}", "model",
                                      cb_rsb_model_name(cand[res->jmpret_best].model), "entries",
                                      (int)cand[res->jmpret_best].entries, "ns_per_mispredict",
                                      jfits[res->jmpret_best].cost));
    /* Its fit of the chosen candidate, which jmpret_model_ns uses: the cost it measures, and
     * what it put down to the build's own mispredictions, a step from step_depth on
     * (docs/rsb.md, "Two twins"). */
    if (jfits[best].ok)
        json_object_set_new(
            twin, "fit",
            json_pack("{s:f, s:f, s:o, s:f}", "ns_per_mispredict", jfits[best].cost,
                      "intercept_ns", jfits[best].c, "step_depth",
                      jfits[best].step_depth > 0 ? json_integer(jfits[best].step_depth)
                                                 : json_null(),
                      "step_ns", jfits[best].step_depth > 0 ? jfits[best].step : 0.0));
    if (res->twin_worst >= 0)
        json_object_set_new(twin, "worst",
                            json_pack("{s:s, s:s, s:i, s:f}", "impl", pts[res->twin_worst].impl,
                                      "sites", pts[res->twin_worst].sites, "depth",
                                      (int)pts[res->twin_worst].depth, "error",
                                      res->twin_worst_error));
    return twin;
}

/* calibrate.h */
json_t *cb_cal_doc(const cb_cal_opts *o, json_t *run, const cb_cpu_id *cpu, const cb_cal_point *pts,
                       const cb_rsbfit_point *rp, size_t n, const cb_rsb_config *cand,
                       const cb_rsbfit_line *jfits, const cb_rsbfit_line *sfits, size_t ncand,
                       const cb_rsbfit_result *res, const char *reason, double **x,
                       const char *pmu_why, double secs)
{
    double hz = json_number_value(json_object_get(json_object_get(run, "machine"), "tsc_hz"));
    const cb_rsbfit_line *fits = res->baseline == CB_RSBFIT_SITES ? sfits : jfits;
    long best = res->best;
    /* Stacks of the same model whose counts agree with the winner's at every point within
     * CAL_SAME_COUNT per switch (they differ only in the run's first and last returns) are the
     * same fit: the smallest of them is reported, the largest as entries_tied_up_to (above N,
     * the sweep never filled the stack and N is a lower bound). */
    size_t lo = (size_t)best, tied = (size_t)best;
    while (lo > 0 && cand[lo - 1].model == cand[best].model && fits[lo - 1].ok &&
           same_counts(x[lo - 1], x[best], n))
        lo--;
    while (tied + 1 < ncand && cand[tied + 1].model == cand[best].model &&
           same_counts(x[tied + 1], x[best], n))
        tied++;
    best = (long)lo;
    const cb_rsbfit_line *f = &fits[best];
    json_t *cands = candidates_json(cand, fits, ncand);
    double sse = 0;
    size_t fitted = 0;
    json_t *points = points_json(o, pts, rp, n, x[best], &jfits[best], &sfits[best],
                                 res->baseline, &sse, &fitted);
    json_t *twin = twin_json(pts, cand, jfits, best, res);
    /* The model a run would use without this calibration, for comparison. */
    cb_rsb_config d = cb_rsbcal_vendor_default(cpu);
    json_t *vendor_default = json_pack("{s:s, s:i}", "model", cb_rsb_model_name(d.model),
                                       "entries", (int)d.entries);
    char created[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return json_pack(
        "{s:s, s:s, s:s, s:o, s:O, s:{s:[s,s], s:s, s:[s,s], s:i, s:I, s:I, s:I, s:f, s:i, s:f}, "
        "s:{s:s, s:s, s:s, s:i, s:i, s:f, s:o, s:f, s:f, s:f}, s:o, s:o, s:o, s:o, s:o, s:o}",
        "schema", "corobench-calibration/1", "created_utc", created, "git_commit",
        cb_build_commit, "cpu", cb_cpu_json(cpu), "machine", json_object_get(run, "machine"),
        "sweep", "impls", "asm", "asmjmp", "workload", "pingpong", "sites", "distinct", "same",
        "max_depth", (int)o->max_depth, "switches", (json_int_t)o->switches, "reps",
        (json_int_t)o->reps, "runs", (json_int_t)o->runs, "min_rep_ms", o->min_rep_ms, "pin_cpu", o->pin_cpu, "seconds", secs,
        "fit", "baseline", cb_rsbfit_baseline_name(res->baseline), "baseline_reason", reason,
        "model", cb_rsb_model_name(cand[best].model), "entries", (int)cand[best].entries,
        "entries_tied_up_to", (int)cand[tied].entries, "ns_per_mispredict", f->cost,
        "tsc_cycles_per_mispredict", hz > 0 ? json_real(f->cost * hz * 1e-9) : json_null(),
        "intercept_ns", f->c, "r2", f->r2, "rms_residual_ns",
        fitted ? sqrt(sse / (double)fitted) : 0.0, "jmpret_twin", twin, "bound",
        bound_json(pts, rp, n, x[best], &jfits[best], &sfits[best]), "pmu",
        pmu_why ? json_pack("{s:b, s:s}", "available", 0, "reason", pmu_why)
                : json_pack("{s:b}", "available", 1),
        "candidates", cands, "points", points, "default", vendor_default);
}
