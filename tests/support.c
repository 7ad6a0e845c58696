/* Helpers the test files share (test.h): running bin/corobench or a function in a child, the
 * parameters of a (workload, implementation) point, temporary paths and whole files. */
#include <sys/stat.h>
#include <unistd.h>

#include "harness/common/proc.h"
#include "impls/thread.h"
#include "test.h"

const char *cb_test_root(void)
{
    const char *r = getenv("CB_BUILD_ROOT");
    return r && *r ? r : ".";
}

size_t cb_test_argv(char **argv, size_t cap, char *path, size_t pathlen, const char *binary,
                    const char *a0, va_list ap)
{
    size_t n = 0;
    snprintf(path, pathlen, "%s/bin/%s", cb_test_root(), binary);
    argv[n++] = path;
    for (const char *a = a0; a; a = va_arg(ap, const char *)) {
        if (n + 1 >= cap)
            CB_FAIL("more than %zu arguments for %s", cap - 2, binary);
        argv[n++] = (char *)a;
    }
    argv[n] = NULL;
    return n;
}

/* Runs body(arg) in a child started as po says, to its end (no timeout), output captured. */
static int capture(const cb_proc_opts *po, cb_proc_body body, void *arg, char **out, char **err)
{
    cb_proc p;
    cb_proc_result r;
    char why[256];
    if (cb_proc_start(&p, po, body, arg, why, sizeof why))
        CB_FAIL("%s", why);
    cb_proc_wait(&p, 0, &r);
    *out = r.out;
    *err = r.err;
    return cb_proc_exit_code(r.wait_status);
}

int cb_test_spawn(char *const argv[], char **out, char **err)
{
    cb_proc_opts po = {.pin_cpu = -1, .stdin_null = 1};
    return capture(&po, cb_proc_exec, (void *)argv, out, err);
}

static int fn_body(void *fn)
{
    ((void (*)(void))fn)();
    return 0;
}

int cb_test_fork(void (*fn)(void), char **out, char **err)
{
    cb_proc_opts po = {.pin_cpu = -1};
    return capture(&po, fn_body, (void *)fn, out, err);
}

const cb_co_backend *cb_test_backend(const cb_impl *im)
{
    if (!im || !im->backend)
        CB_FAIL("not a stackful implementation");
    const char *why = cb_impl_unavailable(im);
    if (why)
        CB_SKIP("%s: unsupported: %s", im->name, why);
    if (im->backend->own_thread && cb_thread_min_stack() > CB_CO_DEFAULT_STACK)
        CB_SKIP("%s: the tests' %d-byte stacks are below a thread's minimum here (%zu)", im->name,
                CB_CO_DEFAULT_STACK, cb_thread_min_stack());
    return im->backend;
}

cb_test_cli cb_test_corobench(const char *a0, ...)
{
    char *argv[40], path[4096];
    va_list ap;
    va_start(ap, a0);
    cb_test_argv(argv, 40, path, sizeof path, "corobench", a0, ap);
    va_end(ap);
    cb_test_cli c;
    c.status = cb_test_spawn(argv, &c.out, &c.err);
    return c;
}

void cb_test_corobench_start(cb_proc *p, const char *a0, ...)
{
    char *argv[40], path[4096], why[256];
    va_list ap;
    va_start(ap, a0);
    cb_test_argv(argv, 40, path, sizeof path, "corobench", a0, ap);
    va_end(ap);
    cb_proc_opts po = {.pin_cpu = -1, .stdin_null = 1};
    if (cb_proc_start(p, &po, cb_proc_exec, argv, why, sizeof why))
        CB_FAIL("%s", why);
}

int cb_test_wait(cb_proc *p)
{
    cb_proc_result r;
    cb_proc_wait(p, 0, &r);
    cb_proc_result_free(&r);
    return r.wait_status;
}

void cb_test_tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/cbtest-%ld-%s", (long)getpid(), name);
    unlink(buf);
}

const char *cb_test_dir(const char *name)
{
    static char dir[256];
    snprintf(dir, sizeof dir, "/tmp/cbtest-%ld-%s", (long)getpid(), name);
    mkdir(dir, 0700);
    return dir;
}

void cb_test_dir_cleanup(const char *name)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cb_test_dir(name));
    CB_CHECK_EQ_INT(system(cmd), 0);
}

char *cb_test_slurp(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(path, "r");
    if (!f || getdelim(&text, &len, '\0', f) <= 0)
        CB_FAIL("cannot read %s", path);
    fclose(f);
    return text;
}

void cb_test_params(const cb_workload *wl, const cb_impl *im, const char *const *set, cb_params *p)
{
    p->n = 0;
    const cb_param_def *lists[2] = {wl->params, im->params};
    for (int l = 0; l < 2; l++)
        for (const cb_param_def *d = lists[l]; d && d->name; d++) {
            const char *text = d->defval;
            for (size_t k = 0; set && set[k]; k += 2)
                if (!strcmp(set[k], d->name))
                    text = set[k + 1];
            char err[256];
            if (cb_param_parse(d, text, &p->v[p->n++], err, sizeof err))
                CB_FAIL("%s", err);
        }
}

pid_t cb_test_child_of(pid_t parent, long *cpu_ticks)
{
    cb_proc_child kids[64];
    size_t n = cb_proc_children(parent, kids, 64);
    for (size_t i = 0; i < n; i++)
        if (kids[i].state != 'Z') {
            if (cpu_ticks)
                *cpu_ticks = kids[i].utime + kids[i].stime;
            return kids[i].pid;
        }
    return 0;
}

/* Does a line starting at s begin a block of its own (not more of a paragraph)? */
static int md_block_start(const char *s)
{
    return !*s || *s == '\n' || *s == '|' || *s == '#' || (s[0] == '-' && s[1] == ' ') ||
           (s[0] == '!' && s[1] == '[');
}

char *cb_test_md_unwrap(char *md)
{
    char *w = md;
    const char *r = md, *line = md;
    while (*r) {
        if (*r == '\n' && r[1] && r[1] != '\n' && !md_block_start(r + 1) &&
            *line != '|' && *line != '#' && *line != '\n' && line != r &&
            !(line[0] == '!' && line[1] == '[')) {
            /* a soft break: one space, the next line's indent dropped */
            *w++ = ' ';
            r++;
            while (*r == ' ')
                r++;
            continue;
        }
        if (*r == '\n')
            line = r + 1;
        *w++ = *r++;
    }
    *w = '\0';
    return md;
}
