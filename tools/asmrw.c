/* cb_asmrw: rewrites corobench's own x86-64 assembly (GCC's -S output and the preprocessed
 * switch .S files, AT&T syntax) for the variant builds. --jmpret turns every `ret` into
 * `lea 8(%rsp), %rsp; jmp *-8(%rsp)`; --rsbsim inserts the return-stack simulator's hooks (harness/measure/rsbsim.*)
 * at calls into corobench code, at `ret`s and at tail jumps out of it. Only instructions are
 * touched: labels, directives (CFI, .loc) and comments pass through. docs/rsb.md has the rules. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A set of names (function symbols, labels): a small open-addressing hash table. */
typedef struct nameset {
    char **slot;
    size_t cap, n;
} nameset;

static unsigned long hash(const char *s, size_t len)
{
    unsigned long h = 5381;
    for (size_t i = 0; i < len; i++)
        h = h * 33 + (unsigned char)s[i];
    return h;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "cb_asmrw: out of memory\n");
        exit(1);
    }
    return p;
}

static int set_has(const nameset *s, const char *name, size_t len)
{
    if (!s->cap)
        return 0;
    for (size_t i = hash(name, len) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slot[i])
            return 0;
        if (strlen(s->slot[i]) == len && !memcmp(s->slot[i], name, len))
            return 1;
    }
}

/* Puts an owned string in a free slot (the set has room). */
static void set_put(nameset *s, char *owned, size_t len)
{
    size_t i = hash(owned, len) & (s->cap - 1);
    while (s->slot[i])
        i = (i + 1) & (s->cap - 1);
    s->slot[i] = owned;
    s->n++;
}

static void set_add(nameset *s, const char *name, size_t len)
{
    if (set_has(s, name, len))
        return;
    if (2 * (s->n + 1) > s->cap) {
        nameset g = {NULL, s->cap ? 2 * s->cap : 256, 0};
        g.slot = calloc(g.cap, sizeof *g.slot);
        if (!g.slot)
            exit(1);
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i]) /* the strings move to the bigger table */
                set_put(&g, s->slot[i], strlen(s->slot[i]));
        free(s->slot);
        *s = g;
    }
    char *copy = xmalloc(len + 1);
    memcpy(copy, name, len);
    copy[len] = '\0';
    set_put(s, copy, len);
}

static void set_free(nameset *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->slot[i]);
    free(s->slot);
    memset(s, 0, sizeof *s);
}

typedef struct asmfile {
    const char *path;
    char *text;     /* whole file, lines split in place */
    char **line;
    size_t nlines;
    nameset funcs;  /* symbols typed @function here */
    nameset labels; /* every label defined here */
    nameset globls; /* symbols declared .globl/.global here */
} asmfile;

static int jmpret, rsbsim;
static nameset global_funcs; /* functions defined and exported by some corobench file */
static const char *cur_path;
static size_t cur_line;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cb_asmrw: %s:%zu: ", cur_path ? cur_path : "?", cur_line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void load(asmfile *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "cb_asmrw: cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 1 << 16, len = 0, k;
    f->text = xmalloc(cap + 1);
    while ((k = fread(f->text + len, 1, cap - len, in)) > 0) {
        len += k;
        if (len == cap) {
            f->text = realloc(f->text, (cap *= 2) + 1);
            if (!f->text)
                exit(1);
        }
    }
    fclose(in);
    f->text[len] = '\0';
    size_t lcap = 1024;
    f->line = xmalloc(lcap * sizeof *f->line);
    for (char *p = f->text; *p;) {
        if (f->nlines == lcap)
            f->line = realloc(f->line, (lcap *= 2) * sizeof *f->line);
        f->line[f->nlines++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
}

static int is_sym_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '$'; }

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Length of a label definition "name:" at p (0 if p does not start with one). */
static size_t label_len(const char *p)
{
    size_t n = 0;
    while (is_sym_char((unsigned char)p[n]))
        n++;
    return n && p[n] == ':' ? n : 0;
}

/* Records a directive's symbol: ".type sym, @function" or ".globl sym". */
static void scan_directive(asmfile *f, const char *p)
{
    const char *arg;
    nameset *into;
    if (!strncmp(p, ".type", 5) && (p[5] == ' ' || p[5] == '\t')) {
        if (!strstr(p, "@function") && !strstr(p, "%function"))
            return;
        arg = p + 5;
        into = &f->funcs;
    } else if ((!strncmp(p, ".globl", 6) && (p[6] == ' ' || p[6] == '\t')) ||
               (!strncmp(p, ".global", 7) && (p[7] == ' ' || p[7] == '\t'))) {
        arg = p + (p[6] == 'l' ? 7 : 6);
        into = &f->globls;
    } else {
        return;
    }
    arg = skip_ws(arg);
    size_t n = 0;
    while (is_sym_char((unsigned char)arg[n]))
        n++;
    if (n)
        set_add(into, arg, n);
}

static void scan(asmfile *f)
{
    for (size_t i = 0; i < f->nlines; i++) {
        const char *p = skip_ws(f->line[i]);
        size_t n;
        while ((n = label_len(p)) > 0) {
            set_add(&f->labels, p, n);
            p = skip_ws(p + n + 1);
        }
        if (*p == '.')
            scan_directive(f, p);
    }
    for (size_t i = 0; i < f->funcs.cap; i++)
        if (f->funcs.slot[i] && set_has(&f->globls, f->funcs.slot[i], strlen(f->funcs.slot[i])))
            set_add(&global_funcs, f->funcs.slot[i], strlen(f->funcs.slot[i]));
}

/* Is the named symbol corobench code: a function or label of this file, or a function some
 * corobench file exports? Anything else (libc, libjansson, libpfm) is foreign. */
static int is_ours(const asmfile *f, const char *name, size_t len)
{
    return set_has(&f->funcs, name, len) || set_has(&f->labels, name, len) ||
           set_has(&global_funcs, name, len);
}

/* The symbol named by a branch operand: "foo", "foo@PLT", "*foo@GOTPCREL(%rip)". Sets *len to 0
 * when the operand is a register or memory through a register (an indirect target). */
static const char *operand_symbol(const char *op, size_t *len)
{
    const char *p = op;
    int indirect = *p == '*';
    if (indirect) {
        p++;
        if (!strstr(p, "@GOTPCREL")) {
            *len = 0;
            return NULL;
        }
    }
    size_t n = 0;
    while (is_sym_char((unsigned char)p[n]))
        n++;
    *len = n;
    return p;
}

/* Local numeric label references such as "1f", "2b". */
static int is_numeric_ref(const char *s, size_t len)
{
    if (len < 2 || (s[len - 1] != 'f' && s[len - 1] != 'b'))
        return 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static unsigned long label_counter;

/* Rewrites one instruction statement (no label, no comment, leading blanks kept in `indent`). */
static void rewrite_insn(FILE *out, const asmfile *f, const char *indent, const char *stmt)
{
    static const char *const prefixes[] = {"rep", "repz", "repe", "repnz", "repne", "notrack",
                                           "bnd", "ds", NULL};
    const char *p = stmt, *mn;
    size_t mlen;
    int has_prefix = 0;
    for (;;) {
        mn = p;
        mlen = 0;
        while (isalnum((unsigned char)mn[mlen]))
            mlen++;
        int is_prefix = 0;
        for (size_t i = 0; prefixes[i]; i++)
            is_prefix |= strlen(prefixes[i]) == mlen && !strncmp(mn, prefixes[i], mlen) &&
                         (mn[mlen] == ' ' || mn[mlen] == '\t');
        if (!is_prefix)
            break;
        has_prefix = 1;
        p = skip_ws(mn + mlen);
    }
    const char *operand = skip_ws(mn + mlen);
    char opbuf[512];
    size_t oplen = strlen(operand);
    while (oplen && (operand[oplen - 1] == ' ' || operand[oplen - 1] == '\t'))
        oplen--;
    if (oplen >= sizeof opbuf)
        die("operand too long");
    memcpy(opbuf, operand, oplen);
    opbuf[oplen] = '\0';

#define MN_IS(s) (mlen == strlen(s) && !strncmp(mn, s, mlen))
    if (MN_IS("ret") || MN_IS("retq")) {
        if (opbuf[0] && opbuf[0] != '$')
            die("unexpected operand of ret: '%s'", opbuf);
        if (jmpret) {
            /* Not "pop %r11; jmp *%r11": with GCC's -fipa-ra a caller in the same file keeps
             * values in r11 across a call to a function that does not write it, so no register
             * is dead at every return. Jump through the slot just released instead: it lies in
             * the 128-byte red zone, which signal delivery does not touch. lea leaves the
             * flags alone (they may be live across a call too, for the same reason). */
            long n = opbuf[0] ? strtol(opbuf + 1, NULL, 0) : 0;
            if (n < 0 || n > 64)
                die("ret operand out of range: '%s'", opbuf);
            fprintf(out, "%sleaq\t%ld(%%rsp), %%rsp\n", indent, 8 + n);
            fprintf(out, "%sjmp\t*-%ld(%%rsp)\n", indent, 8 + n);
            return;
        }
        if (rsbsim)
            fprintf(out, "%scall\tcb_rsbsim_on_ret\n", indent);
        fprintf(out, "%s%s\n", indent, stmt);
        return;
    }
    if (MN_IS("call") || MN_IS("callq")) {
        size_t slen;
        const char *sym = operand_symbol(opbuf, &slen);
        /* Indirect calls in corobench reach corobench code (backend verbs, family ops, closure
         * continuations): they push. A direct call pushes only into corobench code, whose
         * returns are instrumented; a foreign callee's call and ret are both invisible. */
        int push = sym ? is_ours(f, sym, slen) : 1;
        if (rsbsim && push) {
            unsigned long k = label_counter++;
            fprintf(out, "%scall\tcb_rsbsim_on_call\n", indent);
            fprintf(out, "%s.long\t.Lcb_rsb_%lu - .\n", indent, k);
            fprintf(out, "%s%s\n", indent, stmt);
            fprintf(out, ".Lcb_rsb_%lu:\n", k);
            return;
        }
        fprintf(out, "%s%s\n", indent, stmt);
        return;
    }
    if (mn[0] == 'j' && !has_prefix) {
        size_t slen;
        const char *sym = operand_symbol(opbuf, &slen);
        int foreign = sym && slen && !is_ours(f, sym, slen) && !is_numeric_ref(sym, slen) &&
                      strncmp(sym, ".L", 2) != 0;
        if (foreign) {
            /* A tail call out of corobench: the foreign function's `ret` returns to our caller
             * and pops its entry; account for that return here, before control leaves. */
            if (!MN_IS("jmp") && !MN_IS("jmpq"))
                die("conditional tail call '%s' to foreign code is not supported", stmt);
            if (rsbsim)
                fprintf(out, "%scall\tcb_rsbsim_on_ret\n", indent);
        }
    }
    if (MN_IS("sysret") || MN_IS("iret") || MN_IS("iretq") || MN_IS("lret") || MN_IS("retf") ||
        MN_IS("retw") || MN_IS("retl"))
        die("unsupported return instruction '%s'", stmt);
    fprintf(out, "%s%s\n", indent, stmt);
#undef MN_IS
}

static int same_contents(const char *a, const char *b)
{
    FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        same = ca == cb;
        if (ca == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static void rewrite(const asmfile *f, const char *suffix)
{
    char outpath[4096];
    size_t plen = strlen(f->path);
    if (plen < 2 || strcmp(f->path + plen - 2, ".s"))
        die("input file name must end in .s");
    snprintf(outpath, sizeof outpath, "%.*s%s", (int)(plen - 2), f->path, suffix);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", outpath);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        fprintf(stderr, "cb_asmrw: cannot write %s: %s\n", tmp, strerror(errno));
        exit(1);
    }
    for (size_t i = 0; i < f->nlines; i++) {
        cur_line = i + 1;
        const char *line = f->line[i];
        const char *p = skip_ws(line);
        char indent[64];
        size_t ilen = (size_t)(p - line);
        snprintf(indent, sizeof indent, "%.*s", (int)(ilen < 63 ? ilen : 63), line);
        size_t n;
        int had_label = 0;
        while ((n = label_len(p)) > 0) { /* "label: insn" becomes two lines */
            fprintf(out, "%.*s\n", (int)(p + n + 1 - line), line);
            line = p = skip_ws(p + n + 1);
            had_label = 1;
            if (!indent[0])
                snprintf(indent, sizeof indent, "\t");
        }
        if (had_label && !*p)
            continue;
        if (!strncmp(p, ".intel_syntax", 13))
            die("Intel syntax is not supported");
        if (!*p || *p == '#' || *p == '.' || *p == '/') {
            fprintf(out, "%s\n", line);
            continue;
        }
        /* Comment and statement separators: "insn # comment", "insn; insn". */
        char stmt[1024];
        size_t len = strcspn(p, "#");
        if (len >= sizeof stmt)
            die("line too long");
        memcpy(stmt, p, len);
        stmt[len] = '\0';
        for (char *s = stmt, *semi; s; s = semi) {
            semi = strchr(s, ';');
            if (semi)
                *semi++ = '\0';
            const char *t = skip_ws(s);
            size_t tl = strlen(t);
            while (tl && (t[tl - 1] == ' ' || t[tl - 1] == '\t' || t[tl - 1] == '\r'))
                tl--;
            char one[1024];
            memcpy(one, t, tl);
            one[tl] = '\0';
            if (one[0])
                rewrite_insn(out, f, indent, one);
        }
    }
    if (fclose(out) != 0) {
        fprintf(stderr, "cb_asmrw: cannot write %s: %s\n", tmp, strerror(errno));
        exit(1);
    }
    /* An unchanged output keeps its time stamp, so make does not reassemble it. */
    if (same_contents(tmp, outpath)) {
        unlink(tmp);
        return;
    }
    if (rename(tmp, outpath) != 0) {
        fprintf(stderr, "cb_asmrw: cannot write %s: %s\n", outpath, strerror(errno));
        exit(1);
    }
}

static void usage_error(const char *bad)
{
    fprintf(stderr, "cb_asmrw: unknown option '%s' (valid: --jmpret, --rsbsim, --suffix EXT, "
                    "then FILE.s...)\n", bad);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *suffix = ".rw.s";
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--jmpret"))
            jmpret = 1;
        else if (!strcmp(argv[a], "--rsbsim"))
            rsbsim = 1;
        else if (!strcmp(argv[a], "--suffix") && a + 1 < argc)
            suffix = argv[++a];
        else
            usage_error(argv[a]);
    }
    if (a == argc) {
        fprintf(stderr, "cb_asmrw: no input files (valid: one or more FILE.s)\n");
        return 2;
    }
    size_t nf = (size_t)(argc - a);
    asmfile *files = xmalloc(nf * sizeof *files);
    /* Pass 1 over every file: which functions are corobench's. Pass 2: rewrite. */
    for (size_t i = 0; i < nf; i++) {
        load(&files[i], argv[a + i]);
        scan(&files[i]);
    }
    for (size_t i = 0; i < nf; i++) {
        cur_path = files[i].path;
        label_counter = 0;
        rewrite(&files[i], suffix);
    }
    for (size_t i = 0; i < nf; i++) { /* everything freed, so LeakSanitizer has nothing to say */
        set_free(&files[i].funcs);
        set_free(&files[i].labels);
        set_free(&files[i].globls);
        free(files[i].line);
        free(files[i].text);
    }
    set_free(&global_funcs);
    free(files);
    return 0;
}
