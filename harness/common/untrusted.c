/* Strings from outside: cleaned as they come in, escaped at each sink (untrusted.h). */
#include "untrusted.h"

#include <stdlib.h>
#include <string.h>

#include "harness/common/alloc.h"

/* The length of the valid UTF-8 character at p (n bytes left), 0 when it is not one (an invalid
 * lead or continuation byte, a truncated sequence, an overlong form, a surrogate, past
 * U+10FFFF). */
static size_t utf8_char(const unsigned char *p, size_t n)
{
    if (!n)
        return 0;
    if (p[0] < 0x80)
        return 1;
    size_t len = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
                 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
                 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                                : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) || /* overlong, surrogate */
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))   /* overlong, > 10FFFF */
        return 0;
    return len;
}

/* A C1 control character (U+0080..U+009F): some terminals act on them as on ESC [. */
static int c1(const unsigned char *p, size_t len) { return len == 2 && p[0] == 0xc2 && p[1] < 0xa0; }

static int control(unsigned char c, int oneline)
{
    return (c < 0x20 && (oneline || (c != '\n' && c != '\t'))) || c == 0x7f;
}

size_t cb_text_clean(char *dst, size_t cap, const char *s, size_t n, int oneline)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0, i = 0;
    if (cap < 4) {
        if (cap)
            dst[0] = '\0';
        return 0;
    }
    while (i < n) {
        size_t len = utf8_char(p + i, n - i);
        const char *put = (const char *)p + i;
        size_t plen = len;
        if (!len) {
            put = CB_TEXT_REPLACEMENT, plen = 3, len = 1;
        } else if ((len == 1 && control(p[i], oneline)) || c1(p + i, len)) {
            put = "?", plen = 1;
        }
        if (k + plen + 1 > cap) {
            /* cut: "..." where it fits, on the boundary of what is kept */
            while (k + 4 > cap) {
                while (k && ((unsigned char)dst[k - 1] & 0xc0) == 0x80)
                    k--;
                if (k)
                    k--;
            }
            memcpy(dst + k, "...", 3);
            k += 3;
            break;
        }
        memcpy(dst + k, put, plen);
        k += plen;
        i += len;
    }
    dst[k] = '\0';
    return k;
}

char *cb_text_clean_dup(const char *s, size_t n, size_t max, int oneline)
{
    if (max < 3)
        max = 3;
    /* every input byte becomes at most 3 */
    size_t cap = (n < max ? n : max) * 3 + 1;
    if (cap > max + 1)
        cap = max + 1;
    if (cap < 4)
        cap = 4;
    char *d = cb_xmalloc(cap);
    cb_text_clean(d, cap, s, n, oneline);
    return d;
}

int cb_text_is_clean(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_char(p + i, n - i);
        if (!len || (len == 1 && control(p[i], 0)) || c1(p + i, len))
            return 0;
        i += len;
    }
    return 1;
}

int cb_plain_name(const char *s, int spaces)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || !(c == '.' || c == '_' || c == '+' || c == '-' ||
                                   (spaces && c == ' '))))
            return 0;
    }
    return 1;
}

/* Writes s's characters: valid UTF-8 as is, an invalid byte as U+FFFD, a control character
 * (newlines included) and C1 as '?'; each other ASCII byte s[i] as put(out, s, i, n). */
typedef void (*put_ascii)(FILE *out, const unsigned char *s, size_t i, size_t n);

static void each_char(FILE *out, const char *s, put_ascii put)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = utf8_char(p + i, n - i);
        if (!len) {
            fputs(CB_TEXT_REPLACEMENT, out);
            i++;
        } else if ((len == 1 && control(p[i], 1)) || c1(p + i, len)) {
            fputc('?', out);
            i += len;
        } else if (len == 1) {
            put(out, p, i, n);
            i++;
        } else {
            fwrite(p + i, 1, len, out);
            i += len;
        }
    }
}

/* What can start markup anywhere in a line: emphasis, code, links and images (without '[' and
 * ']' a '(' or '!' is inert), autolinks and HTML, tables, entities, strikethrough; always
 * backslash-escaped (every ASCII punctuation character may be, in CommonMark). '_' inside a
 * word ("per_op") is no emphasis in CommonMark and stays as it is. */
#define MD_ALWAYS "\\`*[]<>|&~"
/* What starts a block only at a line's start (a heading, a list item, a setext underline): a
 * wrapped line (mdfit.c) may start at any word, so escaped at the text's start and after a
 * space. */
#define MD_WORD_START "#+-="

/* An ASCII letter or digit: a '_' between two is no emphasis. Not a byte of another character:
 * next to punctuation such as U+3002 a '_' opens or closes emphasis ("\u3002_foo_\u3002"). */
static int alnum_byte(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static void put_md(FILE *out, const unsigned char *p, size_t i, size_t n)
{
    unsigned char c = p[i];
    int word_start = i == 0 || p[i - 1] == ' ';
    int intraword = i > 0 && alnum_byte(p[i - 1]) && i + 1 < n && alnum_byte(p[i + 1]);
    if (strchr(MD_ALWAYS, c) || (c == '_' && !intraword) ||
        (word_start && strchr(MD_WORD_START, c)))
        fputc('\\', out);
    fputc(c, out);
}

void cb_esc_md(FILE *out, const char *s) { each_char(out, s, put_md); }

char *cb_md_neutral(const char *s)
{
    static const char from[] = "`[<]>|", to[] = "'(())/";
    size_t i = 0;
    while (s[i] && !strchr(from, s[i]) && !control((unsigned char)s[i], 1))
        i++;
    if (!s[i])
        return NULL;
    char *d = cb_xstrdup(s);
    for (; d[i]; i++) {
        const char *at = strchr(from, d[i]);
        if (at)
            d[i] = to[at - from];
        else if (control((unsigned char)d[i], 1))
            d[i] = '?';
    }
    return d;
}

static void put_code(FILE *out, const unsigned char *p, size_t i, size_t n)
{
    (void)n;
    unsigned char c = p[i];
    if (c == '|')
        fputc('\\', out);
    fputc(c, out);
}

void cb_esc_md_code(FILE *out, const char *s)
{
    size_t run = 0, most = 0;
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        most = run > most ? run : most;
    }
    size_t n = strlen(s);
    if (!n)
        return; /* "``" is no code span: it would show two backticks */
    for (size_t i = 0; i <= most; i++)
        fputc('`', out);
    /* a space each side when it holds a backtick, or when the reader would strip one of its own
     * from each side (it does when both sides have one, and it is not all spaces: " " was
     * padded, then shown as three spaces) */
    int pad = most || (s[0] == ' ' && s[n - 1] == ' ' && strspn(s, " ") < n);
    if (pad)
        fputc(' ', out);
    each_char(out, s, put_code);
    if (pad)
        fputc(' ', out);
    for (size_t i = 0; i <= most; i++)
        fputc('`', out);
}

void cb_esc_html(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(control(c, 0) ? '?' : c, out);
        }
    }
}

int cb_url_local(const char *url)
{
    if (!url || !*url)
        return 0;
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '\\')
            return 0;
    if (url[0] == '#')
        return 1;
    if (url[0] == '/')
        return 0; /* absolute, or "//host" */
    /* a scheme is letters, digits, + - . up to a ':' before any '/', '?' or '#' */
    size_t before = strcspn(url, "/?#");
    return memchr(url, ':', before) == NULL;
}

int cb_esc_gnuplot(char *buf, size_t len, const char *s)
{
    size_t k = strlen(buf), need = 2;
    for (const char *p = s; *p; p++)
        need += *p == '\'' ? 2 : 1;
    if (k + need + 1 > len)
        return -1;
    buf[k++] = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            buf[k++] = '\'';
        buf[k++] = *p;
    }
    buf[k++] = '\'';
    buf[k] = '\0';
    return 0;
}

void cb_esc_csv(FILE *out, const char *s)
{
    fputc('"', out);
    if (strchr("=+-@\t\r", s[0]) && s[0])
        fputc('\'', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(control((unsigned char)*p, 0) ? '?' : *p, out);
    }
    fputc('"', out);
}

static void put_plain(FILE *out, const unsigned char *p, size_t i, size_t n)
{
    (void)n;
    fputc(p[i], out);
}

void cb_esc_term(FILE *out, const char *s) { each_char(out, s, put_plain); }
