/* A cell's memory footprint: reserved and resident stack bytes (the stack allocator's counters and
 * mincore), runtime heap bytes (cb_rt) cross-checked with mallinfo2, RSS and page-table bytes
 * (/proc/self), peak RSS and page faults (getrusage). The snapshot runs with the clock paused,
 * reads /proc with open/read into stack buffers (no malloc between the two mallinfo2 reads it
 * compares) and is taken once per cell, on its first run. */
#include "memory.h"

#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "impls/runtime.h"
#include "kmem.h"
#include "impls/stack.h"
#include "workloads/workload.h"

/* mallinfo2 vs cb_rt: glibc adds at most 8 bytes of header and 15 of rounding to a chunk, and a
 * chunk is at least 32 bytes; below, tcache may hand back chunks freed before the baseline. */
enum { MEM_CHUNK_OVERHEAD = 32, MEM_SLACK = 64 * 1024 };

/* Below these many coroutines at the rest point a per-coroutine figure is mostly something else:
 * RSS moves by whole pages and with the process's own growth; the kernel's bytes per VMA are an
 * average over thousands (a maple-tree node holds many VMAs, a slab page many objects). */
enum { MEM_MIN_CORO_KERNEL = 1000 };

typedef struct mem_snap {
    int64_t rss, pagetables;    /* bytes: anonymous RSS (statm resident - shared), VmPTE */
    int64_t heap, allocs;       /* cb_rt: live bytes, allocations made */
    int64_t malloc_bytes;       /* mallinfo2: uordblks + hblkhd */
    int64_t touched, reserved;  /* stack bytes resident (mincore), stack bytes reserved (live) */
    int64_t stack_used;         /* sum of the stacks' high-water marks */
    int64_t bookkeeping;        /* resident bytes of the stack allocator's own arrays */
    int64_t vmas;               /* mappings of the process (/proc/self/maps lines) */
} mem_snap;

static struct {
    int armed, taken;
    const char *point; /* "rest" or "end_of_run" */
    uint64_t alive;    /* coroutines alive at the point; 0: the workload did not say */
    mem_snap base, at;
    int64_t faults0, faults_in_snap, faults;
    const char *error; /* the first probe that failed, NULL if none */
    /* the current repetition */
    int rested;
    uint64_t rest_t, rest_alive, paused;
} mem;

static int64_t faults_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (int64_t)ru.ru_minflt + (int64_t)ru.ru_majflt;
}

/* Reads a small /proc file into buf, NUL-terminated; -1 on failure. */
static int read_proc(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t k;
    while (n + 1 < len && (k = read(fd, buf + n, len - 1 - n)) > 0)
        n += (size_t)k;
    close(fd);
    buf[n] = '\0';
    return n ? 0 : -1;
}

static void snapshot(mem_snap *s)
{
    char buf[4096];
    long pg = sysconf(_SC_PAGESIZE);
    /* malloc first: nothing below allocates, but read it before anything could. */
    struct mallinfo2 mi = mallinfo2();
    s->malloc_bytes = (int64_t)(mi.uordblks + mi.hblkhd);
    s->heap = (int64_t)cb_rt.heap_live_bytes;
    s->allocs = (int64_t)cb_rt.heap_allocs;
    s->reserved = (int64_t)cb_stack_stat.live_reserved_bytes;
    uint64_t touched = 0, used = 0;
    if (cb_stack_usage(&touched, &used) != 0 && !mem.error)
        mem.error = "mincore over the stack mappings failed";
    s->touched = (int64_t)touched;
    s->stack_used = (int64_t)used;
    s->bookkeeping = (int64_t)cb_stack_bookkeeping_bytes();
    s->vmas = cb_kmem_vma_count();
    if (s->vmas < 0 && !mem.error)
        mem.error = "cannot read /proc/self/maps";
    /* Anonymous pages only: file pages (code mapped in by fault-around as new code first runs)
     * are not what coroutines cost. */
    long long size = 0, resident = 0, shared = 0;
    if (read_proc("/proc/self/statm", buf, sizeof buf) != 0 ||
        sscanf(buf, "%lld %lld %lld", &size, &resident, &shared) != 3) {
        if (!mem.error)
            mem.error = "cannot read /proc/self/statm";
    }
    s->rss = (int64_t)(resident - shared) * pg;
    s->pagetables = 0;
    const char *pte = read_proc("/proc/self/status", buf, sizeof buf) == 0 ? strstr(buf, "VmPTE:")
                                                                           : NULL;
    if (pte)
        s->pagetables = strtoll(pte + 6, NULL, 10) * 1024;
    else if (!mem.error)
        mem.error = "no VmPTE in /proc/self/status";
}

static void take(uint64_t alive, const char *point)
{
    int64_t f0 = faults_now();
    snapshot(&mem.at);
    mem.faults_in_snap += faults_now() - f0;
    mem.alive = alive;
    mem.point = point;
    mem.armed = 0;
    mem.taken = 1;
}

static void (*snap_pause)(void *), (*snap_resume)(void *);
static void *snap_ctx;

void cb_mem_on_snapshot(void (*pause)(void *), void (*resume)(void *), void *ctx)
{
    snap_pause = pause;
    snap_resume = resume;
    snap_ctx = ctx;
}

/* cb_wl_rest_hook: on the driver's stack, between two phases of the workload's run(). */
static void rest_hook(uint64_t alive)
{
    if (mem.rested && !mem.armed)
        return; /* a later instance of the batch: nothing to record, no clock read */
    uint64_t t = cb_clock_now();
    if (!mem.rested) {
        mem.rested = 1;
        mem.rest_t = t;
        mem.rest_alive = alive;
    }
    if (mem.armed) {
        if (snap_pause)
            snap_pause(snap_ctx);
        take(alive, "rest");
        if (snap_resume)
            snap_resume(snap_ctx);
        mem.paused += cb_clock_now() - t;
    }
}

void cb_mem_install(void)
{
    memset(&mem, 0, sizeof mem);
    cb_wl_rest_hook = rest_hook;
    /* Keep freed heap in the process, as the stack pool keeps stacks: glibc would otherwise trim
     * the top of the heap (and unmap large chunks) whenever a run frees more than 128 KiB, and
     * every kept repetition would fault its heap back in; a workload that creates and destroys
     * 10^4..10^6 coroutines per run then times the kernel's page faults, not the model. The
     * fixed mmap threshold also stops glibc moving it as chunks are freed. */
    mallopt(M_TRIM_THRESHOLD, -1);
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
}

void cb_mem_begin(void)
{
    mem.faults0 = faults_now();
    snapshot(&mem.base);
    mem.faults_in_snap = faults_now() - mem.faults0;
    mem.armed = 1;
}

void cb_mem_rep_begin(void)
{
    mem.rested = 0;
    mem.paused = 0;
}

void cb_mem_end(void)
{
    if (mem.armed)
        take(0, "end_of_run");
    mem.faults = faults_now() - mem.faults0 - mem.faults_in_snap;
}

uint64_t cb_mem_rep_paused(void) { return mem.paused; }

int cb_mem_rep_rest(uint64_t t0, uint64_t *ticks, uint64_t *alive)
{
    if (!mem.rested)
        return 0;
    *ticks = mem.rest_t - t0;
    *alive = mem.rest_alive;
    return 1;
}

static json_t *per_coro(int64_t total)
{
    return mem.alive ? json_real((double)total / (double)mem.alive) : json_null();
}

/* A per-coroutine figure that needs at least min coroutines at the rest point; else null, and
 * the reason under null_reasons. */
static json_t *per_coro_min(double total, uint64_t min, const char *field, const char *why,
                            json_t *reasons)
{
    char text[256];
    if (mem.alive >= min)
        return json_real(total / (double)mem.alive);
    snprintf(text, sizeof text, "%s: %llu coroutines at the rest point, fewer than %llu",
             why, (unsigned long long)mem.alive, (unsigned long long)min);
    json_object_set_new(reasons, field, json_string(text));
    return json_null();
}

json_t *cb_mem_json(uint64_t ops)
{
    if (!mem.taken)
        return json_null();
    const mem_snap *b = &mem.base, *a = &mem.at;
    int64_t reserved = a->reserved - b->reserved, touched = a->touched - b->touched;
    int64_t heap = a->heap - b->heap, allocs = a->allocs - b->allocs;
    /* The stack allocator's list of mappings is the harness's (cb_stack_usage walks it), not
     * the coroutines': its resident growth is taken out of RSS. */
    int64_t book = a->bookkeeping - b->bookkeeping;
    int64_t mall = a->malloc_bytes - b->malloc_bytes, rss = a->rss - b->rss - book;
    int64_t vmas = a->vmas - b->vmas;
    double per_vma = cb_kmem_bytes_per_vma(), kernel = (double)vmas * per_vma;
    int64_t pte = a->pagetables - b->pagetables, used = a->stack_used - b->stack_used;
    char check[256];
    if (mall >= heap - MEM_SLACK && mall <= heap + allocs * MEM_CHUNK_OVERHEAD + MEM_SLACK)
        snprintf(check, sizeof check, "ok");
    else
        snprintf(check, sizeof check,
                 "mismatch: malloc grew by %lld bytes, the runtime counted %lld bytes in %lld "
                 "allocations",
                 (long long)mall, (long long)heap, (long long)allocs);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const char *modes = cb_stack_modes_used();
    json_t *o = json_object();
    json_object_set_new(o, "point", json_string(mem.point));
    json_object_set_new(o, "coroutines", mem.alive ? json_integer((json_int_t)mem.alive)
                                                   : json_null());
    json_object_set_new(o, "reserved_bytes_per_coro", per_coro(reserved));
    json_object_set_new(o, "touched_bytes_per_coro", per_coro(touched));
    json_object_set_new(o, "stack_used_bytes_per_coro", per_coro(used));
    json_object_set_new(o, "heap_bytes_per_coro", per_coro(heap));
    json_object_set_new(o, "malloc_bytes_per_coro", per_coro(mall));
    json_object_set_new(o, "heap_allocs_per_coro", per_coro(allocs));
    json_object_set_new(o, "heap_check", json_string(check));
    json_t *reasons = json_object();
    json_object_set_new(o, "rss_bytes_per_coro",
                        mem.alive ? per_coro_min((double)rss, CB_MEM_MIN_CORO_RSS,
                                                 "rss_bytes_per_coro",
                                                 "RSS grows by whole pages and with the process",
                                                 reasons)
                                  : json_null());
    json_object_set_new(o, "pagetable_bytes_per_coro", per_coro(pte));
    if (!mem.alive)
        json_object_set_new(o, "kernel_bytes_per_coro", json_null());
    else if (per_vma <= 0) {
        json_object_set_new(o, "kernel_bytes_per_coro", json_null());
        json_object_set_new(reasons, "kernel_bytes_per_coro",
                            json_string("no bytes-per-VMA figure from the parent "
                                        "(machine.kernel_memory)"));
    } else
        json_object_set_new(o, "kernel_bytes_per_coro",
                            per_coro_min(kernel, MEM_MIN_CORO_KERNEL, "kernel_bytes_per_coro",
                                         "the bytes per VMA are an average over thousands",
                                         reasons));
    json_object_set_new(o, "vmas_per_coro", per_coro(vmas));
    json_object_set_new(o, "null_reasons", reasons);
    json_object_set_new(o, "peak_rss_bytes", json_integer((json_int_t)ru.ru_maxrss * 1024));
    json_object_set_new(o, "page_faults_per_op",
                        json_real(ops ? (double)mem.faults / (double)ops : 0));
    json_object_set_new(o, "stack_mode", modes ? json_string(modes) : json_null());
    json_object_set_new(
        o, "totals",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "reserved_bytes",
                  (json_int_t)reserved, "touched_bytes", (json_int_t)touched, "stack_used_bytes",
                  (json_int_t)used, "heap_bytes", (json_int_t)heap,
                  "malloc_bytes", (json_int_t)mall, "heap_allocs", (json_int_t)allocs,
                  "rss_bytes", (json_int_t)rss, "pagetable_bytes", (json_int_t)pte,
                  "bookkeeping_bytes", (json_int_t)book, "vmas", (json_int_t)vmas,
                  "kernel_bytes", per_vma > 0 ? json_real(kernel) : json_null()));
    json_object_set_new(o, "error", mem.error ? json_string(mem.error) : json_null());
    return o;
}
