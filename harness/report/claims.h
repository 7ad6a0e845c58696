/* The Summary, Caveats and Claims sections of `corobench report` (docs/report.md): each claim is
 * one file of harness/report/claims/ (its rule, its margins, its row in the claims table), with
 * its fixtures in tests/claims/<id>/. */
#ifndef CB_CLAIMS_H
#define CB_CLAIMS_H

#include <jansson.h>
#include <stdio.h>

/* The report's notes on a merged document (report.c sets them, the claims read them): on each
 * cell the index of the file it came from among its machine's files; on the document the files'
 * run, build and environment in that order, and the cells a later file measured again (kept
 * aside from "cells", which holds each cell's first measurement). A document read alone has
 * none of them: all its cells are one file's. */
#define CB_CLAIMS_FILE_KEY "report:file"
#define CB_CLAIMS_FILES_KEY "report:files"
#define CB_CLAIMS_ASIDE_KEY "report:aside"

typedef enum cb_verdict {
    CB_SUPPORTED,
    CB_CONTRADICTED,
    CB_INCONCLUSIVE,
    CB_NOT_MEASURED,
    CB_VERDICTS
} cb_verdict;

/* The parts cb_claims_section writes: the Summary, the rest (Caveats and Claims), or both. */
enum { CB_CLAIMS_SUMMARY = 1, CB_CLAIMS_REST = 2, CB_CLAIMS_ALL = 3 };
/* Writes "## Summary" (per workload, the fastest stackful against the fastest stackless
 * implementation at each point, as claim 10, and the claims by verdict), "## Caveats" (what limits every verdict below: the environment's warnings, counters,
 * the return-stack model, pinning, compiler, invocations and repetitions, what was not measured)
 * and "## Claims": a summary table and one subsection per claim with its numbers, its intervals,
 * its plots (links into plots_rel, from the array cb_plots_draw returned; NULL: none drawn) and
 * its verdict, all computed from doc's cells; those of them that parts names. */
void cb_claims_section(FILE *out, json_t *doc, json_t *plots, const char *plots_rel, int parts);

/* The claims table, for the tests: how many claims; claim k's (from 0) id (its fixtures are
 * tests/claims/<id>/<verdict>-<what>.json), its number in the report (k + 1 when the table is
 * whole), the verdicts its rule can give (bit v set for each cb_verdict v), the `corobench run`
 * that would measure it, and its verdict on doc. */
size_t cb_claims_count(void);
const char *cb_claims_id(size_t k);
int cb_claims_number(size_t k);
void cb_claims_command(size_t k, char *buf, size_t len);
unsigned cb_claims_verdicts(size_t k);
cb_verdict cb_claims_verdict(json_t *doc, size_t k);
/* Every claim's outcome on doc, for a machine's record (docs/record.md): an array of
 * {number, id, verdict, figures}, figures being the numbers the report prints after the
 * verdict. A record's own claims (results/load.h: cb_results_is_record) are what every claim
 * gives on it. */
json_t *cb_claims_json(json_t *doc);
/* The Summary's workload points on doc (claim 10's: at each point where both families ran in
 * one file, the fastest plain stackful cell against the fastest plain stackless one), in the
 * Summary's order: an array of {workload, point (its parameters as the report prints them),
 * stackful, stackless (the two implementations), ratio ([est, lo, hi], or [est] without an
 * interval), p (Mann-Whitney's, Holm-corrected over the points), winner ("stackful",
 * "stackless", "undecided")}. A record keeps them (docs/record.md, `summary`), since their
 * intervals need the samples it leaves out; on a record they are the ones it keeps. */
json_t *cb_claims_points(json_t *doc);
/* The headline plot (docs/report.md, "Summary"), drawn under the Summary table: its name, and
 * its rows, the Summary's points (claim 10's) per workload in the Summary's order, each
 * {workload, point (the parameters that differ between the workload's points, comma-joined),
 * ratio (fastest stackful / fastest stackless), lo, hi (its 95% interval; NaN without one),
 * ok, winner (0 stackful, 1 stackless, -1 undecided), stackful, stackless (the two
 * implementations)}. */
#define CB_HEADLINE_PLOT "headline"
json_t *cb_claims_headline(json_t *doc);
/* The user's runtimes (plugins, external programs) at each point of doc: {"workload | params":
 * "mylib/asm 1.02x [0.98, 1.06]; ..."}, each over corobench's fastest runtime of its family in
 * its file (an external program's: of either family), as the Summary's rows of them, the file
 * named when it is not the one whose figures the point takes (pick.h); claim 10's table and at
 * a glance show it. */
json_t *cb_claims_yours(json_t *doc);
/* "supported", "contradicted", "inconclusive", "not measured". */
const char *cb_verdict_name(cb_verdict v);

#endif
