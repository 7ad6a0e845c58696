/* Checked allocation, the one way harness/ allocates: a failure prints one line naming the size
 * and aborts (in a cell's child that is the cell failing with that line, docs/fault.md). None of
 * it runs inside a timed region. */
#ifndef CB_ALLOC_H
#define CB_ALLOC_H

#include <stddef.h>

void *cb_xmalloc(size_t n);
/* n elements of size bytes, zeroed; n * size overflowing is a failure too. */
void *cb_xcalloc(size_t n, size_t size);
void *cb_xrealloc(void *p, size_t n);
char *cb_xstrdup(const char *s);
char *cb_xstrndup(const char *s, size_t n);
/* A new string, printf-formatted. */
char *cb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
