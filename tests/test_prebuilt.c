/* io style=prebuilt (docs/workloads-io.md): the blocking code is a shared library built apart
 * from corobench (examples/legacy-client/, bin/examples/liblegacy_client.so), so its read and
 * write reach the hooks as a binary's calls do. A host test, not a core one: the library is
 * built for the host only (the AArch64 cross build under qemu has none). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "impls/impls.h"
#include "impls/root.h"
#include "impls/runtime.h"
#include "test.h"
#include "workloads/run_once.h"
#include "workloads/workload.h"

typedef struct outcome {
    cb_wl_result r;
    uint64_t suspensions, hooked;
} outcome;

static outcome run_point(const cb_workload *wl, const cb_impl *im, const cb_params *p)
{
    char err[512] = "";
    cb_wl_once once;
    uint64_t h0 = cb_rt.hooked_calls;
    if (cb_wl_run_once(wl, im, p, NULL, &once, err, sizeof err))
        CB_FAIL("%s/%s: %s", wl->name, im->name, err);
    return (outcome){once.res, once.suspensions, cb_rt.hooked_calls - h0};
}

/* Every stackful implementation that runs here: the library's calls do explicit's work, with
 * explicit's suspensions, every one of them through the hooks (4 a message: the client's write
 * and read in legacy_call, the server's read and write). */
CB_TEST(workload_io_prebuilt_library_same_work_through_the_hooks)
{
    const cb_workload *wl = cb_workload_find("io");
    static const char *const ex[] = {"conns", "4", "msgs", "30", NULL};
    static const char *const pb[] = {"conns", "4", "msgs", "30", "style", "prebuilt", NULL};
    size_t ran = 0;
    for (size_t i = 0; i < cb_nimpls; i++) {
        const cb_impl *im = &cb_impls[i];
        char why[512];
        if (im->body != CB_BODY_STACKFUL || cb_impl_unavailable(im))
            continue;
        cb_params pe, pp;
        cb_test_params(wl, im, ex, &pe);
        cb_test_params(wl, im, pb, &pp);
        if (cb_wl_unsupported(wl, im, &pp, why, sizeof why))
            continue;
        outcome oe = run_point(wl, im, &pe), op = run_point(wl, im, &pp);
        CB_CHECK_EQ_U64(op.r.checksum, oe.r.checksum);
        CB_CHECK_EQ_U64(op.r.ops, oe.r.ops);
        CB_CHECK_EQ_U64(op.suspensions, oe.suspensions);
        CB_CHECK(op.suspensions > 0);
        CB_CHECK_EQ_U64(oe.hooked, 0);
        CB_CHECK(op.hooked >= 4 * 4 * 30);
        ran++;
    }
    CB_CHECK(ran > 0);
}

/* The stackless families cannot run it: a library's blocking call cannot suspend them. */
CB_TEST(workload_io_prebuilt_library_needs_a_stack)
{
    const cb_workload *wl = cb_workload_find("io");
    const cb_impl *sm = cb_impl_find("sm");
    CB_CHECK(wl && sm);
    static const char *const pb[] = {"style", "prebuilt", NULL};
    cb_params p;
    char why[512];
    cb_test_params(wl, sm, pb, &p);
    const char *r = cb_wl_unsupported(wl, sm, &p, why, sizeof why);
    CB_CHECK(r != NULL);
    CB_CHECK_CONTAINS(r, "style=prebuilt");
    CB_CHECK_CONTAINS(r, "valid here: style=explicit");
}

/* Without the hooks the same library fails at once on the cell's non-blocking sockets (EAGAIN, as
 * a blocking client would): the suspensions above are the hooks' doing, not the library's. */
CB_TEST(workload_io_prebuilt_library_fails_outside_a_coroutine)
{
    char path[PATH_MAX];
    const char *root = cb_root_dir();
    CB_CHECK(root != NULL);
    snprintf(path, sizeof path, "%s/%s", root, CB_LEGACY_LIB);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        CB_FAIL("%s (make examples builds it)", dlerror());
    int (*recv_fn)(int, void *, size_t) = (int (*)(int, void *, size_t))dlsym(h, "legacy_recv");
    int (*send_fn)(int, const void *, size_t) =
        (int (*)(int, const void *, size_t))dlsym(h, "legacy_send");
    CB_CHECK(recv_fn && send_fn);
    int sv[2];
    CB_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    char buf[8] = "message";
    errno = 0;
    CB_CHECK(recv_fn(sv[0], buf, sizeof buf) == -1);
    CB_CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
    CB_CHECK(send_fn(sv[1], "message", sizeof buf) == 0);
    CB_CHECK(recv_fn(sv[0], buf, sizeof buf) == 0);
    CB_CHECK_CONTAINS(buf, "message");
    close(sv[0]);
    close(sv[1]);
    dlclose(h);
}
