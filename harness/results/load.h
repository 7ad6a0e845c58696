/* Reading results documents (docs/results-schema.md): load and check every field. Shared by the
 * report, export and compare commands; text about a cell is cell.h's, the writer write.h. */
#ifndef CB_LOAD_H
#define CB_LOAD_H

#include <jansson.h>
#include <stdio.h>

#include "harness/common/cli.h"

/* Reads a results document and checks every field a reader uses (type, range, finite; each cell
 * once); NULL with *e naming the parser's line and column, or the cell index and the field that
 * is wrong (docs/bad-input.md). A directory is named as such. Prints nothing: the command does
 * (as a usage error, exit 2). */
json_t *cb_results_load(const char *path, cb_error *e);
/* The same from memory; name is the file's name for the messages. */
json_t *cb_results_parse(const char *name, const char *data, size_t len, cb_error *e);
/* 0, or -1 with *e naming the first wrong field. A machine's record (CB_RECORD_SCHEMA,
 * docs/record.md) is recognised here and its cells expanded into results cells, so that
 * every reader reads it as it reads a results file. */
int cb_results_check(json_t *doc, const char *name, cb_error *e);

/* A cell's pace (harness/run/pace.h): its object's members, in the order a record keeps them
 * as an array. */
enum { CB_PACE_FIELDS = 4 };
extern const char *const cb_pace_fields[CB_PACE_FIELDS];

/* Whether doc is a machine's record: its claims' verdicts are the record's (claims.h). */
int cb_results_is_record(json_t *doc);

#endif
