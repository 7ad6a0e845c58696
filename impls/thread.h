/* The thread backend's limits (impls/backend_thread.c). */
#ifndef CB_THREAD_H
#define CB_THREAD_H

#include <stddef.h>
#include <stdint.h>

enum {
    CB_TH_ALT_STACK = 16384,    /* top of each thread's stack: its signal stack */
    CB_TH_KIB_PER_THREAD = 40,  /* kernel stack (16 KiB) and task, plus a touched stack page */
    CB_TH_VALGRIND_MAX = 500,   /* valgrind's default --max-threads */
    CB_TH_MARGIN = 64,          /* threads left to everything else */
};

/* Smallest `stack` a thread coroutine runs on: glibc's thread minimum plus the signal stack. */
size_t cb_thread_min_stack(void);
/* How many more threads this process can start, and in why the figures it comes from. */
uint64_t cb_thread_limit(char *why, size_t len);

#endif
