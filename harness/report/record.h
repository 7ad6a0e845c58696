/* A machine's compact record (docs/record.md), `corobench export --format summary`: per cell
 * its identity, estimate and interval, memory per coroutine, instructions per op and status;
 * the machine, the build, the return-stack model and the claims' verdicts with their figures;
 * no samples. Read back by results/load.c, which recognises it. */
#ifndef CB_REPORT_RECORD_H
#define CB_REPORT_RECORD_H

#include <jansson.h>
#include <stdio.h>

/* The record of doc: one machine's results, its files merged (machines.h,
 * cb_report_group_by_machine), or a record read back. A new reference. */
json_t *cb_record_make(json_t *doc);
/* Writes it: indented, a cell per line. 0, or -1. */
int cb_record_dump(FILE *out, json_t *record);

#endif
