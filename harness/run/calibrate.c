/* `corobench calibrate`: which return-stack model, of what size, stands for this CPU, and what a
 * mispredicted return costs here (docs/rsb.md, "Calibration"). The command: its options (by
 * run's value parsers), its outputs prepared before the sweep and dropped, with the directories
 * it made, when the sweep or the fit fails; the sweep (cal_sweep.c), the fit (cal_fit.c), then
 * the calibration file (cal_file.c) to results/calibration/<cpu key>.json, which every later
 * run reads as machine.rsb, the plot data (cal_data.c) and the table (cal_table.c). */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate.h"
#include "commands.h"
#include "harness/common/cli.h"
#include "harness/common/proc.h"
#include "harness/measure/counters.h"
#include "options.h"

/* The last CPU this process may run on (taskset, cgroups), away from CPU 0's interrupts; 0
 * alone when the set cannot be read. */
static int last_allowed_cpu(cpu_set_t *set)
{
    if (sched_getaffinity(0, sizeof *set, set) == 0)
        for (int i = CPU_SETSIZE - 1; i >= 0; i--)
            if (CPU_ISSET(i, set))
                return i;
    CPU_ZERO(set);
    CPU_SET(0, set);
    return 0;
}

const cb_calibrate_defaults cb_calibrate_default = {.switches = 2000, .reps = 9, .runs = 3,
                                                    .max_depth = 40, .min_rep_ms = 2};

/* CB_OPTS_PARSED to carry on, else the exit status (0 after --help or --print-key), as run's
 * parser (options.h). */
static int parse_opts(int argc, char **argv, cb_cal_opts *o)
{
    static const struct option longopts[] = {
        {"pin", required_argument, 0, 'P'},      {"switches", required_argument, 0, 's'},
        {"reps", required_argument, 0, 'r'},     {"max-depth", required_argument, 0, 'd'},
        {"min-rep-ms", required_argument, 0, 'm'}, {"output", required_argument, 0, 'o'},
        {"data", required_argument, 0, 'D'},     {"help", no_argument, 0, 'h'},
        {"print-key", no_argument, 0, 'k'},      {"baseline", required_argument, 0, 'b'},
        {"force", no_argument, 0, 'f'},         {"runs", required_argument, 0, 'R'},
        {0, 0, 0, 0},
    };
    long v = 0;
    int c, rc = 0, print_key = 0;
    cpu_set_t allowed;
    const cb_calibrate_defaults *d = &cb_calibrate_default;
    *o = (cb_cal_opts){.pin_cpu = last_allowed_cpu(&allowed), .switches = d->switches,
                    .reps = d->reps, .max_depth = d->max_depth, .min_rep_ms = d->min_rep_ms,
                    .runs = d->runs, .baseline = CB_RSBFIT_AUTO};
    opterr = 0;
    optind = 1;
    unsigned char seen[128] = {0};
    while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
        /* Each option once, as run's rule is (a second --runs was taken silently). */
        for (const struct option *lo = longopts; lo->name && c > 0 && c < 128; lo++)
            if (lo->val == c && seen[c]++)
                return cb_usage_error("option --%s given twice for calibrate (valid: once)",
                                      lo->name);
        switch (c) {
        /* The values by run's parsers (options.h); --pin's CPU is checked by run's parser
         * with the rest of the sweep (check_sweep). */
        case 'P':
            rc = cb_opt_int("--pin", optarg, 0, CPU_SETSIZE - 1, &v);
            o->pin_cpu = (int)v;
            break;
        case 's': rc = cb_opt_int("--switches", optarg, 100, 10000000, &o->switches); break;
        case 'r': rc = cb_opt_int("--reps", optarg, 1, 1000, &o->reps); break;
        case 'd': rc = cb_opt_int("--max-depth", optarg, 2, 64, &o->max_depth); break;
        case 'R': rc = cb_opt_int("--runs", optarg, 1, CB_CAL_MAX_RUNS, &o->runs); break;
        case 'm': rc = cb_opt_positive("--min-rep-ms", optarg, 10000, &o->min_rep_ms); break;
        case 'b':
            if (cb_rsbfit_baseline_parse(optarg, &o->baseline) != 0)
                return cb_usage_error("invalid value '%s' for --baseline (valid: auto, jmpret, "
                                      "sites)",
                                      cb_quote(optarg));
            break;
        case 'o': o->out_path = optarg; break;
        case 'f': o->force = 1; break;
        case 'D': o->data_path = optarg; break;
        case 'k': print_key = 1; break;
        case 'h':
            printf("usage: corobench calibrate [--pin CPU] [--switches N] [--reps N] [--runs N] "
                   "[--min-rep-ms MS]\n"
                   "                           [--max-depth D] [--baseline auto|jmpret|sites]\n"
                   "                           [-o FILE.json] [--data FILE.dat] [--force]\n"
                   "       corobench calibrate --print-key\n"
                   "Fits the return-stack model to this CPU's timing; writes %s/<cpu key>.json\n"
                   "unless -o says otherwise (docs/rsb.md).\n",
                   cb_rsbcal_dir());
            return CB_EXIT_OK;
        case ':': return cb_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return cb_usage_error("unknown option '%s' for calibrate (valid: --pin, --switches, "
                                  "--reps, --runs, --min-rep-ms, --max-depth, --baseline, -o, --data, "
                                  "--force, --print-key)",
                                  argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (optind < argc) /* --print-key's too: `--print-key extra` was taken */
        return cb_usage_error("unexpected argument '%s' for calibrate (valid: options only)",
                              cb_quote(argv[optind]));
    if (print_key) { /* this CPU's key, for scripts naming their outputs after it */
        cb_cpu_id cpu;
        char key[160];
        cb_cpu_identify(&cpu);
        cb_cpu_key(&cpu, key, sizeof key);
        printf("%s\n", key);
        return CB_EXIT_OK;
    }
    return CB_OPTS_PARSED;
}

/* The outputs, checked before the sweep. This CPU's own file is replaced by recalibrating (its
 * directory made as needed); -o and --data follow every command's rule (harness/common/output.h):
 * a new path, or a regular file with --force. 0, or the exit status after one line. */
static int prepare_outputs(const cb_cal_opts *o, const char *path, cb_out *cal_out,
                           cb_out *data_out, cb_made_dirs *made)
{
    int rc;
    struct stat st, sd;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    /* Every level it makes noted, so that a failure removes them all: the tree's
     * results/calibration (two levels at most), or COROBENCH_CALIBRATION_DIR, one new level below
     * an existing directory as -o takes (it made every missing level). */
    const char *env = getenv("COROBENCH_CALIBRATION_DIR");
    int from_env = env && *env;
    if (!o->out_path && cb_mkdirs(dir, from_env ? 1 : 2, made) != 0) {
        int e = errno;
        cb_rmdirs_made(made);
        if (e == ENOENT && lstat(dir, &st) != 0)
            return cb_usage_error("calibration output: directory '%s' does not exist, nor does its "
                                  "parent (valid: %san existing directory or one new level below "
                                  "one, as -o)",
                                  cb_quote(dir), from_env ? "COROBENCH_CALIBRATION_DIR naming " : "");
        return cb_usage_error("cannot create the directory of '%s': %s%s (valid: a writable path)",
                              cb_quote(path), strerror(e),
                              e == ENOENT ? " (a symbolic link to nothing?)" : "");
    }
    /* -o and --data one file: the data would replace the calibration, after the sweep. */
    if (o->data_path && (!strcmp(o->data_path, path) ||
                         (stat(path, &st) == 0 && stat(o->data_path, &sd) == 0 &&
                          st.st_dev == sd.st_dev && st.st_ino == sd.st_ino)))
        return cb_usage_error("--data '%s' is the calibration file itself (valid: another path "
                              "for the plot data)",
                              cb_quote(o->data_path));
    if ((rc = cb_out_prepare(cal_out, "calibration", path,
                             o->out_path ? o->force : CB_OUT_REPLACE)))
        return rc;
    if (o->data_path && (rc = cb_out_prepare(data_out, "calibration data", o->data_path,
                                             o->force))) {
        cb_out_discard(cal_out);
        return rc;
    }
    return 0;
}

/* A failed calibration leaves nothing: the prepared outputs dropped, the directories it made
 * removed. */
static void drop_outputs(const cb_cal_opts *o, cb_out *cal_out, cb_out *data_out,
                         cb_made_dirs *made)
{
    cb_out_discard(cal_out);
    if (o->data_path)
        cb_out_discard(data_out);
    cb_rmdirs_made(made);
}

/* What a calibration has measured and where it goes. */
typedef struct cal_run {
    const cb_cal_opts *o;
    cb_cpu_id cpu;
    const char *path, *pmu_why;
    double t0;
    cb_out cal_out, data_out;
} cal_run;

/* The calibration document doc written (and --data), then the table: 0, or
 * CB_EXIT_CELLS_FAILED after one line. The files first, then the table (as run does): a closed
 * stdout, `| head`, loses nothing. */
static int write_outputs(cal_run *cr, json_t *doc)
{
    const cb_cal_opts *o = cr->o;
    int status = 0;
    if (json_dumpf(doc, cb_out_stream(&cr->cal_out), JSON_INDENT(2) | JSON_PRESERVE_ORDER))
        abort(); /* into memory */
    int written = cb_out_commit(&cr->cal_out) == 0;
    if (!written) {
        status = CB_EXIT_CELLS_FAILED; /* the message is out */
        if (o->data_path)
            cb_out_discard(&cr->data_out);
    } else if (o->data_path && cb_cal_write_data(doc, &cr->data_out) != 0) {
        status = CB_EXIT_CELLS_FAILED;
    }
    /* What a run will make of the file: read back through the runs' own loader. */
    char refused[1024] = "";
    json_t *adopted = written ? cb_rsbcal_load(cr->path, &cr->cpu, refused, sizeof refused)
                              : NULL;
    json_decref(adopted);
    cb_cal_print_table(doc, stdout);
    if (cr->pmu_why)
        printf("no PMU: calibrated against timing only (%s)\n", cr->pmu_why);
    if (written)
        printf("calibration: %s (%.1f s)\n", cr->path, cb_cal_now_s() - cr->t0);
    if (written && !adopted)
        fprintf(stderr, "corobench calibrate: warning: runs will not adopt this calibration: "
                        "%s\n", refused);
    return status;
}

int cb_cmd_calibrate(int argc, char **argv)
{
    cb_cal_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc != CB_OPTS_PARSED)
        return rc;
    cal_run cr = {.o = &o, .t0 = cb_cal_now_s()};
    char path[4096], tmp[4400], why[512];
    size_t npoints;
    cb_cpu_identify(&cr.cpu);
    if (o.out_path)
        snprintf(path, sizeof path, "%s", o.out_path);
    else
        cb_rsbcal_path(&cr.cpu, path, sizeof path);
    cr.path = path;
    cr.pmu_why = cb_counters_probe("ret-mispredicts", why, sizeof why);
    cb_made_dirs made = {.n = 0};
    if ((rc = cb_cal_check_sweep(&o, !cr.pmu_why, &npoints)) != CB_OPTS_PARSED ||
        (rc = prepare_outputs(&o, path, &cr.cal_out, &cr.data_out, &made)) != 0)
        return rc;
    /* The sweep's results go to a private directory beside the calibration, not named
     * results: a run writing into results/ would point results/latest.json at them. */
    char tmpdir[4200];
    const char *slash = strrchr(path, '/');
    snprintf(tmpdir, sizeof tmpdir, "%.*s%s.calibrate-sweep.XXXXXX",
             slash ? (int)(slash - path) : 0, path, slash ? "/" : "");
    /* run's own limit on an output path (common/output.h), checked before the sweep. */
    if (strlen(tmpdir) + strlen("/sweep.json") >= (4096 - 300)) {
        drop_outputs(&o, &cr.cal_out, &cr.data_out, &made);
        return cb_usage_error("output path '%s' is too long for the sweep's files beside it "
                              "(valid: at most %zu bytes)",
                              cb_quote(path),
                              (size_t)(4096 - 300) - strlen("/.calibrate-sweep.XXXXXX/sweep.json"));
    }
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "corobench calibrate: cannot make a directory for the sweep beside '%s': "
                        "%s\n",
                cb_quote(path), strerror(errno));
        drop_outputs(&o, &cr.cal_out, &cr.data_out, &made);
        return CB_EXIT_CELLS_FAILED;
    }
    snprintf(tmp, sizeof tmp, "%s/sweep.json", tmpdir);
    cb_proc_kill_on_interrupt();
    json_t *run;
    cb_cal_point *pts;
    long n = cb_cal_sweep(&o, !cr.pmu_why, npoints, tmp, &run, &pts);
    rmdir(tmpdir);
    if (n < 0) {
        drop_outputs(&o, &cr.cal_out, &cr.data_out, &made);
        return CB_EXIT_CELLS_FAILED;
    }
    json_t *doc = cb_cal_fit(&o, run, &cr.cpu, pts, n, cr.pmu_why, cb_cal_now_s() - cr.t0);
    int status = CB_EXIT_CELLS_FAILED;
    if (doc) {
        status = write_outputs(&cr, doc);
        json_decref(doc);
    } else {
        cb_out_discard(&cr.cal_out);
        if (o.data_path)
            cb_out_discard(&cr.data_out);
    }
    if (status != 0 && access(path, F_OK) != 0) /* nothing written: no directory left either */
        cb_rmdirs_made(&made);
    free(pts);
    json_decref(run);
    return status;
}

const char *cb_calibrate_dir(void) { return cb_rsbcal_dir(); }
