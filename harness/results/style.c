/* The implementations' colours and point types (style.h), from their rows in the implementation
 * table (impls/impls.c: .colour, .point). The colours are chosen there so that families read
 * apart at a glance: stackful implementations in blues and greens, stackless in reds, oranges
 * and pinks, the baseline black, the languages' runtimes in darker or greyer tones; the point
 * type separates neighbours of one hue. Spares serve an implementation without one (a plugin,
 * --impl-lib; a user's program, --external), first come first served. */
#include <stdio.h>
#include <string.h>

#include "impls/impls.h"
#include "style.h"

enum { STYLE_SPARES = 6, STYLES_MAX = CB_IMPLS_MAX + STYLE_SPARES };

static const cb_plot_style spares[STYLE_SPARES] = {
    {NULL, "#393b79", 2}, {NULL, "#637939", 3}, {NULL, "#8c6d31", 2},
    {NULL, "#843c39", 3}, {NULL, "#7b4173", 2}, {NULL, "#5254a3", 3},
};

static cb_plot_style styles[STYLES_MAX];
static size_t nstyles;

/* The rows with a colour, in the table's order, then the spares: built once. */
static void build(void)
{
    if (nstyles)
        return;
    for (size_t i = 0; i < cb_nimpls; i++)
        if (cb_impls[i].colour)
            styles[nstyles++] =
                (cb_plot_style){cb_impls[i].name, cb_impls[i].colour, cb_impls[i].point};
    memcpy(styles + nstyles, spares, sizeof spares);
    nstyles += STYLE_SPARES;
}

const cb_plot_style *cb_plot_styles(size_t *n)
{
    build();
    *n = nstyles;
    return styles;
}

size_t cb_plot_linetype(const char *series)
{
    build();
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
        for (size_t k = 0; k < nstyles && styles[k].impl; k++)
            if (!strcmp(styles[k].impl, name))
                return k + 1;
        /* a build variant ("asm-jmpret"): the implementation's style */
        const char *dash = memrchr(series, '-', len);
        if (!dash)
            break;
        len = (size_t)(dash - series);
    }
    size_t first = nstyles - STYLE_SPARES;
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
