/* Writing a results document (docs/results-schema.md): the document every writer starts from,
 * its atomic write, and results/latest.json. The reader is load.h. */
#ifndef CB_RESULTS_WRITE_H
#define CB_RESULTS_WRITE_H

#include <jansson.h>

#include "harness/common/output.h"

/* schema, version, commit, created_utc, machine (this machine's facts, its environment checked
 * for CPU pin_cpu, -1 none: one warning line each on stderr), build, the given run and
 * unavailable objects (their references are stolen) and an empty "cells" array. */
json_t *cb_results_new(json_t *run, json_t *unavailable, int pin_cpu);
/* Writes doc through out (prepared before the run, harness/common/output.h). A file that
 * appeared at out_path (-o) meanwhile is not replaced: the document goes beside it
 * (NAME-2.json); a path that cannot be written any more goes to $TMPDIR (or /tmp) under a unique
 * default name; either is said on stderr and sets *moved. 0, or 1 after a one-line message. */
int cb_results_write(json_t *doc, cb_out *out, const char *out_path, int *moved);
/* When path is directly in a directory named results: points results/latest.json at it (a
 * relative symbolic link, replaced atomically). 1 if linked, 0 if not applicable, -1 with errno. */
int cb_results_link_latest(const char *path);

#endif
