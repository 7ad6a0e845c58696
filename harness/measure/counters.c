/* Event counters (see counters.h and docs/counters.md): the alias table, libpfm4 encoding, groups
 * of perf_event_open descriptors in the measured thread, accumulation over enable/disable windows,
 * and the reason an event is not counted. Only cb_counters_reset_enable and cb_counters_disable run
 * at the edges of the timed region, and they issue nothing but the ioctls. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "counters.h"
#include "harness/common/alloc.h"
#include "params/params.h"

/* ---- The alias table --------------------------------------------------------------------------
 * Each alias lists candidates in order; on a host it resolves to the first whose model is an
 * active libpfm4 PMU there and which libpfm4 encodes. Every name here was checked with libpfm4
 * 4.13's own encoder (LIBPFM_ENCODE_INACTIVE=1; the Arm ones with the arm64 build under qemu):
 * tests/test_counters.c repeats the check. Sources per name are in docs/counters.md. */

typedef struct cb_cand {
    const char *model;   /* libpfm4 PMU that must be active */
    const char *event;   /* what libpfm4 encodes */
    unsigned amd_family; /* nonzero: also taken on an AuthenticAMD CPU of this family (cpuinfo) */
} cb_cand;

typedef struct cb_alias {
    const char *name;
    const cb_cand *cands; /* ends at a NULL model */
} cb_alias;

#define CB_ZEN1_4(ev)                                                                              \
    {"amd64_fam17h_zen1", "amd64_fam17h_zen1::" ev, 0},                                            \
        {"amd64_fam17h_zen2", "amd64_fam17h_zen2::" ev, 0},                                        \
        {"amd64_fam19h_zen3", "amd64_fam19h_zen3::" ev, 0},                                        \
        {"amd64_fam19h_zen4", "amd64_fam19h_zen4::" ev, 0}
/* skl, skx and clx share libpfm4's Skylake table; icl (also Tiger/Rocket Lake) and icx share the
 * Ice Lake one. */
#define CB_INTEL(ev)                                                                               \
    {"skl", "skl::" ev, 0}, {"skx", "skx::" ev, 0}, {"clx", "clx::" ev, 0},                        \
        {"icl", "icl::" ev, 0}, {"icx", "icx::" ev, 0}, {"spr", "spr::" ev, 0}
#define CB_NEOVERSE(ev)                                                                            \
    {"arm_n1", "arm_n1::" ev, 0}, {"arm_n2", "arm_n2::" ev, 0}, {"arm_v1", "arm_v1::" ev, 0},      \
        {"arm_v2", "arm_v2::" ev, 0}
/* libpfm4 4.13 has no Zen 5 table. Family 1Ah keeps PMCx0C8/PMCx0C9 (AMD's Family 1Ah PMC
 * document); the model name is the one later libpfm4 releases give the Zen 5 PMU. */
#define CB_ZEN5_RAW(code) {"amd64_fam1ah_zen5", "perf_raw::r" code, 0x1a}
#define CB_END {NULL, NULL, 0}

static const cb_cand cands_ret_mispredicts[] = {
    CB_ZEN1_4("RETIRED_NEAR_RETURNS_MISPREDICTED"),
    CB_ZEN5_RAW("00c9"),
    {"skl", "skl::BR_MISP_RETIRED:RET", 0},
    {"skx", "skx::BR_MISP_RETIRED:RET", 0},
    {"clx", "clx::BR_MISP_RETIRED:RET", 0},
    /* 4.13's icl/icx tables lack the RET umask Intel documents (event 0xC5, umask 0x08). */
    {"icl", "perf_raw::r08c5", 0},
    {"icx", "perf_raw::r08c5", 0},
    {"spr", "spr::BR_MISP_RETIRED:RET", 0},
    /* Neoverse has no retired-return-mispredict event, and no generic one exists: no fallback,
     * so the alias never silently counts something else. */
    CB_END,
};
static const cb_cand cands_rets[] = {
    CB_ZEN1_4("RETIRED_NEAR_RETURNS"),
    CB_ZEN5_RAW("00c8"),
    CB_INTEL("BR_INST_RETIRED:NEAR_RETURN"),
    /* Neoverse only has BR_RETURN_SPEC (speculatively executed returns), not retired ones. */
    CB_END,
};
static const cb_cand cands_branch_mispredicts[] = {
    CB_ZEN1_4("RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"),
    CB_INTEL("BR_MISP_RETIRED:ALL_BRANCHES"),
    CB_NEOVERSE("BR_MIS_PRED_RETIRED"),
    {"perf", "perf::BRANCH-MISSES", 0},
    CB_END,
};
static const cb_cand cands_instructions[] = {
    CB_ZEN1_4("RETIRED_INSTRUCTIONS"),
    CB_INTEL("INST_RETIRED:ANY_P"),
    CB_NEOVERSE("INST_RETIRED"),
    {"perf", "perf::INSTRUCTIONS", 0},
    CB_END,
};
static const cb_cand cands_cycles[] = {
    CB_ZEN1_4("CYCLES_NOT_IN_HALT"),
    CB_INTEL("UNHALTED_CORE_CYCLES"),
    CB_NEOVERSE("CPU_CYCLES"),
    {"perf", "perf::CYCLES", 0},
    CB_END,
};
static const cb_cand cands_l1d_misses[] = {
    /* PMCx060 umask 0xE8: L2 requests caused by L1D misses (the event needs a unit mask). */
    CB_ZEN1_4("REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S:CHANGE_TO_X"),
    CB_INTEL("L1D:REPLACEMENT"),
    CB_NEOVERSE("L1D_CACHE_REFILL"),
    {"perf", "perf::L1-DCACHE-LOAD-MISSES", 0},
    CB_END,
};
static const cb_cand cands_page_faults[] = {{"perf", "perf::PAGE-FAULTS", 0}, CB_END};
static const cb_cand cands_context_switches[] = {{"perf", "perf::CONTEXT-SWITCHES", 0}, CB_END};
static const cb_cand cands_task_clock[] = {{"perf", "perf::TASK-CLOCK", 0}, CB_END};

static const cb_alias aliases[] = {
    {"ret-mispredicts", cands_ret_mispredicts},
    {"rets", cands_rets},
    {"branch-mispredicts", cands_branch_mispredicts},
    {"instructions", cands_instructions},
    {"cycles", cands_cycles},
    {"l1d-misses", cands_l1d_misses},
    {"page-faults", cands_page_faults},
    {"context-switches", cands_context_switches},
    {"task-clock", cands_task_clock},
};
enum { CB_NALIASES = sizeof aliases / sizeof aliases[0] };

const char *cb_counters_alias_name(size_t i)
{
    return i < CB_NALIASES ? aliases[i].name : NULL;
}

static const cb_alias *find_alias(const char *name)
{
    for (size_t i = 0; i < CB_NALIASES; i++)
        if (!strcmp(aliases[i].name, name))
            return &aliases[i];
    return NULL;
}

const char *cb_counters_alias_event(const char *alias, const char *model)
{
    const cb_alias *a = find_alias(alias);
    for (const cb_cand *k = a ? a->cands : NULL; k && k->model; k++)
        if (!strcmp(k->model, model))
            return k->event;
    return NULL;
}

/* ---- Small helpers --------------------------------------------------------------------------- */

const char *cb_errno_name(int e)
{
    switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENXIO: return "ENXIO";
    case ENOSYS: return "ENOSYS";
    case ENODEV: return "ENODEV";
    case EBUSY: return "EBUSY";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENOMEM: return "ENOMEM";
    case ENOSPC: return "ENOSPC";
    case E2BIG: return "E2BIG";
    case EFAULT: return "EFAULT";
    case ESRCH: return "ESRCH";
    case EOVERFLOW: return "EOVERFLOW";
    default: return NULL;
    }
}

static void free_list(char **items, size_t n)
{
    for (size_t i = 0; items && i < n; i++)
        free(items[i]);
    free(items);
}

/* The comma-separated items of list, each trimmed of blanks (empty items kept, for validation). */
static char **split_list(const char *list, size_t *n)
{
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    char **items = cb_xcalloc(cap, sizeof *items);
    const char *p = list;
    for (*n = 0; *n < cap; (*n)++) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *b = p, *e = end;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        items[*n] = cb_xstrndup(b, (size_t)(e - b));
        p = *end ? end + 1 : end;
    }
    return items;
}

/* ---- libpfm4 and the host -------------------------------------------------------------------- */

static int pfm_ready(void)
{
    static int state = 1; /* 1: not tried yet; else pfm_initialize's result */
    if (state == 1)
        state = pfm_initialize();
    return state;
}

/* ",perf,perf_raw,...," : the PMUs libpfm4 detected on this host (is_present ignores
 * LIBPFM_ENCODE_INACTIVE, so resolution stays about this host even when it is set). */
static const char *active_pmus(void)
{
    static char *list;
    if (list)
        return list;
    size_t len = 1, cap = 256;
    char *s = cb_xmalloc(cap);
    strcpy(s, ",");
    int p;
    pfm_for_all_pmus(p)
    {
        pfm_pmu_info_t info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present || !info.name)
            continue;
        size_t add = strlen(info.name) + 1;
        if (len + add + 1 > cap) {
            char *t = cb_xrealloc(s, cap = 2 * (len + add + 1));
            s = t;
        }
        memcpy(s + len, info.name, add - 1);
        len += add;
        s[len - 1] = ',';
        s[len] = '\0';
    }
    return list = s;
}

/* Whether this libpfm4 build has the x86 tables (the cpuinfo gate below must not fire for an
 * x86 CPU's raw codes in a build for another architecture, e.g. under qemu-user, which shows the
 * host's /proc/cpuinfo). */
static int x86_build(void)
{
    static int known = -1;
    if (known < 0) {
        known = 0;
        int p;
        pfm_for_all_pmus(p)
        {
            pfm_pmu_info_t info;
            memset(&info, 0, sizeof info);
            info.size = sizeof info;
            if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && info.name &&
                !strcmp(info.name, "amd64_fam17h_zen1")) {
                known = 1;
                break;
            }
        }
    }
    return known;
}

static int model_active(const char *model)
{
    const char *a = active_pmus();
    size_t n = strlen(model);
    for (const char *p = strstr(a, model); p; p = strstr(p + 1, model))
        if (p[-1] == ',' && p[n] == ',')
            return 1;
    return 0;
}

/* The family of an AuthenticAMD CPU from /proc/cpuinfo, else 0. Parsing a file keeps this free
 * of per-architecture code: elsewhere the vendor line is simply absent. */
static unsigned host_amd_family(void)
{
    static int done;
    static unsigned family;
    if (done)
        return family;
    done = 1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[256], vendor[64] = "";
    unsigned fam = 0;
    int have_fam = 0;
    while (fgets(line, sizeof line, f) && line[0] != '\n') {
        if (!strncmp(line, "vendor_id", 9))
            sscanf(line, "vendor_id : %63s", vendor);
        else if (!strncmp(line, "cpu family", 10))
            have_fam = sscanf(line, "cpu family : %u", &fam) == 1;
    }
    fclose(f);
    if (have_fam && !strcmp(vendor, "AuthenticAMD"))
        family = fam;
    return family;
}

static int encode(const char *name, int include_kernel, struct perf_event_attr *attr, char **fstr)
{
    pfm_perf_encode_arg_t arg;
    memset(attr, 0, sizeof *attr);
    memset(&arg, 0, sizeof arg);
    arg.attr = attr;
    arg.fstr = fstr;
    arg.size = sizeof arg;
    return pfm_get_os_event_encoding(name, include_kernel ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3,
                                     PFM_OS_PERF_EVENT_EXT, &arg);
}

/* The fully qualified name for the JSON. libpfm4's fstr for a raw code drops the code itself
 * ("perf_raw:::u=1:..."), so for those the code goes back in front of the modifiers. */
static char *qualified(const char *name, const char *fstr)
{
    static const char raw[] = "perf_raw::";
    if (!fstr)
        return cb_xstrdup(name);
    if (strncmp(fstr, raw, sizeof raw - 1) || fstr[sizeof raw - 1] != ':')
        return cb_xstrdup(fstr);
    const char *code = strstr(name, "::");
    code = code ? code + 2 : name;
    size_t codelen = strcspn(code, ":");
    return cb_xasprintf("%s%.*s%s", raw, (int)codelen, code, fstr + sizeof raw - 1);
}

static const cb_cand *resolve(const cb_alias *a)
{
    for (const cb_cand *k = a->cands; k->model; k++) {
        if (!model_active(k->model) &&
            !(k->amd_family && x86_build() && host_amd_family() == k->amd_family))
            continue;
        struct perf_event_attr attr;
        if (encode(k->event, 0, &attr, NULL) == PFM_SUCCESS)
            return k;
    }
    return NULL;
}

static char *no_candidate_reason(const cb_alias *a)
{
    const char *pmus = active_pmus();
    size_t n = strlen(pmus);
    /* Drop the framing commas and show ", " between names. */
    char *list = cb_xmalloc(2 * n + 1), *q = list;
    for (const char *p = pmus + 1; *p; p++) {
        if (*p == ',') {
            if (p[1])
                q += sprintf(q, ", ");
        } else {
            *q++ = *p;
        }
    }
    *q = '\0';
    char *s = cb_xasprintf("no %s event known for this CPU (libpfm4 PMUs here: %s; see "
                        "docs/counters.md)",
                        a->name, *list ? list : "none");
    free(list);
    return s;
}

/* ---- Why an open failed ---------------------------------------------------------------------- */

static int is_pmu_type(uint32_t type)
{
    return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT &&
           type != PERF_TYPE_BREAKPOINT;
}

static char *open_reason(int err, const struct perf_event_attr *a, int include_kernel)
{
    const char *en = cb_errno_name(err);
    char num[32];
    if (!en) {
        snprintf(num, sizeof num, "errno %d", err);
        en = num;
    }
    switch (err) {
    case ENOENT:
        if (is_pmu_type(a->type))
            return cb_xasprintf(
                "perf_event_open: ENOENT: no hardware PMU visible (virtual machine?)");
        return cb_xasprintf("perf_event_open: ENOENT: not supported");
    case EACCES:
    case EPERM: {
        char val[32] = "unreadable";
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        if (f) {
            if (fgets(val, sizeof val, f))
                val[strcspn(val, "\n")] = '\0';
            fclose(f);
        }
        return cb_xasprintf("perf_event_open: %s: permission denied; "
                         "/proc/sys/kernel/perf_event_paranoid is %s (counting %s needs <= %d, or "
                         "CAP_PERFMON; a container's seccomp policy can also refuse)",
                         en, val, include_kernel ? "user and kernel" : "user space",
                         include_kernel ? 1 : 2);
    }
    case EINVAL:
    case EOPNOTSUPP:
    case ENXIO:
    case ENOSYS:
    case ENODEV:
        return cb_xasprintf("perf_event_open: %s: not supported", en);
    default:
        return cb_xasprintf("perf_event_open: %s: %s", en, strerror(err));
    }
}

/* ---- Groups and windows ---------------------------------------------------------------------- */

/* Hardware groups stay small: a group is scheduled whole or not at all, and 4 fits every PMU we
 * name (Intel has 4 general counters per thread, one of which the NMI watchdog may hold; the
 * kernel moves INST_RETIRED/cycles to fixed counters). Software events never compete for
 * counters and go in groups of their own. */
enum { CB_HW_GROUP_MAX = 4, CB_SW_GROUP_MAX = 16 };

typedef struct cb_ev {
    char *name;           /* the item as typed (trimmed) */
    const char *resolved; /* the name encoded: the item, or the alias's candidate */
    char *event;          /* fully qualified encoded name */
    char *reason;         /* why it is not counted; NULL while it is */
    int fd;
    int group;     /* index into groups, or -1 */
    uint64_t seen; /* kernel count at the previous read (since the last RESET) */
    uint64_t total;
} cb_ev;

typedef struct cb_group {
    int leader;
    uint32_t key;
    int dead;
    size_t n;
    size_t members[CB_SW_GROUP_MAX]; /* event indices, in the order read() returns them */
    uint64_t seen_enabled, seen_running;
    uint64_t enabled, running; /* summed over read windows */
} cb_group;

struct cb_counters {
    size_t n, ngroups;
    cb_ev *ev;
    cb_group *groups;
    int *order;    /* group leaders: software groups first */
    int enabled;   /* between reset_enable and disable */
    int harvested; /* every count since the last RESET has been read (after a disable) */
};

static uint32_t group_key(uint32_t type)
{
    /* Generic hardware, generic cache and raw events all land on the core PMU and group
     * together; any other PMU type groups only with itself. */
    return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ? PERF_TYPE_RAW : type;
}

static void attach(cb_counters *c, size_t i, struct perf_event_attr *attr, int include_kernel)
{
    cb_ev *e = &c->ev[i];
    uint32_t key = group_key(attr->type);
    size_t cap = key == PERF_TYPE_SOFTWARE ? CB_SW_GROUP_MAX : CB_HW_GROUP_MAX;
    attr->size = sizeof *attr;
    attr->read_format =
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr->exclude_hv = 1; /* never the hypervisor; user/kernel came from the libpfm4 plm */
    attr->inherit = 0;    /* this thread only: the coroutines run on it */

    cb_group *g = NULL;
    for (size_t k = c->ngroups; k-- > 0;)
        if (c->groups[k].key == key) {
            g = c->groups[k].n < cap ? &c->groups[k] : NULL;
            break;
        }
    if (g) {
        attr->disabled = 0; /* a member follows its leader */
        int fd = (int)perf_event_open(attr, 0, -1, g->leader, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            e->fd = fd;
            e->group = (int)(g - c->groups);
            g->members[g->n++] = i;
            return;
        }
        /* Some events cannot share a group (another PMU, a constraint): try it alone. */
    }
    attr->disabled = 1;
    int fd = (int)perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        e->reason = open_reason(errno, attr, include_kernel);
        return;
    }
    g = &c->groups[c->ngroups];
    memset(g, 0, sizeof *g);
    g->leader = fd;
    g->key = key;
    g->members[g->n++] = i;
    e->fd = fd;
    e->group = (int)c->ngroups++;
}

cb_counters *cb_counters_open(const char *list, int include_kernel)
{
    size_t nitems = 0;
    char **items = split_list(list ? list : "", &nitems);
    cb_counters *c = cb_xcalloc(1, sizeof *c);
    size_t n = nitems == 1 && !items[0][0] ? 0 : nitems; /* "" is an empty list */
    c->ev = cb_xcalloc(n ? n : 1, sizeof *c->ev);
    c->groups = cb_xcalloc(n ? n : 1, sizeof *c->groups);
    c->order = cb_xcalloc(n ? n : 1, sizeof *c->order);
    c->harvested = 1;
    int pr = pfm_ready();
    for (size_t i = 0; i < n; i++) {
        cb_ev *e = &c->ev[c->n++];
        e->name = items[i];
        items[i] = NULL;
        e->fd = -1;
        e->group = -1;
        e->resolved = e->name;
        if (pr != PFM_SUCCESS) {
            e->reason = cb_xasprintf("libpfm4: pfm_initialize: %s", pfm_strerror(pr));
            continue;
        }
        const cb_alias *a = find_alias(e->name);
        if (a) {
            const cb_cand *k = resolve(a);
            if (!k) {
                e->reason = no_candidate_reason(a);
                continue;
            }
            e->resolved = k->event;
        }
        struct perf_event_attr attr;
        char *fstr = NULL;
        int r = encode(e->resolved, include_kernel, &attr, &fstr);
        if (r != PFM_SUCCESS) {
            e->reason = cb_xasprintf("libpfm4: %s: %s", e->resolved, pfm_strerror(r));
            free(fstr);
            continue;
        }
        e->event = qualified(e->resolved, fstr);
        free(fstr);
        attach(c, i, &attr, include_kernel);
    }
    size_t o = 0;
    for (int sw = 1; sw >= 0; sw--)
        for (size_t g = 0; g < c->ngroups; g++)
            if ((c->groups[g].key == PERF_TYPE_SOFTWARE) == sw)
                c->order[o++] = c->groups[g].leader;
    free_list(items, nitems);
    return c;
}

void cb_counters_reset_enable(cb_counters *c)
{
    if (!c)
        return;
    /* RESET only when the previous windows were read: unread windows keep adding up in the
     * kernel, so reading once after several windows loses nothing. RESET leaves the enabled and
     * running times alone; read() takes differences of those. */
    if (c->harvested) {
        for (size_t i = 0; i < c->n; i++)
            c->ev[i].seen = 0;
        for (size_t g = 0; g < c->ngroups; g++)
            ioctl(c->order[g], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
        c->harvested = 0;
    }
    c->enabled = 1;
    for (size_t g = 0; g < c->ngroups; g++)
        ioctl(c->order[g], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

void cb_counters_disable(cb_counters *c)
{
    if (!c)
        return;
    for (size_t g = c->ngroups; g-- > 0;)
        ioctl(c->order[g], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    c->enabled = 0;
}

/* What a cumulative kernel value gained since it was last seen (a RESET restarts it at 0). */
static uint64_t gained(uint64_t now, uint64_t *seen)
{
    uint64_t d = now >= *seen ? now - *seen : now;
    *seen = now;
    return d;
}

void cb_counters_read(cb_counters *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < c->ngroups; k++) {
        cb_group *g = &c->groups[k];
        if (g->dead)
            continue;
        uint64_t buf[3 + CB_SW_GROUP_MAX];
        ssize_t want = (ssize_t)((3 + g->n) * sizeof buf[0]);
        ssize_t got = read(g->leader, buf, (size_t)want);
        if (got != want || buf[0] != g->n) {
            char *why =
                got < 0 ? cb_xasprintf("read: %s", strerror(errno))
                        : cb_xasprintf("read: %zd bytes for %" PRIu64 " values, expected %zu", got,
                                       got >= 8 ? buf[0] : 0, g->n);
            for (size_t m = 0; m < g->n; m++) {
                cb_ev *e = &c->ev[g->members[m]];
                if (!e->reason)
                    e->reason = cb_xstrdup(why);
            }
            free(why);
            g->dead = 1;
            continue;
        }
        g->enabled += gained(buf[1], &g->seen_enabled);
        g->running += gained(buf[2], &g->seen_running);
        for (size_t m = 0; m < g->n; m++) {
            cb_ev *e = &c->ev[g->members[m]];
            e->total += gained(buf[3 + m], &e->seen);
        }
    }
    /* A read in the middle of a window does not make the next RESET safe: the rest of the window
     * is still to be harvested. */
    c->harvested = !c->enabled;
}

void cb_counters_to_json(const cb_counters *c, double ops, json_t *cell)
{
    if (!c || !cell || !c->n)
        return;
    json_t *counted = json_object(), *unavailable = json_object();
    for (size_t i = 0; i < c->n; i++) {
        const cb_ev *e = &c->ev[i];
        const cb_group *g = e->group >= 0 ? &c->groups[e->group] : NULL;
        const char *why = e->reason;
        if (!why && g && !g->running)
            why = g->enabled ? "not counted: the group never got a counter (running time 0; too "
                               "many events, or the counters are taken, e.g. by the NMI watchdog)"
                             : "not counted: never enabled and read";
        if (why || !g) {
            json_object_set_new(counted, e->name, json_null());
            json_object_set_new(unavailable, e->name, json_string(why ? why : "not counted"));
            continue;
        }
        /* Multiplexing: the group counted running of enabled ns; scale up in double. */
        double count = (double)e->total * ((double)g->enabled / (double)g->running);
        json_t *o = json_object();
        json_object_set_new(o, "event", json_string(e->event));
        json_object_set_new(o, "count", json_real(count));
        json_object_set_new(o, "per_op", ops > 0 ? json_real(count / ops) : json_null());
        json_object_set_new(o, "running_ratio", json_real((double)g->running / (double)g->enabled));
        json_object_set_new(counted, e->name, o);
    }
    json_object_set_new(cell, "counters", counted);
    json_object_set_new(cell, "counters_unavailable", unavailable);
}

void cb_counters_close(cb_counters *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->ev && i < c->n; i++) {
        if (c->ev[i].fd >= 0)
            close(c->ev[i].fd);
        free(c->ev[i].name);
        free(c->ev[i].event);
        free(c->ev[i].reason);
    }
    free(c->ev);
    free(c->groups);
    free(c->order);
    free(c);
}

/* ---- Validation and listing ------------------------------------------------------------------ */

static void alias_names(char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < CB_NALIASES && off < len; i++) {
        int w = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", aliases[i].name);
        if (w < 0)
            break;
        off += (size_t)w;
    }
}

int cb_counters_validate(const char *list, char *err, size_t errlen)
{
    char names[256];
    alias_names(names, sizeof names);
    size_t n = 0;
    char **items = split_list(list ? list : "", &n);
    int rc = 0, pr = pfm_ready();
    if (pr != PFM_SUCCESS) {
        snprintf(err, errlen, "--events: libpfm4: pfm_initialize: %s", pfm_strerror(pr));
        rc = -1;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        const char *it = items[i];
        if (!*it) {
            snprintf(err, errlen,
                     "--events: empty event name in '%s' (valid: a libpfm4 event name or an "
                     "alias: %s)",
                     cb_quote(list ? list : ""), names);
            rc = -1;
            break;
        }
        for (size_t j = 0; j < i && !rc; j++)
            if (!strcmp(items[j], it)) {
                snprintf(err, errlen, "--events: event '%s' listed twice (valid: each event once)",
                         cb_quote(it));
                rc = -1;
            }
        if (rc || find_alias(it))
            continue;
        struct perf_event_attr attr;
        int r = encode(it, 0, &attr, NULL);
        if (r != PFM_SUCCESS) {
            snprintf(err, errlen,
                     "%s event '%s': %s (valid: a libpfm4 event name or an alias: %s)",
                     r == PFM_ERR_NOTFOUND ? "unknown" : "bad", cb_quote(it), pfm_strerror(r),
                     names);
            rc = -1;
        }
    }
    free_list(items, n);
    return rc;
}

void cb_counters_list(FILE *out, int width)
{
    const char *event[CB_NALIASES];
    char *status[CB_NALIASES];
    int wa = 0, we = 0;
    for (size_t i = 0; i < CB_NALIASES; i++) {
        cb_counters *c = cb_counters_open(aliases[i].name, 0);
        const cb_ev *e = c && c->n == 1 ? &c->ev[0] : NULL;
        event[i] = e && e->resolved != e->name ? e->resolved : "none";
        status[i] = !e ? cb_xstrdup("unavailable: out of memory")
                    : e->reason ? cb_xasprintf("unavailable: %s", e->reason)
                                : cb_xstrdup("countable");
        cb_counters_close(c);
        int la = (int)strlen(aliases[i].name), le = (int)strlen(event[i]);
        wa = la > wa ? la : wa;
        we = le > we ? le : we;
    }
    for (size_t i = 0; i < CB_NALIASES; i++) {
        const char *st = status[i] ? status[i] : "unavailable: out of memory";
        if (width > 0 && wa + we + 6 + (int)strlen(st) > width) /* the status on a line below */
            fprintf(out, "%-*s  %s\n    %s\n", wa, aliases[i].name, event[i], st);
        else
            fprintf(out, "%-*s  %-*s  %s\n", wa, aliases[i].name, we, event[i], st);
        free(status[i]);
    }
}

const char *cb_counters_probe(const char *event, char *buf, size_t len)
{
    cb_counters *c = cb_counters_open(event, 0);
    json_t *cell = json_object();
    cb_counters_reset_enable(c);
    cb_counters_disable(c);
    cb_counters_read(c);
    cb_counters_to_json(c, 1, cell);
    cb_counters_close(c);
    const char *r = NULL;
    json_t *got = json_object_get(json_object_get(cell, "counters"), event);
    if (!got || json_is_null(got)) {
        const char *why = json_string_value(
            json_object_get(json_object_get(cell, "counters_unavailable"), event));
        snprintf(buf, len, "%s", why ? why : "not countable here");
        r = buf;
    }
    json_decref(cell);
    return r;
}
