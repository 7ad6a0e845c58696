/* Child-process plumbing shared by the harness (one child per cell) and the test runner (one
 * child per test): read a child's two pipes to EOF under a timeout, kill it on expiry, reap it. */
#ifndef CB_PROC_H
#define CB_PROC_H

#include <stddef.h>
#include <sys/types.h>

typedef struct cb_proc_result {
    char *out, *err; /* NUL-terminated, malloc'd; free with cb_proc_result_free */
    size_t out_len, err_len;
    int wait_status; /* as from waitpid */
    int timed_out;
} cb_proc_result;

/* timeout_s <= 0: no timeout. On expiry the child's process group and the child are killed. */
void cb_proc_collect(pid_t pid, int out_fd, int err_fd, double timeout_s, cb_proc_result *r);
void cb_proc_result_free(cb_proc_result *r);
/* Exit code, or 128 + signal number. */
int cb_proc_exit_code(int wait_status);
/* "exit status 3" or "killed by signal 11 (Segmentation fault)". */
void cb_proc_describe(int wait_status, char *buf, size_t len);
/* Why a child that did not exit 0 failed: its last stderr line (the overflow report, an abort
 * message) and the status, "coroutine stack overflow (...) [exit status 86]". */
void cb_proc_failure(const cb_proc_result *r, char *buf, size_t len);
/* The last non-empty line of s, copied into buf. */
void cb_proc_last_line(const char *s, char *buf, size_t len);

#endif
