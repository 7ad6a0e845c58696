/* Named parameters of workloads and implementations: their definitions (type, default, range,
 * choices) and the resolved values of one cell. The CLI validates against the definitions; a
 * workload body only reads values. */
#ifndef CB_PARAMS_H
#define CB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

typedef enum cb_param_kind { CB_PARAM_INT, CB_PARAM_ENUM } cb_param_kind;

typedef struct cb_param_def {
    const char *name;
    cb_param_kind kind;
    const char *defval;          /* default, as it would be typed */
    int64_t min, max;            /* CB_PARAM_INT: inclusive range */
    const char *const *choices;  /* CB_PARAM_ENUM: NULL-terminated */
    const char *help;
    const char *quick;           /* --quick's value instead of the default, as typed; NULL: none */
} cb_param_def;

typedef struct cb_param_val {
    const cb_param_def *def;
    int64_t i;     /* CB_PARAM_INT */
    const char *s; /* CB_PARAM_ENUM: points into def->choices */
} cb_param_val;

enum { CB_MAX_PARAMS = 12 };

typedef struct cb_params {
    size_t n;
    cb_param_val v[CB_MAX_PARAMS];
} cb_params;

/* Value lookups for bodies: a missing name is a programming error and aborts. */
int64_t cb_params_int(const cb_params *p, const char *name);
const char *cb_params_str(const cb_params *p, const char *name);
const cb_param_val *cb_params_find(const cb_params *p, const char *name);

/* Parses a decimal integer: an optional '-', then digits only (leading zeros are decimal: "010"
 * is 10; no "0x", no '+', no spaces, no suffix). 0 with *out set, or -1 (not such an integer, or
 * outside min..max). */
int cb_parse_int(const char *text, int64_t min, int64_t max, int64_t *out);
/* Parses a decimal number: an optional '-', digits, optionally '.' and digits, optionally an
 * exponent (e or E, an optional sign, digits); no "0x", no '+', no spaces, no inf or nan, a
 * finite result. 0 with *out set, or -1. strtod alone takes " 5", "+5", "0x10" and "inf". */
int cb_parse_decimal(const char *text, double *out);
/* A value as typed, for a one-line message: its first 80 characters, then "..." if there were
 * more; control characters shown as '?'. The result lives in one of 8 rotating static buffers,
 * so one message may quote up to 8 values. */
const char *cb_quote(const char *text);

/* "Did you mean": the valid name nearest a mistyped one. Offer each valid name in turn; the
 * nearest by edit distance (letters compared without case; an insertion, a deletion, a change
 * or a swap of two neighbours is one edit), the first offered on a tie, is kept when it is near
 * enough to be a slip: at most 1 edit for a name of up to 3 characters, 2 up to 7, 3 beyond,
 * and fewer edits than the typed name has characters. */
typedef struct cb_nearest {
    const char *typed;
    char best[128]; /* "" while none is near enough */
    size_t dist;
    char hint[160];
} cb_nearest;
void cb_nearest_init(cb_nearest *n, const char *typed);
void cb_nearest_offer(cb_nearest *n, const char *name);
/* "; did you mean 'asm'?" (to follow the quoted bad value in a message), or "" when no name
 * offered was near enough. The text lives in n. */
const char *cb_nearest_hint(cb_nearest *n);

/* Parses text for def into v. Returns 0, or -1 with a one-line reason in err naming the value
 * and the valid choices or range. */
int cb_param_parse(const cb_param_def *def, const char *text, cb_param_val *v, char *err,
                   size_t errlen);

#endif
