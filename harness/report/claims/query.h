/* What a claim of the report is made of (docs/report.md, "Fixtures, and adding a claim"): its
 * row (cq_claim: number, id, sentence, rule, verdicts, plots, the command that would measure
 * it), registered by CQ_CLAIM in its own file of this folder; and the query helpers every rule
 * uses: cells found by workload, implementation, variant and parameters (a small query
 * language: "sites=distinct mode!=asymmetric"), their intervals and the decisions on them. */
#ifndef CB_CLAIMS_QUERY_H
#define CB_CLAIMS_QUERY_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "harness/report/claims.h"
#include "impls/impls.h"
#include "workloads/workload.h"

enum { MIN_SAMPLES = 5, MAXPTS = 64, MAXSAMPLES = 1024 };

/* The margins every rule shares (docs/report.md): a time difference counts when the ratio's 95%
 * interval lies beyond 1 +- DIFF (compare's threshold); "as fast as" when it lies below
 * 1 + EQUIV; ALPHA is the rank tests' level. A claim's own margins are the row M at the top of
 * its file. */
static const double DIFF = 0.05, EQUIV = 0.10, ALPHA = 0.05;

/* Fragments of queries (cq_matches) the rules share: mode=asymmetric cells make two switches
 * per op, and most claims are about symmetric ones; io's style=blocking and style=prebuilt
 * cells run through the hooks (the second in a library built apart), and the io claim is about
 * explicit ones (a file from before style has none: explicit). */
#define DISTINCT "sites=distinct mode!=asymmetric"
#define SAME "sites=same mode!=asymmetric"
#define ASYM "sites=distinct mode=asymmetric"
#define IO_EXPLICIT "transport=unix style!=blocking style!=prebuilt"
#define IO_BLOCKING "transport=unix style=blocking"
#define IO_PREBUILT "transport=unix style=prebuilt"
/* spawn's depth-0 memory points (claims 8 and 18): aligned, with the locals live (locals=dead is
 * claim 22's, whose locals a stackless frame does not keep). */
#define DEPTH0 "depth=0 layout!=offset locals!=dead"

typedef struct ctx {
    json_t *doc;   /* the document (a machine's files merged: its notes, claims.h, pick.h) */
    json_t *cells; /* each cell once: the measurement pick.h's rule takes */
    json_t *all;   /* those and the cells other files measured again, for pairs within a file */
    json_t *rsb;   /* machine.rsb, this CPU's calibrated model, if any */
    json_t *limits; /* machine.limits: the rlimits and kernel limits the cells ran under */
    json_t *kept;  /* a machine's record: its claims' verdicts and figures (docs/record.md) */
    json_t *points; /* a record's Summary points (cb_claims_points), when it keeps them */
} ctx;

/* A claim's outcome on one document. */
typedef struct claim {
    cb_verdict v;
    char text[6144];   /* the numbers */
    char table[32768]; /* optional Markdown table under the claim */
} claim;

/* The `corobench run` that would measure a claim, in run's vocabulary: workloads and
 * implementations named through their tables (a renamed one is a build error, not a command
 * that fails), parameters as --param takes them. tests/test_claims.c parses every one with
 * run's own parser and plan. */
typedef struct cq_command {
    const cb_workload *workloads[4]; /* NULL-ended; none: --workload all */
    const cb_impl_id *impls;         /* CQ_IMPLS(...); none: no --impl */
    size_t nimpls;
    int all_impls;         /* --impl all */
    const char *params[4]; /* each a --param NAME=VALUES */
    const char *variants;  /* --variant, or NULL */
    int rsb_sim;           /* --rsb sim */
    int quick;             /* --quick */
} cq_command;
#define CQ_IMPLS(...)                                                                              \
    .impls = (const cb_impl_id[]){__VA_ARGS__},                                                    \
    .nimpls = sizeof((const cb_impl_id[]){__VA_ARGS__}) / sizeof(cb_impl_id)

/* One claim: its row. */
typedef struct cq_claim {
    int number;     /* its place in the report and in docs/report.md's table, from 1 */
    const char *id; /* its fixtures: tests/claims/<id>/ */
    const char *sentence;
    void (*eval)(const ctx *, claim *);
    unsigned verdicts; /* the verdicts its rule can give, bit per cb_verdict */
    const char *plots[3];
    cq_command command; /* not measured: what would measure it */
} cq_claim;

#define CQ_ALL_VERDICTS                                                                            \
    (1u << CB_SUPPORTED | 1u << CB_CONTRADICTED | 1u << CB_INCONCLUSIVE | 1u << CB_NOT_MEASURED)

/* Registers a claim's row: the table (table.c) is every row so registered, in number order; a
 * claim is its file, and nothing else in harness/ names it. The rows' pointers are gathered
 * by the linker in the section cb_claims (an ELF section named as a C identifier has its
 * __start_/__stop_ symbols; the sanitizers leave such globals unpadded). */
#define CQ_CLAIM(row)                                                                              \
    static const cq_claim *const cq_claim_##row __attribute__((used, section("cb_claims"))) = &row

/* The rows in number order, and how many. */
const cq_claim *const *cq_claims(size_t *n);
/* The command's text: "corobench run --workload ... --impl ...". */
void cq_command_text(const cq_command *cmd, char *buf, size_t len);

/* ---- Queries: numbers of a cell, and cells by what they are ---- */
double cq_num(json_t *c, const char *path);
/* The median ns per op, NaN when none: pick.h's cb_pick_median. */
double cq_median(json_t *c);
/* The file (from 0) of a merged document a cell came from (claims.h). */
long cq_file_of(json_t *cell);
/* The repetition samples of every invocation, pooled (at most MAXSAMPLES). */
size_t cq_samples(json_t *c, double *x);
/* Whether cell is an ok cell of workload wl, implementation impl (NULL: any), build variant,
 * whose parameters satisfy every space-separated NAME=VALUE / NAME!=VALUE of match. */
int cq_matches(json_t *cell, const char *wl, const char *impl, const char *variant,
               const char *match);
/* The first such cell in file (from 0), or any (-1), of list. */
json_t *cq_find_in(json_t *list, const char *wl, const char *impl, const char *variant,
                   const char *match, long file);
json_t *cq_find(const ctx *c, const char *wl, const char *impl, const char *variant,
                const char *match);
/* The same printf-style: cq_findf(c, wl, impl, "plain", "sites=distinct depth=%ld", d). */
json_t *cq_findf(const ctx *c, const char *wl, const char *impl, const char *variant,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The values of integer parameter x over the ok cells of (wl, impl, variant, match), sorted,
 * distinct; how many. */
size_t cq_values(const ctx *c, const char *wl, const char *impl, const char *variant,
                 const char *match, const char *x, long *out);
/* The values present for every one of the k implementations (plain builds, or variants[j]):
 * intersects into a. */
size_t cq_common(const ctx *c, const char *wl, const char *const *impls,
                 const char *const *variants, size_t k, const char *match, const char *x, long *a);
/* The fastest (lowest median) ok plain cell of family fam at a point of wl, any implementation
 * (c_only: one the file calls a C implementation, no language's runtime); NULL when none. */
json_t *cq_fastest_of(const ctx *c, const char *wl, const char *fam, const char *match, int c_only);
/* The facts of the cell's implementation's row, from the file (impl_row); for a file written
 * before it, this build's row of that name. Its kind ("corobench", "peer", "language",
 * "plugin", "external"; NULL: unknown); whether it is a language's own runtime, a plugin or a
 * user's program (not code corobench compiles); its place in the stackful order claims 12 and
 * 15 take (0: none). */
const char *cq_kind(json_t *cell);
int cq_language(json_t *cell);
int cq_stackful_order(json_t *cell);
/* The point of a cell: "workload | params" without the implementation's own parameters. */
void cq_point_key(json_t *cell, char *buf, size_t len);
/* 0 stackful, 1 stackless, -1 any other family: pick.h's cb_pick_family_index. */
int cq_family_index(json_t *cell);
/* Whether every implementation parameter of the cell is at its default. */
int cq_at_defaults(json_t *cell);
/* The ok plain cell of impl in file f at cell's point, its own parameters at their defaults;
 * NULL when none. */
json_t *cq_same_point(const ctx *c, json_t *cell, const char *impl, long f);
/* The stackful implementations of the cells in their rows' order (cq_stackful_order), for
 * claims 12 and 15: the first with ok plain cells at both parameter sets a and b of workload wl
 * sharing a value of x gives *impl and the largest such value *at. */
int cq_pair_point(const ctx *c, const char *wl, const char *a, const char *b, const char *x,
                  const char **impl, long *at);
/* The same work: equal checksums and suspensions. */
int cq_same_work(json_t *a, json_t *b);
/* Least-squares slope of y on x (per unit of x); NAN without two distinct x or with a missing
 * y. */
double cq_slope(const long *x, const double *y, size_t n);

/* ---- Intervals ----
 * The only place that turns a cell's samples into a 95% interval: estimate.h's, the estimate
 * (median of the invocations' medians) and the hierarchical bootstrap over invocations, then
 * repetitions; one invocation gives no interval, and every rule that needs one is then
 * inconclusive with the reason. */
typedef struct iv {
    double est, lo, hi;
    int ok;          /* the interval is there */
    const char *why; /* why not */
} iv;
iv cq_cell_iv(json_t *cell);
/* A memory figure of the cell (field of its memory object: "rss_bytes_per_coro") in each of its
 * processes (invocations[].memory; a garbage-collected runtime's differs between them): their
 * median, least and most in *r (est, lo, hi; ok). Without per-process figures, the cell's own
 * once (lo = hi). r->ok is 0 when there is no positive finite figure. */
void cq_mem_range(json_t *cell, const char *field, iv *r);
/* The ratio num / den of two such ranges over every pairing of their processes: est the
 * medians' ratio, lo num's least over den's most, hi num's most over den's least (claims 18,
 * 24 and 25 decide on lo and hi); ok when both ranges are. */
iv cq_pairing_ratio(const iv *num, const iv *den);
iv cq_ratio_iv(json_t *a, json_t *b);
/* Mann-Whitney's p on the two cells' repetitions (1 with too few). */
double cq_mwu_p(json_t *a, json_t *b);

/* ---- Decisions ---- */
/* Where a ratio's interval lies against 1 +- margin. */
enum { D_FEW = -2, D_FASTER = -1, D_SAME = 0, D_SLOWER = 1, D_OPEN = 2 };
int cq_decide(iv r, double margin);

/* One workload point of claim 10 (and of the report's summary, its headline plot and at a
 * glance): the fastest plain cell of each family there, both from the file whose figures the
 * point takes (harness/report/pick.h: cb_pick_fastest), their ratio with its interval,
 * Mann-Whitney's p Holm-corrected over all the points, and the winner: 0 stackful, 1
 * stackless, -1 undecided. */
typedef struct xpoint {
    const char *key; /* "workload | params" */
    json_t *sf, *sl;
    iv r;
    double p;
    int winner;
} xpoint;
/* A cell other() takes and the fastest of corobench's own runtimes of its family at its point
 * (workload parameters; plain builds, ok, timed, the implementations' own parameters at their
 * defaults) in its file. */
typedef struct cq_pair {
    json_t *own, *other;
} cq_pair;
/* Every such pair of c, by file and point in the order the cells come, then the others' order;
 * a cell other() takes with no own runtime of its family beside it yields none; with any, a
 * cell of neither family (an external program's, family "external") is paired with the faster
 * of the own stackful and stackless there. *n of them (free() the array; the cells are c's).
 * Claim 11 (peers), claim 10's table and the Summary's rows of your runtimes pair others with
 * corobench's own through it. */
cq_pair *cq_own_pairs(const ctx *c, int (*other)(json_t *cell), int any, size_t *n);
/* Your runtimes at each point: {"workload | params": "uctx-plugin/asm 1.02x [0.98, 1.06]; ..."},
 * each over corobench's fastest of its family in its own file (cq_own_pairs with cq_outside,
 * any; " (file N)" after a pair of another file than the one whose figures the point takes).
 * Claim 10's table and at a glance (claims.h) show it. */
json_t *cq_yours_by_point(const ctx *c);
/* Whether the cell is a user's runtime: a plugin (--impl-lib) or an external program
 * (--external), by its row's kind. */
int cq_outside(json_t *cell);
/* Whether the cell is one of corobench's own runtimes, by its row's kind. */
int cq_own_impl(json_t *cell);
/* The points with both families (*pts: free() it; its keys live in *points: json_decref it).
 * From a record that keeps them (ctx.points), the record's own, each with its two cells. */
size_t cq_crossover_points(const ctx *c, xpoint **pts, json_t **points_out);
/* A point's winner as the report and a record name it: 0 "stackful", 1 "stackless", else
 * "undecided". */
const char *cq_winner_name(int winner);

/* ---- Text ---- */
/* "1.23x [1.10, 1.40]" (and the files when the two cells come from different ones). */
void cq_ratio_text(char *buf, size_t len, iv r, json_t *a, json_t *b);
/* A time in ns: one decimal, or three significant digits from 1e12 on. buf holds 32. */
const char *cq_ns_fig(double v, char *buf);
/* "12.3 ns [11.0, 14.0]" or why there is no interval. */
void cq_cell_text(char *buf, size_t len, iv r);
/* A count per op as printed with two decimals: a difference that rounds to zero is 0, not -0. */
double cq_shown(double x);
/* The claim is not measured: "The results have no <what>." (the row's command follows). */
void cq_not_measured(claim *o, const char *what);
/* Whether some of the n cells has no time (a document of deterministic fields has none:
 * `export --format deterministic`); the claim is then not measured. */
int cq_untimed(claim *o, json_t *const *cells, size_t n);

/* ---- The section's parts (table.c writes them in this order) ---- */
/* "## Summary": per workload, claim 10's points, the headline plot (from plots, linked into
 * plots_rel; none when plots is NULL); then the nclaims claims by verdict. */
void cq_summary(FILE *out, json_t *doc, const ctx *c, const claim *res, size_t nclaims,
                json_t *plots, const char *plots_rel);
/* The headline plot's rows (claims.h: cb_claims_headline), from claim 10's points. */
json_t *cq_headline_rows(const ctx *c);
/* "## Caveats": what limits every verdict, and which of the nclaims claims were not measured. */
void cq_caveats(FILE *out, json_t *doc, const ctx *c, const claim *res, size_t nclaims);

#endif
