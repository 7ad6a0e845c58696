/* The arms of `corobench ab` (arms.h). */
#include "arms.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ab.h"
#include "harness/common/alloc.h"
#include "harness/common/cli.h"
#include "harness/report/commands.h"
#include "harness/run/invocation.h"
#include "harness/run/options.h"
#include "harness/run/request.h"
#include "impls/plugin.h"
#include "params/params.h"
#include "schedule.h"

const cb_ab_defaults cb_ab_default = {.rounds = 10, .max_rounds = 30, .threshold = 5,
                                      .budget = 5,
                                      .instr_threshold = CB_INSTR_THRESHOLD_DEFAULT};

/* run's options that select and shape the cells, parsed by run's own parser; the others (the
 * output, invocations, the counting pass) are ab's business or meaningless here. */
static const char *const run_passed[] = {"--impl",    "--workload", "--param", "--reps",
                                         "--warmup",  "--min-rep-ms", "--quick", "--pin",
                                         "--timeout", "--variant",  "--events", NULL};
static const char *const run_flags[] = {"--quick", NULL}; /* the ones without a value */
static const char *const run_lists[] = {"--impl", "--workload", "--variant", "--events", NULL};



static int is_in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

/* Each option once, as run's and compare's (a flag too); only --param repeats (once per name,
 * run's parser checks that). seen holds the options met so far, -o for --output: 0, or the
 * exit status after one line. */
static int once(const char *s, const char **seen, size_t *nseen)
{
    const char *name = !strcmp(s, "--output") ? "-o" : s;
    if (!strcmp(s, "--param") || s[0] != '-')
        return 0;
    for (size_t k = 0; k < *nseen; k++)
        if (!strcmp(seen[k], name))
            return cb_usage_error("option %s given twice for ab (valid: once%s)",
                                  !strcmp(name, "-o") ? "-o/--output" : name,
                                  is_in(name, run_lists) ? ", with a comma-separated list" : "");
    seen[(*nseen)++] = name;
    return 0;
}

static int usage_unknown(const char *arg)
{
    return cb_usage_error("unexpected argument '%s' for ab (valid: --base DIR, --new DIR, "
                          "--base-lib PATH, --new-lib PATH, --base-external NAME=COMMAND, "
                          "--new-external NAME=COMMAND, --rounds R, --max-rounds M, --threshold "
                          "PERCENT, --budget PERCENT, --instr-threshold PERCENT, --seed N, --pairs "
                          "alternate|sequential, "
                          "--allow-missing, --format "
                          "text|md|json, --only-changed, -o FILE, --force, --dry-run, and run's "
                          "--impl, --workload, --param, --reps, --warmup, --min-rep-ms, --quick, "
                          "--pin, --timeout, --variant, --events)",
                          cb_quote(arg));
}

/* A build's directory: DIR/bin/corobench must be an executable. */
static int check_dir(const char *opt, const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bin/corobench", dir);
    if (access(path, X_OK) != 0)
        return cb_usage_error("invalid value '%s' for %s: %s is not an executable (valid: a "
                              "corobench checkout built by make)",
                              cb_quote(dir), opt, path);
    return 0;
}

static int check_lib(const char *opt, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0)
        return cb_usage_error("invalid value '%s' for %s: not a readable file (valid: a runtime "
                              "plugin's shared object, docs/plugin.md)",
                              cb_quote(path), opt);
    return 0;
}

/* NAME=COMMAND, NAME not empty; *cmd points into s. */
static int check_ext(const char *opt, const char *s, const char **cmd)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || !eq[1])
        return cb_usage_error("invalid value '%s' for %s (valid: NAME=COMMAND, as run's "
                              "--external)",
                              cb_quote(s), opt);
    *cmd = eq + 1;
    return 0;
}

/* The arms: exactly one kind, both sides of it; 0 or the exit status. */
static int check_arms(ab_opts *a)
{
    arm *b = &a->arms[CB_AB_BASE], *n = &a->arms[CB_AB_NEW];
    int kinds = !!(b->dir || n->dir) + !!(b->lib || n->lib) + !!(b->ext || n->ext), rc;
    if (kinds == 0)
        return cb_usage_error("ab needs two arms (valid: --base DIR [--new DIR], --base-lib PATH "
                              "--new-lib PATH, or --base-external NAME=COMMAND --new-external "
                              "NAME=COMMAND)");
    if (kinds > 1)
        return cb_usage_error("ab takes one kind of arm, not %d (valid: --base DIR [--new DIR], "
                              "--base-lib/--new-lib, or --base-external/--new-external)",
                              kinds);
    if (n->dir && !b->dir)
        return cb_usage_error("--new '%s' needs --base DIR (valid: --base DIR [--new DIR])",
                              cb_quote(n->dir));
    if (b->dir && ((rc = check_dir("--base", b->dir)) || (n->dir && (rc = check_dir("--new",
                                                                                     n->dir)))))
        return rc;
    if (b->lib || n->lib) {
        if (!b->lib || !n->lib)
            return cb_usage_error("%s needs %s (valid: --base-lib PATH --new-lib PATH)",
                                  b->lib ? "--base-lib" : "--new-lib",
                                  b->lib ? "--new-lib" : "--base-lib");
        if ((rc = check_lib("--base-lib", b->lib)) || (rc = check_lib("--new-lib", n->lib)))
            return rc;
    }
    if (b->ext || n->ext) {
        if (!b->ext || !n->ext)
            return cb_usage_error("%s needs %s (valid: --base-external NAME=COMMAND "
                                  "--new-external NAME=COMMAND)",
                                  b->ext ? "--base-external" : "--new-external",
                                  b->ext ? "--new-external" : "--base-external");
        if ((rc = check_ext("--base-external", b->ext, &b->command)) ||
            (rc = check_ext("--new-external", n->ext, &n->command)))
            return rc;
        if ((size_t)(b->command - b->ext) != (size_t)(n->command - n->ext) ||
            strncmp(b->ext, n->ext, (size_t)(b->command - b->ext)))
            return cb_usage_error("invalid value '%s' for --base-external: its NAME differs "
                                  "from --new-external's '%s' (valid: the same NAME, two "
                                  "COMMANDs)",
                                  cb_quote(b->ext), cb_quote(n->ext));
    }
    return 0;
}

static int parse_percent(const char *opt, const char *s, double *out)
{
    if (cb_parse_decimal(s, out) || !(*out >= 0) || *out > 1000)
        return cb_usage_error("invalid value '%s' for %s (valid: a percentage from 0 to 1000)",
                              cb_quote(s), opt);
    return 0;
}

int cb_ab_parse(int argc, char **argv, ab_opts *a)
{
    long v;
    int rc, max_set = 0;
    const char *seen[64]; /* ab's options, each once: fewer than 64 */
    size_t nseen = 0;
    size_t slots = (size_t)argc + 4;
    a->run_argv = cb_xcalloc(slots, sizeof *a->run_argv);
    a->run_argv[a->run_argc++] = "run";
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = NULL;
        if (nseen < sizeof seen / sizeof *seen && (rc = once(s, seen, &nseen)))
            return rc;
        if (!strcmp(s, "--base"))
            slot = &a->arms[CB_AB_BASE].dir;
        else if (!strcmp(s, "--new"))
            slot = &a->arms[CB_AB_NEW].dir;
        else if (!strcmp(s, "--base-lib"))
            slot = &a->arms[CB_AB_BASE].lib;
        else if (!strcmp(s, "--new-lib"))
            slot = &a->arms[CB_AB_NEW].lib;
        else if (!strcmp(s, "--base-external"))
            slot = &a->arms[CB_AB_BASE].ext;
        else if (!strcmp(s, "--new-external"))
            slot = &a->arms[CB_AB_NEW].ext;
        else if (!strcmp(s, "-o") || !strcmp(s, "--output"))
            slot = &a->out_path;
        if (slot) {
            if (!val)
                return cb_usage_error("option '%s' needs a value (valid: see 'corobench ab "
                                      "--help')",
                                      s);
            *slot = argv[++i];
            continue;
        }
        if (!strcmp(s, "--rounds") || !strcmp(s, "--max-rounds")) {
            int r = !strcmp(s, "--rounds");
            if (!val)
                return cb_usage_error("option '%s' needs a value (valid: see 'corobench ab "
                                      "--help')",
                                      s);
            max_set |= !r;
            if ((rc = cb_opt_int(s, argv[++i], 2, CB_MAX_INVOCATIONS, &v)))
                return rc;
            *(r ? &a->rounds : &a->max_rounds) = (unsigned)v;
        } else if (!strcmp(s, "--threshold") || !strcmp(s, "--budget") ||
                   !strcmp(s, "--instr-threshold")) {
            if (!val)
                return cb_usage_error("option '%s' needs a value (valid: see 'corobench ab "
                                      "--help')",
                                      s);
            if ((rc = parse_percent(s, argv[++i], !strcmp(s, "--threshold") ? &a->threshold
                                                  : !strcmp(s, "--budget")  ? &a->budget
                                                                            : &a->instr_threshold)))
                return rc;
            if (!strcmp(s, "--budget") && !(a->budget > 0 && a->budget < 100))
                return cb_usage_error("invalid value '%s' for --budget (valid: a percentage "
                                      "above 0 and below 100)",
                                      cb_quote(argv[i]));
        } else if (!strcmp(s, "--seed")) {
            char *end;
            if (!val)
                return cb_usage_error("option '--seed' needs a value (valid: see 'corobench ab "
                                      "--help')");
            errno = 0;
            a->seed = strtoull(argv[++i], &end, 0);
            if (errno || end == argv[i] || *end || argv[i][0] == '-')
                return cb_usage_error("invalid value '%s' for --seed (valid: an unsigned 64-bit "
                                      "integer, decimal or 0x hex)",
                                      cb_quote(argv[i]));
            a->seed_set = 1;
        } else if (!strcmp(s, "--format")) {
            if (!val || cb_cmp_format_parse(argv[++i], &a->format))
                return cb_usage_error("invalid value '%s' for --format (valid: text, md, json)",
                                      val ? cb_quote(val) : "");
        } else if (!strcmp(s, "--pairs")) {
            if (!val || (strcmp(val, "alternate") && strcmp(val, "sequential")))
                return cb_usage_error("invalid value '%s' for --pairs (valid: alternate, "
                                      "sequential)",
                                      val ? cb_quote(val) : "");
            a->sequential = !strcmp(argv[++i], "sequential");
        } else if (!strcmp(s, "--allow-missing")) {
            a->allow_missing = 1;
        } else if (!strcmp(s, "--only-changed")) {
            a->only_changed = 1;
        } else if (!strcmp(s, "--dry-run")) {
            a->dry_run = 1;
        } else if (!strcmp(s, "--force")) {
            a->force = 1;
        } else if (is_in(s, run_passed)) {
            a->run_argv[a->run_argc++] = argv[i];
            if (!is_in(s, run_flags)) {
                if (!val)
                    return cb_usage_error("option '%s' needs a value (valid: see 'corobench ab "
                                          "--help')",
                                          s);
                a->run_argv[a->run_argc++] = argv[++i];
            }
        } else {
            return usage_unknown(s);
        }
    }
    if (!max_set)
        a->max_rounds = a->rounds > cb_ab_default.max_rounds / 3 ? 3 * a->rounds
                                                                  : cb_ab_default.max_rounds;
    if (a->max_rounds < a->rounds)
        return cb_usage_error("invalid value '%u' for --max-rounds: below --rounds %u (valid: "
                              "--rounds or more; equal: no fresh rounds)",
                              a->max_rounds, a->rounds);
    if ((rc = check_arms(a)))
        return rc;
    /* The plugin or the external program joins the plan as new's; each arm's request names
     * its own (run_arm). */
    arm *n = &a->arms[CB_AB_NEW];
    if (n->lib) {
        /* run's --impl-lib is a list: a comma in the path as '\,' (a path with one was split
         * there and not found). The item sits after the slots, freed with them. */
        a->run_argv =
            cb_xrealloc(a->run_argv, slots * sizeof *a->run_argv + 2 * strlen(n->lib) + 1);
        char *item = (char *)(a->run_argv + slots);
        cb_plugin_list_item(item, n->lib);
        a->run_argv[a->run_argc++] = "--impl-lib";
        a->run_argv[a->run_argc++] = item;
    } else if (n->ext) {
        a->run_argv[a->run_argc++] = "--external";
        a->run_argv[a->run_argc++] = (char *)n->ext;
    }
    a->run_argv[a->run_argc++] = "--no-table";
    a->run_argv[a->run_argc] = NULL;
    return CB_OPTS_PARSED;
}

/* Links src (made absolute) as dir/name, that path in out (PATH_MAX + 32); 0 or -1 with errno. */
static int link_as(const char *src, const char *dir, const char *name, char *out)
{
    char real[PATH_MAX], path[PATH_MAX + 32];
    if (!realpath(src, real))
        return -1;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memcpy(out, path, sizeof path);
    return symlink(real, path);
}

/* TMP/b and TMP/n, each with the arm's binaries (corobench and its variants) and plugin linked
 * under the same names: equal-length paths. 0, or one line and the exit status. */
int cb_ab_links_make(ab_opts *x)
{
    snprintf(x->tmp, sizeof x->tmp, "%s/corobench-ab.XXXXXX", getenv("TMPDIR") ?: "/tmp");
    if (!mkdtemp(x->tmp))
        return cb_usage_error("cannot make a temporary directory '%s': %s (valid: a writable "
                              "TMPDIR)",
                              x->tmp, strerror(errno));
    const char *self = cb_inv_self();
    char self_dir[PATH_MAX];
    snprintf(self_dir, sizeof self_dir, "%s", self ? self : ".");
    dirname(self_dir);
    for (int k = 0; k < 2; k++) {
        arm *a = &x->arms[k];
        char bin[PATH_MAX], path[PATH_MAX + 32], out[PATH_MAX + 32];
        snprintf(a->link_dir, sizeof a->link_dir, "%s/%c", x->tmp, k == CB_AB_BASE ? 'b' : 'n');
        if (mkdir(a->link_dir, 0700) != 0)
            return cb_usage_error("cannot make '%s': %s", a->link_dir, strerror(errno));
        if (a->dir)
            snprintf(bin, sizeof bin, "%s/bin", a->dir);
        else
            snprintf(bin, sizeof bin, "%s", self_dir);
        static const char *const names[] = {"corobench", "corobench-jmpret"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", bin, names[i]);
            if (access(path, X_OK) == 0 && link_as(path, a->link_dir, names[i], out))
                return cb_usage_error("cannot link '%s' into '%s': %s", path, a->link_dir,
                                      strerror(errno));
        }
        if (a->lib && link_as(a->lib, a->link_dir, "plugin.so", a->lib_link))
            return cb_usage_error("cannot link '%s' into '%s': %s", a->lib, a->link_dir,
                                  strerror(errno));
        if (a->lib && cb_plugin_identity(a->lib, a->lib_identity, sizeof a->lib_identity))
            return cb_usage_error("cannot read '%s': %s (valid: a shared object)", a->lib,
                                  strerror(errno));
    }
    return 0;
}

void cb_ab_links_remove(ab_opts *x)
{
    static const char *const names[] = {"corobench", "corobench-jmpret", "plugin.so"};
    if (!x->tmp[0])
        return;
    for (int k = 0; k < 2; k++) {
        char path[PATH_MAX + 32];
        for (size_t i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", x->arms[k].link_dir, names[i]);
            unlink(path);
        }
        rmdir(x->arms[k].link_dir);
    }
    rmdir(x->tmp);
}

/* The environment of arm k: the slowdown knob for new only, its same-length stand-in for
 * base. */
static void arm_env(const ab_opts *x, int k)
{
    if (!x->slow)
        return;
    setenv(k == CB_AB_NEW ? SLOW_VAR : OFF_VAR, x->slow, 1);
    unsetenv(k == CB_AB_NEW ? OFF_VAR : SLOW_VAR);
}

/* Arm k's run of req: the request with the arm's plugin or program, in the arm's linked
 * binary of the cell's variant. A new object (request.h's record). */
void cb_ab_arm_start(const ab_opts *x, int k, const cb_plan_cell *pc, const json_t *req,
                     int turn_fd, int first, const char *const *wrap, cb_request_child *ch)
{
    const arm *a = &x->arms[k];
    json_t *r = json_deep_copy(req);
    if (a->lib && json_is_string(json_object_get(r, "impl_lib"))) {
        /* the arm's own plugin, checked against its own identity: the plan's is new's */
        json_object_set_new(r, "impl_lib", json_string(a->lib_link));
        json_object_set_new(r, "impl_lib_identity", json_string(a->lib_identity));
    }
    if (a->command && json_is_string(json_object_get(r, "external")))
        json_object_set_new(r, "external", json_string(a->command));
    if (turn_fd >= 0)
        json_object_set_new(r, "turns",
                            json_pack("{s:i, s:b}", "fd", CB_REQUEST_TURN_FD, "first", first));
    char name[PATH_MAX], bin[PATH_MAX + 16];
    snprintf(name, sizeof name, "%s", cb_request_binary(pc, CB_REQUEST_TIME) ?: "corobench");
    snprintf(bin, sizeof bin, "%s/%s", a->link_dir, basename(name));
    arm_env(x, k);
    cb_request_start(ch, bin, r, turn_fd, wrap);
    json_decref(r);
}

json_t *cb_ab_arm_run(const ab_opts *x, int k, const cb_plan_cell *pc, const json_t *req)
{
    cb_request_child ch;
    cb_ab_arm_start(x, k, pc, req, -1, 0, NULL, &ch);
    return cb_request_finish(&ch);
}

void cb_ab_env_restore(const ab_opts *a)
{
    unsetenv(OFF_VAR);
    if (a->slow)
        setenv(SLOW_VAR, a->slow, 1);
}
