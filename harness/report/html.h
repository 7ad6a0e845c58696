/* The report as one self-contained HTML page (html.c). */
#ifndef CB_HTML_H
#define CB_HTML_H

#include <stdio.h>

/* Writes the HTML page of md, the Markdown report; dir is the directory the report's relative
 * plot paths start from (its own: "" for the current one). 0 on success. */
int cb_html_from_md(FILE *out, const char *md, const char *dir);

#endif
