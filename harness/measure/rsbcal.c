/* This machine's return-stack model: CPU identity, the calibration file, machine.rsb and the
 * label every simulated count is shown with (harness/rsbcal.h, docs/rsb.md). */
#include "rsbcal.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void cb_cpu_identify(cb_cpu_id *c)
{
    *c = (cb_cpu_id){.family = -1, .model = -1, .stepping = -1};
    snprintf(c->vendor, sizeof c->vendor, "unknown");
    snprintf(c->microcode, sizeof c->microcode, "unknown");
    snprintf(c->name, sizeof c->name, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
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
    }
    if (f)
        fclose(f);
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
    const char *d = getenv("COROBENCH_CALIBRATION_DIR");
    return d && d[0] ? d : "results/calibration";
}

void cb_rsbcal_path(const cb_cpu_id *c, char *buf, size_t len)
{
    char key[160];
    cb_cpu_key(c, key, sizeof key);
    snprintf(buf, len, "%s/%s.json", cb_rsbcal_dir(), key);
}

/* The fit of a calibration file as machine.rsb, or NULL when the file is missing or is not a
 * calibration of this CPU with a usable fit. */
static json_t *from_file(const cb_cpu_id *c, const char *path)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e), *out = NULL;
    if (!doc)
        return NULL;
    char key[160];
    cb_cpu_key(c, key, sizeof key);
    json_t *fit = json_object_get(doc, "fit");
    const char *model = json_string_value(json_object_get(fit, "model"));
    json_int_t entries = json_integer_value(json_object_get(fit, "entries"));
    cb_rsb_model m;
    if (!strcmp(json_string_value(json_object_get(doc, "schema")) ?: "",
                "corobench-calibration/1") &&
        !strcmp(json_string_value(json_object_get(json_object_get(doc, "cpu"), "key")) ?: "",
                key) &&
        model && cb_rsb_model_parse(model, &m) == 0 && entries >= 1 &&
        entries <= CB_RSBSIM_MAX_ENTRIES && json_is_number(json_object_get(fit, "r2")))
        out = json_pack("{s:s, s:I, s:O, s:O, s:O, s:s, s:s, s:O, s:s}", "model", model,
                        "entries", entries, "ns_per_mispredict",
                        json_object_get(fit, "ns_per_mispredict"), "tsc_cycles_per_mispredict",
                        json_object_get(fit, "tsc_cycles_per_mispredict") ?: json_null(), "r2",
                        json_object_get(fit, "r2"), "source", "calibrated", "twin",
                        json_string_value(json_object_get(fit, "baseline")) ?: "jmpret",
                        "calibrated_utc",
                        json_object_get(doc, "created_utc") ?: json_null(), "file", path);
    json_decref(doc);
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
    json_t *r = from_file(&c, path);
    /* The file's parse tree (its points and candidates) is freed by now; give those pages back
     * so that a cell's child, forked from this process, does not start with resident free heap
     * that its allocations would reuse unseen by its memory measurement (docs/memory.md). */
    malloc_trim(0);
    if (r)
        return json_incref(known = r);
    cb_rsb_config d = cb_rsbcal_vendor_default(&c);
    known = json_pack("{s:s, s:i, s:n, s:n, s:n, s:s, s:n, s:n, s:n}", "model",
                      cb_rsb_model_name(d.model), "entries", (int)d.entries, "ns_per_mispredict",
                      "tsc_cycles_per_mispredict", "r2", "source", "default", "twin",
                      "calibrated_utc", "file");
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
