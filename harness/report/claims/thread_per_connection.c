/* Claim 25 of the report (thread-per-connection, docs/report.md): an OS thread per connection
 * costs more than a coroutine per connection, in memory per connection and in time per message
 * (the asker's answer: threads are expensive; one epoll thread serves tens of thousands of
 * connections). io (unix transport, style=explicit) where the thread implementation runs each
 * connection's client and server as OS threads (impls/backend_thread.c: each coroutine is a
 * thread on a stack of its own from the same allocator, touched as it runs, and every switch a
 * futex hand-off that the kernel schedules: a thread per connection, as a blocking server has)
 * against asm's and sm's coroutines on the event loop's one thread, at the largest conns that all
 * three ran at one point in one file. Memory per connection: resident bytes per coroutine at io's
 * rest point (memory.rss_bytes_per_coro, claim 24's figure, in each process; every connection
 * open and both its coroutines suspended on their sockets) times the two coroutines of a
 * connection; time per message: the io cell's ns per message. Four parts, thread over asm and
 * over sm in each measure: memory supports at M.mem or more in every pairing of the processes
 * and contradicts at M.at or less in every one (at or below the coroutine's); time supports when
 * the ratio's interval lies at M.time or above and contradicts when it lies at M.at or below.
 * The claim: supported when all four parts are, contradicted when one is, otherwise
 * inconclusive. Where thread stops is said from its io cells that did not run (their error names
 * the limit: threads, vm.max_map_count, memory), else from the file's descriptor limit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/results/cell.h"
#include "harness/results/fields.h"
#include "query.h"

/* Its margins (docs/report.md, claim 25). */
static const struct {
    double mem, time, at;
} M = {.mem = 2.0, .time = 1.10, .at = 1.05};

/* Coroutines per connection in io: a client and a server. */
enum { PER_CONN = 2 };

/* An ok, timed io cell (explicit, unix, own parameters at their defaults) with resident bytes
 * per coroutine; its range in *r. */
static int usable(json_t *x, const char *impl, iv *r)
{
    if (!x || !cq_matches(x, cb_wl_io.name, impl, "plain", IO_EXPLICIT) || !cq_at_defaults(x) ||
        !isfinite(cq_median(x)))
        return 0;
    cq_mem_range(x, "rss_bytes_per_coro", r);
    return r->ok;
}

/* An io cell of impl that did not run, at the explicit unix point (either unnamed: a file from
 * before the parameter). */
static int stopped(json_t *x, const char *impl)
{
    const char *w = cb_str(x, "workload"), *im = cb_str(x, "impl"), *st = cb_str(x, "status"),
               *v = cb_str(x, "variant");
    json_t *p = json_object_get(x, "params");
    const char *tr = cb_str(p, "transport"), *sy = cb_str(p, "style");
    return w && im && st && !strcmp(w, cb_wl_io.name) && !strcmp(im, impl) && strcmp(st, "ok") &&
           (!v || !strcmp(v, "plain")) && (!tr || !strcmp(tr, "unix")) &&
           (!sy || !strcmp(sy, "explicit"));
}

/* The descriptor limit the file records (machine.limits.nofile's hard one), or -1. */
static long nofile_hard(const ctx *c)
{
    json_t *h = json_object_get(json_object_get(c->limits, "nofile"), "hard");
    return json_is_integer(h) ? (long)json_integer_value(h) : -1;
}

/* Where thread stops: its io cells beyond conns N that did not run, each with its error. */
static void where_it_stops(const ctx *c, claim *o, const char *thread, long N)
{
    json_t *x;
    size_t i;
    int any = 0;
    json_array_foreach(c->all, i, x)
    {
        if (!stopped(x, thread))
            continue;
        double n = cq_num(x, "params.conns");
        if (!(n > (double)N))
            continue;
        const char *err = cb_str(x, "error");
        cb_append(o->text, sizeof o->text, "%s conns=%.0f: %s (%s)",
                  any ? ";" : " Where thread stops:", n, cb_str(x, "status"),
                  err ? err : "no error recorded");
        any = 1;
    }
    if (any || !N) {
        cb_append(o->text, sizeof o->text, "%s", any ? "." : "");
        return;
    }
    long hard = nofile_hard(c);
    cb_append(o->text, sizeof o->text,
              " Where thread stops: no io cell of thread above %ld connections failed, so no "
              "limit of threads, mappings or memory was reached",
              N);
    if (hard > 0)
        cb_append(o->text, sizeof o->text,
                  ", under a descriptor limit (RLIMIT_NOFILE, hard) of %ld, two descriptors a "
                  "connection (machine.limits.nofile)",
                  hard);
    cb_append(o->text, sizeof o->text, ".");
}

static void eval(const ctx *c, claim *o)
{
    const char *const thread = cb_impl_name(CB_IMPL_THREAD);
    const char *const other[2] = {cb_impl_name(CB_IMPL_ASM), cb_impl_name(CB_IMPL_SM)};
    /* The point: thread's cell at the largest conns whose point asm and sm share in its file. */
    json_t *x, *t = NULL, *y[2] = {NULL, NULL};
    iv rt = {.ok = 0}, ry[2] = {{.ok = 0}, {.ok = 0}};
    size_t i;
    long N = 0;
    json_array_foreach(c->all, i, x)
    {
        iv r, ra, rs;
        if (!usable(x, thread, &r) || !(cq_num(x, "params.conns") > (double)N))
            continue;
        json_t *a = cq_same_point(c, x, other[0], cq_file_of(x)),
               *s = cq_same_point(c, x, other[1], cq_file_of(x));
        if (!usable(a, other[0], &ra) || !usable(s, other[1], &rs))
            continue;
        N = (long)cq_num(x, "params.conns");
        t = x, y[0] = a, y[1] = s;
        rt = r, ry[0] = ra, ry[1] = rs;
    }
    if (!t) {
        cq_not_measured(o, "io cells (unix transport, style=explicit) of thread, asm and sm at "
                           "one point in one file, with their timings and resident bytes per "
                           "coroutine at the rest point");
        where_it_stops(c, o, thread, 0);
        return;
    }
    cb_verdict v[2][2]; /* [asm, sm][memory, time] */
    iv q[2], r[2];
    for (int k = 0; k < 2; k++) {
        q[k] = cq_pairing_ratio(&rt, &ry[k]);
        v[k][0] = q[k].lo >= M.mem  ? CB_SUPPORTED
                  : q[k].hi <= M.at ? CB_CONTRADICTED
                                    : CB_INCONCLUSIVE;
        r[k] = cq_ratio_iv(t, y[k]);
        v[k][1] = !r[k].ok           ? CB_INCONCLUSIVE
                  : r[k].lo >= M.time ? CB_SUPPORTED
                  : r[k].hi <= M.at   ? CB_CONTRADICTED
                                      : CB_INCONCLUSIVE;
    }
    cb_append(o->text, sizeof o->text,
              "The argument (the asker's answer): threads are expensive, while one epoll thread "
              "serves tens of thousands of connections. io (unix transport, style=explicit) at "
              "%ld connections of %.0f messages: thread runs each connection's client and server "
              "as OS threads (a thread per coroutine, on a stack of its own, every switch a futex "
              "hand-off the kernel schedules: a thread per connection), asm and sm as coroutines "
              "on the event loop's thread. Memory per connection: resident bytes per coroutine "
              "at io's rest point (every connection open, both its coroutines suspended; claim "
              "24's figure, in each process) times %d; the kernel's own memory per thread (its "
              "kernel stack and task) is not in it. Time: ns per message. thread over each, memory "
              "supported at %.1fx or more in every pairing of processes, contradicted at %.2fx "
              "or less (at or below the coroutine's); time supported when the interval lies at "
              "%.2fx or above, contradicted at %.2fx or below.",
              N, cq_num(t, "params.msgs"), PER_CONN, M.mem, M.at, M.time, M.at);
    for (int k = 0; k < 2; k++) {
        cb_append(o->text, sizeof o->text,
                  " Over %s: memory %.2fx [%.2f, %.2f] (%s), time ", other[k], q[k].est,
                  q[k].lo, q[k].hi, cb_verdict_name(v[k][0]));
        cq_ratio_text(o->text, sizeof o->text, r[k], t, y[k]);
        cb_append(o->text, sizeof o->text, " (%s).", cb_verdict_name(v[k][1]));
    }
    cb_append(o->text, sizeof o->text,
              " Every part supported supports the claim; one contradicted contradicts it.");
    where_it_stops(c, o, thread, N);
    cb_append(o->table, sizeof o->table,
              "| implementation | resident bytes per connection [processes] | reserved bytes "
              "per connection | ns per message | thread over it: memory | thread over it: time "
              "|\n|---|---:|---:|---:|---:|---:|\n");
    json_t *z[3] = {t, y[0], y[1]};
    iv rr[3] = {rt, ry[0], ry[1]};
    for (int k = 0; k < 3; k++) {
        char ns[128] = "", res[32] = "-", mem[64] = "-", tm[128] = "-";
        double reserved = cq_num(z[k], "memory.reserved_bytes_per_coro");
        cq_cell_text(ns, sizeof ns, cq_cell_iv(z[k]));
        if (isfinite(reserved))
            snprintf(res, sizeof res, "%.0f", PER_CONN * reserved);
        if (k) {
            snprintf(mem, sizeof mem, "%.2fx [%.2f, %.2f]", q[k - 1].est, q[k - 1].lo,
                     q[k - 1].hi);
            tm[0] = '\0';
            cq_ratio_text(tm, sizeof tm, r[k - 1], t, z[k]);
        }
        cb_append(o->table, sizeof o->table, "| %s | %.0f [%.0f, %.0f] | %s | %s | %s | %s |\n",
                  cb_str(z[k], "impl"), PER_CONN * rr[k].est, PER_CONN * rr[k].lo,
                  PER_CONN * rr[k].hi, res, ns, mem, tm);
    }
    int contra = 0, all = 1;
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 2; m++)
            contra |= v[k][m] == CB_CONTRADICTED, all &= v[k][m] == CB_SUPPORTED;
    o->v = contra ? CB_CONTRADICTED : all ? CB_SUPPORTED : CB_INCONCLUSIVE;
}

static const cq_claim row = {
    .number = 25,
    .id = "thread-per-connection",
    .sentence = "An OS thread per connection costs more than a coroutine per connection, in "
                "memory per connection and in time per message.",
    .eval = eval,
    .verdicts = CQ_ALL_VERDICTS,
    .plots = {NULL},
    .command = {.workloads = {&cb_wl_io},
                CQ_IMPLS(CB_IMPL_THREAD, CB_IMPL_ASM, CB_IMPL_SM),
                .params = {"conns=64,2000", "msgs=4"}},
};
CQ_CLAIM(row);
