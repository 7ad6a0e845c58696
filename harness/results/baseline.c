/* Named baselines (baseline.h). */
#include "baseline.h"

#include <stdio.h>
#include <string.h>

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

int cb_baseline_mkdir(void) { return cb_mkdirs(CB_BASELINE_DIR, 2, NULL); }
