/* compare's output, in one of three forms (docs/ci.md): text for a terminal (every line within
 * CB_CMP_COLUMNS, a long one wrapped at a space with an indented continuation), md for a
 * pull-request comment (the problems as a list, the timing as a table), json for a program
 * (schema corobench-compare/1). compare.c decides; this file only collects and writes:
 * problems first (errors, then changes, then notes), then the timed cells with regressions
 * first, then the summary lines. --only-changed leaves the unchanged cells out of the table. */
#ifndef CB_CMPOUT_H
#define CB_CMPOUT_H

#include <stddef.h>

enum { CB_CMP_COLUMNS = 100 };

typedef enum cb_cmp_format { CB_CMP_TEXT, CB_CMP_MD, CB_CMP_JSON } cb_cmp_format;

/* The verdicts of a timed cell, in the order the table lists them. */
typedef enum cb_cmp_verdict {
    CB_CMP_REGRESSED,
    CB_CMP_IMPROVED,
    CB_CMP_INCONCLUSIVE,
    CB_CMP_UNKNOWN, /* ab's: the interval crosses the threshold, after the fresh rounds */
    CB_CMP_UNCHANGED,
} cb_cmp_verdict;

typedef struct cb_cmp_out cb_cmp_out;

/* "text", "md" or "json" into *f; -1 for any other name. */
int cb_cmp_format_parse(const char *name, cb_cmp_format *f);
cb_cmp_out *cb_cmp_out_new(cb_cmp_format f, int only_changed);
/* The command named in the md form's heading ("compare" unless set; ab sets "ab"). */
void cb_cmp_out_command(cb_cmp_out *o, const char *name);
/* The files of each side, for the json form's record. */
void cb_cmp_out_files(cb_cmp_out *o, const char *side, const char *file);
/* A problem or a note: kind is "ERROR", "CHANGED" or "note"; text says what. */
void cb_cmp_out_problem(cb_cmp_out *o, const char *kind, const char *cell, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A timed cell: the two figures (ns per op), new/base with its 95% interval (lo, hi: NaN when
 * a side has one invocation), and what decided the verdict (the interval, or why there is
 * none). */
void cb_cmp_out_cell(cb_cmp_out *o, const char *cell, double base, double new, double ratio,
                     double lo, double hi, const char *detail, cb_cmp_verdict v);
/* The instructions per op of the cell added last (base, new > 0; else nothing), and whether
 * they changed beyond their own threshold: shown in a column of their own once a cell has
 * them, and in the json form's cell as instructions_per_op. */
void cb_cmp_out_instr(cb_cmp_out *o, double base, double new, int changed);
/* A summary line; name is its key in the json form. */
void cb_cmp_out_summary(cb_cmp_out *o, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes everything to stdout with the exit status compare will return, and frees o. */
void cb_cmp_out_finish(cb_cmp_out *o, int status);
/* Frees o, writing nothing (bad input: the usage line is all the output). */
void cb_cmp_out_discard(cb_cmp_out *o);

#endif
