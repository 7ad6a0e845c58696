/* Output files that never clobber: checked before any work, written whole, put in place
 * atomically (output.h). */
#include "harness/common/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "params/params.h"

volatile char cb_out_tmp_now[4096];

static int refuse(const cb_out *o, const char *fmt, const char *a, const char *why)
{
    fprintf(stderr, "corobench: %s output: ", o->what);
    fprintf(stderr, fmt, cb_quote(a), why);
    fputc('\n', stderr);
    return 2;
}

static void set_tmp_now(const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof cb_out_tmp_now; i++)
        cb_out_tmp_now[i] = s[i];
    cb_out_tmp_now[i] = '\0';
}

/* dir of path ("." when it has no slash, "/" for "/x"). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* The temporary file beside path: "<dir>/.<name>.tmp.<pid>". */
static void tmp_of(const char *path, char *tmp, size_t len)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    snprintf(tmp, len, "%s/.%s.tmp.%ld", dir, name, (long)getpid());
}

int cb_mkdirs(const char *dir, int max_new, cb_made_dirs *made)
{
    char d[4096];
    struct stat st;
    if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* The existing ancestors are skipped from the top: how many levels are new is known before
     * any is made, so a refusal makes nothing. */
    size_t len = strlen(d);
    while (len > 1 && d[len - 1] == '/')
        d[--len] = '\0';
    int fresh = 0;
    char probe[4096];
    snprintf(probe, sizeof probe, "%s", d);
    for (;;) {
        if (stat(probe, &st) == 0)
            break;
        if (errno != ENOENT)
            return -1;
        /* a symbolic link to nothing is no directory to make */
        if (lstat(probe, &st) == 0)
            return errno = ENOENT, -1;
        fresh++;
        char *slash = strrchr(probe, '/');
        if (!slash || slash == probe)
            break; /* a relative first component, or "/x" */
        *slash = '\0';
    }
    if (fresh > max_new)
        return errno = ENOENT, -1;
    for (char *p = d + 1;; p++)
        if (*p == '/' || !*p) {
            char c = *p;
            *p = '\0';
            if (mkdir(d, 0777) == 0) {
                if (made && made->n < (int)(sizeof made->path / sizeof made->path[0]))
                    snprintf(made->path[made->n++], sizeof made->path[0], "%s", d);
            } else if (errno != EEXIST) {
                return -1;
            }
            if (!(*p = c))
                break;
        }
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
        /* EEXIST also for a symbolic link to nothing or a file in the way */
        errno = lstat(d, &st) == 0 && S_ISLNK(st.st_mode) ? ENOENT : ENOTDIR;
        return -1;
    }
    return 0;
}

void cb_rmdirs_made(cb_made_dirs *made)
{
    while (made->n > 0)
        rmdir(made->path[--made->n]);
}

/* The directory must exist or be one new level below an existing directory, and take a file.
 * dry (a dry run): the same checks, but a directory made to try it is removed again, unsaid. */
static int check_dir(const cb_out *o, int dry)
{
    char dir[4096], parent[4096], tmp[4200];
    struct stat st;
    cb_made_dirs made = {.n = 0};
    dir_of(o->path, dir, sizeof dir);
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return refuse(o, "cannot use directory '%s': %s (valid: a writable directory)", dir,
                          strerror(errno));
        dir_of(dir, parent, sizeof parent);
        if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
            return refuse(o,
                          "directory '%s' does not exist, nor does its parent (valid: an existing "
                          "directory or one new level below one%s)",
                          dir, "");
        if (cb_mkdirs(dir, 1, &made) == 0) {
            if (made.n && !dry)
                fprintf(stderr, "corobench: created directory '%s'\n", cb_quote(dir));
        } else if (errno == ENOENT && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
            return refuse(o, "directory '%s' is a symbolic link to nothing%s (valid: a writable "
                             "directory)", dir, "");
        } else {
            return refuse(o, "cannot create directory '%s': %s (valid: a writable directory)", dir,
                          strerror(errno));
        }
    } else if (!S_ISDIR(st.st_mode)) {
        return refuse(o, "'%s' is not a directory%s (valid: a path in a directory)", dir, "");
    }
    tmp_of(o->path, tmp, sizeof tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    if (dry)
        cb_rmdirs_made(&made);
    if (fd < 0)
        return refuse(o, "cannot write in directory '%s': %s (valid: a writable directory)", dir,
                      strerror(e));
    return 0;
}

/* What the path may be: --force is named only where the command takes it for this file. */
static const char *valid_file(const cb_out *o)
{
    return o->force == CB_OUT_REPLACE ? "a new path, or a regular file, which is replaced"
                                      : "a new path, or a regular file with --force";
}

static int prepare(cb_out *o, const char *what, const char *path, int force, int dry)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    o->force = force;
    if (!path)
        return 0;
    if (!*path)
        return refuse(o, "empty path%s%s (valid: a file path)", "", "");
    if (strlen(path) >= CB_OUT_PATH_MAX)
        return refuse(o, "path '%s' is too long%s (valid: at most 3795 bytes)", path, "");
    /* No command takes -o - for standard output: it made a file named '-'. */
    if (!strcmp(path, "-"))
        return refuse(o, "'%s' would be a file named '-', not standard output%s (valid: a file "
                         "path; ./- for a file of that name)", path, "");
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode))
            return refuse(o, "'%s' is a symbolic link (valid: %s)", path, valid_file(o));
        if (S_ISDIR(st.st_mode))
            return refuse(o, "'%s' is a directory (valid: %s)", path, valid_file(o));
        if (!S_ISREG(st.st_mode))
            return refuse(o, "'%s' is a device or special file (valid: %s)", path,
                          valid_file(o));
        if (!force)
            return refuse(o, "'%s' exists%s (valid: a new path, or --force to replace it)", path,
                          "");
        o->replace = 1;
        o->mode = st.st_mode & 07777;
        o->uid = st.st_uid;
        o->gid = st.st_gid;
    } else if (errno != ENOENT && errno != ENOTDIR) { /* ENOTDIR: check_dir names it */
        char why[300];
        snprintf(why, sizeof why, "%s (valid: %s)", strerror(errno), valid_file(o));
        return refuse(o, "cannot use '%s': %s", path, why);
    }
    return check_dir(o, dry);
}

int cb_out_prepare(cb_out *o, const char *what, const char *path, int force)
{
    return prepare(o, what, path, force, 0);
}

int cb_out_check(const char *what, const char *path, int force)
{
    cb_out o;
    return prepare(&o, what, path, force, 1);
}

static int prepare_default(cb_out *o, const char *what, const char *dir, int dry)
{
    char host[256] = "unknown", stamp[64];
    struct timeval tv;
    struct tm tm;
    gethostname(host, sizeof host - 1);
    for (char *p = host; *p; p++)
        if (*p == '/')
            *p = '_';
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
    snprintf(stamp + n, sizeof stamp - n, ".%06ldZ", (long)tv.tv_usec);
    memset(o, 0, sizeof *o);
    o->what = what;
    o->unique = 1;
    snprintf(o->path, sizeof o->path, "%s/%s-%s.json", dir, host, stamp);
    return check_dir(o, dry);
}

int cb_out_prepare_default(cb_out *o, const char *what, const char *dir)
{
    return prepare_default(o, what, dir, 0);
}

int cb_out_check_default(const char *what, const char *dir)
{
    cb_out o;
    return prepare_default(&o, what, dir, 1);
}

int cb_out_prepare_beside(cb_out *o, const char *what, const char *path)
{
    memset(o, 0, sizeof *o);
    o->what = what;
    o->unique = 1;
    snprintf(o->path, sizeof o->path, "%s", path);
    return 0;
}

FILE *cb_out_stream(cb_out *o)
{
    if (!o->mem && !(o->mem = open_memstream(&o->buf, &o->len)))
        abort();
    return o->mem;
}

static void out_free(cb_out *o)
{
    if (o->mem)
        fclose(o->mem);
    free(o->buf);
    o->mem = NULL;
    o->buf = NULL;
    o->len = 0;
}

void cb_out_discard(cb_out *o) { out_free(o); }

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Links tmp at the first free name of path, path-2, path-3, ... (before its extension). */
static int link_unique(const char *tmp, char *path, size_t len)
{
    char base[3800], *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    const char *ext = dot && (!slash || dot > slash) ? dot : "";
    snprintf(base, sizeof base, "%.*s", (int)(strlen(path) - strlen(ext)), path);
    char ext_copy[64];
    snprintf(ext_copy, sizeof ext_copy, "%s", ext);
    for (unsigned n = 1; n < 100000; n++) {
        if (n > 1)
            snprintf(path, len, "%s-%u%s", base, n, ext_copy);
        if (link(tmp, path) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* Puts tmp at a new path without ever replacing what is there. */
static int link_new(const char *tmp, const char *path)
{
    if (link(tmp, path) == 0)
        return 0;
    if (errno == EEXIST)
        return -1;
    /* A file system without hard links: claim the name, then move onto the claim. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    close(fd);
    return rename(tmp, path);
}

int cb_out_commit(cb_out *o)
{
    const char *data = "";
    size_t n = 0;
    if (o->mem) {
        if (fflush(o->mem) != 0)
            abort();
        data = o->buf;
        n = o->len;
    }
    if (!o->path[0]) {
        int bad = fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0;
        int e = errno;
        out_free(o);
        if (bad) {
            fprintf(stderr, "corobench: cannot write the %s to standard output: %s\n", o->what,
                    strerror(e));
            return 1;
        }
        return 0;
    }
    char tmp[4200];
    tmp_of(o->path, tmp, sizeof tmp);
    set_tmp_now(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, o->replace ? 0600 : 0666);
    int rc = fd < 0 ? -1 : 0;
    if (rc == 0 && o->replace) {
        if (fchown(fd, o->uid, o->gid) != 0) {
            /* not the owner and not root: the file becomes ours, as any new file would */
        }
        rc = fchmod(fd, o->mode);
    }
    if (rc == 0)
        rc = write_all(fd, data, n);
    if (rc == 0)
        rc = fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? -1 : 0;
    if (fd >= 0 && close(fd) != 0)
        rc = -1;
    if (rc == 0) {
        struct stat st;
        if (o->replace) {
            if (lstat(o->path, &st) == 0 && !S_ISREG(st.st_mode))
                errno = EEXIST, rc = -1;
            else
                rc = rename(tmp, o->path);
        } else if (o->unique) {
            rc = link_unique(tmp, o->path, sizeof o->path);
        } else {
            rc = link_new(tmp, o->path);
        }
    }
    int e = errno;
    if (fd >= 0)
        unlink(tmp); /* after a link, the name at path holds the data */
    set_tmp_now("");
    out_free(o);
    if (rc != 0) {
        o->raced = e == EEXIST;
        if (e == EEXIST)
            fprintf(stderr, "corobench: cannot write the %s to '%s': it appeared while corobench "
                            "was working (valid: %s)\n",
                    o->what, cb_quote(o->path),
                    o->force == CB_OUT_REPLACE ? valid_file(o) : "a new path, or --force");
        else
            fprintf(stderr, "corobench: cannot write the %s to '%s': %s\n", o->what,
                    cb_quote(o->path), strerror(e));
        return 1;
    }
    return 0;
}
