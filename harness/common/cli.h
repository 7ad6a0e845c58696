/* What every command shares: the exit statuses, the one-line usage error, the list splitter, the
 * binary's directory, and the command table that main.c dispatches on and prints usage from. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stddef.h>

#include "params/params.h" /* cb_quote: every message quotes a value through it */

/* Exit statuses of the CLI. */
/* CB_EXIT_CLOSED_PIPE: stdout or stderr was a pipe whose reader went away (128 + SIGPIPE, what
 * the shell shows for a program SIGPIPE ended); the command's own work, a results file, is done. */
enum { CB_EXIT_OK = 0, CB_EXIT_CELLS_FAILED = 1, CB_EXIT_USAGE = 2, CB_EXIT_CLOSED_PIPE = 141 };

/* One command: `corobench NAME ...` calls handler(argc - 1, argv + 1), so argv[0] is NAME. */
typedef struct cb_command {
    const char *name;
    int hidden; /* not in the usage text nor "valid: ..." */
    int (*handler)(int argc, char **argv);
} cb_command;

/* An error a library function returns for the command to print: one line without the
 * "corobench: " prefix. Functions that take one fill it and return -1 (or NULL); only a command
 * handler prints it (cb_usage_error("%s", e.msg)) and chooses the exit status. */
typedef struct cb_error {
    char msg[1024];
} cb_error;
/* Formats into e (NULL: nothing) and returns -1. */
int cb_error_set(cb_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints a one-line "corobench: ..." error and returns CB_EXIT_USAGE. */
int cb_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Splits "a,b,,c" at commas into a NULL-terminated array, empty items kept as ""; *n counts
 * them. One allocation: free() the result. */
char **cb_split_list(const char *s, size_t *n);
/* The directory of the running binary (bin/), "bin" when /proc/self/exe cannot be read: the
 * variant binaries sit in it, the plot scripts in ../plots. */
void cb_bin_dir(char *buf, size_t len);

#endif
