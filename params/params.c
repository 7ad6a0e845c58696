/* Parameter parsing and lookup; everything here runs before a cell starts. */
#include "params/params.h"

#include <ctype.h>
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

void cb_nearest_init(cb_nearest *n, const char *typed)
{
    n->typed = typed;
    n->best[0] = n->hint[0] = '\0';
    n->dist = SIZE_MAX;
}

/* Optimal string alignment distance, case ignored; names longer than 63 are never near. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

void cb_nearest_offer(cb_nearest *n, const char *name)
{
    size_t len = strlen(n->typed), dist = edit_distance(n->typed, name);
    size_t near = len <= 3 ? 1 : len <= 7 ? 2 : 3;
    if (dist > near || dist >= len || dist >= n->dist || strlen(name) >= sizeof n->best)
        return;
    n->dist = dist;
    snprintf(n->best, sizeof n->best, "%s", name);
}

const char *cb_nearest_hint(cb_nearest *n)
{
    n->hint[0] = '\0';
    if (n->best[0])
        snprintf(n->hint, sizeof n->hint, "; did you mean '%s'?", cb_quote(n->best));
    return n->hint;
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
        cb_nearest near;
        cb_nearest_init(&near, text);
        for (size_t i = 0; def->choices[i]; i++)
            cb_nearest_offer(&near, def->choices[i]);
        size_t n = (size_t)snprintf(err, errlen, "invalid value '%s' for parameter %s%s (valid: ",
                                    cb_quote(text), def->name, cb_nearest_hint(&near));
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

