/* The languages' runtimes that run as programs of their own (go, node; docs/external.md): the
 * cell's child starts the runtime's program with one JSON request as its argument (workload,
 * parameters, warm-up, repetitions, batch) and reads one JSON reply on its stdout (ops,
 * checksum, suspensions, samples in ns per op, peak RSS, per-coroutine bytes), or an error. The
 * runtime times its own repetitions with its monotonic clock. */
#ifndef CB_EXTERNAL_H
#define CB_EXTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "cell.h"
#include "workloads/run_once.h"

#define CB_EXT_PROTOCOL "corobench-external/1"
/* The most a runtime's program may write on stdout or on stderr (a reply of --reps 100000
 * samples is about 2 MB). */
#define CB_EXT_REPLY_MAX (16 << 20)

/* What the harness asks for. batch 0 means "auto": the runtime chooses it as the C cells do. */
typedef struct cb_ext_request {
    const char *workload;
    const cb_params *params; /* the workload's and the implementation's, resolved */
    unsigned warmup, reps;
    double warmup_ms; /* warm-up goes on at least this long (a JIT compiles meanwhile) */
    uint64_t batch;
    double min_rep_ms;
    uint64_t max_batch;
    int memory; /* a memory pass at the rest point before the timed repetitions */
} cb_ext_request;

/* What a runtime answered (after cb_ext_run returned 0). */
typedef struct cb_ext_reply {
    json_t *doc; /* the whole reply; owned: json_decref it */
    uint64_t ops, checksum, suspensions, batch;
    json_t *samples;        /* array of ns per op, borrowed from doc */
    int64_t peak_rss;       /* bytes, -1 if not given */
    double coroutine_bytes; /* < 0 if not given */
    char coroutine_bytes_note[160]; /* why a figure given was not taken (negative), or "" */
    uint64_t rest_coroutines;       /* coroutines alive at the rest point; 0 if not given */
    int has_rest_rss;               /* rest_rss was given */
    int64_t rest_rss;               /* anonymous resident bytes grown by the rest point */
} cb_ext_reply;

/* Starts the runtime `name` ("go", "node", "csharp"), sends the request and reads the reply within
 * timeout_s (<= 0: none). 0 with *out filled; 1 when the runtime has no body for the workload
 * (err holds its reason); -1 on any failure (err says what). */
int cb_ext_run(const char *name, const cb_ext_request *rq, double timeout_s, cb_ext_reply *out,
               char *err, size_t errlen);
/* A program's stdout, text[0..len), read as a reply and checked against docs/external.md (bytes
 * after the document, a NUL byte among them, and a key given twice are refused): 0 with *out
 * filled (out->doc owned: json_decref it); 1 when the runtime has no body for the workload (err
 * holds its reason); -1 with the field and its value, or the runtime's own error, in err; -2
 * when the text is not one JSON document (err holds jansson's reason). err is one line of valid
 * UTF-8. tests/fuzz/fuzz_external.c fuzzes it. */
int cb_ext_read_reply(const char *name, const char *text, size_t len, uint64_t max_batch,
                      cb_ext_reply *out, char *err, size_t errlen);
/* What in rp differs from corobench's own run of the same point (want: one run of the C sm
 * body, the reference check-external uses too): "; ops 64, not 63; checksum 0x..., not 0x...;
 * suspensions ...; samples_ns_per_op has 3 entries, not reps (2)" into diff ("" when the same
 * work). */
void cb_ext_diff_work(const cb_ext_reply *rp, const cb_wl_once *want, uint64_t reps, char *diff,
                      size_t len);
/* The timed pass of a go or node cell: the measured part of its cell object, as
 * cb_cell_measure's for a C cell (status ok, unsupported or failed). */
json_t *cb_ext_measure(const cb_cell *c, const cb_measure_opts *m);

#endif
