/* The return-stack-buffer simulator (docs/rsb.md): candidate (model, N) stacks driven by one
 * call/return trace, and the calls that bracket a counting pass. Built into every binary (the
 * harness links against it), compiled without instrumentation; only in the rsbsim builds
 * (CB_RSBSIM=1) does rewritten code reach push and pop, through harness/measure/rsbsim_x86_64.S. */
#include "rsbsim.h"

#include <string.h>

/* push and pop run inside the hooks, which save the general-purpose registers and the flags of
 * the instrumented code but not its vector registers (GCC 12 vectorises at -O2): keep both to
 * general registers so nothing else needs saving. */
#define CB_RSBSIM_HOOK __attribute__((target("general-regs-only")))

typedef struct candidate {
    cb_rsb_config cfg;
    uint64_t *ring; /* cfg.entries slots of the pool */
    uint64_t tos;   /* index of the top slot */
    uint64_t live;  /* entries pushed and neither popped nor overwritten, 0..entries */
    cb_rsb_counts n;
} candidate;

/* The underflow fallback's memory: the last target of each `ret` site, an open-addressing table
 * keyed by the site's address. It does not depend on the candidate (every return updates it), so
 * all underflow-btb candidates share it. A full table stops learning new sites; they then predict
 * nothing (0), like a BTB miss. */
typedef struct site_slot {
    uint64_t site, target;
} site_slot;

static candidate cands[CB_RSBSIM_MAX_CANDIDATES];
static size_t ncands;
static uint64_t pool[CB_RSBSIM_POOL_ENTRIES];
static site_slot sites[CB_RSBSIM_SITES];
static size_t nsites;
static int counting;

static const char *const model_names[] = {
    [CB_RSB_CIRCULAR] = "circular",
    [CB_RSB_UNDERFLOW_BTB] = "underflow-btb",
};

const char *cb_rsb_model_name(cb_rsb_model m)
{
    return (unsigned)m < sizeof model_names / sizeof model_names[0] ? model_names[m] : "?";
}

int cb_rsb_model_parse(const char *name, cb_rsb_model *m)
{
    for (size_t i = 0; i < sizeof model_names / sizeof model_names[0]; i++)
        if (!strcmp(name, model_names[i])) {
            *m = (cb_rsb_model)i;
            return 0;
        }
    return -1;
}

size_t cb_rsbsim_calibration_candidates(cb_rsb_config out[CB_RSBSIM_CALIBRATION_CANDIDATES])
{
    size_t k = 0;
    for (int m = CB_RSB_CIRCULAR; m <= CB_RSB_UNDERFLOW_BTB; m++)
        for (unsigned n = CB_RSBSIM_CALIBRATION_MIN; n <= CB_RSBSIM_CALIBRATION_MAX; n++)
            out[k++] = (cb_rsb_config){(cb_rsb_model)m, n};
    return k;
}

int cb_rsbsim_instrumented(void)
{
#ifdef CB_RSBSIM
    return 1;
#else
    return 0;
#endif
}

int cb_rsbsim_begin(const cb_rsb_config *cand, size_t n)
{
    size_t total = 0;
    if (n == 0 || n > CB_RSBSIM_MAX_CANDIDATES)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (cand[i].entries < 1 || cand[i].entries > CB_RSBSIM_MAX_ENTRIES ||
            (unsigned)cand[i].model > CB_RSB_UNDERFLOW_BTB)
            return -1;
        total += cand[i].entries;
    }
    if (total > CB_RSBSIM_POOL_ENTRIES)
        return -1;
    counting = 0;
    memset(pool, 0, total * sizeof pool[0]);
    memset(sites, 0, sizeof sites);
    nsites = 0;
    total = 0;
    for (size_t i = 0; i < n; i++) {
        cands[i] = (candidate){.cfg = cand[i], .ring = pool + total};
        total += cand[i].entries;
    }
    ncands = n;
    counting = 1;
    return 0;
}

void cb_rsbsim_end(void) { counting = 0; }

void cb_rsbsim_begin_hook(void *pass)
{
    cb_rsbsim_pass *p = pass;
    p->rc = cb_rsbsim_begin(p->cand, p->n);
}

void cb_rsbsim_end_hook(void *pass)
{
    (void)pass;
    cb_rsbsim_end();
}

size_t cb_rsbsim_ncandidates(void) { return ncands; }

const cb_rsb_counts *cb_rsbsim_counts(size_t i) { return i < ncands ? &cands[i].n : NULL; }

static CB_RSBSIM_HOOK size_t site_hash(uint64_t site)
{
    return (size_t)((site * 0x9e3779b97f4a7c15ull) >> 40) & (CB_RSBSIM_SITES - 1);
}

/* The slot holding site, or the empty slot where it would go (NULL: not there, table full). */
static CB_RSBSIM_HOOK site_slot *site_find(uint64_t site)
{
    size_t i = site_hash(site);
    for (size_t k = 0; k < CB_RSBSIM_SITES; k++, i = (i + 1) & (CB_RSBSIM_SITES - 1))
        if (sites[i].site == site || sites[i].site == 0)
            return &sites[i];
    return NULL;
}

CB_RSBSIM_HOOK void cb_rsbsim_push(uint64_t ret)
{
    if (!counting)
        return;
    for (size_t i = 0; i < ncands; i++) {
        candidate *c = &cands[i];
        c->tos = c->tos + 1 == c->cfg.entries ? 0 : c->tos + 1;
        c->ring[c->tos] = ret; /* when full, the oldest entry is overwritten */
        if (c->live < c->cfg.entries)
            c->live++;
    }
}

CB_RSBSIM_HOOK void cb_rsbsim_pop(uint64_t site, uint64_t target)
{
    if (!counting)
        return;
    site_slot *s = site_find(site);
    uint64_t last = s && s->site == site ? s->target : 0;
    for (size_t i = 0; i < ncands; i++) {
        candidate *c = &cands[i];
        int underflow = c->live == 0;
        uint64_t predicted;
        if (underflow && c->cfg.model == CB_RSB_UNDERFLOW_BTB) {
            predicted = last; /* the stack stays empty: nothing is popped */
        } else {
            predicted = c->ring[c->tos]; /* circular: a stale slot when nothing is live */
            c->tos = c->tos == 0 ? c->cfg.entries - 1 : c->tos - 1;
            c->live -= !underflow;
        }
        c->n.rets++;
        if (predicted == target)
            c->n.underflow_predicted += underflow;
        else if (underflow)
            c->n.mispredicted_underflow++;
        else
            c->n.mispredicted_top++;
        c->n.mispredicted += predicted != target;
    }
    /* Every return teaches the fallback its target, whichever predictor was used. */
    if (s && (s->site == site || 4 * (nsites + 1) <= 3 * CB_RSBSIM_SITES)) {
        nsites += s->site != site;
        s->site = site;
        s->target = target;
    }
}
