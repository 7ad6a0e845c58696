/* The source tree's root, found once from /proc/self/exe. */
#include "root.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cb_root_dir(void)
{
    static char root[PATH_MAX];
    static int tried;
    if (tried)
        return root[0] ? root : NULL;
    tried = 1;
    char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        return NULL;
    dir[n] = '\0';
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return NULL;
        *slash = '\0';
        char probe[PATH_MAX + 16];
        struct stat st;
        /* impls/ beside the Makefile: build/<arch>/ has an impls/ of objects, but no Makefile. */
        snprintf(probe, sizeof probe, "%s/Makefile", dir);
        if (stat(probe, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        snprintf(probe, sizeof probe, "%s/impls", dir);
        if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(root, sizeof root, "%s", dir);
            return root;
        }
    }
    return NULL;
}
