/* Named baselines (baseline.h). */
#include "baseline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/common/cli.h"
#include "harness/common/output.h"

int cb_baseline_name_check(const char *name)
{
    size_t n = strlen(name);
    if (!n || n > CB_BASELINE_NAME_MAX || name[0] == '.')
        return -1;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n
               ? 0
               : -1;
}

void cb_baseline_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s.json", CB_BASELINE_DIR, name);
}

int cb_baseline_prepare(cb_out *o, const char *name, int dry)
{
    char path[4096];
    cb_made_dirs made = {.n = 0};
    cb_baseline_path(name, path, sizeof path);
    if (cb_mkdirs(CB_BASELINE_DIR, 2, &made) != 0)
        return cb_usage_error("cannot make '%s': %s (valid: run from a directory where results/ "
                              "can be written)",
                              CB_BASELINE_DIR, strerror(errno));
    int rc = dry ? cb_out_check("baseline", path, CB_OUT_REPLACE)
                 : cb_out_prepare(o, "baseline", path, CB_OUT_REPLACE);
    if (dry)
        cb_rmdirs_made(&made);
    return rc;
}
