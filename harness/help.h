/* Every command's full usage: its synopsis and a row per option with its default and what it
 * does, printed by `corobench help COMMAND` and `corobench COMMAND --help` (exit 0). */
#ifndef CB_HELP_H
#define CB_HELP_H

#include <stdio.h>

/* Prints the full usage of command name; -1 when it has none (a hidden command). */
int cb_help_command(FILE *f, const char *name);

#endif
