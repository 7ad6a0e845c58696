/* `corobench report`: a Markdown report derived from results documents. For one document:
 * where it was measured, the Claims section (claims/: verdicts computed from the cells), the
 * plots (plots.c), then one table per workload with a row per parameter point and a column per
 * implementation (median ns per op; plain builds ranked against plain builds, a build variant
 * shown next to its plain twin as a ratio to it), the memory tables, and every cell that did
 * not run. Documents of one machine are read as one; several machines get a side-by-side table
 * per workload first, then a section each. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claims.h"
#include "commands.h"
#include "harness/results/fields.h"
#include "harness/common/alloc.h"
#include "harness/common/cli.h"
#include "harness/common/output.h"
#include "harness/common/untrusted.h"
#include "harness/results/load.h"
#include "html.h"
#include "machines.h"
#include "mdfit.h"
#include "pick.h"
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
        if (!strcmp(cb_str(p, "name"), CB_HEADLINE_PLOT))
            continue; /* under the Summary table */
        fprintf(out, "\n### %s\n\n%s.\n\n", cb_str(p, "name"), cb_str(p, "question"));
        if (cb_plot_picture_md(out, p, rel)) {
            fputc('\n', out);
        } else {
            fputs("Not drawn: ", out);
            cb_plot_why_md(out, p);
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
/* The length of name's report suffix, .md, .html or .htm in any case (X.HTML was written as
 * Markdown), 0 for none; *html set for the last two. */
static size_t report_suffix(const char *name, int *html)
{
    static const char *const sfx[] = {".md", ".html", ".htm"};
    size_t n = strlen(name);
    *html = 0;
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        size_t k = strlen(sfx[i]);
        if (n >= k && !strcasecmp(name + n - k, sfx[i]))
            return *html = i > 0, k;
    }
    return 0;
}

/* The directory part of path ("." when none), and path's last component without its suffix. */
static void split_path(const char *path, char *dir, size_t dlen, char *stem, size_t slen)
{
    const char *slash = strrchr(path, '/');
    int html;
    if (slash)
        snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, dlen, ".");
    snprintf(stem, slen, "%s", slash ? slash + 1 : path);
    stem[strlen(stem) - report_suffix(stem, &html)] = '\0';
}

/* STEM-plots/ beside the report is a new path, or with --force the directory of an earlier
 * report (whose plots are replaced with it); a file, a link or, without --force, a directory
 * already there is refused before any work, as -o is (docs/bad-input.md). */
enum { PLOT_PATH_ROOM = 128 }; /* "/AAA/pingpong-depth-distinct-0.dat.tmp.<pid>" fits */
/* The plots are drawn in STEM-plots/ inside this directory beside the report, and moved into
 * place only when the report is (whole or not at all, plots_commit). */
enum { PLOT_TMP_ROOM = 20 }; /* "/.plots.tmp<pid>" */
static void plots_tmp(char *buf, size_t len, const char *dir)
{
    snprintf(buf, len, "%s/.plots.tmp%ld", dir, (long)getpid());
}

static int check_plots_dir(const char *dir, const char *stem, int force)
{
    char pdir[4096 + 1100];
    struct stat st;
    snprintf(pdir, sizeof pdir, "%s/%s-plots", dir, stem);
    /* Room for what goes in it: a machine's subdirectory and a plot's files with their
     * temporary names (plots.c), within a path and a file name the kernel takes; the plots
     * are drawn in a directory beside it first (plots_tmp). */
    if (strlen(pdir) + PLOT_TMP_ROOM + PLOT_PATH_ROOM >= CB_OUT_PATH_MAX ||
        strlen(stem) + strlen("-plots") > NAME_MAX)
        return cb_usage_error("report plots: '%s' is too long for the plot files in it (valid: "
                              "a report path of at most %d bytes, its name at most %d, or "
                              "--no-plots)",
                              cb_quote(pdir), CB_OUT_PATH_MAX - PLOT_PATH_ROOM - PLOT_TMP_ROOM - 4,
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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* Removes the directory tmp and what it holds. */
static void remove_tree(const char *tmp)
{
    nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The plots drawn in tmp/STEM-plots into place as dir/STEM-plots, replacing an earlier
 * report's (--force, checked before); tmp is removed. -1 with errno when the move failed. */
static int plots_commit(const char *tmp, const char *dir, const char *stem)
{
    char from[4096 + 1200], to[4096 + 1100], old[4096 + 1200];
    snprintf(from, sizeof from, "%s/%s-plots", tmp, stem);
    snprintf(to, sizeof to, "%s/%s-plots", dir, stem);
    snprintf(old, sizeof old, "%s/old", tmp);
    struct stat st;
    int rc = 0;
    if (lstat(to, &st) == 0 && rename(to, old) != 0)
        rc = -1;
    if (!rc && rename(from, to) != 0) {
        int e = errno;
        rename(old, to); /* the earlier plots back */
        errno = e;
        rc = -1;
    }
    int e = errno;
    remove_tree(tmp);
    errno = e;
    return rc;
}

/* Where the gnuplot scripts are: plots/ beside the directory holding this binary (bin/). */
static void scripts_dir(char *buf, size_t len)
{
    char bin[4096];
    cb_bin_dir(bin, sizeof bin);
    if (snprintf(buf, len, "%s/../plots", bin) >= (int)len)
        snprintf(buf, len, "plots");
}
static const char report_usage[] = "corobench report [RESULTS.json...] "
                                   "[--fleet DIR | --with-fleet DIR] "
                                   "[-o FILE.md|FILE.html [--force]] [--format md|html] "
                                   "[--no-plots] [-- FILES...]";

/* --fleet DIR (docs/record.md, "The fleet"): its records (*.json, in name order) loaded after the
 * n files given, into docs[] and ins[] (paths malloc'd, also kept in owned[]), at most cap in
 * all; a record of a CPU kind among the given files' is left out, its path appended to left.
 * The count in all, or (size_t)-1 with why set and nothing of DIR kept (left emptied): DIR not
 * a directory, a file in it that is not a record, too many. */
static size_t add_fleet(const char *fleet, json_t **docs, const char **ins, size_t n, size_t cap,
                        char **owned, size_t *nowned, json_t *left, cb_error *why)
{
    struct dirent **names;
    int k = scandir(fleet, &names, NULL, alphasort);
    if (k < 0) {
        cb_error_set(why, "report --fleet: '%s': %s (valid: a directory of records, as "
                          "results/fleet/)",
                     cb_quote(fleet), strerror(errno));
        return (size_t)-1;
    }
    size_t total = n, bad = 0;
    cb_error err;
    for (int i = 0; i < k; i++) {
        const char *name = names[i]->d_name;
        size_t len = strlen(name);
        if (bad || name[0] == '.' || len < 6 || strcmp(name + len - 5, ".json"))
            continue;
        int full = total == cap || *nowned == cap; /* owned holds cap, left-out ones too */
        char *path = cb_xmalloc(strlen(fleet) + len + 2);
        sprintf(path, "%s/%s", fleet, name);
        if (full) {
            cb_error_set(why, "report --fleet: '%s' is one file too many (valid: at most %zu "
                              "files and records in all)",
                         cb_quote(path), cap);
            free(path);
            bad = 1;
            continue;
        }
        owned[(*nowned)++] = path;
        json_t *doc = cb_results_load(path, &err);
        char kind[96], given[96];
        if (!doc || !cb_results_is_record(doc)) {
            if (!doc)
                cb_error_set(why, "report --fleet: %s", err.msg);
            else
                cb_error_set(why, "report --fleet: '%s' is not a record (valid: records, as "
                                  "export --fleet writes them)",
                             cb_quote(path));
            json_decref(doc);
            bad = 1;
            continue;
        }
        int mine = 0;
        for (size_t g = 0; g < n && !cb_record_kind(doc, kind, sizeof kind, NULL); g++)
            mine |= !cb_record_kind(docs[g], given, sizeof given, NULL) && !strcmp(kind, given);
        if (mine) {
            json_array_append_new(left, json_string(path));
            json_decref(doc);
            continue;
        }
        docs[total] = doc;
        ins[total++] = path;
    }
    for (int i = 0; i < k; i++)
        free(names[i]);
    free(names);
    if (bad) {
        while (total-- > n)
            json_decref(docs[total]);
        json_array_clear(left);
        return (size_t)-1;
    }
    return total;
}

/* The report's first lines on the fleet: each record left out (a given file is of its CPU
 * kind), and when no record of it is in the report, why (why: what stopped its reading, or
 * empty when it has none of another kind). */
static void fleet_lines(FILE *out, const char *fleet, json_t *left, size_t added,
                        const cb_error *why)
{
    json_t *lv;
    size_t li;
    json_array_foreach(left, li, lv)
    {
        fprintf(out, "- fleet: ");
        cb_md_code(out, json_string_value(lv));
        fprintf(out, " left out: the results given are of its CPU kind\n");
    }
    if (!fleet || added)
        return;
    fprintf(out, "- fleet: ");
    cb_md_code(out, fleet);
    if (why->msg[0]) {
        static const char cmd[] = "report --fleet: ";
        fprintf(out, " not read, so this report is of the results given alone: ");
        cb_esc_md(out, why->msg + (strncmp(why->msg, cmd, strlen(cmd)) ? 0 : strlen(cmd)));
        fputs("\n", out);
    } else {
        fprintf(out, " has no record of another CPU kind: this report is of the results given "
                     "alone\n");
    }
}

int cb_cmd_report(int argc, char **argv)
{
    const char *ins[64], *out_path = NULL, *format = NULL, *fleet = NULL;
    size_t n = 0;
    int plots_on = 1, force = 0, operands = 0, soft = 0;
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
        else if ((!strcmp(argv[i], "--fleet") || !strcmp(argv[i], "--with-fleet")) &&
                 i + 1 < argc && !fleet) {
            soft = !strcmp(argv[i], "--with-fleet");
            fleet = argv[++i];
        } else
            return cb_usage_error("unexpected argument '%s' for report (valid: %s, -o once)",
                                  cb_quote(argv[i]), report_usage);
    }
    if (!n && !fleet)
        return cb_usage_error("report needs RESULTS.json or a fleet (valid: %s)", report_usage);
    /* md unless asked for html (or -o names an .html or .htm file); a name that is only the
     * suffix (-o .html) is refused: its plots would be "-plots", and it was written as md */
    int html_suffix = 0;
    if (out_path) {
        const char *name = strrchr(out_path, '/') ? strrchr(out_path, '/') + 1 : out_path;
        if (*name && report_suffix(name, &html_suffix) == strlen(name))
            return cb_usage_error("report output: '%s' has no name before its suffix (valid: "
                                  "NAME.md, NAME.html or NAME.htm)",
                                  cb_quote(out_path));
    }
    if (!format)
        format = html_suffix ? "html" : "md";
    if (strcmp(format, "md") && strcmp(format, "html"))
        return cb_usage_error("invalid value '%s' for --format (valid: md, html)",
                              cb_quote(format));
    int html = !strcmp(format, "html");
    cb_out o;
    char dir[4096], stem[1024], pdir[4096 + 2200], ptmp[4096 + 1100], scripts[4096];
    if (out_path) {
        split_path(out_path, dir, sizeof dir, stem, sizeof stem);
        plots_tmp(ptmp, sizeof ptmp, dir);
    }
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
    /* The fleet's records after the files given (this machine first); one of the given files'
     * CPU kind is left out, the given results standing for it. With --with-fleet (./run.sh's)
     * a fleet that cannot be read leaves the report to the files given, its first lines saying
     * why (fleet_why), instead of refusing it. */
    char *owned[64];
    size_t nowned = 0;
    json_t *left = json_array();
    cb_error fleet_why = {""};
    size_t all = fleet ? add_fleet(fleet, docs, ins, n, sizeof ins / sizeof ins[0], owned,
                                   &nowned, left, &fleet_why)
                       : n;
    if (all == (size_t)-1 && soft)
        all = n;
    /* Records of one CPU kind would be one CPU twice in the fleet (docs/record.md); two of the
     * fleet's (the given files' kinds are left out of it) leave it out with --with-fleet. */
    int twice = all != (size_t)-1 && cb_record_one_per_kind(docs, ins, all, &err);
    if (twice && soft && !cb_record_one_per_kind(docs, ins, n, NULL)) {
        cb_error_set(&fleet_why, "report --fleet: %s", err.msg);
        while (all > n)
            json_decref(docs[--all]);
        json_array_clear(left);
        twice = 0;
    }
    if (all == (size_t)-1 || twice) {
        for (size_t f = 0; f < (all == (size_t)-1 ? n : all); f++)
            json_decref(docs[f]);
        for (size_t f = 0; f < nowned; f++)
            free(owned[f]);
        json_decref(left);
        return all == (size_t)-1 ? cb_usage_error("%s", fleet_why.msg)
                                 : cb_usage_error("report: %s", err.msg);
    }
    /* --fleet DIR alone (a CI's last job, docs/ci.md): its records are the report */
    if (!all) {
        for (size_t f = 0; f < nowned; f++)
            free(owned[f]);
        json_decref(left);
        return cb_usage_error("report: nothing to report: no results given and no record read "
                              "from '%s'%s%s (valid: RESULTS.json, or --fleet DIR holding "
                              "records)",
                              cb_quote(fleet), fleet_why.msg[0] ? ": " : "", fleet_why.msg);
    }
    size_t added = all - n;
    n = all;
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
    fleet_lines(out, fleet, left, added, &fleet_why);
    /* Several machines: the first one's Summary (this machine's, in ./run.sh's report), then
     * every claim on every machine, so that the page's first screen has both; that machine's
     * section below does not repeat it. */
    if (n > 1) {
        json_t *v0 = claims_view(docs[0]), *h0 = NULL;
        /* its headline plot under it, in machine A's plots directory */
        char rel0[1200] = "";
        if (out_path && plots_on) {
            char label[16];
            cb_machine_label(0, label, sizeof label);
            snprintf(rel0, sizeof rel0, "%s-plots/%s", stem, label);
            snprintf(pdir, sizeof pdir, "%s/%s", ptmp, rel0);
            if (mkdir(ptmp, 0755) == 0 || errno == EEXIST)
                cb_mkdirs(pdir, 2, NULL);
            json_t *rows = cb_claims_headline(docs[0]);
            h0 = json_array();
            json_array_append_new(h0, cb_plots_headline(rows, CB_HEADLINE_PLOT, pdir, scripts));
            json_decref(rows);
        }
        json_t *vh = claims_view(h0);
        cb_claims_section(out, v0, vh, h0 ? rel0 : NULL, CB_CLAIMS_SUMMARY);
        json_decref(vh);
        json_decref(h0);
        json_decref(v0);
        cb_report_claims_by_machine(out, docs, n);
        cb_report_points_by_machine(out, docs, n);
        cb_report_rsb_by_machine(out, docs, n);
        cb_report_side_by_side(out, docs, ins, n);
    }
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
        int parts = n > 1 && f == 0 ? CB_CLAIMS_REST : CB_CLAIMS_ALL;
        if (parts != CB_CLAIMS_ALL)
            fprintf(out, "- summary: the one that opens this report\n");
        cb_pick_note(out, docs[f]);
        if (out_path && plots_on) {
            snprintf(rel, sizeof rel, "%s-plots", stem);
            snprintf(pdir, sizeof pdir, "%s/%s", ptmp, rel);
            /* failing, each plot says why it is skipped */
            if (mkdir(ptmp, 0755) == 0 || errno == EEXIST)
                cb_mkdirs(pdir, 1, NULL);
            if (n > 1) {
                snprintf(rel + strlen(rel), sizeof rel - strlen(rel), "/%s", label);
                snprintf(pdir, sizeof pdir, "%s/%s", ptmp, rel);
            }
            plots = cb_plots_draw(docs[f], ins[f], pdir, scripts);
            /* the headline plot, shown under the Summary table (claims/summary.c); the first
             * of several machines' is drawn with the Summary that opens the report */
            if (parts & CB_CLAIMS_SUMMARY) {
                json_t *rows = cb_claims_headline(docs[f]);
                json_array_append_new(plots,
                                      cb_plots_headline(rows, CB_HEADLINE_PLOT, pdir, scripts));
                json_decref(rows);
            }
        }
        json_t *vdoc = claims_view(docs[f]), *vplots = claims_view(plots);
        cb_claims_section(out, vdoc, vplots, plots ? rel : NULL, parts);
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
        /* the SVGs read where they are drawn, STEM-plots/ in ptmp until the report is in place */
        cb_html_from_md(cb_out_stream(&o), mdtext, out_path ? (plots_on ? ptmp : dir) : "");
    } else {
        char *fit = cb_md_fit(mdtext, CB_REPORT_WIDTH);
        fputs(fit, cb_out_stream(&o));
        free(fit);
    }
    free(mdtext);
    rc = cb_out_commit(&o) ? CB_EXIT_CELLS_FAILED : 0;
    /* The plots whole with the report, or none of them: a report not written (a full disk,
     * ulimit -f) left a plot directory of truncated and empty files, which refused a rerun. */
    if (out_path && plots_on) {
        if (rc)
            remove_tree(ptmp);
        else if (plots_commit(ptmp, dir, stem) != 0) {
            fprintf(stderr, "corobench: report: cannot move the plots into %s/%s-plots: %s\n",
                    dir, stem, strerror(errno));
            rc = CB_EXIT_CELLS_FAILED;
        }
    }
    for (size_t f = 0; f < n; f++) {
        json_decref(docs[f]);
        json_decref(also[f]);
    }
    for (size_t f = 0; f < nowned; f++)
        free(owned[f]);
    json_decref(left);
    return rc;
}
