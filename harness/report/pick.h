/* One figure per point (docs/report.md, "One figure per point"): when a machine's files measure
 * one workload point more than once, one rule picks the file whose cells every section of the
 * report takes there (the Summary, the claims, the headline plot, at a glance, the appendix's
 * tables, the plots), and the report says which file and why. The rule, in order:
 *  1. a file that measured both families there (a stackful and a stackless plain cell): the
 *     Summary, claim 10 and at a glance compare the two within one file, and the figures they
 *     show are the ones every other section shows;
 *  2. the most invocations per cell (run.invocations): more processes, an interval that holds
 *     more of this machine's variance between processes;
 *  3. the file given first (run.sh gives the suite's main run first).
 * A cell only another file measured at the point (an implementation, a variant or an
 * implementation's own parameters that file alone has) is that file's, by the same order. */
#ifndef CB_REPORT_PICK_H
#define CB_REPORT_PICK_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The document's note of each point's file: {"workload | params": file index}, set by
 * cb_pick_figures; a document without it is one file's (every point its cells' file). */
#define CB_PICK_POINTS_KEY "report:points"

/* A cell's median ns per op (ns_per_op.median), NaN when it has none. */
double cb_pick_median(json_t *cell);
/* A cell's family: 0 stackful, 1 stackless, -1 any other family. */
int cb_pick_family_index(json_t *cell);

/* The file (from 0) among its machine's files a cell came from (claims.h's
 * CB_CLAIMS_FILE_KEY; 0 when it has none: a document read alone). */
long cb_pick_file_of(json_t *cell);
/* The point of a cell: "workload | params", without the implementation's own parameters. */
void cb_pick_point_key(json_t *cell, char *buf, size_t len);
/* A cell's identity among a machine's files: its point, its implementation with its own
 * parameters, its variant ("pingpong depth=16 sites=distinct asm/plain"). */
void cb_pick_identity(json_t *cell, char *buf, size_t len);
/* The file whose figures the cell's point takes (the note, else the cell's own file). */
long cb_pick_point_file(json_t *doc, json_t *cell);

/* A merged document (machines.c: its cells and those kept aside, CB_CLAIMS_ASIDE_KEY, each
 * tagged with its file): each cell (point, implementation with its own parameters, variant)
 * once in "cells", the measurement the rule picks, at the place of its first measurement; the
 * others in the aside list; the points' files noted (CB_PICK_POINTS_KEY). */
void cb_pick_figures(json_t *doc);

/* The fastest ok plain timed cell of each family at each point, among the cells of the point's
 * file: {"workload | params": [stackful or null, stackless or null]} in the order the points
 * come. The Summary, claim 10, the headline plot and at a glance all take their two cells from
 * it. */
json_t *cb_pick_fastest(json_t *doc);

/* The report's line on it, under the machine's files: which file each point measured in
 * several files takes its figures from, and why; nothing when no point was. */
void cb_pick_note(FILE *out, json_t *doc);

#endif
