/* corobench: measures stackful and stackless coroutines on identical work.
 * Dispatches the subcommands; each lives in its own file. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static void usage(FILE *f)
{
    fprintf(f, "corobench %s (%s)\n"
               "usage: corobench list                 implementations, workloads, parameters\n"
               "       corobench run [options]        measure; 'corobench run --help'\n"
               "       corobench export RESULTS.json --workload W --x PARAM [--where N=V]... [-o FILE]\n"
               "                                      gnuplot data, one block per implementation\n"
               "       corobench report RESULTS.json [-o FILE.md]   Markdown tables\n"
               "       corobench compare BASE.json NEW.json [--threshold PERCENT] [--alpha A]\n"
               "                         [--metric time|deterministic|all] [--allow-missing]\n"
               "                                      same cells side by side; exit 1 if a cell\n"
               "                                      regressed, failed, is missing or changed\n",
            CB_VERSION, cb_build_commit);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run"))
        return cb_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "list"))
        return cb_cmd_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "export"))
        return cb_cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return cb_cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return cb_cmd_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "cell")) /* hidden: how a run executes a cell in another build variant */
        return cb_cmd_cell(argc - 1, argv + 1);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("corobench %s (%s)\n", CB_VERSION, cb_build_commit);
        return 0;
    }
    return cb_usage_error("unknown command '%s' (valid: run, list, export, report, compare, help)",
                          cmd);
}
