/* The languages' own runtimes (docs/external.md): how the programs of those that run outside the
 * cell's process start (their rows' cb_impl_program), and why a runtime cannot run here. Lua
 * runs inside the process (impls/lua/cb_lua.c). */
#ifndef CB_LANGUAGES_H
#define CB_LANGUAGES_H

/* NULL when the runtime can run here, else why not: a language's program found as its row's
 * template says (cb_impl.program); Lua built in (liblua5.4-dev at build time) with its files in
 * impls/lua/. */
const char *cb_lang_unavailable(const char *name);
const char *cb_lang_lua_unavailable(void);

/* The command line that starts the runtime `name` (a user's, or a row with a program):
 * argv[0] a path, then its fixed arguments, NULL-terminated within CB_LANG_ARGV entries; the
 * strings live until the next call. 0, or -1 with *why set. */
enum { CB_LANG_ARGV = 5 };
int cb_lang_argv(const char *name, const char *argv[CB_LANG_ARGV], const char **why);

/* A runtime of the user's (--external NAME=COMMAND, docs/external.md): COMMAND is run by
 * /bin/sh -c with the request appended as its last argument. The command string must live as long
 * as the process. 0, or -1 when CB_LANG_MAX_USER are registered already. */
enum { CB_LANG_MAX_USER = 16 };
int cb_lang_add_user(const char *name, const char *command);
/* The command a user's runtime was registered with, or NULL for another name. */
const char *cb_lang_user_command(const char *name);

#endif
