/* The languages' own runtimes (docs/external.md): how the programs of those that run outside the
 * cell's process start (their rows' cb_impl_program), and why a runtime cannot run here. Lua
 * runs inside the process (impls/lua/cb_lua.c). */
#ifndef CB_LANGUAGES_H
#define CB_LANGUAGES_H

#include <stddef.h>

/* How a language's own program is started (docs/external.md), the template its row holds
 * (cb_impl.program): [runner, args..., root/file] with the runner found in PATH, or [root/file]
 * alone (a regular executable file) without one; each check failing gives its reason. */
typedef struct cb_impl_program {
    const char *runner, *runner_missing; /* a program in PATH ("node"), NULL: the file is run */
    const char *file, *file_missing;     /* below the source tree's root */
    const char *args[2];                 /* between the runner and the file, NULL-terminated */
    /* Optional: patterns (glob(3)) of which one must match, else needs_missing (a library). */
    const char *needs[4], *needs_missing;
} cb_impl_program;

/* The command line that starts a language's program: argv[0] a path, then its fixed arguments
 * and its file, NULL-terminated within CB_LANG_ARGV entries; the strings live until the next
 * call. 0, or -1 with *why set (why it cannot run here). */
enum { CB_LANG_ARGV = 5 };
int cb_lang_program_argv(const cb_impl_program *pg, const char *argv[CB_LANG_ARGV],
                         const char **why);
/* NULL when Lua can run here, else why not: built in (liblua5.4-dev at build time) with its
 * files in impls/lua/. */
const char *cb_lang_lua_unavailable(void);
/* A program found on PATH as the shell finds it (a regular executable file; Debian's nodejs
 * package installs /usr/bin/node): 0 with its path in out, or -1. */
int cb_lang_find_in_path(const char *prog, char *out, size_t len);

/* A runtime of the user's (--external NAME=COMMAND, docs/external.md): COMMAND is run by
 * /bin/sh -c with the request appended as its last argument. The command string must live as long
 * as the process. 0, or -1 when CB_LANG_MAX_USER are registered already. */
enum { CB_LANG_MAX_USER = 16 };
int cb_lang_add_user(const char *name, const char *command);
/* NULL when the shell reads COMMAND "$1" as COMMAND given the request as its last word, else
 * why not: an unquoted '#' at a word's start (the request a comment), a quote left open, or a
 * trailing ';', '&', '|', '(', '<', '>', newline or backslash (the request a command, a file). */
const char *cb_lang_command_unsafe(const char *command);
/* The command a user's runtime was registered with, or NULL for another name. */
const char *cb_lang_user_command(const char *name);
/* The command line of the user's runtime `name`, as cb_lang_program_argv's: 1, 0 when no user's
 * runtime has that name, -1 with *why set. */
int cb_lang_user_argv(const char *name, const char *argv[CB_LANG_ARGV], const char **why);

#endif
