# Shared by the plots/*.gp scripts (loaded by them; not run alone): the terminal from the output's
# extension (.svg: SVG, anything else: PNG), size W x H, the line styles, a grid and the key
# outside the data.
# The canvas: NX x NY panels (the script sets them before loading this; 1 x 1 otherwise), each a
# data area of about 560 x 360 pixels with its key beside it, as wide as the longest entry
# (keyw, in characters) and as tall as the most entries of a panel (keyn): the report passes
# both, so a plot of many series gets a larger canvas instead of squashed panels (the default
# suite's pingpong-modes had panels 115 pixels wide, their ticks run together, "8101214", and
# a panel title cut off at the canvas' edge). A panel of bars (bars > 0: a data file whose
# series have one x point) names each bar under it, which takes height instead.
# Line styles: the report (harness/results/style.c, the one place they are defined) passes every
# implementation's colour and point type as lt_colours and lt_points, linetype k for its entry k,
# then the plot's variants' (a second series of an implementation: a shade of its colour and
# another point type), and for each data file VAR the linetype of each of its series as VAR_lt
# ("3 1 7"), so an implementation has the same colour and point in every plot. Run by hand
# without them, series i takes linetype i+1 of twelve distinct colours.
# LT(list, i): the linetype of series i (from 0) of a data file; LOGY: after `stats`, a log
# y axis when the values span more than 20x (a linear one otherwise).
if (!exists("out")) out = 'plot.png'
if (!exists("NX")) NX = 1
if (!exists("NY")) NY = 1
KW = (exists("keyw") ? value("keyw") : 16)
KN = (exists("keyn") ? value("keyn") : 8)
if (!exists("bars")) bars = 0
PANEL_W = 660 + int(KW * 8.5 + 60)
PANEL_W = (bars && KN * 36 + 200 > PANEL_W ? KN * 36 + 200 : PANEL_W)
PANEL_H = (KN * 19 + 160 > 480 ? KN * 19 + 160 : 480) + (bars ? int(KW * 6.5) : 0)
if (!exists("W")) W = NX * PANEL_W
if (!exists("H")) H = NY * PANEL_H + (NX * NY > 1 ? 40 : 0)
if (strlen(out) > 4 && out[strlen(out)-3:] eq '.svg') {
    set terminal svg size W,H noenhanced dynamic background rgb 'white'
} else {
    set terminal pngcairo size W,H noenhanced
}
set output out
if (exists("lt_colours")) {
    do for [k=1:words(lt_colours)] {
        set linetype k linecolor rgb word(lt_colours, k) linewidth 1.5 \
            pointtype int(word(lt_points, k)) pointsize 1.2
    }
} else {
    array C[12] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", \
                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#000000", "#393b79"]
    do for [k=1:12] { set linetype k linecolor rgb C[k] linewidth 1.5 pointtype k }
}
LT(list, i) = (words(list) > i ? int(word(list, i + 1)) : i + 1)
LOGY = "set autoscale y; if (exists('STATS_min') && STATS_min > 0 && STATS_max > 20 * STATS_min) { set logscale y; logy = 1 } else { unset logscale y; logy = 0 }; undefine STATS_*"
logy = 0
set grid
# tick labels as %g: a log axis printed 0.000010 ... 10.000000
set format y "%g"
# x from the first point to the last, with a margin (autoscaling would extend it to a round tic,
# on a log axis a decade below the data)
set autoscale xfix
set offsets graph 0.02, graph 0.02, 0, 0
set key outside right top vertical Left reverse noenhanced
# keyw: the longest key entry in characters (the report passes it): every panel of a plot keeps
# the same right margin, wide enough for its key, so the panels line up
if (exists("keyw")) { set rmargin keyw + 8; set key at graph 1.02, graph 1 left top }
# x ticks a whole step apart where the x values (whole numbers) span 10 or less (the report
# passes xspan): recursive at heights 8 and 12 had ticks at 8.5, 9, 9.5...; a script with a
# logarithmic x axis sets XLOG before loading this.
# XSTEP(span): the same for one panel of a list plot (overhead.gp: xspanK).
XSTEP(span) = (!exists("XLOG") && span > 0 && span <= 10)
if (exists("xspan") && XSTEP(xspan)) { set xtics 1 }
# BARS before a panel of one x point drawn as bars, after its LOGY (a bar per series, in its
# linetype's colour, named under it by its key entry: `using (i):Y:xtic(columnhead(1)) with
# boxes linetype LT(l, i) notitle`; on a linear axis from 0); LINES before a panel of lines,
# after one of bars.
BARS = "set style fill solid 0.8 border -1; set boxwidth 0.7; unset logscale x; set xtics 1 rotate by 45 right nomirror; set autoscale xfix; set offsets 0.7, 0.7, 0, 0; set rmargin 4; unset key; if (!logy) { set yrange [0:*] }"
LINES = "set style fill empty; set xtics norotate mirror; set autoscale xfix; set offsets graph 0.02, graph 0.02, 0, 0; set key; set autoscale y; if (exists('keyw')) { set rmargin keyw + 8 }"
