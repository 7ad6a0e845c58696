/* libFuzzer target: the escaping layer (harness/common/untrusted.c), every sink's function on
 * the input as one string (what a results file, a program or a user may put there), each output
 * checked against what its sink's reader would make of it, with a UTF-8 decoder and readers of
 * this file's own (not the escaper's):
 *  - cb_text_clean (and _dup): bounded, valid UTF-8, no control character (newline and tab only
 *    when not one line), the input itself when it was clean and fits;
 *  - cb_esc_term: valid UTF-8 without any control character (C0, DEL, C1), the text otherwise;
 *  - cb_esc_md: no markup character unescaped (a '_' only inside an ASCII word, a block's # + - =
 *    never at a word's start), and removing the backslashes gives cb_esc_term's text;
 *  - cb_esc_md_code: a code span that no backtick run inside closes, every '|' escaped, the text
 *    inside as cb_esc_term's;
 *  - cb_esc_html: no < > " ' and every & an entity; decoding it gives the input, control
 *    characters as '?';
 *  - cb_url_local: never accepts what a browser reads as a scheme or another host, after it
 *    strips spaces and control characters at the ends and tabs and newlines inside (WHATWG URL);
 *  - cb_esc_gnuplot: one gnuplot single-quoted string that reads back as the input;
 *  - cb_esc_csv: one quoted field reading back as the input (a formula's first character behind
 *    a quote);
 *  - cb_md_neutral: none of ` [ ] < > | or a control character left, same length. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/untrusted.h"

/* The code point at p (n bytes left) into *cp, its length, 0 when not valid UTF-8 (RFC 3629). */
static size_t decode(const unsigned char *p, size_t n, uint32_t *cp)
{
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = p[0] < 0x80           ? 1
                 : (p[0] >> 5) == 6    ? 2
                 : (p[0] >> 4) == 14   ? 3
                 : (p[0] >> 3) == 30   ? 4
                                       : 0;
    if (!len || len > n)
        return 0;
    uint32_t c = len == 1 ? p[0] : p[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] >> 6) != 2)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

static int is_control(uint32_t c) { return c < 0x20 || (c >= 0x7f && c < 0xa0); }

/* Valid UTF-8 without control characters; newline and tab allowed when lines is set. */
static void check_text(const char *s, size_t n, int lines)
{
    uint32_t c;
    for (size_t i = 0, len; i < n; i += len) {
        len = decode((const unsigned char *)s + i, n - i, &c);
        if (!len || (is_control(c) && !(lines && (c == '\n' || c == '\t'))))
            abort();
    }
}

typedef struct buf {
    char *p;
    size_t n;
    FILE *f;
} buf;

static void open_buf(buf *b)
{
    b->p = NULL, b->n = 0;
    if (!(b->f = open_memstream(&b->p, &b->n)))
        abort();
}

static void close_buf(buf *b)
{
    if (fclose(b->f) != 0)
        abort();
}

static int ascii_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Markdown: a backslash before ASCII punctuation is an escape; nothing that opens markup is left
 * bare. Writes the text without the escapes into plain (of size >= n + 1). */
static void check_md(const char *s, size_t n, char *plain)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int word_start = k == 0 || plain[k - 1] == ' ';
        if (c == '\\') {
            if (i + 1 == n || !strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i + 1]))
                abort(); /* a lone backslash: the next character is not what it seems */
            plain[k++] = s[++i];
            continue;
        }
        if (strchr("`*[]<>|&~", c) || (word_start && strchr("#+-=", c)))
            abort();
        /* '_' is no emphasis only between two ASCII letters or digits: next to punctuation
         * (U+3002 included) a CommonMark reader may open or close emphasis with it */
        if (c == '_' && !(k > 0 && ascii_alnum(plain[k - 1]) && i + 1 < n && ascii_alnum(s[i + 1])))
            abort();
        plain[k++] = c;
    }
    plain[k] = '\0';
}

/* A code span: n opening backticks, closed only by the run of n at the end. Writes what a
 * reader shows (one space stripped each side when both are there) into plain. */
static void check_code(const char *s, size_t n, char *plain)
{
    size_t open = 0;
    plain[0] = '\0';
    if (!n)
        return; /* nothing for "" ("``" is no code span) */
    while (open < n && s[open] == '`')
        open++;
    if (!open || 2 * open > n)
        abort();
    size_t end = n - open;
    for (size_t i = end; i < n; i++)
        if (s[i] != '`')
            abort();
    if (s[end - 1] == '`' && end - 1 >= open)
        abort(); /* the closing run is longer than the opening one */
    for (size_t i = open; i < end;) {
        size_t run = 0;
        while (i + run < end && s[i + run] == '`')
            run++;
        if (run == open)
            abort(); /* closes the span early */
        i += run ? run : 1;
    }
    const char *in = s + open;
    size_t len = end - open;
    if (len >= 2 && in[0] == ' ' && in[len - 1] == ' ' && strspn(in, " ") < len)
        in++, len -= 2;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (in[i] == '|' && (i == 0 || in[i - 1] != '\\'))
            abort(); /* splits a table's cell */
        if (in[i] == '\\' && i + 1 < len && in[i + 1] == '|')
            continue; /* GFM removes it in a table's cell */
        plain[k++] = in[i];
    }
    plain[k] = '\0';
}

static void check_html(const char *s, size_t n, char *plain)
{
    static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    static const char ch[] = "&<>\"'";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strchr("<>\"'", s[i]))
            abort();
        if (s[i] != '&') {
            plain[k++] = s[i];
            continue;
        }
        size_t e = 0;
        while (e < 5 && strncmp(s + i, ent[e], strlen(ent[e])))
            e++;
        if (e == 5)
            abort();
        plain[k++] = ch[e];
        i += strlen(ent[e]) - 1;
    }
    plain[k] = '\0';
}

/* What a browser makes of an href's value (WHATWG URL): C0 controls and spaces stripped at both
 * ends, tabs and newlines removed inside; a scheme is a letter then letters, digits, + - . up to
 * ':'; "/" or "\" at the start goes to this host's root or, doubled, to another host. */
static int browser_leaves_page(const char *url)
{
    char u[4096];
    size_t n = strlen(url), a = 0, k = 0;
    if (n >= sizeof u)
        return 1;
    while (a < n && (unsigned char)url[a] <= ' ')
        a++;
    while (n > a && (unsigned char)url[n - 1] <= ' ')
        n--;
    for (size_t i = a; i < n; i++)
        if (url[i] != '\t' && url[i] != '\n' && url[i] != '\r')
            u[k++] = url[i];
    u[k] = '\0';
    if (u[0] == '/' || u[0] == '\\')
        return 1;
    size_t i = 0;
    if ((u[0] | 0x20) >= 'a' && (u[0] | 0x20) <= 'z') {
        while (ascii_alnum(u[i]) || u[i] == '+' || u[i] == '-' || u[i] == '.')
            i++;
        if (u[i] == ':')
            return 1;
    }
    return 0;
}

/* The expected output of the line sinks: valid UTF-8, an invalid byte as U+FFFD, a control
 * character as '?' (what cb_esc_term writes, checked on its own above). */
static void check_gnuplot(const char *s)
{
    char b[64 + 2 * 1024];
    size_t caps[] = {1, 8, 64, sizeof b};
    for (size_t c = 0; c < 4; c++) {
        strcpy(b, "x=");
        int rc = cb_esc_gnuplot(b, caps[c], s);
        size_t n = strlen(b);
        if (rc != 0) {
            if (rc != -1 || strcmp(b, "x="))
                abort();
            continue;
        }
        if (n >= caps[c] || n < 4 || b[2] != '\'' || b[n - 1] != '\'')
            abort();
        size_t k = 0;
        for (size_t i = 3; i < n - 1; i++, k++) {
            if (b[i] == '\'' && b[++i] != '\'')
                abort(); /* a quote that ends the string */
            if (b[i] != s[k])
                abort();
        }
        if (s[k])
            abort();
    }
}

static void check_csv(const char *s, const char *b, size_t n)
{
    if (n < 2 || b[0] != '"' || b[n - 1] != '"')
        abort();
    size_t k = 0, i = 1;
    if (s[0] && strchr("=+-@\t\r", s[0])) {
        if (b[1] != '\'')
            abort(); /* a spreadsheet reads it as a formula */
        i = 2;
    }
    for (; i < n - 1; i++, k++) {
        if (b[i] == '"' && b[++i] != '"')
            abort();
        unsigned char c = (unsigned char)s[k];
        char want = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : (char)c;
        if (b[i] != want)
            abort();
    }
    if (s[k])
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1024)
        return 0;
    const char *raw = (const char *)data;
    char s[1025], plain[8 * 1025], clean[4 * 1025];
    memcpy(s, data, size);
    s[size] = '\0';
    size_t len = strlen(s); /* the sinks take C strings: up to the first NUL */

    /* text from outside: whole bytes, NULs included */
    for (int oneline = 0; oneline < 2; oneline++) {
        size_t caps[] = {4, 5, 17, 1 + size % 97, 3 * size + 1};
        for (size_t c = 0; c < 5; c++) {
            if (caps[c] > sizeof clean)
                continue;
            memset(clean, 'x', sizeof clean);
            size_t k = cb_text_clean(clean, caps[c], raw, size, oneline);
            if (caps[c] < 4 ? k != 0 : (k >= caps[c] || clean[k] || strlen(clean) != k))
                abort();
            check_text(clean, k, !oneline);
            if (!cb_text_is_clean(clean, k))
                abort();
            if (cb_text_is_clean(raw, size) && size < caps[c] && caps[c] >= 4 &&
                (!oneline || !memchr(raw, '\n', size)) && (!oneline || !memchr(raw, '\t', size)) &&
                (k != size || memcmp(clean, raw, size)))
                abort(); /* clean text that fits is kept as it is */
        }
        char *d = cb_text_clean_dup(raw, size, 40, oneline);
        if (strlen(d) > 40)
            abort();
        check_text(d, strlen(d), !oneline);
        free(d);
    }

    /* the terminal: the reference text of the line sinks */
    buf term;
    open_buf(&term);
    cb_esc_term(term.f, s);
    close_buf(&term);
    check_text(term.p, term.n, 0);
    if (cb_text_is_clean(s, len) && !strchr(s, '\n') && !strchr(s, '\t') &&
        (term.n != len || memcmp(term.p, s, len)))
        abort();

    /* Markdown text and code span: what a reader shows is the terminal's text */
    static void (*const md[2])(FILE *, const char *) = {cb_esc_md, cb_esc_md_code};
    static void (*const read_md[2])(const char *, size_t, char *) = {check_md, check_code};
    buf b;
    for (int i = 0; i < 2; i++) {
        open_buf(&b);
        md[i](b.f, s);
        close_buf(&b);
        check_text(b.p, b.n, 0);
        read_md[i](b.p, b.n, plain);
        if (strcmp(plain, term.p))
            abort();
        free(b.p);
    }

    open_buf(&b);
    cb_esc_html(b.f, s, size);
    close_buf(&b);
    check_html(b.p, b.n, plain);
    for (size_t i = 0; i <= len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (plain[i] != ((c < 0x20 && c && c != '\n' && c != '\t') || c == 0x7f ? '?' : (char)c))
            abort();
    }
    free(b.p);

    if (cb_url_local(s) && browser_leaves_page(s))
        abort();

    check_gnuplot(s);

    open_buf(&b);
    cb_esc_csv(b.f, s);
    close_buf(&b);
    check_csv(s, b.p, b.n);
    free(b.p);

    char *neutral = cb_md_neutral(s);
    if (neutral) {
        if (strlen(neutral) != len || strpbrk(neutral, "`[]<>|"))
            abort();
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)neutral[i] < 0x20 || neutral[i] == 0x7f)
                abort();
        free(neutral);
    } else if (strpbrk(s, "`[]<>|")) {
        abort();
    } else {
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
                abort();
    }
    free(term.p);
    return 0;
}
