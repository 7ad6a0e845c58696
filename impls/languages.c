/* Finding bin/corobench-go, node + impls/node/corobench.mjs, mono + bin/corobench-csharp.exe,
 * luajit + impls/luajit/corobench.lua, and impls/lua/. */
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

/* node from PATH (Debian's nodejs package installs /usr/bin/node). */
static int find_in_path(const char *prog, char *out, size_t len)
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

/* The shell line of a user's runtime: its command, then the request ($1) as one more word. */
static char user_line[8192];

int cb_lang_argv(const char *name, const char *argv[CB_LANG_ARGV], const char **why)
{
    const char *root = cb_root_dir();
    memset(argv, 0, CB_LANG_ARGV * sizeof *argv);
    const char *command = cb_lang_user_command(name);
    if (command) {
        if (snprintf(user_line, sizeof user_line, "%s \"$1\"", command) >= (int)sizeof user_line) {
            *why = "its command is too long";
            return -1;
        }
        argv[0] = "/bin/sh";
        argv[1] = "-c";
        argv[2] = user_line;
        argv[3] = name; /* $0 */
        return 0;
    }
    if (!root) {
        *why = "corobench's source tree (the Makefile and impls/) not found above the executable";
        return -1;
    }
    if (strcmp(name, "go") == 0) {
        snprintf(path, sizeof path, "%s/bin/corobench-go", root);
        struct stat st;
        if (stat(path, &st) != 0) {
            *why = "bin/corobench-go not built (go was not installed when make ran; "
                   "scripts/install-deps.sh installs golang-go)";
            return -1;
        }
        if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
            *why = S_ISREG(st.st_mode) ? "bin/corobench-go is not executable (its mode; 'make "
                                         "all' rebuilds it)"
                                       : "bin/corobench-go is not a regular file";
            return -1;
        }
        argv[0] = path;
        return 0;
    }
    if (strcmp(name, "node") == 0) {
        if (find_in_path("node", path, sizeof path) != 0) {
            *why = "node not found in PATH (scripts/install-deps.sh installs nodejs)";
            return -1;
        }
        snprintf(script, sizeof script, "%s/impls/node/corobench.mjs", root);
        if (access(script, R_OK) != 0) {
            *why = "impls/node/corobench.mjs not found";
            return -1;
        }
        argv[0] = path;
        argv[1] = "--expose-gc"; /* the runtime collects between repetitions, untimed */
        /* Node's default since 15, pinned: a NODE_OPTIONS of warn or none would let the fault
         * self-test's unhandled rejection pass as a warning (docs/fault.md). */
        argv[2] = "--unhandled-rejections=throw";
        argv[3] = script;
        return 0;
    }
    if (strcmp(name, "csharp") == 0) {
        snprintf(script, sizeof script, "%s/bin/corobench-csharp.exe", root);
        if (access(script, R_OK) != 0) {
            *why = "bin/corobench-csharp.exe not built (mcs was not installed when make ran; "
                   "scripts/install-deps.sh installs mono-mcs)";
            return -1;
        }
        if (find_in_path("mono", path, sizeof path) != 0) {
            *why = "mono not found in PATH (scripts/install-deps.sh installs mono-runtime)";
            return -1;
        }
        argv[0] = path;
        argv[1] = script;
        return 0;
    }
    if (strcmp(name, "luajit") == 0) {
        if (find_in_path("luajit", path, sizeof path) != 0) {
            *why = "luajit not found in PATH (scripts/install-deps.sh installs luajit)";
            return -1;
        }
        snprintf(script, sizeof script, "%s/impls/luajit/corobench.lua", root);
        if (access(script, R_OK) != 0) {
            *why = "impls/luajit/corobench.lua not found";
            return -1;
        }
        /* Its JSON is lua-cjson's module for Lua 5.1, which LuaJIT loads. */
        glob_t g;
        int found = glob("/usr/lib/*/lua/5.1/cjson.so", 0, NULL, &g) == 0 ||
                    access("/usr/local/lib/lua/5.1/cjson.so", R_OK) == 0 ||
                    access("/usr/lib/lua/5.1/cjson.so", R_OK) == 0;
        globfree(&g);
        if (!found) {
            *why = "lua-cjson for Lua 5.1 (cjson.so) not installed (scripts/install-deps.sh "
                   "installs lua-cjson)";
            return -1;
        }
        argv[0] = path;
        argv[1] = script;
        return 0;
    }
    *why = "no such language runtime (valid: go, node, csharp, luajit)";
    return -1;
}

static const char *unavailable(const char *name)
{
    const char *argv[CB_LANG_ARGV], *why = NULL;
    return cb_lang_argv(name, argv, &why) == 0 ? NULL : why;
}

const char *cb_lang_go_unavailable(void) { return unavailable("go"); }

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
const char *cb_lang_node_unavailable(void) { return unavailable("node"); }
const char *cb_lang_csharp_unavailable(void) { return unavailable("csharp"); }
const char *cb_lang_luajit_unavailable(void) { return unavailable("luajit"); }
