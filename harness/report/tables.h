/* The report's tables of one machine's cells (report.c). */
#ifndef CB_REPORT_TABLES_H
#define CB_REPORT_TABLES_H

#include <jansson.h>
#include <stdio.h>

/* The tables of doc's cells: the workloads at a glance, the appendix of every implementation
 * (times and memory), then the cells that did not run. */
void cb_report_tables(FILE *out, json_t *doc);
/* Appends s to the array if absent; returns its index. */
size_t cb_report_intern(json_t *arr, const char *s);
/* A figure of a table: two decimals (cb_fig). buf holds 32 characters. */
const char *cb_report_fig(double v, char *buf);

#endif
