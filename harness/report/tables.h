/* The report's tables of one machine's cells (report.c). */
#ifndef CB_REPORT_TABLES_H
#define CB_REPORT_TABLES_H

#include <jansson.h>
#include <stdio.h>

/* The tables of doc's cells: the workloads at a glance, the appendix of every implementation
 * (times and memory), then the cells that did not run. */
void cb_report_tables(FILE *out, json_t *doc);
/* Distinct strings in the order first seen (arr), found through a hash (idx: string -> index)
 * rather than a pass over arr: a report of 10,000 points was quadratic (issue 30, MEDIUM 4). */
typedef struct cb_report_names {
    json_t *arr, *idx;
} cb_report_names;
cb_report_names cb_report_names_new(void);
void cb_report_names_free(cb_report_names *n);
/* Appends s to n if absent; returns its index. s may be cut inside a character (a parameter
 * text at its buffer's end): stored unchecked, as it is only printed. */
size_t cb_report_intern(cb_report_names *n, const char *s);
/* A figure of a table: two decimals (cb_fig). buf holds 32 characters. */
const char *cb_report_fig(double v, char *buf);

#endif
