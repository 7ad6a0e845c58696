/* A machine's compact record (docs/record.md), `corobench export --format summary`: per cell
 * its identity, estimate and interval, memory per coroutine, instructions per op and status;
 * the machine, the build, the return-stack model and the claims' verdicts with their figures;
 * no samples. Read back by results/load.c, which recognises it. */
#ifndef CB_REPORT_RECORD_H
#define CB_REPORT_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "harness/common/cli.h"

/* The record of doc: one machine's results, its files merged (machines.h,
 * cb_report_group_by_machine), or a record read back. A new reference. */
json_t *cb_record_make(json_t *doc);
/* Writes it: indented, a cell per line. 0, or -1. */
int cb_record_dump(FILE *out, json_t *record);

/* The CPU kind of doc (a record or results) from its machine.cpu, as results/fleet/ names its
 * record (docs/record.md, "The fleet"): "<vendor>-<family>-<model>", the vendor short
 * (AuthenticAMD amd, GenuineIntel intel, another lowercased to [a-z0-9]), family and model in
 * decimal: "amd-26-2". 0, or -1 with e saying what of machine.cpu is missing or bad (a file
 * written before machine.cpu has none). */
int cb_record_kind(json_t *doc, char *buf, size_t len, cb_error *e);
/* Records of one CPU kind among docs (read from ins) are refused: 0, or -1 with e naming both
 * files and the kind. Results files and records without a kind are not compared. */
int cb_record_one_per_kind(json_t **docs, const char **ins, size_t n, cb_error *e);
/* `export --cpu VENDOR,FAMILY,MODEL`: the CPU that measured results written before machine.cpu
 * (df6a541's), given by whoever kept them. VENDOR is a vendor_id (AuthenticAMD, GenuineIntel,
 * another of letters and digits) or amd or intel; FAMILY and MODEL decimal integers 0..65535.
 * Sets doc's machine.cpu to {vendor, family, model, model_name: machine.cpu_model, given: true};
 * results that name a CPU keep it when it is the same kind and are refused when it is not. 0,
 * or -1 with e naming the bad value and the valid ones. */
int cb_record_give_cpu(json_t *doc, const char *spec, cb_error *e);

#endif
