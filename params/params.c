/* Parameter parsing and lookup; everything here runs before a cell starts. */
#include "params/params.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cb_param_val *cb_params_find(const cb_params *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i].def->name, name) == 0)
            return &p->v[i];
    return NULL;
}

static const cb_param_val *must_find(const cb_params *p, const char *name)
{
    const cb_param_val *v = cb_params_find(p, name);
    if (!v) {
        fprintf(stderr, "corobench: parameter '%s' requested but not set\n", name);
        abort();
    }
    return v;
}

int64_t cb_params_int(const cb_params *p, const char *name) { return must_find(p, name)->i; }

const char *cb_params_str(const cb_params *p, const char *name) { return must_find(p, name)->s; }

int cb_parse_int(const char *text, int64_t min, int64_t max, int64_t *out)
{
    const char *p = text;
    int neg = *p == '-';
    p += neg;
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    int64_t x = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    if (x < min || x > max)
        return -1;
    *out = x;
    return 0;
}

int cb_parse_decimal(const char *text, double *out)
{
    const char *p = text + (*text == '-');
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        size_t frac = strspn(p + 1, "0123456789");
        digits += frac;
        p += 1 + frac;
    }
    if (!digits)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        size_t exp = strspn(p, "0123456789");
        if (!exp)
            return -1;
        p += exp;
    }
    if (*p)
        return -1;
    errno = 0;
    double v = strtod(text, NULL); /* the syntax is checked: strtod only converts */
    if (errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

const char *cb_quote(const char *text)
{
    enum { SHOWN = 80 };
    static char bufs[8][SHOWN + 4];
    static unsigned next;
    char *b = bufs[next++ % 8];
    size_t n = 0;
    for (; text[n] && n < SHOWN; n++) /* control characters would break the one line */
        b[n] = (unsigned char)text[n] < 0x20 || text[n] == 0x7f ? '?' : text[n];
    memcpy(b + n, text[n] ? "..." : "", text[n] ? 4 : 1);
    return b;
}

int cb_param_parse(const cb_param_def *def, const char *text, cb_param_val *v, char *err,
                   size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->def = def;
    if (def->kind == CB_PARAM_ENUM) {
        for (size_t i = 0; def->choices[i]; i++)
            if (strcmp(def->choices[i], text) == 0) {
                v->s = def->choices[i];
                return 0;
            }
        size_t n = (size_t)snprintf(err, errlen, "invalid value '%s' for parameter %s (valid: ",
                                    cb_quote(text), def->name);
        for (size_t i = 0; def->choices[i] && n < errlen; i++)
            n += (size_t)snprintf(err + n, errlen - n, "%s%s", i ? ", " : "", def->choices[i]);
        if (n < errlen)
            snprintf(err + n, errlen - n, ")");
        return -1;
    }
    int64_t x;
    /* Plain decimal integers only (no 0x, no k/M suffixes), so a result's params say exactly
     * what ran and "010" means ten everywhere. */
    if (cb_parse_int(text, def->min, def->max, &x) != 0) {
        snprintf(err, errlen,
                 "invalid value '%s' for parameter %s (valid: a decimal integer from %" PRId64
                 " to %" PRId64 ")",
                 cb_quote(text), def->name, def->min, def->max);
        return -1;
    }
    v->i = x;
    return 0;
}

