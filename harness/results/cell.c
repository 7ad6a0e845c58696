/* Text about a results cell, shared by the run's table and the readers: its parameters, its
 * overhead over the direct baseline, the letters flagging doubtful timing, its workload's unit,
 * and the label of a simulated count's model (docs/results-schema.md). */
#include "cell.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "harness/common/alloc.h"
#include "harness/common/stats.h"
#include "harness/common/untrusted.h"
#include "impls/impls.h"

/* Whether value is the default text defval of a parameter of this kind. */
static int is_default(json_t *value, json_t *def)
{
    if (json_is_integer(def))
        return json_is_integer(value) && json_integer_value(value) == json_integer_value(def);
    return json_is_string(value) && json_is_string(def) &&
           !strcmp(json_string_value(value), json_string_value(def));
}

int cb_impl_param_at_default(json_t *cell, const char *name, json_t *value)
{
    /* The file's own row (impl_row.defaults); a file written before it: this build's table. */
    json_t *defaults = json_object_get(json_object_get(cell, "impl_row"), "defaults");
    if (json_is_object(defaults)) {
        json_t *def = json_object_get(defaults, name);
        return def ? is_default(value, def) : -1;
    }
    const cb_impl *im = cb_impl_find(json_string_value(json_object_get(cell, "impl")) ?: "");
    for (const cb_param_def *d = im ? im->params : NULL; d && d->name; d++) {
        if (strcmp(d->name, name))
            continue;
        if (d->kind == CB_PARAM_INT)
            return json_is_integer(value) && json_integer_value(value) == strtoll(d->defval, NULL, 10);
        return json_is_string(value) && !strcmp(json_string_value(value), d->defval);
    }
    return -1;
}

/* The parameters of cell as "name=value" tokens: the workload's (workload 1) or the
 * implementation's off their defaults (impl 1). */
static void params_text(json_t *cell, int workload, int impl, char *buf, size_t len)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    buf[0] = '\0';
    json_object_foreach(json_object_get(cell, "params"), k, v)
    {
        int at_default = cb_impl_param_at_default(cell, k, v);
        if (at_default < 0 ? !workload : (!impl || at_default))
            continue;
        if (json_is_integer(v))
            n += (size_t)snprintf(buf + n, len - n, "%s%s=%lld", n ? " " : "", k,
                                  (long long)json_integer_value(v));
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", k,
                                  json_string_value(v));
        if (n >= len)
            break;
    }
}

void cb_cell_params_text(json_t *cell, int impl_params, char *buf, size_t len)
{
    params_text(cell, 1, impl_params, buf, len);
}

void cb_cell_impl_params_text(json_t *cell, char *buf, size_t len)
{
    params_text(cell, 0, 1, buf, len);
}


/* The key of a cell's point in the direct index: workload, variant and workload parameters,
 * joined by a byte no name or parameter text holds (the reader refuses control characters). */
static void direct_key(json_t *cell, char *buf, size_t len)
{
    char params[512];
    cb_cell_params_text(cell, 0, params, sizeof params);
    snprintf(buf, len, "%s\x1f%s\x1f%s", json_string_value(json_object_get(cell, "workload")) ?: "",
             json_string_value(json_object_get(cell, "variant")) ?: "", params);
}

json_t *cb_cell_direct_index(json_t *cells)
{
    json_t *index = json_object(), *c;
    char key[1200];
    size_t i;
    json_array_foreach(cells, i, c)
    {
        /* direct's: omp is of the baseline family too (no coroutine), on W threads */
        const char *im = json_string_value(json_object_get(c, "impl"));
        const char *st = json_string_value(json_object_get(c, "status"));
        if (!im || strcmp(im, cb_impl_name(CB_IMPL_DIRECT)) || !st || strcmp(st, "ok") ||
            !json_is_string(json_object_get(c, "workload")))
            continue;
        direct_key(c, key, sizeof key);
        if (!json_object_get(index, key)) /* the first of the file's order, as a scan found */
            json_object_set(index, key, c);
    }
    return index;
}

double cb_cell_direct_ns(json_t *index, json_t *cell)
{
    char key[1200];
    direct_key(cell, key, sizeof key);
    json_t *c = json_object_get(index, key);
    return c ? json_number_value(json_object_get(json_object_get(c, "ns_per_op"), "median")) : -1;
}

const char cb_cell_flags_legend[] =
    "flags: P preempted during the kept repetitions, S steal time by the hypervisor,\n"
    "D drift over 3% between the first and second half of the samples (unstable),\n"
    "B repetitions shorter than min_rep_ms (batch limited)";

const char *cb_cell_flags(json_t *cell, char *buf, size_t len)
{
    json_t *steal = json_object_get(cell, "steal_ns_per_rep"), *u = json_object_get(cell, "unstable");
    snprintf(buf, len, "%s%s%s%s",
             json_integer_value(json_object_get(cell, "preemptions")) > 0 ? "P" : "",
             json_is_number(steal) && json_number_value(steal) > 0 ? "S" : "",
             json_is_object(u) ? "D" : "",
             json_is_true(json_object_get(cell, "batch_limited")) ? "B" : "");
    return buf;
}

void cb_cell_flags_telling(json_t *cells, char *keep, size_t klen, char *note, size_t nlen)
{
    static const char letters[] = "PSDB";
    static const char *const names[] = {"preempted", "steal", "drift", "batch limited"};
    size_t count[4] = {0}, n = 0, i;
    json_t *c;
    json_array_foreach(cells, i, c)
    {
        const char *st = json_string_value(json_object_get(c, "status"));
        if (!st || strcmp(st, "ok") || !json_object_get(c, "ns_per_op"))
            continue;
        char f[16];
        cb_cell_flags(c, f, sizeof f);
        for (int k = 0; k < 4; k++)
            count[k] += strchr(f, letters[k]) != NULL;
        n++;
    }
    size_t kn = 0, nn = 0;
    keep[0] = note[0] = '\0';
    for (int k = 0; k < 4; k++) {
        if (2 * count[k] <= n) {
            if (kn + 1 < klen) {
                keep[kn++] = letters[k];
                keep[kn] = '\0';
            }
        } else if (nn < nlen) {
            nn += (size_t)snprintf(note + nn, nlen - nn, "%s%c (%s) %zu of %zu",
                                   nn ? ", " : "Not shown per cell, being on most of them (so "
                                               "telling nothing about one): ",
                                   letters[k], names[k], count[k], n);
        }
    }
}

const char *cb_cell_flags_kept(json_t *cell, const char *keep, char *buf, size_t len)
{
    char all[16];
    cb_cell_flags(cell, all, sizeof all);
    size_t n = 0;
    for (const char *p = all; *p && n + 1 < len; p++)
        if (strchr(keep, *p))
            buf[n++] = *p;
    if (len)
        buf[n < len ? n : len - 1] = '\0';
    return buf;
}

const char *cb_results_unit(json_t *cells, const char *workload)
{
    json_t *c;
    size_t i;
    const char *one = NULL;
    json_array_foreach(cells, i, c)
    {
        json_t *unit = json_object_get(c, "unit");
        if (strcmp(json_string_value(json_object_get(c, "workload")), workload) ||
            !json_is_string(unit))
            continue;
        if (one && strcmp(one, json_string_value(unit)))
            return NULL;
        one = json_string_value(unit);
    }
    return one ? one : "op";
}

void cb_results_rsb_label(json_t *machine_rsb, const char *run_model, long run_entries,
                          char *buf, size_t len)
{
    const char *mm = json_string_value(json_object_get(machine_rsb, "model"));
    long me = (long)json_integer_value(json_object_get(machine_rsb, "entries"));
    const char *src = json_string_value(json_object_get(machine_rsb, "source"));
    if (!mm || !src || strcmp(mm, run_model) || me != run_entries)
        snprintf(buf, len, "%s %ld, set by option; this machine's is %s %ld", run_model,
                 run_entries, mm ? mm : "?", me);
    else if (!strcmp(src, "calibrated"))
        snprintf(buf, len, "%s %ld, calibrated R^2 %.2f", run_model, run_entries,
                 json_number_value(json_object_get(machine_rsb, "r2")));
    else
        snprintf(buf, len, "%s %ld, uncalibrated default", run_model, run_entries);
}

const char *cb_fig(double v, int decimals, char *buf, size_t len)
{
    double a = v < 0 ? -v : v;
    if (a >= 1e12)
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.*f", decimals >= 0 ? decimals : a >= 100 ? 0 : a >= 10 ? 1 : 2, v);
    return buf;
}

const char cb_instr_source_pmu[] = "instructions:u (perf_event_open)";

double cb_invs_instructions(json_t *invs, const char **why)
{
    size_t i, n = 0;
    json_t *m;
    double *v = cb_xcalloc(json_array_size(invs) + 1, sizeof *v);
    json_array_foreach(invs, i, m)
    {
        json_t *c = json_object_get(json_object_get(m, "counters"), "instructions");
        double x = json_number_value(json_object_get(c, "per_op"));
        if (json_is_number(json_object_get(c, "per_op")) && x > 0)
            v[n++] = x;
        else if (why && !*why)
            *why = cb_str(json_object_get(m, "counters_unavailable"), "instructions");
    }
    double med = n ? cb_median(v, n) : NAN;
    free(v);
    return med;
}

double cb_cell_instructions(json_t *cell, const char **source)
{
    json_t *ip = json_object_get(cell, "instructions_per_op");
    double v = json_number_value(json_object_get(ip, "value"));
    if (source)
        *source = cb_str(ip, "source");
    return json_is_number(json_object_get(ip, "value")) && v > 0 && isfinite(v) ? v : NAN;
}

void cb_cell_set_instructions(json_t *cell, double per_op, const char *source)
{
    json_object_set_new(cell, "instructions_per_op",
                        json_pack("{s:f, s:s}", "value", per_op, "source", source));
}

/* A number of the sched object, NAN when absent or not a number. */
static double sched_num(json_t *o, const char *name)
{
    json_t *v = json_object_get(o, name);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void cb_cell_sched_text(json_t *s, const char *unit, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (!json_is_object(s) || !len)
        return;
    size_t at = 0;
#define PUT(...)                                                                                  \
    do {                                                                                          \
        if (at < len)                                                                             \
            at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__);                              \
    } while (0)
    const char *queue = json_string_value(json_object_get(s, "queue"));
    if (queue && !cb_plain_name(queue, 0)) /* a file's string reaches a report: names only */
        queue = NULL;
    PUT("%.0f workers (%s) on %.0f CPUs%s, %s", sched_num(s, "workers"), queue ? queue : "?",
        sched_num(s, "nproc"),
        json_is_true(json_object_get(s, "oversubscribed")) ? " (oversubscribed)" : "",
        json_is_true(json_object_get(s, "pinned")) ? "pinned" : "not pinned");
    json_t *cpus = json_object_get(s, "cpus"), *v;
    size_t i;
    if (json_array_size(cpus)) {
        PUT(" to CPUs");
        json_array_foreach(cpus, i, v) PUT(" %lld", (long long)json_integer_value(v));
    }
    if (json_is_number(json_object_get(s, "load1")))
        PUT(", load %.2f", sched_num(s, "load1"));
    PUT(": per %s %.3g steals, %.3g failed steals, %.3g migrations, %.3g parks; idle %.1f%%",
        unit ? unit : "op", sched_num(s, "steals_per_op"), sched_num(s, "failed_steals_per_op"),
        sched_num(s, "migrations_per_op"), sched_num(s, "parks_per_op"),
        100 * sched_num(s, "idle_share"));
    json_t *idle = json_object_get(s, "idle_share_per_worker");
    if (json_array_size(idle) > 1) {
        PUT(" (workers");
        json_array_foreach(idle, i, v) PUT(" %.1f%%", 100 * json_number_value(v));
        PUT(")");
    }
#undef PUT
    if (at >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}
