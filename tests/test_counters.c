/* Tests of harness/measure/counters.c: software events counted around a window, accumulation over several
 * windows (read once or after each), hardware aliases counted or reported unavailable with the
 * errno (both outcomes accepted, decided by probing the PMU directly), every alias name encoded by
 * libpfm4 for each PMU model of docs/counters.md, validation messages, the JSON shape and
 * `corobench list`'s lines. Each test runs in its own process, so setenv before pfm_initialize is
 * safe. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "harness/measure/counters.h"
#include "tests/test.h"

enum { PAGE = 4096 };

/* ---- helpers --------------------------------------------------------------------------------- */

/* Fresh anonymous memory the kernel has not faulted in yet, in 4 KiB pages only (a transparent
 * huge page would take one fault for 512 pages). */
static unsigned char *fresh(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        CB_FAIL("mmap %zu: %s", bytes, strerror(errno));
    madvise(p, bytes, MADV_NOHUGEPAGE);
    return p;
}

static void touch(unsigned char *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += PAGE)
        ((volatile unsigned char *)p)[i] = 1;
}

static json_t *cell_of(const cb_counters *c, double ops)
{
    json_t *cell = json_object();
    cb_counters_to_json(c, ops, cell);
    return cell;
}

/* The counted entry for name: an object with the documented members, all of the right type. */
static json_t *counted(json_t *cell, const char *name)
{
    json_t *o = json_object_get(json_object_get(cell, "counters"), name);
    json_t *why = json_object_get(json_object_get(cell, "counters_unavailable"), name);
    if (!json_is_object(o))
        CB_FAIL("counters.%s is not an object (unavailable: %s)", name,
                json_is_string(why) ? json_string_value(why) : "(no reason)");
    if (why)
        CB_FAIL("counters_unavailable.%s is set for a counted event", name);
    CB_CHECK(json_is_string(json_object_get(o, "event")));
    CB_CHECK(json_is_real(json_object_get(o, "count")));
    json_t *per_op = json_object_get(o, "per_op");
    CB_CHECK(json_is_real(per_op) || json_is_null(per_op));
    CB_CHECK(json_is_real(json_object_get(o, "running_ratio")));
    double r = json_real_value(json_object_get(o, "running_ratio"));
    if (!(r > 0 && r <= 1))
        CB_FAIL("counters.%s.running_ratio = %g, outside (0, 1]", name, r);
    return o;
}

/* Why name was not counted: counters.name is null and counters_unavailable.name a string. */
static const char *unavailable(json_t *cell, const char *name)
{
    json_t *cnt = json_object_get(cell, "counters");
    json_t *o = json_object_get(cnt, name);
    json_t *why = json_object_get(json_object_get(cell, "counters_unavailable"), name);
    if (!o || !json_is_null(o))
        CB_FAIL("counters.%s is not null", name);
    if (!json_is_string(why) || !*json_string_value(why))
        CB_FAIL("counters_unavailable.%s is not a non-empty string", name);
    return json_string_value(why);
}

static double num(json_t *o, const char *key)
{
    return json_real_value(json_object_get(o, key));
}

/* Skips the test where the kernel counts nothing at all for this process (no perf_event_open, as
 * under qemu-user, or a policy refusing it): asked of the kernel directly, not of counters.c. */
static void require_software_events(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_PAGE_FAULTS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    int fd = (int)perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        CB_SKIP("perf_event_open of a software event: %s", strerror(errno));
    close(fd);
}

/* ---- software events ------------------------------------------------------------------------- */

CB_TEST(counters_software_counted)
{
    enum { BYTES = 8 << 20 };
    require_software_events();
    cb_counters *c = cb_counters_open("page-faults,task-clock,context-switches", 0);
    CB_CHECK(c != NULL);
    unsigned char *mem = fresh(BYTES);
    cb_counters_reset_enable(c);
    touch(mem, BYTES);
    cb_counters_disable(c);
    cb_counters_read(c);
    json_t *cell = cell_of(c, BYTES / PAGE);

    json_t *pf = counted(cell, "page-faults");
    if (num(pf, "count") < BYTES / PAGE)
        CB_FAIL("page-faults = %.0f for %d fresh pages", num(pf, "count"), BYTES / PAGE);
    CB_CHECK(num(pf, "per_op") > 0);
    CB_CHECK_CONTAINS(json_string_value(json_object_get(pf, "event")), "PAGE_FAULTS");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(pf, "event")), ":k=0");
    json_t *tc = counted(cell, "task-clock");
    CB_CHECK(num(tc, "count") > 0);
    counted(cell, "context-switches");
    const char *names[] = {"page-faults", "task-clock", "context-switches"};
    for (size_t i = 0; i < 3; i++) {
        json_t *o = json_object_get(json_object_get(cell, "counters"), names[i]);
        double r = num(o, "running_ratio");
        if (fabs(r - 1.0) > 1e-12)
            CB_FAIL("%s running_ratio = %.15g, software events always run", names[i], r);
    }
    CB_CHECK_EQ_U64(json_object_size(json_object_get(cell, "counters_unavailable")), 0);
    json_decref(cell);
    cb_counters_close(c);
}

/* Window 1 and window 2 each fault 1024 pages; 2048 faults between them must not count.
 * mode 0 reads once at the end, 1 after each window (twice), 2 in the middle of the first window
 * and at the end. */
static double two_windows(int mode)
{
    enum { W = 4 << 20, GAP = 8 << 20 };
    cb_counters *c = cb_counters_open("page-faults", 0);
    unsigned char *a = fresh(W), *gap = fresh(GAP), *b = fresh(W);
    cb_counters_reset_enable(c);
    touch(a, W / 2);
    if (mode == 2)
        cb_counters_read(c);
    touch(a + W / 2, W / 2);
    cb_counters_disable(c);
    if (mode == 1) {
        cb_counters_read(c);
        cb_counters_read(c); /* a second read of the same window adds nothing */
    }
    touch(gap, GAP);
    cb_counters_reset_enable(c);
    touch(b, W);
    cb_counters_disable(c);
    cb_counters_read(c);
    json_t *cell = cell_of(c, 2 * W / PAGE);
    double n = num(counted(cell, "page-faults"), "count");
    json_decref(cell);
    cb_counters_close(c);
    munmap(a, W);
    munmap(gap, GAP);
    munmap(b, W);
    return n;
}

CB_TEST(counters_accumulate_over_windows)
{
    require_software_events();
    double once = two_windows(0), each = two_windows(1), mid = two_windows(2);
    printf("page-faults over two windows: read once %.0f, read after each %.0f, mid-window and "
           "at the end %.0f\n",
           once, each, mid);
    /* 2048 in the windows; a little slack for the test's own faults (stack, libc) inside them. */
    if (once < 2048 || once > 2048 + 256)
        CB_FAIL("read once at the end: %.0f page faults, expected 2048..2304", once);
    if (each < 2048 || each > 2048 + 256)
        CB_FAIL("read after each window: %.0f page faults, expected 2048..2304", each);
    if (mid < 2048 || mid > 2048 + 256)
        CB_FAIL("read mid-window and at the end: %.0f page faults, expected 2048..2304", mid);
}

/* ---- hardware aliases ------------------------------------------------------------------------ */

/* Calls through volatile pointers so the compiler can neither inline nor clone them: a recursion
 * deeper than any return stack (32 entries on Zen, 16 on Skylake) whose return sites alternate at
 * random, so returns past the stack's depth are mispredicted. */
static unsigned rec(unsigned depth, unsigned seed);
static unsigned rec_a(unsigned d, unsigned s);
static unsigned rec_b(unsigned d, unsigned s);
static unsigned (*volatile rec_p)(unsigned, unsigned) = rec;
static unsigned (*volatile rec_a_p)(unsigned, unsigned) = rec_a;
static unsigned (*volatile rec_b_p)(unsigned, unsigned) = rec_b;
static unsigned rec_a(unsigned d, unsigned s)
{
    return rec_p(d, s) * 3 + 1;
}
static unsigned rec_b(unsigned d, unsigned s)
{
    return rec_p(d, s) * 5 + 3;
}
static unsigned rec(unsigned d, unsigned s)
{
    if (!d)
        return s;
    s = s * 1103515245u + 12345u;
    return ((s >> 16) & 1 ? rec_a_p(d - 1, s) : rec_b_p(d - 1, s)) + 7;
}

/* Whether this host counts hardware events at all, asked of the kernel without libpfm4: 0, or the
 * errno of opening PERF_COUNT_HW_INSTRUCTIONS for user space. */
static int hw_probe(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    int fd = (int)perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

static const char *errname(int e)
{
    const char *n = cb_errno_name(e);
    return n ? n : "errno";
}

CB_TEST(counters_hardware_counted_or_unavailable)
{
    int probe = hw_probe();
    cb_counters *c = cb_counters_open("instructions,ret-mispredicts", 0);
    CB_CHECK(c != NULL);
    unsigned sum = 0;
    cb_counters_reset_enable(c);
    for (unsigned i = 0; i < 20000; i++)
        sum += rec_p(64, i);
    cb_counters_disable(c);
    cb_counters_read(c);
    json_t *cell = cell_of(c, 20000);
    printf("hardware probe: %s; checksum %u\n", probe ? errname(probe) : "counts", sum);
    if (probe) {
        /* No PMU here: the alias is reported with the errno the kernel gave. */
        const char *why = unavailable(cell, "instructions");
        printf("instructions: unavailable: %s\n", why);
        CB_CHECK_CONTAINS(why, "perf_event_open: ");
        CB_CHECK_CONTAINS(why, errname(probe));
        why = unavailable(cell, "ret-mispredicts");
        printf("ret-mispredicts: unavailable: %s\n", why);
        /* Either it resolved and the open failed the same way, or this CPU has no such event. */
        if (strncmp(why, "no ret-mispredicts event", 24))
            CB_CHECK_CONTAINS(why, errname(probe));
    } else {
        json_t *o = counted(cell, "instructions");
        printf("instructions: %.0f (%s)\n", num(o, "count"),
               json_string_value(json_object_get(o, "event")));
        CB_CHECK(num(o, "count") > 0);
        json_t *rm = json_object_get(json_object_get(cell, "counters"), "ret-mispredicts");
        if (json_is_null(rm)) {
            /* Only acceptable where the table has no event for this PMU (a newer CPU). */
            const char *why = unavailable(cell, "ret-mispredicts");
            printf("ret-mispredicts: unavailable: %s\n", why);
            CB_CHECK_CONTAINS(why, "no ret-mispredicts event known for this CPU");
        } else {
            o = counted(cell, "ret-mispredicts");
            printf("ret-mispredicts: %.0f (%s)\n", num(o, "count"),
                   json_string_value(json_object_get(o, "event")));
            CB_CHECK(num(o, "count") > 0);
        }
    }
    json_decref(cell);
    cb_counters_close(c);
}

/* ---- the alias table against libpfm4's encoder ----------------------------------------------- */

/* docs/counters.md's table, column by column. NULL: the alias has no event on that PMU. */
static const char *const models[] = {
    "amd64_fam17h_zen1", "amd64_fam17h_zen2", "amd64_fam19h_zen3", "amd64_fam19h_zen4",
    "amd64_fam1ah_zen5", "skl", "skx", "clx", "icl", "icx", "spr", "arm_n1", "arm_n2", "arm_v1",
    "arm_v2", "perf",
};
enum { NMODELS = sizeof models / sizeof models[0], FIRST_ARM = 11 };

#define ZEN(ev)                                                                                    \
    "amd64_fam17h_zen1::" ev, "amd64_fam17h_zen2::" ev, "amd64_fam19h_zen3::" ev,                  \
        "amd64_fam19h_zen4::" ev
#define INTEL(ev) "skl::" ev, "skx::" ev, "clx::" ev, "icl::" ev, "icx::" ev, "spr::" ev
#define ARM(ev) "arm_n1::" ev, "arm_n2::" ev, "arm_v1::" ev, "arm_v2::" ev
#define NONE4 NULL, NULL, NULL, NULL
#define NONE6 NONE4, NULL, NULL

static const struct {
    const char *alias;
    const char *event[NMODELS];
} table[] = {
    {"ret-mispredicts",
     {ZEN("RETIRED_NEAR_RETURNS_MISPREDICTED"), "perf_raw::r00c9", "skl::BR_MISP_RETIRED:RET",
      "skx::BR_MISP_RETIRED:RET", "clx::BR_MISP_RETIRED:RET", "perf_raw::r08c5",
      "perf_raw::r08c5", "spr::BR_MISP_RETIRED:RET", NONE4, NULL}},
    {"rets",
     {ZEN("RETIRED_NEAR_RETURNS"), "perf_raw::r00c8", INTEL("BR_INST_RETIRED:NEAR_RETURN"), NONE4,
      NULL}},
    {"branch-mispredicts",
     {ZEN("RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED"), NULL,
      INTEL("BR_MISP_RETIRED:ALL_BRANCHES"), ARM("BR_MIS_PRED_RETIRED"), "perf::BRANCH-MISSES"}},
    {"instructions",
     {ZEN("RETIRED_INSTRUCTIONS"), NULL, INTEL("INST_RETIRED:ANY_P"), ARM("INST_RETIRED"),
      "perf::INSTRUCTIONS"}},
    {"cycles",
     {ZEN("CYCLES_NOT_IN_HALT"), NULL, INTEL("UNHALTED_CORE_CYCLES"), ARM("CPU_CYCLES"),
      "perf::CYCLES"}},
    {"l1d-misses",
     {ZEN("REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S:CHANGE_TO_X"), NULL,
      INTEL("L1D:REPLACEMENT"), ARM("L1D_CACHE_REFILL"), "perf::L1-DCACHE-LOAD-MISSES"}},
    {"page-faults", {NONE4, NULL, NONE6, NONE4, "perf::PAGE-FAULTS"}},
    {"context-switches", {NONE4, NULL, NONE6, NONE4, "perf::CONTEXT-SWITCHES"}},
    {"task-clock", {NONE4, NULL, NONE6, NONE4, "perf::TASK-CLOCK"}},
};
enum { NTABLE = sizeof table / sizeof table[0] };

/* The hardware codes behind the return events, from the vendors' documents: AMD PMCx0C8 retired
 * near returns and PMCx0C9 mispredicted; Intel event 0xC4 / 0xC5 with umask 0x08. */
static uint64_t ret_code(const char *alias, size_t m)
{
    int mispredicts = !strcmp(alias, "ret-mispredicts");
    if (strcmp(alias, "rets") && !mispredicts)
        return 0;
    if (m <= 4)
        return mispredicts ? 0xc9 : 0xc8;
    if (m < FIRST_ARM)
        return mispredicts ? 0x08c5 : 0x08c4;
    return 0;
}

static int pmu_known(const char *name)
{
    int p;
    pfm_for_all_pmus(p)
    {
        pfm_pmu_info_t info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && !strcmp(info.name, name))
            return 1;
    }
    return 0;
}

static void check_models(size_t from, size_t to)
{
    size_t n = 0;
    while (cb_counters_alias_name(n))
        n++;
    CB_CHECK_EQ_U64(n, NTABLE);
    for (size_t i = 0; i < NTABLE; i++) {
        CB_CHECK_STREQ(cb_counters_alias_name(i), table[i].alias);
        for (size_t m = from; m < to; m++) {
            const char *want = table[i].event[m];
            const char *got = cb_counters_alias_event(table[i].alias, models[m]);
            if (!want) {
                if (got)
                    CB_FAIL("%s on %s: the table has %s, docs say none", table[i].alias, models[m],
                            got);
                continue;
            }
            if (!got || strcmp(got, want))
                CB_FAIL("%s on %s: \"%s\", docs say \"%s\"", table[i].alias, models[m],
                        got ? got : "(none)", want);
            struct perf_event_attr attr;
            char *fstr = NULL;
            pfm_perf_encode_arg_t arg;
            memset(&attr, 0, sizeof attr);
            memset(&arg, 0, sizeof arg);
            arg.attr = &attr;
            arg.fstr = &fstr;
            arg.size = sizeof arg;
            int r = pfm_get_os_event_encoding(got, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
            if (r != PFM_SUCCESS)
                CB_FAIL("%s on %s: libpfm4 cannot encode %s: %s", table[i].alias, models[m], got,
                        pfm_strerror(r));
            uint64_t code = ret_code(table[i].alias, m);
            if (code && (attr.config & 0xffff) != code)
                CB_FAIL("%s on %s: %s encodes config 0x%llx, expected event code 0x%llx",
                        table[i].alias, models[m], got, (unsigned long long)attr.config,
                        (unsigned long long)code);
            printf("%-18s %-18s %s -> type %u config 0x%llx\n", table[i].alias, models[m], got,
                   attr.type, (unsigned long long)attr.config);
            free(fstr);
        }
    }
}

static void init_inactive(void)
{
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
    int r = pfm_initialize();
    if (r != PFM_SUCCESS)
        CB_FAIL("pfm_initialize: %s", pfm_strerror(r));
}

CB_TEST(counters_aliases_encode_x86)
{
    init_inactive();
    if (!pmu_known("skl"))
        CB_SKIP("this libpfm4 build has no x86 PMU tables");
    check_models(0, FIRST_ARM);
}

CB_TEST(counters_aliases_encode_arm)
{
    init_inactive();
    if (!pmu_known("arm_n1"))
        CB_SKIP("this libpfm4 build has no Arm PMU tables (the x86 build has none; the Arm names "
                "were checked with the arm64 libpfm4 4.13 under qemu, see docs/counters.md)");
    check_models(FIRST_ARM, NMODELS - 1);
}

CB_TEST(counters_generic_fallbacks_encode)
{
    /* The perf:: column must encode on any host, without LIBPFM_ENCODE_INACTIVE. */
    unsetenv("LIBPFM_ENCODE_INACTIVE");
    int r = pfm_initialize();
    if (r != PFM_SUCCESS)
        CB_FAIL("pfm_initialize: %s", pfm_strerror(r));
    check_models(NMODELS - 1, NMODELS);
}

/* ---- validation, JSON shape, list ------------------------------------------------------------ */

CB_TEST(counters_validate)
{
    char err[512];
    CB_CHECK_EQ_INT(cb_counters_validate("ret-mispredicts, perf::PAGE-FAULTS,task-clock", err,
                                         sizeof err),
                    0);
    CB_CHECK_EQ_INT(cb_counters_validate("FOO_NOT_AN_EVENT", err, sizeof err), -1);
    printf("%s\n", err);
    CB_CHECK_CONTAINS(err, "unknown event 'FOO_NOT_AN_EVENT'");
    CB_CHECK_CONTAINS(err, pfm_strerror(PFM_ERR_NOTFOUND));
    for (size_t i = 0; cb_counters_alias_name(i); i++)
        CB_CHECK_CONTAINS(err, cb_counters_alias_name(i));
    CB_CHECK(strchr(err, '\n') == NULL);
    CB_CHECK_EQ_INT(cb_counters_validate("instructions,perf::NO_SUCH_EVENT", err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "perf::NO_SUCH_EVENT");
    CB_CHECK_EQ_INT(cb_counters_validate("rets,,cycles", err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "empty event name");
    CB_CHECK_EQ_INT(cb_counters_validate("rets,cycles,rets", err, sizeof err), -1);
    CB_CHECK_CONTAINS(err, "'rets' listed twice");
    CB_CHECK_EQ_INT(cb_counters_validate("", err, sizeof err), -1);
}

CB_TEST(counters_json_shape)
{
    require_software_events();
    /* Never enabled: every event is null with a reason, on any host. */
    cb_counters *c = cb_counters_open("page-faults,instructions", 0);
    json_t *cell = cell_of(c, 10);
    CB_CHECK_EQ_U64(json_object_size(json_object_get(cell, "counters")), 2);
    CB_CHECK_EQ_U64(json_object_size(json_object_get(cell, "counters_unavailable")), 2);
    CB_CHECK_CONTAINS(unavailable(cell, "page-faults"), "not counted");
    unavailable(cell, "instructions");
    json_decref(cell);
    cb_counters_close(c);

    /* Counted, with the kernel included and no ops: per_op is null. */
    c = cb_counters_open("perf::PAGE-FAULTS", 1);
    unsigned char *mem = fresh(1 << 20);
    cb_counters_reset_enable(c);
    touch(mem, 1 << 20);
    cb_counters_disable(c);
    cb_counters_read(c);
    cell = cell_of(c, 0);
    json_t *o = counted(cell, "perf::PAGE-FAULTS");
    CB_CHECK(json_is_null(json_object_get(o, "per_op")));
    CB_CHECK_CONTAINS(json_string_value(json_object_get(o, "event")),
                      "perf::PERF_COUNT_SW_PAGE_FAULTS");
    CB_CHECK_CONTAINS(json_string_value(json_object_get(o, "event")), ":k=1");
    char *dump = json_dumps(cell, JSON_SORT_KEYS);
    printf("%s\n", dump);
    free(dump);
    json_decref(cell);
    cb_counters_close(c);

    /* An empty list adds nothing. */
    c = cb_counters_open("", 0);
    cell = cell_of(c, 1);
    CB_CHECK_EQ_U64(json_object_size(cell), 0);
    json_decref(cell);
    cb_counters_close(c);
}

CB_TEST(counters_list)
{
    require_software_events();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CB_CHECK(f != NULL);
    cb_counters_list(f, 0);
    fclose(f);
    printf("%s", buf);
    size_t lines = 0;
    for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        const char *alias = cb_counters_alias_name(lines);
        CB_CHECK(alias != NULL);
        CB_CHECK(!strncmp(line, alias, strlen(alias)) && line[strlen(alias)] == ' ');
        CB_CHECK(strstr(line, "  countable") || strstr(line, "  unavailable: "));
        if (!strcmp(alias, "page-faults") || !strcmp(alias, "task-clock") ||
            !strcmp(alias, "context-switches")) {
            CB_CHECK_CONTAINS(line, "  perf::");
            CB_CHECK_CONTAINS(line, "  countable");
        }
        lines++;
    }
    CB_CHECK(cb_counters_alias_name(lines) == NULL);
    free(buf);
}
