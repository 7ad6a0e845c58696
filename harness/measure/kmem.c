/* Kernel memory per VMA: measured once per run in the parent by mapping guarded-stack-shaped
 * VMAs (a PROT_NONE guard page below a touched read-write page, as impls/stack.c maps a stack)
 * and reading the slab caches that grow with them; the cells multiply their own VMA count by it.
 * A per-cell slab reading would be system-wide and see every other process's mappings come and
 * go; a VMA count is exact and per process, so only this calibration sees that noise, and it
 * takes the median of five. */
#include "kmem.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness/common/alloc.h"
#include "harness/common/stats.h"

enum { KMEM_VMAS = 4096, KMEM_ROUNDS = 5 };

/* The slab caches a mapping grows: the VMA, the maple tree's nodes, and for a touched anonymous
 * VMA its anon_vma and the chain link between them. */
static const char *const kmem_caches[] = {"vm_area_struct", "maple_node", "anon_vma",
                                          "anon_vma_chain", NULL};

/* Bytes of the caches' objects in use now (active objects times object size), from
 * /proc/slabinfo (root only), or -1. Objects, not slab pages: new objects first fill the free
 * slots of partly used slabs, so page growth would undercount a VMA by what others freed. */
static int64_t slabinfo_bytes(void)
{
    FILE *f = fopen("/proc/slabinfo", "r");
    if (!f)
        return -1;
    char line[512], name[128];
    int64_t total = 0, found = 0;
    while (fgets(line, sizeof line, f)) {
        long long active, num, objsize, perslab, pages, slabs_active, slabs;
        if (sscanf(line, "%127s %lld %lld %lld %lld %lld : tunables %*d %*d %*d : slabdata %lld %lld",
                   name, &active, &num, &objsize, &perslab, &pages, &slabs_active, &slabs) != 8)
            continue;
        for (size_t i = 0; kmem_caches[i]; i++)
            if (!strcmp(name, kmem_caches[i])) {
                total += (int64_t)active * objsize;
                found++;
            }
    }
    fclose(f);
    return found ? total : -1;
}

/* Unreclaimable slab of the whole system from /proc/meminfo (readable by anyone), or -1. */
static int64_t meminfo_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "SUnreclaim: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb * 1024;
}

int64_t cb_kmem_vma_count(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[8192];
    int64_t lines = 0;
    ssize_t k;
    while ((k = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < k; i++)
            lines += buf[i] == '\n';
    close(fd);
    return k < 0 ? -1 : lines;
}

/* One round: map, measure, unmap. Bytes per VMA, or -1. */
static double one_round(int64_t (*probe)(void), char **maps)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    int64_t before = probe(), v0 = cb_kmem_vma_count();
    size_t made = 0;
    for (; made < KMEM_VMAS; made++) {
        char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (m == MAP_FAILED)
            break;
        maps[made] = m;
        if (mprotect(m, pg, PROT_NONE) != 0) {
            munmap(m, 2 * pg);
            break;
        }
        m[pg] = 1; /* the stack's top page: first touch gives the VMA its anon_vma */
    }
    int64_t after = probe(), v1 = cb_kmem_vma_count();
    for (size_t i = 0; i < made; i++)
        munmap(maps[i], 2 * pg);
    if (made < KMEM_VMAS || before < 0 || after < 0 || v0 < 0 || v1 <= v0)
        return -1;
    return (double)(after - before) / (double)(v1 - v0);
}

void cb_kmem_calibrate(cb_kmem_cal *out)
{
    memset(out, 0, sizeof *out);
    int64_t (*probe)(void) = slabinfo_bytes;
    out->method = "slabinfo";
    if (slabinfo_bytes() < 0) {
        probe = meminfo_bytes;
        out->method = "meminfo";
    }
    char **maps = cb_xcalloc(KMEM_VMAS, sizeof *maps);
    double r[KMEM_ROUNDS];
    size_t ok = 0;
    for (int i = 0; maps && i < KMEM_ROUNDS; i++) {
        double x = one_round(probe, maps);
        if (x > 0)
            r[ok++] = x;
    }
    free(maps);
    if (!ok) {
        out->error = "no slab growth measured (neither /proc/slabinfo nor /proc/meminfo's "
                     "SUnreclaim grew while mapping stacks)";
        out->method = NULL;
        return;
    }
    out->bytes_per_vma = cb_median(r, ok);
    out->vmas = 2 * KMEM_VMAS;
    cb_kmem_set_bytes_per_vma(out->bytes_per_vma);
}

json_t *cb_kmem_json(const cb_kmem_cal *cal)
{
    if (!cal->method)
        return json_pack("{s:n, s:n, s:n, s:s}", "bytes_per_vma", "method", "vmas", "error",
                         cal->error);
    return json_pack("{s:f, s:s, s:I, s:n}", "bytes_per_vma", cal->bytes_per_vma, "method",
                     cal->method, "vmas", (json_int_t)cal->vmas, "error");
}

static double bytes_per_vma;

double cb_kmem_bytes_per_vma(void) { return bytes_per_vma; }
void cb_kmem_set_bytes_per_vma(double bytes) { bytes_per_vma = bytes > 0 ? bytes : 0; }
