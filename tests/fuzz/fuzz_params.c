/* libFuzzer target: the parameter parser. An input is read as a --param argument, NAME=V1,V2,...
 * (or just values); every value is parsed against the definitions of that NAME in every workload
 * and implementation (another name: one definition the input picks), and against the decimal
 * integer parser, with these properties checked:
 *  - an accepted integer is in its range and is exactly the decimal number typed (strtoll agrees);
 *  - an accepted choice is one of the definition's choices, the very string typed;
 *  - a rejected value gets one line naming the parameter and "valid: ...", with the value quoted
 *    as typed and cut to 80 characters with an ellipsis. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/cli.h"
#include "impls/impls.h"
#include "params/params.h"
#include "workloads/workload.h"

static int all_decimal(const char *s)
{
    s += *s == '-';
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static void check_value(const cb_param_def *d, const char *text)
{
    cb_param_val v;
    char err[512];
    err[0] = '\0';
    if (cb_param_parse(d, text, &v, err, sizeof err) == 0) {
        if (v.def != d)
            abort();
        if (d->kind == CB_PARAM_INT) {
            errno = 0;
            long long ref = strtoll(text, NULL, 10);
            if (!all_decimal(text) || errno || ref != v.i || v.i < d->min || v.i > d->max)
                abort();
        } else if (!v.s || strcmp(v.s, text)) {
            abort();
        }
        return;
    }
    if (!strstr(err, d->name) || !strstr(err, "valid: ") || strchr(err, '\n'))
        abort();
    const char *q = cb_quote(text);
    char want[84];
    size_t n = 0;
    for (; text[n] && n < 80; n++)
        want[n] = (unsigned char)text[n] < 0x20 || text[n] == 0x7f ? '?' : text[n];
    snprintf(want + n, sizeof want - n, "%s", text[n] ? "..." : "");
    if (strcmp(q, want))
        abort();
    if (strlen(text) < 200 && !strstr(err, q))
        abort(); /* the message quotes the value as typed */
}

static void check_int(const char *text)
{
    int64_t x;
    errno = 0;
    long long ref = strtoll(text, NULL, 10);
    int fits = all_decimal(text) && errno == 0;
    int ok = cb_parse_int(text, INT64_MIN, INT64_MAX, &x) == 0;
    if (ok != fits || (ok && x != ref))
        abort();
    if (ok && cb_parse_int(text, x, x, &x) != 0)
        abort();
}

/* Every parameter definition of every workload and implementation. */
static const cb_param_def *defs[256];
static size_t ndefs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    for (size_t w = 0; w < cb_nworkloads + cb_nimpls; w++) {
        const cb_param_def *d =
            w < cb_nworkloads ? cb_workloads[w]->params : cb_impls[w - cb_nworkloads].params;
        for (; d && d->name && ndefs < 256; d++)
            defs[ndefs++] = d;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = strndup((const char *)data, size);
    if (!text)
        abort();
    char *eq = strchr(text, '=');
    const char *name = eq ? text : NULL;
    if (eq)
        *eq = '\0';
    size_t n;
    char **values = cb_split_list(eq ? eq + 1 : text, &n);
    for (size_t i = 0; i < n; i++) {
        check_int(values[i]);
        int named = 0;
        for (size_t k = 0; name && k < ndefs; k++)
            if (!strcmp(name, defs[k]->name)) {
                check_value(defs[k], values[i]);
                named = 1;
            }
        if (!named) /* an unknown name: one definition, chosen by the input */
            check_value(defs[(i + size) % ndefs], values[i]);
    }
    free(values);
    free(text);
    return 0;
}
