/* Which return-stack model stands for this machine (docs/rsb.md, "Calibration"): the CPU's
 * identity and key, the calibration file `corobench calibrate` writes for it, and the
 * `machine.rsb` object every results file carries: this CPU's calibration when one exists,
 * else the documented default for its vendor. */
#ifndef CB_RSBCAL_H
#define CB_RSBCAL_H

#include <jansson.h>
#include <stddef.h>

#include "harness/measure/rsbsim.h"

typedef struct cb_cpu_id {
    char vendor[32];    /* vendor_id: AuthenticAMD, GenuineIntel; "unknown" elsewhere */
    int family, model, stepping; /* -1 when /proc/cpuinfo does not say */
    char microcode[32]; /* "0x..." or "unknown" */
    char name[128];     /* model name */
} cb_cpu_id;

/* From /proc/cpuinfo (the first processor). */
void cb_cpu_identify(cb_cpu_id *c);
/* "AuthenticAMD-25-17-1-0x1000065": one calibration per vendor, family, model, stepping and
 * microcode (a microcode update may change prediction, as the RSB mitigations did). */
void cb_cpu_key(const cb_cpu_id *c, char *buf, size_t len);
/* The CPU fields as a JSON object: vendor, family, model, stepping, microcode, model_name, key. */
json_t *cb_cpu_json(const cb_cpu_id *c);

/* Directory of calibration files: $COROBENCH_CALIBRATION_DIR, else results/calibration. */
const char *cb_rsbcal_dir(void);
/* <dir>/<key>.json for this CPU. */
void cb_rsbcal_path(const cb_cpu_id *c, char *buf, size_t len);

/* machine.rsb: {model, entries, ns_per_mispredict, tsc_cycles_per_mispredict, r2, source,
 * calibrated_utc, file}; source "calibrated" from this CPU's file (read with jansson, checked),
 * else "default" with the vendor's documented model (AMD: circular 32; Intel: underflow-btb 16;
 * others: circular 32) and null cost, r2 and file. Read once per process; never NULL (a new
 * reference). */
json_t *cb_rsbcal_machine(void);
/* The documented default for c's vendor (docs/rsb.md): AMD circular 32, Intel underflow-btb 16,
 * others circular 32. */
cb_rsb_config cb_rsbcal_vendor_default(const cb_cpu_id *c);
/* The model and size an `auto` run simulates: those of machine.rsb. */
void cb_rsbcal_config(json_t *machine_rsb, cb_rsb_config *out);
#endif
