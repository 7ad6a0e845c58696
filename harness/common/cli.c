/* The helpers every command shares. Every bad input is one line naming the bad value and the
 * valid choices, and exit status 2, before anything runs. */
#include "cli.h"
#include "harness/common/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cb_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("corobench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CB_EXIT_USAGE;
}

int cb_error_set(cb_error *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

char **cb_split_list(const char *s, size_t *n)
{
    size_t len = strlen(s), count = 1;
    for (const char *p = s; *p; p++)
        count += *p == ',';
    /* One allocation: the pointers, then a copy of the text they point into. */
    char **v = cb_xmalloc((count + 1) * sizeof *v + len + 1);
    char *text = (char *)(v + count + 1), *rest = text, *tok;
    memcpy(text, s, len + 1);
    *n = 0;
    while ((tok = strsep(&rest, ",")))
        v[(*n)++] = tok; /* empty items stay, as "", so "a,,b" is reported */
    v[*n] = NULL;
    return v;
}

void cb_bin_dir(char *buf, size_t len)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
    if (slash)
        snprintf(buf, len, "%.*s", (int)(slash - self), self);
    else
        snprintf(buf, len, "bin");
}
