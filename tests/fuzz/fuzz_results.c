/* libFuzzer target: the results reader behind report, export and compare. Each input is parsed
 * and checked as a results document (cb_results_parse); one that passes is then read by all
 * three commands through a memory file, their output thrown away. No input may crash, hang,
 * leak or trip a sanitizer; a rejected one must say why on one line (exit status 2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness/report/commands.h"
#include "harness/results/load.h"

static int mem_fd = -1;
static char mem_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* The commands print tables and messages: into /dev/null, while libFuzzer and the
     * sanitizers keep the real stderr (they write to fd 2 or their own stream). */
    FILE *null = fopen("/dev/null", "w");
    if (!null || dup2(fileno(null), 1) < 0)
        abort();
    stderr = null;
    mem_fd = memfd_create("results", 0);
    if (mem_fd < 0)
        abort();
    snprintf(mem_path, sizeof mem_path, "/proc/self/fd/%d", mem_fd);
    return 0;
}

/* The first integer parameter of the first cell, for export's --x. */
static const char *first_int_param(json_t *doc)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(json_array_get(json_object_get(doc, "cells"), 0), "params"),
                        k, v) if (json_is_integer(v)) return k;
    return "depth";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = cb_results_parse("fuzz.json", (const char *)data, size, NULL);
    if (!doc)
        return 0;
    if (ftruncate(mem_fd, 0) != 0 || pwrite(mem_fd, data, size, 0) != (ssize_t)size)
        abort();
    json_t *cell0 = json_array_get(json_object_get(doc, "cells"), 0);
    char *wl = strdup(cell0 ? json_string_value(json_object_get(cell0, "workload")) : "pingpong");
    char *x = strdup(first_int_param(doc));
    char *report[] = {"report", mem_path, NULL};
    char *export[] = {"export", mem_path, "--workload", wl, "--x", x, NULL};
    char *compare[] = {"compare", mem_path, mem_path, NULL};
    int rc = cb_cmd_report(2, report);
    if (rc != 0)
        abort(); /* a document the checker passed must be readable */
    rc = cb_cmd_export(6, export);
    if (rc != 0 && rc != 2)
        abort();
    rc = cb_cmd_compare(3, compare);
    if (rc != 0 && rc != 1)
        abort(); /* a checked document is readable (1: it has failed or missing cells) */
    free(wl);
    free(x);
    json_decref(doc);
    return 0;
}
