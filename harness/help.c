/* The commands' option tables for `help COMMAND` and `COMMAND --help`: one row per option with
 * its argument, its default and one line on what it does, so a user never has to read the source
 * for a default. A numeric default is the parser's own definition (cb_run_default and the
 * others), formatted here, never a second copy. tests/test_cli.c checks that every option a
 * command's parser accepts (the "valid: ..." list of its unknown-option message) has a row here
 * and every row's option is one the parser accepts, and that the defaults printed are what the
 * parsers do. */
#include <string.h>

#include "ab/ab.h"
#include "help.h"
#include "report/commands.h"
#include "run/commands.h"
#include "run/options.h"

typedef struct opt_row {
    const char *option; /* "--reps N" */
    const char *dflt;   /* the default, as the user would type it; "" when none */
    const char *what;   /* one line */
    const char *values; /* a closed set of values for the option's argument ("md|html"), which
                         * the commands' overview shows in its place; NULL: none */
} opt_row;

/* A default that starts with this is in calibrate's directory (this tree's results/calibration
 * unless COROBENCH_CALIBRATION_DIR says otherwise), printed as the path. */
#define CAL_DIR "<calibration dir>"

/* The defaults the parsers define (run/options.h, run/commands.h, report/commands.h), written
 * here as text before a usage is printed (fill_defaults): a row never states its own. */
static char run_invocations[16], run_reps[48], run_warmup[16], run_min_rep[48], run_timeout[16],
    run_entries[48], cal_switches[24], cal_reps[16], cal_runs[16], cal_min_rep[24],
    cal_depth[16], check_timeout[16], cmp_threshold[24], cmp_instr[24], ab_rounds[16],
    ab_max_rounds[48], ab_threshold[24], ab_budget[24], ab_instr[24];

static void fill_defaults(void)
{
    const cb_run_defaults *r = &cb_run_default;
    snprintf(run_invocations, sizeof run_invocations, "%u", r->invocations);
    snprintf(run_reps, sizeof run_reps, "%u; --quick: %u", r->reps, r->quick_reps);
    snprintf(run_warmup, sizeof run_warmup, "%u", r->warmup);
    snprintf(run_min_rep, sizeof run_min_rep, "%g; --quick: %g", r->min_rep_ms,
             r->quick_min_rep_ms);
    snprintf(run_timeout, sizeof run_timeout, "%g", r->timeout_s);
    snprintf(run_entries, sizeof run_entries, "the model's: circular %u, underflow-btb %u",
             r->rsb_entries, r->rsb_entries_underflow);
    const cb_calibrate_defaults *c = &cb_calibrate_default;
    snprintf(cal_switches, sizeof cal_switches, "%ld", c->switches);
    snprintf(cal_reps, sizeof cal_reps, "%ld", c->reps);
    snprintf(cal_runs, sizeof cal_runs, "%ld", c->runs);
    snprintf(cal_min_rep, sizeof cal_min_rep, "%g", c->min_rep_ms);
    snprintf(cal_depth, sizeof cal_depth, "%ld", c->max_depth);
    snprintf(check_timeout, sizeof check_timeout, "%g", (double)CB_CHECK_EXTERNAL_TIMEOUT_S);
    snprintf(cmp_threshold, sizeof cmp_threshold, "%g", cb_compare_default_threshold);
    snprintf(cmp_instr, sizeof cmp_instr, "%g", CB_INSTR_THRESHOLD_DEFAULT);
    const cb_ab_defaults *a = &cb_ab_default;
    snprintf(ab_rounds, sizeof ab_rounds, "%u", a->rounds);
    snprintf(ab_max_rounds, sizeof ab_max_rounds, "%u, or 3 times --rounds when that is more",
             a->max_rounds);
    snprintf(ab_threshold, sizeof ab_threshold, "%g", a->threshold);
    snprintf(ab_budget, sizeof ab_budget, "%g", a->budget);
    snprintf(ab_instr, sizeof ab_instr, "%g", a->instr_threshold);
}

typedef struct cmd_help {
    const char *name, *synopsis, *summary;
    const opt_row *rows;
    const char *notes; /* after the table; NULL for none */
} cmd_help;

static const opt_row run_rows[] = {
    {"--impl LIST", "all", "implementations to run (`corobench list impls`)", NULL},
    {"--workload LIST", "all", "workloads to run (`corobench list workloads`; all skips fault)", NULL},
    {"--param NAME=V1,V2,...", "each one's default", "a parameter's values; the grid is their "
                                                     "product (WORKLOAD.NAME: that workload's)", NULL},
    {"--invocations K", run_invocations, "processes per cell, interleaved across the cells (A1 B1 ... A2 B2 "
                              "...): the interval is over them", NULL},
    {"--reps N", run_reps, "timed repetitions per invocation", NULL},
    {"--warmup N", run_warmup, "untimed repetitions before them", NULL},
    {"--min-rep-ms MS", run_min_rep,
     "each repetition batched to last at least this long (up to 1000000)", NULL},
    {"--quick", "off", "fewer repetitions, shorter ones: a first look, not a measurement", NULL},
    {"--pin CPU", "none", "pin the measured child to this CPU", NULL},
    {"--timeout SEC", run_timeout, "a cell running longer is killed and recorded as timed out", NULL},
    {"-o, --output FILE", "results/<host>-<UTC time>.json", "where the results go", NULL},
    {"--force", "off", "let -o replace an existing regular file", NULL},
    {"--save-baseline NAME", "none", "also save the results as results/baselines/NAME.json "
                                     "(docs/ci.md)", NULL},
    {"--impl-lib PATH[,PATH...]", "none", "load runtime plugins (shared objects built against "
                                          "include/corobench/runtime.h; docs/plugin.md); "
                                          "'\\,' is a comma in a path; repeats", NULL},
    {"--external NAME=COMMAND", "none", "a runtime of your own as a program speaking "
                                        "docs/external.md's protocol; repeats", NULL},
    {"--no-table", "off", "do not print the table of results on standard output", NULL},
    {"--wide", "off", "the table with every column (mad, suspensions, checksum), uncut; without "
                      "it, 120 columns", NULL},
    {"--dry-run", "off", "print the plan (cells, invocations, estimated time) and run nothing", NULL},
    {"--pace FILE|none", "this CPU's record", "each cell's time per invocation for the estimate "
     "and the ETA: as measured in FILE (a record or results), or the model alone; by default "
     "as results/fleet/ records this CPU kind", NULL},
    {"--filter REGEX", "every cell", "only the cells whose WORKLOAD/IMPL/NAME=VALUE/... text matches "
                                     "(POSIX extended; -REGEX: those that do not)", NULL},
    {"--events LIST", "none", "hardware/software counters per op (`corobench list events`)", NULL},
    {"--events-kernel", "off", "count kernel mode too", NULL},
    {"--variant LIST", "this binary's, plain", "build variants to run: plain, jmpret", NULL},
    {"--rsb sim|off", "off", "count return-stack mispredictions on the simulated model", NULL},
    {"--rsb-model M", "auto", "auto (the calibration's, else the vendor's), circular, underflow-btb",
     "auto|circular|underflow-btb"},
    {"--rsb-entries N", run_entries, "entries of the simulated return stack", NULL},
    {"--rsb-candidates", "off", "also count every candidate model (docs/rsb.md)", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row list_rows[] = {
    {"impls|workloads|events", "all three", "only that section", NULL},
    {"--wide", "off", "descriptions and parameters in full, however wide; without it, 120 columns", NULL},
    {"--impl-lib PATH[,PATH...]", "none", "list these runtime plugins too (docs/plugin.md)", NULL},
    {"--kind KIND[,KIND...]", "every kind", "impls: only the rows of these kinds (corobench, peer, "
                                            "language, plugin, external)", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row export_rows[] = {
    {"RESULTS.json", "", "the results to export (summary: one machine's files, one or more)", NULL},
    {"--format F", cb_export_default_format,
     "gnuplot, csv, gbench, github-bench, bmf, deterministic or summary (a machine's record)",
     "gnuplot|csv|gbench|github-bench|bmf|deterministic|summary"},
    {"--workload W", "all; gnuplot needs it", "only this workload's cells", NULL},
    {"--where NAME=VALUE", "none", "only cells with this parameter (or field) value; repeats", NULL},
    {"--x PARAM", "none; gnuplot needs it", "gnuplot: the numeric parameter on the x axis", NULL},
    {"--y FIELD", "median, MAD, min, max of ns per op", "gnuplot: a dotted field per column; repeats", NULL},
    {"--relative-to IMPL", "none", "gnuplot: every y divided by IMPL's at the same point", NULL},
    {"--aggregates-only", "off", "gbench: only the mean/median/stddev rows", NULL},
    {"-o FILE", "standard output", "where the export goes", NULL},
    {"--fleet DIR", "none", "summary (implied), instead of -o: the record to "
                            "DIR/<vendor>-<family>-<model>.json from its machine.cpu, written or "
                            "refreshed (results/fleet/, docs/record.md)", NULL},
    {"--cpu V,F,M", "the results' machine.cpu",
     "summary: the CPU of results written before machine.cpu, as /proc/cpuinfo's vendor_id "
     "(or amd, intel), cpu family and model; the record marks it given", NULL},
    {"--force", "off", "let -o replace an existing regular file", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row report_rows[] = {
    {"RESULTS.json...", "", "results files; files of one machine are read as one (none with "
                            "--fleet DIR: its records alone)", NULL},
    {"--fleet DIR", "none", "also the records in DIR (results/fleet/) after the files, a record "
                            "of a given file's CPU kind left out; several machines get the "
                            "claims by machine first (docs/record.md)", NULL},
    {"--with-fleet DIR", "none", "as --fleet, but a DIR that cannot be read (missing, a file "
                                 "not a record) leaves the report to the files, its first lines "
                                 "saying why (./run.sh's)", NULL},
    {"-o FILE", "standard output", "where the report goes (FILE.md, or FILE.html for --format "
                                   "html); its plots in FILE-plots/ beside it", NULL},
    {"--format F", "md (html when -o ends in .html or .htm, any case)",
     "md (Markdown) or html (one self-contained page: inline SVG plots with their data, "
     "sortable tables)", "md|html"},
    {"--force", "off", "let -o replace an existing report and its plots directory", NULL},
    {"--no-plots", "off", "do not draw the plots (no gnuplot needed)", NULL},
    {"-- FILES...", "", "the rest are results files, even names starting with -", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row compare_rows[] = {
    {"BASE NEW", "", "each a results file, a directory of them or a comma-separated list", NULL},
    {"--baseline NAME", "none", "BASE is results/baselines/NAME.json (run --save-baseline NAME)", NULL},
    {"--threshold PERCENT", cmp_threshold, "a time change smaller than this is never a regression", NULL},
    {"--instr-threshold PERCENT", cmp_instr, "instructions per op (a cell's instructions_per_op in "
     "both files) changed beyond this are marked changed: reported, not gated", NULL},
    {"--metric M", "all", "time, deterministic (checksums, counts, bytes) or all",
     "time|deterministic|all"},
    {"--allow-missing", "off", "a cell in BASE missing from NEW is not a failure", NULL},
    {"--format F", "text", "text, md or json", "text|md|json"},
    {"--only-changed", "off", "list only the cells that changed", NULL},
    {"--rename OLD=NEW", "none", "BASE's implementation OLD is NEW's NEW (one runtime, two names)",
     NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row ab_rows[] = {
    {"--base DIR", "none", "a corobench checkout built by make: DIR/bin/corobench is base", NULL},
    {"--new DIR", "this build", "another built checkout as new (with --base)", NULL},
    {"--base-lib PATH", "none", "base is this plugin (docs/plugin.md), with --new-lib", NULL},
    {"--new-lib PATH", "none", "new is this plugin; both run in this build", NULL},
    {"--base-external NAME=COMMAND", "none", "base is this program (docs/external.md), with "
                                             "--new-external", NULL},
    {"--new-external NAME=COMMAND", "none", "new is this program, under the same NAME", NULL},
    {"--rounds R", ab_rounds, "rounds: each visits every cell once, base and new in turns", NULL},
    {"--max-rounds M", ab_max_rounds, "a cell not unchanged after R rounds gets fresh rounds, R "
                                      "at a time up to M, and is decided on those alone", NULL},
    {"--threshold PERCENT", ab_threshold, "regressed when the interval of new/base lies above "
                                          "1 + PERCENT; unchanged within 1 +- PERCENT", NULL},
    {"--budget PERCENT", ab_budget, "false-alarm budget of a run: half to the whole run, half "
                                    "spread over the cells", NULL},
    {"--instr-threshold PERCENT", ab_instr, "with --events instructions: instructions per op "
                                            "changed beyond it (reported, never gated)", NULL},
    {"--seed N", "drawn, recorded", "the seed of the rounds' order and the layout draws", NULL},
    {"--pairs HOW", "alternate", "alternate: a pair's two processes run at once and take turns "
                                 "repetition by repetition; sequential: one after the other",
     "alternate|sequential"},
    {"--allow-missing", "off", "a cell new lacks is not a failure", NULL},
    {"--format F", "text", "text, md or json (compare's forms)", "text|md|json"},
    {"--only-changed", "off", "list only the cells that changed", NULL},
    {"-o FILE", "results/ab/<host>-<UTC time>.json", "the verdict; the arms' results files "
                                                     "beside it (FILE.base.json, FILE.new.json)", NULL},
    {"--force", "off", "let -o replace existing files", NULL},
    {"--dry-run", "off", "print the arms, the plan, the estimated time and the schedule", NULL},
    {"--impl LIST", "all", "run's cell selection, parsed by run's parser (corobench help run): "
                           "also --workload, --param, --reps, --warmup, --min-rep-ms, --quick, "
                           "--pin, --timeout, --variant, --events", NULL},
    {"--workload LIST", "all", "as run's", NULL},
    {"--param NAME=V1,...", "each one's default", "as run's", NULL},
    {"--reps N", run_reps, "as run's", NULL},
    {"--warmup N", run_warmup, "as run's", NULL},
    {"--min-rep-ms MS", run_min_rep, "as run's", NULL},
    {"--quick", "off", "as run's", NULL},
    {"--pin CPU", "none", "as run's", NULL},
    {"--timeout SEC", run_timeout, "as run's", NULL},
    {"--variant LIST", "this binary's, plain", "as run's", NULL},
    {"--events LIST", "none", "as run's; with instructions, each cell's instructions per op in "
                              "both arms (reported, not gated)", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row calibrate_rows[] = {
    {"--pin CPU", "the last CPU allowed", "pin the measured child to this CPU", NULL},
    {"--switches N", cal_switches, "switches per instance of each calibration cell", NULL},
    {"--reps N", cal_reps, "timed repetitions per cell", NULL},
    {"--runs N", cal_runs, "sweeps of the depths, the fit on their medians", NULL},
    {"--min-rep-ms MS", cal_min_rep,
     "each repetition batched to last at least this long (up to 10000)", NULL},
    {"--max-depth D", cal_depth, "the deepest call depth swept", NULL},
    {"--baseline B", "auto", "the twin the model is fitted against: auto, jmpret or sites",
     "auto|jmpret|sites"},
    {"-o FILE.json", CAL_DIR "/<cpu key>.json", "where the calibration goes", NULL},
    {"--data FILE.dat", "none", "also write the plot data (plots/rsb-calibration.gp)", NULL},
    {"--force", "off", "let -o and --data replace existing files", NULL},
    {"--print-key", "", "print this CPU's key and exit", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row check_external_rows[] = {
    {"COMMAND", "", "a shell command; the request is appended as its last argument", NULL},
    {"--timeout SEC", check_timeout, "no reply in SEC s ends the program: the point FAILED", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row cell_rows[] = {
    {"--request FILE|-", "", "the cell's request (docs/request.md), from FILE or - (standard "
                             "input): a results file's cells[].request reruns that cell", NULL},
    {"-h, --help", "", "this text", NULL},
    {NULL, NULL, NULL, NULL},
};

static const opt_row help_rows[] = {
    {"COMMAND", "", "one command's full usage", NULL},
    {NULL, NULL, NULL, NULL},
};

static const cmd_help helps[] = {
    {"run", "[options]", "measure the cells of the grid (implementations x workloads x parameters)",
     run_rows,
     "LIST is comma-separated; 'all' selects all. Exit status: 0, 1 when a cell failed or timed\n"
     "out (recorded in the results), 2 on bad input."},
    {"list", "[impls|workloads|events] [--wide] [--impl-lib PATH[,PATH...]]",
     "implementations, workloads and their parameters, event aliases", list_rows, NULL},
    {"export", "RESULTS.json [options]", "plot data, CSV, google benchmark JSON, CI trackers' formats",
     export_rows, NULL},
    {"report", "RESULTS.json [MORE.json...] [options]",
     "the answer, caveats, claims with verdicts, plots and tables (docs/report.md)", report_rows,
     NULL},
    {"compare", "BASE NEW [options] | --baseline NAME NEW [options]",
     "the same cells side by side; exit 1 if a cell regressed, failed, is missing or changed",
     compare_rows, NULL},
    {"ab", "ARMS [options] [run's cell selection]",
     "base and new measured pair by pair in one window, decided on the pairs' ratios (docs/ci.md)",
     ab_rows,
     "ARMS: --base DIR [--new DIR], --base-lib PATH --new-lib PATH, or --base-external\n"
     "NAME=COMMAND --new-external NAME=COMMAND. Exit status: 0, 1 when a cell or the whole run\n"
     "regressed, a cell failed in new or is missing there, or the arms did different work, 2 on\n"
     "bad input."},
    {"calibrate", "[options]", "fit the return-stack model to this CPU (docs/rsb.md)",
     calibrate_rows, NULL},
    {"check-external", "COMMAND [--timeout SEC]",
     "does COMMAND speak docs/external.md's protocol and do corobench's work (sm's)?",
     check_external_rows,
     "One line per point: ok, unsupported, FAILED (the reply's field named) or DIFFERS (each\n"
     "differing field with both values). Exit status: 0 when conforming, 1 when not, 2 on bad\n"
     "input."},
    {"cell", "--request FILE|-", "measure (or count) one cell from its request and print the "
     "invocation's result as JSON", cell_rows,
     "The request is what a run hands each cell's process; 'jq .cells[0].request RESULTS.json |\n"
     "corobench cell --request -' reruns a results file's first cell. Exit status: 0 with the\n"
     "result printed (its status ok, failed or unsupported), 2 on a bad request."},
    {"help", "[COMMAND]", "the commands, or one command's full usage", help_rows, NULL},
};

/* Writes s wrapped at width, every line after the first indented by indent. */
static void wrap(FILE *f, const char *s, int col, int indent, int width)
{
    while (*s) {
        int room = width - col, n = (int)strlen(s);
        if (n > room && room > 10) {
            n = room;
            while (n > 0 && s[n] != ' ')
                n--;
            if (n == 0)
                n = room;
        }
        fprintf(f, "%.*s", n, s);
        s += n;
        while (*s == ' ')
            s++;
        if (*s) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        }
    }
    fputc('\n', f);
}

static const cmd_help *find_help(const char *name)
{
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
        if (!strcmp(helps[i].name, name))
            return &helps[i];
    return NULL;
}

int cb_help_summary(FILE *f, const char *name)
{
    const cmd_help *h = find_help(name);
    if (!h)
        return -1;
    fprintf(f, "  corobench %s %s\n      ", h->name, h->synopsis);
    wrap(f, h->summary, 6, 6, 100);
    /* Every option of the command's table, its argument's values in its place where they are a
     * closed set: the same rows as `help COMMAND`, so the overview cannot drift from it. Each
     * "[OPTION ARG]" whole on a line of at most 100 columns. */
    int col = 6, any = 0;
    for (const opt_row *r = h->rows; r->option; r++) {
        if (r->option[0] != '-' || !strcmp(r->option, "-h, --help"))
            continue;
        const char *opt = r->option;
        char o[64];
        if (!strncmp(opt, "-o, ", 4)) { /* "-o, --output FILE": both forms, one token */
            snprintf(o, sizeof o, "-o|%s", opt + 4);
            opt = o;
        }
        char tok[256];
        const char *arg = strchr(opt, ' ');
        if (arg && r->values)
            snprintf(tok, sizeof tok, "[%.*s %s]", (int)(arg - opt), opt, r->values);
        else
            snprintf(tok, sizeof tok, "[%s]", opt);
        int len = (int)strlen(tok);
        if (!any)
            fprintf(f, "      ");
        else if (col + 1 + len > 100)
            fprintf(f, "\n      "), col = 6;
        else
            fputc(' ', f), col++;
        fputs(tok, f);
        col += len;
        any = 1;
    }
    if (any)
        fputc('\n', f);
    return 0;
}

int cb_help_command(FILE *f, const char *name)
{
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        const cmd_help *h = &helps[i];
        if (strcmp(h->name, name))
            continue;
        fill_defaults();
        fprintf(f, "usage: corobench %s %s\n%s\n\n", h->name, h->synopsis, h->summary);
        int w = 0;
        for (const opt_row *r = h->rows; r->option; r++)
            w = (int)strlen(r->option) > w ? (int)strlen(r->option) : w;
        for (const opt_row *r = h->rows; r->option; r++) {
            char dflt[4096];
            if (!strncmp(r->dflt, CAL_DIR, strlen(CAL_DIR)))
                snprintf(dflt, sizeof dflt, "%s%s", cb_calibrate_dir(), r->dflt + strlen(CAL_DIR));
            else
                snprintf(dflt, sizeof dflt, "%s", r->dflt);
            fprintf(f, "  %-*s  ", w, r->option);
            /* the default after the description when it fits, else whole on the next line (a
             * path is never cut) */
            char line[8192];
            snprintf(line, sizeof line, "%s (default: %s)", r->what, dflt);
            if (!dflt[0] || (int)strlen(line) + w + 4 > 100) {
                wrap(f, r->what, w + 4, w + 4, 100);
                if (dflt[0])
                    fprintf(f, "  %-*s  default: %s\n", w, "", dflt);
            } else
                wrap(f, line, w + 4, w + 4, 100);
        }
        if (h->notes)
            fprintf(f, "\n%s\n", h->notes);
        return 0;
    }
    return -1;
}
