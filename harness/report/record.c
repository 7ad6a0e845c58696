/* A machine's compact record (record.h, docs/record.md): `export --format summary`. */
#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "claims.h"
#include "harness/common/build.h"
#include "harness/results/fields.h"
#include "harness/results/load.h"

/* The memory a record keeps per coroutine (results/load.c expands NAME back into
 * memory.NAME_bytes_per_coro). */
static const char *const kept_memory[] = {"reserved", "touched", "stack_used",
                                          "heap",     "rss",     "kernel"};

/* The file's name without its directories: where it was is the measuring machine's business. */
static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "?";
}

/* One cell in the record's form: its identity, what differs from the record's defaults
 * (variant plain, status ok, the workload's unit), the estimate with its interval, the memory
 * per coroutine and the instructions per op where they were measured. */
static json_t *record_cell(json_t *c, json_t *units, json_t *impls)
{
    const char *impl = cb_str(c, "impl"), *wl = cb_str(c, "workload");
    json_t *r = json_pack("{s:s, s:s, s:O}", "workload", wl, "impl", impl, "params",
                          json_object_get(c, "params"));
    if (!json_object_get(impls, impl)) {
        json_t *row = json_pack("{s:s}", "family", cb_str(c, "family"));
        if (json_object_get(c, "impl_row"))
            json_object_set(row, "row", json_object_get(c, "impl_row"));
        json_object_set_new(impls, impl, row);
    }
    if (strcmp(cb_str(c, "variant"), "plain"))
        json_object_set(r, "variant", json_object_get(c, "variant"));
    json_t *unit = json_object_get(c, "unit");
    if (unit && !json_object_get(units, wl))
        json_object_set(units, wl, unit);
    if (unit && !json_equal(unit, json_object_get(units, wl)))
        json_object_set(r, "unit", unit);
    if (strcmp(cb_str(c, "status"), "ok"))
        json_object_set(r, "status", json_object_get(c, "status"));
    if (cb_str(c, "error"))
        json_object_set(r, "error", json_object_get(c, "error"));
    double med, lo, hi, v;
    if (cb_field_number(c, "ns_per_op.median", &med)) {
        json_t *ci = json_object_get(json_object_get(c, "ns_per_op"), "ci95");
        json_t *ns = json_pack("[f]", med);
        if (json_is_array(ci)) {
            lo = json_number_value(json_array_get(ci, 0));
            hi = json_number_value(json_array_get(ci, 1));
            json_array_append_new(ns, json_real(lo));
            json_array_append_new(ns, json_real(hi));
        }
        json_object_set_new(r, "ns", ns);
    }
    json_t *mem = json_object();
    for (size_t i = 0; i < sizeof kept_memory / sizeof kept_memory[0]; i++) {
        char path[96];
        snprintf(path, sizeof path, "memory.%s_bytes_per_coro", kept_memory[i]);
        if (cb_field_number(c, path, &v))
            json_object_set_new(mem, kept_memory[i], json_real(v));
    }
    if (json_object_size(mem))
        json_object_set(r, "memory", mem);
    json_decref(mem);
    /* Instructions per op as the cell records them ({value, source}), else the counter's. */
    if (cb_field_number(c, "instructions_per_op.value", &v))
        json_object_set(r, "instr", json_object_get(c, "instructions_per_op"));
    else if (cb_field_number(c, "counters.instructions.per_op", &v))
        json_object_set_new(r, "instr", json_pack("{s:f, s:s}", "value", v, "source",
                                                  "instructions:u (perf_event_open)"));
    /* How long its invocations took, for a later run's estimate on this CPU kind (run's
     * pace.h): [wall_s, rep_ms, warmup_reps, reps], an array to keep the record small. */
    json_t *pace = json_object_get(c, "pace");
    if (json_is_object(pace)) {
        json_t *a = json_array();
        for (size_t i = 0; i < CB_PACE_FIELDS; i++)
            json_array_append(a, json_object_get(pace, cb_pace_fields[i]));
        json_object_set_new(r, "pace", a);
    }
    return r;
}

/* The machine as a record keeps it: what the results say of it, without the limits (which
 * decide how many coroutines fit on that host, not what they cost), with the CPU's identity,
 * the PMU and the hypervisor flag named at the top (null where the results do not say: files
 * written before machine.cpu and machine.pmu). */
static json_t *record_machine(json_t *doc)
{
    json_t *m = json_deep_copy(json_object_get(doc, "machine"));
    if (!m)
        m = json_object();
    json_object_del(m, "limits");
    json_t *hv = json_object_get(json_object_get(m, "environment"), "hypervisor");
    json_object_set_new(m, "hypervisor", json_is_boolean(hv) ? json_incref(hv) : json_null());
    if (!json_object_get(m, "cpu"))
        json_object_set_new(m, "cpu", json_null());
    if (!json_object_get(m, "pmu"))
        json_object_set_new(m, "pmu", json_null());
    return m;
}

/* doc's member key into r, when doc has it (a CI baseline has little of its run). */
static void copy_if(json_t *r, json_t *doc, const char *key)
{
    if (json_object_get(doc, key))
        json_object_set(r, key, json_object_get(doc, key));
}

json_t *cb_record_make(json_t *doc)
{
    json_t *units = json_object(), *impls = json_object(), *cells = json_array(), *c, *f;
    size_t i;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
        json_array_append_new(cells, record_cell(c, units, impls));
    /* The files it was made from: their names and runs (a record of a record keeps its own). */
    json_t *files = json_array();
    json_t *notes = json_object_get(doc, CB_CLAIMS_FILES_KEY);
    if (json_is_array(json_object_get(doc, "files")) && cb_results_is_record(doc))
        json_array_extend(files, json_object_get(doc, "files"));
    else
        json_array_foreach(notes, i, f)
            json_array_append_new(files, json_pack("{s:s, s:O?}", "file",
                                                   base_name(cb_str(f, "file")), "run",
                                                   json_object_get(f, "run")));
    json_t *build = json_deep_copy(json_object_get(doc, "build"));
    if (!build)
        build = json_object();
    json_object_set(build, "commit", json_object_get(doc, "git_commit"));
    json_t *r = json_pack("{s:s}", "schema", CB_RECORD_SCHEMA);
    copy_if(r, doc, "corobench_version");
    copy_if(r, doc, "git_commit");
    copy_if(r, doc, "created_utc");
    json_object_set_new(r, "machine", record_machine(doc));
    json_object_set_new(r, "build", build);
    copy_if(r, doc, "run");
    json_object_set_new(r, "files", files);
    copy_if(r, doc, "unavailable");
    json_object_set_new(r, "claims", cb_claims_json(doc));
    json_object_set_new(r, "summary", cb_claims_points(doc));
    json_object_set_new(r, "units", units);
    json_object_set_new(r, "impls", impls);
    json_object_set_new(r, "cells", cells);
    return r;
}

int cb_record_dump(FILE *out, json_t *record)
{
    /* The document indented, its cells one per line (a record is kept in the tree: a change
     * of one cell is a line of its diff); six significant digits, as the figures are read. */
    enum { REAL = JSON_REAL_PRECISION(6) };
    json_t *cells = json_incref(json_object_get(record, "cells"));
    json_object_set_new(record, "cells", json_array());
    char *head = json_dumps(record, JSON_INDENT(2) | JSON_PRESERVE_ORDER | REAL);
    json_object_set_new(record, "cells", cells);
    char *at = head ? strstr(head, "\"cells\": []") : NULL;
    if (!at) {
        free(head);
        return -1;
    }
    at += strlen("\"cells\": [");
    fwrite(head, 1, (size_t)(at - head), out);
    json_t *c;
    size_t i;
    int rc = 0;
    json_array_foreach(cells, i, c)
    {
        fputs(i ? ",\n" : "\n", out);
        rc |= json_dumpf(c, out, JSON_COMPACT | JSON_PRESERVE_ORDER | REAL);
    }
    fputs(json_array_size(cells) ? "\n  " : "", out);
    fputs(at, out);
    fputc('\n', out);
    free(head);
    return rc;
}

/* The vendors' short names in a kind (the vendor_id strings of /proc/cpuinfo); another vendor
 * is its own name lowercased, to [a-z0-9]. */
static const struct {
    const char *vendor, *name;
} vendor_names[] = {{"AuthenticAMD", "amd"}, {"GenuineIntel", "intel"}};

int cb_record_kind(json_t *doc, char *buf, size_t len, cb_error *e)
{
    json_t *cpu = json_object_get(json_object_get(doc, "machine"), "cpu");
    if (!json_is_object(cpu))
        return cb_error_set(e, "machine.cpu is %s: the CPU kind is unknown (valid: results "
                               "written since machine.cpu, or their record, with its vendor, "
                               "family and model)",
                            cpu ? "not an object" : "missing (results written before it)");
    json_t *fam = json_object_get(cpu, "family"), *mod = json_object_get(cpu, "model");
    const char *vendor = json_string_value(json_object_get(cpu, "vendor"));
    if (!vendor || !vendor[0] || !strcmp(vendor, "unknown"))
        return cb_error_set(e, "machine.cpu.vendor is %s%s%s: the CPU kind is unknown (valid: "
                               "a vendor, as /proc/cpuinfo's vendor_id)",
                            vendor ? "'" : "", vendor ? cb_quote(vendor) : "not a string",
                            vendor ? "'" : "");
    if (!json_is_integer(fam) || json_integer_value(fam) < 0 || !json_is_integer(mod) ||
        json_integer_value(mod) < 0)
        return cb_error_set(e, "machine.cpu's family and model are not both known (valid: "
                               "integers from 0, as /proc/cpuinfo's cpu family and model)");
    char v[64] = "";
    size_t k = 0, n = 0, nv = sizeof vendor_names / sizeof vendor_names[0];
    while (k < nv && strcmp(vendor, vendor_names[k].vendor))
        k++;
    if (k < nv)
        snprintf(v, sizeof v, "%s", vendor_names[k].name);
    else
        for (const char *p = vendor; *p && n + 1 < sizeof v; p++)
            if (isalnum((unsigned char)*p) && !((unsigned char)*p & 0x80))
                v[n++] = (char)tolower((unsigned char)*p);
    if (!v[0])
        return cb_error_set(e, "machine.cpu.vendor '%s' has no letter or digit (valid: a "
                               "vendor, as /proc/cpuinfo's vendor_id)",
                            cb_quote(vendor));
    if (snprintf(buf, len, "%s-%lld-%lld", v, (long long)json_integer_value(fam),
                 (long long)json_integer_value(mod)) >= (int)len)
        return cb_error_set(e, "machine.cpu's kind is too long (valid: at most %zu bytes)",
                            len - 1);
    return 0;
}

int cb_record_one_per_kind(json_t **docs, const char **ins, size_t n, cb_error *e)
{
    char a[96], b[96];
    for (size_t i = 0; i < n; i++) {
        if (!cb_results_is_record(docs[i]) || cb_record_kind(docs[i], a, sizeof a, NULL))
            continue;
        for (size_t j = i + 1; j < n; j++) {
            if (!cb_results_is_record(docs[j]) || cb_record_kind(docs[j], b, sizeof b, NULL) ||
                strcmp(a, b))
                continue;
            return cb_error_set(e, "'%s' and '%s' are records of one CPU kind, %s (valid: one "
                                   "record per CPU kind, as results/fleet/ keeps them)",
                                cb_quote(ins[i]), cb_quote(ins[j]), a);
        }
    }
    return 0;
}

int cb_record_give_cpu(json_t *doc, const char *spec, cb_error *e)
{
    static const char valid[] = "VENDOR,FAMILY,MODEL as /proc/cpuinfo gives them: a vendor_id "
                                "(AuthenticAMD, GenuineIntel) or amd or intel, and two decimal "
                                "integers 0..65535, e.g. AuthenticAMD,26,2";
    const char *c1 = strchr(spec, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (!c1 || !c2 || strchr(c2 + 1, ',') || c1 == spec || (size_t)(c1 - spec) >= 64)
        return cb_error_set(e, "invalid --cpu '%s' (valid: %s)", cb_quote(spec), valid);
    char vendor[64];
    snprintf(vendor, sizeof vendor, "%.*s", (int)(c1 - spec), spec);
    for (size_t k = 0; k < sizeof vendor_names / sizeof vendor_names[0]; k++)
        if (!strcasecmp(vendor, vendor_names[k].name))
            snprintf(vendor, sizeof vendor, "%s", vendor_names[k].vendor);
    for (const char *p = vendor; *p; p++)
        if (!isalnum((unsigned char)*p) || ((unsigned char)*p & 0x80))
            return cb_error_set(e, "invalid --cpu '%s': vendor '%s' (valid: %s)", cb_quote(spec),
                                cb_quote(vendor), valid);
    long v[2];
    const char *at[2] = {c1 + 1, c2 + 1};
    for (int i = 0; i < 2; i++) {
        char *end;
        errno = 0;
        v[i] = isdigit((unsigned char)at[i][0]) ? strtol(at[i], &end, 10) : -1;
        if (v[i] < 0 || errno || v[i] > 65535 || (*end && *end != ','))
            return cb_error_set(e, "invalid --cpu '%s': %s (valid: %s)", cb_quote(spec),
                                i ? "model" : "family", valid);
    }
    json_t *m = json_object_get(doc, "machine");
    if (!json_is_object(m))
        json_object_set_new(doc, "machine", m = json_object());
    json_t *cpu = json_pack("{s:s, s:I, s:I, s:O?, s:b}", "vendor", vendor, "family",
                            (json_int_t)v[0], "model", (json_int_t)v[1], "model_name",
                            json_object_get(m, "cpu_model"), "given", 1);
    json_t *was = json_object_get(m, "cpu");
    if (json_is_object(was)) {
        json_t *probe = json_pack("{s:{s:O}}", "machine", "cpu", cpu);
        char a[96], b[96];
        int same = !cb_record_kind(doc, a, sizeof a, NULL) &&
                   !cb_record_kind(probe, b, sizeof b, NULL) && !strcmp(a, b);
        json_decref(probe);
        json_decref(cpu);
        if (!same)
            return cb_error_set(e, "--cpu '%s' is not the CPU the results name, %s (valid: "
                                   "--cpu for results written before machine.cpu, or the kind "
                                   "they name)",
                                cb_quote(spec), cb_record_kind(doc, a, sizeof a, NULL) ? "?" : a);
        return 0; /* the results' own, with its stepping and microcode, stand */
    }
    json_object_set_new(m, "cpu", cpu);
    return 0;
}
