/* Start, wait with a deadline, reap; and wait-status wording (proc.h). */
#include "proc.h"
#include "harness/common/alloc.h"
#include "harness/common/untrusted.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void append(char **buf, size_t *len, const char *data, size_t n)
{
    char *b = cb_xrealloc(*buf, *len + n + 1);
    memcpy(b + *len, data, n);
    *len += n;
    b[*len] = '\0';
    *buf = b;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The child being waited for, when it has its own group: what an interrupt must kill. Process
 * state, not run state: a signal handler can reach nothing else. */
static volatile sig_atomic_t waited_group, interrupted;
static const volatile char *remove_on_second; /* a half-written output, "" when none */

static void on_interrupt(int sig)
{
    if (waited_group > 0)
        kill(-(pid_t)waited_group, SIGKILL);
    if (interrupted) { /* the second: at once, leaving nothing behind */
        if (remove_on_second && remove_on_second[0])
            unlink((const char *)remove_on_second);
        _exit(128 + sig);
    }
    interrupted = sig;
}

void cb_proc_stop_on_interrupt(const volatile char *remove_path)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    remove_on_second = remove_path;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int cb_proc_interrupted(void) { return interrupted; }

static void kill_then_die(int sig)
{
    if (waited_group > 0)
        kill(-(pid_t)waited_group, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

void cb_proc_kill_on_interrupt(void)
{
    signal(SIGINT, kill_then_die);
    signal(SIGTERM, kill_then_die);
    signal(SIGHUP, kill_then_die);
}

int cb_proc_start(cb_proc *p, const cb_proc_opts *o, cb_proc_body body, void *arg, char *err,
                  size_t errlen)
{
    int op[2], ep[2];
    if (pipe2(op, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe2: %s", strerror(errno));
        return -1;
    }
    if (pipe2(ep, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe2: %s", strerror(errno));
        close(op[0]), close(op[1]);
        return -1;
    }
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(op[0]), close(op[1]), close(ep[0]), close(ep[1]);
        return -1;
    }
    if (pid == 0) {
        /* No orphans: the child dies with its parent. A parent that died before prctl took
         * effect would go unnoticed, hence the check after it. */
        if (o->die_with_parent &&
            (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent))
            _exit(CB_CHILD_ORPHANED);
        /* The child's own deadline, for a parent that lives but cannot kill it in time
         * (stopped, say): SIGALRM ends it. Kept across exec. */
        if (o->backstop_s > 0) {
            struct itimerval it = {{0, 0},
                                   {(time_t)o->backstop_s,
                                    (suseconds_t)((o->backstop_s - (double)(time_t)o->backstop_s) *
                                                  1e6)}};
            setitimer(ITIMER_REAL, &it, NULL);
        }
        if (o->own_group)
            setpgid(0, 0);
        if (dup2(op[1], 1) < 0 || dup2(ep[1], 2) < 0)
            _exit(CB_CHILD_SETUP_FAILED);
        if (o->stdin_null) {
            int devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0)
                dup2(devnull, 0);
        }
        if (o->pin_cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(o->pin_cpu, &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0) {
                fprintf(stderr, "sched_setaffinity(cpu %d): %s\n", o->pin_cpu, strerror(errno));
                _exit(CB_CHILD_SETUP_FAILED);
            }
        }
        /* The parent ignores SIGPIPE and SIGXFSZ (main.c); a child gets the defaults
         * back, so what it execs (a cell, a runtime, gnuplot) starts as any program does. */
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        int rc = body(arg);
        fflush(NULL);
        _exit(rc);
    }
    close(op[1]);
    close(ep[1]);
    *p = (cb_proc){pid, op[0], ep[0], o->own_group, o->max_out};
    return 0;
}

int cb_proc_exec(void *argv)
{
    char *const *a = argv;
    fflush(NULL);
    execv(a[0], a);
    fprintf(stderr, "exec %s: %s\n", a[0], strerror(errno));
    return CB_CHILD_EXEC_FAILED;
}

/* Reads what fd holds now, without waiting for more. */
static void drain(int fd, char **buf, size_t *len)
{
    char tmp[8192];
    ssize_t k;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    while ((k = read(fd, tmp, sizeof tmp)) > 0 || (k < 0 && errno == EINTR))
        if (k > 0)
            append(buf, len, tmp, (size_t)k);
}

void cb_proc_wait(cb_proc *p, double timeout_s, cb_proc_result *r)
{
    pid_t pid = p->pid;
    int out_fd = p->out_fd, err_fd = p->err_fd, exited = 0;
    if (p->own_group)
        waited_group = pid;
    memset(r, 0, sizeof *r);
    append(&r->out, &r->out_len, "", 0);
    append(&r->err, &r->err_len, "", 0);
    /* The child's exit wakes the poll too (a pidfd; without one, a look every 100 ms): a child
     * of its that holds the pipes open (a daemon, `sleep 100 &`) is not waited for. */
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    struct pollfd pf[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
    while (pf[0].fd >= 0 || pf[1].fd >= 0) {
        int wait_ms = pidfd >= 0 ? -1 : 100;
        if (deadline > 0) {
            double left = deadline - now_s();
            if (left <= 0) {
                r->timed_out = 1;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                break;
            }
            if (wait_ms < 0 || left * 1000 + 1 < wait_ms)
                wait_ms = (int)(left * 1000) + 1;
        }
        int n = poll(pf, 3, wait_ms);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2 && n > 0; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            char tmp[8192];
            ssize_t k = read(pf[i].fd, tmp, sizeof tmp);
            if (k > 0) {
                if (i == 0)
                    append(&r->out, &r->out_len, tmp, (size_t)k);
                else
                    append(&r->err, &r->err_len, tmp, (size_t)k);
            } else if (k == 0 || errno != EINTR) {
                close(pf[i].fd);
                pf[i].fd = -1;
            }
        }
        if (p->max_out && (r->out_len > p->max_out || r->err_len > p->max_out)) {
            r->too_long = 1; /* a program writing without end (`yes`): ended, not stored */
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            break;
        }
        if ((pidfd < 0 || pf[2].revents) && waitpid(pid, &r->wait_status, WNOHANG) == pid) {
            /* It has exited: what its pipes hold now is all it wrote; what is left in its
             * group (a child that kept the pipes) goes with it. */
            exited = 1;
            for (int i = 0; i < 2; i++)
                if (pf[i].fd >= 0)
                    drain(pf[i].fd, i ? &r->err : &r->out, i ? &r->err_len : &r->out_len);
            if (p->own_group)
                kill(-pid, SIGKILL);
            break;
        }
    }
    for (int i = 0; i < 2; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);
    if (pidfd >= 0)
        close(pidfd);
    while (!exited && waitpid(pid, &r->wait_status, 0) < 0 && errno == EINTR)
        ;
    waited_group = 0;
}

void cb_proc_result_free(cb_proc_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int cb_proc_exit_code(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

void cb_proc_describe(int st, char *buf, size_t len)
{
    if (WIFEXITED(st))
        snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(buf, len, "wait status 0x%x", st);
}

void cb_proc_last_line(const char *s, char *buf, size_t len)
{
    const char *end = s + strlen(s), *start;
    /* A line of punctuation alone says nothing: V8 ends its fatal errors with "#". */
    for (;;) {
        while (end > s && (end[-1] == '\n' || end[-1] == ' '))
            end--;
        start = end;
        while (start > s && start[-1] != '\n')
            start--;
        int says = 0;
        for (const char *p = start; p < end && !says; p++)
            says = (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z');
        if (says || start == s)
            break;
        end = start;
    }
    cb_text_clean(buf, len, start, (size_t)(end - start), 1);
}

/* The line of s that holds needle, copied into buf; 0 if none. */
static int line_with(const char *s, const char *needle, char *buf, size_t len)
{
    const char *at = strstr(s, needle);
    if (!at)
        return 0;
    while (at > s && at[-1] != '\n')
        at--;
    cb_text_clean(buf, len, at, strcspn(at, "\n"), 1);
    return 1;
}

/* The first line of s that starts with a word ending in "Error: " (an uncaught JavaScript
 * error: "TypeError: ...", "RangeError: ..."), or with "SIG" and capitals then ": " (Go's dump on
 * a fatal signal: "SIGABRT: abort"), or with prefix when prefix is not NULL. */
static const char *line_starting(const char *s, const char *prefix)
{
    for (const char *l = s; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        if (prefix) {
            if (!strncmp(l, prefix, strlen(prefix)))
                return l;
            continue;
        }
        size_t w = strspn(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
        if ((w > 5 && !strncmp(l + w - 5, "Error: ", 7)) ||
            (w > 3 && !strncmp(l, "SIG", 3) && strspn(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == w &&
             !strncmp(l + w, ": ", 2)))
            return l;
    }
    return NULL;
}

/* Appends the line at l (if any) to buf, after sep. */
static void append_line(char *buf, size_t len, const char *sep, const char *l)
{
    size_t used = strlen(buf);
    if (!l || used + strlen(sep) + 1 >= len)
        return;
    snprintf(buf + used, len - used, "%s", sep);
    used = strlen(buf);
    cb_text_clean(buf + used, len - used, l, strcspn(l, "\n"), 1);
}

/* The line of a language runtime's stderr that names how it died, if it printed one: Go's
 * unrecovered panic (with its "[signal ...]" line), its fatal error (with the stack limit it
 * ran into), its dump on a fatal signal; Mono's line for an unhandled exception (the exception
 * and its message, after its stack trace); an uncaught JavaScript error. */
static int runtime_line(const char *s, char *buf, size_t len)
{
    const char *l;
    buf[0] = '\0';
    if ((l = line_starting(s, "panic: "))) {
        append_line(buf, len, "", l);
        const char *next = l + strcspn(l, "\n");
        if (*next && !strncmp(next + 1, "[signal ", 8))
            append_line(buf, len, " ", next + 1);
    } else if ((l = line_starting(s, "fatal error: "))) {
        append_line(buf, len, "", l);
        const char *lim = strstr(s, "goroutine stack exceeds ");
        append_line(buf, len, ": ", lim);
    } else if ((l = line_starting(s, "[ERROR] FATAL UNHANDLED EXCEPTION: "))) {
        append_line(buf, len, "", l);
    } else if ((l = line_starting(s, NULL))) {
        append_line(buf, len, "", l);
    }
    return buf[0] != '\0';
}

void cb_proc_failure(const cb_proc_result *r, char *buf, size_t len)
{
    char line[512], st[128];
    /* In a sanitizer build the report's first line names the fault; its last says ABORTING. */
    if (!line_with(r->err, "ERROR: AddressSanitizer:", line, sizeof line) &&
        !runtime_line(r->err, line, sizeof line) &&
        !line_with(r->err, "runtime error:", line, sizeof line))
        cb_proc_last_line(r->err, line, sizeof line);
    cb_proc_describe(r->wait_status, st, sizeof st);
    /* the status is kept whole: the line is cut (on a character) to leave it room */
    size_t room = len > strlen(st) + 4 ? len - strlen(st) - 3 : 4;
    if (line[0] && room < sizeof line && strlen(line) >= room) {
        char cut[sizeof line];
        cb_text_clean(cut, room, line, strlen(line), 1);
        memcpy(line, cut, sizeof line);
    }
    if (line[0])
        snprintf(buf, len, "%s [%s]", line, st);
    else
        snprintf(buf, len, "%s", st);
}

size_t cb_proc_children(pid_t parent, cb_proc_child *kids, size_t max)
{
    size_t k = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && k < max && (e = readdir(d))) {
        char path[300], buf[1024];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* after the name, which may hold spaces and parentheses: state, ppid, then 9 fields
         * before utime and stime (proc(5)) */
        const char *rp = strrchr(buf, ')');
        char state;
        long ppid, ut, st;
        if (rp && sscanf(rp + 1, " %c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &state,
                         &ppid, &ut, &st) == 4 &&
            ppid == (long)parent)
            kids[k++] = (cb_proc_child){(pid_t)atol(e->d_name), state, ut, st};
    }
    if (d)
        closedir(d);
    return k;
}
