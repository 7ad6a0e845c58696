/* Output files that never clobber (docs/bad-input.md). Every command that writes a file (run's
 * results, report, export) goes through here:
 *  - checked before any work: the path must be a new path or, with --force, a regular file;
 *    directories, device nodes, FIFOs, sockets and symbolic links are refused; a missing
 *    directory is created if its own parent exists (one level, like results/), and the directory
 *    is tried for writing (a temporary file created and removed);
 *  - written whole into memory, then to a temporary file in the same directory (O_EXCL), synced
 *    and closed with every error checked, then put in place: link() for a new path (atomic: it
 *    fails rather than replace a file that appeared meanwhile), rename() over the old regular
 *    file with --force (its mode and owner kept);
 *  - default results names are unique: <host>-<UTC time to the microsecond>Z[-N].json, N counting
 *    up while the name is taken.
 * Messages are one line naming the path; a refused path is exit status 2 (CB_EXIT_USAGE). */
#ifndef CB_OUTPUT_H
#define CB_OUTPUT_H

#include <stdio.h>
#include <sys/types.h>

/* The longest output path taken (room is kept for the temporary name beside it). */
enum { CB_OUT_PATH_MAX = 4096 - 300 };

typedef struct cb_out {
    const char *what; /* "results", "report", "export": for messages */
    char path[4096];  /* "" = standard output; after a commit, where it went */
    int force;        /* --force: a regular file may be replaced */
    int unique;       /* a default name: -N added until the name is free */
    int replace;      /* the path held a regular file when checked (force) */
    int raced;        /* the commit failed because the path was taken meanwhile */
    mode_t mode;      /* that file's mode and owner, kept */
    uid_t uid;
    gid_t gid;
    FILE *mem; /* what is written, in memory until the commit */
    char *buf;
    size_t len;
} cb_out;

/* force: 1 for --force; CB_OUT_REPLACE for a file the command replaces without it (a named
 * baseline, this CPU's calibration, a fleet record), so that no refusal advises --force. */
enum { CB_OUT_REPLACE = 2 };
/* Sets up o for path (NULL: standard output) and checks it. 0, or prints one line and returns
 * 2. Call before any work. */
int cb_out_prepare(cb_out *o, const char *what, const char *path, int force);
/* The same for a unique default name in dir: dir/<host>-<UTC stamp>.json. */
int cb_out_prepare_default(cb_out *o, const char *what, const char *dir);
/* The same checks for a dry run (run --dry-run): the same refusal and exit status, and nothing
 * left behind (a directory made to try it is removed again, and not said). 0 or 2. */
int cb_out_check(const char *what, const char *path, int force);
int cb_out_check_default(const char *what, const char *dir);
/* For a path that was taken while corobench worked: the first free name beside it (path-2.json,
 * path-3.json, ...). */
int cb_out_prepare_beside(cb_out *o, const char *what, const char *path);
/* The stream to write into (memory: nothing reaches the path before the commit). */
FILE *cb_out_stream(cb_out *o);
/* Puts what was written in place and frees o. 0, or prints one line naming the path and the
 * reason and returns 1; nothing is left behind (no temporary file, an old file untouched). */
int cb_out_commit(cb_out *o);
/* Drops what was written; nothing is created. */
void cb_out_discard(cb_out *o);
/* The directories a command made, so that a failure can remove them again (calibrate: a failed
 * sweep or fit leaves no directory it made). */
typedef struct cb_made_dirs {
    char path[8][4096];
    int n;
} cb_made_dirs;
/* mkdir -p: makes dir and its missing parents, at most max_new of them (max_new 1: dir alone,
 * below an existing parent; 0: none, dir must exist), each one made noted in made (NULL: not
 * noted). 0 when dir is then a directory; -1 with errno otherwise: ENOENT for a missing parent
 * past max_new or a symbolic link to nothing, ENOTDIR for a file in the way. Prints nothing. */
int cb_mkdirs(const char *dir, int max_new, cb_made_dirs *made);
/* The directories noted in made removed, deepest first, each only if empty; made emptied. */
void cb_rmdirs_made(cb_made_dirs *made);
/* The temporary file being written now ("" if none), for an interrupt handler to remove. */
extern volatile char cb_out_tmp_now[4096];

#endif
