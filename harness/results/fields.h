/* Named fields of a results cell (docs/results-schema.md) for the readers of results: a dotted
 * path into a cell ("rsbsim.mispredicted_per_op", "memory.totals.heap_bytes"), and the list of
 * the cell's deterministic fields, which compare checks exactly and the CI gate keeps. */
#ifndef CB_FIELDS_H
#define CB_FIELDS_H

#include <jansson.h>
#include <stdio.h>

/* The value at a dotted path below obj ("a.b.c"), or NULL. A key containing a dot cannot be
 * reached; no schema key has one. */
json_t *cb_field(json_t *obj, const char *path);
/* The number at path (integer or real) in *v; 0 when there is none. */
int cb_field_number(json_t *obj, const char *path, double *v);

/* Why a deterministic field matters when it differs. */
typedef enum cb_det_kind {
    CB_DET_WORK,  /* the cell did other work: never comparable, always an error */
    CB_DET_MODEL, /* the simulated return stack's counts (exact for a given model and binary) */
    CB_DET_MEMORY /* bytes and allocations per coroutine at the rest point */
} cb_det_kind;

typedef struct cb_det_field {
    const char *path;
    cb_det_kind kind;
} cb_det_field;

/* The deterministic fields of an ok cell, NULL-terminated: the same binary on the same grid
 * gives the same values on every run. What they depend on across machines: docs/ci.md. */
extern const cb_det_field cb_det_fields[];

/* 1 when the cell's heap figures (memory.heap_bytes_per_coro, heap_allocs_per_coro) come from a
 * garbage-collected runtime's own statistics (memory.runtime_stats: go, node): the collector
 * decides them, so they are measurements, kept out of every exact comparison. The C families'
 * (and Lua's, counted by its allocator) are exact. */
int cb_cell_heap_measured(json_t *cell);
/* The string at key of obj, or NULL. */
const char *cb_str(json_t *obj, const char *key);
/* Whether a cell ran (status "ok"). */
int cb_cell_ok(json_t *cell);
/* Appends printf-formatted text to the NUL-terminated string in buf (of size len), truncating:
 * how the readers build their sentences and gnuplot command lines. */
void cb_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Whether token ("depth=8") is one of the space-separated words of text. */
int cb_has_token(const char *text, const char *token);

/* Markdown: a link destination "<dir/base>" (dir may be NULL) with the characters a destination
 * in angle brackets cannot hold (<, >, newline, control characters) percent-encoded, so a path
 * with spaces or newlines links right; and text in a code span (untrusted.h's cb_esc_md_code:
 * control characters shown as ?, '|' as "\|", fenced with more backticks than it holds). */
void cb_md_dest(FILE *out, const char *dir, const char *base);
void cb_md_code(FILE *out, const char *text);
/* A report's label for the i-th machine (from 0): A..Z, then AA, AB..., never repeating. */
void cb_machine_label(size_t i, char *buf, size_t len);

#endif
