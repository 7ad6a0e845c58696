/* Strings from outside the program: a results file, a program's stderr or reply, a plugin, the
 * user. Two layers (docs/bad-input.md, "Strings from outside"):
 *  - text from outside, as it comes in: cb_text_clean bounds it, cuts it on a UTF-8 character's
 *    boundary and replaces invalid bytes and control characters, so what is kept is valid UTF-8
 *    that jansson stores (json_string of invalid UTF-8 is NULL) and a terminal shows as text;
 *  - escaping at each sink, one function per sink: Markdown text, a Markdown code span (also in
 *    a table cell), HTML text and attributes with only in-page and relative link targets,
 *    gnuplot strings, CSV fields, the terminal.
 * Identifiers that must be plain (implementation, family, workload and variant names, parameter
 * keys and string values) are refused by the results reader instead (cb_plain_name). */
#ifndef CB_UNTRUSTED_H
#define CB_UNTRUSTED_H

#include <stddef.h>
#include <stdio.h>

/* The most bytes a cell's error keeps (a runtime's message, a stderr line). */
enum { CB_TEXT_ERROR_MAX = 1024 };

/* The replacement of an invalid byte (U+FFFD). */
#define CB_TEXT_REPLACEMENT "\xef\xbf\xbd"

/* s[0..n) (NUL bytes included) as valid UTF-8 into dst (of size cap >= 4): an invalid or
 * truncated sequence, an overlong form or a surrogate becomes U+FFFD, a control character other
 * than newline and tab '?' (oneline: newline and tab too); cut on a character boundary to fit,
 * "..." marking the cut. Returns the length written. */
size_t cb_text_clean(char *dst, size_t cap, const char *s, size_t n, int oneline);
/* The same into a new string of at most max bytes (plus the NUL). */
char *cb_text_clean_dup(const char *s, size_t n, size_t max, int oneline);
/* 1 when s[0..n) is valid UTF-8 without control characters other than newline and tab. */
int cb_text_is_clean(const char *s, size_t n);

/* Whether s is a plain name: 1 to 64 of A-Z a-z 0-9 . _ + - starting with a letter or digit
 * (spaces too when spaces is set: a unit, "round trip"). */
int cb_plain_name(const char *s, int spaces);
#define CB_PLAIN_NAME_VALID "1 to 64 of A-Z, a-z, 0-9, '.', '_', '+', '-' starting with a letter or digit"

/* Markdown text: the characters that start markup anywhere (\ ` * _ [ ] < > | & ~) and those
 * that start a block at a line's start (# + - =, at the text's start and after a space: a
 * wrapped line may begin there) backslash-escaped; control characters (newlines included) as
 * '?', invalid bytes as U+FFFD: safe in a paragraph, a list item, a heading and a table cell. */
void cb_esc_md(FILE *out, const char *s);
/* A Markdown code span of s (nothing for ""), fenced with more backticks than it holds, control
 * characters as '?', '|' as "\|" (a table cell's pipe; GFM removes the backslash there). */
void cb_esc_md_code(FILE *out, const char *s);
/* For text a writer puts into Markdown as it is, inside a code span or out of one (the claims,
 * claims.c, given a copy of the document whose strings went through this): a copy of s with
 * what could open a code span, a link, an image, raw HTML or a table cell replaced by harmless
 * ASCII (` as ', [ < as (, ] > as ), | as /) and control characters as '?'; NULL when s has
 * none of them. */
char *cb_md_neutral(const char *s);
/* HTML text or a double- or single-quoted attribute's value: & < > " ' as entities, control
 * characters as '?'. n bytes of s, or up to its NUL. */
void cb_esc_html(FILE *out, const char *s, size_t n);
/* 1 when url may be an HTML link target: in-page ("#plot-io") or a relative path without a
 * scheme ("r-plots/io.svg"); never "javascript:", "data:", "//host", "/abs" or a backslash. */
int cb_url_local(const char *url);
/* A gnuplot string literal of s appended to buf (of size len): single-quoted, a quote doubled,
 * so nothing in it (backquotes, '@' macros, ';') is read as code. 0, or -1 when it does not fit
 * (buf then unchanged). */
int cb_esc_gnuplot(char *buf, size_t len, const char *s);
/* A CSV field: always double-quoted, '"' doubled, control characters other than newline and
 * tab as '?', and a field that a spreadsheet would read as a
 * formula (starting with = + - @, a tab or a carriage return) prefixed with a single quote. */
void cb_esc_csv(FILE *out, const char *s);
/* Text for a terminal: control characters (escape sequences' ESC among them, and C1) as '?',
 * invalid bytes as U+FFFD. */
void cb_esc_term(FILE *out, const char *s);

#endif
