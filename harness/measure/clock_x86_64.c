/* x86-64 clock: rdtsc, fenced with lfence so earlier instructions retire before the read.
 * Used only when /proc/cpuinfo says the TSC is invariant (constant_tsc and nonstop_tsc);
 * otherwise clock_gettime. Calibrated by counting ticks over 50 ms of CLOCK_MONOTONIC. */
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>

#include "clock.h"
#include "clock_common.h"

static double hz;
static int use_tsc;

static int tsc_invariant(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int ok = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    fclose(f);
    return ok;
}

static inline uint64_t tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

uint64_t cb_mono_ns(void) { return cb_mono_ns_inline(); }

double cb_clock_init_hz(double given)
{
    if (hz > 0)
        return hz;
    use_tsc = tsc_invariant();
    if (!use_tsc) {
        hz = 1e9;
        return hz;
    }
    /* A run hands its calibration to every cell in the cell's request, so both variants of a
     * cell are converted to ns with the same TSC frequency. */
    if (given > 1e6)
        return hz = given;
    uint64_t n0 = cb_mono_ns(), t0 = tsc(), n1, t1;
    do {
        n1 = cb_mono_ns();
        t1 = tsc();
    } while (n1 - n0 < 50000000ULL);
    hz = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
    return hz;
}

double cb_clock_init(void) { return cb_clock_init_hz(0); }
uint64_t cb_clock_now(void) { return use_tsc ? tsc() : cb_mono_ns_inline(); }
double cb_clock_hz(void) { return hz; }
const char *cb_clock_source(void) { return use_tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)"; }
