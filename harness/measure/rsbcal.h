/* Which return-stack model stands for this machine (docs/rsb.md, "Calibration"): the CPU's
 * identity and key, the calibration file `corobench calibrate` writes for it, and the
 * `machine.rsb` object every results file carries: this CPU's calibration when one exists,
 * else the documented default for its vendor. */
#ifndef CB_RSBCAL_H
#define CB_RSBCAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "harness/measure/rsbsim.h"

typedef struct cb_cpu_id {
    char vendor[32];    /* vendor_id: AuthenticAMD, GenuineIntel; "unknown" elsewhere */
    int family, model, stepping; /* -1 when /proc/cpuinfo does not say */
    char microcode[32]; /* "0x..." or "unknown" */
    char name[128];     /* model name */
} cb_cpu_id;

/* From /proc/cpuinfo (the first processor). */
void cb_cpu_identify(cb_cpu_id *c);
/* From a text in /proc/cpuinfo's form (f NULL: nothing known): x86's vendor_id, cpu family,
 * model, stepping, microcode and model name; AArch64's CPU implementer (as its vendor's name:
 * 0x41 "ARM", 0xc0 "Ampere"...), CPU architecture, CPU part and CPU revision for vendor,
 * family, model and stepping (a Neoverse N1: ARM, 8, 3340, 1). */
void cb_cpu_identify_from(FILE *f, cb_cpu_id *c);
/* "AuthenticAMD-25-17-1-0x1000065": one calibration per vendor, family, model, stepping and
 * microcode (a microcode update may change prediction, as the RSB mitigations did). */
void cb_cpu_key(const cb_cpu_id *c, char *buf, size_t len);
/* The CPU fields as a JSON object: vendor, family, model, stepping, microcode, model_name, key. */
json_t *cb_cpu_json(const cb_cpu_id *c);

/* Directory of calibration files: $COROBENCH_CALIBRATION_DIR, else the tree's
 * results/calibration (beside bin/, whatever the current directory). */
const char *cb_rsbcal_dir(void);
/* <dir>/<key>.json for this CPU. */
void cb_rsbcal_path(const cb_cpu_id *c, char *buf, size_t len);

/* Reads and checks this CPU's calibration file, the one loader every command uses (run, whose
 * parent passes the model to every cell; calibrate, reading back what it wrote; report checks
 * a results file's machine.rsb against the same bounds, cb_rsbcal_check_machine): machine.rsb from it (a
 * new reference), or NULL with why. why is "" when the file does not exist; otherwise one line
 * naming the file and the field (or the file type: only a regular file is read, a FIFO is not
 * waited on). A fit whose size the sweep could not bound (entries_tied_up_to above entries) is
 * refused: its size is a lower bound, not a calibration. */
json_t *cb_rsbcal_load(const char *path, const cb_cpu_id *c, char *why, size_t len);
/* The checks of cb_rsbcal_load on a file's text (path only names it in why); key is the CPU
 * key the file must carry. */
json_t *cb_rsbcal_parse(const char *path, const char *text, size_t n, const char *key,
                        char *why, size_t len);

/* Checks a results file's machine.rsb (what cb_rsbcal_machine writes) as report and the
 * readers use it: 0, or -1 with the field ("machine.rsb.entries") and why ("is 0 (valid: ...)"). */
int cb_rsbcal_check_machine(json_t *rsb, char *field, size_t flen, char *why, size_t len);

/* machine.rsb: {model, entries, ns_per_mispredict, tsc_cycles_per_mispredict, r2, source, twin,
 * calibrated_utc, file, refused}; source "calibrated" from this CPU's file (cb_rsbcal_load),
 * else "default" with the vendor's documented model (AMD: circular 32; Intel: underflow-btb 16;
 * others: circular 32) and null cost, r2 and file; refused: why a file that is there was not
 * used (also said once on stderr), else null. Read once per process, by the run's parent
 * only: a cell is given the model on its command line. Never NULL (a new reference). */
json_t *cb_rsbcal_machine(void);
/* The documented default for c's vendor (docs/rsb.md): AMD circular 32, Intel underflow-btb 16,
 * others circular 32. */
cb_rsb_config cb_rsbcal_vendor_default(const cb_cpu_id *c);
/* The model and size an `auto` run simulates: those of machine.rsb. */
void cb_rsbcal_config(json_t *machine_rsb, cb_rsb_config *out);
#endif
