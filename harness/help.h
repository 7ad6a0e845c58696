/* Every command's full usage: its synopsis and a row per option with its default and what it
 * does, printed by `corobench help COMMAND` and `corobench COMMAND --help` (exit 0); and each
 * command's entry in the overview (`corobench help`), from the same rows. */
#ifndef CB_HELP_H
#define CB_HELP_H

#include <stdio.h>

/* Prints the full usage of command name; -1 when it has none (a hidden command). */
int cb_help_command(FILE *f, const char *name);
/* Prints command name's entry in the commands' overview (`corobench help`): its synopsis, its
 * summary and every option of its full usage; -1 when it has none. */
int cb_help_summary(FILE *f, const char *name);

#endif
