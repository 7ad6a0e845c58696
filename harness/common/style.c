/* The implementations' colours and point types (style.h). Colours are chosen so that families
 * read apart at a glance: stackful implementations in blues and greens, stackless in reds,
 * oranges and pinks, the baseline black, the languages' runtimes in darker or greyer tones; the
 * point type separates neighbours of one hue. Spares serve an implementation the table does
 * not name (a plugin, --impl-lib), first come first served. */
#include <stdio.h>
#include <string.h>

#include "style.h"

enum { STYLE_SPARES = 6 };

static const cb_plot_style styles[] = {
    /* stackful, corobench's own and the peers' */
    {"asm", "#1f77b4", 7},
    {"asmjmp", "#17becf", 9},
    {"inline", "#08306b", 13},
    {"ucontext", "#2ca02c", 5},
    {"fcontext", "#98df8a", 11},
    {"copystack", "#6b6ecf", 15},
    {"thread", "#7f7f7f", 4},
    /* stackless */
    {"sm", "#d62728", 7},
    {"closure", "#ff7f0e", 5},
    {"cxx20", "#e377c2", 9},
    {"cxx20-clang", "#ad494a", 11},
    /* the baseline */
    {"direct", "#000000", 1},
    /* the languages' runtimes */
    {"lua", "#8c564b", 6},
    {"luajit", "#c49c94", 8},
    {"go", "#17606e", 12},
    {"node", "#bcbd22", 10},
    {"csharp", "#9467bd", 14},
    /* spares */
    {NULL, "#393b79", 2},
    {NULL, "#637939", 3},
    {NULL, "#8c6d31", 2},
    {NULL, "#843c39", 3},
    {NULL, "#7b4173", 2},
    {NULL, "#5254a3", 3},
};

enum { STYLES = sizeof styles / sizeof styles[0] };

const cb_plot_style *cb_plot_styles(size_t *n)
{
    *n = STYLES;
    return styles;
}

size_t cb_plot_linetype(const char *series)
{
    static char spare_for[STYLE_SPARES][64];
    char name[64];
    /* the implementation is the series' first word ("closure alloc=pool": closure's; "asm,
     * ucontext", drawn as one line: asm's) */
    size_t len = strcspn(series, " ,");
    for (int pass = 0; pass < 2; pass++) {
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, series, len);
        name[len] = '\0';
        for (size_t k = 0; k < STYLES && styles[k].impl; k++)
            if (!strcmp(styles[k].impl, name))
                return k + 1;
        /* a build variant ("asm-jmpret"): the implementation's style */
        const char *dash = memrchr(series, '-', len);
        if (!dash)
            break;
        len = (size_t)(dash - series);
    }
    size_t first = STYLES - STYLE_SPARES;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(series, " ,"), series); /* its first word */
    for (size_t s = 0; s < STYLE_SPARES; s++) {
        if (!spare_for[s][0])
            snprintf(spare_for[s], sizeof spare_for[s], "%s", name);
        if (!strcmp(spare_for[s], name))
            return first + s + 1;
    }
    return first + 1; /* more unknown names than spares: they share the first */
}

int cb_plot_point_open(int point)
{
    /* gnuplot's pngcairo/svg types 5..15: odd filled, the even one below it its outline */
    return point >= 5 && point <= 15 && point % 2 ? point - 1 : point;
}
