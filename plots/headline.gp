# headline: the report's Summary as a picture, right under its table. At each workload point (a
# row, from the top), the fastest stackful over the fastest stackless implementation with the
# ratio's 95% interval, on a log axis with 1x dashed (under 1x: stackful faster); one colour per
# workload (a block of the data each, its name the key's entry); a point a family wins (claim
# 10's rule) a filled circle, an undecided one an open circle.
# usage: gnuplot -e "data='headline-0.dat'; rows=12; xlo=0.3; xhi=4; label=40; out='headline.png'" plots/headline.gp
# label: the longest row label's characters; the canvas widens with it (about 9 px a character
# beside 500 px of axis and the key), so that a long point does not squash the axis or clip
# the x label
# data: written by the report (harness/report/plots.c, cb_plots_headline): per workload
#       '"NAME"', then rows "row ratio lo hi won stackful stackless point" (NaN: no interval)
if (!exists("data")) data = 'headline-0.dat'
if (!exists("plotdir")) plotdir = 'plots'
if (!exists("rows")) rows = 10
if (!exists("xlo")) xlo = 0.1
if (!exists("xhi")) xhi = 10
if (!exists("label")) label = 40
W = 670 + 9 * label < 1100 ? 1100 : 670 + 9 * label
H = 150 + 20 * rows
load plotdir.'/common.gp'
# a colour per workload (block i), in order
array WC[10] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", \
                "#e377c2", "#7f7f7f", "#bcbd22"]
WCOL(i) = WC[i % 10 + 1]
set title "fastest stackful / fastest stackless at each workload point\n(95% interval; filled: a family wins the point, open: undecided)"
set xlabel "stackful / stackless, median ns per op (log scale; under 1x: stackful faster)"
unset ylabel
set logscale x
set xrange [xlo:xhi]
set offsets 0, 0, 0, 0
set yrange [rows - 0.5:-0.5]
set ytics scale 0
set grid xtics noytics
set xtics add (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 2, 5, 20, 50, 100)
set key outside right top vertical Left reverse noenhanced
set arrow 1 from 1, graph 0 to 1, graph 1 nohead dashtype 2 linewidth 1.5 linecolor rgb "#444444"
# the key's entry (the workload's colour) on the interval, whose sample a point type of its
# own would not show
plot for [i=0:*] data index i using 2:1:3:4 with xerrorbars pointsize 0 \
        linecolor rgb WCOL(i) linewidth 2 title columnheader(1), \
     for [i=0:*] data index i using 2:1:($5 > 0 ? 7 : 6):ytic(8) with points \
        pointtype variable pointsize 1.6 linecolor rgb WCOL(i) notitle
