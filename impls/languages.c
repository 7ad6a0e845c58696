/* Starting a language's program as its row's template says (cb_impl_program: bin/corobench-go,
 * node + impls/node/corobench.mjs...), a user's runtime by its command, and finding impls/lua/. */
#include "languages.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "root.h"

static char path[PATH_MAX], script[PATH_MAX];

int cb_lang_find_in_path(const char *prog, char *out, size_t len)
{
    const char *env = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, len, "%s/%s", d, prog);
        struct stat st; /* a directory named node is not the program, as for the shell */
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
    }
    return -1;
}

static struct {
    const char *name, *command;
} user[CB_LANG_MAX_USER];
static size_t nuser;

int cb_lang_add_user(const char *name, const char *command)
{
    if (nuser >= CB_LANG_MAX_USER)
        return -1;
    user[nuser].name = name;
    user[nuser++].command = command;
    return 0;
}

const char *cb_lang_user_command(const char *name)
{
    for (size_t i = 0; i < nuser; i++)
        if (!strcmp(user[i].name, name))
            return user[i].command;
    return NULL;
}

/* Checked as the row says: the runner in PATH, the file, then what it needs. */
int cb_lang_program_argv(const cb_impl_program *pg, const char *argv[CB_LANG_ARGV],
                         const char **why)
{
    static char bad_mode[PATH_MAX + 80];
    const char *root = cb_root_dir();
    memset(argv, 0, CB_LANG_ARGV * sizeof *argv);
    if (!root) {
        *why = "corobench's source tree (the Makefile and impls/) not found above the executable";
        return -1;
    }
    if (pg->runner && cb_lang_find_in_path(pg->runner, path, sizeof path) != 0) {
        *why = pg->runner_missing;
        return -1;
    }
    snprintf(script, sizeof script, "%s/%s", root, pg->file);
    struct stat st;
    if (stat(script, &st) != 0 || (pg->runner && access(script, R_OK) != 0)) {
        *why = pg->file_missing;
        return -1;
    }
    if (!pg->runner) { /* the file is the program */
        if (!S_ISREG(st.st_mode) || access(script, X_OK) != 0) {
            snprintf(bad_mode, sizeof bad_mode,
                     S_ISREG(st.st_mode) ? "%s is not executable (its mode; 'make all' rebuilds it)"
                                         : "%s is not a regular file",
                     pg->file);
            *why = bad_mode;
            return -1;
        }
        argv[0] = script;
        return 0;
    }
    int found = !pg->needs[0];
    for (size_t i = 0; !found && i < sizeof pg->needs / sizeof pg->needs[0] && pg->needs[i];
         i++) {
        glob_t g;
        found = glob(pg->needs[i], 0, NULL, &g) == 0;
        globfree(&g);
    }
    if (!found) {
        *why = pg->needs_missing;
        return -1;
    }
    size_t n = 0;
    argv[n++] = path;
    for (size_t i = 0; i < sizeof pg->args / sizeof pg->args[0] && pg->args[i]; i++)
        argv[n++] = pg->args[i];
    argv[n] = script;
    return 0;
}

const char *cb_lang_command_unsafe(const char *command)
{
    char q = 0; /* the open quote, ' or " */
    int word_start = 1, last = 0; /* last: the last unquoted character other than a blank */
    for (const char *c = command; *c; c++) {
        if (q) {
            if (*c == q)
                q = 0;
            else if (q == '"' && *c == '\\' && c[1])
                c++;
            last = 'w';
            continue;
        }
        if (*c == '\\') {
            if (!c[1])
                return "ends with a backslash, which would join the request to its last word";
            c++;
            last = 'w', word_start = 0;
            continue;
        }
        if (*c == '\'' || *c == '"') {
            q = *c, last = 'w', word_start = 0;
            continue;
        }
        if (*c == '#' && word_start)
            return "has an unquoted '#', which would make the request a comment";
        if (*c != ' ' && *c != '\t')
            last = (unsigned char)*c;
        word_start = strchr(" \t\n;&|()<>", *c) != NULL;
    }
    if (q)
        return "has a quote left open, which would take the request in";
    if (last && strchr(";&|(<>\n", last))
        return "ends with a shell operator (';', '&', '|', '(', '<', '>' or a newline), which "
               "would make the request a command or a file name";
    return NULL;
}

/* The shell line of a user's runtime: its command, then the request ($1) as one more word. */
static char user_line[8192];

int cb_lang_user_argv(const char *name, const char *argv[CB_LANG_ARGV], const char **why)
{
    const char *command = cb_lang_user_command(name);
    if (!command)
        return 0;
    memset(argv, 0, CB_LANG_ARGV * sizeof *argv);
    if (snprintf(user_line, sizeof user_line, "%s \"$1\"", command) >= (int)sizeof user_line) {
        *why = "its command is too long";
        return -1;
    }
    argv[0] = "/bin/sh";
    argv[1] = "-c";
    argv[2] = user_line;
    argv[3] = name; /* $0 */
    return 1;
}

const char *cb_lang_lua_unavailable(void)
{
#if CB_HAVE_LUA
    char dir[PATH_MAX + 16];
    const char *root = cb_root_dir();
    snprintf(dir, sizeof dir, "%s/impls/lua", root ? root : "");
    if (!root || access(dir, R_OK) != 0)
        return "impls/lua/ not found above the executable";
    return NULL;
#else
    return "built without Lua 5.4 (liblua5.4-dev was not installed when make ran; "
           "scripts/install-deps.sh installs it)";
#endif
}
