/* Field access by name for the readers of results (compare, export, report), the list of
 * deterministic fields (docs/ci.md says what each depends on), and string building. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "harness/common/untrusted.h"

const cb_det_field cb_det_fields[] = {
    {"checksum", CB_DET_WORK},
    {"suspensions", CB_DET_WORK},
    {"ops", CB_DET_WORK},
    {"rsbsim.model", CB_DET_MODEL},
    {"rsbsim.entries", CB_DET_MODEL},
    {"rsbsim.rets", CB_DET_MODEL},
    {"rsbsim.mispredicted", CB_DET_MODEL},
    {"rsbsim.mispredicted_top", CB_DET_MODEL},
    {"rsbsim.mispredicted_underflow", CB_DET_MODEL},
    {"rsbsim.underflow_predicted", CB_DET_MODEL},
    {"memory.heap_bytes_per_coro", CB_DET_MEMORY},
    {"memory.heap_allocs_per_coro", CB_DET_MEMORY},
    {"memory.touched_bytes_per_coro", CB_DET_MEMORY},
    {NULL, 0},
};

json_t *cb_field(json_t *obj, const char *path)
{
    char key[128];
    while (obj && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        obj = json_object_get(obj, key);
        path += n + (path[n] == '.');
    }
    return obj;
}

int cb_field_number(json_t *obj, const char *path, double *v)
{
    json_t *x = cb_field(obj, path);
    if (!json_is_number(x))
        return 0;
    *v = json_number_value(x);
    return 1;
}

void cb_append(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (n < len)
        vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

const char *cb_str(json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

int cb_cell_heap_measured(json_t *cell)
{
    json_t *rs = cb_field(cell, "memory.runtime_stats");
    return rs && !json_is_null(rs);
}

int cb_cell_ok(json_t *cell)
{
    const char *st = cb_str(cell, "status");
    return st && !strcmp(st, "ok");
}

static void md_dest_part(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '%')
            fprintf(out, "%%%02X", c);
        else
            fputc(c, out);
    }
}

void cb_md_dest(FILE *out, const char *dir, const char *base)
{
    fputc('<', out);
    if (dir && *dir) {
        md_dest_part(out, dir);
        fputc('/', out);
    }
    md_dest_part(out, base);
    fputc('>', out);
}

void cb_md_code(FILE *out, const char *text) { cb_esc_md_code(out, text); }

void cb_machine_label(size_t i, char *buf, size_t len)
{
    char rev[16];
    size_t n = 0;
    for (size_t k = i + 1; k && n < sizeof rev; k = (k - 1) / 26)
        rev[n++] = (char)('A' + (k - 1) % 26);
    size_t j = 0;
    for (; j < n && j + 1 < len; j++)
        buf[j] = rev[n - 1 - j];
    if (len)
        buf[j] = '\0';
}

int cb_has_token(const char *text, const char *token)
{
    size_t n = strlen(token);
    for (const char *p = text; n && (p = strstr(p, token)); p += n)
        if ((p == text || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}
