/* The report's Markdown within a width (120 columns: a terminal, a code review, a diff): prose
 * and list items wrapped at spaces (never so that a line starts a heading, list or table), a
 * heading too long cut at a space with its whole text under it, a table too wide narrowed by
 * saying once the parameters its rows' points share, then split into tables of the same rows
 * that each fit, or, when one column alone does not fit beside the row's name, written as a
 * list. Nothing is dropped. The HTML report is made from the Markdown as written (a browser
 * wraps it); html.c reads a paragraph's or an item's lines as one text either way. */
#ifndef CB_MDFIT_H
#define CB_MDFIT_H

#include <stddef.h>

/* The width of the report's lines. */
enum { CB_REPORT_WIDTH = 120 };

/* A new string (the caller frees it): md with every line within width columns, but a word or
 * an image longer than width, which stays whole. */
char *cb_md_fit(const char *md, size_t width);

#endif
