/* The commands that read results documents (docs/results-schema.md); none of them runs a cell. */
#ifndef CB_REPORT_COMMANDS_H
#define CB_REPORT_COMMANDS_H

/* report.c: Markdown tables. */
int cb_cmd_report(int argc, char **argv);
/* export.c: gnuplot data blocks. */
int cb_cmd_export(int argc, char **argv);
/* compare.c: the same cells of two documents side by side. */
int cb_cmd_compare(int argc, char **argv);

#endif
