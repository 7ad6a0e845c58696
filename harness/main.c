/* corobench: measures stackful and stackless coroutines on identical work.
 * One table of commands (as perf's builtin-bench.c): dispatch, the usage text and the "valid: ..."
 * list of an unknown command all come from it. Each command lives in its module: run/ for run,
 * list and the hidden cell, report/ for report, export and compare. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/build.h"
#include "common/cli.h"
#include "help.h"
#include "params/params.h"
#include "report/commands.h"
#include "run/commands.h"

static int cmd_help(int argc, char **argv);

static const cb_command commands[] = {
    {"run", "[options]", "measure the grid of cells", cb_cmd_run},
    {"list", "[impls|workloads|events] [--wide] [--impl-lib PATH[,PATH...]]",
     "implementations, workloads, parameters", cb_cmd_list},
    {"export",
     "RESULTS.json [--format gnuplot|csv|gbench|deterministic]\n"
     "                         [--workload W] [--x PARAM] [--where N=V]... [--y FIELD]...\n"
     "                         [--relative-to IMPL] [-o FILE [--force]]",
     "plot data, CSV, google benchmark JSON", cb_cmd_export},
    {"report", "RESULTS.json [MORE.json...] [-o FILE.md [--force]] [--no-plots]",
     "claims with verdicts, plots, tables", cb_cmd_report},
    {"compare",
     "BASE.json NEW.json [--threshold PERCENT] [--alpha A]\n"
     "                         [--metric time|deterministic|all] [--allow-missing]",
     "same cells side by side; exit 1 if a cell\n"
     "                                      regressed, failed, is missing or changed",
     cb_cmd_compare},
    {"calibrate", "[options]",
     "fit the return-stack model to this CPU",
     cb_cmd_calibrate},
    {"check-external", "COMMAND",
     "does COMMAND speak docs/external.md's protocol\n"
     "                                      and do corobench's work? exit 1 if not",
     cb_cmd_check_external},
    /* hidden: how a run executes a cell in another build variant (run/commands.h) */
    {"cell", "INDEX time|count RUN-OPTIONS...", NULL, cb_cmd_cell},
    {"help", "[COMMAND]", "this text, or one command's full usage (every option, its default)",
     cmd_help},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

/* One command's usage line and summary (in a column, or on the next line under it when the
 * usage is long). */
static void usage_line(FILE *f, const cb_command *c, const char *lead)
{
    char line[256];
    snprintf(line, sizeof line, "corobench %s%s%s", c->name, c->usage[0] ? " " : "", c->usage);
    if (strlen(line) <= 30)
        fprintf(f, "%-7s%-31s%s\n", lead, line, c->summary);
    else
        fprintf(f, "%-7s%s\n%38s%s\n", lead, line, "", c->summary);
}

static void usage(FILE *f)
{
    fprintf(f, "corobench %s (%s)\n", CB_VERSION, cb_build_commit);
    int first = 1;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].summary) {
            usage_line(f, &commands[i], first ? "usage:" : "");
            first = 0;
        }
    fprintf(f, "'corobench help COMMAND' or 'corobench COMMAND --help': every option with its "
               "default.\n");
}

static int unknown_command(const char *cmd)
{
    char valid[256];
    size_t n = 0;
    for (size_t i = 0; i < NCOMMANDS && n < sizeof valid; i++)
        if (commands[i].summary)
            n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s", n ? ", " : "",
                                  commands[i].name);
    return cb_usage_error("unknown command '%s' (valid: %s)", cb_quote(cmd), valid);
}

/* help: every command; help COMMAND: that one's full usage. */
static int cmd_help(int argc, char **argv)
{
    if (argc > 2)
        return cb_usage_error("unexpected argument '%s' for help (valid: help [COMMAND])",
                              cb_quote(argv[2]));
    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].summary && !strcmp(argv[1], commands[i].name)) {
            if (cb_help_command(stdout, argv[1]) != 0)
                usage_line(stdout, &commands[i], "usage:");
            return 0;
        }
    return unknown_command(argv[1]);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(cmd, commands[i].name))
            continue;
        /* COMMAND --help (or -h) anywhere before a "--": its full usage, exit 0. */
        for (int k = 2; commands[i].summary && k < argc && strcmp(argv[k], "--"); k++)
            if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
                char *help_argv[] = {"help", (char *)cmd, NULL};
                return cmd_help(2, help_argv);
            }
        return commands[i].handler(argc - 1, argv + 1);
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return cmd_help(argc - 1, argv + 1);
    if (!strcmp(cmd, "--version")) {
        printf("corobench %s (%s)\n", CB_VERSION, cb_build_commit);
        return 0;
    }
    return unknown_command(cmd);
}

/* Whether fd is a pipe whose reader has gone (poll's POLLERR on its write end). */
static int reader_gone(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int main(int argc, char **argv)
{
    /* A closed pipe on stdout or stderr (`run ... 2>&1 >/dev/null | head -1`) must not kill
     * the run before its results are written: writes to it fail with EPIPE instead, and the
     * exit status says so below. */
    signal(SIGPIPE, SIG_IGN);
    int rc = dispatch(argc, argv);
    int out_bad = fflush(stdout) != 0 || ferror(stdout), err_bad = ferror(stderr);
    if (!out_bad && !err_bad)
        return rc;
    /* A reader that went away: 128 + SIGPIPE, as the shell reports a program SIGPIPE ended,
     * unless the command has a failure of its own to report. */
    if (reader_gone(out_bad ? 1 : 2))
        return rc ? rc : CB_EXIT_CLOSED_PIPE;
    /* Standard output on a full device: say so and fail, never exit 0. */
    if (out_bad)
        fprintf(stderr, "corobench: cannot write to standard output: %s\n", strerror(errno));
    return rc ? rc : CB_EXIT_CELLS_FAILED;
}
