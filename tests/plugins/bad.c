/* Deliberately broken plugins for tests/test_plugin.c, each the ucontext example with one
 * fault, chosen by a macro when it is built (the Makefile's test-plugins):
 *   BAD_CHECKSUM  every value a coroutine yields arrives one higher: different work
 *   BAD_FAMILY    says stackful but runs the function on its resumer's stack
 *   BAD_CRASH     the tenth resume dereferences NULL
 *   BAD_FIELDS    resume is NULL: refused when it is loaded
 *   BAD_STDOUT    works, but its constructor prints a line on stdout
 *   BAD_EXIT      its corobench_plugin() calls exit(0)
 *   BAD_CTOREXIT  its constructor calls exit(3)
 *   BAD_LIST      works, but has a 32-character name and a description of 3000 bytes with an
 *                 escape sequence, an invalid byte and a newline (what `list` prints) */
#define corobench_plugin example_plugin
#include "examples/ucontext/ucontext_plugin.c"
#undef corobench_plugin

static cb_plugin bad;

#if defined(BAD_CHECKSUM)
static uintptr_t bad_resume(void *co, uintptr_t val) { return uc_resume(co, val) + 1; }
#elif defined(BAD_FAMILY)
/* A "coroutine" that is a plain call: fn runs at the first resume on the caller's stack. */
static uintptr_t bad_resume(void *co, uintptr_t val)
{
    coro *c = co;
    c->val = c->fn(c->arg, val);
    c->done = 1;
    return c->val;
}
#elif defined(BAD_CRASH)
static uintptr_t bad_resume(void *co, uintptr_t val)
{
    static int n;
    if (++n == 10)
        *(volatile int *)(uintptr_t)(val & 0) = 1;
    return uc_resume(co, val);
}
#endif

#if defined(BAD_CHECKSUM)
#define BAD_NAME "bad-checksum"
#elif defined(BAD_FAMILY)
#define BAD_NAME "bad-family"
#elif defined(BAD_CRASH)
#define BAD_NAME "bad-crash"
#elif defined(BAD_STDOUT)
#define BAD_NAME "bad-stdout"
#define bad_resume uc_resume
#include <stdio.h>
__attribute__((constructor)) static void chatty(void) { printf("bad-stdout: loaded\n"); }
#elif defined(BAD_EXIT) || defined(BAD_CTOREXIT)
#define BAD_NAME "bad-exit"
#define bad_resume uc_resume
#include <stdlib.h>
#if defined(BAD_CTOREXIT)
__attribute__((constructor)) static void leave(void) { exit(3); }
#endif
#elif defined(BAD_LIST)
#define BAD_NAME "bad-list-a-name-of-thirty-two-ch" /* the longest a name may be */
#define bad_resume uc_resume
#include <string.h>
static char bad_desc[3000];
#else
#define BAD_NAME "bad-fields"
#define bad_resume NULL
#endif

const cb_plugin *corobench_plugin(void)
{
#if defined(BAD_EXIT)
    exit(0);
#endif
    bad = *example_plugin();
    bad.name = BAD_NAME;
    bad.resume = bad_resume;
#if defined(BAD_LIST)
    static const char head[] = "\033[31mred\033[0m \033]0;title\007 bad\xff byte, line\nbreak ",
                      tail[] = " END-OF-DESCRIPTION";
    memset(bad_desc, 'd', sizeof bad_desc - 1);
    memcpy(bad_desc, head, sizeof head - 1);
    memcpy(bad_desc + sizeof bad_desc - sizeof tail, tail, sizeof tail);
    bad.description = bad_desc;
#endif
    return &bad;
}
