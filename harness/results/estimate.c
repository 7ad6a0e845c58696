/* The samples of a results cell grouped by invocation (estimate.h), for interval.h. */
#include "estimate.h"

#include "harness/common/alloc.h"

#include <stdlib.h>

/* The positive numbers of an array into a new row; their count. */
static size_t row(json_t *a, double **out)
{
    json_t *v;
    size_t i, n = 0;
    *out = cb_xcalloc(json_array_size(a) + 1, sizeof **out);
    json_array_foreach(a, i, v)
    {
        if (json_is_number(v) && json_number_value(v) > 0)
            (*out)[n++] = json_number_value(v);
    }
    return n;
}

int cb_cell_samples_get(json_t *cell, cb_cell_samples *cs)
{
    json_t *invs = json_object_get(cell, "invocations"), *inv;
    size_t k = json_is_array(invs) ? json_array_size(invs) : 1, i;
    *cs = (cb_cell_samples){0};
    cs->x = cb_xcalloc(k + 1, sizeof *cs->x);
    cs->n = cb_xcalloc(k + 1, sizeof *cs->n);
    if (json_is_array(invs) && k) {
        json_array_foreach(invs, i, inv)
        {
            cs->n[i] = row(json_object_get(inv, "samples_ns_per_op"), &cs->x[i]);
        }
    } else {
        k = 1; /* schema 1: one process's repetitions */
        cs->n[0] = row(json_object_get(cell, "samples_ns_per_op"), &cs->x[0]);
    }
    cs->s = (cb_inv_samples){(const double *const *)cs->x, cs->n, k};
    for (i = 0; i < k; i++)
        if (!cs->n[i]) {
            cb_cell_samples_free(cs);
            return -1;
        }
    return 0;
}

void cb_cell_samples_free(cb_cell_samples *cs)
{
    for (size_t i = 0; cs->x && i < cs->s.k; i++)
        free(cs->x[i]);
    free(cs->x);
    free(cs->n);
    *cs = (cb_cell_samples){0};
}

int cb_cell_estimate(json_t *cell, cb_estimate *e)
{
    cb_cell_samples cs;
    if (cb_cell_samples_get(cell, &cs))
        return -1;
    int rc = cb_estimate_cell(&cs.s, e);
    cb_cell_samples_free(&cs);
    return rc;
}

int cb_cell_ratio(json_t *num, json_t *den, cb_estimate *e)
{
    cb_cell_samples a, b;
    if (cb_cell_samples_get(num, &a))
        return -1;
    if (cb_cell_samples_get(den, &b)) {
        cb_cell_samples_free(&a);
        return -1;
    }
    int rc = cb_estimate_ratio(&a.s, &b.s, e);
    cb_cell_samples_free(&a);
    cb_cell_samples_free(&b);
    return rc;
}

size_t cb_cell_invocations(json_t *cell)
{
    cb_cell_samples cs;
    if (cb_cell_samples_get(cell, &cs))
        return 0;
    size_t k = cs.s.k;
    cb_cell_samples_free(&cs);
    return k;
}
