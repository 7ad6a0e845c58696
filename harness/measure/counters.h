/* Event counters for `corobench run --events LIST`: libpfm4 names or corobench's portable aliases,
 * encoded by libpfm4 and counted with perf_event_open in the measured process. Opening, reading and
 * JSON happen outside the timed region; only the enable/disable ioctls sit at its edges.
 * The alias table, the reasons and the accumulation rule are documented in docs/counters.md. */
#ifndef CB_COUNTERS_H
#define CB_COUNTERS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cb_counters cb_counters;

/* Parent, while parsing the command line: validates a comma-separated list (each item an alias
 * or a name libpfm4 encodes for this host). Returns 0, or -1 with a one-line message in err, e.g.
 * "unknown event 'FOO': event not found (aliases: ret-mispredicts, rets, ...)". */
int cb_counters_validate(const char *list, char *err, size_t errlen);

/* Child (the measured process), before the timed region: resolves and opens every item, opened
 * disabled. Never fails the cell: an event that cannot be counted is kept with its reason. Counts
 * the calling thread, user space only unless include_kernel. NULL only when out of memory; every
 * function below accepts NULL and then does nothing. */
cb_counters *cb_counters_open(const char *list, int include_kernel);

/* Right before the timed region: RESET (only if the previous windows were read) and ENABLE every
 * group, software groups first. Just the ioctls. */
void cb_counters_reset_enable(cb_counters *c);
/* Right after it: DISABLE every group, hardware groups first. Just the ioctls. */
void cb_counters_disable(cb_counters *c);

/* Outside the timed region: harvests what the groups counted since the last read and adds it to
 * the totals. Both patterns give the same totals: enable/disable around several windows and read
 * once at the end, or read after each window (reading twice in a row adds nothing). */
void cb_counters_read(cb_counters *c);

/* Sets "counters" {name: {"event", "count", "per_op", "running_ratio"} or null} and
 * "counters_unavailable" {name: reason} on cell (nothing when the list was empty). count is the
 * multiplex-scaled total of all read windows; ops is the operations done in those windows. */
void cb_counters_to_json(const cb_counters *c, double ops, json_t *cell);

void cb_counters_close(cb_counters *c);

/* For `corobench list`: one line per alias: the alias, the event it resolves to here (or "none"),
 * and "countable" or "unavailable: reason", decided by opening it; a line wider than width
 * (0: no limit) has its status on the next line. */
void cb_counters_list(FILE *out, int width);

/* The alias table, for tests and documentation. The i-th alias name, or NULL past the end. */
const char *cb_counters_alias_name(size_t i);
/* The event alias resolves to on a CPU whose libpfm4 PMU is model ("amd64_fam19h_zen4", "skl",
 * "arm_n1", "perf" for the generic fallback, ...), or NULL when the table has none for it. */
const char *cb_counters_alias_event(const char *alias, const char *model);

/* Whether this machine counts event (an alias or a libpfm4 name) here, in this process: NULL
 * if it does, else the reason in buf ("perf_event_open: ENOENT: no hardware PMU visible ...").
 * calibrate asks it of ret-mispredicts; every results file's machine.pmu of instructions. */
const char *cb_counters_probe(const char *event, char *buf, size_t len);

/* The symbol of an errno value perf_event_open may give ("ENOENT"), or NULL for another. */
const char *cb_errno_name(int e);

#endif
