/* A machine's compact record (docs/record.md): `export --format summary` writes it, the
 * loader reads it as it reads results, and the report's verdicts from it are those from the
 * results it was made of. Fixtures: the claims' own (tests/claims/<id>/), every verdict of
 * every claim among them; no cell is run. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/common/build.h"
#include "harness/measure/rsbcal.h"
#include "harness/report/claims.h"
#include "harness/report/record.h"
#include "harness/results/load.h"
#include "impls/root.h"
#include "test.h"

static json_t *load_path(const char *path)
{
    cb_error e;
    json_t *doc = cb_results_load(path, &e);
    if (!doc)
        CB_FAIL("%s: %s", path, e.msg);
    return doc;
}

/* The record of doc, written as export writes it and read back by the loader. */
static json_t *through_record(json_t *doc, const char *name, size_t *bytes)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    json_t *r = cb_record_make(doc);
    CB_CHECK(cb_record_dump(f, r) == 0);
    json_decref(r);
    fclose(f);
    cb_error e;
    json_t *back = cb_results_parse(name, text, len, &e);
    if (!back)
        CB_FAIL("%s: its record is refused: %s", name, e.msg);
    if (bytes)
        *bytes = len;
    free(text);
    return back;
}

/* Every claim's verdict on every claims fixture equals its verdict on the fixture's record,
 * and every cell's estimate and interval survive (to the record's six digits). Without the
 * record's own verdicts the claims would be recomputed from cells without samples, and every
 * rule that needs an interval would be inconclusive. */
CB_TEST(record_round_trips_the_verdicts)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "tests/claims"); /* the sources' (tests run there) */
    size_t nclaims = cb_claims_count(), files = 0, decided = 0;
    for (size_t k = 0; k < nclaims; k++) {
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%s", dir, cb_claims_id(k));
        DIR *d = opendir(sub);
        CB_CHECK(d != NULL);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strstr(e->d_name, ".json"))
                continue;
            char path[4600];
            snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
            json_t *doc = load_path(path);
            /* instructions per op, as a cell records them (ab's callgrind, run's counter) */
            json_object_set_new(json_array_get(json_object_get(doc, "cells"), 0),
                                "instructions_per_op",
                                json_pack("{s:f, s:s}", "value", 12.5, "source", "callgrind"));
            json_t *rec = through_record(doc, path, NULL);
            CB_CHECK(json_equal(
                json_object_get(json_array_get(json_object_get(rec, "cells"), 0),
                                "instructions_per_op"),
                json_object_get(json_array_get(json_object_get(doc, "cells"), 0),
                                "instructions_per_op")));
            CB_CHECK(cb_results_is_record(rec) && !cb_results_is_record(doc));
            for (size_t j = 0; j < nclaims; j++) {
                cb_verdict a = cb_claims_verdict(doc, j), b = cb_claims_verdict(rec, j);
                if (a != b)
                    CB_FAIL("%s: claim %s is %s on the results, %s on their record", path,
                            cb_claims_id(j), cb_verdict_name(a), cb_verdict_name(b));
                decided += a == CB_SUPPORTED || a == CB_CONTRADICTED;
            }
            json_t *cells = json_object_get(doc, "cells"), *rc = json_object_get(rec, "cells");
            CB_CHECK_EQ_INT(json_array_size(rc), json_array_size(cells));
            size_t i;
            json_t *c;
            json_array_foreach(cells, i, c)
            {
                json_t *r = json_array_get(rc, i);
                CB_CHECK_STREQ(json_string_value(json_object_get(r, "impl")),
                               json_string_value(json_object_get(c, "impl")));
                CB_CHECK_STREQ(json_string_value(json_object_get(r, "status")),
                               json_string_value(json_object_get(c, "status")));
                CB_CHECK(json_equal(json_object_get(r, "params"), json_object_get(c, "params")));
                json_t *ns = json_object_get(c, "ns_per_op"), *rns = json_object_get(r, "ns_per_op");
                CB_CHECK(!ns == !rns);
                if (!ns)
                    continue;
                double m = json_number_value(json_object_get(ns, "median"));
                CB_CHECK(fabs(json_number_value(json_object_get(rns, "median")) - m) <= 1e-5 * m);
                json_t *ci = json_object_get(ns, "ci95"), *rci = json_object_get(rns, "ci95");
                CB_CHECK(json_is_array(ci) == json_is_array(rci));
                for (size_t q = 0; json_is_array(ci) && q < 2; q++) {
                    double x = json_number_value(json_array_get(ci, q));
                    CB_CHECK(fabs(json_number_value(json_array_get(rci, q)) - x) <= 1e-5 * x);
                }
            }
            json_decref(rec);
            json_decref(doc);
            files++;
        }
        closedir(d);
    }
    CB_CHECK(files > nclaims); /* every claim has fixtures: more files than claims */
    CB_CHECK(decided > 0);
}

/* The commands: export --format summary writes a record, report reads it and lists the same
 * verdicts as from the results; a record of another version is refused in one line naming it
 * and the versions read (exit 2); a record from an AArch64 machine is read on this one; a
 * record is made of one machine's files only. */
CB_TEST_T(record_export_and_report, 60)
{
    char fix[4096], rec[256], arm[256], old[256], other[256];
    snprintf(fix, sizeof fix, "tests/claims/depth/supported-same-flat.json");
    cb_test_tmp_path(rec, sizeof rec, "rec.json");
    cb_test_tmp_path(arm, sizeof arm, "rec-aarch64.json");
    cb_test_tmp_path(old, sizeof old, "rec-old.json");
    cb_test_tmp_path(other, sizeof other, "other-machine.json");
    cb_test_cli c = cb_test_corobench("export", fix, "--format", "summary", "-o", rec, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    json_t *r = load_path(rec);
    CB_CHECK_STREQ(json_string_value(json_object_get(r, "schema")), CB_RECORD_SCHEMA);
    json_decref(r);
    /* The claims list of the report, from the results and from their record. */
    cb_test_cli a = cb_test_corobench("report", fix, "--no-plots", NULL);
    cb_test_cli b = cb_test_corobench("report", rec, "--no-plots", NULL);
    CB_CHECK_EQ_INT(a.status, 0);
    CB_CHECK_EQ_INT(b.status, 0);
    const char *pa = strstr(a.out, "\n- 1. **"), *pb = strstr(b.out, "\n- 1. **");
    CB_CHECK(pa && pb);
    const char *ea = strstr(pa, "\n\n"), *eb = strstr(pb, "\n\n");
    CB_CHECK(ea && eb && ea - pa == eb - pb && !strncmp(pa, pb, (size_t)(ea - pa)));
    CB_CHECK_CONTAINS(pb, "**supported**");

    /* Another version of the record: one line, the value and the valid ones, exit 2. */
    json_error_t je;
    json_t *doc = json_load_file(rec, 0, &je);
    CB_CHECK(doc != NULL);
    json_object_set_new(doc, "schema", json_string("corobench-record/0"));
    CB_CHECK(json_dump_file(doc, old, 0) == 0);
    c = cb_test_corobench("report", old, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "field 'schema' is 'corobench-record/0' (valid: "
                             "\"corobench-results/2\", \"corobench-results/1\" or "
                             "\"corobench-record/1\")");
    CB_CHECK(strchr(c.err, '\n') == c.err + strlen(c.err) - 1);

    /* A foreign architecture's record (an AArch64 machine's): read, its machine named, its
     * verdicts its own, and exported again unchanged in kind. */
    json_object_set_new(doc, "schema", json_string(CB_RECORD_SCHEMA));
    json_t *m = json_object_get(doc, "machine");
    json_object_set_new(m, "arch", json_string("aarch64"));
    json_object_set_new(m, "cpu_model", json_string("Neoverse-N1"));
    json_object_set_new(m, "clock", json_string("clock_gettime(CLOCK_MONOTONIC)"));
    json_object_set_new(m, "tsc_hz", json_null());
    json_object_set_new(m, "cpu", json_pack("{s:s, s:i, s:i}", "vendor", "ARM", "family", 8,
                                            "model", 3340));
    json_object_set_new(json_object_get(doc, "build"), "arch", json_string("aarch64"));
    CB_CHECK(json_dump_file(doc, arm, 0) == 0);
    c = cb_test_corobench("report", arm, "--no-plots", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "Neoverse-N1");
    pb = strstr(c.out, "\n- 1. **");
    CB_CHECK(pb && !strncmp(pa, pb, (size_t)(ea - pa)));
    c = cb_test_corobench("export", arm, "--format", "summary", "-o", rec, "--force", NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    r = load_path(rec);
    CB_CHECK_STREQ(json_string_value(json_object_get(json_object_get(r, "machine"), "arch")),
                   "aarch64");
    json_decref(r);

    /* Two machines' files are not one record. */
    json_object_set_new(m, "hostname", json_string("another-host"));
    CB_CHECK(json_dump_file(doc, other, 0) == 0);
    json_decref(doc);
    c = cb_test_corobench("export", fix, other, "--format", "summary", NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "are of two machines");
    /* and the other formats take one file */
    c = cb_test_corobench("export", fix, fix, "--format", "csv", NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "several files of one machine for --format summary");
    unlink(rec);
    unlink(arm);
    unlink(old);
    unlink(other);
}

/* The claims fixture src with machine.cpu (and the host and CPU model) set, written to path;
 * cpu NULL: without machine.cpu, as files from before it. */
static void fixture_from(const char *src, const char *path, const char *host, json_t *cpu)
{
    json_t *doc = load_path(src);
    json_t *m = json_object_get(doc, "machine");
    json_object_set_new(m, "hostname", json_string(host));
    json_object_set_new(m, "cpu_model", json_string(host));
    if (cpu)
        json_object_set_new(m, "cpu", cpu);
    CB_CHECK(json_dump_file(doc, path, 0) == 0);
    json_decref(doc);
}

/* tests/claims/depth/supported-same-flat.json so. */
static void fixture_of_cpu(const char *path, const char *host, json_t *cpu)
{
    fixture_from("tests/claims/depth/supported-same-flat.json", path, host, cpu);
}

/* The files in dir (a fleet holds records alone: no temporary file is left). */
static size_t files_in(const char *dir)
{
    DIR *d = opendir(dir);
    CB_CHECK(d != NULL);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int one_line(const char *s)
{
    return s && s[0] && strchr(s, '\n') == s + strlen(s) - 1;
}

/* results/fleet/ (docs/record.md, "The fleet"): `export --fleet DIR` names the record by the
 * CPU kind of its machine.cpu (vendor short, family, model), writes it through a temporary
 * file, says in one line which file and whether written or refreshed; results without a
 * kind are refused in one line and nothing is written; two records of one CPU kind are
 * refused naming both, by export --fleet (a record of the kind under another name in DIR)
 * and by report (given both). ./run.sh --fleet takes the default suite alone. */
CB_TEST_T(record_fleet_names_writes_and_refuses_one_kind_twice, 90)
{
    char amd[256], amd2[256], intel[256], old[256], unknown[256], dir[256], path[512];
    char renamed[512], intel_path[512];
    cb_test_tmp_path(amd, sizeof amd, "fleet-amd.json");
    cb_test_tmp_path(amd2, sizeof amd2, "fleet-amd-other-host.json");
    cb_test_tmp_path(intel, sizeof intel, "fleet-intel.json");
    cb_test_tmp_path(old, sizeof old, "fleet-before-cpu.json");
    cb_test_tmp_path(unknown, sizeof unknown, "fleet-unknown.json");
    snprintf(dir, sizeof dir, "%s/fleet", cb_test_dir("record"));
    snprintf(path, sizeof path, "%s/amd-26-2.json", dir);
    snprintf(intel_path, sizeof intel_path, "%s/intel-6-207.json", dir);
    snprintf(renamed, sizeof renamed, "%s/zen5.json", dir);
    fixture_of_cpu(amd, "zen5-vm",
                   json_pack("{s:s, s:i, s:i, s:i, s:s, s:s, s:s}", "vendor", "AuthenticAMD",
                             "family", 26, "model", 2, "stepping", 1, "microcode", "0xb002",
                             "model_name", "AMD EPYC", "key", "AuthenticAMD-26-2-1-0xb002"));
    fixture_of_cpu(amd2, "another-zen5-vm",
                   json_pack("{s:s, s:i, s:i, s:s}", "vendor", "AuthenticAMD", "family", 26,
                             "model", 2, "model_name", "AMD EPYC 9B45"));
    fixture_of_cpu(intel, "xeon-vm",
                   json_pack("{s:s, s:i, s:i, s:s}", "vendor", "GenuineIntel", "family", 6,
                             "model", 207, "model_name", "Intel(R) Xeon(R)"));
    fixture_of_cpu(old, "df6a541-vm", NULL);
    fixture_of_cpu(unknown, "arm-vm",
                   json_pack("{s:s, s:i, s:i}", "vendor", "unknown", "family", -1, "model", -1));

    /* written, then refreshed; the one file, a record of the CPU it is named after */
    cb_test_cli c = cb_test_corobench("export", "--fleet", dir, amd, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK(one_line(c.out));
    CB_CHECK_CONTAINS(c.out, "amd-26-2.json' written: the record of CPU kind amd-26-2 (AMD EPYC)");
    json_t *r = load_path(path);
    CB_CHECK(cb_results_is_record(r));
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(
                        json_object_get(json_object_get(r, "machine"), "cpu"), "model")),
                    2);
    json_decref(r);
    c = cb_test_corobench("export", "--fleet", dir, amd, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK(one_line(c.out));
    CB_CHECK_CONTAINS(c.out, "amd-26-2.json' refreshed: the record of CPU kind amd-26-2");
    CB_CHECK_EQ_INT(files_in(dir), 1);
    c = cb_test_corobench("export", "--fleet", dir, intel, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "intel-6-207.json' written");
    CB_CHECK_EQ_INT(files_in(dir), 2);

    /* no CPU kind: results from before machine.cpu, a CPU /proc/cpuinfo did not name */
    c = cb_test_corobench("export", "--fleet", dir, old, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "machine.cpu is missing (results written before it)");
    c = cb_test_corobench("export", "--fleet", dir, unknown, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "machine.cpu.vendor is 'unknown'");
    /* ... unless whoever kept them names the CPU (export --cpu), which the record marks as
     * given; results that name their CPU keep it, and a --cpu of another kind is refused */
    static const char *const bad_cpu[][2] = {
        {"amd,26", "invalid --cpu 'amd,26' (valid: VENDOR,FAMILY,MODEL"},
        {"amd,2x,2", "invalid --cpu 'amd,2x,2': family (valid:"},
        {"amd,26,70000", "invalid --cpu 'amd,26,70000': model (valid:"},
        {"a-md,26,2", "vendor 'a-md' (valid:"},
        {"intel,6,207", "--cpu 'intel,6,207' is not the CPU the results name, amd-26-2"},
    };
    for (size_t k = 0; k < sizeof bad_cpu / sizeof bad_cpu[0]; k++) {
        c = cb_test_corobench("export", "--fleet", dir, "--cpu", bad_cpu[k][0], k < 4 ? old : amd,
                              NULL);
        CB_CHECK_EQ_INT(c.status, 2);
        CB_CHECK(one_line(c.err));
        CB_CHECK_CONTAINS(c.err, bad_cpu[k][1]);
    }
    c = cb_test_corobench("export", "--cpu", "amd,26,2", "--format", "csv", old, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "--cpu 'amd,26,2' is for --format summary");
    CB_CHECK_EQ_INT(files_in(dir), 2);
    c = cb_test_corobench("export", "--fleet", dir, "--cpu", "GenuineIntel,6,85", old, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "intel-6-85.json' written: the record of CPU kind intel-6-85");
    snprintf(renamed, sizeof renamed, "%s/intel-6-85.json", dir);
    r = load_path(renamed);
    json_t *cpu = json_object_get(json_object_get(r, "machine"), "cpu");
    CB_CHECK(json_is_true(json_object_get(cpu, "given")));
    CB_CHECK_STREQ(json_string_value(json_object_get(cpu, "vendor")), "GenuineIntel");
    CB_CHECK_EQ_INT(json_integer_value(json_object_get(cpu, "family")), 6);
    json_decref(r);
    unlink(renamed);
    c = cb_test_corobench("export", "--fleet", dir, "--cpu", "AuthenticAMD,26,2", amd, NULL);
    CB_CHECK_EQ_INT(c.status, 0); /* the results' own CPU, with its stepping, stands */
    r = load_path(path);
    cpu = json_object_get(json_object_get(r, "machine"), "cpu");
    CB_CHECK(!json_object_get(cpu, "given"));
    CB_CHECK_STREQ(json_string_value(json_object_get(cpu, "microcode")), "0xb002");
    json_decref(r);
    snprintf(renamed, sizeof renamed, "%s/zen5.json", dir);
    c = cb_test_corobench("export", "--fleet", dir, "--format", "csv", amd, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "(valid: --format summary, no -o)");
    CB_CHECK_EQ_INT(files_in(dir), 2);

    /* Two records of one kind: the same kind under another name in the fleet, ... */
    char *text = cb_test_slurp(path);
    FILE *f = fopen(renamed, "w");
    CB_CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
    free(text);
    c = cb_test_corobench("export", "--fleet", dir, amd, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "amd-26-2.json' and '");
    CB_CHECK_CONTAINS(c.err, "zen5.json' are records of one CPU kind, amd-26-2");
    /* ... two records given to the report (another host's record of that kind too) ... */
    c = cb_test_corobench("report", "--no-plots", path, intel_path, renamed, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "amd-26-2.json' and '");
    CB_CHECK_CONTAINS(c.err, "zen5.json' are records of one CPU kind, amd-26-2");
    unlink(renamed);
    c = cb_test_corobench("export", "--fleet", dir, amd2, NULL);
    CB_CHECK_EQ_INT(c.status, 0); /* another host of the kind refreshes the kind's record */
    CB_CHECK_CONTAINS(c.out, "refreshed");
    c = cb_test_corobench("export", "--format", "summary", "-o", renamed, amd, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("report", "--no-plots", renamed, path, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "zen5.json' and '");
    CB_CHECK_CONTAINS(c.err, "amd-26-2.json' are records of one CPU kind, amd-26-2");
    /* ... and to export's record of records; two kinds make a report of two machines */
    c = cb_test_corobench("export", "--format", "summary", path, renamed, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK_CONTAINS(c.err, "are records of one CPU kind, amd-26-2");
    c = cb_test_corobench("report", "--no-plots", path, intel_path, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "# Machine B");

    /* ./run.sh --fleet: the default suite's record only (refused before it builds) */
    if (access("run.sh", X_OK) == 0) {
        char *argv[] = {"./run.sh", "--fleet", "--quick", NULL}, *out, *err;
        CB_CHECK_EQ_INT(cb_test_spawn(argv, &out, &err), 2);
        CB_CHECK(one_line(err));
        CB_CHECK_CONTAINS(err, "run.sh: --fleet records the default suite");
        free(out);
        free(err);
    }
    cb_test_dir_cleanup("record");
    unlink(amd);
    unlink(amd2);
    unlink(intel);
    unlink(old);
    unlink(unknown);
}

/* The fleet in the report (docs/report.md): two machines' records, or results and a fleet
 * directory, make "Claims by machine", a column per machine with each claim's verdict and key
 * figure, name the verdicts that differ, and set the return-stack models side by side. Claim 1 (depth) is supported by one fixture and
 * contradicted by another: as two machines' results, machine A says supported with its depth
 * 16 over depth 0 ratio, B contradicted with its own. */
CB_TEST_T(record_fleet_report_claims_by_machine, 60)
{
    char zen[256], xeon[256], dir[512], path[600];
    cb_test_tmp_path(zen, sizeof zen, "fleet-zen.json");
    cb_test_tmp_path(xeon, sizeof xeon, "fleet-xeon.json");
    snprintf(dir, sizeof dir, "%s/fleet", cb_test_dir("record-report"));
    fixture_of_cpu(zen, "zen5-vm",
                   json_pack("{s:s, s:i, s:i, s:s}", "vendor", "AuthenticAMD", "family", 26,
                             "model", 2, "model_name", "AMD EPYC"));
    json_t *doc = load_path("tests/claims/depth/contradicted-flat.json");
    json_t *m = json_object_get(doc, "machine");
    json_object_set_new(m, "hostname", json_string("xeon-vm"));
    json_object_set_new(m, "cpu_model", json_string("xeon-vm"));
    json_object_set_new(m, "cpu", json_pack("{s:s, s:i, s:i}", "vendor", "GenuineIntel",
                                            "family", 6, "model", 207));
    json_object_set_new(m, "rsb", json_pack("{s:s, s:i, s:f, s:f, s:s}", "model",
                                            "underflow-btb", "entries", 16, "ns_per_mispredict",
                                            8.4, "r2", 0.98, "source", "calibrated"));
    CB_CHECK(json_dump_file(doc, xeon, 0) == 0);
    json_decref(doc);
    cb_test_cli c = cb_test_corobench("export", "--fleet", dir, zen, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    c = cb_test_corobench("export", "--fleet", dir, xeon, NULL);
    CB_CHECK_EQ_INT(c.status, 0);

    /* the fleet's two records */
    snprintf(path, sizeof path, "%s/amd-26-2.json", dir);
    char other[600];
    snprintf(other, sizeof other, "%s/intel-6-207.json", dir);
    c = cb_test_corobench("report", "--no-plots", path, other, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    cb_test_md_unwrap(c.out);
    const char *t = strstr(c.out, "## Claims by machine");
    CB_CHECK(t != NULL);
    CB_CHECK(t < strstr(c.out, "## Machines side by side"));
    CB_CHECK_CONTAINS(t, "- A: zen5-vm, zen5-vm (amd-26-2), from its record\n");
    CB_CHECK_CONTAINS(t, "- B: xeon-vm, xeon-vm (intel-6-207), from its record\n");
    CB_CHECK_CONTAINS(t, "| 1. depth | **supported** 9.00x [8.88, 9.12] | **contradicted** "
                         "1.00x [0.99, 1.01] |\n");
    CB_CHECK_CONTAINS(t, "| 2. jmpret | **not measured** | **not measured** |\n");
    const char *d = strstr(t, "### Verdicts that differ between machines");
    CB_CHECK(d != NULL);
    CB_CHECK_CONTAINS(d, "- 1. depth on A, **supported**: asm, depth 0..16");
    CB_CHECK_CONTAINS(d, "- 1. depth on B, **contradicted**: asm, depth 0..16");
    CB_CHECK(!strstr(d, "jmpret on"));
    /* the return-stack models side by side */
    const char *rsb = strstr(c.out, "## Return-stack models by machine");
    CB_CHECK(rsb && rsb > d && rsb < strstr(c.out, "## Machines side by side"));
    CB_CHECK_CONTAINS(rsb, "| A | circular | 32 | - | default |\n");
    CB_CHECK_CONTAINS(rsb, "| B | underflow-btb | 16 | 8.4 | calibrated |\n");

    /* results and the fleet: the given results first, the fleet's record of their kind left
     * out, the other machine from its record */
    c = cb_test_corobench("report", "--no-plots", zen, "--fleet", dir, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    cb_test_md_unwrap(c.out);
    CB_CHECK_CONTAINS(c.out, "amd-26-2.json` left out: the results given are of its CPU kind");
    CB_CHECK_CONTAINS(c.out, "- A: zen5-vm, zen5-vm (amd-26-2)\n");
    CB_CHECK_CONTAINS(c.out, "- B: xeon-vm, xeon-vm (intel-6-207), from its record\n");
    CB_CHECK_CONTAINS(c.out, "| 1. depth | **supported** 9.00x [8.88, 9.12] | **contradicted**");

    /* a fleet directory that is not one, or holds what is not a record: one line, exit 2 */
    c = cb_test_corobench("report", "--no-plots", zen, "--fleet", zen, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "(valid: a directory of records, as results/fleet/)");
    snprintf(other, sizeof other, "%s/results.json", dir);
    char *text = cb_test_slurp(zen);
    FILE *f = fopen(other, "w");
    CB_CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
    free(text);
    c = cb_test_corobench("report", "--no-plots", xeon, "--fleet", dir, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "results.json' is not a record");
    cb_test_dir_cleanup("record-report");
    unlink(zen);
    unlink(xeon);
}

/* The text from the line starting with `from` up to the one starting with `to` (or its end);
 * fails the test when there is no such line. */
static char *section_of(const char *md, const char *from, const char *to)
{
    const char *a = strstr(md, from);
    if (!a)
        CB_FAIL("no '%s' in: %s", from, md);
    const char *b = strstr(a + strlen(from), to);
    size_t n = b ? (size_t)(b - a) : strlen(a);
    char *s = malloc(n + 1);
    CB_CHECK(s != NULL);
    memcpy(s, a, n);
    s[n] = '\0';
    return s;
}

/* The Summary's points by machine (docs/report.md; docs/record.md, `summary`): a record keeps
 * each point's ratio, interval, p and winner as its results gave them, so the record's Summary
 * is its results' (one without them says "no interval"; a bad one is refused in one line), and
 * two machines make "Stackful against stackless by machine", a row per point and a column per
 * machine. Claim 10's fixtures: on A asm wins at depth 0 and sm at depth 16, on B sm at both. */
CB_TEST_T(record_fleet_summary_by_machine, 60)
{
    char zen[256], xeon[256], old[256], dir[512], a[600], b[600];
    cb_test_tmp_path(zen, sizeof zen, "points-zen.json");
    cb_test_tmp_path(xeon, sizeof xeon, "points-xeon.json");
    cb_test_tmp_path(old, sizeof old, "points-old.json");
    snprintf(dir, sizeof dir, "%s/fleet", cb_test_dir("record-points"));
    fixture_from("tests/claims/models/supported-each-wins.json", zen, "zen5-vm",
                 json_pack("{s:s, s:i, s:i}", "vendor", "AuthenticAMD", "family", 26, "model", 2));
    fixture_from("tests/claims/models/contradicted-sm-everywhere.json", xeon, "xeon-vm",
                 json_pack("{s:s, s:i, s:i}", "vendor", "GenuineIntel", "family", 6, "model",
                           207));
    CB_CHECK_EQ_INT(cb_test_corobench("export", "--fleet", dir, zen, NULL).status, 0);
    CB_CHECK_EQ_INT(cb_test_corobench("export", "--fleet", dir, xeon, NULL).status, 0);
    snprintf(a, sizeof a, "%s/amd-26-2.json", dir);
    snprintf(b, sizeof b, "%s/intel-6-207.json", dir);

    /* The record's points are its results': names, winner, ratio and interval (six digits). */
    json_t *pts[2];
    const char *srcs[2] = {zen, xeon}, *recs[2] = {a, b};
    for (int m = 0; m < 2; m++) {
        json_t *res = load_path(srcs[m]), *rec = load_path(recs[m]);
        json_t *pr = cb_claims_points(res), *pk = cb_claims_points(rec);
        CB_CHECK_EQ_INT(json_array_size(pr), 2);
        CB_CHECK_EQ_INT(json_array_size(pk), 2);
        for (size_t i = 0; i < 2; i++) {
            json_t *x = json_array_get(pr, i), *y = json_array_get(pk, i);
            static const char *const names[] = {"workload", "point", "stackful", "stackless",
                                                "winner"};
            for (size_t k = 0; k < 5; k++)
                CB_CHECK_STREQ(json_string_value(json_object_get(y, names[k])),
                               json_string_value(json_object_get(x, names[k])));
            json_t *rx = json_object_get(x, "ratio"), *ry = json_object_get(y, "ratio");
            CB_CHECK_EQ_INT(json_array_size(rx), 3);
            CB_CHECK_EQ_INT(json_array_size(ry), 3);
            for (size_t q = 0; q < 3; q++) {
                double u = json_number_value(json_array_get(rx, q));
                CB_CHECK(fabs(json_number_value(json_array_get(ry, q)) - u) <= 1e-5 * u);
            }
            /* the fixtures' winners: A's asm at depth 0, sm elsewhere */
            char point[256];
            snprintf(point, sizeof point, " %s ", json_string_value(json_object_get(x, "point")));
            int asm_wins = m == 0 && strstr(point, " depth=0 ");
            CB_CHECK_STREQ(json_string_value(json_object_get(x, "winner")),
                           asm_wins ? "stackful" : "stackless");
        }
        pts[m] = pr;
        json_decref(pk);
        json_decref(res);
        json_decref(rec);
    }
    /* ... so the record's Summary is its results' */
    cb_test_cli r = cb_test_corobench("report", "--no-plots", zen, NULL);
    cb_test_cli k = cb_test_corobench("report", "--no-plots", a, NULL);
    CB_CHECK_EQ_INT(r.status, 0);
    CB_CHECK_EQ_INT(k.status, 0);
    char *sr = section_of(r.out, "| workload | points |", "\n\n");
    char *sk = section_of(k.out, "| workload | points |", "\n\n");
    CB_CHECK_STREQ(sk, sr);
    CB_CHECK_CONTAINS(sr, "| pingpong | 2 | 1 | 1 | 0 | 2.00x [");
    free(sr);
    free(sk);

    /* Two machines' records: a row per point, a column per machine, each its ratio with its
     * interval and the two implementations, bold where won. */
    cb_test_cli c = cb_test_corobench("report", "--no-plots", a, b, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    cb_test_md_unwrap(c.out);
    char *t = section_of(c.out, "## Stackful against stackless by machine", "\n## ");
    CB_CHECK(strstr(c.out, "## Claims by machine") < strstr(c.out, "## Stackful against"));
    CB_CHECK_CONTAINS(t, "| workload | point | A | B |\n");
    for (size_t i = 0; i < 2; i++) {
        char row[512] = "";
        json_t *x = json_array_get(pts[0], i), *y = NULL, *p;
        size_t j;
        json_array_foreach(pts[1], j, p)
        {
            if (json_equal(json_object_get(p, "point"), json_object_get(x, "point")))
                y = p;
        }
        CB_CHECK(y != NULL);
        snprintf(row, sizeof row, "| pingpong | %s |",
                 json_string_value(json_object_get(x, "point")));
        json_t *both[2] = {x, y};
        for (int m = 0; m < 2; m++) {
            json_t *rr = json_object_get(both[m], "ratio");
            snprintf(row + strlen(row), sizeof row - strlen(row),
                     " **%.2fx [%.2f, %.2f]** asm/sm |", json_number_value(json_array_get(rr, 0)),
                     json_number_value(json_array_get(rr, 1)),
                     json_number_value(json_array_get(rr, 2)));
        }
        CB_CHECK_CONTAINS(t, row);
    }
    free(t);
    json_decref(pts[0]);
    json_decref(pts[1]);

    /* A record from before `summary`: read, its Summary without intervals; a bad point: one
     * line naming it, exit 2. */
    json_error_t je;
    json_t *doc = json_load_file(a, 0, &je);
    CB_CHECK(doc != NULL);
    json_t *kept = json_incref(json_object_get(doc, "summary"));
    CB_CHECK(json_array_size(kept) == 2);
    json_object_del(doc, "summary");
    CB_CHECK(json_dump_file(doc, old, 0) == 0);
    c = cb_test_corobench("report", "--no-plots", old, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    CB_CHECK_CONTAINS(c.out, "| pingpong | 2 | 0 | 0 | 2 | 2.00x (no interval) asm/sm");
    json_object_set_new(json_array_get(kept, 1), "winner", json_string("both"));
    json_object_set_new(doc, "summary", kept);
    CB_CHECK(json_dump_file(doc, old, 0) == 0);
    json_decref(doc);
    c = cb_test_corobench("report", "--no-plots", old, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "summary point 1: field 'winner' is 'both' (valid: stackful, "
                             "stackless, undecided)");
    cb_test_dir_cleanup("record-points");
    unlink(zen);
    unlink(xeon);
    unlink(old);
}

/* The first screen of a report of several machines (README, "Reading the answer"): README's
 * sections, in its order, are the report's first headings of those names (the first machine's
 * Summary, then the claims by machine, then each machine's own sections; that machine's does
 * not repeat its Summary), and the HTML page's first two sections are the Summary and the
 * claims by machine. */
CB_TEST_T(record_fleet_page_opens_with_the_claims_by_machine, 60)
{
    char zen[256], xeon[256], base[512], md[600], html[600], readme[4200];
    cb_test_tmp_path(zen, sizeof zen, "page-zen.json");
    cb_test_tmp_path(xeon, sizeof xeon, "page-xeon.json");
    snprintf(base, sizeof base, "%s", cb_test_dir("record-page"));
    snprintf(md, sizeof md, "%s/r.md", base);
    snprintf(html, sizeof html, "%s/r.html", base);
    fixture_of_cpu(zen, "zen5-vm",
                   json_pack("{s:s, s:i, s:i}", "vendor", "AuthenticAMD", "family", 26, "model", 2));
    fixture_from("tests/claims/depth/contradicted-flat.json", xeon, "xeon-vm",
                 json_pack("{s:s, s:i, s:i}", "vendor", "GenuineIntel", "family", 6, "model",
                           207));
    cb_test_cli c = cb_test_corobench("report", zen, xeon, "-o", md, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    char *text = cb_test_slurp(md);
    snprintf(readme, sizeof readme, "%s/README.md", cb_test_root());
    char *rd = cb_test_slurp(access(readme, R_OK) == 0 ? readme : "README.md");
    char *sec = strstr(rd, "\n## Reading the answer\n"), *end;
    CB_CHECK(sec != NULL);
    if ((end = strstr(sec + 1, "\n## ")))
        *end = '\0';
    const char *at = text;
    size_t named = 0;
    int fleet_named = 0;
    for (const char *b = strstr(sec, "\n- **"); b; b = strstr(b + 1, "\n- **")) {
        const char *e = strstr(b + 5, "**");
        CB_CHECK(e && e - (b + 5) < 64);
        char head[96];
        snprintf(head, sizeof head, "\n## %.*s\n", (int)(e - (b + 5)), b + 5);
        const char *h = strstr(at, head);
        if (!h)
            CB_FAIL("README's '%.*s' is not a section of the report after the one before it",
                    (int)(e - (b + 5)), b + 5);
        at = h + 1;
        named++;
        fleet_named |= !strncmp(b + 5, "Claims by machine**", 19);
    }
    CB_CHECK(named >= 5 && fleet_named);
    /* one Summary before the claims by machine, the other in machine B's section */
    const char *s1 = strstr(text, "\n## Summary\n"), *ma = strstr(text, "\n# Machine A\n");
    const char *mb = strstr(text, "\n# Machine B\n");
    CB_CHECK(s1 && ma && mb && s1 < strstr(text, "\n## Claims by machine\n"));
    const char *s2 = strstr(s1 + 1, "\n## Summary\n");
    CB_CHECK(s2 && s2 > mb && !strstr(s2 + 1, "\n## Summary\n"));
    free(rd);
    free(text);

    /* the page: its first section the Summary, its second the claims by machine */
    c = cb_test_corobench("report", zen, xeon, "--no-plots", "-o", html, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    text = cb_test_slurp(html);
    const char *h1 = strstr(text, "<h2 "), *h2 = h1 ? strstr(h1 + 1, "<h2 ") : NULL;
    CB_CHECK(h1 && h2);
    CB_CHECK(!strncmp(h1, "<h2 id=\"summary\">Summary</h2>", 29));
    CB_CHECK(!strncmp(h2, "<h2 id=\"claims-by-machine\">Claims by machine</h2>", 49));
    free(text);
    cb_test_dir_cleanup("record-page");
    unlink(zen);
    unlink(xeon);
}

/* ./run.sh's report (scripts/run-args.sh, suite_report; report --with-fleet): this run's files
 * first, then the fleet's records except the one of this run's CPU kind (this run replaces it);
 * a fleet directory that is empty, holds only that record, is missing or holds what is not a
 * record leaves the report to this machine alone, its first lines saying why in one line. */
CB_TEST_T(record_fleet_in_the_suite_report, 90)
{
    if (access("scripts/run-args.sh", R_OK) != 0 || access("bin/corobench", X_OK) != 0)
        CB_SKIP("scripts/run-args.sh or bin/corobench not found (run from the built tree)");
    char zen[256], xeon[256], base[512], dir[600], md[600], html[600], script[2400];
    cb_test_tmp_path(zen, sizeof zen, "suite-zen.json");
    cb_test_tmp_path(xeon, sizeof xeon, "suite-xeon.json");
    snprintf(base, sizeof base, "%s", cb_test_dir("record-suite"));
    snprintf(dir, sizeof dir, "%s/fleet", base);
    snprintf(md, sizeof md, "%s/r.md", base);
    snprintf(html, sizeof html, "%s/r.html", base);
    fixture_of_cpu(zen, "zen5-vm",
                   json_pack("{s:s, s:i, s:i}", "vendor", "AuthenticAMD", "family", 26, "model", 2));
    fixture_from("tests/claims/depth/contradicted-flat.json", xeon, "xeon-vm",
                 json_pack("{s:s, s:i, s:i}", "vendor", "GenuineIntel", "family", 6, "model",
                           207));
    CB_CHECK_EQ_INT(cb_test_corobench("export", "--fleet", dir, zen, NULL).status, 0);
    CB_CHECK_EQ_INT(cb_test_corobench("export", "--fleet", dir, xeon, NULL).status, 0);

    /* run.sh's call: the Markdown and the page, this machine first, its kind's record left out */
    snprintf(script, sizeof script,
             "set -euo pipefail; . scripts/run-args.sh; suite_report '%s' '%s' '%s'", dir, md,
             zen);
    char *argv[] = {"/bin/bash", "-c", script, NULL}, *out, *err;
    int st = cb_test_spawn(argv, &out, &err);
    if (st != 0)
        CB_FAIL("suite_report: exit %d: %s", st, err);
    free(out);
    free(err);
    char *text = cb_test_slurp(md);
    cb_test_md_unwrap(text);
    CB_CHECK_CONTAINS(text, "amd-26-2.json` left out: the results given are of its CPU kind\n");
    CB_CHECK_CONTAINS(text, "- A: zen5-vm, zen5-vm (amd-26-2)\n");
    CB_CHECK_CONTAINS(text, "- B: xeon-vm, xeon-vm (intel-6-207), from its record\n");
    free(text);
    text = cb_test_slurp(html);
    CB_CHECK_CONTAINS(text, "Claims by machine");
    free(text);

    /* no record of another kind: the fleet empty, or holding this run's kind alone */
    char intel[700], missing[700], bad[700];
    snprintf(intel, sizeof intel, "%s/intel-6-207.json", dir);
    snprintf(missing, sizeof missing, "%s/none", base);
    snprintf(bad, sizeof bad, "%s/notes.json", dir);
    CB_CHECK_EQ_INT(unlink(intel), 0);
    cb_test_cli c = cb_test_corobench("report", "--no-plots", zen, "--with-fleet", dir, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    cb_test_md_unwrap(c.out);
    CB_CHECK_CONTAINS(c.out, "amd-26-2.json` left out: the results given are of its CPU kind\n");
    CB_CHECK_CONTAINS(c.out, "/fleet` has no record of another CPU kind: this report is of the "
                             "results given alone\n");
    CB_CHECK(!strstr(c.out, "Claims by machine"));
    /* a fleet that cannot be read: missing, or a file in it that is not a record */
    c = cb_test_corobench("report", "--no-plots", zen, "--with-fleet", missing, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    cb_test_md_unwrap(c.out);
    CB_CHECK_CONTAINS(c.out, "/none` not read, so this report is of the results given alone: '");
    CB_CHECK_CONTAINS(c.out, "No such file or directory (valid: a directory of records, as "
                             "results/fleet/)\n");
    CB_CHECK(!strstr(c.out, "Claims by machine"));
    CB_CHECK_EQ_INT(cb_test_corobench("export", "--fleet", dir, xeon, NULL).status, 0);
    FILE *f = fopen(bad, "w");
    CB_CHECK(f && fputs("{\"notes\": 1}\n", f) >= 0 && fclose(f) == 0);
    c = cb_test_corobench("report", "--no-plots", zen, "--with-fleet", dir, NULL);
    CB_CHECK_EQ_INT(c.status, 0);
    cb_test_md_unwrap(c.out);
    CB_CHECK_CONTAINS(c.out, "/fleet` not read, so this report is of the results given alone: ");
    CB_CHECK_CONTAINS(c.out, "notes.json");
    CB_CHECK(!strstr(c.out, "Claims by machine") && !strstr(c.out, "left out"));
    /* --fleet refuses the same directory */
    c = cb_test_corobench("report", "--no-plots", zen, "--fleet", dir, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    cb_test_dir_cleanup("record-suite");
    unlink(zen);
    unlink(xeon);
}

/* A command of a workflow's line: the words after `cmd` up to a shell operator or the end, in
 * words[] (at most cap - 1, NULL-ended; malloc'd); how many, or -1 when the line has no cmd. */
static int command_words(const char *line, const char *cmd, char **words, size_t cap)
{
    const char *at = strstr(line, cmd);
    if (!at || (at > line && at[-1] != ' ') || line[strspn(line, " ")] == '#')
        return -1;
    static const char *const stops[] = {"|", "||", ">", ">>", "&&", ";", "2>/dev/null"};
    size_t n = 0;
    char *copy = strdup(at + strlen(cmd)), *save = NULL;
    for (char *w = strtok_r(copy, " \t\n", &save); w && n + 1 < cap;
         w = strtok_r(NULL, " \t\n", &save)) {
        int stop = w[0] == '#';
        for (size_t k = 0; k < sizeof stops / sizeof stops[0]; k++)
            stop |= !strcmp(w, stops[k]);
        if (stop)
            break;
        words[n++] = strdup(w);
    }
    words[n] = NULL;
    free(copy);
    return (int)n;
}

/* docs/examples/fleet-workflow.yml (docs/ci.md, "A fleet of runners") names only what exists:
 * run.sh takes the options of each ./run.sh line (its parser reads them, then --help), and each
 * bin/corobench line runs as written on a fleet directory of two machines' records (--fleet's
 * directory and -o's file put in a temporary directory), making their report. */
CB_TEST_T(record_fleet_ci_workflow_commands, 90)
{
    char wf[4200], cimd[4200], zen[256], xeon[256], base[512], dir[600];
    snprintf(wf, sizeof wf, "%s/docs/examples/fleet-workflow.yml", cb_root_dir());
    snprintf(cimd, sizeof cimd, "%s/docs/ci.md", cb_root_dir());
    char *text = cb_test_slurp(wf), *ci = cb_test_slurp(cimd);
    CB_CHECK_CONTAINS(ci, "(examples/fleet-workflow.yml)");
    free(ci);
    cb_test_tmp_path(zen, sizeof zen, "wf-zen.json");
    cb_test_tmp_path(xeon, sizeof xeon, "wf-xeon.json");
    snprintf(base, sizeof base, "%s", cb_test_dir("record-workflow"));
    snprintf(dir, sizeof dir, "%s/fleet", base);
    fixture_of_cpu(zen, "zen5-vm",
                   json_pack("{s:s, s:i, s:i}", "vendor", "AuthenticAMD", "family", 26, "model", 2));
    fixture_from("tests/claims/depth/contradicted-flat.json", xeon, "neoverse-vm",
                 json_pack("{s:s, s:i, s:i}", "vendor", "ARM", "family", 8, "model", 3340));
    CB_CHECK_EQ_INT(cb_test_corobench("export", "--fleet", dir, zen, NULL).status, 0);
    CB_CHECK_EQ_INT(cb_test_corobench("export", "--fleet", dir, xeon, NULL).status, 0);
    size_t runs = 0, reports = 0;
    char *save = NULL, path[4200];
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *words[40], *argv[44], out_file[700] = "";
        int n = command_words(line, "./run.sh", words, 40);
        if (n >= 0 && access("run.sh", X_OK) == 0) {
            size_t a = 0;
            argv[a++] = "./run.sh";
            for (int i = 0; i < n; i++)
                argv[a++] = words[i];
            argv[a++] = "--help"; /* after the options: run.sh's parser reads each first */
            argv[a] = NULL;
            char *o, *e;
            int st = cb_test_spawn(argv, &o, &e);
            if (st != 0)
                CB_FAIL("%s: run.sh refuses it (exit %d): %s", line, st, e);
            CB_CHECK(strstr(line, "--fleet") != NULL);
            free(o);
            free(e);
            runs++;
        }
        for (int i = 0; i < n; i++)
            free(words[i]);
        if ((n = command_words(line, "bin/corobench", words, 40)) < 0)
            continue;
        snprintf(path, sizeof path, "%s/bin/corobench", cb_test_root());
        size_t a = 0;
        argv[a++] = path;
        for (int i = 0; i < n; i++) {
            argv[a++] = words[i];
            if (i + 1 < n && !strcmp(words[i], "--fleet")) {
                argv[a++] = dir;
                i++;
            } else if (i + 1 < n && !strcmp(words[i], "-o")) {
                snprintf(out_file, sizeof out_file, "%s/%s", base, words[i + 1]);
                argv[a++] = out_file;
                i++;
            }
        }
        argv[a] = NULL;
        char *o, *e;
        int st = cb_test_spawn(argv, &o, &e);
        if (st != 0)
            CB_FAIL("%s: exit %d: %s", line, st, e);
        char *report = out_file[0] ? cb_test_slurp(out_file) : o;
        CB_CHECK_CONTAINS(report, "Claims by machine");
        CB_CHECK_CONTAINS(report, "arm-8-3340");
        if (report != o)
            free(report);
        free(o);
        free(e);
        for (int i = 0; i < n; i++)
            free(words[i]);
        reports++;
    }
    CB_CHECK(reports >= 2);
    CB_CHECK(runs >= 1 || access("run.sh", X_OK) != 0);
    free(text);
    /* --fleet DIR alone with no record in DIR: nothing to report, one line, exit 2 */
    char empty[700];
    snprintf(empty, sizeof empty, "%s/empty", base);
    CB_CHECK_EQ_INT(mkdir(empty, 0755), 0);
    cb_test_cli c = cb_test_corobench("report", "--fleet", empty, NULL);
    CB_CHECK_EQ_INT(c.status, 2);
    CB_CHECK(one_line(c.err));
    CB_CHECK_CONTAINS(c.err, "nothing to report: no results given and no record read from '");
    cb_test_dir_cleanup("record-workflow");
    unlink(zen);
    unlink(xeon);
}

/* The CPU kind from /proc/cpuinfo as each architecture writes it: x86's vendor_id, cpu family
 * and model; AArch64's CPU implementer, architecture and part (it has no vendor_id, and its
 * kind was 'unknown', so ./run.sh --fleet was refused on an AArch64 machine). Texts as the
 * kernel prints them: an AMD EPYC of family 26 and a Neoverse N1 (the first processor's block,
 * then the next one's, which is not read). */
CB_TEST(record_fleet_kind_from_cpuinfo)
{
    static const char *const texts[][2] = {
        {"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
         "model name\t: AMD EPYC\nstepping\t: 1\nmicrocode\t: 0xb002116\n\nprocessor\t: 1\n"
         "vendor_id\t: GenuineIntel\n",
         "amd-26-2"},
        {"processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes\n"
         "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n"
         "CPU part\t: 0xd0c\nCPU revision\t: 1\n\nprocessor\t: 1\nCPU implementer\t: 0xc0\n",
         "arm-8-3340"},
        {"CPU implementer\t: 0x99\nCPU architecture: 8\nCPU part\t: 0x001\n", "0x99-8-1"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        FILE *f = fmemopen((void *)texts[i][0], strlen(texts[i][0]), "r");
        CB_CHECK(f != NULL);
        cb_cpu_id id;
        cb_cpu_identify_from(f, &id);
        fclose(f);
        json_t *doc = json_pack("{s:{s:o}}", "machine", "cpu", cb_cpu_json(&id));
        char kind[96];
        cb_error e;
        if (cb_record_kind(doc, kind, sizeof kind, &e))
            CB_FAIL("text %zu: %s", i, e.msg);
        CB_CHECK_STREQ(kind, texts[i][1]);
        json_decref(doc);
    }
    /* and this machine's own (whatever it is, its kind is known) */
    cb_cpu_id id;
    cb_cpu_identify(&id);
    json_t *doc = json_pack("{s:{s:o}}", "machine", "cpu", cb_cpu_json(&id));
    char kind[96];
    cb_error e;
    if (cb_record_kind(doc, kind, sizeof kind, &e))
        CB_FAIL("this machine: %s", e.msg);
    json_decref(doc);
}
