/* libFuzzer target: the calibration file's loader (harness/measure/rsbcal.h), which every run,
 * cell, calibrate and report rely on. Each input is checked as this CPU's calibration file; one
 * that passes must give a machine.rsb whose every field is in the range a run uses, and one that
 * is refused must say why on one line naming the file. No input may crash, hang, leak or trip a
 * sanitizer. The CPU key is fixed ("fuzz-key"), so the seeds carry it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure/rsbsim.h"
#include "harness/measure/rsbcal.h"
#include "harness/results/cell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1024] = "";
    json_t *r = cb_rsbcal_parse("fuzz.json", (const char *)data, size, "fuzz-key", why,
                                sizeof why);
    if (!r) {
        if (strncmp(why, "fuzz.json: ", 11) || strchr(why, '\n'))
            abort(); /* refused without saying which file, or on more than one line */
        return 0;
    }
    cb_rsb_model m;
    json_int_t n = json_integer_value(json_object_get(r, "entries"));
    double cost = json_number_value(json_object_get(r, "ns_per_mispredict"));
    double r2 = json_number_value(json_object_get(r, "r2"));
    if (cb_rsb_model_parse(json_string_value(json_object_get(r, "model")) ?: "", &m) != 0 ||
        n < 1 || n > CB_RSBSIM_MAX_ENTRIES || !isfinite(cost) || !(cost > 0) || !isfinite(r2) ||
        r2 < 0 || r2 > 1 ||
        strcmp(json_string_value(json_object_get(r, "source")) ?: "", "calibrated"))
        abort(); /* accepted a value a run would misuse */
    /* What a run makes of it: its model and size, and the label shown beside every count. */
    cb_rsb_config cfg;
    char label[256];
    cb_rsbcal_config(r, &cfg);
    if ((long)cfg.entries != (long)n || cfg.model != m)
        abort();
    cb_results_rsb_label(r, cb_rsb_model_name(cfg.model), (long)cfg.entries, label, sizeof label);
    json_decref(r);
    return 0;
}
