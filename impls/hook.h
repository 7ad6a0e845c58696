/* The interposition layer for stackful coroutines, as libco's and libgo's hooks: corobench
 * defines read, write, connect, accept and accept4 itself (impls/hook.c), so every call of them
 * in the process, from any code, comes here first. On a descriptor registered with cb_hook_fd
 * (non-blocking underneath), inside a coroutine, a call that would block stores the readiness it
 * waits for (EPOLLIN or EPOLLOUT) where the event loop looks for it and yields to the loop, then
 * tries again when resumed: blocking code, unmodified, runs asynchronously. Anywhere else (an
 * unregistered descriptor, or outside a coroutine) the call is the system call itself. Each call
 * that went through the hook is counted in cb_rt.hooked_calls. */
#ifndef CB_HOOK_H
#define CB_HOOK_H

#include <stdint.h>

/* Registers fd: while a coroutine waits in a call on it, *want holds the epoll direction; the
 * event loop resumes that coroutine once fd reports it (and clears *want). 0, or -1 (ENOMEM). */
int cb_hook_fd(int fd, uint32_t *want);
/* Forgets fd (before it is closed). */
void cb_hook_unfd(int fd);

#endif
