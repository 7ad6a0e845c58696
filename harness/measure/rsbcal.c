/* This machine's return-stack model: CPU identity, the calibration file, machine.rsb and the
 * label every simulated count is shown with (harness/rsbcal.h, docs/rsb.md). */
#include "rsbcal.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/common/cli.h"
#include "impls/root.h"

/* The value of a "key<tabs>: value" line of /proc/cpuinfo, trimmed; NULL for another key. */
static const char *cpuinfo_value(char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n))
        return NULL;
    char *v = line + n;
    while (*v == ' ' || *v == '\t')
        v++;
    if (*v != ':') /* "model" must not match "model name" */
        return NULL;
    v += 1 + (v[1] == ' ');
    v[strcspn(v, "\n")] = '\0';
    return v;
}

/* AArch64's "CPU implementer" codes (the kernel's arch/arm64/include/asm/cputype.h) as vendor
 * names; another code is its hex value. */
static const struct {
    int code;
    const char *name;
} implementers[] = {{0x41, "ARM"},     {0x42, "Broadcom"}, {0x43, "Cavium"},
                    {0x46, "Fujitsu"}, {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},
                    {0x50, "APM"},     {0x51, "Qualcomm"}, {0x61, "Apple"},
                    {0x6d, "Microsoft"}, {0xc0, "Ampere"}};

void cb_cpu_identify(cb_cpu_id *c)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    cb_cpu_identify_from(f, c);
    if (f)
        fclose(f);
}

void cb_cpu_identify_from(FILE *f, cb_cpu_id *c)
{
    *c = (cb_cpu_id){.family = -1, .model = -1, .stepping = -1};
    snprintf(c->vendor, sizeof c->vendor, "unknown");
    snprintf(c->microcode, sizeof c->microcode, "unknown");
    snprintf(c->name, sizeof c->name, "unknown");
    char line[512];
    const char *v;
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '\n') /* the first processor's block is enough */
            break;
        if ((v = cpuinfo_value(line, "vendor_id")))
            snprintf(c->vendor, sizeof c->vendor, "%s", v);
        else if ((v = cpuinfo_value(line, "cpu family")))
            c->family = atoi(v);
        else if ((v = cpuinfo_value(line, "model")))
            c->model = atoi(v);
        else if ((v = cpuinfo_value(line, "stepping")))
            c->stepping = atoi(v);
        else if ((v = cpuinfo_value(line, "microcode")))
            snprintf(c->microcode, sizeof c->microcode, "%s", v);
        else if ((v = cpuinfo_value(line, "model name")))
            snprintf(c->name, sizeof c->name, "%s", v);
        /* AArch64 has no vendor_id: its implementer, architecture and part stand for the
         * vendor, family and model, its revision for the stepping */
        else if ((v = cpuinfo_value(line, "CPU implementer"))) {
            int code = (int)strtol(v, NULL, 0);
            size_t k = 0, n = sizeof implementers / sizeof implementers[0];
            while (k < n && implementers[k].code != code)
                k++;
            if (k < n)
                snprintf(c->vendor, sizeof c->vendor, "%s", implementers[k].name);
            else
                snprintf(c->vendor, sizeof c->vendor, "0x%02x", code);
        } else if ((v = cpuinfo_value(line, "CPU architecture")))
            c->family = atoi(v);
        else if ((v = cpuinfo_value(line, "CPU part")))
            c->model = (int)strtol(v, NULL, 0);
        else if ((v = cpuinfo_value(line, "CPU revision")))
            c->stepping = atoi(v);
    }
}

void cb_cpu_key(const cb_cpu_id *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%d-%d-%d-%s", c->vendor, c->family, c->model, c->stepping,
             c->microcode);
    for (char *p = buf; *p; p++) /* a file name: nothing but [A-Za-z0-9._-] */
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
            *p != '.' && *p != '-')
            *p = '_';
}

json_t *cb_cpu_json(const cb_cpu_id *c)
{
    char key[160];
    cb_cpu_key(c, key, sizeof key);
    return json_pack("{s:s, s:i, s:i, s:i, s:s, s:s, s:s}", "vendor", c->vendor, "family",
                     c->family, "model", c->model, "stepping", c->stepping, "microcode",
                     c->microcode, "model_name", c->name, "key", key);
}

const char *cb_rsbcal_dir(void)
{
    static char dir[4096];
    const char *d = getenv("COROBENCH_CALIBRATION_DIR");
    if (d && d[0])
        return d;
    /* The tree's own results/calibration (impls/root.h: the directory above the binary that
     * holds the Makefile and impls/), whatever the current directory: a run started elsewhere
     * reads the calibration its tree's calibrate wrote. */
    const char *root = cb_root_dir();
    if (!dir[0])
        snprintf(dir, sizeof dir, "%.4000s%sresults/calibration", root ? root : "",
                 root ? "/" : "");
    return dir;
}

void cb_rsbcal_path(const cb_cpu_id *c, char *buf, size_t len)
{
    char key[160];
    cb_cpu_key(c, key, sizeof key);
    snprintf(buf, len, "%s/%s.json", cb_rsbcal_dir(), key);
}

/* Sets why to "PATH: ..." and returns NULL. */
static json_t *refuse(char *why, size_t len, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static json_t *refuse(char *why, size_t len, const char *path, const char *fmt, ...)
{
    int n = snprintf(why, len, "%s: ", path);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < len)
        vsnprintf(why + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return NULL;
}

/* A JSON value as a message shows it: missing, null, a number, a quoted string, a type. */
static const char *value_text(json_t *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "missing");
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%g (a real)", json_real_value(v));
    else if (json_is_string(v))
        snprintf(buf, len, "\"%s\" (a string)", cb_quote(json_string_value(v)));
    else
        snprintf(buf, len, "%s", json_is_null(v) ? "null" : json_is_object(v) ? "an object" :
                                 json_is_array(v) ? "an array" : "a boolean");
    return buf;
}

/* A finite number in [lo, hi] (a JSON integer or real). */
static int number_in(json_t *v, double lo, double hi)
{
    double x = json_number_value(v);
    return json_is_number(v) && isfinite(x) && x >= lo && x <= hi;
}

/* What a calibration's figures are checked against: a stack size the simulator runs; a cost
 * of one mispredicted return from a hundredth of a ns to a microsecond (measured: 2 to 30 ns);
 * an R^2 of a least-squares line with an intercept, which is in [0, 1]. */
#define CAL_COST_MIN_NS 0.01
#define CAL_COST_MAX_NS 1000.0
#define CAL_TSC_MAX 1e6

json_t *cb_rsbcal_parse(const char *path, const char *text, size_t n, const char *key,
                        char *why, size_t len)
{
    json_error_t e;
    json_t *doc = json_loadb(text, n, JSON_REJECT_DUPLICATES, &e), *out = NULL;
    if (!doc)
        return refuse(why, len, path, "not JSON: %s at line %d (valid: a file corobench "
                      "calibrate wrote)", cb_quote(e.text), e.line);
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    const char *file_key = json_string_value(json_object_get(json_object_get(doc, "cpu"), "key"));
    json_t *fit = json_object_get(doc, "fit");
    const char *model = json_string_value(json_object_get(fit, "model"));
    json_t *entries = json_object_get(fit, "entries"), *cost = json_object_get(fit,
                                                                               "ns_per_mispredict");
    json_t *tsc = json_object_get(fit, "tsc_cycles_per_mispredict");
    json_t *r2 = json_object_get(fit, "r2"), *tied = json_object_get(fit, "entries_tied_up_to");
    json_t *base = json_object_get(fit, "baseline"), *created = json_object_get(doc, "created_utc");
    json_int_t nent = json_integer_value(entries);
    cb_rsb_model m;
    char bad[128];
    if (!json_is_object(doc))
        refuse(why, len, path, "not a JSON object (valid: a file corobench calibrate wrote)");
    else if (!schema || strcmp(schema, "corobench-calibration/1"))
        refuse(why, len, path, "schema: %s (valid: \"corobench-calibration/1\")",
               value_text(json_object_get(doc, "schema"), bad, sizeof bad));
    else if (!file_key || strcmp(file_key, key))
        refuse(why, len, path, "cpu.key: %s, not this CPU's (valid: \"%s\")",
               value_text(json_object_get(json_object_get(doc, "cpu"), "key"), bad, sizeof bad),
               key);
    else if (!json_is_object(fit))
        refuse(why, len, path, "fit: %s (valid: an object)", value_text(fit, bad, sizeof bad));
    else if (!model || cb_rsb_model_parse(model, &m) != 0)
        refuse(why, len, path, "fit.model: %s (valid: \"circular\", \"underflow-btb\")",
               value_text(json_object_get(fit, "model"), bad, sizeof bad));
    else if (!json_is_integer(entries) || nent < 1 || nent > CB_RSBSIM_MAX_ENTRIES)
        refuse(why, len, path, "fit.entries: %s (valid: an integer from 1 to %d)",
               value_text(entries, bad, sizeof bad), CB_RSBSIM_MAX_ENTRIES);
    else if (tied && (!json_is_integer(tied) || json_integer_value(tied) < nent ||
                      json_integer_value(tied) > CB_RSBSIM_MAX_ENTRIES))
        refuse(why, len, path, "fit.entries_tied_up_to: %s (valid: an integer from fit.entries "
               "to %d)", value_text(tied, bad, sizeof bad), CB_RSBSIM_MAX_ENTRIES);
    else if (tied && json_integer_value(tied) > nent)
        /* docs/rsb.md: the sweep never filled a stack of that size, so it cannot tell N from
         * any size up to entries_tied_up_to; adopting N would state a size it did not bound. */
        refuse(why, len, path, "fit.entries_tied_up_to: %lld: %s %lld..%lld count the same over "
               "its sweep, so %lld entries is only a lower bound (valid: a sweep that bounds the "
               "size, calibrate --max-depth 40)", (long long)json_integer_value(tied), model,
               (long long)nent, (long long)json_integer_value(tied), (long long)nent);
    else if (!number_in(cost, CAL_COST_MIN_NS, CAL_COST_MAX_NS))
        refuse(why, len, path, "fit.ns_per_mispredict: %s (valid: a number of ns from %g to %g)",
               value_text(cost, bad, sizeof bad), CAL_COST_MIN_NS, CAL_COST_MAX_NS);
    else if (tsc && !json_is_null(tsc) && !number_in(tsc, CAL_COST_MIN_NS, CAL_TSC_MAX))
        refuse(why, len, path, "fit.tsc_cycles_per_mispredict: %s (valid: null or a number "
               "from %g to %g)", value_text(tsc, bad, sizeof bad), CAL_COST_MIN_NS, CAL_TSC_MAX);
    else if (!number_in(r2, 0, 1))
        refuse(why, len, path, "fit.r2: %s (valid: a number from 0 to 1)",
               value_text(r2, bad, sizeof bad));
    else if (base && (!json_is_string(base) || (strcmp(json_string_value(base), "jmpret") &&
                                                strcmp(json_string_value(base), "sites"))))
        refuse(why, len, path, "fit.baseline: %s (valid: \"jmpret\", \"sites\")",
               value_text(base, bad, sizeof bad));
    else if (created && !json_is_string(created) && !json_is_null(created))
        refuse(why, len, path, "created_utc: %s (valid: a string)",
               value_text(created, bad, sizeof bad));
    else
        out = json_pack("{s:s, s:I, s:O, s:O, s:O, s:s, s:s, s:O, s:s, s:n}", "model", model,
                        "entries", nent, "ns_per_mispredict", cost, "tsc_cycles_per_mispredict",
                        tsc ? tsc : json_null(), "r2", r2, "source", "calibrated", "twin",
                        base ? json_string_value(base) : "jmpret", "calibrated_utc",
                        created ? created : json_null(), "file", path, "refused");
    json_decref(doc);
    return out;
}

/* A calibration file is a few hundred kilobytes; anything far larger is not one. */
#define CAL_MAX_BYTES (64L << 20)

json_t *cb_rsbcal_load(const char *path, const cb_cpu_id *c, char *why, size_t len)
{
    why[0] = '\0';
    struct stat st;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; the type is checked next. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        if (err == ENOENT && lstat(path, &st) != 0)
            return NULL; /* no calibration: not a problem */
        return refuse(why, len, path, "cannot open: %s%s", strerror(err),
                      err == ENOENT ? " (a symbolic link to nothing)" : "");
    }
    char *text = NULL;
    size_t n = 0;
    if (fstat(fd, &st) != 0)
        refuse(why, len, path, "cannot stat: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        refuse(why, len, path, "not a regular file (valid: a file corobench calibrate wrote)");
    else if (st.st_size > CAL_MAX_BYTES)
        refuse(why, len, path, "%lld bytes (valid: a calibration file, under %ld)",
               (long long)st.st_size, CAL_MAX_BYTES);
    else if (!(text = malloc((size_t)st.st_size + 1)))
        refuse(why, len, path, "out of memory for %lld bytes", (long long)st.st_size);
    else {
        ssize_t got = 0;
        while (n < (size_t)st.st_size &&
               ((got = read(fd, text + n, (size_t)st.st_size - n)) > 0 ||
                (got < 0 && errno == EINTR)))
            n += got > 0 ? (size_t)got : 0;
        if (n < (size_t)st.st_size)
            refuse(why, len, path, "cannot read: %s",
                   got < 0 ? strerror(errno) : "shorter than its size");
    }
    close(fd);
    json_t *out = NULL;
    if (!why[0]) {
        char key[160];
        cb_cpu_key(c, key, sizeof key);
        out = cb_rsbcal_parse(path, text, n, key, why, len);
    }
    free(text);
    return out;
}

cb_rsb_config cb_rsbcal_vendor_default(const cb_cpu_id *c)
{
    /* docs/rsb.md, "The simulator": AMD Zen's 32-entry circular stack; Intel since Skylake, 16
     * entries backed by the indirect predictor on underflow. */
    if (!strcmp(c->vendor, "GenuineIntel"))
        return (cb_rsb_config){CB_RSB_UNDERFLOW_BTB, 16};
    return (cb_rsb_config){CB_RSB_CIRCULAR, 32};
}

json_t *cb_rsbcal_machine(void)
{
    static json_t *known; /* read once per process */
    if (known)
        return json_incref(known);
    cb_cpu_id c;
    char path[4096];
    cb_cpu_identify(&c);
    cb_rsbcal_path(&c, path, sizeof path);
    char why[1024];
    json_t *r = cb_rsbcal_load(path, &c, why, sizeof why);
    /* The file's parse tree (its points and candidates) is freed by now; give those pages back
     * so that a cell's child, forked from this process, does not start with resident free heap
     * that its allocations would reuse unseen by its memory measurement (docs/memory.md). */
    malloc_trim(0);
    if (r)
        return json_incref(known = r);
    cb_rsb_config d = cb_rsbcal_vendor_default(&c);
    /* A file that is there but refused is said once per process, and recorded. */
    if (why[0])
        fprintf(stderr, "corobench: warning: calibration refused: %s; using the default for %s "
                        "(%s %u)\n",
                why, c.vendor, cb_rsb_model_name(d.model), d.entries);
    known = json_pack("{s:s, s:i, s:n, s:n, s:n, s:s, s:n, s:n, s:n, s:o}", "model",
                      cb_rsb_model_name(d.model), "entries", (int)d.entries, "ns_per_mispredict",
                      "tsc_cycles_per_mispredict", "r2", "source", "default", "twin",
                      "calibrated_utc", "file", "refused",
                      why[0] ? json_string(why) : json_null());
    return json_incref(known);
}

void cb_rsbcal_config(json_t *machine_rsb, cb_rsb_config *out)
{
    cb_rsb_model m = CB_RSB_CIRCULAR;
    cb_rsb_model_parse(json_string_value(json_object_get(machine_rsb, "model")) ?: "", &m);
    json_int_t n = json_integer_value(json_object_get(machine_rsb, "entries"));
    *out = (cb_rsb_config){m, n >= 1 && n <= CB_RSBSIM_MAX_ENTRIES ? (unsigned)n
                                                                    : CB_RSBSIM_DEFAULT_ENTRIES};
}

int cb_rsbcal_check_machine(json_t *rsb, char *field, size_t flen, char *why, size_t len)
{
    char bad[128];
    const char *model = json_string_value(json_object_get(rsb, "model"));
    const char *src = json_string_value(json_object_get(rsb, "source"));
    const char *twin = json_string_value(json_object_get(rsb, "twin"));
    json_t *entries = json_object_get(rsb, "entries");
    json_int_t n = json_integer_value(entries);
    cb_rsb_model m;
    int calibrated = src && !strcmp(src, "calibrated");
    static const char *const nums[] = {"ns_per_mispredict", "tsc_cycles_per_mispredict", "r2"};
    static const double hi[] = {CAL_COST_MAX_NS, CAL_TSC_MAX, 1};
    static const char *const strs[] = {"calibrated_utc", "file", "refused"};
#define BAD(f, ...) (snprintf(field, flen, "machine.rsb.%s", f), snprintf(why, len, __VA_ARGS__), -1)
    if (!model || cb_rsb_model_parse(model, &m) != 0)
        return BAD("model", "is %s (valid: \"circular\", \"underflow-btb\")",
                   value_text(json_object_get(rsb, "model"), bad, sizeof bad));
    if (!json_is_integer(entries) || n < 1 || n > CB_RSBSIM_MAX_ENTRIES)
        return BAD("entries", "is %s (valid: an integer from 1 to %d)",
                   value_text(entries, bad, sizeof bad), CB_RSBSIM_MAX_ENTRIES);
    if (!src || (!calibrated && strcmp(src, "default")))
        return BAD("source", "is %s (valid: \"calibrated\", \"default\")",
                   value_text(json_object_get(rsb, "source"), bad, sizeof bad));
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object_get(rsb, nums[i]);
        /* A calibration has its cost and R^2; a default has neither (tsc may be null). */
        int null_ok = !calibrated || i == 1;
        if (!((null_ok && (!v || json_is_null(v))) ||
              (calibrated && number_in(v, i == 2 ? 0 : CAL_COST_MIN_NS, hi[i]))))
            return BAD(nums[i], "is %s (valid: %s)", value_text(v, bad, sizeof bad),
                       !calibrated ? "null, the default has no calibration"
                       : i == 2   ? "a number from 0 to 1"
                                  : "a positive number");
    }
    if (json_object_get(rsb, "twin") && !json_is_null(json_object_get(rsb, "twin")) &&
        (!twin || (strcmp(twin, "jmpret") && strcmp(twin, "sites"))))
        return BAD("twin", "is %s (valid: \"jmpret\", \"sites\" or null)",
                   value_text(json_object_get(rsb, "twin"), bad, sizeof bad));
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object_get(rsb, strs[i]);
        if (v && !json_is_null(v) && !json_is_string(v))
            return BAD(strs[i], "is %s (valid: a string or null)", value_text(v, bad, sizeof bad));
    }
#undef BAD
    return 0;
}
