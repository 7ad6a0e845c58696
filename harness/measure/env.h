/* The machine's state as it bears on timing (docs/measurement.md, "Environment"): frequency
 * governor, turbo/boost, the pinned CPU's SMT sibling and whether it is busy, the hypervisor flag,
 * the load average; and steal time from /proc/stat. Checked in the parent before a run: one
 * warning line per condition that spoils timing, never a refusal. */
#ifndef CB_ENV_H
#define CB_ENV_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* The "environment" object of machine (pin_cpu -1: no pinning, CPU 0 stands for all), with a
 * "warnings" array of one line per spoiling condition. Samples the sibling's busy share over
 * about 100 ms. */
json_t *cb_env_check(int pin_cpu);
/* Prints each warning of an environment object as "corobench: warning: ..." to out. */
void cb_env_print_warnings(json_t *env, FILE *out);

/* The one CPU this process may run on (pinned), or -1 when it may run on several. */
int cb_env_pinned_cpu(void);
/* Steal time so far, in ns: of cpu (its /proc/stat line), or of all CPUs when cpu < 0.
 * 0 and -1 when /proc/stat cannot be read. Tick-granular (USER_HZ, 10 ms here). */
int cb_env_steal_ns(int cpu, uint64_t *ns);

#endif
