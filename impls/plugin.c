/* Loading a runtime plugin (plugin.h): dlopen, the one symbol, every field checked before the
 * implementation is registered. */
#include "plugin.h"

#include <ctype.h>
#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "include/corobench/runtime.h"
#include "impls.h"

/* The plugins' own parameters are the stackful ones; one that owns its stacks places its own
 * coroutines, and none has a transfer. */
#define NO_TRANSFER                                                                             \
    "a plugin's interface has resume and yield only (include/corobench/runtime.h), so its "     \
    "coroutines switch through their resumer: use the mode or sched that does"

/* What a valid name is (the header's rule). */
static int bad_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > 32 || !islower((unsigned char)s[0]))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_' &&
            s[i] != '-')
            return 1;
    return 0;
}

/* The file behind fd as it is now: its size, modification time and FNV-1a hash of its bytes
 * (a replaced or rewritten shared object differs in one of them). -1 when it cannot be read. */
static int identity_of(int fd, const struct stat *st, char *out, size_t len)
{
    unsigned long long h = 0xcbf29ce484222325ull;
    unsigned char buf[65536];
    off_t at = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, at);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 0x100000001b3ull;
        at += n;
    }
    snprintf(out, len, "%lld bytes, mtime %lld.%09ld, fnv1a64 0x%016llx", (long long)at,
             (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec, h);
    return 0;
}

int cb_plugin_identity(const char *path, char *out, size_t len)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc = -1;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0) {
        if (S_ISREG(st.st_mode))
            rc = identity_of(fd, &st, out, len);
        else
            errno = EINVAL;
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* Whether loading real returns: a child opens it and calls corobench_plugin(), then says so on a
 * pipe. A plugin whose constructor or corobench_plugin() calls exit() (or crashes) ended the
 * program silently (exit(0): run exited 0 with no results); it is refused, naming how the child
 * ended. 0: it returned (the checks of its fields are the caller's); -1 with err. */
static int probe(const char *path, const char *real, char *err, size_t len)
{
    int p[2];
    if (pipe(p) != 0) {
        snprintf(err, len, "cannot load --impl-lib '%s': %m", path);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, len, "cannot load --impl-lib '%s': %m", path);
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        /* what it prints on stdout it prints again when the program loads it */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
        const cb_plugin *(*entry)(void) =
            h ? (const cb_plugin *(*)(void))dlsym(h, "corobench_plugin") : NULL;
        if (entry)
            entry();
        if (write(p[1], "k", 1) != 1)
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    char k = 0;
    ssize_t got;
    while ((got = read(p[0], &k, 1)) < 0 && errno == EINTR)
        ;
    close(p[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (got == 1 && k == 'k')
        return 0;
    if (WIFSIGNALED(st))
        snprintf(err, len, "invalid --impl-lib '%s': loading it killed the process (signal %d, "
                 "%s) (valid: a plugin whose constructors and corobench_plugin() return; "
                 "docs/plugin.md)", path, WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(err, len, "invalid --impl-lib '%s': loading it ended the process (exit status "
                 "%d: a constructor or corobench_plugin() called exit) (valid: a plugin whose "
                 "constructors and corobench_plugin() return; docs/plugin.md)", path,
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return -1;
}

/* What a path that is not a regular file is, for its message. */
static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket"
                                                                         : "a device or special file";
}

static int load_one(const char *path, const char *want, char *err, size_t len)
{
    char real[PATH_MAX];
    const char *shown = cb_quote(path); /* one line: cut to 80, control characters as '?' */
    struct stat st;
    if (!realpath(path, real)) {
        /* /dev/stdin from a pipe resolves to "pipe:[N]", which realpath cannot find */
        int saved = errno;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(err, len, "invalid --impl-lib '%s': %s, not a regular file (valid: a path "
                     "to a shared object built against include/corobench/runtime.h)", shown,
                     file_kind(st.st_mode));
            return -1;
        }
        errno = saved;
        snprintf(err, len, "cannot load --impl-lib '%s': %m (valid: a path to a shared object "
                 "built against include/corobench/runtime.h)", shown);
        return -1;
    }
    if (!cb_utf8_valid(real)) {
        snprintf(err, len, "invalid --impl-lib '%s': its path is not valid UTF-8, which the "
                 "results record (valid: a path of UTF-8 text)", shown);
        return -1;
    }
    /* dlopen of a FIFO waits for a writer for ever, and of a device reads it: only a regular
     * file is opened (without blocking: O_NONBLOCK, so a FIFO is seen, not waited on). */
    int fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const char *what = fd < 0 ? NULL : file_kind(st.st_mode);
        if (what)
            snprintf(err, len, "invalid --impl-lib '%s': %s, not a regular file (valid: a path "
                     "to a shared object built against include/corobench/runtime.h)", shown, what);
        else
            snprintf(err, len, "cannot load --impl-lib '%s': %m (valid: a path to a shared "
                     "object built against include/corobench/runtime.h)", shown);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* What the file is, before dlopen runs any of its code: a cell's process refuses a file
     * that is no longer what the run loaded (replaced during the run, it was loaded by the
     * later cells: one cell mixed two binaries, or its name was gone). */
    char id[128];
    int rid = identity_of(fd, &st, id, sizeof id);
    close(fd);
    if (rid != 0) {
        snprintf(err, len, "cannot load --impl-lib '%s': %m (valid: a path to a shared object "
                 "built against include/corobench/runtime.h)", shown);
        return -1;
    }
    if (want && strcmp(want, id)) {
        snprintf(err, len, "invalid --impl-lib '%s': it changed since the run started: it was %s, "
                 "it is %s (valid: the shared object the run loaded; rerun to measure the new "
                 "one)", shown, want, id);
        return -1;
    }
    for (size_t i = 0; i < cb_nimpls; i++)
        if (cb_impl_plugin_path(&cb_impls[i]) && !strcmp(cb_impl_plugin_path(&cb_impls[i]), real))
            return 0;
    if (probe(shown, real, err, len) != 0)
        return -1;
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *dl = dlerror(); /* names the path as it is: quoted, one line */
        snprintf(err, len, "cannot load --impl-lib '%s': %s (valid: a shared object built "
                 "with -fPIC -shared)", shown, cb_quote(dl ? dl : "unknown error"));
        return -1;
    }
    const cb_plugin *(*entry)(void) = (const cb_plugin *(*)(void))dlsym(h, "corobench_plugin");
    const cb_plugin *pl = entry ? entry() : NULL;
    const char *bad = NULL;
    if (!entry)
        bad = "it has no symbol corobench_plugin";
    else if (!pl)
        bad = "its corobench_plugin() returned NULL";
    else if (pl->abi != CB_PLUGIN_ABI)
        bad = "its abi is not CB_PLUGIN_ABI (1): built against another version of the header";
    else if (bad_name(pl->name))
        bad = "its name is not 1 to 32 of a-z, 0-9, '_', '-' starting with a letter";
    else if (cb_impl_find(pl->name))
        bad = "its name is an implementation's already (a built-in or a plugin loaded before)";
    else if (!strcmp(pl->name, "all"))
        bad = "its name is 'all', which --impl reads as every implementation";
    else if (!pl->family || strcmp(pl->family, "stackful"))
        bad = "its family is not \"stackful\" (corobench's bodies for a plugin are its "
              "stackful ones)";
    else if (!pl->create || !pl->resume || !pl->yield || !pl->done || !pl->destroy)
        bad = "one of create, resume, yield, done, destroy is NULL";
    else if (pl->owns_stacks != 0 && pl->owns_stacks != 1)
        bad = "its owns_stacks is neither 0 nor 1";
    if (bad) {
        snprintf(err, len, "invalid --impl-lib '%s': %s (valid: see include/corobench/runtime.h "
                 "and docs/plugin.md)", shown, bad);
        dlclose(h);
        return -1;
    }
    /* The path still the file hashed above: replaced between the hash and dlopen, the library
     * loaded may be another. */
    struct stat now;
    if (stat(real, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino ||
        now.st_size != st.st_size || now.st_mtim.tv_sec != st.st_mtim.tv_sec ||
        now.st_mtim.tv_nsec != st.st_mtim.tv_nsec) {
        snprintf(err, len, "invalid --impl-lib '%s': it was replaced while it was loaded (valid: "
                 "a shared object left as it is during the run)", shown);
        dlclose(h);
        return -1;
    }
    /* Kept for the life of the process, as the plugin's code is. */
    cb_co_backend *be = calloc(1, sizeof *be);
    char *desc = malloc(strlen(real) + strlen(pl->description ? pl->description : "") + 32);
    char *where = strdup(real), *ident = strdup(id);
    if (!be || !desc || !where || !ident) {
        snprintf(err, len, "cannot load --impl-lib '%s': out of memory", shown);
        return -1;
    }
    sprintf(desc, "plugin %s: %s", real, pl->description ? pl->description : "");
    be->name = pl->name;
    be->description = desc;
    be->ctx_size = sizeof(void *);
    be->plugin = pl;
    be->plugin_path = where;
    be->plugin_identity = ident;
    cb_impl im = {
        .name = pl->name,
        .body = CB_BODY_STACKFUL,
        .family = "stackful",
        .description = desc,
        .backend = be,
        .params = cb_stackful_params,
        .kind = CB_KIND_PLUGIN,
        .lacks = {[CB_CAP_TRANSFER] = NO_TRANSFER,
                  [CB_CAP_PLACED_FRAMES] = pl->owns_stacks
                                               ? "this plugin allocates its own stacks"
                                               : NULL},
    };
    if (cb_impl_add(&im) != 0) {
        snprintf(err, len, "cannot load --impl-lib '%s': %d implementations are the most one "
                 "run takes", path, CB_IMPLS_MAX);
        return -1;
    }
    return 0;
}

void cb_plugin_list_item(char *dst, const char *path)
{
    for (; *path; path++) {
        if (*path == ',')
            *dst++ = '\\';
        *dst++ = *path;
    }
    *dst = '\0';
}

int cb_plugin_load_list(const char *paths, char *err, size_t errlen)
{
    /* Commas separate the paths; "\\," is a comma in one. An empty path (",", "", "a,", ",a",
     * "a,,b") is refused, not read as none. */
    char *one = malloc(strlen(paths) + 1);
    if (!one) {
        snprintf(err, errlen, "cannot load --impl-lib: out of memory");
        return -1;
    }
    int rc = 0;
    const char *p = paths;
    do {
        size_t n = 0;
        for (; *p && *p != ','; p++)
            one[n++] = p[0] == '\\' && p[1] == ',' ? *++p : *p;
        one[n] = '\0';
        if (!n) {
            snprintf(err, errlen, "invalid value '%s' for --impl-lib: an empty path (valid: "
                     "PATH[,PATH...], '\\,' for a comma in a path; or --impl-lib once per "
                     "library)", cb_quote(paths));
            rc = -1;
        }
    } while (!rc && *p++ == ',');
    /* loaded once every path is known to be there */
    for (p = paths; !rc && *p; p += *p == ',') {
        size_t n = 0;
        for (; *p && *p != ','; p++)
            one[n++] = p[0] == '\\' && p[1] == ',' ? *++p : *p;
        one[n] = '\0';
        rc = load_one(one, NULL, err, errlen);
    }
    free(one);
    return rc;
}

int cb_plugin_load_same(const char *path, const char *identity, char *err, size_t errlen)
{
    return load_one(path, identity, err, errlen);
}
