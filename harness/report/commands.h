/* The commands that read results documents (docs/results-schema.md); none of them runs a cell. */
#ifndef CB_REPORT_COMMANDS_H
#define CB_REPORT_COMMANDS_H

/* report.c: Markdown tables. */
int cb_cmd_report(int argc, char **argv);
/* export.c: gnuplot data blocks. */
int cb_cmd_export(int argc, char **argv);
/* export's --format when none is given (its parser's and `help export`'s). */
extern const char cb_export_default_format[];
/* compare.c: the same cells of two documents side by side. */
int cb_cmd_compare(int argc, char **argv);
/* compare's --threshold in percent when none is given (its parser's and `help compare`'s). */
extern const double cb_compare_default_threshold;
/* compare's and ab's --instr-threshold in percent: instructions per op changed beyond it (above
 * the A/A spread measured under callgrind, docs/ci.md). */
#define CB_INSTR_THRESHOLD_DEFAULT 1.5

#endif
