/* Reading results documents (load.h): the JSON parsed with the parser's line and column on an
 * error, then every field a reader uses checked for type, range and finiteness, and every cell
 * present once. After cb_results_load succeeds a reader may use those fields without checking
 * their type again (no NULL reaches strcmp, no string is read as 0); optional ones may be absent. */
#include "load.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/common/build.h"
#include "harness/common/cli.h"
#include "harness/common/untrusted.h"
#include "harness/measure/rsbcal.h"
#include "impls/impls.h"

typedef struct checker {
    const char *name; /* the file, as given */
    char where[64];   /* "cell 3: " or "" */
    int failed;
    cb_error *err; /* the first failure */
    int record;    /* a machine's record (CB_RECORD_SCHEMA): no spread, no samples */
} checker;

/* A key of run.unavailable: a plain name ('tsc'), or a plain kind, a colon and a plain name
 * ('impl:copystack', as run/results.c writes one per implementation unavailable here). */
static int unavailable_key(const char *key)
{
    const char *colon = strchr(key, ':');
    if (!colon)
        return cb_plain_name(key, 0);
    char kind[65];
    size_t n = (size_t)(colon - key);
    if (n == 0 || n >= sizeof kind)
        return 0;
    memcpy(kind, key, n);
    kind[n] = '\0';
    return cb_plain_name(kind, 0) && cb_plain_name(colon + 1, 0);
}

static const char *json_kind(const json_t *v)
{
    if (!v)
        return "missing";
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "missing";
    }
}

static int bad(checker *k, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(checker *k, const char *field, const char *fmt, ...)
{
    if (k->failed++)
        return -1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cb_error_set(k->err, "results '%s': %sfield '%s' %s", cb_quote(k->name), k->where,
                        field, what);
}

/* Absent members are allowed where a reader does without them (opt): a results file written by
 * `export --format deterministic` (the CI baseline) has no timing and little of the machine. */
enum { REQUIRED = 0, OPTIONAL = 1 };

/* A string (non-empty unless empty_ok). */
static int want_string(checker *k, json_t *obj, const char *field, const char *path, int empty_ok,
                       int opt)
{
    json_t *v = json_object_get(obj, field);
    if (!v && opt)
        return 0;
    if (!json_is_string(v))
        return bad(k, path, "is %s (valid: a string)", json_kind(v));
    if (!empty_ok && !*json_string_value(v))
        return bad(k, path, "is empty (valid: a non-empty string)");
    return 0;
}

static int want_object(checker *k, json_t *obj, const char *field, const char *path, int opt)
{
    json_t *v = json_object_get(obj, field);
    if (!v && opt)
        return 0;
    return json_is_object(v) ? 0 : bad(k, path, "is %s (valid: an object)", json_kind(v));
}

static int want_integer(checker *k, json_t *obj, const char *field, const char *path,
                        json_int_t min, int opt)
{
    json_t *v = json_object_get(obj, field);
    if (!v && opt)
        return 0;
    if (!json_is_integer(v))
        return bad(k, path, "is %s (valid: an integer)", json_kind(v));
    if (json_integer_value(v) < min)
        return bad(k, path, "is %lld (valid: an integer >= %lld)",
                   (long long)json_integer_value(v), (long long)min);
    return 0;
}

/* A finite number >= 0 (> 0 when positive); null allowed when null_ok. */
static int want_number(checker *k, json_t *obj, const char *field, const char *path, int positive,
                       int null_ok)
{
    json_t *v = json_object_get(obj, field);
    if (null_ok && json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return bad(k, path, "is %s (valid: a number%s)", json_kind(v), null_ok ? " or null" : "");
    double x = json_number_value(v);
    if (!isfinite(x) || x < 0 || (positive && x == 0))
        return bad(k, path, "is %g (valid: a finite number %s 0)", x, positive ? ">" : ">=");
    return 0;
}

/* Optional members: absent, or of the type wanted. */
static int optional_type(checker *k, json_t *obj, const char *field, int type1, int type2,
                         const char *valid)
{
    json_t *v = json_object_get(obj, field);
    if (!v || (int)json_typeof(v) == type1 || (int)json_typeof(v) == type2)
        return 0;
    return bad(k, field, "is %s (valid: %s)", json_kind(v), valid);
}

static const char *const statuses[] = {"ok", "failed", "timeout", "unsupported", NULL};

/* An array of finite numbers >= 0 (or absent). */
static int check_samples(checker *k, json_t *samples, const char *field)
{
    json_t *s;
    size_t i;
    if (samples && !json_is_array(samples))
        return bad(k, field, "is %s (valid: an array of numbers)", json_kind(samples));
    json_array_foreach(samples, i, s)
    {
        if (!json_is_number(s) || !isfinite(json_number_value(s)) || json_number_value(s) < 0) {
            char f[96];
            snprintf(f, sizeof f, "%s[%zu]", field, i);
            if (json_is_number(s)) /* the value itself, not "a number" */
                return bad(k, f, "is %g (valid: a finite number >= 0)", json_number_value(s));
            return bad(k, f, "is %s (valid: a finite number >= 0)", json_kind(s));
        }
    }
    return 0;
}

static int check_timing(checker *k, json_t *cell)
{
    json_t *ns = json_object_get(cell, "ns_per_op");
    if (ns && (want_object(k, cell, "ns_per_op", "ns_per_op", REQUIRED) ||
               want_number(k, ns, "median", "ns_per_op.median", 1, 0)))
        return -1;
    if (ns && !k->record && /* a record keeps the estimate and its interval alone */
        (want_number(k, ns, "mad", "ns_per_op.mad", 0, 0) ||
               want_number(k, ns, "min", "ns_per_op.min", 0, 0) ||
               want_number(k, ns, "max", "ns_per_op.max", 0, 0) ||
               want_integer(k, ns, "reps", "ns_per_op.reps", 1, REQUIRED)))
        return -1;
    json_t *ci = json_object_get(ns, "ci95");
    if (ci && !json_is_null(ci) &&
        (!json_is_array(ci) || json_array_size(ci) != 2 ||
         !json_is_number(json_array_get(ci, 0)) || !json_is_number(json_array_get(ci, 1)) ||
         !isfinite(json_number_value(json_array_get(ci, 0))) ||
         !isfinite(json_number_value(json_array_get(ci, 1))) ||
         json_number_value(json_array_get(ci, 0)) > json_number_value(json_array_get(ci, 1))))
        return bad(k, "ns_per_op.ci95", "is %s (valid: null or [lo, hi], finite, lo <= hi)",
                   json_kind(ci));
    if (check_samples(k, json_object_get(cell, "samples_ns_per_op"), "samples_ns_per_op"))
        return -1;
    /* Schema 2: one entry per process, each with its own samples (estimate.h reads them). */
    json_t *invs = json_object_get(cell, "invocations"), *inv;
    size_t i;
    if (invs && (!json_is_array(invs) || !json_array_size(invs)))
        return bad(k, "invocations", "is %s (valid: a non-empty array of objects)",
                   json_kind(invs));
    json_array_foreach(invs, i, inv)
    {
        char f[64];
        snprintf(f, sizeof f, "invocations[%zu]", i);
        if (!json_is_object(inv))
            return bad(k, f, "is %s (valid: an object)", json_kind(inv));
        json_t *s = json_object_get(inv, "samples_ns_per_op");
        snprintf(f, sizeof f, "invocations[%zu].samples_ns_per_op", i);
        if (!json_is_array(s) || !json_array_size(s))
            return bad(k, f, "is %s (valid: a non-empty array of numbers)", json_kind(s));
        if (check_samples(k, s, f))
            return -1;
    }
    return 0;
}

static int check_extras(checker *k, json_t *cell)
{
    json_t *m = json_object_get(cell, "memory");
    if (optional_type(k, cell, "memory", JSON_OBJECT, JSON_NULL, "an object or null") ||
        optional_type(k, cell, "rsbsim", JSON_OBJECT, JSON_NULL, "an object or null") ||
        optional_type(k, cell, "sched", JSON_OBJECT, JSON_OBJECT, "an object") ||
        optional_type(k, cell, "counters", JSON_OBJECT, JSON_NULL, "an object or null") ||
        optional_type(k, cell, "create_ns_per_coro", JSON_OBJECT, JSON_NULL,
                      "an object or null") ||
        optional_type(k, cell, "malloc_free_ns", JSON_OBJECT, JSON_NULL, "an object or null") ||
        optional_type(k, cell, "malloc_free_bytes", JSON_INTEGER, JSON_NULL,
                      "an integer or null"))
        return -1;
    json_t *ipo = json_object_get(cell, "instructions_per_op");
    if (ipo && (want_object(k, cell, "instructions_per_op", "instructions_per_op", 0) ||
                want_number(k, ipo, "value", "instructions_per_op.value", 1, 0) ||
                optional_type(k, ipo, "source", JSON_STRING, JSON_STRING, "a string")))
        return -1;
    /* Its invocations' pace (harness/run/pace.h): read by a later run's estimate. */
    json_t *pace = json_object_get(cell, "pace");
    if (pace && want_object(k, cell, "pace", "pace", 0))
        return -1;
    for (size_t i = 0; pace && i < CB_PACE_FIELDS; i++) {
        char f[32];
        snprintf(f, sizeof f, "pace.%s", cb_pace_fields[i]);
        if (want_number(k, pace, cb_pace_fields[i], f, 0, 0))
            return -1;
    }
    json_t *allocs = json_object_get(cell, "heap_allocs_per_op");
    if (allocs && !json_is_number(allocs) && !json_is_null(allocs))
        return bad(k, "heap_allocs_per_op", "is %s (valid: a number or null)", json_kind(allocs));
    if (json_is_object(m)) {
        static const char *const per_coro[] = {"touched_bytes_per_coro", "heap_bytes_per_coro",
                                               "rss_bytes_per_coro", NULL};
        json_t *point = json_object_get(m, "point");
        if (point && !json_is_string(point) && !json_is_null(point))
            return bad(k, "memory.point", "is %s (valid: a string or null)", json_kind(point));
        for (size_t i = 0; per_coro[i]; i++) {
            char f[64];
            snprintf(f, sizeof f, "memory.%s", per_coro[i]);
            if (json_object_get(m, per_coro[i]) && want_number(k, m, per_coro[i], f, 0, 1))
                return -1;
        }
    }
    /* The simulator's counts: whichever are present, numbers >= 0. */
    json_t *rsb = json_object_get(cell, "rsbsim"), *v;
    const char *name;
    json_object_foreach(rsb, name, v)
    {
        char f[160];
        snprintf(f, sizeof f, "rsbsim.%s", cb_quote(name));
        if (!json_is_string(v) && want_number(k, rsb, name, f, 0, 0))
            return -1;
    }
    return 0;
}

/* impl_row (docs/results-schema.md): absent in files written before it. */
static int check_impl_row(checker *k, json_t *cell)
{
    json_t *row = json_object_get(cell, "impl_row"), *v;
    if (!row)
        return 0;
    if (want_object(k, cell, "impl_row", "impl_row", REQUIRED) ||
        want_string(k, row, "kind", "impl_row.kind", 0, REQUIRED) ||
        want_integer(k, row, "stackful_order", "impl_row.stackful_order", 1, OPTIONAL) ||
        want_string(k, row, "colour", "impl_row.colour", 0, OPTIONAL) ||
        want_integer(k, row, "point", "impl_row.point", 0, OPTIONAL) ||
        want_object(k, row, "defaults", "impl_row.defaults", REQUIRED))
        return -1;
    const char *colour = json_string_value(json_object_get(row, "colour"));
    if (colour && (strlen(colour) != 7 || colour[0] != '#' ||
                   strspn(colour + 1, "0123456789abcdefABCDEF") != 6))
        return bad(k, "impl_row.colour", "is '%s' (valid: #rrggbb)", cb_quote(colour));
    const char *kind = json_string_value(json_object_get(row, "kind"));
    int known = 0;
    for (int i = 0; i < CB_KIND_COUNT; i++)
        known |= !strcmp(kind, cb_impl_kind_name((cb_impl_kind)i));
    if (!known)
        return bad(k, "impl_row.kind",
                   "is '%s' (valid: corobench, peer, language, plugin, external)", cb_quote(kind));
    json_t *lacks = json_object_get(row, "lacks");
    size_t i;
    if (!json_is_array(lacks))
        return bad(k, "impl_row.lacks", "is %s (valid: an array of names)", json_kind(lacks));
    json_array_foreach(lacks, i, v) if (!json_is_string(v) ||
                                        !cb_plain_name(json_string_value(v), 0)) return bad(
        k, "impl_row.lacks", "has %s (valid: capability names, %s)", json_kind(v),
        CB_PLAIN_NAME_VALID);
    const char *name;
    json_object_foreach(json_object_get(row, "defaults"), name, v)
    {
        if (!cb_plain_name(name, 0) ||
            !(json_is_integer(v) ||
              (json_is_string(v) && cb_plain_name(json_string_value(v), 0))))
            return bad(k, "impl_row.defaults",
                       "has '%s' (valid: plain names, each an integer or a plain string: %s)",
                       cb_quote(name), CB_PLAIN_NAME_VALID);
    }
    return 0;
}

static int check_cell(checker *k, json_t *cell)
{
    if (!json_is_object(cell))
        return bad(k, "cell", "is %s (valid: an object)", json_kind(cell));
    if (want_string(k, cell, "impl", "impl", 0, REQUIRED) ||
        want_string(k, cell, "family", "family", 0, REQUIRED) ||
        want_string(k, cell, "workload", "workload", 0, REQUIRED) ||
        want_string(k, cell, "variant", "variant", 0, REQUIRED) ||
        want_string(k, cell, "unit", "unit", 0, OPTIONAL) ||
        want_object(k, cell, "params", "params", REQUIRED) ||
        want_string(k, cell, "status", "status", 0, REQUIRED) || check_impl_row(k, cell))
        return -1;
    /* Names and parameters are identifiers every reader writes as they are (a table's column,
     * a plot's key, a CSV's row): plain, or the file is refused (docs/bad-input.md). */
    static const char *const names[] = {"impl", "family", "workload", "variant", "unit"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *s = json_string_value(json_object_get(cell, names[i]));
        if (s && !cb_plain_name(s, i == 4))
            return bad(k, names[i], "is '%s' (valid: %s%s)", cb_quote(s), CB_PLAIN_NAME_VALID,
                       i == 4 ? ", or spaces" : "");
    }
    const char *name;
    json_t *v;
    json_object_foreach(json_object_get(cell, "params"), name, v)
    {
        char f[160];
        snprintf(f, sizeof f, "params.%s", cb_quote(name));
        if (!json_is_integer(v) && !json_is_string(v))
            return bad(k, f, "is %s (valid: an integer or a string)", json_kind(v));
        if (!cb_plain_name(name, 0))
            return bad(k, f, "has a name that is not plain (valid: %s)", CB_PLAIN_NAME_VALID);
        if (json_is_string(v) && !cb_plain_name(json_string_value(v), 0))
            return bad(k, f, "is '%s' (valid: an integer, or %s)", cb_quote(json_string_value(v)),
                       CB_PLAIN_NAME_VALID);
    }
    const char *st = json_string_value(json_object_get(cell, "status"));
    size_t s = 0;
    while (statuses[s] && strcmp(statuses[s], st))
        s++;
    if (!statuses[s])
        return bad(k, "status", "is '%s' (valid: ok, failed, timeout, unsupported)", cb_quote(st));
    json_t *err = json_object_get(cell, "error");
    if (s == 0 ? !json_is_null(err) && !json_is_string(err) && err != NULL : !json_is_string(err))
        return bad(k, "error", "is %s (valid: %s)", json_kind(err),
                   s == 0 ? "null or a string" : "a string, the reason the cell did not run");
    if (s != 0)
        return check_extras(k, cell);
    if (want_integer(k, cell, "ops", "ops", 1, OPTIONAL) ||
        want_integer(k, cell, "suspensions", "suspensions", 0, OPTIONAL) ||
        want_string(k, cell, "checksum", "checksum", 0, OPTIONAL) || check_timing(k, cell))
        return -1;
    return check_extras(k, cell);
}

/* "workload impl/variant {params}": what makes a cell the same cell. */
static char *cell_identity(json_t *cell)
{
    /* Parameters by value: depth 0 and depth "0" are the same point (as text, the way run
     * parses a value), else a pair of them passed as two cells. */
    json_t *byval = json_object(), *v;
    const char *k;
    json_object_foreach(json_object_get(cell, "params"), k, v)
    {
        char num[32];
        if (json_is_integer(v))
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        json_object_set_new(byval, k, json_string(json_is_integer(v) ? num
                                                  : json_string_value(v) ?: ""));
    }
    char *params = json_dumps(byval, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(byval);
    char *id = cb_xasprintf("%s %s/%s %s", json_string_value(json_object_get(cell, "workload")),
                            json_string_value(json_object_get(cell, "impl")),
                            json_string_value(json_object_get(cell, "variant")),
                            params ? params : "{}");
    free(params);
    return id;
}

static int check_top(checker *k, json_t *doc)
{
    if (!json_is_object(doc))
        return bad(k, "(document)", "is %s (valid: an object)", json_kind(doc));
    json_t *schema = json_object_get(doc, "schema");
    if (!json_is_string(schema) || (strcmp(json_string_value(schema), CB_SCHEMA) &&
                                    strcmp(json_string_value(schema), CB_SCHEMA_1) &&
                                    strcmp(json_string_value(schema), CB_RECORD_SCHEMA)))
        return bad(k, "schema", "is %s%s%s (valid: \"%s\", \"%s\" or \"%s\")",
                   json_is_string(schema) ? "'" : json_kind(schema),
                   json_is_string(schema) ? cb_quote(json_string_value(schema)) : "",
                   json_is_string(schema) ? "'" : "", CB_SCHEMA, CB_SCHEMA_1, CB_RECORD_SCHEMA);
    k->record = cb_results_is_record(doc);
    json_t *m = json_object_get(doc, "machine"), *b = json_object_get(doc, "build");
    if (want_string(k, doc, "created_utc", "created_utc", 1, OPTIONAL) ||
        want_string(k, doc, "git_commit", "git_commit", 1, OPTIONAL) ||
        want_object(k, doc, "machine", "machine", OPTIONAL) ||
        want_string(k, m, "hostname", "machine.hostname", 1, OPTIONAL) ||
        want_string(k, m, "cpu_model", "machine.cpu_model", 1, OPTIONAL) ||
        want_string(k, m, "kernel", "machine.kernel", 1, OPTIONAL) ||
        want_string(k, m, "clock", "machine.clock", 1, OPTIONAL) ||
        want_string(k, m, "arch", "machine.arch", 1, OPTIONAL) ||
        want_integer(k, m, "logical_cpus", "machine.logical_cpus", 0, OPTIONAL) ||
        want_object(k, doc, "build", "build", OPTIONAL) ||
        want_string(k, b, "compiler", "build.compiler", 1, OPTIONAL) ||
        want_string(k, b, "cflags", "build.cflags", 1, OPTIONAL) ||
        optional_type(k, doc, "unavailable", JSON_OBJECT, JSON_OBJECT, "an object") ||
        optional_type(k, doc, "run", JSON_OBJECT, JSON_OBJECT, "an object"))
        return -1;
    /* machine.rsb labels every simulated count and claim 1's cost: checked as written. */
    json_t *rsb = json_object_get(m, "rsb");
    char field[64], why[256];
    if (rsb && !json_is_object(rsb))
        return bad(k, "machine.rsb", "is %s (valid: an object)", json_kind(rsb));
    if (rsb && cb_rsbcal_check_machine(rsb, field, sizeof field, why, sizeof why))
        return bad(k, field, "%s", why);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(doc, "unavailable"), key, v)
    {
        char f[160];
        snprintf(f, sizeof f, "unavailable.%s", cb_quote(key));
        if (!json_is_string(v))
            return bad(k, f, "is %s (valid: a string, the reason)", json_kind(v));
        if (!unavailable_key(key))
            return bad(k, f,
                       "has a name that is not plain (valid: NAME or KIND:NAME, as 'tsc' or "
                       "'impl:copystack', each %s)",
                       CB_PLAIN_NAME_VALID);
    }
    json_t *cells = json_object_get(doc, "cells");
    if (!json_is_array(cells))
        return bad(k, "cells", "is %s (valid: an array of cells)", json_kind(cells));
    return 0;
}

/* ---- A machine's record (CB_RECORD_SCHEMA, docs/record.md) --------------------------------
 * The one place that recognises a record. Its compact cells are checked and expanded into the
 * cells of a results file, under the names a results file gives them, so that every reader
 * reads a record as it reads results: what a record does not keep (samples, invocations, the
 * spread, the cell's other measurements) is absent, as it is in the CI baseline. Its claims'
 * verdicts are checked here; the report's claims take them from the record (claims/table.c),
 * since the rules that made them needed the samples the record leaves out. */

const char *const cb_pace_fields[CB_PACE_FIELDS] = {"wall_s", "rep_ms", "warmup_reps", "reps"};

int cb_results_is_record(json_t *doc)
{
    const char *s = json_string_value(json_object_get(doc, "schema"));
    return s && !strcmp(s, CB_RECORD_SCHEMA);
}

/* The memory a record keeps per coroutine: NAME for the results' memory.NAME_bytes_per_coro. */
static const char *const record_memory[] = {"reserved", "touched", "stack_used",
                                            "heap",     "rss",     "kernel"};
enum { RECORD_MEMORY = sizeof record_memory / sizeof record_memory[0] };
static const char *const record_verdicts[] = {"supported", "contradicted", "inconclusive",
                                              "not measured"};

/* ns: [median] (one invocation: no interval) or [median, lo, hi], each finite and > 0. */
static int record_ns(checker *k, json_t *ns, json_t *cell)
{
    size_t n = json_is_array(ns) ? json_array_size(ns) : 0;
    if (n != 1 && n != 3)
        return bad(k, "ns", "is %s (valid: [median] or [median, lo, hi], ns per op)",
                   json_kind(ns));
    double x[3];
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(ns, i);
        x[i] = json_is_number(v) ? json_number_value(v) : NAN;
        if (!isfinite(x[i]) || x[i] <= 0)
            return bad(k, "ns", "has %s at %zu (valid: finite numbers > 0)",
                       json_is_number(v) ? "a number out of range" : json_kind(v), i);
    }
    if (n == 3 && x[1] > x[2])
        return bad(k, "ns", "has lo %g above hi %g (valid: [median, lo, hi], lo <= hi)", x[1],
                   x[2]);
    json_object_set_new(cell, "ns_per_op",
                        n == 3 ? json_pack("{s:f, s:[f, f]}", "median", x[0], "ci95", x[1], x[2])
                               : json_pack("{s:f, s:n}", "median", x[0], "ci95"));
    json_object_set_new(cell, "single_invocation", json_boolean(n == 1));
    return 0;
}

/* memory: {NAME: bytes per coroutine} of record_memory. */
static int record_mem(checker *k, json_t *mem, json_t *cell)
{
    const char *name;
    json_t *v, *out = json_object();
    json_object_set_new(cell, "memory", out);
    json_object_foreach(mem, name, v)
    {
        size_t i = 0;
        while (i < RECORD_MEMORY && strcmp(name, record_memory[i]))
            i++;
        char f[160];
        snprintf(f, sizeof f, "memory.%s", cb_quote(name));
        if (i == RECORD_MEMORY)
            return bad(k, f, "is not kept by a record (valid: reserved, touched, stack_used, "
                             "heap, rss, kernel)");
        if (want_number(k, mem, name, f, 0, 1))
            return -1;
        snprintf(f, sizeof f, "%s_bytes_per_coro", name);
        json_object_set(out, f, v);
    }
    return 0;
}

/* A record's cell as a results cell, or NULL with *k's error. */
static json_t *record_cell(checker *k, json_t *doc, json_t *rc)
{
    if (!json_is_object(rc)) {
        bad(k, "cell", "is %s (valid: an object)", json_kind(rc));
        return NULL;
    }
    if (want_string(k, rc, "impl", "impl", 0, REQUIRED) ||
        want_string(k, rc, "workload", "workload", 0, REQUIRED) ||
        want_object(k, rc, "params", "params", REQUIRED) ||
        want_string(k, rc, "variant", "variant", 0, OPTIONAL) ||
        want_string(k, rc, "status", "status", 0, OPTIONAL) ||
        want_string(k, rc, "unit", "unit", 0, OPTIONAL) ||
        want_object(k, rc, "memory", "memory", OPTIONAL))
        return NULL;
    const char *impl = json_string_value(json_object_get(rc, "impl"));
    const char *wl = json_string_value(json_object_get(rc, "workload"));
    json_t *row = json_object_get(json_object_get(doc, "impls"), impl);
    if (!json_is_string(json_object_get(row, "family"))) {
        bad(k, "impl", "is '%s', which the record's impls does not name with its family "
                       "(valid: a name of impls)",
            cb_quote(impl));
        return NULL;
    }
    json_t *c = json_object();
    json_object_set(c, "impl", json_object_get(rc, "impl"));
    json_object_set(c, "family", json_object_get(row, "family"));
    if (json_object_get(row, "row"))
        json_object_set(c, "impl_row", json_object_get(row, "row"));
    json_object_set(c, "workload", json_object_get(rc, "workload"));
    json_object_set(c, "params", json_object_get(rc, "params"));
    json_t *variant = json_object_get(rc, "variant"), *status = json_object_get(rc, "status");
    json_object_set_new(c, "variant", variant ? json_incref(variant) : json_string("plain"));
    json_t *unit = json_object_get(rc, "unit");
    if (!unit)
        unit = json_object_get(json_object_get(doc, "units"), wl);
    if (unit)
        json_object_set(c, "unit", unit);
    json_object_set_new(c, "status", status ? json_incref(status) : json_string("ok"));
    json_t *err = json_object_get(rc, "error");
    json_object_set_new(c, "error", err ? json_incref(err) : json_null());
    json_t *ns = json_object_get(rc, "ns"), *mem = json_object_get(rc, "memory");
    json_t *instr = json_object_get(rc, "instr");
    if ((ns && record_ns(k, ns, c)) || (mem && record_mem(k, mem, c)) ||
        (instr && (want_object(k, rc, "instr", "instr", REQUIRED) ||
                   want_number(k, instr, "value", "instr.value", 0, 0) ||
                   want_string(k, instr, "source", "instr.source", 0, REQUIRED)))) {
        json_decref(c);
        return NULL;
    }
    if (instr)
        json_object_set(c, "instructions_per_op", instr);
    /* pace: [wall_s, rep_ms, warmup_reps, reps], the results' object (checked with the
     * expanded cell) */
    json_t *pace = json_object_get(rc, "pace");
    if (pace && (!json_is_array(pace) || json_array_size(pace) != CB_PACE_FIELDS)) {
        bad(k, "pace", "is %s (valid: an array of %d numbers: wall_s, rep_ms, warmup_reps, "
                       "reps)",
            json_kind(pace), CB_PACE_FIELDS);
        json_decref(c);
        return NULL;
    }
    if (pace) {
        json_t *o = json_object();
        for (size_t i = 0; i < CB_PACE_FIELDS; i++)
            json_object_set(o, cb_pace_fields[i], json_array_get(pace, i));
        json_object_set_new(c, "pace", o);
    }
    return c;
}

/* A Summary point's winner in a record (report/claims: cq_winner_name). */
static const char *const record_winners[] = {"stackful", "stackless", "undecided"};

/* summary (records written before it have none): the Summary's points, each {workload, point,
 * stackful, stackless, ratio: [est] or [est, lo, hi], p, winner}. The report matches each to
 * the record's cells, whose names it prints. */
static int record_summary(checker *k, json_t *doc)
{
    json_t *pts = json_object_get(doc, "summary"), *v;
    size_t i;
    if (!pts)
        return 0;
    if (!json_is_array(pts))
        return bad(k, "summary", "is %s (valid: an array of the Summary's points)",
                   json_kind(pts));
    json_array_foreach(pts, i, v)
    {
        snprintf(k->where, sizeof k->where, "summary point %zu: ", i);
        if (!json_is_object(v))
            return bad(k, "point", "is %s (valid: an object)", json_kind(v));
        if (want_string(k, v, "workload", "workload", 0, REQUIRED) ||
            want_string(k, v, "point", "point", 1, REQUIRED) ||
            want_string(k, v, "stackful", "stackful", 0, REQUIRED) ||
            want_string(k, v, "stackless", "stackless", 0, REQUIRED) ||
            want_number(k, v, "p", "p", 0, 0) || want_string(k, v, "winner", "winner", 0, REQUIRED))
            return -1;
        json_t *r = json_object_get(v, "ratio");
        size_t n = json_is_array(r) ? json_array_size(r) : 0;
        double x[3];
        if (n != 1 && n != 3)
            return bad(k, "ratio", "is %s (valid: [ratio] or [ratio, lo, hi])", json_kind(r));
        for (size_t j = 0; j < n; j++) {
            json_t *e = json_array_get(r, j);
            x[j] = json_is_number(e) ? json_number_value(e) : NAN;
            if (!isfinite(x[j]) || x[j] <= 0)
                return bad(k, "ratio", "has %s at %zu (valid: finite numbers > 0)",
                           json_is_number(e) ? "a number out of range" : json_kind(e), j);
        }
        if (n == 3 && x[1] > x[2])
            return bad(k, "ratio", "has lo %g above hi %g (valid: [ratio, lo, hi], lo <= hi)",
                       x[1], x[2]);
        const char *w = json_string_value(json_object_get(v, "winner"));
        size_t j = 0;
        while (j < 3 && strcmp(w, record_winners[j]))
            j++;
        if (j == 3)
            return bad(k, "winner", "is '%s' (valid: stackful, stackless, undecided)",
                       cb_quote(w));
    }
    k->where[0] = '\0';
    return 0;
}

/* The record's claims (their verdicts and figures), its Summary's points, units and
 * implementations checked, its cells expanded in place. */
static int record_expand(checker *k, json_t *doc)
{
    json_t *claims = json_object_get(doc, "claims"), *v;
    size_t i;
    if (!json_is_array(claims))
        return bad(k, "claims", "is %s (valid: an array of verdicts)", json_kind(claims));
    json_array_foreach(claims, i, v)
    {
        snprintf(k->where, sizeof k->where, "claim %zu: ", i);
        if (!json_is_object(v))
            return bad(k, "claim", "is %s (valid: an object)", json_kind(v));
        if (want_integer(k, v, "number", "number", 1, REQUIRED) ||
            want_string(k, v, "id", "id", 0, REQUIRED) ||
            want_string(k, v, "verdict", "verdict", 0, REQUIRED) ||
            want_string(k, v, "figures", "figures", 1, REQUIRED))
            return -1;
        const char *verdict = json_string_value(json_object_get(v, "verdict"));
        size_t j = 0;
        while (j < 4 && strcmp(verdict, record_verdicts[j]))
            j++;
        if (j == 4)
            return bad(k, "verdict",
                       "is '%s' (valid: supported, contradicted, inconclusive, not measured)",
                       cb_quote(verdict));
    }
    k->where[0] = '\0';
    if (record_summary(k, doc))
        return -1;
    const char *name;
    if (want_object(k, doc, "units", "units", REQUIRED) ||
        want_object(k, doc, "impls", "impls", REQUIRED))
        return -1;
    json_object_foreach(json_object_get(doc, "units"), name, v) if (!json_is_string(v)) return bad(
        k, "units", "has %s for '%s' (valid: a string per workload)", json_kind(v),
        cb_quote(name));
    json_object_foreach(json_object_get(doc, "impls"), name, v)
    {
        if (!json_is_object(v) || !json_is_string(json_object_get(v, "family")))
            return bad(k, "impls", "has %s for '%s' (valid: {family, row} per implementation)",
                       json_kind(v), cb_quote(name));
    }
    json_t *cells = json_object_get(doc, "cells"), *out = json_array();
    json_array_foreach(cells, i, v)
    {
        snprintf(k->where, sizeof k->where, "cell %zu: ", i);
        json_t *c = record_cell(k, doc, v);
        if (!c) {
            json_decref(out);
            return -1;
        }
        json_array_append_new(out, c);
    }
    k->where[0] = '\0';
    json_object_set_new(doc, "cells", out);
    return 0;
}

int cb_results_check(json_t *doc, const char *name, cb_error *e)
{
    checker k = {.name = name, .err = e};
    if (check_top(&k, doc) || (k.record && record_expand(&k, doc)))
        return -1;
    json_t *cells = json_object_get(doc, "cells"), *cell, *seen = json_object();
    size_t i;
    json_array_foreach(cells, i, cell)
    {
        snprintf(k.where, sizeof k.where, "cell %zu: ", i);
        if (check_cell(&k, cell))
            break;
        char *id = cell_identity(cell);
        json_t *first = json_object_get(seen, id);
        if (first) {
            cb_error_set(e,
                         "results '%s': cells %lld and %zu are the same cell (%s) (valid: each "
                         "cell once; merge runs with distinct parameters)",
                         cb_quote(name), (long long)json_integer_value(first), i, cb_quote(id));
            k.failed = 1;
        } else {
            json_object_set_new(seen, id, json_integer((json_int_t)i));
        }
        free(id);
        if (k.failed)
            break;
    }
    json_decref(seen);
    return k.failed ? -1 : 0;
}

json_t *cb_results_parse(const char *name, const char *data, size_t len, cb_error *e)
{
    json_error_t jerr;
    json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        cb_error_set(e, "cannot read results '%s': %s at line %d, column %d (valid: a %s file)",
                     cb_quote(name), jerr.text, jerr.line, jerr.column, CB_SCHEMA);
        return NULL;
    }
    if (cb_results_check(doc, name, e)) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

enum { CB_RESULTS_MAX_BYTES = 256 << 20 };

json_t *cb_results_load(const char *path, cb_error *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        cb_error_set(e, "cannot read results '%s': %s (valid: a %s file)", cb_quote(path),
                     strerror(errno), CB_SCHEMA);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
        S_ISSOCK(st.st_mode)) {
        close(fd);
        cb_error_set(e, "results '%s' is a %s (valid: a %s file)", cb_quote(path),
                     S_ISDIR(st.st_mode) ? "directory" : "device or special file", CB_SCHEMA);
        return NULL;
    }
    /* A file (or a pipe: `report <(...)`) read whole, up to CB_RESULTS_MAX_BYTES: a pipe fed
     * from /dev/zero would otherwise take all the memory there is. */
    char *data = NULL;
    size_t len = 0, cap = 0;
    int too_big = st.st_size > CB_RESULTS_MAX_BYTES;
    while (!too_big) {
        if (len == cap) {
            if (cap == CB_RESULTS_MAX_BYTES) {
                too_big = 1;
                break;
            }
            cap = cap ? cap * 2 : 65536;
            char *d = cb_xrealloc(data, cap);
            data = d;
        }
        ssize_t k = read(fd, data + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            cb_error_set(e, "cannot read results '%s': %s (valid: a %s file)", cb_quote(path),
                         strerror(errno), CB_SCHEMA);
            free(data);
            close(fd);
            return NULL;
        }
        if (k == 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    if (too_big) {
        cb_error_set(e, "results '%s' is larger than %d MiB (valid: a %s file up to that size)",
                     cb_quote(path), CB_RESULTS_MAX_BYTES >> 20, CB_SCHEMA);
        free(data);
        return NULL;
    }
    json_t *doc = cb_results_parse(path, data, len, e);
    free(data);
    return doc;
}
