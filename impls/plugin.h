/* Runtimes loaded from shared objects (--impl-lib, include/corobench/runtime.h,
 * docs/plugin.md): each registers as a stackful implementation whose coroutines the layer
 * (coro.c) creates, resumes, yields and destroys through the plugin's own verbs. */
#ifndef CB_PLUGIN_H
#define CB_PLUGIN_H

#include <stddef.h>

/* Loads every PATH of a comma-separated list (a path loaded before is skipped) and registers
 * the implementation each describes. 0, or -1 with one line in err naming the path and what is
 * wrong with it (it cannot be opened, it has no corobench_plugin, a field is missing or bad,
 * its name is taken). */
int cb_plugin_load_list(const char *paths, char *err, size_t errlen);

#endif
