/* The results document (schema corobench-results/1, docs/results-schema.md): machine, build and
 * run metadata, the cells; its atomic write; and the stdout table, derived from the same JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "harness.h"

static void utc_stamp(char *buf, size_t len, const char *fmt)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, fmt, &tm);
}

void cb_results_default_path(char *buf, size_t len)
{
    char host[256] = "unknown", stamp[32];
    gethostname(host, sizeof host - 1);
    utc_stamp(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ");
    snprintf(buf, len, "results/%s-%s.json", host, stamp);
}

static json_t *read_first_line(const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return json_null();
    char *ok = fgets(line, sizeof line, f);
    fclose(f);
    if (!ok)
        return json_null();
    line[strcspn(line, "\n")] = '\0';
    char *end;
    long long v = strtoll(line, &end, 10);
    return *end == '\0' && end != line ? json_integer(v) : json_string(line);
}

static json_t *cpu_model(void)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    json_t *r = NULL;
    while (f && !r && fgets(line, sizeof line, f)) {
        /* x86: "model name"; AArch64 kernels may only give "CPU part". */
        if (!strncmp(line, "model name", 10)) {
            char *v = strchr(line, ':');
            if (v) {
                v += 1 + (v[1] == ' ');
                v[strcspn(v, "\n")] = '\0';
                r = json_string(v);
            }
        }
    }
    if (f)
        fclose(f);
    return r ? r : json_string("unknown");
}

static json_t *rlimit_obj(int res)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0)
        return json_null();
    return json_pack("{s:o, s:o}", "soft",
                     rl.rlim_cur == RLIM_INFINITY ? json_string("unlimited")
                                                  : json_integer((json_int_t)rl.rlim_cur),
                     "hard",
                     rl.rlim_max == RLIM_INFINITY ? json_string("unlimited")
                                                  : json_integer((json_int_t)rl.rlim_max));
}

/* The selected mode of a /sys setting written as "always [madvise] never". */
static json_t *bracketed(const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");
    char *ok = f ? fgets(line, sizeof line, f) : NULL;
    if (f)
        fclose(f);
    char *a = ok ? strchr(line, '[') : NULL, *b = a ? strchr(a, ']') : NULL;
    return b ? json_stringn(a + 1, (size_t)(b - a - 1)) : json_null();
}

/* A "Key:   N kB" line of /proc/meminfo, in bytes. */
static json_t *meminfo_bytes(const char *key)
{
    char line[256];
    size_t n = strlen(key);
    json_t *r = NULL;
    FILE *f = fopen("/proc/meminfo", "r");
    while (f && !r && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':')
            r = json_integer((json_int_t)strtoll(line + n + 1, NULL, 10) * 1024);
    if (f)
        fclose(f);
    return r ? r : json_null();
}

static json_t *machine(void)
{
    struct utsname u;
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    uname(&u);
    int tsc = !strcmp(cb_clock_source(), "tsc");
    json_t *m = json_pack(
        "{s:s, s:o, s:s, s:I, s:s, s:s, s:o, s:s, s:{s:o, s:o, s:o, s:o}}", "hostname", host,
        "cpu_model", cpu_model(), "arch", u.machine, "logical_cpus",
        (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "kernel", u.release, "kernel_version",
        u.version, "tsc_hz", tsc ? json_real(cb_clock_hz()) : json_null(), "clock",
        cb_clock_source(), "limits", "max_map_count", read_first_line("/proc/sys/vm/max_map_count"),
        "overcommit_memory", read_first_line("/proc/sys/vm/overcommit_memory"), "nofile",
        rlimit_obj(RLIMIT_NOFILE), "as", rlimit_obj(RLIMIT_AS));
    /* What decides how many coroutine stacks fit (docs/memory.md): private writable mappings
     * count against RLIMIT_DATA, huge pages would make one touch cost 2 MiB. */
    json_t *lim = json_object_get(m, "limits");
    json_object_set_new(lim, "overcommit_ratio", read_first_line("/proc/sys/vm/overcommit_ratio"));
    json_object_set_new(lim, "data", rlimit_obj(RLIMIT_DATA));
    json_object_set_new(lim, "transparent_hugepage",
                        bracketed("/sys/kernel/mm/transparent_hugepage/enabled"));
    json_object_set_new(lim, "mem_total_bytes", meminfo_bytes("MemTotal"));
    json_object_set_new(lim, "swap_total_bytes", meminfo_bytes("SwapTotal"));
    return m;
}

json_t *cb_results_new(const cb_run_opts *o)
{
    char created[32], compiler[256];
    utc_stamp(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ");
    snprintf(compiler, sizeof compiler, "%s (%s)", cb_build_cc, cb_build_compiler);
    json_t *argv = json_array();
    for (int i = 0; i < o->argc; i++)
        json_array_append_new(argv, json_string(o->argv[i]));
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
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:o, s:{s:s, s:s, s:s}, s:{s:o, s:i, s:i, s:f, s:o, s:b, s:f, s:s}, "
        "s:o, s:[]}",
        "schema", CB_SCHEMA, "corobench_version", CB_VERSION, "git_commit", cb_build_commit,
        "created_utc", created, "machine", machine(), "build", "compiler", compiler, "cflags",
        cb_build_cflags, "arch", cb_build_arch, "run", "argv", argv, "reps", (int)o->reps,
        "warmup", (int)o->warmup, "min_rep_ms", o->min_rep_ms, "pin_cpu",
        o->pin_cpu >= 0 ? json_integer(o->pin_cpu) : json_null(), "quick", o->quick,
        "timeout_s", o->timeout_s, "statistic",
        "median of the repetitions' ns per op; mad = median absolute deviation", "unavailable",
        unavailable, "cells");
}

json_t *cb_cell_header(const cb_cell *c)
{
    json_t *params = json_object();
    for (size_t i = 0; i < c->params.n; i++) {
        const cb_param_val *v = &c->params.v[i];
        json_object_set_new(params, v->def->name,
                            v->def->kind == CB_PARAM_INT ? json_integer((json_int_t)v->i)
                                                         : json_string(v->s));
    }
    return json_pack("{s:s, s:s, s:s, s:o, s:s, s:s}", "impl", c->impl->name, "family",
                     cb_impl_family(c->impl), "workload", c->wl->name, "params", params, "variant",
                     c->variant ? c->variant : "plain", "unit", c->wl->unit);
}

int cb_results_write(json_t *doc, const char *path)
{
    char tmp[4096];
    char *dir = strdup(path), *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        if (*dir)
            mkdir(dir, 0777); /* one level, like results/; an existing one is fine */
    }
    free(dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
        int e = errno ? errno : EIO;
        unlink(tmp);
        errno = e;
        return -1;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

void cb_cell_params_text(json_t *cell, int impl_params, char *buf, size_t len)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    buf[0] = '\0';
    json_object_foreach(json_object_get(cell, "params"), k, v)
    {
        if (!strcmp(k, "stack") || !strcmp(k, "stack_mode")) {
            /* implementation parameters: never (impl_params 0) or when not at their defaults */
            if (!impl_params ||
                (json_is_integer(v) && json_integer_value(v) == CB_CO_DEFAULT_STACK) ||
                (json_is_string(v) && !strcmp(json_string_value(v), "auto")))
                continue;
        }
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

enum { TBL_COLS = 10, TBL_CELL = 160 };

/* One row's columns; ok rows fill them all, others put the error after the status. */
static void table_row(json_t *c, char col[TBL_COLS][TBL_CELL])
{
    static const char *const text_fields[] = {"workload", NULL, "impl", "variant", "status"};
    for (int k = 0; k < 5; k++)
        snprintf(col[k], TBL_CELL, "%s",
                 k == 1 ? "" : json_string_value(json_object_get(c, text_fields[k])));
    cb_cell_params_text(c, 1, col[1], TBL_CELL);
    for (int k = 5; k < TBL_COLS; k++)
        col[k][0] = '\0';
    if (strcmp(col[4], "ok")) {
        snprintf(col[5], TBL_CELL, "%s", json_string_value(json_object_get(c, "error")));
        return;
    }
    json_t *ns = json_object_get(c, "ns_per_op"), *rsb = json_object_get(c, "rsbsim");
    snprintf(col[5], TBL_CELL, "%.2f ns/%s", json_real_value(json_object_get(ns, "median")),
             json_string_value(json_object_get(c, "unit")));
    snprintf(col[6], TBL_CELL, "%.2f", json_real_value(json_object_get(ns, "mad")));
    snprintf(col[7], TBL_CELL, "%lld",
             (long long)json_integer_value(json_object_get(c, "suspensions")));
    snprintf(col[8], TBL_CELL, "%s", json_string_value(json_object_get(c, "checksum")));
    if (rsb)
        snprintf(col[9], TBL_CELL, "%.3f",
                 json_real_value(json_object_get(rsb, "mispredicted_per_op")));
}

void cb_results_print_table(json_t *doc, FILE *out)
{
    static const char *const head[TBL_COLS] = {
        "workload", "params", "impl", "variant", "status", "median", "mad", "suspensions",
        "checksum", "rsbsim mispredicted/op"};
    /* Right-aligned numeric columns. */
    static const int right[TBL_COLS] = {0, 0, 0, 0, 0, 1, 1, 1, 0, 1};
    json_t *cells = json_object_get(doc, "cells"), *c;
    size_t i, w[TBL_COLS];
    char col[TBL_COLS][TBL_CELL];
    int any_rsb = 0; /* the simulated return-stack column, only after --rsb sim */
    for (int k = 0; k < TBL_COLS; k++)
        w[k] = strlen(head[k]);
    json_array_foreach(cells, i, c)
    {
        any_rsb |= json_object_get(c, "rsbsim") != NULL;
        table_row(c, col);
        if (strcmp(col[4], "ok"))
            continue; /* an error runs to the end of its line */
        for (int k = 0; k < TBL_COLS; k++)
            w[k] = strlen(col[k]) > w[k] ? strlen(col[k]) : w[k];
    }
    int ncols = any_rsb ? TBL_COLS : TBL_COLS - 1;
    for (int k = 0; k < ncols; k++)
        fprintf(out, "%s%*s", k ? "  " : "", right[k] ? (int)w[k] : -(int)w[k], head[k]);
    fputc('\n', out);
    json_array_foreach(cells, i, c)
    {
        table_row(c, col);
        int ok = !strcmp(col[4], "ok");
        for (int k = 0; k < (ok ? ncols : 6); k++)
            fprintf(out, "%s%*s", k ? "  " : "",
                    (!ok && k == 5) ? 0 : right[k] ? (int)w[k] : -(int)w[k], col[k]);
        fputc('\n', out);
    }
}

json_t *cb_results_load(const char *path)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) {
        if (jerr.line > 0) /* a parse error: where the parser stopped */
            cb_usage_error("cannot read results '%s': line %d column %d: %s (valid: a %s file)",
                           path, jerr.line, jerr.column, jerr.text, CB_SCHEMA);
        else
            cb_usage_error("cannot read results '%s': %s (valid: a %s file)", path, jerr.text,
                           CB_SCHEMA);
        return NULL;
    }
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strcmp(schema, CB_SCHEMA)) {
        cb_usage_error("'%s' has schema '%s' (valid: %s)", path, schema ? schema : "none",
                       CB_SCHEMA);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

FILE *cb_output_open(const char *path, char *tmp, size_t tmplen)
{
    if (!path)
        return stdout;
    snprintf(tmp, tmplen, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        fprintf(stderr, "corobench: cannot write %s: %s\n", tmp, strerror(errno));
    return f;
}

int cb_output_commit(FILE *f, const char *path, const char *tmp)
{
    if (!path)
        return fflush(f) == 0 ? 0 : -1;
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "corobench: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void cb_checksum_text(uint64_t sum, char buf[19]) { snprintf(buf, 19, "0x%016" PRIx64, sum); }

const char *cb_results_unit(json_t *cells, const char *workload)
{
    json_t *c;
    size_t i;
    json_array_foreach(cells, i, c)
    {
        json_t *unit = json_object_get(c, "unit");
        if (!strcmp(json_string_value(json_object_get(c, "workload")), workload) &&
            json_is_string(unit))
            return json_string_value(unit);
    }
    return "op";
}
