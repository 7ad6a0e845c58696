/* libFuzzer target: the external runtime protocol's reply parser (cb_ext_read_reply, what a
 * go, node or user's program writes on its stdout; docs/external.md). Each input is a program's
 * whole stdout. No input may crash, hang, leak or trip a sanitizer, and:
 *  - an accepted reply has every field docs/external.md asks for, in range: ops and batch from
 *    1 (batch at most the request's), suspensions from 0, a non-empty array of positive finite
 *    samples, a peak RSS of -1 or from 0;
 *  - a refused one (or an unsupported one) says why in one line of valid UTF-8, not empty,
 *    naming the runtime unless it is the runtime's own error;
 *  - the comparison with corobench's own work (cb_ext_diff_work) is one line too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/untrusted.h"
#include "harness/measure/external.h"

enum { MAX_BATCH = 1024 };

static void one_line(const char *s, int may_be_empty)
{
    size_t n = strlen(s);
    if ((!n && !may_be_empty) || !cb_text_is_clean(s, n) || strchr(s, '\n') || strchr(s, '\t'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cb_ext_reply rp;
    char err[512];
    memset(err, 'x', sizeof err); /* a parser that leaves it unwritten is caught below */
    err[sizeof err - 1] = '\0';
    int rc = cb_ext_read_reply("fz", (const char *)data, size, MAX_BATCH, &rp, err, sizeof err);
    if (rc < -2 || rc > 1)
        abort();
    if (rc != 0) {
        one_line(err, 0);
        if (rp.doc)
            abort(); /* nothing kept of a refused reply */
        return 0;
    }
    if (!rp.doc || rp.ops < 1 || rp.batch < 1 || rp.batch > MAX_BATCH || (int64_t)rp.ops < 0 ||
        (int64_t)rp.suspensions < 0 || !json_is_array(rp.samples) ||
        json_array_size(rp.samples) == 0 || rp.peak_rss < -1 ||
        (rp.coroutine_bytes_note[0] && !(rp.coroutine_bytes < 0)))
        abort();
    size_t i;
    json_t *s;
    json_array_foreach(rp.samples, i, s)
    {
        double v = json_number_value(s);
        if (!json_is_number(s) || !(v > 0) || !isfinite(v))
            abort();
    }
    one_line(rp.coroutine_bytes_note, 1);
    /* against a reference that differs in every field, and one that is the same */
    cb_wl_once want = {.res = {.ops = rp.ops + 1, .checksum = ~rp.checksum},
                       .suspensions = rp.suspensions + 1};
    char diff[512];
    cb_ext_diff_work(&rp, &want, 2, diff, sizeof diff);
    one_line(diff, 0);
    want = (cb_wl_once){.res = {.ops = rp.ops, .checksum = rp.checksum},
                        .suspensions = rp.suspensions};
    cb_ext_diff_work(&rp, &want, json_array_size(rp.samples), diff, sizeof diff);
    if (diff[0])
        abort();
    json_decref(rp.doc);
    return 0;
}
