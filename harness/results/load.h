/* Reading results documents (docs/results-schema.md): load and check every field. Shared by the
 * report, export and compare commands; text about a cell is cell.h's, the writer write.h. */
#ifndef CB_LOAD_H
#define CB_LOAD_H

#include <jansson.h>
#include <stdio.h>

/* Reads a results document and checks every field a reader uses (type, range, finite; each cell
 * once); NULL after one line naming the parser's line and column, or the cell index and the
 * field that is wrong (docs/bad-input.md). A directory is named as such. */
json_t *cb_results_load(const char *path);
/* The same from memory; name is the file's name for the messages. */
json_t *cb_results_parse(const char *name, const char *data, size_t len);
/* 0, or prints one line and returns CB_EXIT_USAGE. */
int cb_results_check(json_t *doc, const char *name);

#endif
