/* Memory the kernel holds for a process's mappings (docs/memory.md, "Kernel memory"): every VMA
 * costs a vm_area_struct, a share of the maple tree's nodes and, once a page of it is touched, an
 * anon_vma and its chain link; a guarded stack is two VMAs. A cell counts its VMAs
 * (/proc/self/maps) at the baseline and at the rest point; the parent measures, once per run, what
 * one VMA of a guarded stack costs the kernel's slab caches and hands the figure to the cells. */
#ifndef CB_KMEM_H
#define CB_KMEM_H

#include <jansson.h>
#include <stdint.h>

/* The parent's measurement: bytes of slab per VMA, from mapping `vmas` guarded-stack-shaped
 * VMAs and reading the slab caches before and after (median of five). */
typedef struct cb_kmem_cal {
    double bytes_per_vma; /* 0 when not measured */
    const char *method;   /* "slabinfo" or "meminfo" */
    uint64_t vmas;
    const char *error;    /* why not measured, NULL if measured */
} cb_kmem_cal;

/* In the parent, before the cells: measures, keeps the figure for the cells' requests
 * (cb_kmem_bytes_per_vma) and returns it for machine.kernel_memory. Untimed (about 50 ms). */
void cb_kmem_calibrate(cb_kmem_cal *out);
json_t *cb_kmem_json(const cb_kmem_cal *cal);
/* The bytes per VMA this process measured (cb_kmem_calibrate) or was given (a cell's process:
 * its request's kernel_bytes_per_vma, cb_kmem_set_bytes_per_vma), or 0 when none. */
double cb_kmem_bytes_per_vma(void);
void cb_kmem_set_bytes_per_vma(double bytes);
/* VMAs of this process now (lines of /proc/self/maps), or -1. Reads with open/read into a stack
 * buffer: allocates nothing. */
int64_t cb_kmem_vma_count(void);

#endif
