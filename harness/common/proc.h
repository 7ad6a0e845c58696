/* The one process API (as libuv's test runner has): start a child in its own process group if
 * asked, pinned if asked, with stdout and stderr on pipes; wait for it under a timeout, killing
 * its group on expiry; reap it. The harness runs every cell through it (one child per cell and
 * per counting pass), the test runner every test and every spawned binary. Portable: no
 * third-party library, so the core test binary links it on every architecture. */
#ifndef CB_PROC_H
#define CB_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Exit statuses of a child that failed before or after its body ran. */
enum {
    CB_CHILD_SETUP_FAILED = 3, /* pinning or redirecting failed; the reason is on its stderr */
    CB_CHILD_WRITE_FAILED = 4, /* could not write its result to stdout */
    CB_CHILD_ORPHANED = 87,    /* die_with_parent: the parent was gone before the child began */
    CB_CHILD_EXEC_FAILED = 127 /* the program to exec could not be run */
};

typedef struct cb_proc_opts {
    int own_group;  /* its own process group: a timeout or an interrupt kills all of it */
    int pin_cpu;    /* -1: not pinned */
    int stdin_null; /* stdin from /dev/null */
    int die_with_parent; /* PR_SET_PDEATHSIG: killed (SIGKILL) when the parent dies */
    double backstop_s;   /* > 0: its own timer kills it (SIGALRM) after this many seconds */
    size_t max_out;      /* > 0: more than this many bytes on stdout or stderr kills it */
} cb_proc_opts;

typedef struct cb_proc {
    pid_t pid;
    int out_fd, err_fd; /* the parent's ends of the child's stdout and stderr */
    int own_group;
    size_t max_out;
} cb_proc;

typedef struct cb_proc_result {
    char *out, *err; /* NUL-terminated, malloc'd; free with cb_proc_result_free */
    size_t out_len, err_len;
    int wait_status; /* as from waitpid */
    int timed_out;
    int too_long; /* killed for writing more than max_out bytes */
} cb_proc_result;

/* What a child runs; its return value is the child's exit status (after stdio is flushed). */
typedef int (*cb_proc_body)(void *arg);

/* Forks a child that runs body(arg). 0, or -1 with the reason in err (pipe or fork failed). */
int cb_proc_start(cb_proc *p, const cb_proc_opts *o, cb_proc_body body, void *arg, char *err,
                  size_t errlen);
/* A body that execs argv (a NULL-terminated char *[], argv[0] a path); returns
 * CB_CHILD_EXEC_FAILED, with the reason on stderr, only when the exec failed. */
int cb_proc_exec(void *argv);
/* Reads the child's two pipes until they end or the child exits (then what they hold, and no
 * more: a child of its that keeps them open is not waited for, and is killed with its group
 * when it has one), then reaps it. timeout_s <= 0: no timeout; on expiry its process group and
 * the child are killed (timed_out set); likewise past max_out bytes (too_long set). */
void cb_proc_wait(cb_proc *p, double timeout_s, cb_proc_result *r);
void cb_proc_result_free(cb_proc_result *r);
/* After this, SIGINT, SIGTERM and SIGHUP kill the group of the child being waited for (one that
 * was started with own_group), then end this process by the same signal. */
void cb_proc_kill_on_interrupt(void);
/* After this, SIGINT, SIGTERM and SIGHUP kill the group of the child being waited for (one that
 * was started with own_group) and are remembered (cb_proc_interrupted), so the caller stops at
 * its next step and keeps what it has. A second one ends this process at once, with exit status
 * 128 + the signal, after removing the file named in remove_path (when it is not ""): a
 * half-written output. */
void cb_proc_stop_on_interrupt(const volatile char *remove_path);
/* The signal that interrupted, 0 if none. */
int cb_proc_interrupted(void);

/* Exit code, or 128 + signal number. */
int cb_proc_exit_code(int wait_status);
/* "exit status 3" or "killed by signal 11 (Segmentation fault)". */
void cb_proc_describe(int wait_status, char *buf, size_t len);
/* Why a child that did not exit 0 failed: the stderr line that names the fault (a sanitizer's
 * error line; a language runtime's death: Go's panic, fatal error or signal dump, an uncaught
 * JavaScript error), else its last stderr line (the overflow report, an abort message), and the
 * status: "coroutine stack overflow (...) [exit status 86]". */
void cb_proc_failure(const cb_proc_result *r, char *buf, size_t len);
/* The last line of s with a letter or digit in it (not "#" alone), copied into buf. */
void cb_proc_last_line(const char *s, char *buf, size_t len);

/* A child process as /proc/PID/stat shows it. */
typedef struct cb_proc_child {
    pid_t pid;
    char state;          /* 'R', 'S', 'Z' (a zombie not yet waited for)... */
    long utime, stime;   /* user and system CPU, in clock ticks */
} cb_proc_child;
/* The children of parent, zombies included, from a scan of /proc: up to max of them into kids;
 * their count. A process that ends during the scan may be missed. */
size_t cb_proc_children(pid_t parent, cb_proc_child *kids, size_t max);

#endif
