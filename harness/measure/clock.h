/* The harness's clock: the TSC where the CPU has an invariant one (calibrated against
 * CLOCK_MONOTONIC), clock_gettime elsewhere. Only the harness reads it. */
#ifndef CB_CLOCK_H
#define CB_CLOCK_H

#include <stdint.h>

/* Calibrates once per process (about 50 ms); returns ticks per second. */
double cb_clock_init(void);
/* The same, with the TSC's frequency given (hz > 1e6: a run's cell takes its request's tsc_hz,
 * so every build that measures a cell converts its ticks with the run's one frequency); hz <= 0,
 * or no invariant TSC: as cb_clock_init. */
double cb_clock_init_hz(double hz);
/* Ticks (TSC cycles, or nanoseconds for the fallback) now. */
uint64_t cb_clock_now(void);
double cb_clock_hz(void);
/* "tsc" or "clock_gettime(CLOCK_MONOTONIC)": what cb_clock_now reads. */
const char *cb_clock_source(void);
/* Nanoseconds of wall time from CLOCK_MONOTONIC, for calibration and timeouts. */
uint64_t cb_mono_ns(void);

#endif
