/* Clock for architectures without a TSC back end here: clock_gettime(CLOCK_MONOTONIC), in ns. */
#include "clock.h"
#include "clock_common.h"

uint64_t cb_mono_ns(void) { return cb_mono_ns_inline(); }
double cb_clock_init(void) { return 1e9; }
double cb_clock_init_hz(double hz) { return (void)hz, 1e9; }
uint64_t cb_clock_now(void) { return cb_mono_ns_inline(); }
double cb_clock_hz(void) { return 1e9; }
const char *cb_clock_source(void) { return "clock_gettime(CLOCK_MONOTONIC)"; }
