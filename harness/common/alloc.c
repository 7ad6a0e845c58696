/* Checked allocation (alloc.h): every harness allocation goes through these, so that running out
 * of memory is one line and an abort, never a NULL dereferenced later. */
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p, size_t n)
{
    if (!p) {
        fprintf(stderr, "corobench: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *cb_xmalloc(size_t n) { return checked(malloc(n ? n : 1), n); }

void *cb_xcalloc(size_t n, size_t size)
{
    return checked(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *cb_xrealloc(void *p, size_t n) { return checked(realloc(p, n ? n : 1), n); }

char *cb_xstrdup(const char *s) { return checked(strdup(s), strlen(s) + 1); }

char *cb_xstrndup(const char *s, size_t n) { return checked(strndup(s, n), n + 1); }

char *cb_xasprintf(const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return checked(n < 0 ? NULL : s, n < 0 ? 0 : (size_t)n + 1);
}
