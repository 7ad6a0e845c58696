/* report and compare grow linearly with the cells and the samples of a results file (issue 30,
 * MEDIUM 4: report was quadratic in cells, 21 s for 2000; compare and report spent about 1.5 ms
 * per sample, so a cell of 10^6 samples did not finish in a minute). The files are generated
 * here with jansson from a small real run. No test asserts a time: each compares the CPU time of
 * two runs of the binary on this machine (so a loaded machine slows both), n cells against 4n
 * cells, or the timed comparison against the same files compared without timing. */
#include <jansson.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "test.h"

/* A real run's document: cells of asm and sm at one point, with k invocations of 3 reps. */
static json_t *template_doc(const char *name, const char *invocations)
{
    char path[256];
    cb_test_tmp_path(path, sizeof path, name);
    cb_test_cli r = cb_test_corobench("run", "--impl", "asm,sm", "--workload", "recursive",
                                      "--param", "height=4", "--invocations", invocations,
                                      "--reps", "3", "--warmup", "0", "--no-table", "-o", path,
                                      NULL);
    if (r.status != 0)
        CB_FAIL("run: exit %d: %s", r.status, r.err);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        CB_FAIL("%s: %s", path, je.text);
    unlink(path);
    free(r.out);
    free(r.err);
    return doc;
}

/* n cells from the template's: cell i is template cell i % 2 at height 4 + i / 2, so that the
 * report has n / 2 points (rows) of two implementations each. */
static void write_cells(json_t *tmpl, size_t n, const char *path)
{
    json_t *doc = json_deep_copy(tmpl), *cells = json_array();
    json_t *src = json_object_get(tmpl, "cells");
    size_t ns = json_array_size(src);
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_deep_copy(json_array_get(src, i % ns));
        json_int_t h = 4 + (json_int_t)(i / ns);
        json_object_set_new(json_object_get(c, "params"), "height", json_integer(h));
        json_object_set_new(json_object_get(json_object_get(c, "request"), "params"), "height",
                            json_integer(h));
        json_array_append_new(cells, c);
    }
    json_object_set_new(doc, "cells", cells);
    if (json_dump_file(doc, path, JSON_COMPACT))
        CB_FAIL("cannot write %s", path);
    json_decref(doc);
}

/* The template's cells with n samples in each invocation (their spread made up, 1% about
 * 100 ns), the cell's pooled samples as their concatenation. */
static void write_samples(json_t *tmpl, size_t n, const char *path)
{
    json_t *doc = json_deep_copy(tmpl), *c, *inv;
    size_t i, k;
    json_array_foreach(json_object_get(doc, "cells"), i, c)
    {
        json_t *all = json_array();
        json_array_foreach(json_object_get(c, "invocations"), k, inv)
        {
            json_t *s = json_array();
            for (size_t j = 0; j < n; j++) {
                double v = 100 * (1 + 0.01 * (double)((j * 7919 + k * 13 + i) % 100) / 100);
                json_array_append_new(s, json_real(v));
                json_array_append_new(all, json_real(v));
            }
            json_object_set_new(inv, "samples_ns_per_op", s);
        }
        json_object_set_new(c, "samples_ns_per_op", all);
    }
    if (json_dump_file(doc, path, JSON_COMPACT))
        CB_FAIL("cannot write %s", path);
    json_decref(doc);
}

/* The user + system CPU seconds of the children waited for since the last call. */
static double children_cpu(void)
{
    static double last;
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double now = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    double d = now - last;
    last = now;
    return d;
}

/* The CPU seconds of bin/corobench with these arguments, which must exit 0. */
static double cpu_of(const char *a0, const char *a1, const char *a2, const char *a3,
                     const char *a4, const char *a5)
{
    children_cpu();
    cb_test_cli r = cb_test_corobench(a0, a1, a2, a3, a4, a5, NULL);
    double t = children_cpu();
    if (r.status != 0)
        CB_FAIL("%s %s: exit %d: %s", a0, a1, r.status, r.err);
    free(r.out);
    free(r.err);
    return t;
}

CB_TEST_T(report_linear_in_cells, 300)
{
    /* One invocation per cell: no bootstrap, so the time is the tables' own. Before the fix the
     * report found each row, column and baseline by a pass over every cell: 4n cells took about
     * 16 times n's (n = 500: 0.6 s against 10 s). Linear is 4; allowed up to 8. */
    json_t *tmpl = template_doc("scale-tmpl.json", "1");
    char small[256], big[256], md[256];
    cb_test_tmp_path(small, sizeof small, "scale-500.json");
    cb_test_tmp_path(big, sizeof big, "scale-2000.json");
    cb_test_tmp_path(md, sizeof md, "scale.md");
    write_cells(tmpl, 500, small);
    write_cells(tmpl, 2000, big);
    json_decref(tmpl);
    double ts = cpu_of("report", small, "--no-plots", "-o", md, "--force");
    double tb = cpu_of("report", big, "--no-plots", "-o", md, "--force");
    printf("report: 500 cells %.2f s CPU, 2000 cells %.2f s CPU (x%.1f)\n", ts, tb, tb / ts);
    if (tb > 8 * ts)
        CB_FAIL("report of 2000 cells took %.2f s CPU, %.1f times 500 cells' %.2f s (linear: 4)",
                tb, tb / ts, ts);
    double cs = cpu_of("compare", small, small, NULL, NULL, NULL);
    double cbig = cpu_of("compare", big, big, NULL, NULL, NULL);
    printf("compare: 500 cells %.2f s CPU, 2000 cells %.2f s CPU (x%.1f)\n", cs, cbig, cbig / cs);
    if (cbig > 8 * cs)
        CB_FAIL("compare of 2000 cells took %.2f s CPU, %.1f times 500 cells' %.2f s", cbig,
                cbig / cs, cs);
    unlink(small);
    unlink(big);
    unlink(md);
}

CB_TEST_T(compare_and_report_linear_in_samples, 300)
{
    /* Two cells of 2 invocations x 20,000 samples. Timing them is a bootstrap of 2000
     * resamples; before the fix each resample sorted every invocation's samples (compare: 69 s
     * CPU here, against 0.2 s to read the same files without timing). Now a resample of an
     * invocation that large costs O(1) (harness/common/interval.c), and timing the cells may
     * cost at most 4 times reading them (measured 1.5). */
    json_t *tmpl = template_doc("scale-tmpl2.json", "2");
    char path[256], md[256];
    cb_test_tmp_path(path, sizeof path, "scale-samples.json");
    cb_test_tmp_path(md, sizeof md, "scale-samples.md");
    write_samples(tmpl, 20000, path);
    json_decref(tmpl);
    double det = cpu_of("compare", path, path, "--metric", "deterministic", NULL);
    double timed = cpu_of("compare", path, path, "--metric", "time", NULL);
    printf("compare: read only %.2f s CPU, timed %.2f s CPU (x%.1f)\n", det, timed, timed / det);
    if (timed > 4 * det)
        CB_FAIL("compare timing 2 x 40,000 samples took %.2f s CPU, %.1f times reading them "
                "(%.2f s)",
                timed, timed / det, det);
    double rep = cpu_of("report", path, "--no-plots", "-o", md, "--force");
    printf("report: %.2f s CPU (x%.1f the reading)\n", rep, rep / det);
    if (rep > 4 * det)
        CB_FAIL("report of 2 x 40,000 samples took %.2f s CPU, %.1f times reading them (%.2f s)",
                rep, rep / det, det);
    unlink(path);
    unlink(md);
}

/* The largest resident set, in KiB, of the children waited for so far. */
static long children_maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ru.ru_maxrss;
}

CB_TEST_T(export_gbench_streams_its_rows, 300)
{
    /* Two cells of 200,000 samples. gbench writes a row per sample: before the fix every row was
     * an object held in one document until the end, 23 times the memory of reading the file
     * (2.5 GB against 107 MB for a cell of 10^6 samples). Now each row is written as it is
     * made; what stays is the file read and the output buffered for its rename: 2.6 times
     * here (15 before; 6 for a cell of 10^6 samples, whose output outweighs the rest). Allowed
     * up to 6. */
    json_t *tmpl = template_doc("scale-tmpl3.json", "1");
    char path[256], out[256];
    cb_test_tmp_path(path, sizeof path, "scale-gbench.json");
    cb_test_tmp_path(out, sizeof out, "scale-gbench-out.json");
    write_samples(tmpl, 200000, path);
    json_decref(tmpl);
    cpu_of("export", path, "--format", "deterministic", "-o", out);
    long read = children_maxrss_kib();
    unlink(out);
    cpu_of("export", path, "--format", "gbench", "-o", out);
    long gb = children_maxrss_kib();
    printf("export: reading %ld KiB resident, gbench %ld KiB (x%.1f)\n", read, gb,
           (double)gb / (double)read);
    /* AddressSanitizer's quarantine keeps what the rows freed (7.4 times there): the bound is
     * the plain build's; the output is checked in both. */
    if (!CB_UNDER_ASAN && gb > 6 * read)
        CB_FAIL("export --format gbench took %ld KiB resident, %.1f times reading the file (%ld)",
                gb, (double)gb / (double)read, read);
    json_error_t je;
    json_t *g = json_load_file(out, 0, &je);
    if (!g)
        CB_FAIL("gbench output is not JSON: %s (line %d)", je.text, je.line);
    CB_CHECK_EQ_INT((long)json_array_size(json_object_get(g, "benchmarks")), 2 * (200000 + 3));
    CB_CHECK(json_object_get(g, "context") != NULL);
    json_decref(g);
    unlink(path);
    unlink(out);
}
