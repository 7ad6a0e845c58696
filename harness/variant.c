/* Build variants and the return-stack simulator's counting pass (docs/rsb.md). A cell of another
 * variant (bin/corobench-jmpret) runs by exec'ing that binary from the cell's child, with the same
 * run arguments and the cell's index (`corobench cell INDEX time|count ARGS`); the counting pass
 * runs the workload once in bin/corobench[-jmpret]-rsbsim, with counting on around run() only.
 * Timing never comes from an instrumented binary. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "harness.h"
#include "impls/runtime.h"
#include "proc.h"
#include "rsbsim.h"

static const char *const variant_names[] = {"plain", "jmpret", NULL};

/* Cell mode (set by `corobench cell`): which cell to measure, and how. */
static long cell_index = -1;
static int cell_counting;

int cb_variant_option(cb_run_opts *o, int opt, const char *arg)
{
    if (opt == 'B') {
        if (strcmp(arg, "sim") && strcmp(arg, "off"))
            return cb_usage_error("invalid value '%s' for --rsb (valid: sim, off)", arg);
        o->rsb_sim = !strcmp(arg, "sim");
        return 0;
    }
    if (opt == 'M') {
        cb_rsb_model m;
        if (cb_rsb_model_parse(arg, &m) != 0)
            return cb_usage_error("invalid value '%s' for --rsb-model (valid: circular, "
                                  "underflow-btb)", arg);
        o->rsb_model = (int)m;
        return 0;
    }
    if (opt == 'E') {
        char *end;
        errno = 0;
        long v = strtol(arg, &end, 10);
        if (errno || end == arg || *end || v < 1 || v > CB_RSBSIM_MAX_ENTRIES)
            return cb_usage_error("invalid value '%s' for --rsb-entries (valid: an integer from 1 "
                                  "to %d; 32 as on AMD Zen 1-4, 16 as on Intel Skylake)",
                                  arg, CB_RSBSIM_MAX_ENTRIES);
        o->rsb_entries = (unsigned)v;
        return 0;
    }
    /* --variant LIST */
    size_t n;
    char **items = cb_split_list(arg, &n);
    o->nvariants = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (variant_names[k] && strcmp(variant_names[k], items[i]))
            k++;
        if (!variant_names[k]) {
            int rc = items[i][0] ? cb_usage_error("unknown variant '%s' (valid: plain, jmpret)",
                                                  items[i])
                                 : cb_usage_error("invalid --variant '%s': empty item (valid: "
                                                  "plain, jmpret, comma-separated)",
                                                  arg);
            free(items);
            return rc;
        }
        int seen = 0;
        for (size_t v = 0; v < o->nvariants; v++)
            seen |= o->variants[v] == variant_names[k];
        if (!seen)
            o->variants[o->nvariants++] = variant_names[k];
    }
    free(items);
    return 0;
}

/* Directory of the running binary (bin/), where the variant binaries sit next to it. */
static void bin_dir(char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(buf, len, "bin");
        return;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(buf, len, "%s", self);
}

/* bin/corobench, bin/corobench-jmpret, bin/corobench-rsbsim, bin/corobench-jmpret-rsbsim. */
static void variant_binary(const char *variant, int counting, char *buf, size_t len)
{
    char dir[PATH_MAX];
    bin_dir(dir, sizeof dir);
    int plain = !strcmp(variant, "plain");
    size_t n = strlen(dir);
    if (n >= len)
        n = len - 1;
    memcpy(buf, dir, n);
    snprintf(buf + n, len - n, "/corobench%s%s%s", plain ? "" : "-", plain ? "" : variant,
             counting ? "-rsbsim" : "");
}

static int need_binary(const char *variant, int counting, const char *why)
{
    char path[PATH_MAX];
    variant_binary(variant, counting, path, sizeof path);
    if (access(path, X_OK) == 0)
        return 0;
    return cb_usage_error("%s needs %s, which is not built (valid: build it with 'make "
                          "variants', x86-64 only)",
                          why, path);
}

int cb_variant_check(cb_run_opts *o)
{
    int rc;
    if (!o->nvariants)
        o->variants[o->nvariants++] = !strcmp(cb_build_variant, "jmpret") ? "jmpret" : "plain";
    if (!o->rsb_entries)
        o->rsb_entries = CB_RSBSIM_DEFAULT_ENTRIES;
    if (cb_rsbsim_instrumented() && !(cell_index >= 0 && cell_counting))
        return cb_usage_error("this binary is instrumented for the return-stack simulator and "
                              "only runs counting passes (valid: time with bin/corobench or "
                              "bin/corobench-jmpret, adding --rsb sim)");
    if (cell_index >= 0)
        return 0; /* the parent checked */
    for (size_t i = 0; i < o->nvariants; i++) {
        char why[64];
        snprintf(why, sizeof why, "--variant %s", o->variants[i]);
        if (strcmp(o->variants[i], cb_build_variant) && (rc = need_binary(o->variants[i], 0, why)))
            return rc;
        if (o->rsb_sim && (rc = need_binary(o->variants[i], 1, "--rsb sim")))
            return rc;
    }
    return 0;
}

int cb_variant_expand(const cb_run_opts *o, cb_cell **cells, size_t *ncells)
{
    size_t n = *ncells * o->nvariants;
    cb_cell *out = calloc(n ? n : 1, sizeof *out);
    if (!out)
        return cb_usage_error("out of memory expanding %zu cells (valid: a smaller grid)", n);
    for (size_t i = 0, k = 0; i < *ncells; i++)
        for (size_t v = 0; v < o->nvariants; v++, k++) {
            out[k] = (*cells)[i];
            out[k].variant = o->variants[v];
            out[k].index = k;
        }
    free(*cells);
    *cells = out;
    *ncells = n;
    return 0;
}

/* Replaces this process with `BINARY cell INDEX time|count RUN-ARGS...`, stdout on out_fd. */
static void exec_cell(const cb_cell *c, const cb_run_opts *o, int counting, int out_fd)
{
    char path[PATH_MAX], index[32];
    variant_binary(c->variant, counting, path, sizeof path);
    snprintf(index, sizeof index, "%zu", c->index);
    char **argv = calloc((size_t)o->argc + 5, sizeof *argv);
    size_t n = 0;
    argv[n++] = path;
    argv[n++] = "cell";
    argv[n++] = index;
    argv[n++] = counting ? "count" : "time";
    for (int i = 1; i < o->argc; i++) /* o->argv[0] is "run" */
        argv[n++] = o->argv[i];
    argv[n] = NULL;
    if (dup2(out_fd, 1) < 0) {
        fprintf(stderr, "dup2: %s\n", strerror(errno));
        _exit(3);
    }
    char hz[64];
    if (cb_clock_hz() > 0) {
        snprintf(hz, sizeof hz, "%.3f", cb_clock_hz());
        setenv("COROBENCH_TSC_HZ", hz, 1);
    }
    fflush(NULL);
    execv(path, argv);
    fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
    _exit(127);
}

void cb_variant_exec_if_foreign(const cb_cell *c, const cb_run_opts *o, int out_fd)
{
    if (c->variant && strcmp(c->variant, cb_build_variant) != 0)
        exec_cell(c, o, 0, out_fd);
}

static void fail_cell(json_t *cell, const char *msg)
{
    /* The timed fields stay (they were measured), but the cell is not ok. */
    json_object_set_new(cell, "status", json_string("failed"));
    json_object_set_new(cell, "error", json_string(msg));
}

static void count_body(const cb_cell *c, const cb_run_opts *o, int out_fd)
{
    exec_cell(c, o, 1, out_fd);
}

void cb_variant_rsb_pass(const cb_cell *c, const cb_run_opts *o, json_t *cell)
{
    const char *st = json_string_value(json_object_get(cell, "status"));
    if (!st || strcmp(st, "ok"))
        return;
    char buf[1024], why[768];
    cb_proc_result r;
    /* One uncounted-speed run in the instrumented binary: allow it more time than a timed cell. */
    if (cb_cell_child(c, o, count_body, 10 * o->timeout_s, &r, why, sizeof why) != 0) {
        snprintf(buf, sizeof buf, "rsbsim pass: %s", why);
        fail_cell(cell, buf);
        return;
    }
    json_error_t jerr;
    json_t *m = NULL;
    if (r.timed_out) {
        snprintf(buf, sizeof buf, "rsbsim pass: timed out after %g s", 10 * o->timeout_s);
    } else if (cb_proc_exit_code(r.wait_status) != 0) {
        cb_proc_failure(&r, why, sizeof why);
        snprintf(buf, sizeof buf, "rsbsim pass: %s", why);
    } else if (!(m = json_loads(r.out, 0, &jerr))) {
        snprintf(buf, sizeof buf, "rsbsim pass: unreadable result: %s", jerr.text);
    } else if (strcmp(json_string_value(json_object_get(m, "status")) ?: "", "ok") != 0) {
        snprintf(buf, sizeof buf, "rsbsim pass: %s",
                 json_string_value(json_object_get(m, "error")) ?: "no reason given");
    } else if (!json_equal(json_object_get(m, "checksum"), json_object_get(cell, "checksum")) ||
               !json_equal(json_object_get(m, "suspensions"),
                           json_object_get(cell, "suspensions"))) {
        /* The instrumented build must do exactly the work the timed one did. */
        snprintf(buf, sizeof buf, "rsbsim pass: checksum %s, %" PRId64 " suspensions; the timed "
                 "run had %s, %" PRId64,
                 json_string_value(json_object_get(m, "checksum")),
                 (int64_t)json_integer_value(json_object_get(m, "suspensions")),
                 json_string_value(json_object_get(cell, "checksum")),
                 (int64_t)json_integer_value(json_object_get(cell, "suspensions")));
    } else {
        buf[0] = '\0';
        json_object_set(cell, "rsbsim", json_object_get(m, "rsbsim"));
    }
    if (buf[0])
        fail_cell(cell, buf);
    json_decref(m);
    cb_proc_result_free(&r);
}

/* The counting pass, in this (instrumented) process: one instance, counting around run() only. */
static json_t *count_cell(const cb_cell *c, const cb_run_opts *o)
{
    const cb_family_ops *f = &c->wl->family[c->impl->style];
    char err[512] = "";
    cb_wl_result res = {0, 0};
    if (!cb_rsbsim_instrumented())
        return json_pack("{s:s, s:s}", "status", "failed", "error",
                         "this binary is not instrumented for the return-stack simulator");
    cb_impl_configure(c->impl, &c->params);
    void *inst = f->setup(c->impl, &c->params, err, sizeof err);
    if (!inst)
        return json_pack("{s:s, s:s}", "status", "failed", "error", err);
    uint64_t s0 = cb_rt.suspensions;
    cb_rsb_config cfg = {(cb_rsb_model)o->rsb_model, o->rsb_entries};
    if (cb_rsbsim_begin(&cfg, 1) != 0)
        return json_pack("{s:s, s:s}", "status", "failed", "error",
                         "the return-stack simulator refused its configuration");
    int rc = f->run(inst, err, sizeof err);
    cb_rsbsim_end();
    uint64_t susp = cb_rt.suspensions - s0;
    f->finish(inst, &res);
    if (rc)
        return json_pack("{s:s, s:s}", "status", "failed", "error", err);
    char sum[19];
    cb_checksum_text(res.checksum, sum);
    const cb_rsb_counts *n = cb_rsbsim_counts(0);
    return json_pack("{s:s, s:n, s:I, s:s, s:I, s:{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f}}",
                     "status", "ok", "error", "ops", (json_int_t)res.ops, "checksum", sum,
                     "suspensions", (json_int_t)susp, "rsbsim", "model",
                     cb_rsb_model_name(cfg.model), "entries", (json_int_t)cfg.entries, "rets",
                     (json_int_t)n->rets, "mispredicted", (json_int_t)n->mispredicted,
                     "mispredicted_top", (json_int_t)n->mispredicted_top,
                     "mispredicted_underflow", (json_int_t)n->mispredicted_underflow,
                     "underflow_predicted", (json_int_t)n->underflow_predicted,
                     "mispredicted_per_op",
                     res.ops ? (double)n->mispredicted / (double)res.ops : 0.0);
}

int cb_variant_cell_main(const cb_run_opts *o, const cb_cell *cells, size_t ncells)
{
    if (cell_index < 0)
        return -1;
    if ((size_t)cell_index >= ncells)
        return cb_usage_error("cell index %ld out of range (valid: 0 to %zu for these "
                              "arguments)", cell_index, ncells ? ncells - 1 : 0);
    const cb_cell *c = &cells[cell_index];
    if (strcmp(c->variant, cb_build_variant) != 0)
        return cb_usage_error("cell %ld is a %s cell, this binary is %s (valid: run it with "
                              "bin/corobench%s%s)", cell_index, c->variant, cb_build_variant,
                              strcmp(c->variant, "plain") ? "-" : "",
                              strcmp(c->variant, "plain") ? c->variant : "");
    json_t *res;
    if (cell_counting) {
        res = count_cell(c, o);
    } else {
        cb_clock_init(); /* the parent's calibration when it passed one (docs/rsb.md) */
        res = cb_cell_measure(c, o);
    }
    char *text = json_dumps(res, JSON_COMPACT);
    fputs(text, stdout);
    fflush(stdout);
    free(text);
    json_decref(res);
    return 0;
}

size_t cb_variant_cross_check(const cb_run_opts *o, const cb_cell *cells, size_t ncells,
                              json_t *cells_out)
{
    size_t bad = 0;
    /* Variants of one cell are adjacent (cb_variant_expand): compare each with the first. */
    for (size_t i = 0; o->nvariants > 1 && i < ncells; i++) {
        size_t first = i - i % o->nvariants;
        json_t *ref = json_array_get(cells_out, first), *c = json_array_get(cells_out, i);
        const char *rs = json_string_value(json_object_get(ref, "status"));
        const char *cs = json_string_value(json_object_get(c, "status"));
        if (i == first || !rs || !cs || strcmp(rs, "ok") || strcmp(cs, "ok"))
            continue;
        if (json_equal(json_object_get(ref, "checksum"), json_object_get(c, "checksum")) &&
            json_equal(json_object_get(ref, "suspensions"), json_object_get(c, "suspensions")))
            continue;
        char buf[256];
        snprintf(buf, sizeof buf, "variant %s did different work than %s: checksum %s, not %s",
                 cells[i].variant, cells[first].variant,
                 json_string_value(json_object_get(c, "checksum")),
                 json_string_value(json_object_get(ref, "checksum")));
        fail_cell(c, buf);
        bad++;
    }
    return bad;
}

void cb_variant_describe(const cb_run_opts *o, json_t *doc)
{
    json_t *run = json_object_get(doc, "run"), *v = json_array();
    for (size_t i = 0; i < o->nvariants; i++)
        json_array_append_new(v, json_string(o->variants[i]));
    json_object_set_new(run, "variants", v);
    json_object_set_new(run, "rsb", json_string(o->rsb_sim ? "sim" : "off"));
    json_object_set_new(run, "rsb_model",
                        o->rsb_sim ? json_string(cb_rsb_model_name((cb_rsb_model)o->rsb_model))
                                   : json_null());
    json_object_set_new(run, "rsb_entries",
                        o->rsb_sim ? json_integer((json_int_t)o->rsb_entries) : json_null());
}

int cb_cmd_cell(int argc, char **argv)
{
    char *end;
    if (argc < 3 || (strcmp(argv[2], "time") && strcmp(argv[2], "count")))
        return cb_usage_error("usage: corobench cell INDEX time|count RUN-OPTIONS... (valid: "
                              "what 'corobench run' passes to another build variant)");
    errno = 0;
    cell_index = strtol(argv[1], &end, 10);
    if (errno || end == argv[1] || *end || cell_index < 0)
        return cb_usage_error("invalid cell index '%s' (valid: an integer from 0)", argv[1]);
    cell_counting = !strcmp(argv[2], "count");
    return cb_cmd_run(argc - 2, argv + 2); /* argv[2] stands in for "run" */
}
