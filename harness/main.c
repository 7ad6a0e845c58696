/* corobench: measures stackful and stackless coroutines on identical work.
 * One table of commands (as perf's builtin-bench.c): dispatch, the usage text and the "valid: ..."
 * list of an unknown command all come from it. Each command lives in its module: run/ for run,
 * list and cell, report/ for report, export and compare, ab/ for ab. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ab/ab.h"
#include "common/build.h"
#include "common/cli.h"
#include "help.h"
#include "params/params.h"
#include "report/commands.h"
#include "run/commands.h"

static int cmd_help(int argc, char **argv);

/* The usage text of each command, and the overview's entry, are help.c's (one table of options
 * per command). */
static const cb_command commands[] = {
    {"run", 0, cb_cmd_run},
    {"list", 0, cb_cmd_list},
    {"export", 0, cb_cmd_export},
    {"report", 0, cb_cmd_report},
    {"compare", 0, cb_cmd_compare},
    {"ab", 0, cb_cmd_ab},
    {"calibrate", 0, cb_cmd_calibrate},
    {"check-external", 0, cb_cmd_check_external},
    {"cell", 0, cb_cmd_cell},
    {"help", 0, cmd_help},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

/* The overview: every command's synopsis, summary and options, from help.c's tables. */
static void usage(FILE *f)
{
    fprintf(f, "corobench %s (%s)\nusage: corobench COMMAND [ARGUMENTS]\n", CB_VERSION,
            cb_build_commit);
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!commands[i].hidden)
            cb_help_summary(f, commands[i].name);
    fprintf(f, "'corobench help COMMAND' or 'corobench COMMAND --help': every option with its "
               "default.\n");
}

static int unknown_command(const char *cmd)
{
    char valid[256];
    size_t n = 0;
    cb_nearest near;
    cb_nearest_init(&near, cmd);
    for (size_t i = 0; i < NCOMMANDS && n < sizeof valid; i++)
        if (!commands[i].hidden) {
            n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s", n ? ", " : "",
                                  commands[i].name);
            cb_nearest_offer(&near, commands[i].name);
        }
    return cb_usage_error("unknown command '%s'%s (valid: %s)", cb_quote(cmd),
                          cb_nearest_hint(&near), valid);
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
        if (!commands[i].hidden && !strcmp(argv[1], commands[i].name)) {
            cb_help_command(stdout, argv[1]);
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
        for (int k = 2; !commands[i].hidden && k < argc && strcmp(argv[k], "--"); k++)
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
    /* Past `ulimit -f` a write fails with EFBIG instead of killing the process (SIGXFSZ)
     * with its temporary file left behind: the output's own error path then removes it. */
    signal(SIGXFSZ, SIG_IGN);
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
