/* The results document (schema corobench-results/1, docs/results-schema.md) as every writer
 * makes it: the machine and build objects around the run object the command gives, and its
 * atomic write through harness/common/output.h. The reader is load.c. */
#include "write.h"

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

#include "harness/common/build.h"
#include "harness/measure/clock.h"
#include "harness/measure/counters.h"
#include "harness/measure/env.h"
#include "harness/measure/kmem.h"
#include "harness/measure/rsbcal.h"

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

static json_t *machine(int pin_cpu)
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
    /* The CPU's kind (a machine's record is named by it, docs/record.md) and whether a PMU
     * counts here (what the counters and claims could rest on). */
    cb_cpu_id id;
    char why[256];
    cb_cpu_identify(&id);
    json_object_set_new(m, "cpu", cb_cpu_json(&id));
    const char *no_pmu = cb_counters_probe("instructions", why, sizeof why);
    json_object_set_new(m, "pmu", json_pack("{s:b, s:s?}", "available", !no_pmu, "reason", no_pmu));
    /* In the parent, before any cell: the cells' kernel_bytes_per_coro use this figure. */
    cb_kmem_cal kc;
    cb_kmem_calibrate(&kc);
    json_object_set_new(m, "kernel_memory", cb_kmem_json(&kc));
    /* What spoils timing here, one warning line each on stderr (never a refusal). */
    json_t *env = cb_env_check(pin_cpu);
    cb_env_print_warnings(env, stderr);
    json_object_set_new(m, "environment", env);
    return m;
}

json_t *cb_results_new(json_t *run, json_t *unavailable, int pin_cpu)
{
    char created[32], compiler[256];
    utc_stamp(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ");
    snprintf(compiler, sizeof compiler, "%s (%s)", cb_build_cc, cb_build_compiler);
    /* The C++ compilers of cxx20 and cxx20-clang, null where not built. */
    json_t *cxx = cb_build_cxx20[0] ? json_string(cb_build_cxx20) : json_null();
    json_t *clang = cb_build_cxx20_clang[0] ? json_string(cb_build_cxx20_clang) : json_null();
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:{s:s, s:s, s:s, s:o, s:o}, s:o, s:o, s:[]}",
                     "schema", CB_SCHEMA, "corobench_version", CB_VERSION, "git_commit",
                     cb_build_commit, "created_utc", created, "machine", machine(pin_cpu),
                     "build", "compiler", compiler, "cflags", cb_build_cflags, "arch",
                     cb_build_arch, "cxx20_compiler", cxx, "cxx20_clang_compiler", clang, "run",
                     run, "unavailable", unavailable, "cells");
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
     * the temporary directory, else /tmp, else the current directory (TMPDIR may be unusable,
     * as /proc is: each failure is said, with its own reason). */
    const char *tmpdir = getenv("TMPDIR");
    const char *dirs[] = {tmpdir && tmpdir[0] ? tmpdir : "/tmp", "/tmp", "."};
    for (size_t d = 0; d < 3; d++) {
        if (out_path && out->raced) {
            if (d)
                break;
            cb_out_prepare_beside(out, "results", out_path);
        } else if ((d == 1 && !strcmp(dirs[0], "/tmp")) ||
                   cb_out_prepare_default(out, "results", dirs[d]) != 0) {
            continue;
        }
        if (json_dumpf(doc, cb_out_stream(out), JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
            abort();
        if (cb_out_commit(out) != 0)
            continue;
        fprintf(stderr, "corobench: results written to '%s' instead\n", out->path);
        *moved = 1;
        return 0;
    }
    return 1;
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
