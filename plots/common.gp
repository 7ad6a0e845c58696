# Shared by the plots/*.gp scripts (loaded by them; not run alone): the terminal from the output's
# extension (.svg: SVG, anything else: PNG), size W x H, the line styles, a grid and the key
# outside the data.
# Line styles: the report (harness/common/style.c, the one place they are defined) passes every
# implementation's colour and point type as lt_colours and lt_points, linetype k for its entry k,
# then the plot's variants' (a second series of an implementation: a shade of its colour and
# another point type), and for each data file VAR the linetype of each of its series as VAR_lt
# ("3 1 7"), so an implementation has the same colour and point in every plot. Run by hand without them, series i
# takes linetype i+1 of twelve distinct colours.
# LT(list, i): the linetype of series i (from 0) of a data file; LOGY: after `stats`, a log
# y axis when the values span more than 20x (a linear one otherwise).
if (!exists("out")) out = 'plot.png'
if (!exists("W")) W = 900
if (!exists("H")) H = 600
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
LOGY = "if (exists('STATS_min') && STATS_min > 0 && STATS_max > 20 * STATS_min) { set logscale y } else { unset logscale y }; undefine STATS_*"
set grid
# x from the first point to the last, with a margin (autoscaling would extend it to a round tic,
# on a log axis a decade below the data)
set autoscale xfix
set offsets graph 0.02, graph 0.02, 0, 0
set key outside right top vertical Left reverse noenhanced
# keyw: the longest key entry in characters (the report passes it): every panel of a plot keeps
# the same right margin, wide enough for its key, so the panels line up
if (exists("keyw")) { set rmargin keyw + 8; set key at graph 1.02, graph 1 left top }
