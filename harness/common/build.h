/* What this binary is and writes: the version, the results schema it writes and reads, and the
 * build facts the Makefile bakes into buildinfo.c. */
#ifndef CB_BUILD_H
#define CB_BUILD_H

#define CB_VERSION "0.1.0"
#define CB_SCHEMA "corobench-results/2"
/* The schema before invocations (one process per cell): still read, each cell as one
 * invocation (docs/results-schema.md). */
#define CB_SCHEMA_1 "corobench-results/1"
/* A machine's compact record (`export --format summary`, docs/record.md): read by the same
 * loader as a results file, whose one place that recognises it is results/load.c. */
#define CB_RECORD_SCHEMA "corobench-record/1"

extern const char cb_build_commit[], cb_build_cc[], cb_build_compiler[], cb_build_cflags[],
    cb_build_arch[], cb_build_variant[], cb_build_cxx20[], cb_build_cxx20_clang[];

#endif
