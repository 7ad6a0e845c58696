/* The harness side of the external runtime protocol (docs/external.md): the request, one child
 * through the process API, a checked reply, and the cell object made from it. */
#include "external.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/common/proc.h"
#include "impls/impls.h"
#include "impls/languages.h"
#include "harness/common/stats.h"
#include "harness/common/untrusted.h"
#include "memory.h"

/* Warm-up of every external cell: V8 compiles the hot paths while it runs (the C cells' one
 * warm-up repetition would time its interpreter); go and node get the same. */
enum { CB_EXT_WARMUP_MS = 200, CB_EXT_MAX_BATCH = 1024 };

static json_t *request_json(const cb_ext_request *rq)
{
    json_t *params = cb_params_json(rq->params);
    return json_pack("{s:s, s:s, s:o, s:i, s:f, s:i, s:o, s:f, s:I, s:b}", "protocol",
                     CB_EXT_PROTOCOL, "workload", rq->workload, "params", params, "warmup",
                     (int)rq->warmup, "warmup_ms", rq->warmup_ms, "reps", (int)rq->reps, "batch",
                     rq->batch ? json_integer((json_int_t)rq->batch) : json_string("auto"),
                     "min_rep_ms", rq->min_rep_ms, "max_batch", (json_int_t)rq->max_batch,
                     "memory", rq->memory);
}

/* "NAME: reply: WHAT", one line of valid UTF-8: WHAT quotes the reply's own text (a C1 control
 * character in a string value was written as it was) and is cut on a character. */
static int bad_reply(const char *name, const char *what, char *err, size_t errlen)
{
    char line[1024];
    snprintf(line, sizeof line, "%s: reply: %s", name, what);
    cb_text_clean(err, errlen, line, strlen(line), 1);
    return -1;
}

/* "FIELD is VALUE (valid: ...)" for a reply's field, the value as JSON, cut short. */
static const char *reply_value(const char *field, json_t *v, const char *valid, char *buf,
                               size_t len)
{
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    snprintf(buf, len, "%s is %s (valid: %s)", field, text ? cb_quote(text) : "missing", valid);
    free(text);
    return buf;
}

/* Checks the reply's fields and fills out. */
static int parse_reply(const char *name, json_t *doc, uint64_t max_batch, cb_ext_reply *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_t *e = json_object_get(doc, "error");
    char bad[160];
    /* an error without words ("error": "" gave an empty reason) is no reason */
    if (e && !json_is_null(e) && (!json_is_string(e) || !json_string_length(e)))
        return bad_reply(name, reply_value("error", e, "null, or a string saying why", bad,
                                           sizeof bad),
                         err, errlen);
    if (e && json_is_string(e)) {
        /* the runtime's own words: cut on a character, control characters shown as '?' */
        cb_text_clean(err, errlen, json_string_value(e), json_string_length(e), 1);
        return json_is_true(json_object_get(doc, "unsupported")) ? 1 : -1;
    }
    const char *proto = json_string_value(json_object_get(doc, "protocol"));
    if (!proto || strcmp(proto, CB_EXT_PROTOCOL) != 0)
        return bad_reply(name, "protocol is not " CB_EXT_PROTOCOL, err, errlen);
    json_t *ops = json_object_get(doc, "ops"), *susp = json_object_get(doc, "suspensions");
    json_t *batch = json_object_get(doc, "batch");
    json_t *samples = json_object_get(doc, "samples_ns_per_op");
    const char *sum = json_string_value(json_object_get(doc, "checksum"));
    /* Every field as docs/external.md says, before the cell is recorded ok: a reply the
     * results reader would refuse later must fail the cell now, saying which field. */
    if (!json_is_integer(ops) || json_integer_value(ops) < 1)
        return bad_reply(name, reply_value("ops", ops, "a positive integer", bad, sizeof bad),
                         err, errlen);
    if (!json_is_integer(batch) || json_integer_value(batch) < 1 ||
        (uint64_t)json_integer_value(batch) > max_batch)
        return bad_reply(name, reply_value("batch", batch, "a positive integer, at most the "
                                           "request's batch or max_batch", bad, sizeof bad),
                         err, errlen);
    if (!json_is_integer(susp) || json_integer_value(susp) < 0)
        return bad_reply(name, reply_value("suspensions", susp, "an integer from 0", bad,
                                           sizeof bad),
                         err, errlen);
    /* "0x" and 16 hex digits, exactly (strtoull took "-1", " 5", "0x1 "). */
    unsigned long long cs = 0;
    if (!sum || strlen(sum) != 18 || strncmp(sum, "0x", 2) || strspn(sum + 2, "0123456789abcdefABCDEF") != 16)
        return bad_reply(name, reply_value("checksum", json_object_get(doc, "checksum"),
                                           "\"0x\" and 16 hex digits in a string", bad,
                                           sizeof bad),
                         err, errlen);
    cs = strtoull(sum + 2, NULL, 16);
    if (!json_is_array(samples) || json_array_size(samples) == 0)
        return bad_reply(name, "samples_ns_per_op must be a non-empty array", err, errlen);
    size_t i;
    json_t *s;
    json_array_foreach(samples, i, s) if (!json_is_number(s) || !(json_number_value(s) > 0) ||
                                          !isfinite(json_number_value(s))) return
        bad_reply(name, "samples_ns_per_op must hold positive finite numbers", err, errlen);
    json_t *rss = json_object_get(doc, "peak_rss_bytes");
    json_t *cb = json_object_get(doc, "coroutine_bytes");
    json_t *rt = json_object_get(doc, "runtime");
    if (rss && !json_is_null(rss) && (!json_is_integer(rss) || json_integer_value(rss) < 0))
        return bad_reply(name, reply_value("peak_rss_bytes", rss, "null or an integer from 0",
                                           bad, sizeof bad),
                         err, errlen);
    if (cb && !json_is_null(cb) && (!json_is_number(cb) || !isfinite(json_number_value(cb))))
        return bad_reply(name, reply_value("coroutine_bytes", cb, "null or a finite number", bad,
                                           sizeof bad),
                         err, errlen);
    if (rt && !json_is_null(rt) && !json_is_string(rt))
        return bad_reply(name, reply_value("runtime", rt, "a string", bad, sizeof bad), err,
                         errlen);
    json_t *alive = json_object_get(doc, "rest_coroutines");
    json_t *rrss = json_object_get(doc, "rest_rss_bytes");
    if (alive && !json_is_null(alive) && (!json_is_integer(alive) || json_integer_value(alive) < 1))
        return bad_reply(name, reply_value("rest_coroutines", alive,
                                           "null or an integer from 1", bad, sizeof bad),
                         err, errlen);
    if (rrss && !json_is_null(rrss) && (!json_is_integer(rrss) || !json_is_integer(alive)))
        return bad_reply(name, reply_value("rest_rss_bytes", rrss,
                                           "null, or an integer with rest_coroutines", bad,
                                           sizeof bad),
                         err, errlen);
    out->doc = doc;
    out->ops = (uint64_t)json_integer_value(ops);
    out->suspensions = (uint64_t)json_integer_value(susp);
    out->batch = (uint64_t)json_integer_value(batch);
    out->checksum = cs;
    out->samples = samples;
    out->peak_rss = json_is_integer(rss) ? json_integer_value(rss) : -1;
    out->coroutine_bytes = json_is_number(cb) ? json_number_value(cb) : -1;
    out->rest_coroutines = json_is_integer(alive) ? (uint64_t)json_integer_value(alive) : 0;
    out->has_rest_rss = json_is_integer(rrss);
    out->rest_rss = out->has_rest_rss ? (int64_t)json_integer_value(rrss) : 0;
    /* A negative figure from a runtime's own statistics (mono's GC counters gave -424 bytes
     * per coroutine at recursive's rest point) is no measurement: the cell's times stand, its
     * memory figure is recorded as not measured, with the reason. */
    out->coroutine_bytes_note[0] = '\0';
    if (json_is_number(cb) && json_number_value(cb) < 0)
        snprintf(out->coroutine_bytes_note, sizeof out->coroutine_bytes_note,
                 "%s: the runtime's statistics gave %g bytes per coroutine, not a measurement",
                 name, json_number_value(cb));
    return 0;
}

int cb_ext_read_reply(const char *name, const char *text, size_t len, uint64_t max_batch,
                      cb_ext_reply *out, char *err, size_t errlen)
{
    json_error_t je;
    memset(out, 0, sizeof *out);
    /* the whole text: a NUL byte is refused, not the end of the reply; a key given twice too,
     * as the results reader refuses it (the last one won) */
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        cb_text_clean(err, errlen, je.text, strlen(je.text), 1);
        return -2;
    }
    int rc = parse_reply(name, doc, max_batch, out, err, errlen);
    if (rc != 0)
        json_decref(doc);
    return rc;
}

/* The runtime's descriptor limit raised to the hard one (io keeps 2 sockets per connection per
 * batched instance, as the C io workload's setup raises its own); inherited by the child. */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* A failure line without the shell's own "NAME: " in front: a user's command runs as `sh -c
 * COMMAND NAME`, whose messages begin with $0 ("under-test: 1: nodee: not found"), and the
 * message below names the runtime once. */
static const char *without_name(const char *name, const char *failure)
{
    size_t n = strlen(name);
    return !strncmp(failure, name, n) && failure[n] == ':' && failure[n + 1] == ' '
               ? failure + n + 2
               : failure;
}

/* This process's children (up to max of them, from /proc): their count. */
enum { KIDS_MAX = 256 };
static size_t children(pid_t *kids, size_t max)
{
    cb_proc_child c[KIDS_MAX];
    size_t n = cb_proc_children(getpid(), c, max < KIDS_MAX ? max : KIDS_MAX);
    for (size_t i = 0; i < n; i++)
        kids[i] = c[i].pid;
    return n;
}

/* Ends what the program left outside its group (`setsid cmd &` outlived the run: the group the
 * run ends no longer held it). This process is the subreaper of the program's descendants (set
 * before it starts), so once the program has exited they are its children: every child that is
 * not one of before's (the children it had before the program started) is ended, until none. */
static void end_escaped(const pid_t *before, size_t nbefore)
{
    pid_t kids[KIDS_MAX];
    for (int round = 0; round < 64; round++) {
        size_t n = children(kids, KIDS_MAX), ended = 0;
        for (size_t i = 0; i < n; i++) {
            size_t j = 0;
            while (j < nbefore && before[j] != kids[i])
                j++;
            if (j < nbefore)
                continue;
            kill(kids[i], SIGKILL);
            waitpid(kids[i], NULL, 0);
            ended++;
        }
        if (!ended)
            return;
    }
}

int cb_ext_run(const char *name, const cb_ext_request *rq, double timeout_s, cb_ext_reply *out,
               char *err, size_t errlen)
{
    const char *argv[CB_LANG_ARGV + 2], *why = NULL; /* + the request, NULL */
    memset(out, 0, sizeof *out);
    if (cb_impl_argv(name, argv, &why) != 0) {
        snprintf(err, errlen, "%s: %s", name, why);
        return -1;
    }
    json_t *req = request_json(rq);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    size_t n = 0;
    while (argv[n])
        n++;
    argv[n++] = text; /* the request is small: one argument */
    argv[n] = NULL;
    raise_nofile();
    /* In a run, in the cell's process group (a timeout kills both, and the run ends the group
     * when the cell's process exits); under check-external's timeout, in a group of its own
     * that the timeout, or the program's exit, ends whole (a hung program was left running
     * when only its /bin/sh was killed). On the cell's CPU (inherited), and dying with the
     * cell's process: that one dies with the run (PR_SET_PDEATHSIG), and its program must not
     * outlive it, spinning or holding memory. Its output is bounded (a program running `yes`
     * took 887 MB). */
    cb_proc_opts po = {.own_group = timeout_s > 0, .pin_cpu = -1, .stdin_null = 1,
                       .die_with_parent = 1, .max_out = CB_EXT_REPLY_MAX};
    cb_proc p;
    cb_proc_result r;
    int rc = -1;
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* what escapes its group comes back here: end_escaped */
    pid_t before[KIDS_MAX];
    size_t nbefore = children(before, KIDS_MAX);
    if (cb_proc_start(&p, &po, cb_proc_exec, (void *)argv, err, errlen) != 0) {
        free(text);
        return -1;
    }
    free(text);
    cb_proc_wait(&p, timeout_s, &r);
    end_escaped(before, nbefore);
    if (r.too_long) {
        snprintf(err, errlen, "%s: the program wrote more than %d MiB on its %s, ended (valid: "
                 "one JSON reply)", name, CB_EXT_REPLY_MAX >> 20,
                 r.out_len > CB_EXT_REPLY_MAX ? "stdout" : "stderr");
    } else if (r.timed_out) {
        snprintf(err, errlen, "%s: no reply within %g s", name, timeout_s);
    } else if (!r.out_len && cb_proc_exit_code(r.wait_status) == 0) {
        snprintf(err, errlen, "%s: the program exited with status 0 without sending its reply",
                 name);
    } else if (!r.out_len) { /* died: in its own words when it said how (Go's panic...) */
        char failure[768];
        cb_proc_failure(&r, failure, sizeof failure);
        snprintf(err, errlen, "%s: %s, without a reply", name, without_name(name, failure));
    } else if ((rc = cb_ext_read_reply(name, r.out, r.out_len,
                                       rq->batch ? rq->batch : rq->max_batch ? rq->max_batch : 1,
                                       out, err, errlen)) == -2) {
        char failure[512], why[160];
        cb_proc_failure(&r, failure, sizeof failure);
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "%s: no JSON reply (%s): %s", name, why,
                 without_name(name, failure));
        rc = -1;
    } else if (rc == 0 && cb_proc_exit_code(r.wait_status) != 0) {
        char failure[512];
        cb_proc_failure(&r, failure, sizeof failure);
        snprintf(err, errlen, "%s: %s after its reply", name, without_name(name, failure));
        json_decref(out->doc);
        memset(out, 0, sizeof *out);
        rc = -1;
    }
    cb_proc_result_free(&r);
    return rc;
}

static json_t *stats_object(json_t *samples)
{
    size_t n = json_array_size(samples), i;
    double *x = cb_xcalloc(n, sizeof *x), lo = 0, hi = 0;
    json_t *s;
    json_array_foreach(samples, i, s) {
        x[i] = json_number_value(s);
        lo = i == 0 || x[i] < lo ? x[i] : lo;
        hi = i == 0 || x[i] > hi ? x[i] : hi;
    }
    double med = cb_median(x, n);
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:I}", "median", med, "mad", cb_mad(x, n, med),
                          "min", lo, "max", hi, "reps", (json_int_t)n);
    free(x);
    return o;
}

/* The process's anonymous resident memory grown by the rest point, per coroutine alive, as a C
 * cell's rss_bytes_per_coro (statm resident - shared, which is /proc/self/status's RssAnon the
 * programs read): null with the reason in reasons below CB_MEM_MIN_CORO_RSS coroutines, or when
 * the process shrank (a collector returned more than the coroutines took). */
static json_t *rss_per_coro(const char *name, const cb_ext_reply *rp, json_t *reasons)
{
    char why[200];
    if (!rp->has_rest_rss || !rp->rest_coroutines)
        return json_null();
    if (rp->rest_coroutines < CB_MEM_MIN_CORO_RSS)
        snprintf(why, sizeof why,
                 "RSS grows by whole pages and with the process: %llu coroutines at the rest "
                 "point, fewer than %d",
                 (unsigned long long)rp->rest_coroutines, CB_MEM_MIN_CORO_RSS);
    else if (rp->rest_rss < 0)
        snprintf(why, sizeof why, "%s: its anonymous resident memory shrank by %lld bytes by the "
                 "rest point, not a measurement", name, (long long)-rp->rest_rss);
    else
        return json_real((double)rp->rest_rss / (double)rp->rest_coroutines);
    json_object_set_new(reasons, "rss_bytes_per_coro", json_string(why));
    return json_null();
}

/* What a runtime can say of its memory: its peak RSS, bytes per coroutine at the rest point
 * from its own statistics (which ones in runtime_stats), and its process's anonymous resident
 * memory grown by the rest point (rss_bytes_per_coro, the C cells' definition); the probes of a
 * C cell that look inside its address space (mincore, cb_rt, mallinfo2, VmPTE) cannot see
 * inside another process. */
static json_t *memory_json(const char *name, const cb_ext_reply *rp)
{
    json_t *src = json_object_get(rp->doc, "coroutine_bytes_source");
    int rest = rp->coroutine_bytes >= 0;
    json_t *reasons = json_object();
    json_t *rss = rss_per_coro(name, rp, reasons);
    json_t *totals = rp->has_rest_rss ? json_pack("{s:I}", "rss_bytes", (json_int_t)rp->rest_rss)
                                      : json_null();
    return json_pack("{s:s?, s:o, s:n, s:n, s:n, s:o, s:n, s:n, s:o, s:n, s:I, s:n, s:n, s:o, "
                     "s:o, s:O?, s:s?}",
                     "point", rest ? "rest" : NULL, "coroutines",
                     rp->rest_coroutines ? json_integer((json_int_t)rp->rest_coroutines)
                                         : json_null(),
                     "reserved_bytes_per_coro", "touched_bytes_per_coro",
                     "stack_used_bytes_per_coro", "heap_bytes_per_coro",
                     rest ? json_real(rp->coroutine_bytes) : json_null(),
                     "malloc_bytes_per_coro", "heap_allocs_per_coro", "rss_bytes_per_coro", rss,
                     "pagetable_bytes_per_coro", "peak_rss_bytes", (json_int_t)rp->peak_rss,
                     "page_faults_per_op", "stack_mode", "totals", totals, "null_reasons",
                     reasons, "runtime_stats", src, "error",
                     rp->coroutine_bytes_note[0] ? rp->coroutine_bytes_note : NULL);
}

void cb_ext_diff_work(const cb_ext_reply *rp, const cb_wl_once *want, uint64_t reps, char *diff,
                      size_t len)
{
    size_t n = 0;
    diff[0] = '\0';
    if (rp->ops != want->res.ops)
        n += (size_t)snprintf(diff + n, len - n, "; ops %" PRIu64 ", not %" PRIu64, rp->ops,
                              want->res.ops);
    if (rp->checksum != want->res.checksum && n < len)
        n += (size_t)snprintf(diff + n, len - n, "; checksum 0x%016" PRIx64 ", not 0x%016" PRIx64,
                              rp->checksum, want->res.checksum);
    if (rp->suspensions != want->suspensions && n < len)
        n += (size_t)snprintf(diff + n, len - n, "; suspensions %" PRIu64 ", not %" PRIu64,
                              rp->suspensions, want->suspensions);
    if (json_array_size(rp->samples) != reps && n < len)
        snprintf(diff + n, len - n, "; samples_ns_per_op has %zu entries, not reps (%" PRIu64 ")",
                 json_array_size(rp->samples), reps);
}

/* The reply did the work corobench's own sm body does on the same point, and timed the
 * repetitions asked (as check-external checks it, and plugin cells are checked against asm):
 * 0, or -1 with the field and both values in err. A workload without an sm body (forkjoin and
 * yieldstorm before their scheduler bodies) is checked against direct, the reference of its
 * definition, on ops and checksum: direct suspends nowhere, so the count is the runtime's. */
static int same_work(const cb_cell *c, const char *name, const cb_ext_request *rq,
                     const cb_ext_reply *rp, char *err, size_t len)
{
    const cb_impl *ref = cb_impl_find("sm");
    if (ref && !cb_wl_family(c->wl, ref) && cb_wl_family(c->wl, &cb_impls[CB_IMPL_DIRECT]))
        ref = &cb_impls[CB_IMPL_DIRECT];
    cb_wl_once want;
    char why[512], diff[512];
    if (!ref || cb_wl_run_once(c->wl, ref, &c->params, NULL, &want, why, sizeof why)) {
        snprintf(err, len, "%s: the reference run on %s failed: %s", name, ref ? ref->name : "sm",
                 ref ? why : "no sm implementation in this build");
        return -1;
    }
    if (ref->body == CB_BODY_DIRECT)
        want.suspensions = rp->suspensions;
    cb_ext_diff_work(rp, &want, rq->reps, diff, sizeof diff);
    if (!diff[0])
        return 0;
    snprintf(err, len, "%s did different work than corobench's %s body on the same point: %s",
             name, ref->name, diff + 2);
    return -1;
}

json_t *cb_ext_measure(const cb_cell *c, const cb_measure_opts *m)
{
    uint64_t cap = c->wl->max_batch ? c->wl->max_batch(&c->params) : CB_EXT_MAX_BATCH;
    cb_ext_request rq = {.workload = c->wl->name, .params = &c->params, .warmup = m->warmup,
                         .reps = m->reps ? m->reps : 1, .warmup_ms = CB_EXT_WARMUP_MS,
                         .batch = 0, .min_rep_ms = m->min_rep_ms,
                         .max_batch = cap < 1 ? 1 : cap > CB_EXT_MAX_BATCH ? CB_EXT_MAX_BATCH : cap,
                         .memory = 1};
    cb_ext_reply rp;
    char err[1024];
    struct rusage ru0, ru1;
    getrusage(RUSAGE_CHILDREN, &ru0);
    /* No timeout here: the parent's timeout kills the cell's process group, the runtime with it. */
    /* A language's program (its row's) and a user's runtime (--external) go by their name. */
    const char *name = c->impl->name;
    int rc = cb_ext_run(name, &rq, 0, &rp, err, sizeof err);
    getrusage(RUSAGE_CHILDREN, &ru1);
    if (rc == 0 && same_work(c, name, &rq, &rp, err, sizeof err) != 0) {
        json_decref(rp.doc);
        rc = -1;
    }
    if (rc != 0) {
        char buf[1100];
        char raw[1100];
        snprintf(raw, sizeof raw, "%s%s", rc > 0 ? "unsupported: " : "", err);
        cb_text_clean(buf, sizeof buf, raw, strlen(raw), 1);
        return json_pack("{s:s, s:s}", "status", rc > 0 ? "unsupported" : "failed", "error", buf);
    }
    char sum[19];
    cb_checksum_text(rp.checksum, sum);
    /* the runtime's name and version, as it says them: one line, bounded */
    json_t *rt = json_object_get(rp.doc, "runtime");
    char *runtime = json_is_string(rt) ? cb_text_clean_dup(json_string_value(rt),
                                                           json_string_length(rt), 256, 1)
                                       : NULL;
    json_t *cell = json_pack(
        "{s:s, s:n, s:I, s:s, s:I, s:I, s:n, s:o, s:n, s:n, s:O, s:I, s:o, s:s?}", "status", "ok",
        "error", "ops", (json_int_t)rp.ops, "checksum", sum, "suspensions",
        (json_int_t)rp.suspensions, "batch", (json_int_t)rp.batch, "stack_mode", "ns_per_op",
        stats_object(rp.samples), "create_ns_per_coro", "heap_allocs_per_op",
        "samples_ns_per_op", rp.samples,
        "preemptions", (json_int_t)(ru1.ru_nivcsw - ru0.ru_nivcsw), "memory", memory_json(name, &rp),
        "runtime", runtime);
    free(runtime);
    json_decref(rp.doc);
    return cell;
}
