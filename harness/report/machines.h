/* The report's view of machines (report.c). */
#ifndef CB_REPORT_MACHINES_H
#define CB_REPORT_MACHINES_H

#include <jansson.h>
#include <stdio.h>

/* Where doc (read from the file `in`) was measured: machine, build and run, as a list. */
void cb_report_machine_line(FILE *out, const char *in, json_t *doc);
/* Merges every document into the first one of its machine (host name and CPU model): its
 * cells appended (those it does not have yet; the others kept aside for the claims, which pair
 * cells within one file), what was unavailable added, its file name listed in also[]. Returns
 * the number of machines; docs[] and ins[] are compacted to one entry per machine. */
size_t cb_report_group_by_machine(json_t **docs, const char **ins, size_t n, json_t **also);
/* Several machines: a table per workload, a row per (point, impl) of plain cells, a column per
 * results file with its median and the ratio to the first file's. */
void cb_report_side_by_side(FILE *out, json_t **docs, const char **ins, size_t n);

/* Several machines: "## Claims by machine", a row per claim and a column per machine, each cell
 * its verdict and key figure (the first ratio with its interval among the claim's figures,
 * "0.79x [0.70, 0.99]"), then the claims whose verdicts differ between machines, each with every
 * machine's verdict and figures. */
void cb_report_claims_by_machine(FILE *out, json_t **docs, size_t n);
/* Several machines: "## Stackful against stackless by machine", a row per workload point of
 * the Summary (claims.h: cb_claims_points) and a column per machine, each cell that machine's
 * fastest-stackful over fastest-stackless ratio with its interval and the two implementations,
 * in bold when the point is won. */
void cb_report_points_by_machine(FILE *out, json_t **docs, size_t n);
/* Several machines: "## Return-stack models by machine", each machine's machine.rsb (the model,
 * its entries, the ns per mispredicted return where calibrated, and its source). */
void cb_report_rsb_by_machine(FILE *out, json_t **docs, size_t n);

#endif
