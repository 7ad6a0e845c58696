/* Parameter parsing and lookup; everything here runs before a cell starts. */
#include "params/params.h"

#include <errno.h>
#include <inttypes.h>
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
                                    text, def->name);
        for (size_t i = 0; def->choices[i] && n < errlen; i++)
            n += (size_t)snprintf(err + n, errlen - n, "%s%s", i ? ", " : "", def->choices[i]);
        if (n < errlen)
            snprintf(err + n, errlen - n, ")");
        return -1;
    }
    char *end = NULL;
    errno = 0;
    long long x = strtoll(text, &end, 0);
    /* Plain integers only (no k/M suffixes), so a result's params say exactly what ran. */
    if (errno || end == text || *end != '\0' || x < def->min || x > def->max) {
        snprintf(err, errlen,
                 "invalid value '%s' for parameter %s (valid: an integer from %" PRId64
                 " to %" PRId64 ")",
                 text, def->name, def->min, def->max);
        return -1;
    }
    v->i = x;
    return 0;
}

