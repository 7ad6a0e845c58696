/* A cell as one request (request.h, docs/request.md): built by the parent from the plan, run in
 * a child of the binary that measures it, and served in that child: checked field by field, then
 * the cell measured or counted there. */
#include "request.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/common/proc.h"
#include "harness/common/untrusted.h"
#include "harness/measure/clock.h"
#include "harness/measure/counters.h"
#include "harness/measure/kmem.h"
#include "harness/measure/rsbsim.h"
#include "harness/measure/turns.h"
#include "impls/languages.h"
#include "impls/plugin.h"
#include "invocation.h"
#include "workloads/run_once.h"

json_t *cb_request_build(const cb_run_opts *o, const cb_plan_cell *pc, unsigned inv,
                         cb_request_mode mode)
{
    const cb_measure_opts *m = &o->measure;
    const cb_cell *c = &pc->cell;
    json_t *layout = json_null();
    if (mode == CB_REQUEST_TIME) {
        cb_inv_layout l;
        cb_inv_layout_draw(o->layout_seed, pc->index, inv, &l);
        layout = cb_inv_layout_json(&l);
    }
    /* A plugin by its absolute path, so the request runs from any directory. */
    const char *lib = cb_impl_plugin_path(c->impl), *ext = cb_lang_user_command(c->impl->name);
    char real[PATH_MAX];
    if (lib && realpath(lib, real))
        lib = real;
    double hz = strcmp(cb_clock_source(), "tsc") == 0 ? cb_clock_hz() : 0;
    double kb = cb_kmem_bytes_per_vma();
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:i, s:f, s:f, s:o, s:o, s:b, s:{s:s, s:i, s:b}, "
        "s:o, s:o, s:o, s:o, s:o, s:o}",
        "schema", CB_REQUEST_SCHEMA, "mode", mode == CB_REQUEST_COUNT ? "count" : "time",
        "variant", pc->variant, "workload", c->wl->name, "impl", c->impl->name, "params",
        cb_params_json(&c->params), "warmup", (int)m->warmup, "reps", (int)m->reps, "min_rep_ms",
        m->min_rep_ms, "timeout_s",
        mode == CB_REQUEST_COUNT ? CB_COUNT_TIMEOUT_FACTOR * o->timeout_s : o->timeout_s,
        "pin_cpu", o->pin_cpu >= 0 ? json_integer(o->pin_cpu) : json_null(), "events",
        m->events ? json_string(m->events) : json_null(), "events_kernel", m->events_kernel,
        "rsb", "model", cb_rsb_model_name((cb_rsb_model)m->rsb_model), "entries",
        (int)m->rsb_entries, "candidates", m->rsb_candidates, "tsc_hz",
        hz > 0 ? json_real(hz) : json_null(), "kernel_bytes_per_vma",
        kb > 0 ? json_real(kb) : json_null(), "layout", layout, "impl_lib",
        lib ? json_string(lib) : json_null(), "impl_lib_identity",
        lib ? json_string(cb_impl_plugin_identity(c->impl)) : json_null(), "external",
        ext ? json_string(ext) : json_null());
}

const char *cb_request_binary(const cb_plan_cell *pc, cb_request_mode mode)
{
    if (mode == CB_REQUEST_COUNT)
        return pc->counter;
    return pc->binary ? pc->binary : cb_inv_self();
}

const char *cb_request_unsupported(const cb_cell *c, const char *variant, char *buf, size_t len)
{
    char reason[900];
    const char *why = cb_wl_unsupported(c->wl, c->impl, &c->params, reason, sizeof reason);
    if (why) {
        snprintf(buf, len, "unsupported: %s", why);
    } else if (cb_impl_is_language(c->impl) && strcmp(variant, "plain") != 0) {
        snprintf(buf, len, "unsupported: the %s variant rewrites corobench's own code, and the %s "
                 "runtime is not corobench's code", variant, c->impl->name);
    } else if (!c->impl->external && !cb_wl_family(c->wl, c->impl)) {
        char nobody[512];
        cb_wl_no_body(c->wl, c->impl, nobody, sizeof nobody);
        snprintf(buf, len, "unsupported: %s", nobody);
    } else {
        return NULL;
    }
    return buf;
}

/* ---- running a request in a child ---- */

typedef struct exec_arg {
    const char *binary;
    const char *text; /* the request, compact */
    size_t len;
    unsigned env_pad; /* bytes of COROBENCH_LAYOUT_PAD; 0: none */
    int turn_fd;      /* the ab pair's socket, given to the child as CB_REQUEST_TURN_FD; -1 */
    const char *const *wrap; /* a program and its arguments to run the binary under, or NULL */
} exec_arg;

/* The child's body: the request on a pipe as stdin (it fits the pipe, so the write does not
 * wait for the reader), the layout's padding in the environment, then exec. */
static int exec_request(void *arg)
{
    const exec_arg *a = arg;
    int fd[2];
    /* First, so that the request's pipe below does not take the turns' fd number. */
    if (a->turn_fd >= 0 &&
        (a->turn_fd == CB_REQUEST_TURN_FD ? fcntl(a->turn_fd, F_SETFD, 0)
                                          : dup2(a->turn_fd, CB_REQUEST_TURN_FD)) < 0) {
        fprintf(stderr, "corobench: cannot hand over the pair's socket: %s\n", strerror(errno));
        return CB_CHILD_SETUP_FAILED;
    }
    if (pipe(fd) != 0) {
        fprintf(stderr, "corobench: cannot make the request's pipe: %s\n", strerror(errno));
        return CB_CHILD_SETUP_FAILED;
    }
    if (a->len > 65536 && fcntl(fd[1], F_SETPIPE_SZ, (int)a->len) < 0) {
        fprintf(stderr, "corobench: the request's %zu bytes do not fit a pipe: %s\n", a->len,
                strerror(errno));
        return CB_CHILD_SETUP_FAILED;
    }
    for (size_t off = 0; off < a->len;) {
        ssize_t k = write(fd[1], a->text + off, a->len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            fprintf(stderr, "corobench: cannot write the request: %s\n", strerror(errno));
            return CB_CHILD_SETUP_FAILED;
        }
        off += (size_t)k;
    }
    close(fd[1]);
    if (dup2(fd[0], 0) < 0)
        return CB_CHILD_SETUP_FAILED;
    close(fd[0]);
    if (a->env_pad) {
        char *pad = cb_xmalloc(a->env_pad + 1);
        memset(pad, 'x', a->env_pad);
        pad[a->env_pad] = '\0';
        setenv("COROBENCH_LAYOUT_PAD", pad, 1);
        free(pad);
    } else {
        unsetenv("COROBENCH_LAYOUT_PAD");
    }
    char *argv[32];
    size_t n = 0;
    for (const char *const *w = a->wrap; w && *w && n < 26; w++)
        argv[n++] = (char *)*w;
    argv[n++] = (char *)a->binary;
    argv[n++] = "cell";
    argv[n++] = "--request";
    argv[n++] = "-";
    argv[n] = NULL;
    return cb_proc_exec(argv);
}

/* A failure or timeout record; error is text from outside (a child's stderr line): cleaned to
 * valid UTF-8, one line, bounded, or json_pack would fail on it. */
static json_t *record(const char *status, const char *error)
{
    char *text = cb_text_clean_dup(error, strlen(error), CB_TEXT_ERROR_MAX, 1);
    json_t *r = json_pack("{s:s, s:s}", "status", status, "error", text);
    free(text);
    return r;
}

void cb_request_start(cb_request_child *ch, const char *binary, const json_t *req, int turn_fd,
                      const char *const *wrap)
{
    char why[1024];
    memset(ch, 0, sizeof *ch);
    ch->p.pid = -1;
    if (!binary) {
        ch->failed = record("failed", "no binary to run the cell in (/proc/self/exe unreadable, "
                                      "or no counting build named)");
        return;
    }
    json_t *t = json_object_get(req, "timeout_s"), *pin = json_object_get(req, "pin_cpu");
    ch->timeout_s = json_is_number(t) && json_number_value(t) > 0 ? json_number_value(t)
                                                                  : cb_run_default.timeout_s;
    json_t *pad = json_object_get(json_object_get(req, "layout"), "env_pad_bytes");
    char *text = json_dumps(req, JSON_COMPACT);
    if (!text)
        abort(); /* into memory */
    exec_arg a = {binary, text, strlen(text),
                  json_is_integer(pad) && json_integer_value(pad) > 0 &&
                          json_integer_value(pad) < CB_INV_LAYOUT_SPAN
                      ? (unsigned)json_integer_value(pad)
                      : 0,
                  turn_fd, wrap};
    /* A cell never outlives its run, and ends by its own timer if the run cannot end it. */
    cb_proc_opts po = {.own_group = 1,
                       .pin_cpu = json_is_integer(pin) ? (int)json_integer_value(pin) : -1,
                       .die_with_parent = 1, .backstop_s = ch->timeout_s * 1.5 + 1};
    if (cb_proc_start(&ch->p, &po, exec_request, &a, why, sizeof why) != 0) {
        ch->p.pid = -1;
        ch->failed = record("failed", why);
    }
    free(text);
}

json_t *cb_request_finish(cb_request_child *ch)
{
    char why[1024];
    if (ch->failed)
        return ch->failed;
    cb_proc_result r;
    json_t *m = NULL;
    double timeout_s = ch->timeout_s;
    cb_proc_wait(&ch->p, timeout_s, &r);
    if (r.timed_out) {
        snprintf(why, sizeof why, "timed out after %g s", timeout_s);
        m = record("timeout", why);
    } else if (WIFSIGNALED(r.wait_status) && WTERMSIG(r.wait_status) == SIGALRM) {
        snprintf(why, sizeof why, "timed out after %g s (ended by the cell's own backstop timer)",
                 timeout_s);
        m = record("timeout", why);
    } else if (cb_proc_exit_code(r.wait_status) != 0) {
        cb_proc_failure(&r, why, sizeof why);
        m = record("failed", why);
    } else if (!r.out_len) {
        m = record("failed", "the cell's process exited with status 0 without sending its result");
    } else {
        json_error_t jerr;
        if (!(m = json_loads(r.out, 0, &jerr)) || !json_is_object(m)) {
            snprintf(why, sizeof why, "unreadable result from the cell's process: %s",
                     m ? "not a JSON object" : jerr.text);
            json_decref(m);
            m = record("failed", why);
        } else if (!json_is_string(json_object_get(m, "status"))) {
            json_object_set_new(m, "status", json_string("failed"));
        }
    }
    cb_proc_result_free(&r);
    return m;
}

json_t *cb_request_run(const char *binary, const json_t *req)
{
    cb_request_child ch;
    cb_request_start(&ch, binary, req, -1, NULL);
    return cb_request_finish(&ch);
}

/* ---- serving a request in the cell's process ---- */

/* A bad request: one line naming the field, its value and the valid ones; CB_EXIT_USAGE. */
static int bad(const char *field, json_t *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(const char *field, json_t *v, const char *fmt, ...)
{
    char valid[768], *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(valid, sizeof valid, fmt, ap);
    va_end(ap);
    int rc = cb_usage_error("invalid request: field '%s' is %s (valid: %s)", field,
                            text ? cb_quote(text) : "missing", valid);
    free(text);
    return rc;
}

/* The member of obj that a field names: "layout.seed" is layout's "seed" (obj is layout). */
static json_t *member(json_t *obj, const char *field)
{
    const char *dot = strrchr(field, '.');
    return json_object_get(obj, dot ? dot + 1 : field);
}

/* An integer field from lo to hi (null_ok: or null, then *out = -1). */
static int want_int(json_t *req, const char *field, long lo, long hi, int null_ok, long *out)
{
    json_t *v = member(req, field);
    if (null_ok && json_is_null(v)) {
        *out = -1;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return bad(field, v, "an integer from %ld to %ld%s", lo, hi, null_ok ? ", or null" : "");
    *out = (long)json_integer_value(v);
    return 0;
}

/* A finite number > 0 (null_ok: or null, then *out = 0). */
static int want_positive(json_t *req, const char *field, int null_ok, double *out)
{
    json_t *v = member(req, field);
    if (null_ok && json_is_null(v)) {
        *out = 0;
        return 0;
    }
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) <= 0)
        return bad(field, v, "a number > 0%s", null_ok ? ", or null" : "");
    *out = json_number_value(v);
    return 0;
}

/* A string (null_ok: or null, then *out = NULL). */
static int want_string(json_t *req, const char *field, int null_ok, const char **out)
{
    json_t *v = member(req, field);
    if (null_ok && json_is_null(v)) {
        *out = NULL;
        return 0;
    }
    if (!json_is_string(v) || !*json_string_value(v))
        return bad(field, v, "a non-empty string%s", null_ok ? ", or null" : "");
    *out = json_string_value(v);
    return 0;
}

static int want_bool(json_t *req, const char *field, int *out)
{
    json_t *v = member(req, field);
    if (!json_is_boolean(v))
        return bad(field, v, "true or false");
    *out = json_is_true(v);
    return 0;
}

/* The request's values of defs into p, each checked against its definition. */
static int want_params(json_t *params, const cb_param_def *defs, const char *owner, cb_params *p)
{
    for (const cb_param_def *d = defs; d && d->name; d++) {
        json_t *v = json_object_get(params, d->name);
        char field[160], text[32], err[512];
        snprintf(field, sizeof field, "params.%s", d->name);
        if (p->n == CB_MAX_PARAMS)
            return bad(field, v, "at most %d parameters", CB_MAX_PARAMS);
        if (d->kind == CB_PARAM_INT && json_is_integer(v))
            snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
        if (!(d->kind == CB_PARAM_INT ? json_is_integer(v) : json_is_string(v)))
            return bad(field, v, "%s, a parameter of %s", d->kind == CB_PARAM_INT ? "an integer"
                                                                                   : "a string",
                       owner);
        if (cb_param_parse(d, d->kind == CB_PARAM_INT ? text : json_string_value(v), &p->v[p->n],
                           err, sizeof err) != 0)
            return cb_usage_error("invalid request: field '%s': %s", field, err);
        p->n++;
    }
    return 0;
}

/* The implementations or workloads of this build, for a message. */
static void names(int impls, char *buf, size_t len)
{
    size_t n = impls ? cb_nimpls : cb_nworkloads, k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "",
                              impls ? cb_impls[i].name : cb_workloads[i]->name);
}

/* The cell, how to measure it and the layout, from the request; 0 or an exit status. */
typedef struct served {
    cb_request_mode mode;
    cb_cell cell;
    cb_measure_opts m;
    cb_inv_layout lay;
    int has_layout;
    long pin;
    double tsc_hz, kbytes;
    int turn_fd, turn_first; /* "turns": the ab pair's socket (measure/turns.h); -1: none */
} served;

static int check_identity(json_t *req, served *s)
{
    const char *schema, *mode, *variant, *wl, *impl, *lib, *libid = NULL, *ext;
    char list[2048];
    int rc;
    if (!json_is_object(req))
        return bad("(the request)", req, "a JSON object of schema %s", CB_REQUEST_SCHEMA);
    if ((rc = want_string(req, "schema", 0, &schema)))
        return rc;
    if (strcmp(schema, CB_REQUEST_SCHEMA))
        return bad("schema", json_object_get(req, "schema"), "\"%s\"", CB_REQUEST_SCHEMA);
    if ((rc = want_string(req, "mode", 0, &mode)))
        return rc;
    if (strcmp(mode, "time") && strcmp(mode, "count"))
        return bad("mode", json_object_get(req, "mode"), "\"time\" or \"count\"");
    s->mode = strcmp(mode, "count") ? CB_REQUEST_TIME : CB_REQUEST_COUNT;
    if ((rc = want_string(req, "variant", 0, &variant)))
        return rc;
    if (strcmp(variant, cb_build_variant))
        return bad("variant", json_object_get(req, "variant"),
                   "\"%s\", this binary's variant; a %s cell runs in bin/corobench%s%s",
                   cb_build_variant, variant, strcmp(variant, "plain") ? "-" : "",
                   strcmp(variant, "plain") ? variant : "");
    if (s->mode == CB_REQUEST_TIME && cb_rsbsim_instrumented())
        return bad("mode", json_object_get(req, "mode"),
                   "\"count\": this binary is instrumented for the return-stack simulator and "
                   "only runs counting passes; time with bin/corobench or bin/corobench-jmpret");
    /* The runtime's source before its name: a plugin's row or a user's command registers it. */
    if ((rc = want_string(req, "impl", 0, &impl)) || (rc = want_string(req, "impl_lib", 1, &lib)) ||
        (json_object_get(req, "impl_lib_identity") &&
         (rc = want_string(req, "impl_lib_identity", 1, &libid))) ||
        (rc = want_string(req, "external", 1, &ext)))
        return rc;
    char err[PATH_MAX + 512];
    /* the shared object as the run loaded it (a request by hand may leave the identity out) */
    if (lib && cb_plugin_load_same(lib, libid, err, sizeof err) != 0)
        return cb_usage_error("invalid request: field 'impl_lib': %s", err);
    if (ext && cb_impl_add_external(impl, ext, err, sizeof err) != 0)
        return cb_usage_error("invalid request: field 'external': %s", err);
    if (!(s->cell.impl = cb_impl_find(impl))) {
        names(1, list, sizeof list);
        return bad("impl", json_object_get(req, "impl"), "an implementation of this build: %s%s",
                   list, lib ? "; or the plugin that impl_lib registers"
                             : "; a plugin's with impl_lib, a program's with external");
    }
    /* The row the request means: a plugin's from its shared object, not a namesake's. */
    const char *from = cb_impl_plugin_path(s->cell.impl);
    char real[PATH_MAX];
    if (lib && !(from && realpath(from, real) && realpath(lib, err) && !strcmp(real, err)))
        return bad("impl", json_object_get(req, "impl"), "the implementation impl_lib '%s' "
                   "registers", cb_quote(lib));
    if ((rc = want_string(req, "workload", 0, &wl)))
        return rc;
    if (!(s->cell.wl = cb_workload_find(wl))) {
        names(0, list, sizeof list);
        return bad("workload", json_object_get(req, "workload"), "a workload of this build: %s",
                   list);
    }
    return 0;
}

static int check_params(json_t *req, served *s)
{
    json_t *params = json_object_get(req, "params"), *v;
    const char *key;
    char owner[160];
    int rc;
    if (!json_is_object(params))
        return bad("params", params, "an object: every parameter of the workload and the "
                   "implementation, NAME: value");
    snprintf(owner, sizeof owner, "workload %s", s->cell.wl->name);
    if ((rc = want_params(params, s->cell.wl->params, owner, &s->cell.params)))
        return rc;
    snprintf(owner, sizeof owner, "implementation %s", s->cell.impl->name);
    if ((rc = want_params(params, s->cell.impl->params, owner, &s->cell.params)))
        return rc;
    json_object_foreach(params, key, v)
    {
        if (!cb_params_find(&s->cell.params, key)) {
            char field[160];
            snprintf(field, sizeof field, "params.%s", key);
            return bad(field, v, "no such parameter: the parameters of workload %s and "
                       "implementation %s only (corobench list)", s->cell.wl->name,
                       s->cell.impl->name);
        }
    }
    char err[1024];
    if (s->cell.wl->check && s->cell.wl->check(&s->cell.params, err, sizeof err))
        return cb_usage_error("invalid request: field 'params': %s", err);
    return 0;
}

static int check_measure(json_t *req, served *s)
{
    long v;
    int rc, b = 0;
    double t;
    const char *events, *model;
    cb_rsb_model mdl;
    if ((rc = want_int(req, "warmup", 0, 1000, 0, &v)))
        return rc;
    s->m.warmup = (unsigned)v;
    if ((rc = want_int(req, "reps", 1, 100000, 0, &v)))
        return rc;
    s->m.reps = (unsigned)v;
    if ((rc = want_positive(req, "min_rep_ms", 0, &s->m.min_rep_ms)) ||
        (rc = want_positive(req, "timeout_s", 0, &t)) ||
        (rc = want_int(req, "pin_cpu", 0, CPU_SETSIZE - 1, 1, &s->pin)) ||
        (rc = want_string(req, "events", 1, &events)) ||
        (rc = want_bool(req, "events_kernel", &s->m.events_kernel)) ||
        (rc = want_positive(req, "tsc_hz", 1, &s->tsc_hz)) ||
        (rc = want_positive(req, "kernel_bytes_per_vma", 1, &s->kbytes)))
        return rc;
    char err[1024];
    if (events && cb_counters_validate(events, err, sizeof err) != 0)
        return cb_usage_error("invalid request: field 'events': %s", err);
    s->m.events = events;
    json_t *rsb = json_object_get(req, "rsb");
    if (!json_is_object(rsb))
        return bad("rsb", rsb, "an object {\"model\", \"entries\", \"candidates\"}");
    if ((rc = want_string(rsb, "rsb.model", 0, &model)))
        return rc;
    if (cb_rsb_model_parse(model, &mdl) != 0)
        return bad("rsb.model", json_object_get(rsb, "model"), "\"circular\" or \"underflow-btb\"");
    if ((rc = want_int(rsb, "rsb.entries", 1, CB_RSBSIM_MAX_ENTRIES, 0, &v)) ||
        (rc = want_bool(rsb, "rsb.candidates", &b)))
        return rc;
    s->m.rsb_model = (int)mdl;
    s->m.rsb_entries = (unsigned)v;
    s->m.rsb_candidates = b;
    return 0;
}

static int check_layout(json_t *req, served *s)
{
    json_t *l = json_object_get(req, "layout");
    static const char *const fields[] = {"layout.env_pad_bytes", "layout.stack_offset_bytes",
                                         "layout.heap_offset_bytes"};
    unsigned *to[] = {&s->lay.env_pad, &s->lay.stack_offset, &s->lay.heap_offset};
    long v;
    int rc;
    const char *seed;
    s->has_layout = json_is_object(l);
    if (json_is_null(l) || (s->mode == CB_REQUEST_COUNT && !l))
        return 0;
    if (!json_is_object(l))
        return bad("layout", l, "an object {\"seed\", \"env_pad_bytes\", \"stack_offset_bytes\", "
                   "\"heap_offset_bytes\"}, or null");
    if ((rc = want_string(l, "layout.seed", 0, &seed)))
        return rc;
    s->lay.seed = strtoull(seed, NULL, 16);
    for (size_t i = 0; i < 3; i++) {
        if ((rc = want_int(l, fields[i], 0, CB_INV_LAYOUT_SPAN - 1, 0, &v)))
            return rc;
        *to[i] = (unsigned)v;
    }
    return 0;
}

/* "turns": null or absent, or {"fd": N, "first": bool}: fd N (3 or above) is this process's end
 * of its ab pair's socket (a request run by hand has none). */
static int check_turns(json_t *req, served *s)
{
    json_t *tr = json_object_get(req, "turns");
    long fd;
    int rc, first = 0;
    s->turn_fd = -1;
    if (!tr || json_is_null(tr))
        return 0;
    if (!json_is_object(tr))
        return bad("turns", tr, "an object {\"fd\", \"first\"}, or null");
    if ((rc = want_int(tr, "turns.fd", 3, 1023, 0, &fd)) || (rc = want_bool(tr, "turns.first", &first)))
        return rc;
    int type;
    socklen_t len = sizeof type;
    if (getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
        return cb_usage_error("invalid request: field 'turns.fd' is %ld: not a stream socket this "
                              "process holds (valid: the fd of the socket its ab pair shares)", fd);
    s->turn_fd = (int)fd;
    s->turn_first = first;
    return 0;
}

/* This process on the request's CPU (the run's child is pinned already; a rerun by hand is
 * pinned here). */
static int pin(long cpu)
{
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0)
        return 0;
    return cb_usage_error("invalid request: field 'pin_cpu' is %ld: %s (valid: a CPU this "
                          "process may run on, or null)", cpu, strerror(errno));
}

/* Writes all of text to fd 1. */
int cb_request_result_fd = 1;

static int write_all(const char *text)
{
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t k = write(cb_request_result_fd, text + off, len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        off += (size_t)k;
    }
    return 0;
}

int cb_request_serve(json_t *req)
{
    served s = {0};
    int rc;
    if ((rc = check_identity(req, &s)) || (rc = check_params(req, &s)) ||
        (rc = check_measure(req, &s)) || (rc = check_layout(req, &s)) ||
        (rc = check_turns(req, &s)) || (rc = pin(s.pin)))
        return rc;
    cb_kmem_set_bytes_per_vma(s.kbytes);
    char buf[1024];
    json_t *res;
    if (cb_request_unsupported(&s.cell, cb_build_variant, buf, sizeof buf)) {
        res = record("unsupported", buf);
    } else if (s.mode == CB_REQUEST_COUNT) {
        res = cb_cell_count(&s.cell, &s.m);
    } else {
        cb_clock_init_hz(s.tsc_hz); /* the run's calibration when it gave one (docs/rsb.md) */
        /* A program that times itself (go, node, an external) takes no turns: the pair's two
         * processes then run one after the other. */
        cb_turns_begin(s.turn_fd, s.turn_first, !s.cell.impl->external);
        res = cb_inv_measure(&s.cell, &s.m, s.has_layout ? &s.lay : NULL);
        cb_turns_end();
        json_t *turns = cb_turns_json();
        if (turns)
            json_object_set_new(res, "turns", turns);
    }
    char *text = json_dumps(res, JSON_COMPACT);
    json_decref(res);
    rc = text && write_all(text) == 0 ? 0 : CB_CHILD_WRITE_FAILED;
    free(text);
    return rc;
}
