/* `corobench report`: a Markdown report derived from results documents. For one document:
 * where it was measured, the Claims section (claims/: verdicts computed from the cells), the
 * plots (plots.c), then one table per workload with a row per parameter point and a column per
 * implementation (median ns per op; plain builds ranked against plain builds, a build variant
 * shown next to its plain twin as a ratio to it), the memory tables, and every cell that did
 * not run. Documents of one machine are read as one; several machines get a side-by-side table
 * per workload first, then a section each. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claims.h"
#include "commands.h"
#include "harness/results/fields.h"
#include "harness/common/cli.h"
#include "harness/common/output.h"
#include "harness/common/untrusted.h"
#include "harness/results/load.h"
#include "html.h"
#include "machines.h"
#include "mdfit.h"
#include "plots.h"
#include "record.h"
#include "tables.h"

/* The document as the claims see it: a copy whose strings went through cb_md_neutral, since
 * claims.c writes the file's text (the CPU model, the build, the environment's warnings, a
 * plot's reason) into Markdown as it is. */
static void md_neutral_strings(json_t *v);

/* e's neutral form when it is a string that needs one (NULL otherwise, after going into it). */
static json_t *md_neutral_one(json_t *e)
{
    char *n = json_is_string(e) ? cb_md_neutral(json_string_value(e)) : NULL;
    json_t *r = n ? json_string(n) : NULL;
    free(n);
    if (!r)
        md_neutral_strings(e);
    return r;
}

static void md_neutral_strings(json_t *v)
{
    const char *k;
    json_t *e, *r;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, k, e) if ((r = md_neutral_one(e))) json_object_set_new(v, k, r);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) if ((r = md_neutral_one(e))) json_array_set_new(v, i, r);
    }
}

static json_t *claims_view(json_t *doc)
{
    json_t *copy = doc ? json_deep_copy(doc) : NULL;
    md_neutral_strings(copy);
    return copy;
}

/* The plots drawn (embedded) and those skipped, with the reasons. */
static void plots_section(FILE *out, json_t *plots, const char *rel)
{
    json_t *p, *n;
    size_t i, k;
    fprintf(out, "\n## Plots\n\nEach drawn by gnuplot (plots/NAME.gp) from data corobench derives "
                 "from these results; PNG embedded, SVG beside it.\n");
    json_array_foreach(plots, i, p)
    {
        const char *png = cb_str(p, "png"), *svg = cb_str(p, "svg");
        fprintf(out, "\n### %s\n\n%s.\n", cb_str(p, "name"), cb_str(p, "question"));
        if (png) {
            const char *bp = strrchr(png, '/'), *bs = svg ? strrchr(svg, '/') : NULL;
            fprintf(out, "\n![%s](", cb_str(p, "name"));
            cb_md_dest(out, rel, bp ? bp + 1 : png);
            fprintf(out, ") ([SVG](");
            cb_md_dest(out, rel, bs ? bs + 1 : svg);
            fprintf(out, "))\n");
        } else {
            fprintf(out, "\nNot drawn: ");
            cb_esc_md(out, cb_str(p, "skipped"));
            fputs(".", out);
            if (cb_str(p, "command"))
                fprintf(out, " To measure its data: `%s`.", cb_str(p, "command"));
            fprintf(out, "\n");
        }
        json_array_foreach(json_object_get(p, "notes"), k, n)
        {
            fprintf(out, "%s- ", k ? "" : "\n");
            cb_esc_md(out, json_string_value(n));
            fputs("\n", out);
        }
    }
}
/* The directory part of path ("." when none), and path's last component without .md. */
static void split_path(const char *path, char *dir, size_t dlen, char *stem, size_t slen)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, dlen, ".");
    snprintf(stem, slen, "%s", slash ? slash + 1 : path);
    size_t n = strlen(stem);
    if (n > 3 && !strcmp(stem + n - 3, ".md"))
        stem[n - 3] = '\0';
    else if (n > 5 && !strcmp(stem + n - 5, ".html"))
        stem[n - 5] = '\0';
}

/* STEM-plots/ beside the report is a new path, or with --force the directory of an earlier
 * report (whose plots are replaced with it); a file, a link or, without --force, a directory
 * already there is refused before any work, as -o is (docs/bad-input.md). */
enum { PLOT_PATH_ROOM = 128 }; /* "/AAA/pingpong-depth-distinct-0.dat.tmp.<pid>" fits */
static int check_plots_dir(const char *dir, const char *stem, int force)
{
    char pdir[4096 + 1100];
    struct stat st;
    snprintf(pdir, sizeof pdir, "%s/%s-plots", dir, stem);
    /* Room for what goes in it: a machine's subdirectory and a plot's files with their
     * temporary names (plots.c), within a path and a file name the kernel takes. */
    if (strlen(pdir) + PLOT_PATH_ROOM >= CB_OUT_PATH_MAX ||
        strlen(stem) + strlen("-plots") > NAME_MAX)
        return cb_usage_error("report plots: '%s' is too long for the plot files in it (valid: "
                              "a report path of at most %d bytes, its name at most %d, or "
                              "--no-plots)",
                              cb_quote(pdir), CB_OUT_PATH_MAX - PLOT_PATH_ROOM - 4,
                              NAME_MAX - (int)strlen("-plots") + 3);
    if (lstat(pdir, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return cb_usage_error("report plots: '%s' exists and is not a directory (valid: a new "
                              "path for the plots beside the report, or --no-plots)",
                              cb_quote(pdir));
    if (!force)
        return cb_usage_error("report plots: '%s' exists (valid: a new path, --force to replace "
                              "the plots in it, or --no-plots)",
                              cb_quote(pdir));
    return 0;
}

/* Where the gnuplot scripts are: plots/ beside the directory holding this binary (bin/). */
static void scripts_dir(char *buf, size_t len)
{
    char bin[4096];
    cb_bin_dir(bin, sizeof bin);
    if (snprintf(buf, len, "%s/../plots", bin) >= (int)len)
        snprintf(buf, len, "plots");
}
static const char report_usage[] = "corobench report RESULTS.json [MORE.json...] "
                                   "[-o FILE.md|FILE.html [--force]] [--format md|html] "
                                   "[--no-plots] [-- FILES...]";

int cb_cmd_report(int argc, char **argv)
{
    const char *ins[64], *out_path = NULL, *format = NULL;
    size_t n = 0;
    int plots_on = 1, force = 0, operands = 0;
    for (int i = 1; i < argc; i++) {
        if (operands || (argv[i][0] != '-' && n < sizeof ins / sizeof ins[0])) {
            if (n >= sizeof ins / sizeof ins[0])
                return cb_usage_error("too many results files for report (valid: at most %zu)",
                                      sizeof ins / sizeof ins[0]);
            ins[n++] = argv[i];
        } else if (!strcmp(argv[i], "--")) /* the rest are files, even -dash.json */
            operands = 1;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc && !out_path)
            out_path = argv[++i];
        else if (!strcmp(argv[i], "--format") && i + 1 < argc && !format)
            format = argv[++i];
        else if (!strcmp(argv[i], "--no-plots"))
            plots_on = 0;
        else if (!strcmp(argv[i], "--force"))
            force = 1;
        else
            return cb_usage_error("unexpected argument '%s' for report (valid: %s, -o once)",
                                  cb_quote(argv[i]), report_usage);
    }
    if (!n)
        return cb_usage_error("report needs RESULTS.json (valid: %s)", report_usage);
    /* md unless asked for html (or -o names an .html file) */
    size_t olen = out_path ? strlen(out_path) : 0;
    if (!format)
        format = olen > 5 && !strcmp(out_path + olen - 5, ".html") ? "html" : "md";
    if (strcmp(format, "md") && strcmp(format, "html"))
        return cb_usage_error("invalid value '%s' for --format (valid: md, html)",
                              cb_quote(format));
    int html = !strcmp(format, "html");
    cb_out o;
    char dir[4096], stem[1024], pdir[4096 + 1100], scripts[4096];
    if (out_path)
        split_path(out_path, dir, sizeof dir, stem, sizeof stem);
    int rc = cb_out_prepare(&o, "report", out_path, force);
    if (!rc && out_path && plots_on)
        rc = check_plots_dir(dir, stem, force);
    if (rc)
        return rc;
    json_t *docs[64];
    cb_error err;
    for (size_t f = 0; f < n; f++)
        if (!(docs[f] = cb_results_load(ins[f], &err))) {
            while (f-- > 0)
                json_decref(docs[f]);
            return cb_usage_error("%s", err.msg);
        }
    /* Records of one CPU kind would be one CPU twice in the fleet (docs/record.md). */
    if (cb_record_one_per_kind(docs, ins, n, &err)) {
        for (size_t f = 0; f < n; f++)
            json_decref(docs[f]);
        return cb_usage_error("report: %s", err.msg);
    }
    /* Files from one machine (same host name and CPU) are one machine's results: their cells
     * are read together, so a run split over several files (run.sh runs the languages' runtimes
     * on a grid of their own) gets one set of claims, plots and tables. */
    size_t nf = n;
    json_t *also[64] = {NULL}; /* per machine: the files merged into it after the first */
    n = cb_report_group_by_machine(docs, ins, nf, also);
    /* Plots go beside the report, in STEM-plots/ (one subdirectory per machine when several);
     * a report on stdout has none. */
    scripts_dir(scripts, sizeof scripts);
    /* The Markdown first, in memory; HTML is made from it (html.c). */
    char *mdtext = NULL;
    size_t mdlen = 0;
    FILE *out = open_memstream(&mdtext, &mdlen);
    if (!out) {
        fprintf(stderr, "corobench: report: cannot open a memory stream: %s\n", strerror(errno));
        abort();
    }
    fprintf(out, "# corobench report\n\n");
    if (n > 1)
        cb_report_side_by_side(out, docs, ins, n);
    for (size_t f = 0; f < n; f++) {
        json_t *plots = NULL;
        char rel[1200] = "";
        char label[16];
        cb_machine_label(f, label, sizeof label);
        if (n > 1)
            fprintf(out, "\n# Machine %s\n\n", label);
        cb_report_machine_line(out, ins[f], docs[f]);
        json_t *a;
        size_t k;
        json_array_foreach(also[f], k, a)
        {
            fprintf(out, "- also: ");
            cb_md_code(out, json_string_value(a));
            fprintf(out, "\n");
        }
        if (out_path && plots_on) {
            snprintf(rel, sizeof rel, "%s-plots", stem);
            snprintf(pdir, sizeof pdir, "%s/%s", dir, rel);
            cb_mkdirs(pdir, 1, NULL); /* failing, each plot says why it is skipped */
            if (n > 1) {
                snprintf(rel + strlen(rel), sizeof rel - strlen(rel), "/%s", label);
                snprintf(pdir, sizeof pdir, "%s/%s", dir, rel);
            }
            plots = cb_plots_draw(docs[f], ins[f], pdir, scripts);
        }
        json_t *vdoc = claims_view(docs[f]), *vplots = claims_view(plots);
        cb_claims_section(out, vdoc, vplots, plots ? rel : NULL);
        json_decref(vdoc);
        json_decref(vplots);
        if (plots)
            plots_section(out, plots, rel);
        cb_report_tables(out, docs[f]);
        json_decref(plots);
    }
    fclose(out);
    /* The Markdown with every line within 120 columns (mdfit.h); the HTML from the lines as
     * written, whose tables a browser lays out and sorts whole (split, they would sort apart). */
    if (html) {
        cb_html_from_md(cb_out_stream(&o), mdtext, out_path ? dir : "");
    } else {
        char *fit = cb_md_fit(mdtext, CB_REPORT_WIDTH);
        fputs(fit, cb_out_stream(&o));
        free(fit);
    }
    free(mdtext);
    rc = cb_out_commit(&o) ? CB_EXIT_CELLS_FAILED : 0;
    for (size_t f = 0; f < n; f++) {
        json_decref(docs[f]);
        json_decref(also[f]);
    }
    return rc;
}
