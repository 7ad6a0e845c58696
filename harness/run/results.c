/* Writing the results document (schema corobench-results/1, docs/results-schema.md): machine,
 * build and run metadata, the cells' headers; its atomic write. */
#include "results.h"

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

#include "harness/build.h"
#include "harness/measure/clock.h"
#include "harness/measure/env.h"
#include "harness/measure/kmem.h"
#include "harness/measure/rsbsim.h"
#include "rsbcal.h"
#include "harness/report/load.h"

static void utc_stamp(char *buf, size_t len, const char *fmt)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, fmt, &tm);
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

static json_t *machine(const cb_run_opts *o)
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
    json_object_set_new(m, "rsb", cb_rsbcal_machine()); /* docs/rsb.md, "Calibration" */
    /* In the parent, before any cell: the cells' kernel_bytes_per_coro use this figure. */
    cb_kmem_cal kc;
    cb_kmem_calibrate(&kc);
    json_object_set_new(m, "kernel_memory", cb_kmem_json(&kc));
    /* What spoils timing here, one warning line each on stderr (never a refusal). */
    json_t *env = cb_env_check(o->pin_cpu);
    cb_env_print_warnings(env, stderr);
    json_object_set_new(m, "environment", env);
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
    json_t *doc = json_pack(
        "{s:s, s:s, s:s, s:s, s:o, s:{s:s, s:s, s:s}, s:{s:o, s:i, s:i, s:f, s:o, s:b, s:f, s:s}, "
        "s:o, s:[]}",
        "schema", CB_SCHEMA, "corobench_version", CB_VERSION, "git_commit", cb_build_commit,
        "created_utc", created, "machine", machine(o), "build", "compiler", compiler, "cflags",
        cb_build_cflags, "arch", cb_build_arch, "run", "argv", argv, "reps", (int)o->measure.reps,
        "warmup", (int)o->measure.warmup, "min_rep_ms", o->measure.min_rep_ms, "pin_cpu",
        o->pin_cpu >= 0 ? json_integer(o->pin_cpu) : json_null(), "quick", o->quick,
        "timeout_s", o->timeout_s, "statistic",
        "median of the repetitions' ns per op; mad = median absolute deviation", "unavailable",
        unavailable, "cells");
    /* run.variants, run.rsb, run.rsb_model, run.rsb_entries (docs/rsb.md) */
    json_t *run = json_object_get(doc, "run"), *v = json_array();
    for (size_t i = 0; i < o->nvariants; i++)
        json_array_append_new(v, json_string(o->variants[i]));
    json_object_set_new(run, "variants", v);
    json_object_set_new(run, "rsb", json_string(o->rsb_sim ? "sim" : "off"));
    json_object_set_new(run, "rsb_model",
                        o->rsb_sim ? json_string(cb_rsb_model_name(
                                         (cb_rsb_model)o->measure.rsb_model))
                                   : json_null());
    json_object_set_new(run, "rsb_entries", o->rsb_sim
                                                ? json_integer((json_int_t)o->measure.rsb_entries)
                                                : json_null());
    return doc;
}

json_t *cb_cell_header(const cb_plan_cell *pc)
{
    const cb_cell *c = &pc->cell;
    json_t *params = json_object();
    for (size_t i = 0; i < c->params.n; i++) {
        const cb_param_val *v = &c->params.v[i];
        json_object_set_new(params, v->def->name,
                            v->def->kind == CB_PARAM_INT ? json_integer((json_int_t)v->i)
                                                         : json_string(v->s));
    }
    return json_pack("{s:s, s:s, s:s, s:o, s:s, s:s}", "impl", c->impl->name, "family",
                     cb_impl_family(c->impl), "workload", c->wl->name, "params", params, "variant",
                     pc->variant, "unit", c->wl->unit);
}

int cb_results_write(json_t *doc, cb_out *out, const char *out_path, int *moved)
{
    *moved = 0;
    if (json_dumpf(doc, cb_out_stream(out), JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        abort(); /* into memory */
    if (cb_out_commit(out) == 0)
        return 0;
    /* Never lose measured cells: a file that appeared at -o meanwhile gets a sibling; a path
     * that cannot be written any more (its directory removed, its disk full) a unique name in
     * the temporary directory. */
    const char *tmpdir = getenv("TMPDIR");
    if (out_path && out->raced)
        cb_out_prepare_beside(out, "results", out_path);
    else if (cb_out_prepare_default(out, "results", tmpdir && tmpdir[0] ? tmpdir : "/tmp") != 0)
        return 1;
    if (json_dumpf(doc, cb_out_stream(out), JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        abort();
    if (cb_out_commit(out) != 0)
        return 1;
    fprintf(stderr, "corobench: results written to '%s' instead\n", out->path);
    *moved = 1;
    return 0;
}

int cb_results_link_latest(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) : 0;
    /* Only a file directly in a directory named results (results/X.json, ../results/X.json). */
    if (!slash || dl < 7 || strncmp(slash - 7, "results", 7) || (dl > 7 && slash[-8] != '/'))
        return 0;
    char link[4096], tmp[4200];
    snprintf(link, sizeof link, "%.*s/latest.json", (int)dl, path);
    if (!strcmp(slash + 1, "latest.json"))
        return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", link, (long)getpid());
    unlink(tmp);
    if (symlink(slash + 1, tmp) != 0 || rename(tmp, link) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 1;
}

void cb_results_interrupted(json_t *doc, const cb_plan *plan, size_t done)
{
    json_t *run = json_object_get(doc, "run"), *unfinished = json_array();
    json_object_set_new(run, "interrupted", json_true());
    for (size_t i = done; i < plan->ncells; i++) {
        const cb_plan_cell *pc = &plan->cells[i];
        json_t *h = cb_cell_header(pc);
        char p[512], *text;
        cb_cell_params_text(h, 1, p, sizeof p);
        if (asprintf(&text, "%s %s/%s %s", pc->cell.wl->name, pc->cell.impl->name, pc->variant,
                     p) < 0)
            abort();
        json_array_append_new(unfinished, json_string(text));
        free(text);
        json_decref(h);
    }
    json_object_set_new(run, "unfinished", unfinished);
}

