/* Memory footprint of a cell (docs/memory.md), measured in the cell's child process on the cell's
 * first run (a fresh process: every stack page and heap byte is that run's): a baseline before
 * the run's setup, one snapshot at the workload's rest point (cb_wl_at_rest) or else at the end
 * of run(), with the clock paused around it. Also the rest point's time in every repetition
 * (create_ns_per_coro). cell.c calls these around its existing steps, never inside run(). */
#ifndef CB_MEMORY_H
#define CB_MEMORY_H

#include <jansson.h>
#include <stdint.h>

/* The fewest coroutines at the rest point for a per-coroutine RSS figure (RSS moves by whole
 * pages and with the process): a C cell's and a language program's alike (external.c). */
enum { CB_MEM_MIN_CORO_RSS = 100 };

/* Once per cell, before the first repetition: installs the rest hook. */
void cb_mem_install(void);
/* Called around the snapshot when it falls inside a counted repetition (--warmup 0), so event
 * counters do not count the measurement: pause before, resume after. */
void cb_mem_on_snapshot(void (*pause)(void *), void (*resume)(void *), void *ctx);
/* Before the first run's setup: the baseline; arms the snapshot. */
void cb_mem_begin(void);
/* Before each repetition's clock start: forgets the last repetition's rest point and pause. */
void cb_mem_rep_begin(void);
/* After the first run's run() returned, before finish: the end-of-run snapshot if the workload
 * has no rest point; closes the page-fault count. */
void cb_mem_end(void);
/* Ticks of this repetition spent in the snapshot, to subtract from its time. */
uint64_t cb_mem_rep_paused(void);
/* 1 and the ticks from t0 to this repetition's first rest point and the coroutines alive there,
 * or 0 when the workload reached no rest point. */
int cb_mem_rep_rest(uint64_t t0, uint64_t *ticks, uint64_t *alive);
/* The cell's "memory" object; ops is one run's op count. */
json_t *cb_mem_json(uint64_t ops);

#endif
