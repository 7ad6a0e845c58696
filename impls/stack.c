/* mmap'd coroutine stacks: guarded (one mapping + guard page each) or chunked (carved, canary).
 * Everything here runs at coroutine creation or destruction, never inside a switch; the one
 * exception, cb_stack_usage(), runs only where the harness has stopped the clock.
 * The allocator's own bookkeeping (pools, the list of mappings) lives in mmap'd arrays, not in
 * malloc, so the heap a cell reports is only what its coroutines allocated. */
#include "stack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#define CB_CANARY 0x5a17c0de5a17c0deULL
#define CB_CHUNK_STACKS 256 /* stacks per chunk mapping in chunked mode */
#define CB_MAP_MARGIN 4096  /* mappings left for everything else in the process */

cb_stack_stats cb_stack_stat;

/* One free list per (size, mode); a handful of sizes are ever used in one process. */
typedef struct pool {
    size_t size;
    cb_stack_mode mode;
    cb_stack *items; /* free stacks, used as a LIFO so the most recently warm stack is reused */
    size_t nfree, cap;
} pool;

/* Every stack mapping, for cb_stack_usage(): the range that can be resident, and the `count`
 * stacks of `size` bytes in it from `first`, each starting with `skip` bytes of canary. */
typedef struct region {
    char *map;
    size_t map_len;
    char *first;
    size_t size, count, skip;
} region;

static pool pools[8];
static size_t npools;
static region *regions;
static size_t nregions, regions_cap;
static size_t page_size;
static int budget_known;
static long budget_max_maps, budget_used_maps; /* what compute_budget() read */
static int budget_refused;                     /* the last cb_stack_alloc failed on the budget */

size_t cb_stack_page_size(void)
{
    if (!page_size)
        page_size = (size_t)sysconf(_SC_PAGESIZE);
    return page_size;
}


/* How many guarded stacks fit: each costs two VMAs; the rest of the process keeps a margin. */
static void compute_budget(void)
{
    long max_maps = 65530, used = 0;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &max_maps) != 1)
            max_maps = 65530;
        fclose(f);
    }
    f = fopen("/proc/self/maps", "r");
    if (f) {
        int c;
        while ((c = fgetc(f)) != EOF)
            used += c == '\n';
        fclose(f);
    }
    budget_max_maps = max_maps;
    budget_used_maps = used;
    long room = max_maps - used - CB_MAP_MARGIN;
    cb_stack_stat.map_budget = room > 0 ? (uint64_t)room / 2 : 0;
    budget_known = 1;
}

/* Grows an array of elem-byte items to hold need items, by mmap and mremap. 0, or -1. */
static int grow(void **items, size_t *cap, size_t elem, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t pg = cb_stack_page_size(), ncap = *cap ? *cap : pg / elem;
    while (ncap < need)
        ncap *= 2;
    size_t old_bytes = (*cap * elem + pg - 1) & ~(pg - 1);
    size_t new_bytes = (ncap * elem + pg - 1) & ~(pg - 1);
    void *n = *items ? mremap(*items, old_bytes, new_bytes, MREMAP_MAYMOVE)
                     : mmap(NULL, new_bytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (n == MAP_FAILED)
        return -1;
    *items = n;
    *cap = new_bytes / elem;
    return 0;
}

static int region_add(region r)
{
    if (grow((void **)&regions, &regions_cap, sizeof *regions, nregions + 1) != 0)
        return -1;
    regions[nregions++] = r;
    return 0;
}

static void region_remove(char *first)
{
    for (size_t i = 0; i < nregions; i++)
        if (regions[i].first == first) {
            regions[i] = regions[--nregions];
            return;
        }
}

static unsigned char vec[16384]; /* mincore's answer for one window of pages */

/* Adds to *used the bytes from the deepest word ever written (the lowest nonzero one above the
 * canary) to the top of the stack at lo: its high-water mark. Only resident pages are read, so
 * nothing is faulted in; fresh pages are zero, and return addresses never are. */
static int high_water(const region *r, char *lo, uint64_t *used)
{
    size_t pg = cb_stack_page_size();
    char *start = lo + r->skip, *end = lo + r->size;
    char *a = (char *)((uintptr_t)start & ~(uintptr_t)(pg - 1));
    while (a < end) {
        size_t pages = (size_t)(end - a + pg - 1) / pg;
        pages = pages < sizeof vec ? pages : sizeof vec;
        if (mincore(a, pages * pg, vec) != 0)
            return -1;
        for (size_t i = 0; i < pages; i++, a += pg) {
            if (!(vec[i] & 1))
                continue;
            const uint64_t *w = (const uint64_t *)(a > start ? a : start);
            const uint64_t *stop = (const uint64_t *)(a + pg < end ? a + pg : end);
            for (; w < stop; w++)
                if (*w) {
                    *used += (uint64_t)(end - (const char *)w);
                    return 0;
                }
        }
    }
    return 0;
}

int cb_stack_usage(uint64_t *resident, uint64_t *used)
{
    size_t pg = cb_stack_page_size();
    *resident = *used = 0;
    for (size_t r = 0; r < nregions; r++) {
        const region *g = &regions[r];
        for (size_t off = 0; off < g->map_len; off += sizeof vec * pg) {
            size_t len = g->map_len - off;
            len = len < sizeof vec * pg ? len : sizeof vec * pg;
            if (mincore(g->map + off, len, vec) != 0)
                return -1;
            for (size_t i = 0; i < (len + pg - 1) / pg; i++)
                *resident += (vec[i] & 1) * pg;
        }
        for (size_t k = 0; k < g->count; k++)
            if (high_water(g, g->first + k * g->size, used) != 0)
                return -1;
    }
    return 0;
}

/* Resident pages of one mmap'd bookkeeping array of cap elem-byte items. */
static uint64_t array_resident(const void *items, size_t cap, size_t elem)
{
    size_t pg = cb_stack_page_size(), bytes = (cap * elem + pg - 1) & ~(pg - 1);
    uint64_t res = 0;
    for (size_t off = 0; items && off < bytes; off += sizeof vec * pg) {
        size_t len = bytes - off < sizeof vec * pg ? bytes - off : sizeof vec * pg;
        if (mincore((char *)items + off, len, vec) != 0)
            return 0;
        for (size_t i = 0; i < len / pg; i++)
            res += (vec[i] & 1) * pg;
    }
    return res;
}

uint64_t cb_stack_bookkeeping_bytes(void)
{
    uint64_t res = array_resident(regions, regions_cap, sizeof *regions);
    for (size_t i = 0; i < npools; i++)
        res += array_resident(pools[i].items, pools[i].cap, sizeof *pools[i].items);
    return res;
}

static pool *pool_for(size_t size, cb_stack_mode mode)
{
    for (size_t i = 0; i < npools; i++)
        if (pools[i].size == size && pools[i].mode == mode)
            return &pools[i];
    if (npools == sizeof pools / sizeof pools[0])
        return NULL;
    pool *p = &pools[npools++];
    memset(p, 0, sizeof *p);
    p->size = size;
    p->mode = mode;
    return p;
}

static int pool_pop(pool *p, cb_stack *out)
{
    if (!p || !p->nfree)
        return 0;
    *out = p->items[--p->nfree];
    return 1;
}

static int pool_push(pool *p, const cb_stack *s)
{
    if (!p)
        return 0;
    if (grow((void **)&p->items, &p->cap, sizeof *p->items, p->nfree + 1) != 0)
        return 0;
    p->items[p->nfree++] = *s;
    return 1;
}

static int map_guarded(cb_stack *s, size_t size)
{
    size_t pg = cb_stack_page_size();
    if (cb_stack_stat.guarded_live >= cb_stack_stat.map_budget) {
        budget_refused = 1;
        errno = ENOMEM;
        return -1;
    }
    /* MAP_NORESERVE + no MAP_POPULATE: pages are committed when first touched. */
    char *m = mmap(NULL, size + pg, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    if (mprotect(m, pg, PROT_NONE) != 0 ||
        region_add((region){m + pg, size, m + pg, size, 1, 0}) != 0) {
        int e = errno;
        munmap(m, size + pg);
        errno = e;
        return -1;
    }
    s->lo = m + pg;
    s->size = size;
    s->mode = CB_STACK_GUARDED;
    cb_stack_stat.reserved_bytes += size + pg;
    VALGRIND_STACK_REGISTER(s->lo, (char *)s->lo + size);
    return 0;
}

/* Carve CB_CHUNK_STACKS stacks from one mapping into the pool, then hand one out.
 * Layout: one page, then the stacks, each `size` bytes, every one starting CHUNK_SHIFT bytes
 * below a page boundary. The canary at a stack's low end then shares a page with the top of the
 * stack below it, which is resident as soon as that stack runs; page-aligned stacks would make
 * the canary cost a second resident page per coroutine. Stack 0's canary is in the first page.
 * Tops stay 16-byte aligned, as every ABI wants. */
enum { CHUNK_SHIFT = 16 };

static int map_chunk(pool *p, cb_stack *s, size_t size)
{
    size_t pg = cb_stack_page_size(), len = pg + size * CB_CHUNK_STACKS;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    char *base = m + pg - CHUNK_SHIFT;
    if (region_add((region){m, len, base, size, CB_CHUNK_STACKS, sizeof(uint64_t)}) != 0) {
        munmap(m, len);
        errno = ENOMEM;
        return -1;
    }
    cb_stack_stat.reserved_bytes += len;
    for (size_t i = CB_CHUNK_STACKS; i-- > 1;) {
        cb_stack c = {.lo = base + i * size, .size = size, .mode = CB_STACK_CHUNKED};
        /* The canary is written when the stack is handed out, so pooled stacks stay untouched. */
        VALGRIND_STACK_REGISTER(c.lo, (char *)c.lo + size);
        if (!pool_push(p, &c)) {
            errno = ENOMEM;
            return -1;
        }
    }
    s->lo = base;
    s->size = size;
    s->mode = CB_STACK_CHUNKED;
    VALGRIND_STACK_REGISTER(s->lo, (char *)s->lo + size);
    return 0;
}

int cb_stack_alloc(cb_stack *s, size_t size, cb_stack_mode mode)
{
    size_t pg = cb_stack_page_size();
    size = (size + pg - 1) & ~(pg - 1);
    if (!budget_known)
        compute_budget();
    memset(s, 0, sizeof *s);
    budget_refused = 0;

    if (mode == CB_STACK_AUTO)
        mode = cb_stack_stat.guarded_live < cb_stack_stat.map_budget ? CB_STACK_GUARDED
                                                                     : CB_STACK_CHUNKED;
    pool *p = pool_for(size, mode);
    if (pool_pop(p, s)) {
        /* A reused stack holds the last coroutine's dead frames: new to the next one. Valgrind
         * marked what lay below that coroutine's stack pointer inaccessible as it returned, and a
         * coroutine started at another offset (spawn's layout=offset) writes its first frame
         * there. A no-op outside valgrind. */
        VALGRIND_MAKE_MEM_UNDEFINED(s->lo, s->size);
    } else {
        int rc = mode == CB_STACK_GUARDED ? map_guarded(s, size) : map_chunk(p, s, size);
        if (rc != 0)
            return -1;
    }
    if (mode == CB_STACK_GUARDED) {
        cb_stack_stat.guarded_live++;
        cb_stack_stat.guarded_total++;
        cb_stack_stat.live_reserved_bytes += size + pg;
    } else {
        *(volatile uint64_t *)s->lo = CB_CANARY;
        cb_stack_stat.chunked_live++;
        cb_stack_stat.chunked_total++;
        cb_stack_stat.live_reserved_bytes += size;
    }
    return 0;
}

int cb_stack_free(cb_stack *s)
{
    int rc = 0;
    if (!s->lo)
        return 0;
    size_t pg = cb_stack_page_size();
    if (s->mode == CB_STACK_CHUNKED) {
        if (*(volatile uint64_t *)s->lo != CB_CANARY)
            rc = -1;
        cb_stack_stat.chunked_live--;
        cb_stack_stat.live_reserved_bytes -= s->size;
    } else {
        cb_stack_stat.guarded_live--;
        cb_stack_stat.live_reserved_bytes -= s->size + pg;
    }
    if (!pool_push(pool_for(s->size, s->mode), s) && s->mode == CB_STACK_GUARDED) {
        region_remove(s->lo);
        munmap((char *)s->lo - pg, s->size + pg);
        cb_stack_stat.reserved_bytes -= s->size + pg;
    }
    s->lo = NULL;
    return rc;
}

const char *cb_stack_strerror(int err)
{
    static char why[256];
    if (!budget_refused || err != ENOMEM)
        return strerror(err);
    snprintf(why, sizeof why,
             "%s: guarded stacks past the vm.max_map_count budget (%llu guarded stacks, 2 "
             "mappings each; vm.max_map_count is %ld, %ld mappings were in use, %d kept for the "
             "rest; valid: stack_mode=auto or chunked, or raise vm.max_map_count)",
             strerror(err), (unsigned long long)cb_stack_stat.map_budget, budget_max_maps,
             budget_used_maps, CB_MAP_MARGIN);
    return why;
}

uint64_t cb_stack_canary(void) { return CB_CANARY; }

size_t cb_stack_guard_bytes(const cb_stack *s)
{
    return s->mode == CB_STACK_GUARDED ? cb_stack_page_size() : 0;
}

const char *cb_stack_modes_used(void)
{
    if (cb_stack_stat.guarded_total && cb_stack_stat.chunked_total)
        return "guarded+chunked";
    if (cb_stack_stat.guarded_total)
        return "guarded";
    if (cb_stack_stat.chunked_total)
        return "chunked";
    return NULL;
}
