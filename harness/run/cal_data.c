/* calibrate --data (calibrate.h): the plot data of plots/rsb-calibration.gp, from the
 * calibration document. */
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "harness/results/style.h"

/* gnuplot data: one block per (impl, sites): depth, the measured plain time, the plain time
 * predicted from each twin (NaN where it has none), and the block's style from the one scheme
 * every plot uses (harness/common/style.c): the implementation's colour (0xRRGGBB as an
 * integer) and point type, filled at sites=distinct, its open twin at sites=same. */
int cb_cal_write_data(json_t *doc, cb_out *out)
{
    FILE *f = cb_out_stream(out);
    static const char *const impls[] = {"asm", "asmjmp"}, *const sites[] = {"distinct", "same"};
    size_t nstyles;
    const cb_plot_style *sty = cb_plot_styles(&nstyles);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            const cb_plot_style *st = &sty[cb_plot_linetype(impls[a]) - 1];
            long colour = strtol(st->colour + 1, NULL, 16);
            int point = b ? cb_plot_point_open(st->point) : st->point;
            fprintf(f,
                    "\"%s sites=%s\"\n# depth plain_ns jmpret_model_ns sites_model_ns colour "
                    "point\n",
                    impls[a], sites[b]);
            size_t i;
            json_t *p;
            json_array_foreach(json_object_get(doc, "points"), i, p)
            {
                if (strcmp(json_string_value(json_object_get(p, "impl")), impls[a]) ||
                    strcmp(json_string_value(json_object_get(p, "sites")), sites[b]))
                    continue;
                json_t *s = json_object_get(p, "sites_model_ns");
                fprintf(f, "%d %.3f %.3f ", (int)json_integer_value(json_object_get(p, "depth")),
                        json_number_value(json_object_get(p, "plain_ns")),
                        json_number_value(json_object_get(p, "jmpret_model_ns")));
                if (json_is_number(s))
                    fprintf(f, "%.3f", json_number_value(s));
                else
                    fputs("NaN", f);
                fprintf(f, " %ld %d\n", colour, point);
            }
            fputs("\n\n", f);
        }
    return cb_out_commit(out);
}
