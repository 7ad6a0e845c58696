/* State of the return-stack-buffer simulator and the calls that bracket a counting pass. Built
 * into every binary (the harness links against it), compiled without instrumentation; only in
 * the rsbsim builds (CB_RSBSIM=1) does rewritten code call the hooks that update it. */
#include "rsbsim.h"

#include <stddef.h>
#include <string.h>

_Static_assert(offsetof(cb_rsbsim_state, tos) == CB_RSBSIM_OFF_TOS, "hook offsets");
_Static_assert(offsetof(cb_rsbsim_state, entries) == CB_RSBSIM_OFF_ENTRIES, "hook offsets");
_Static_assert(offsetof(cb_rsbsim_state, counting) == CB_RSBSIM_OFF_COUNTING, "hook offsets");
_Static_assert(offsetof(cb_rsbsim_state, rets) == CB_RSBSIM_OFF_RETS, "hook offsets");
_Static_assert(offsetof(cb_rsbsim_state, mispredicted) == CB_RSBSIM_OFF_MISPREDICTED,
               "hook offsets");
_Static_assert(offsetof(cb_rsbsim_state, ring) == CB_RSBSIM_OFF_RING, "hook offsets");

/* Starts as a valid 32-entry stack: the hooks run from the first instrumented call in main. */
cb_rsbsim_state cb_rsbsim = {.entries = CB_RSBSIM_DEFAULT_ENTRIES};

int cb_rsbsim_instrumented(void)
{
#ifdef CB_RSBSIM
    return 1;
#else
    return 0;
#endif
}

void cb_rsbsim_begin(unsigned entries)
{
    cb_rsbsim.counting = 0;
    memset(cb_rsbsim.ring, 0, sizeof cb_rsbsim.ring);
    cb_rsbsim.entries = entries < 1 ? 1 : entries > CB_RSBSIM_MAX_ENTRIES ? CB_RSBSIM_MAX_ENTRIES
                                                                         : entries;
    cb_rsbsim.tos = 0;
    cb_rsbsim.rets = 0;
    cb_rsbsim.mispredicted = 0;
    cb_rsbsim.counting = 1;
}

void cb_rsbsim_end(void) { cb_rsbsim.counting = 0; }
