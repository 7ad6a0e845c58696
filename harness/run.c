/* Runs each cell in its own forked child (optionally pinned): a crash, an overflow report or a
 * hang marks that cell failed or timeout, with the reason, and the run goes on. The child sends
 * its measured fields back as one JSON object on a pipe; its stderr is kept for the error. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "proc.h"

/* The timed run's body: measure here, or exec the build of the cell's variant. */
static void time_body(const cb_cell *c, const cb_run_opts *o, int out_fd)
{
    cb_variant_exec_if_foreign(c, o, out_fd); /* a jmpret cell runs in bin/corobench-jmpret */
    json_t *res = cb_cell_measure(c, o);
    char *text = json_dumps(res, JSON_COMPACT);
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t k = write(out_fd, text + off, len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            _exit(4);
        off += (size_t)k;
    }
    _exit(0);
}

/* The running cell's child, which is in its own process group: an interrupted run takes it
 * down with it instead of leaving it running (the results are not written). */
static volatile sig_atomic_t running_child;

static void on_interrupt(int sig)
{
    if (running_child > 0)
        kill(-(pid_t)running_child, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

int cb_cell_child(const cb_cell *c, const cb_run_opts *o, cb_cell_body body, double timeout_s,
                  cb_proc_result *r, char *err, size_t errlen)
{
    int op[2], ep[2];
    if (pipe2(op, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe2: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(op[0]), close(op[1]), close(ep[0]), close(ep[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        close(op[0]);
        close(ep[0]);
        dup2(ep[1], 2);
        if (o->pin_cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(o->pin_cpu, &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0) {
                fprintf(stderr, "sched_setaffinity(cpu %d): %s\n", o->pin_cpu, strerror(errno));
                _exit(3);
            }
        }
        body(c, o, op[1]);
        _exit(5); /* bodies do not return */
    }
    close(op[1]);
    close(ep[1]);
    running_child = pid;
    cb_proc_collect(pid, op[0], ep[0], timeout_s, r);
    running_child = 0;
    return 0;
}

static void set_outcome(json_t *cell, const char *status, const char *error)
{
    json_object_set_new(cell, "status", json_string(status));
    json_object_set_new(cell, "error", error ? json_string(error) : json_null());
}

/* Runs one cell into its header object: the measured fields, or the failure. */
static void run_one(const cb_cell *c, const cb_run_opts *o, json_t *cell)
{
    const char *why = cb_impl_unavailable(c->impl);
    char buf[1024];
    if (why) {
        snprintf(buf, sizeof buf, "unsupported: %s", why);
        set_outcome(cell, "unsupported", buf);
        return;
    }
    cb_proc_result r;
    if (cb_cell_child(c, o, time_body, o->timeout_s, &r, buf, sizeof buf) != 0) {
        set_outcome(cell, "failed", buf);
        return;
    }
    if (r.timed_out) {
        snprintf(buf, sizeof buf, "timed out after %g s", o->timeout_s);
        set_outcome(cell, "timeout", buf);
    } else if (cb_proc_exit_code(r.wait_status) == 0 && !r.out_len) {
        set_outcome(cell, "failed",
                    "the cell's process exited with status 0 without sending its result");
    } else if (cb_proc_exit_code(r.wait_status) == 0) {
        json_error_t jerr;
        json_t *m = json_loads(r.out, 0, &jerr);
        if (m) {
            json_object_update(cell, m);
            json_decref(m);
            if (o->rsb_sim) /* the counting pass, in the instrumented build (docs/rsb.md) */
                cb_variant_rsb_pass(c, o, cell);
        } else {
            snprintf(buf, sizeof buf, "unreadable result from the cell's process: %s", jerr.text);
            set_outcome(cell, "failed", buf);
        }
    } else {
        cb_proc_failure(&r, buf, sizeof buf);
        set_outcome(cell, "failed", buf);
    }
    cb_proc_result_free(&r);
}

size_t cb_run_cells(const cb_run_opts *o, const cb_cell *cells, size_t ncells, json_t *cells_out)
{
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    signal(SIGHUP, on_interrupt);
    size_t bad = 0;
    int progress = isatty(2);
    for (size_t i = 0; i < ncells; i++) {
        json_t *cell = cb_cell_header(&cells[i]);
        if (progress) {
            char p[512];
            cb_cell_params_text(cell, 1, p, sizeof p);
            fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s", i + 1, ncells, cells[i].wl->name,
                    cells[i].impl->name, p);
            fflush(stderr);
        }
        run_one(&cells[i], o, cell);
        const char *st = json_string_value(json_object_get(cell, "status"));
        bad += st && (!strcmp(st, "failed") || !strcmp(st, "timeout"));
        json_array_append_new(cells_out, cell);
    }
    if (progress)
        fprintf(stderr, "\r\033[K");
    return bad;
}
