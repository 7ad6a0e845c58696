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
/* path as an item of that list, into dst (at least 2 * strlen(path) + 1 bytes): each ',' as
 * '\,', the one escape the list reads; a backslash before anything else is itself, so a path
 * holding '\,' is written '\\,'. For the list's last item (or only one): a path ending in a
 * backslash cannot be followed by another. */
void cb_plugin_list_item(char *dst, const char *path);
/* Loads the one PATH a cell's request names, as cb_plugin_load_list does, but only when the file
 * is still what the run loaded: identity is cb_impl_plugin_identity's text when the run started
 * (NULL: not checked, a request written by hand). A file replaced or changed since is refused
 * before it is opened as a library (its constructors never run), naming both identities. */
int cb_plugin_load_same(const char *path, const char *identity, char *err, size_t errlen);
/* The identity cb_plugin_load_same checks, of the regular file at path as it is now: 0, or -1
 * with errno (it cannot be read, or is not a regular file: EINVAL). */
int cb_plugin_identity(const char *path, char *out, size_t len);

#endif
